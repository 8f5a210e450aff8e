// Command regdesk is the dashboard over the credit registration ledger, and its tools.
//
//	regdesk [serve]     serve the dashboard (the default)
//	regdesk migrate     apply pending database migrations
//	regdesk seed        write deterministic demo data
//	regdesk demo        make run's one-box setup: private database, demo data, fake Suotar, dashboard
//	regdesk devdb       start or stop the project's private PostgreSQL
//	regdesk fakesuotar  a faithful fake of the Suotar registry API, for development and tests
//	regdesk user        add, change the password of, disable and list staff accounts
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // Europe/Helsinki must resolve on machines without a zoneinfo database.

	"regdesk/alerting"
	"regdesk/handaction"
	"regdesk/maintenance"
	"regdesk/partner/lms"
	"regdesk/partner/smtp"
	"regdesk/partner/suotar"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/web"
)

// errUsage reports a command line that could not be understood; the usage has been printed.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if errors.Is(err, errUsage) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "regdesk:", err)
		os.Exit(1)
	}
}

const usage = `usage: regdesk [command] [flags]

commands:
  serve     serve the dashboard (default)
  migrate   apply pending migrations to DATABASE_URL
  seed      write deterministic demo data to DATABASE_URL
  demo      private PostgreSQL + demo data + fake Suotar + dashboard (what make run does)
  devdb     up|down|url: the project's private PostgreSQL under .pgdata
  fakesuotar  a fake Suotar registry for development and tests
  user      add|passwd|disable|enable|list: staff accounts

Run "regdesk <command> -h" for a command's flags.`

// run is main without the process: tests call it with their own arguments and environment.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	switch name {
	case "serve":
		return serveCommand(ctx, args, getenv, stdout, stderr)
	case "migrate":
		return migrateCommand(ctx, args, getenv, stdout, stderr)
	case "seed":
		return seedCommand(ctx, args, getenv, stdout, stderr)
	case "devdb":
		return devdbCommand(ctx, args, getenv, stdout, stderr)
	case "demo":
		return demoCommand(ctx, args, getenv, stdout, stderr)
	case "fakesuotar":
		return fakeSuotarCommand(ctx, args, getenv, stdout, stderr)
	case "user":
		return userCommand(ctx, args, getenv, os.Stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		fmt.Fprintf(stderr, "regdesk: unknown command %q\n\n%s\n", name, usage)
		return errUsage
	}
}

// config is everything serve reads from the environment and flags. Packages never see it; they
// get plain values.
type config struct {
	DatabaseURL      string
	Addr             string
	RunMigrations    bool
	LogLevel         slog.Level
	StatementTimeout time.Duration
	// CountsTTL is how long the queue's counts are shared; 0 counts for every request.
	CountsTTL time.Duration
	// OverviewTTL is how long one reading of /overview is shared; 0 reads it for every request.
	OverviewTTL     time.Duration
	SessionSecure   bool
	SessionIdle     time.Duration
	SessionLifetime time.Duration
	TrustedOrigins  []string
	TrustedProxies  []netip.Prefix
	ProxyHeader     string
	ProxyTrusted    []netip.Prefix
	// SuotarURL and SuotarToken reach Suotar for lookups; both empty leaves lookups off.
	SuotarURL     string
	SuotarToken   string
	SuotarTimeout time.Duration
	// LMSURL and LMSToken reach the LMS's admin endpoints, through which every hand action is
	// taken; both empty leaves hand actions off.
	LMSURL   string
	LMSToken string
	// AccountLinkingSince is the LMS's own account_linking_since: only completions since then can
	// be stuck waiting for a student number; nil is off, as in the LMS.
	AccountLinkingSince *time.Time
	// ClaimLapse is how long an untouched claim counts; WaitingTarget the working days a row may
	// wait for a person before the queue marks it.
	ClaimLapse    time.Duration
	WaitingTarget int
	// BaseURL is regdesk's own absolute URL, for the links in mails.
	BaseURL string
	// SMTPURL, SMTPPassword and MailFrom reach the mail server; SMTPURL empty mails nothing.
	SMTPURL       string
	SMTPPassword  string
	MailFrom      string
	AlertInterval time.Duration
	// ExportDir is the folder of regdesk's own for long exports' files.
	ExportDir string
}

