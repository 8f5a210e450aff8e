package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"time"

	"regdesk/store"
	"regdesk/store/demo"
)

// seedCommand writes deterministic demo data into an empty ledger of a fixture database: the
// LMS's tables are created first when the database has none, and regdesk's migrations applied.
func seedCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	rows := fs.Int("rows", demo.DefaultRows, "credit registrations to write")
	seed := fs.Int64("seed", 1, "picks the data set: the same seed, rows and now give the same data")
	nowFlag := fs.String("now", "", "the instant the data is consistent at, RFC 3339 (default: now, to the second)")
	ifEmpty := fs.Bool("if-empty", false, "do nothing when the ledger already has rows (make run uses it)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "seed: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if *dbURL == "" {
		return errors.New("seed: DATABASE_URL is not set")
	}
	if *rows < 0 {
		return fmt.Errorf("seed: -rows must not be negative, got %d", *rows)
	}
	now := time.Now().UTC().Truncate(time.Second)
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return fmt.Errorf("seed: -now %q is not an RFC 3339 time such as 2026-03-02T09:00:00Z", *nowFlag)
		}
		now = t
	}
	st, err := store.Open(ctx, *dbURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := prepareDemoDatabase(ctx, st, stdout); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	// A short-lived bulk tool: trading memory for less garbage collection is worth it here.
	debug.SetGCPercent(400)
	sum, err := demo.Write(ctx, st, demo.Config{Rows: *rows, Seed: *seed, Now: now, IfEmpty: *ifEmpty, SkipForeignKeyChecks: true, Staff: demoStaff()})
	if errors.Is(err, demo.ErrNotEmpty) {
		return errors.New("seed: the ledger already has rows; demo data goes only into an empty ledger (use -if-empty to skip quietly, or a fresh database)")
	}
	if err != nil {
		return err
	}
	if sum.Skipped {
		fmt.Fprintln(stdout, "seed: the ledger already has rows; nothing written")
		return nil
	}
	fmt.Fprintf(stdout, "seed: wrote %s rows, %s students, %s events (seed %d, now %s) in %s\n",
		thousands(sum.Rows), thousands(sum.Students), thousands(sum.Events), *seed, now.Format(time.RFC3339), sum.Duration.Round(10*time.Millisecond))
	return nil
}

// thousands groups digits for reading: 1000000 → 1,000,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
