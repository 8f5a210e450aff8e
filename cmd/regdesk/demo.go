package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/maintenance"
	"regdesk/partner/lms/lmsfake"
	"regdesk/partner/suotar"
	"regdesk/partner/suotar/suotarfake"
	"regdesk/store"
	"regdesk/store/demo"
)

// demoCommand is make run's one-box setup: the private PostgreSQL (unless DATABASE_URL is set),
// the LMS's tables in their real shape (when the database has none) with regdesk's schema beside
// them, demo data on first run, demo accounts (the admin and support people are the LMS users
// whose hands the demo's history shows), a fake Suotar that agrees with the demo data, and the
// dashboard pointed at it. The dashboard is serveCommand itself, configured through
// the environment it would read, so the demo runs exactly the code production runs.
func demoCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	suotarAddr := fs.String("suotar-addr", cmpOr(getenv("REGDESK_DEMO_SUOTAR_ADDR"), "127.0.0.1:8081"), "fake Suotar address (env REGDESK_DEMO_SUOTAR_ADDR)")
	lmsAddr := fs.String("lms-addr", cmpOr(getenv("REGDESK_DEMO_LMS_ADDR"), "127.0.0.1:8082"), "the fake LMS's admin endpoints' address (env REGDESK_DEMO_LMS_ADDR)")
	rows := fs.Int("rows", demo.DefaultRows, "demo rows written on the first run")
	seed := fs.Int64("seed", 1, "demo data seed")
	pgdata := fs.String("pgdata", cmpOr(getenv("REGDESK_PGDATA"), ".pgdata"), "folder of the private cluster and the fake Suotar's world")
	timeScale := fs.Float64("time-scale", 1, "fake Suotar seconds per real second (3600: an hour passes in a second)")
	smtpAddr := fs.String("smtp-addr", cmpOr(getenv("REGDESK_DEMO_SMTP_ADDR"), "127.0.0.1:1025"), "Mailpit's SMTP address (env REGDESK_DEMO_SMTP_ADDR)")
	mailAddr := fs.String("mail-addr", cmpOr(getenv("REGDESK_DEMO_MAIL_ADDR"), "127.0.0.1:8025"), "Mailpit's web page, where the demo's mails are read (env REGDESK_DEMO_MAIL_ADDR)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("demo: unexpected arguments %q", fs.Args())
	}

	dbURL := getenv("DATABASE_URL")
	private := dbURL == ""
	if private {
		c, err := findDevCluster(*pgdata, getenv)
		if err != nil {
			return err
		}
		if err := c.up(ctx, stderr); err != nil {
			return err
		}
		if err := c.ensureDatabase(ctx, "regdesk"); err != nil {
			return err
		}
		dbURL = c.url("regdesk")
	}
	st, err := store.Open(ctx, dbURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := prepareDemoDatabase(ctx, st, stdout); err != nil {
		return fmt.Errorf("demo: %w", err)
	}

	// The fake's world is written with the demo data and kept beside it: the two must agree, and
	// the data is written only once.
	worldFile := filepath.Join(*pgdata, "suotar-world.json")
	collector := demo.NewWorld()
	sum, err := demo.Write(ctx, st, demo.Config{
		Rows: *rows, Seed: *seed, Now: time.Now().UTC().Truncate(time.Second), IfEmpty: true, Truth: collector.Add,
		Staff: demoStaff(),
	})
	if err != nil {
		return fmt.Errorf("demo data: %w", err)
	}
	if !sum.Skipped {
		fmt.Fprintf(stdout, "demo: wrote %d registrations of %d students in %s\n", sum.Rows, sum.Students, sum.Duration.Round(time.Millisecond))
		if err := os.MkdirAll(*pgdata, 0o755); err != nil {
			return err
		}
		if err := collector.Result().Save(worldFile); err != nil {
			return fmt.Errorf("demo: save the fake Suotar's world: %w", err)
		}
	}
	world, err := suotarfake.LoadWorld(worldFile)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "demo: %s is missing, so the fake Suotar starts with an empty world (make db/reset re-seeds both)\n", worldFile)
		world, err = suotarfake.NewWorld(), nil
	}
	if err != nil {
		return fmt.Errorf("demo: load the fake Suotar's world: %w", err)
	}

	logins, err := ensureDemoAccounts(ctx, st)
	if err != nil {
		return err
	}
	st.Close()

	var b [32]byte
	_, _ = rand.Read(b[:])
	token := "suotar_" + hex.EncodeToString(b[:])
	fakeLog := newLogger(stderr, slog.LevelWarn)
	fake, err := suotarfake.New(token,
		suotarfake.WithWorld(world),
		suotarfake.WithClock(suotarfake.NewClock(time.Now(), *timeScale)),
		suotarfake.WithLogger(fakeLog),
	)
	if err != nil {
		return err
	}
	defer fake.Close()
	ln, err := net.Listen("tcp", *suotarAddr)
	if err != nil {
		return fmt.Errorf("demo: the fake Suotar cannot listen on %s (set REGDESK_DEMO_SUOTAR_ADDR): %w", *suotarAddr, err)
	}
	suotarURL := "http://" + ln.Addr().String() + suotarfake.DefaultPrefix
	fakeSrv := &http.Server{Handler: fake, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		// The dashboard keeps running without the fake, but every lookup would fail: say why.
		if err := fakeSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fakeLog.Error("the fake Suotar stopped serving; lookups in Sisu will fail", "addr", ln.Addr().String(), "err", err)
		}
	}()
	defer fakeSrv.Close()

	fmt.Fprintf(stdout, "demo: the fake Suotar answers on %s (its world: %s)\n", suotarURL, worldFile)
	// The demo's students pressed "I have enrolled" on every course: account linking is on for
	// every completion, in the fake LMS and in regdesk alike, or the two would disagree on who is
	// stuck waiting for a student number.
	linkingSince := cmpOr(getenv("LMS_ACCOUNT_LINKING_SINCE"), demoAccountLinkingSince)
	since, err := time.Parse(time.RFC3339Nano, linkingSince)
	if err != nil {
		return fmt.Errorf("demo: LMS_ACCOUNT_LINKING_SINCE: %q is not an RFC 3339 time", linkingSince)
	}
	lmsURL, lmsToken, lmsFake, stopLMS, err := startDemoLMS(ctx, dbURL, *lmsAddr, since, fakeLog)
	if err != nil {
		return err
	}
	defer stopLMS()
	fmt.Fprintf(stdout, "demo: the fake LMS's admin endpoints answer on %s; hand actions go there\n", lmsURL)
	printDemoLogins(stdout, logins)
	addr := cmpOr(getenv("REGDESK_ADDR"), "127.0.0.1:8080")
	env := map[string]string{
		"REGDESK_BASE_URL": cmpOr(getenv("REGDESK_BASE_URL"), "http://"+addr+"/"),
		// The demo evaluates often, so a newcomer sees alerts and mails within a minute.
		"ALERT_INTERVAL":            cmpOr(getenv("ALERT_INTERVAL"), "15s"),
		"DATABASE_URL":              dbURL,
		"RUN_MIGRATIONS":            "1",
		"SUOTAR_URL":                suotarURL,
		"SUOTAR_TOKEN":              token,
		"LMS_URL":                   lmsURL,
		"LMS_TOKEN":                 lmsToken,
		"LMS_ACCOUNT_LINKING_SINCE": linkingSince,
		// make run serves plain HTTP on this machine.
		"SESSION_SECURE": cmpOr(getenv("SESSION_SECURE"), "0"),
	}
	if getenv("SMTP_URL") == "" {
		stopMail, err := startMailpit(ctx, getenv("REGDESK_DEMO_MAILPIT"), *smtpAddr, *mailAddr, filepath.Join(*pgdata, "mailpit.db"), stderr)
		if err != nil {
			fmt.Fprintf(stderr, "demo: %v; alerts are shown but not mailed (make mailpit installs it)\n", err)
		} else {
			defer stopMail()
			env["SMTP_URL"] = "smtp://" + *smtpAddr
			env["MAIL_FROM"] = "regdesk demo <regdesk@regdesk.test>"
			fmt.Fprintf(stdout, "demo: alert mails go to Mailpit; read them on http://%s/\n", *mailAddr)
		}
	}
	// No LMS pipeline runs here: the stand-in for its verify phase asks the fake Suotar, so Check
	// now on a row Sisu holds ends registered within a minute, as it would beside the LMS.
	sisu, err := suotar.New(suotar.Config{BaseURL: suotarURL, Token: token})
	if err != nil {
		return err
	}
	pipeline := &lmsfake.Pipeline{Server: lmsFake, Sisu: demoSisu{sisu}, Log: fakeLog, Since: time.Now()}
	err = serve(ctx, nil, func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return getenv(k)
	}, stdout, stderr, []maintenance.Job{pipeline})
	if private {
		// Ctrl-C stops the demo, not the cluster: make test and the next make run use it too.
		fmt.Fprintln(stdout, demoClusterKeepsRunning)
	}
	return err
}