// suotarConfigured reports whether lookups can reach Suotar.
func (c config) suotarConfigured() bool { return c.SuotarURL != "" }

func (c config) suotarConfig() suotar.Config {
	return suotar.Config{BaseURL: c.SuotarURL, Token: c.SuotarToken, Timeout: c.SuotarTimeout}
}

// configFlags registers the serve flags on fs with defaults from the environment; parse fs, then
// call validate, which reports every problem at once.
type configFlags struct {
	fs       *flag.FlagSet
	getenv   func(string) string
	problems []string

	databaseURL      *string
	addr             *string
	runMigrations    *string
	logLevel         *string
	statementTimeout *string
	countsTTL        *string
	overviewTTL      *string
	sessionSecure    *string
	sessionIdle      *string
	sessionLifetime  *string
	trustedOrigins   *string
	trustedProxies   *string
	proxyHeader      *string
	proxyTrusted     *string
	suotarURL        *string
	lmsURL           *string
	linkingSince     *string
	suotarTimeout    *string
	claimLapse       *string
	waitingTarget    *string
	baseURL          *string
	smtpURL          *string
	mailFrom         *string
	alertInterval    *string
	exportDir        *string
}

func newConfigFlags(fs *flag.FlagSet, getenv func(string) string) *configFlags {
	return &configFlags{
		fs:               fs,
		getenv:           getenv,
		databaseURL:      fs.String("database-url", getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)"),
		addr:             fs.String("addr", cmpOr(getenv("REGDESK_ADDR"), "127.0.0.1:8080"), "listen address (env REGDESK_ADDR)"),
		runMigrations:    fs.String("migrate", cmpOr(getenv("RUN_MIGRATIONS"), "0"), "1 applies pending migrations at start (env RUN_MIGRATIONS)"),
		logLevel:         fs.String("log-level", cmpOr(getenv("LOG_LEVEL"), "info"), "debug, info, warn or error (env LOG_LEVEL)"),
		statementTimeout: fs.String("statement-timeout", cmpOr(getenv("STATEMENT_TIMEOUT"), "5s"), "bound on every dashboard query (env STATEMENT_TIMEOUT)"),
		countsTTL:        fs.String("counts-ttl", cmpOr(getenv("COUNTS_TTL"), "10s"), "how long the queue's counts are shared between requests; 0 counts for each (env COUNTS_TTL)"),
		overviewTTL:      fs.String("overview-ttl", cmpOr(getenv("OVERVIEW_TTL"), "1m"), "how long one reading of /overview is shared between requests; 0 reads it for each (env OVERVIEW_TTL)"),
		sessionSecure:    fs.String("session-secure", cmpOr(getenv("SESSION_SECURE"), "1"), "0 sends the session cookie over plain HTTP: local development only (env SESSION_SECURE)"),
		sessionIdle:      fs.String("session-idle-timeout", cmpOr(getenv("SESSION_IDLE_TIMEOUT"), web.DefaultIdleTimeout.String()), "a session unused this long ends (env SESSION_IDLE_TIMEOUT)"),
		sessionLifetime:  fs.String("session-lifetime", cmpOr(getenv("SESSION_LIFETIME"), web.DefaultLifetime.String()), "every session ends this long after sign-in (env SESSION_LIFETIME)"),
		trustedOrigins:   fs.String("trusted-origins", getenv("TRUSTED_ORIGINS"), "other origins allowed to send state-changing requests, comma-separated (env TRUSTED_ORIGINS)"),
		trustedProxies:   fs.String("trusted-proxies", getenv("TRUSTED_PROXIES"), "reverse proxies (CIDRs) whose X-Forwarded-For names the client (env TRUSTED_PROXIES)"),
		proxyHeader:      fs.String("auth-proxy-header", getenv("AUTH_PROXY_HEADER"), "header in which an authenticating proxy names the person by e-mail; empty: off (env AUTH_PROXY_HEADER)"),
		proxyTrusted:     fs.String("auth-proxy-trusted", getenv("AUTH_PROXY_TRUSTED"), "addresses (CIDRs) of that proxy, comma-separated (env AUTH_PROXY_TRUSTED)"),
		suotarURL:        fs.String("suotar-url", getenv("SUOTAR_URL"), "Suotar's batch API base URL for Sisu lookups; empty turns lookups off (env SUOTAR_URL; the token is read from SUOTAR_TOKEN only)"),
		lmsURL:           fs.String("lms-url", getenv("LMS_URL"), "the LMS's base URL, under which its credit-registration admin endpoints live; empty turns hand actions off (env LMS_URL; the token is read from LMS_TOKEN only)"),
		linkingSince:     fs.String("lms-account-linking-since", getenv("LMS_ACCOUNT_LINKING_SINCE"), "the LMS's account_linking_since, RFC 3339: completions since then can be stuck waiting for a student number; empty: account linking is off (env LMS_ACCOUNT_LINKING_SINCE)"),
		suotarTimeout:    fs.String("suotar-timeout", cmpOr(getenv("SUOTAR_TIMEOUT"), suotar.DefaultTimeout.String()), "how long a lookup waits for Suotar (env SUOTAR_TIMEOUT)"),
		claimLapse:       fs.String("claim-lapse", cmpOr(getenv("CLAIM_LAPSE"), store.DefaultClaimLapse.String()), "an \"I'm on it\" claim nobody touches this long no longer counts (env CLAIM_LAPSE)"),
		waitingTarget:    fs.String("waiting-target", cmpOr(getenv("WAITING_TARGET_DAYS"), strconv.Itoa(schedule.DefaultWaitingTarget)), "working days (Helsinki, weekends excluded) a row may wait for a person before the queue marks it (env WAITING_TARGET_DAYS)"),
		baseURL:          fs.String("base-url", getenv("REGDESK_BASE_URL"), "regdesk's own absolute URL, for links in mails; default http://REGDESK_ADDR/ (env REGDESK_BASE_URL)"),
		smtpURL:          fs.String("smtp-url", getenv("SMTP_URL"), "mail server, smtp://[user@]host[:port] (STARTTLS) or smtps://; empty mails nothing (env SMTP_URL; the password is read from SMTP_PASSWORD only)"),
		mailFrom:         fs.String("mail-from", getenv("MAIL_FROM"), "sender of alert mails, such as \"regdesk <regdesk@example.org>\" (env MAIL_FROM)"),
		alertInterval:    fs.String("alert-interval", cmpOr(getenv("ALERT_INTERVAL"), "1m"), "how often the health rules are evaluated and due mails sent (env ALERT_INTERVAL)"),
		exportDir:        fs.String("export-dir", cmpOr(getenv("EXPORT_DIR"), web.DefaultExportDir()), "folder of regdesk's own for long exports' files, swept at start and on shutdown (env EXPORT_DIR)"),
	}
}

