package lmsfake_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
	"regdesk/store/lmsdb"
)

const token = "fake-lms-service-token-0123456789abcdef0123"

// testNow is the tests' instant: TEST_NOW (RFC 3339) when set, as in the rest of the suite, else a
// fixed Monday. Every instant a test writes is derived from it, and the fake runs on it, so no
// test depends on today's date.
var testNow = sync.OnceValue(func() time.Time {
	if v := os.Getenv("TEST_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			panic(fmt.Sprintf("TEST_NOW=%q is not an RFC 3339 instant", v))
		}
		return t.UTC()
	}
	return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
})

// adminURL is TEST_DATABASE_URL; without it the test skips, except in CI, where it fails.
func adminURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("TEST_DATABASE_URL")
	if u == "" {
		if os.Getenv("CI") != "" {
			tb.Fatal("TEST_DATABASE_URL is not set, and CI is: the fake's tests need a real PostgreSQL")
		}
		tb.Skip("TEST_DATABASE_URL is not set: run make test, which starts a private PostgreSQL")
	}
	return u
}

func withDatabase(admin, db string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + db
	return u.String()
}

var (
	tplOnce sync.Once
	tplName string
	tplErr  error
)

// template builds, once per process and under an advisory lock across processes, a template
// database holding lmsdb's schema, named by a hash of it.
func template(ctx context.Context, admin string) (string, error) {
	tplOnce.Do(func() {
		sum := sha256.Sum256([]byte(lmsdb.Schema()))
		name := "tpl_lms_" + hex.EncodeToString(sum[:])[:12]
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			tplErr = err
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext($1))`, name); err != nil {
			tplErr = err
			return
		}
		defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, name)
		var isTemplate bool
		if err := conn.QueryRow(ctx, `SELECT datistemplate FROM pg_database WHERE datname = $1`, name).Scan(&isTemplate); err == nil && isTemplate {
			tplName = name
			return
		}
		ident := pgx.Identifier{name}.Sanitize()
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`); err != nil {
			tplErr = err
			return
		}
		if _, err := conn.Exec(ctx, `CREATE DATABASE `+ident); err != nil {
			tplErr = err
			return
		}
		db, err := pgx.Connect(ctx, withDatabase(admin, name))
		if err != nil {
			tplErr = err
			return
		}
		err = lmsdb.Apply(ctx, db)
		db.Close(ctx)
		if err != nil {
			tplErr = err
			return
		}
		if _, err := conn.Exec(ctx, `ALTER DATABASE `+ident+` IS_TEMPLATE true`); err != nil {
			tplErr = err
			return
		}
		tplName = name
	})
	return tplName, tplErr
}

// newPool returns a pool on a fresh LMS-shaped database, connected as the server's owner (the
// LMS's role), dropped when the test passes and kept when it fails.
func newPool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	ctx := context.Background()
	admin := adminURL(tb)
	tpl, err := template(ctx, admin)
	if err != nil {
		tb.Fatalf("lms template database: %v", err)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	rand.Read(b[:])
	name := "t_lms_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()+` TEMPLATE `+pgx.Identifier{tpl}.Sanitize()+` STRATEGY FILE_COPY`); err != nil {
		tb.Fatal(err)
	}
	dbURL := withDatabase(admin, name)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		pool.Close()
		if tb.Failed() {
			tb.Logf("kept the database of this failed test: %s", dbURL)
			return
		}
		conn, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		conn.Exec(context.Background(), `DROP DATABASE `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
	})
	return pool
}

