// Command regdesk is the dashboard over the credit registration ledger, and its tools.
//
//	regdesk [serve]     serve the dashboard (the default)
//	regdesk migrate     apply pending database migrations
//	regdesk seed        write deterministic demo data
//	regdesk demo        make run's one-box setup: private database, demo data, fake Suotar, dashboard
//	regdesk devdb       start or stop the project's private PostgreSQL
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
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // Europe/Helsinki must resolve on machines without a zoneinfo database.

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
	if len(c.problems) > 0 {
		return config{}, fmt.Errorf("configuration:\n  %s", strings.Join(c.problems, "\n  "))
	}
	return cfg, nil
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// serveCommand serves the dashboard until ctx ends.
func serveCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := newConfigFlags(fs, getenv)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	cfg, err := cf.validate()
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{StatementTimeout: cfg.StatementTimeout})
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
	srv := web.New(web.Deps{Store: st, Log: log, Now: time.Now})
	return listenAndServe(ctx, cfg.Addr, srv.Routes(), log, func(addr string) {
		fmt.Fprintf(stdout, "regdesk is serving on http://%s/\n", addr)
	})
}

// listenAndServe serves h on addr until ctx ends, then shuts down gracefully. ready learns the
// bound address (addr may end in :0).
func listenAndServe(ctx context.Context, addr string, h http.Handler, log *slog.Logger, ready func(addr string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
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
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
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