func (c *configFlags) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *configFlags) boolValue(name, v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off", "":
		return false
	}
	c.problem("%s: %q is not 1 or 0", name, v)
	return false
}

func (c *configFlags) durationValue(name, v string) time.Duration {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		c.problem("%s: %q is not a duration such as 5s or 2m", name, v)
	}
	return d
}

// validate turns the parsed flags into a config, or an error listing every problem.
func (c *configFlags) validate() (config, error) {
	cfg := config{
		DatabaseURL:      *c.databaseURL,
		Addr:             *c.addr,
		RunMigrations:    c.boolValue("RUN_MIGRATIONS", *c.runMigrations),
		StatementTimeout: c.durationValue("STATEMENT_TIMEOUT", *c.statementTimeout),
		CountsTTL:        c.durationValue("COUNTS_TTL", *c.countsTTL),
		OverviewTTL:      c.durationValue("OVERVIEW_TTL", *c.overviewTTL),
	}
	if cfg.DatabaseURL == "" {
		c.problem("DATABASE_URL is not set (or use make run, which starts a private PostgreSQL)")
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		c.problem("REGDESK_ADDR: %q is not host:port", cfg.Addr)
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*c.logLevel)); err != nil {
		c.problem("LOG_LEVEL: %q is not debug, info, warn or error", *c.logLevel)
	}
	cfg.SessionSecure = c.boolValue("SESSION_SECURE", *c.sessionSecure)
	cfg.SessionIdle = c.durationValue("SESSION_IDLE_TIMEOUT", *c.sessionIdle)
	cfg.SessionLifetime = c.durationValue("SESSION_LIFETIME", *c.sessionLifetime)
	if cfg.SessionIdle == 0 || cfg.SessionLifetime == 0 {
		c.problem("SESSION_IDLE_TIMEOUT and SESSION_LIFETIME must be longer than 0")
	} else if cfg.SessionIdle > cfg.SessionLifetime {
		c.problem("SESSION_IDLE_TIMEOUT (%s) is longer than SESSION_LIFETIME (%s)", cfg.SessionIdle, cfg.SessionLifetime)
	}
	for _, o := range listValue(*c.trustedOrigins) {
		if err := http.NewCrossOriginProtection().AddTrustedOrigin(o); err != nil {
			c.problem("TRUSTED_ORIGINS: %q is not an origin such as https://regdesk.example.org", o)
			continue
		}
		cfg.TrustedOrigins = append(cfg.TrustedOrigins, o)
	}
	cfg.TrustedProxies = c.prefixesValue("TRUSTED_PROXIES", *c.trustedProxies)
	cfg.ProxyHeader = strings.TrimSpace(*c.proxyHeader)
	cfg.ProxyTrusted = c.prefixesValue("AUTH_PROXY_TRUSTED", *c.proxyTrusted)
	switch {
	case cfg.ProxyHeader != "" && !validHeaderName(cfg.ProxyHeader):
		c.problem("AUTH_PROXY_HEADER: %q is not a header name", cfg.ProxyHeader)
	case cfg.ProxyHeader != "" && len(cfg.ProxyTrusted) == 0:
		c.problem("AUTH_PROXY_HEADER is set but AUTH_PROXY_TRUSTED is empty: name the proxy's addresses, or anyone could sign in as anyone")
	case cfg.ProxyHeader == "" && len(cfg.ProxyTrusted) > 0:
		c.problem("AUTH_PROXY_TRUSTED is set but AUTH_PROXY_HEADER is empty: name the header the proxy sets")
	}
	if cfg.ClaimLapse = c.durationValue("CLAIM_LAPSE", *c.claimLapse); cfg.ClaimLapse <= 0 {
		c.problem("CLAIM_LAPSE must be longer than 0")
	}
	if n, err := strconv.Atoi(strings.TrimSpace(*c.waitingTarget)); err != nil || n < 1 || n > 60 {
		c.problem("WAITING_TARGET_DAYS: %q is not a number of working days from 1 to 60", *c.waitingTarget)
	} else {
		cfg.WaitingTarget = n
	}
	if cfg.ExportDir = strings.TrimSpace(*c.exportDir); !filepath.IsAbs(cfg.ExportDir) {
		c.problem("EXPORT_DIR: %q is not an absolute path; its contents are deleted at start, so name a folder of regdesk's own", cfg.ExportDir)
	}
	c.validateSuotar(&cfg)
	c.validateLMS(&cfg)
	c.validateLinking(&cfg)
	c.validateMail(&cfg)
	if len(c.problems) > 0 {
		return config{}, fmt.Errorf("configuration:\n  %s", strings.Join(c.problems, "\n  "))
	}
	return cfg, nil
}