// demoClusterKeepsRunning is what make run says when it stops on the private cluster.
const demoClusterKeepsRunning = "demo: stopped; the private PostgreSQL keeps running for make test and the next make run (make db/down, that is bin/regdesk devdb down, stops it)"

// prepareDemoDatabase readies a demo or seed database: the LMS's tables when it has none (they
// stand in for the LMS's own, which regdesk never creates beside the real LMS), then regdesk's
// migrations. A database an earlier regdesk laid out for itself gives store.ErrOldLayout, whose
// message says to run make db/reset.
func prepareDemoDatabase(ctx context.Context, st *store.Store, stdout io.Writer) error {
	createdLMS, applied, err := demo.Prepare(ctx, st, nil)
	if err != nil {
		return err
	}
	if createdLMS {
		fmt.Fprintln(stdout, "demo: created the LMS's tables (a stand-in for the LMS's own database)")
	}
	if len(applied) > 0 {
		fmt.Fprintf(stdout, "demo: applied regdesk's migrations %s\n", strings.Join(applied, ", "))
	}
	return nil
}

// startMailpit runs Mailpit (bin if given, else from PATH, else bin/ as make installs it) as the
// demo's mail server, its mails kept in dbFile, and returns what stops it.
func startMailpit(ctx context.Context, bin, smtpAddr, webAddr, dbFile string, stderr io.Writer) (func(), error) {
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("mailpit"); err != nil {
			bin = filepath.Join("bin", "mailpit")
			if _, err := os.Stat(bin); err != nil {
				return nil, errors.New("Mailpit is not installed")
			}
		}
	}
	cmd := exec.CommandContext(ctx, bin, "--smtp", smtpAddr, "--listen", webAddr, "--database", dbFile,
		"--quiet", "--disable-version-check", "--smtp-disable-rdns")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start Mailpit: %w", err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	// Mail waits in the outbox until the server answers, so a slow start loses nothing; still,
	// wait a little so the first evaluation's mails go at once.
	for range 100 {
		if c, err := net.DialTimeout("tcp", smtpAddr, 100*time.Millisecond); err == nil {
			c.Close()
			return stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return nil, fmt.Errorf("Mailpit did not answer on %s (set REGDESK_DEMO_SMTP_ADDR)", smtpAddr)
}

// demoAccountLinkingSince turns account linking on for every completion of the demo data.
const demoAccountLinkingSince = "2000-01-01T00:00:00Z"

// startDemoLMS serves the fake of the LMS's credit-registration admin endpoints (lmsfake) on addr,
// writing the demo database as the LMS's owner, with the fix to the LMS's audit table that regdesk
// asks the LMS team for (so bulk transitions can record their audit row), under the LMS's
// account_linking_since linkingSince. It returns the LMS_URL and LMS_TOKEN the dashboard reaches
// it with, and the fake itself.
func startDemoLMS(ctx context.Context, dbURL, addr string, linkingSince time.Time, log *slog.Logger) (url, token string, fake *lmsfake.Server, stop func(), err error) {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return "", "", nil, nil, fmt.Errorf("demo: the fake LMS's database: %w", err)
	}
	if err := lmsfake.RelaxAuditTargetCheck(ctx, pool); err != nil {
		pool.Close()
		return "", "", nil, nil, fmt.Errorf("demo: %w", err)
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	token = "lms_" + hex.EncodeToString(b[:])
	fake, err = lmsfake.New(pool, lmsfake.Options{Token: token, Logger: log, AccountLinkingSince: &linkingSince})
	if err != nil {
		pool.Close()
		return "", "", nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		pool.Close()
		return "", "", nil, nil, fmt.Errorf("demo: the fake LMS cannot listen on %s (set REGDESK_DEMO_LMS_ADDR): %w", addr, err)
	}
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the fake LMS stopped serving; hand actions will fail", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return "http://" + ln.Addr().String(), token, fake, func() {
		fake.Close()
		_ = srv.Close()
		pool.Close()
	}, nil
}

