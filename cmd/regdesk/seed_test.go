package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"regdesk/store"
	"regdesk/store/storetest"
)

// emptyDatabase creates a database on the test server with nothing in it, not even the LMS's
// tables (storetest's databases have them), runs setup on it when given, and returns its URL.
// It is dropped when the test passes.
func emptyDatabase(t *testing.T, setup string) string {
	t.Helper()
	ctx := context.Background()
	admin := storetest.AdminURL(t)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_empty_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dbURL := u.String()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept the database of this failed test: %s", dbURL)
			return
		}
		conn, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		_, _ = conn.Exec(context.Background(), `DROP DATABASE `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
	})
	if setup != "" {
		db, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close(ctx)
		if _, err := db.Exec(ctx, setup); err != nil {
			t.Fatal(err)
		}
	}
	return dbURL
}

// TestSeedBuildsAFreshDatabase seeds a database with nothing in it, as make run's first run
// does: the LMS's tables, regdesk's schema beside them, the demo data, regdesk's copy of the
// ledger; then the demo accounts of its admin and support people name the LMS users whose hands
// the history shows. A second seed adds nothing.
func TestSeedBuildsAFreshDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := emptyDatabase(t, "")
	var out, errOut bytes.Buffer
	args := []string{"seed", "-database-url", dbURL, "-rows", "300", "-now", "2026-11-30T10:00:00Z", "-if-empty"}
	if err := run(ctx, args, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatalf("seed = %v\n%s%s", err, out.String(), errOut.String())
	}
	for _, want := range []string{"created the LMS's tables", "applied regdesk's migrations", "wrote 300 rows"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("seed's output lacks %q:\n%s", want, out.String())
		}
	}
	st, err := store.Open(ctx, dbURL, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ledger, mirror int
	var lmsSchema string
	if err := st.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM public.credit_registrations), (SELECT count(*) FROM regdesk.ledger_mirror),
  (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = 'credit_registrations'::regclass)`).Scan(&ledger, &mirror, &lmsSchema); err != nil {
		t.Fatal(err)
	}
	if ledger != 300 || mirror != 300 || lmsSchema != "public" {
		t.Errorf("the ledger (in %s) has %d rows, regdesk's copy %d; want 300 in public, and all copied", lmsSchema, ledger, mirror)
	}

	// The support account was made before the demo data (a person's earlier make run): it gets
	// its LMS user now; the others are made with theirs.
	if _, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "Sami Support", Email: "support@regdesk.test", Role: store.AccountRoleSupport}); err != nil {
		t.Fatal(err)
	}
	logins, err := ensureDemoAccounts(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(logins) != len(demoAccounts) {
		t.Fatalf("ensureDemoAccounts gave %d logins, want %d", len(logins), len(demoAccounts))
	}
	rows, _ := st.Pool().Query(ctx, `SELECT a.email, a.role::text, a.lms_user_id IS NOT NULL,
  coalesce(d.first_name || ' ' || d.last_name, ''), EXISTS (SELECT 1 FROM roles r WHERE r.user_id = a.lms_user_id
    AND r.role = 'credit_registration_admin' AND r.is_global AND r.deleted_at IS NULL),
  (SELECT count(*) FROM credit_registration_admin_actions x WHERE x.actor_user_id = a.lms_user_id)
FROM accounts a LEFT JOIN user_details d ON d.user_id = a.lms_user_id ORDER BY a.email`)
	var email, role, name string
	var linked, granted bool
	var acted int
	var totalActed int
	if _, err := pgx.ForEachRow(rows, []any{&email, &role, &linked, &name, &granted, &acted}, func() error {
		totalActed += acted
		if role == store.AccountRoleTeacher {
			if linked {
				t.Errorf("the teacher %s names an LMS user; the demo's hands are admin and support", email)
			}
			return nil
		}
		if !linked || !granted {
			t.Errorf("%s (%s): LMS user %v, with the global credit_registration_admin grant %v", email, role, linked, granted)
		}
		for _, d := range demoAccounts {
			if d.Email == email && d.Name != name {
				t.Errorf("%s's LMS user is named %q, want %q", email, name, d.Name)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if totalActed == 0 {
		t.Error("no audit row of the LMS names a demo account's LMS user")
	}

	out.Reset()
	if err := run(ctx, args, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatalf("second seed = %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "nothing written") || strings.Contains(out.String(), "created the LMS's tables") {
		t.Errorf("a second seed said:\n%s", out.String())
	}
}

// TestSeedAndDemoRefuseAnOldLayout seeds, and starts the demo on, a database an earlier regdesk
// laid out for itself: the message says to reset it, and nothing is created in it.
func TestSeedAndDemoRefuseAnOldLayout(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"seed", "demo"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dbURL := emptyDatabase(t, `CREATE TABLE schema_migration (name text PRIMARY KEY);
CREATE TABLE students (id uuid PRIMARY KEY);
CREATE TABLE credit_registrations (id uuid PRIMARY KEY, version bigint NOT NULL)`)
			env := map[string]string{"DATABASE_URL": dbURL, "REGDESK_PGDATA": t.TempDir(), "REGDESK_DEMO_SUOTAR_ADDR": freeAddr(t)}
			var out, errOut bytes.Buffer
			err := run(ctx, []string{command, "-rows", "10"}, func(k string) string { return env[k] }, &out, &errOut)
			if !errors.Is(err, store.ErrOldLayout) || !strings.Contains(err.Error(), "make db/reset") {
				t.Fatalf("%s on an old layout = %v, want store.ErrOldLayout saying make db/reset", command, err)
			}
			conn, err := pgx.Connect(ctx, dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var schema, users bool
			if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'regdesk'), to_regclass('public.users') IS NOT NULL`).Scan(&schema, &users); err != nil {
				t.Fatal(err)
			}
			if schema || users {
				t.Errorf("after the refusal: schema regdesk %v, LMS table users %v; want neither", schema, users)
			}
		})
	}
}