// listValue splits a comma- or space-separated list, dropping empty items.
func listValue(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

// prefixesValue parses a list of CIDRs; a bare address stands for itself alone.
func (c *configFlags) prefixesValue(name, v string) []netip.Prefix {
	var out []netip.Prefix
	for _, item := range listValue(v) {
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(item); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		c.problem("%s: %q is not an address or a CIDR such as 10.0.0.0/8", name, item)
	}
	return out
}

// validHeaderName reports whether s is an HTTP header field name (an RFC 9110 token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// validateSuotar reads the Suotar settings into cfg. The token comes from the environment only,
// so it never shows in a process list or in -help.
func (c *configFlags) validateSuotar(cfg *config) {
	cfg.SuotarURL = strings.TrimSpace(*c.suotarURL)
	cfg.SuotarToken = strings.TrimSpace(c.getenv("SUOTAR_TOKEN"))
	known := len(c.problems)
	cfg.SuotarTimeout = c.durationValue("SUOTAR_TIMEOUT", *c.suotarTimeout)
	if len(c.problems) == known && cfg.SuotarTimeout == 0 {
		c.problem("SUOTAR_TIMEOUT: must be longer than 0")
	}
	switch {
	case cfg.SuotarURL == "" && cfg.SuotarToken == "":
		return // lookups are off; the page says so
	case cfg.SuotarURL == "":
		c.problem("SUOTAR_URL is not set, but SUOTAR_TOKEN is: set both to look students up in Sisu, or neither")
		return
	case cfg.SuotarToken == "":
		c.problem("SUOTAR_TOKEN is not set, but SUOTAR_URL is: set both to look students up in Sisu, or neither")
		return
	}
	if _, err := suotar.New(cfg.suotarConfig()); err != nil {
		c.problem("SUOTAR_URL: %q is not an absolute http(s) URL", cfg.SuotarURL)
	}
}

// validateLMS reads the LMS settings into cfg. The token comes from the environment only.
func (c *configFlags) validateLMS(cfg *config) {
	cfg.LMSURL = strings.TrimSpace(*c.lmsURL)
	cfg.LMSToken = strings.TrimSpace(c.getenv("LMS_TOKEN"))
	switch {
	case cfg.LMSURL == "" && cfg.LMSToken == "":
		return // hand actions are off; the pages say so
	case cfg.LMSURL == "":
		c.problem("LMS_URL is not set, but LMS_TOKEN is: set both to take hand actions through the LMS, or neither")
		return
	case cfg.LMSToken == "":
		c.problem("LMS_TOKEN is not set, but LMS_URL is: set both to take hand actions through the LMS, or neither")
		return
	}
	if _, err := lms.New(cfg.LMSURL, cfg.LMSToken, nil); err != nil {
		c.problem("LMS_URL: %v", err)
	}
}

// validateLinking reads the LMS's account_linking_since, which the LMS keeps in its process's
// settings rather than in a table regdesk could read.
func (c *configFlags) validateLinking(cfg *config) {
	v := strings.TrimSpace(*c.linkingSince)
	if v == "" {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		c.problem("LMS_ACCOUNT_LINKING_SINCE: %q is not an RFC 3339 time such as 2026-08-01T00:00:00Z (empty: account linking is off)", v)
		return
	}
	t = t.UTC()
	cfg.AccountLinkingSince = &t
}

// validateMail reads the mail settings into cfg. The password comes from the environment only.
func (c *configFlags) validateMail(cfg *config) {
	cfg.BaseURL = strings.TrimSpace(*c.baseURL)
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://" + cfg.Addr + "/"
	}
	if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.problem("REGDESK_BASE_URL: %q is not an absolute http(s) URL such as https://regdesk.example.org/", cfg.BaseURL)
	}
	known := len(c.problems)
	cfg.AlertInterval = c.durationValue("ALERT_INTERVAL", *c.alertInterval)
	if len(c.problems) == known && cfg.AlertInterval < time.Second {
		c.problem("ALERT_INTERVAL: must be at least 1s")
	}
	cfg.SMTPURL = strings.TrimSpace(*c.smtpURL)
	cfg.SMTPPassword = c.getenv("SMTP_PASSWORD")
	cfg.MailFrom = strings.TrimSpace(*c.mailFrom)
	if cfg.SMTPURL == "" {
		if cfg.SMTPPassword != "" {
			c.problem("SMTP_PASSWORD is set, but SMTP_URL is not")
		}
		return
	}
	if _, err := smtp.ParseURL(cfg.SMTPURL); err != nil {
		c.problem("%s", err)
	}
	if cfg.MailFrom == "" {
		c.problem("SMTP_URL is set, but MAIL_FROM is not: name the sender of alert mails")
	} else if _, err := mail.ParseAddress(cfg.MailFrom); err != nil {
		c.problem("MAIL_FROM: %q is not an e-mail address", cfg.MailFrom)
	}
}