// bundle is one test's LMS: its database, the fake serving it over real HTTP, a client, and an
// acting admin with the credit_registration_admin role.
type bundle struct {
	t      *testing.T
	ctx    context.Context
	pool   *pgxpool.Pool
	fake   *lmsfake.Server
	srv    *httptest.Server
	client *lms.Client
	now    time.Time
	admin  string
	course string
	inst   string
	module string
	seq    int
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{t: t, ctx: context.Background(), pool: newPool(t), now: testNow()}
	fake, err := lmsfake.New(b.pool, lmsfake.Options{Token: token, Now: func() time.Time { return b.now }})
	if err != nil {
		t.Fatal(err)
	}
	b.fake = fake
	b.srv = httptest.NewServer(fake)
	t.Cleanup(func() { fake.Close(); b.srv.Close() })
	b.client, err = lms.New(b.srv.URL, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.admin = b.user("credit_registration_admin", true)
	b.course = b.one(`INSERT INTO courses (name, slug, organization_id, language_code, course_language_group_id)
VALUES ('Ohjelmoinnin perusteet', 'ohpe-'||substr(md5(random()::text), 1, 8), uuid_generate_v4(), 'fi-FI', uuid_generate_v4()) RETURNING id::text`)
	b.inst = b.one(`INSERT INTO course_instances (course_id, teacher_in_charge_name, teacher_in_charge_email) VALUES ($1, 'Teacher', 't@example.fi') RETURNING id::text`, b.course)
	b.module = b.one(`INSERT INTO course_modules (course_id, order_number, uh_course_code, ects_credits, enable_credit_registration_via_suotar)
VALUES ($1, 0, 'TKT10001', 5, true) RETURNING id::text`, b.course)
	return b
}

// one runs a query returning one text value.
func (b *bundle) one(sql string, args ...any) string {
	b.t.Helper()
	var v string
	if err := b.pool.QueryRow(b.ctx, sql, args...).Scan(&v); err != nil {
		b.t.Fatalf("%s: %v", strings.Fields(sql)[0], err)
	}
	return v
}

func (b *bundle) exec(sql string, args ...any) {
	b.t.Helper()
	if _, err := b.pool.Exec(b.ctx, sql, args...); err != nil {
		b.t.Fatalf("%s: %v", sql, err)
	}
}

// user inserts an LMS user; role, when not empty, is granted globally or on the test's course.
func (b *bundle) user(role string, global bool) string {
	b.t.Helper()
	id := b.one(`INSERT INTO users DEFAULT VALUES RETURNING id::text`)
	b.seq++
	b.exec(`INSERT INTO user_details (user_id, first_name, last_name, email) VALUES ($1, 'Aino', 'Admin', $2)`, id, fmt.Sprintf("u%d-%s@example.fi", b.seq, id[:8]))
	if role != "" {
		if global {
			b.exec(`INSERT INTO roles (user_id, role, is_global) VALUES ($1, $2::user_role, true)`, id, role)
		} else {
			b.exec(`INSERT INTO roles (user_id, role, course_id) VALUES ($1, $2::user_role, $3)`, id, role, b.course)
		}
	}
	return id
}

// reg is a ledger row to plant: its state and any columns to set, as SQL values.
type reg map[string]any

// registration plants a ledger row on a completion of its own student, with its clocks an hour
// old and its next attempt an hour away unless the columns say otherwise, and returns its id.
func (b *bundle) registration(state string, cols reg) string {
	b.t.Helper()
	student := b.user("", false)
	completion := b.one(`INSERT INTO course_module_completions (course_id, course_module_id, user_id, completion_date, completion_language,
  eligible_for_ects, email, passed, prerequisite_modules_completed, register_credits_via_suotar)
VALUES ($1, $2, $3, $4, 'fi-FI', true, 's@example.fi', true, true, true) RETURNING id::text`, b.course, b.module, student, b.now.Add(-30*24*time.Hour))
	values := reg{
		"course_module_completion_id": completion, "user_id": student, "course_id": b.course,
		"course_module_id": b.module, "course_instance_id": b.inst, "state": state,
		"state_entered_at": b.now.Add(-time.Hour), "state_changed_at": b.now.Add(-time.Hour),
		"phase_started_at": b.now.Add(-time.Hour), "next_attempt_at": b.now.Add(time.Hour),
		"created_at": b.now.Add(-48 * time.Hour),
	}
	if isTerminalState(state) {
		values["terminal_at"] = b.now.Add(-time.Hour)
	}
	if state == "registered" {
		values["registered_at"] = b.now.Add(-time.Hour)
	}
	for k, v := range cols {
		values[k] = v
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	args := make([]any, len(names))
	ph := make([]string, len(names))
	for i, n := range names {
		args[i] = values[n]
		ph[i] = fmt.Sprintf("$%d", i+1)
		switch n {
		case "state":
			ph[i] += "::credit_registration_state"
		case "error_code":
			ph[i] += "::credit_registration_error_code"
		case "enrolment_check_source":
			ph[i] += "::enrolment_check_source"
		}
	}
	return b.one(`INSERT INTO credit_registrations (`+strings.Join(names, ", ")+`) VALUES (`+strings.Join(ph, ", ")+`) RETURNING id::text`, args...)
}

func isTerminalState(s string) bool {
	switch s {
	case "registered", "duplicate", "not_improved", "failed_permanent", "cancelled":
		return true
	}
	return false
}

// ledgerRow is what the tests read back of a row.
type ledgerRow struct {
	State                 string
	StateEnteredAt        time.Time
	StateChangedAt        time.Time
	PhaseStartedAt        time.Time
	TerminalAt            *time.Time
	NextAttemptAt         time.Time
	NeedsAdminAttention   bool
	ErrorCode             *string
	ClaimedUntil          *time.Time
	CheckSource           string
	CheckStep             *int32
	CheckDueAt            *time.Time
	CheckAnchorAt         *time.Time
	NoUsableSince         *time.Time
	SupersededByID        *string
	PendingSupersededByID *string
}

func (b *bundle) row(id string) ledgerRow {
	b.t.Helper()
	var r ledgerRow
	err := b.pool.QueryRow(b.ctx, `
SELECT state::text, state_entered_at, state_changed_at, phase_started_at, terminal_at, next_attempt_at,
  needs_admin_attention, error_code::text, enrolment_check_claimed_until, enrolment_check_source::text,
  enrolment_check_step, enrolment_check_due_at, enrolment_check_anchor_at, no_usable_enrolment_since,
  superseded_by_id::text, pending_superseded_by_id::text
FROM credit_registrations WHERE id = $1`, id).Scan(&r.State, &r.StateEnteredAt, &r.StateChangedAt, &r.PhaseStartedAt,
		&r.TerminalAt, &r.NextAttemptAt, &r.NeedsAdminAttention, &r.ErrorCode, &r.ClaimedUntil, &r.CheckSource,
		&r.CheckStep, &r.CheckDueAt, &r.CheckAnchorAt, &r.NoUsableSince, &r.SupersededByID, &r.PendingSupersededByID)
	if err != nil {
		b.t.Fatalf("read row %s: %v", id, err)
	}
	return r
}

type event struct {
	Kind      string
	From, To  *string
	Message   *string
	Actor     *string
	CreatedAt time.Time
}

func (b *bundle) events(id string) []event {
	b.t.Helper()
	rows, err := b.pool.Query(b.ctx, `
SELECT kind::text, from_state::text, to_state::text, message, actor_user_id::text, created_at
FROM credit_registration_events WHERE credit_registration_id = $1 ORDER BY created_at, updated_at`, id)
	if err != nil {
		b.t.Fatal(err)
	}
	evs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (event, error) {
		var e event
		return e, r.Scan(&e.Kind, &e.From, &e.To, &e.Message, &e.Actor, &e.CreatedAt)
	})
	if err != nil {
		b.t.Fatal(err)
	}
	return evs
}

// auditRow is one credit_registration_admin_actions row. Rows come back in the order written: under
// the fake's frozen clock every call's created_at is the same instant, so updated_at, which the
// LMS's default stamps with the database's own clock on insert, breaks the tie.
type auditRow struct {
	Action, TargetKind string
	TargetID           *string
	TargetPhase        *string
	Actor, Role        string
	Reason             *string
	Before, After      *string
	Details            map[string]any
	Affected           *int32
	CreatedAt          time.Time
}

func (b *bundle) audits() []auditRow {
	b.t.Helper()
	rows, err := b.pool.Query(b.ctx, `
SELECT action::text, target_kind::text, target_id::text, target_phase, actor_user_id::text, actor_role, reason,
  before_state::text, after_state::text, details, affected_row_count, created_at
FROM credit_registration_admin_actions ORDER BY created_at, updated_at`)
	if err != nil {
		b.t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (auditRow, error) {
		var a auditRow
		return a, r.Scan(&a.Action, &a.TargetKind, &a.TargetID, &a.TargetPhase, &a.Actor, &a.Role, &a.Reason,
			&a.Before, &a.After, &a.Details, &a.Affected, &a.CreatedAt)
	})
	if err != nil {
		b.t.Fatal(err)
	}
	return out
}

// count counts the rows of a table.
func (b *bundle) count(table string) int {
	b.t.Helper()
	var n int
	if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
		b.t.Fatal(err)
	}
	return n
}

