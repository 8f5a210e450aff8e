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
	"path/filepath"
	"time"

	"regdesk/store"
	"regdesk/store/demo"
	"regdesk/store/suotar/suotarfake"
)

// demoCommand is make run's one-box setup: the private PostgreSQL (unless DATABASE_URL is set),
// migrations, demo data on first run, demo accounts, a fake Suotar that agrees with the demo
// data, and the dashboard pointed at it. The dashboard is serveCommand itself, configured through
// the environment it would read, so the demo runs exactly the code production runs.
func demoCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	suotarAddr := fs.String("suotar-addr", cmpOr(getenv("REGDESK_DEMO_SUOTAR_ADDR"), "127.0.0.1:8081"), "fake Suotar address (env REGDESK_DEMO_SUOTAR_ADDR)")
	rows := fs.Int("rows", demo.DefaultRows, "demo rows written on the first run")
	seed := fs.Int64("seed", 1, "demo data seed")
	pgdata := fs.String("pgdata", cmpOr(getenv("REGDESK_PGDATA"), ".pgdata"), "folder of the private cluster and the fake Suotar's world")
	timeScale := fs.Float64("time-scale", 1, "fake Suotar seconds per real second (3600: an hour passes in a second)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("demo: unexpected arguments %q", fs.Args())
	}

	dbURL := getenv("DATABASE_URL")
	if dbURL == "" {
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
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}

	// The fake's world is written with the demo data and kept beside it: the two must agree, and
	// the data is written only once.
	worldFile := filepath.Join(*pgdata, "suotar-world.json")
	collector := demo.NewWorld()
	sum, err := demo.Write(ctx, st, demo.Config{
		Rows: *rows, Seed: *seed, Now: time.Now().UTC().Truncate(time.Second), IfEmpty: true, Truth: collector.Add,
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
	printDemoLogins(stdout, logins)
	env := map[string]string{
		"DATABASE_URL":   dbURL,
		"RUN_MIGRATIONS": "1",
		"SUOTAR_URL":     suotarURL,
		"SUOTAR_TOKEN":   token,
		// make run serves plain HTTP on this machine.
		"SESSION_SECURE": cmpOr(getenv("SESSION_SECURE"), "0"),
	}
	return serveCommand(ctx, nil, func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return getenv(k)
	}, stdout, stderr)
}