// redactedURL hides any password in u, for logs.
func redactedURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(unreadable URL)"
	}
	return parsed.Redacted()
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// serveCommand serves the dashboard until ctx ends.
func serveCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return serve(ctx, args, getenv, stdout, stderr, nil)
}

// serve is serveCommand with standIns, make run's stand-ins for the LMS's own processes, run
// beside the server's jobs (backgroundJobs); serveCommand passes none.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, standIns []maintenance.Job) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := newConfigFlags(fs, getenv)
	clockFrom := fs.String("clock-from", "", "benchmarks only: start the clock at this RFC 3339 instant, a stored ledger's own, instead of now; never in service")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	cfg, err := cf.validate()
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	if limit, ours := serveMemoryLimit(getenv); ours {
		log.Debug("soft memory limit", "bytes", limit)
	}
	now, err := serveClock(*clockFrom, time.Now)
	if err != nil {
		return err
	}
	if *clockFrom != "" {
		log.Warn("the clock is shifted: -clock-from is for benchmarks on a stored ledger, never for service", "from", *clockFrom)
	}
	st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{StatementTimeout: cfg.StatementTimeout, AccountLinkingSince: cfg.AccountLinkingSince})
	if err != nil {
		return err
	}
	defer st.Close()
	if cfg.RunMigrations {
		applied, err := st.Migrate(ctx)
		if err != nil {
			return err
		}
		if len(applied) > 0 {
			log.Info("applied migrations", "names", applied)
		}
	}
	if err := st.CheckSchema(ctx); err != nil {
		return err
	}
	if err := st.CheckLMS(ctx); err != nil {
		return err
	}
	deps := web.Deps{
		Store: st, Log: log, Now: now,
		Session: web.SessionConfig{
			Insecure:    !cfg.SessionSecure,
			IdleTimeout: cfg.SessionIdle,
			Lifetime:    cfg.SessionLifetime,
		},
		TrustedOrigins: cfg.TrustedOrigins,
		// Every open queue tab asks for counts every 15 s; one count per 10 s serves them all.
		CountsTTL:      cfg.CountsTTL,
		OverviewTTL:    cfg.OverviewTTL,
		TrustedProxies: cfg.TrustedProxies,
		ProxyAuth:      web.ProxyAuth{Header: cfg.ProxyHeader, Trusted: cfg.ProxyTrusted},
		// A request may wait for its statements and a second besides; a lookup for Suotar too.
		RequestTimeout: cfg.StatementTimeout + time.Second,
		LookupTimeout:  cfg.SuotarTimeout + time.Second,
		ClaimLapse:     cfg.ClaimLapse,
		WaitingTarget:  cfg.WaitingTarget,
		ExportDir:      cfg.ExportDir,
	}
	if cfg.suotarConfigured() {
		client, err := suotar.New(cfg.suotarConfig())
		if err != nil {
			return fmt.Errorf("suotar: %w", err)
		}
		deps.Suotar = client
		log.Info("Sisu lookups go to Suotar", "url", redactedURL(cfg.SuotarURL), "timeout", cfg.SuotarTimeout)
	} else {
		log.Info("Suotar is not configured: Sisu lookups are off (set SUOTAR_URL and SUOTAR_TOKEN)")
	}
	if !cfg.SessionSecure {
		log.Warn("SESSION_SECURE=0: the session cookie travels over plain HTTP; use this only on your own machine")
	}
	if cfg.ProxyHeader != "" {
		log.Info("single sign-on through the authenticating proxy is on", "header", cfg.ProxyHeader, "trusted", cfg.ProxyTrusted)
	}
	if cfg.LMSURL != "" {
		client, err := lms.New(cfg.LMSURL, cfg.LMSToken, nil)
		if err != nil {
			return fmt.Errorf("lms: %w", err)
		}
		deps.LMS = client
		log.Info("hand actions go to the LMS's admin endpoints", "url", redactedURL(cfg.LMSURL))
	} else {
		log.Info("the LMS is not configured: hand actions are off (set LMS_URL and LMS_TOKEN)")
	}
	var sender alerting.Sender
	if cfg.SMTPURL != "" {
		smtpSender, err := smtp.New(smtp.Config{URL: cfg.SMTPURL, Password: cfg.SMTPPassword})
		if err != nil {
			return err
		}
		sender = smtpSender
		log.Info("alert mails go out", "smtp", smtpSender.Redacted(), "from", cfg.MailFrom, "links", cfg.BaseURL)
	} else {
		log.Info("SMTP_URL is not set: alerts are evaluated and shown, but nobody is mailed")
	}
	alerts, err := alerting.New(alerting.Config{Store: st, Sender: sender, Now: now, Log: log, BaseURL: cfg.BaseURL, From: cmpOr(cfg.MailFrom, "regdesk <regdesk@localhost>")})
	if err != nil {
		return err
	}
	deps.Mailing = alerts.Mailing()
	deps.AlertsTTL = 15 * time.Second
	bulk := &maintenance.BulkApply{Store: st, Actions: &handaction.Service{Store: st, LMS: deps.LMS, Now: now, Log: log}, Now: now, Log: log}
	deps.BulkQueued = bulk.Queued
	srv := web.New(deps)
	defer srv.Close()
	jobs := &maintenance.Runner{Log: log, Jobs: backgroundJobs(st, alerts, bulk, cfg, now, log, standIns)}
	jobs.Start(ctx)
	defer jobs.Stop()
	return listenAndServe(ctx, cfg.Addr, srv.Routes(), log, serveLimits(cfg, srv.Drain), func(addr string) {
		fmt.Fprintf(stdout, "regdesk is serving on http://%s/\n", addr)
	})
}