// writes counts everything a call can write, so a test can show a refused call wrote nothing.
func (b *bundle) writes() [3]int {
	return [3]int{b.count("credit_registration_events"), b.count("credit_registration_admin_actions"), b.count("credit_registration_attention_dismissals")}
}

func str(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// post sends a raw call with the contract's headers, for what the client would not send, and
// returns the status and the JSON body (nil when it is not JSON).
func (b *bundle) post(path, actor, body string) (int, map[string]any) {
	b.t.Helper()
	return b.postWith(path, map[string]string{"Authorization": "Bearer " + token, lmsfake.ActingUserHeader: actor}, body)
}

func (b *bundle) postWith(path string, headers map[string]string, body string) (int, map[string]any) {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+lmsfake.Prefix+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		m = nil
	}
	return resp.StatusCode, m
}

// clientFor serves another fake on the bundle's database over real HTTP and returns a client of it.
func (b *bundle) clientFor(fake *lmsfake.Server) *lms.Client {
	b.t.Helper()
	srv := httptest.NewServer(fake)
	b.t.Cleanup(func() { fake.Close(); srv.Close() })
	c, err := lms.New(srv.URL, token, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return c
}

// postRaw sends body as it is, with the contract's headers, and returns the status and the raw
// answer.
func (b *bundle) postRaw(path, actor string, body []byte) (int, []byte) {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+lmsfake.Prefix+path, bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(lmsfake.ActingUserHeader, actor)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}