// demoSisu answers the demo pipeline's questions (lmsfake.Sisu) from Suotar.
type demoSisu struct{ c *suotar.Client }

// Submit sends one registration with import_attainments.
func (d demoSisu) Submit(ctx context.Context, it lmsfake.SubmitItem) (lmsfake.SubmitAnswer, error) {
	b, err := d.c.ImportAttainments(ctx, []suotar.ImportItem{{StudentNumber: it.StudentNumber, CourseCode: it.CourseCode,
		EnrolmentID: it.EnrolmentID, AttainmentDate: it.AttainmentDate, AttainmentLanguage: it.AttainmentLanguage,
		GradeScaleID: it.GradeScaleID, GradeID: it.GradeID, Credits: it.Credits}})
	if err != nil {
		return lmsfake.SubmitAnswer{}, err
	}
	a := b.Items[0]
	return lmsfake.SubmitAnswer{Code: a.RawCode, SubmittedAttainmentID: a.SubmittedAttainmentID, SubmittedAttainmentType: a.SubmittedAttainmentType}, nil
}

// Verify asks verify_attainments about one submitted attainment.
func (d demoSisu) Verify(ctx context.Context, id string) (lmsfake.SisuAnswer, error) {
	b, err := d.c.VerifyAttainments(ctx, []string{id})
	if err != nil {
		return lmsfake.SisuAnswer{}, err
	}
	a := b.Items[0]
	if !a.OK() {
		return lmsfake.SisuAnswer{}, nil
	}
	switch a.Code {
	case suotar.CodeRegistered:
		if a.Attainment == nil {
			return lmsfake.SisuAnswer{}, nil
		}
		out := lmsfake.SisuAnswer{Outcome: lmsfake.SisuPartial, AttainmentID: a.Attainment.ID, AttainmentType: a.Attainment.Type}
		if a.Attainment.Type == "CourseUnitAttainment" {
			out.Outcome = lmsfake.SisuRegistered
		}
		return out, nil
	case suotar.CodeNotRegistered:
		return lmsfake.SisuAnswer{Outcome: lmsfake.SisuNotRegistered}, nil
	case suotar.CodeMisregistered:
		return lmsfake.SisuAnswer{Outcome: lmsfake.SisuMisregistered}, nil
	}
	return lmsfake.SisuAnswer{}, nil
}

// Existing asks resolve_enrolments for the student's course unit attainment on the code.
func (d demoSisu) Existing(ctx context.Context, studentNumber, courseCode string) (lmsfake.SisuAnswer, error) {
	got, err := d.c.Attainments(ctx, studentNumber, courseCode)
	if err != nil {
		return lmsfake.SisuAnswer{}, err
	}
	for _, a := range got.Attainments {
		if a.Type == "CourseUnitAttainment" {
			return lmsfake.SisuAnswer{Outcome: lmsfake.SisuRegistered, AttainmentID: a.ID, AttainmentType: a.Type}, nil
		}
	}
	return lmsfake.SisuAnswer{}, nil
}