// serveClock is the server's clock: wall, or with from set, one that starts at from and runs
// on. make bench serves its stored ledger on it, so the ledger is read at the instant it was
// written for, whatever day the benchmark runs: on the wall clock the verify windows emptied as the
// days went by, and the table measured a pipeline stopped that many days before.
func serveClock(from string, wall func() time.Time) (func() time.Time, error) {
	if from == "" {
		return wall, nil
	}
	at, err := time.Parse(time.RFC3339, from)
	if err != nil {
		return nil, fmt.Errorf("-clock-from %q is not an RFC 3339 time such as 2026-03-02T09:00:00Z", from)
	}
	shift := at.Sub(wall())
	return func() time.Time { return wall().Add(shift) }, nil
}

// serveLimits are the HTTP server's limits for cfg; drain runs as a shutdown begins.
func serveLimits(cfg config, drain func()) serverLimits {
	return serverLimits{
		// Every form regdesk sends is small; a body still arriving after this is not a person.
		ReadTimeout: 30 * time.Second,
		// The longest answer is a lookup's: its statements, Suotar's timeout, and time to write.
		WriteTimeout: cfg.StatementTimeout + cfg.SuotarTimeout + 15*time.Second,
		Grace:        shutdownGrace,
		OnShutdown:   drain,
	}
}

// shutdownGrace is how long a shutdown waits for requests in flight. Lookups waiting on Suotar
// are told to stop (web.Server.Drain), so every request ends well within it.
const shutdownGrace = 15 * time.Second

// serverLimits are the HTTP server's timeouts and what it does as a shutdown begins.
type serverLimits struct {
	// ReadTimeout bounds reading a request, body included: a slow-body request cannot hold a
	// connection for ever.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from its headers to the end of its answer.
	WriteTimeout time.Duration
	// Grace is how long a shutdown waits for requests in flight.
	Grace time.Duration
	// OnShutdown runs as the shutdown begins; nil for nothing.
	OnShutdown func()
}

// listenAndServe serves h on addr until ctx ends, then shuts down gracefully. ready learns the
// bound address (addr may end in :0).
func listenAndServe(ctx context.Context, addr string, h http.Handler, log *slog.Logger, limits serverLimits, ready func(addr string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       limits.ReadTimeout,
		WriteTimeout:      limits.WriteTimeout,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if limits.OnShutdown != nil {
		srv.RegisterOnShutdown(limits.OnShutdown)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cmp.Or(limits.Grace, shutdownGrace))
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// migrateCommand applies pending migrations and exits.
func migrateCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *dbURL == "" {
		return errors.New("DATABASE_URL is not set")
	}
	st, err := store.Open(ctx, *dbURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	applied, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "migrate: the schema is up to date")
		return nil
	}
	fmt.Fprintf(stdout, "migrate: applied %s\n", strings.Join(applied, ", "))
	return nil
}

// cmpOr returns the first non-empty string.
func cmpOr(vals ...string) string { return cmp.Or(vals...) }

// atoiOr parses s as an int, or returns def when s is empty.
func atoiOr(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	return strconv.Atoi(s)
}

// defaultMemoryLimit is the Go heap's soft limit for serve when GOMEMLIMIT does not set one. The
// live heap stays near 20 MB; what grows under a crowd is garbage between collections, and on
// the ten-million-row ledger, where requests take longer and more overlap, the process's peak
// reached 150 MB. Near the limit the collector runs sooner instead.
const defaultMemoryLimit = 64 << 20

// serveMemoryLimit sets defaultMemoryLimit unless the environment's GOMEMLIMIT (which the runtime
// has read already) says otherwise, and returns the limit in force and whether it is ours.
func serveMemoryLimit(getenv func(string) string) (int64, bool) {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1), false
	}
	debug.SetMemoryLimit(defaultMemoryLimit)
	return defaultMemoryLimit, true
}
