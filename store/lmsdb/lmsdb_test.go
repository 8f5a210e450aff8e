package lmsdb_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"regdesk/schedule"
	"regdesk/store/lmsdb"
)

// newDB connects to a database of the test's own, created empty from template0 on the server of
// TEST_DATABASE_URL and dropped when the test passes. It does not use storetest: storetest builds
// regdesk's own schema, and this package must not depend on the store it serves.
func newDB(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TEST_DATABASE_URL is not set, and CI is: database tests must run (use make test)")
		}
		t.Skip("TEST_DATABASE_URL is not set: run make test, which starts a private PostgreSQL")
	}
	ctx := context.Background()
	adminConn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer adminConn.Close(ctx)
	name := "lmsdb_" + randomHex(t)
	if _, err := adminConn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()+` TEMPLATE template0`); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("parse TEST_DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	dbURL := u.String()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("connect to %s: %v", name, err)
	}
	t.Cleanup(func() {
		conn.Close(context.Background())
		if t.Failed() {
			t.Logf("kept the database of this failed test: %s", dbURL)
			return
		}
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), `DROP DATABASE `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
	return conn, admin
}

func randomHex(t *testing.T) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// applied is newDB with the LMS schema in it.
func applied(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	conn, admin := newDB(t)
	if err := lmsdb.Apply(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	return conn, admin
}

func queryStrings(t *testing.T, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return got
}

// The LMS's enums as its migrations leave them, copied by hand from the migration text (ids as in
// schema.sql), so a mistake in the fixture's order shows as a diff here.
var lmsEnums = map[string][]string{
	// [61086656936], with partially_registered AFTER awaiting_verification [71542775304].
	"credit_registration_state": {
		"pending", "ready_to_submit", "resolving_enrolment", "checking_enrolment",
		"no_usable_enrolment", "submitting", "submission_uncertain", "awaiting_verification",
		"partially_registered", "registered", "duplicate", "not_improved", "misregistered",
		"failed_retryable", "failed_permanent", "blocked", "cancelled",
	},
	// [69566211898]
	"credit_registration_error_code": {
		"person_not_found", "course_code_not_found", "enrolment_not_found", "enrolment_not_accepted",
		"invalid_grade_for_grade_scale", "grade_scale_mismatch", "course_not_allowed",
		"invalid_credits", "study_right_not_valid", "sisu_validation_failed", "sisu_timeout",
		"service_temporarily_unavailable", "misregistered", "not_registered", "unauthorized",
		"malformed_request", "transport_error", "unexpected_response", "no_grade_scale_mapping",
		"missing_uh_course_code", "missing_ects_credits", "retry_window_expired", "unknown",
	},
	// [71065364207]
	"credit_registration_attention_reason": {
		"stuck_in_state", "permanent_error", "retry_window_expired", "misregistered",
		"too_many_attempts", "outcome_uncertain", "partly_registered_overdue",
		"verification_gave_up", "repeatedly_not_registered", "student_number_stuck",
		"flagged_by_pipeline",
	},
	// [60803375201]
	"credit_registration_event_kind": {
		"created", "state_changed", "suotar_response", "retry_scheduled", "admin_action",
		"student_action", "cancelled",
	},
	// [60803375201] with the additions of [71065364207] [71204060542].
	"credit_registration_admin_action": {
		"retry_item", "retry_failed_for_course", "force_recheck", "mark_resolved", "requeue_batch",
		"transition_item", "cancel_registration", "pause_course_module", "resume_course_module",
		"pause_phase", "resume_phase", "run_phase_now", "resend_link_email", "unlink_student_number",
		"manual_link_student_number", "override_rate_cap", "dismiss_attention",
		"request_enrolment_list_fetch", "dismiss_study_registry_conflict",
	},
	"credit_registration_admin_action_target": {
		"credit_registration", "course_module", "course", "phase", "verified_student_number",
		"student_number_verification_token", "roster_schedule", "study_registry_student_number_conflict",
	},
	// [12362401094] and the additions, in the order the down of [71367552670] rebuilds them.
	"user_role": {
		"admin", "assistant", "teacher", "reviewer", "course_or_exam_creator", "material_viewer",
		"teaching_and_learning_services", "stats_viewer", "credit_registration_admin",
	},
}

// strs is vs as strings.
func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

var lmsTables = []string{
	"course_instances",
	"course_module_completion_registered_to_study_registries",
	"course_module_completions",
	"course_module_suotar_configurations",
	"course_modules",
	"courses",
	"credit_registration_account_linking_emails",
	"credit_registration_admin_actions",
	"credit_registration_attention_dismissals",
	"credit_registration_daily_attention_snapshots",
	"credit_registration_daily_snapshots",
	"credit_registration_daily_step_snapshots",
	"credit_registration_enrolment_check_outcomes",
	"credit_registration_enrolment_check_signals",
	"credit_registration_enrolment_routes",
	"credit_registration_events",
	"credit_registration_phase_state",
	"credit_registration_roster_schedules",
	"credit_registrations",
	"email_deliveries",
	"roles",
	"student_number_verification_tokens",
	"study_registry_registrars",
	"study_registry_student_number_conflicts",
	"suotar_api_calls",
	"suotar_endpoint_rate_limits",
	"user_details",
	"users",
	"verified_student_numbers",
}

var lmsViews = []string{
	"credit_registration_active_course_modules",
	"credit_registration_eligible_completions",
	"credit_registration_preconditions",
	"credit_registration_registrable_completions",
	"study_registry_reported_student_numbers",
}

func TestApplyBuildsTheLMSShape(t *testing.T) {
	conn, _ := applied(t)

	tables := queryStrings(t, conn, `SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1`)
	if !slices.Equal(tables, lmsTables) {
		t.Errorf("tables in public:\n got %q\nwant %q", tables, lmsTables)
	}
	views := queryStrings(t, conn, `SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'v' ORDER BY 1`)
	if !slices.Equal(views, lmsViews) {
		t.Errorf("views in public:\n got %q\nwant %q", views, lmsViews)
	}
	for enum, want := range lmsEnums {
		got := queryStrings(t, conn, `SELECT e.enumlabel::text FROM pg_enum e JOIN pg_type ty ON ty.oid = e.enumtypid
			WHERE ty.typname = $1 ORDER BY e.enumsortorder`, enum)
		if !slices.Equal(got, want) {
			t.Errorf("enum %s:\n got %q\nwant %q", enum, got, want)
		}
	}

	// regdesk names every admin action and target the LMS's audit can hold.
	if got := strs(schedule.AdminActions()); !slices.Equal(got, lmsEnums["credit_registration_admin_action"]) {
		t.Errorf("schedule.AdminActions:\n got %q\nwant the LMS's %q", got, lmsEnums["credit_registration_admin_action"])
	}
	if got := strs(schedule.AdminTargets()); !slices.Equal(got, lmsEnums["credit_registration_admin_action_target"]) {
		t.Errorf("schedule.AdminTargets:\n got %q\nwant the LMS's %q", got, lmsEnums["credit_registration_admin_action_target"])
	}

	phases := queryStrings(t, conn, `SELECT phase::text FROM credit_registration_phase_state WHERE deleted_at IS NULL ORDER BY phase`)
	want := slices.Sorted(slices.Values(lmsdb.Phases()))
	if !slices.Equal(phases, want) {
		t.Errorf("seeded phases:\n got %q\nwant %q", phases, want)
	}

	// Facts regdesk's own schema had wrong, per lms-database.md §1-2: each is one a query or an
	// insert written against regdesk's shape would trip on.
	var (
		columns, indexes                  int
		checkGroupNullable, eventKindDflt string
		instanceColumn                    int
		moduleNameNullable, superDeferred string
		searchHelperExpr                  string
	)
	err := conn.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'credit_registrations'),
		(SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'credit_registrations'),
		(SELECT is_nullable || coalesce(' ' || column_default, '') FROM information_schema.columns
			WHERE table_name = 'credit_registrations' AND column_name = 'enrolment_check_group'),
		(SELECT coalesce(column_default, 'no default') FROM information_schema.columns
			WHERE table_name = 'credit_registration_events' AND column_name = 'kind'),
		(SELECT count(*) FROM information_schema.columns
			WHERE table_name = 'course_module_completions' AND column_name = 'course_instance_id'),
		(SELECT is_nullable FROM information_schema.columns WHERE table_name = 'course_modules' AND column_name = 'name'),
		(SELECT condeferrable::text || ' ' || condeferred::text FROM pg_constraint
			WHERE conname = 'credit_registrations_superseded_by_id_fkey'),
		(SELECT generation_expression FROM information_schema.columns
			WHERE table_name = 'user_details' AND column_name = 'search_helper')`).
		Scan(&columns, &indexes, &checkGroupNullable, &eventKindDflt, &instanceColumn, &moduleNameNullable, &superDeferred, &searchHelperExpr)
	if err != nil {
		t.Fatal(err)
	}
	if columns != 65 {
		t.Errorf("credit_registrations has %d columns, want 65", columns)
	}
	// 17 in the LMS's migrations plus the primary key.
	if indexes != 18 {
		t.Errorf("credit_registrations has %d indexes, want 18", indexes)
	}
	if checkGroupNullable != "NO 'completed'::enrolment_check_group" {
		t.Errorf("enrolment_check_group: %q, want NOT NULL DEFAULT 'completed'", checkGroupNullable)
	}
	if eventKindDflt != "no default" {
		t.Errorf("credit_registration_events.kind has default %q, want none", eventKindDflt)
	}
	if instanceColumn != 0 {
		t.Error("course_module_completions has a course_instance_id; the LMS dropped it")
	}
	if moduleNameNullable != "YES" {
		t.Error("course_modules.name is NOT NULL; the LMS's default modules have no name")
	}
	if superDeferred != "true true" {
		t.Errorf("superseded_by_id fkey deferrable/deferred = %q, want true true", superDeferred)
	}
	if searchHelperExpr == "" {
		t.Error("user_details.search_helper is not a generated column")
	}
}

// TestApplyLeavesNothingBehindOnFailure holds Apply to its word: one failing statement, here the
// clash with a users table that is already there, undoes every statement before it.
func TestApplyLeavesNothingBehindOnFailure(t *testing.T) {
	conn, _ := newDB(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE TABLE public.users (id int)`); err != nil {
		t.Fatal(err)
	}
	var before, after string
	if err := conn.QueryRow(ctx, `SHOW search_path`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := lmsdb.Apply(ctx, conn); err == nil {
		t.Fatal("Apply over an existing users table succeeded")
	}
	leftover := queryStrings(t, conn, `SELECT 'extension ' || extname::text FROM pg_extension WHERE extname IN ('pg_trgm', 'uuid-ossp')
		UNION ALL SELECT 'function ' || proname::text FROM pg_proc WHERE proname = 'trigger_set_timestamp'
		UNION ALL SELECT 'type ' || typname::text FROM pg_type WHERE typname = 'credit_registration_state'`)
	if len(leftover) != 0 {
		t.Errorf("a failed Apply left %q behind", leftover)
	}
	if err := conn.QueryRow(ctx, `SHOW search_path`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("a failed Apply changed search_path from %q to %q", before, after)
	}
}

// ids of one plausible completion and its surroundings, all live.
type fixture struct {
	user, course, instance, module, completion uuid
}

type uuid = [16]byte

func seed(t *testing.T, conn *pgx.Conn) fixture {
	t.Helper()
	ctx := context.Background()
	var f fixture
	err := conn.QueryRow(ctx, `INSERT INTO users (email_domain) VALUES ('helsinki.fi') RETURNING id`).Scan(&f.user)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO user_details (user_id, email, first_name, last_name)
		VALUES ($1, 'maija@helsinki.fi', 'Maija', 'Meikäläinen')`, f.user); err != nil {
		t.Fatal(err)
	}
	err = conn.QueryRow(ctx, `INSERT INTO courses (name, slug, organization_id, language_code, course_language_group_id)
		VALUES ('Ohjelmoinnin perusteet', 'ohpe', uuid_generate_v4(), 'fi-FI', uuid_generate_v4()) RETURNING id`).Scan(&f.course)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.QueryRow(ctx, `INSERT INTO course_instances (course_id, teacher_in_charge_name, teacher_in_charge_email)
		VALUES ($1, 'Opettaja', 'opettaja@helsinki.fi') RETURNING id`, f.course).Scan(&f.instance)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.QueryRow(ctx, `INSERT INTO course_modules (course_id, order_number, uh_course_code, ects_credits, enable_credit_registration_via_suotar)
		VALUES ($1, 0, 'TKT10002', 5, true) RETURNING id`, f.course).Scan(&f.module)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.QueryRow(ctx, `INSERT INTO course_module_completions (course_id, course_module_id, user_id, completion_date,
			completion_language, eligible_for_ects, email, grade, passed, prerequisite_modules_completed, register_credits_via_suotar)
		VALUES ($1, $2, $3, '2026-11-02T10:00:00Z', 'fi-FI', true, 'maija@helsinki.fi', 5, true, true, true) RETURNING id`,
		f.course, f.module, f.user).Scan(&f.completion)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// insertLedgerRow adds the row the LMS's materialize phase would: pending, attempt 1, with a
// created event.
func insertLedgerRow(t *testing.T, conn *pgx.Conn, f fixture) uuid {
	t.Helper()
	ctx := context.Background()
	var id uuid
	err := conn.QueryRow(ctx, `INSERT INTO credit_registrations (course_module_completion_id, user_id, course_id, course_module_id, course_instance_id)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, f.completion, f.user, f.course, f.module, f.instance).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO credit_registration_events (credit_registration_id, kind) VALUES ($1, 'created')`, id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSetTimestampBumpsUpdatedAtOnlyOnChange(t *testing.T) {
	conn, _ := applied(t)
	ctx := context.Background()
	f := seed(t, conn)
	id := insertLedgerRow(t, conn, f)
	// The trigger is BEFORE UPDATE only, so an insert may set any updated_at.
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if _, err := conn.Exec(ctx, `UPDATE credit_registrations SET updated_at = $2 WHERE id = $1`, id, old); err != nil {
		t.Fatal(err)
	}
	var updatedAt time.Time
	if err := conn.QueryRow(ctx, `SELECT updated_at FROM credit_registrations WHERE id = $1`, id).Scan(&updatedAt); err != nil {
		t.Fatal(err)
	}
	if updatedAt.Equal(old) {
		t.Fatalf("an UPDATE that wrote updated_at kept the written value: the trigger did not run")
	}

	// Put the old value back underneath the trigger, then write something real.
	if _, err := conn.Exec(ctx, `ALTER TABLE credit_registrations DISABLE TRIGGER set_timestamp`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE credit_registrations SET updated_at = $2 WHERE id = $1`, id, old); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE credit_registrations ENABLE TRIGGER set_timestamp`); err != nil {
		t.Fatal(err)
	}

	// A write that changes nothing keeps the old row, updated_at included.
	if _, err := conn.Exec(ctx, `UPDATE credit_registrations SET state = 'pending' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT updated_at FROM credit_registrations WHERE id = $1`, id).Scan(&updatedAt); err != nil {
		t.Fatal(err)
	}
	if !updatedAt.Equal(old) {
		t.Errorf("a no-op UPDATE moved updated_at to %v", updatedAt)
	}

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `UPDATE credit_registrations SET state = 'ready_to_submit' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	var isNow bool
	if err := tx.QueryRow(ctx, `SELECT updated_at = now() FROM credit_registrations WHERE id = $1`, id).Scan(&isNow); err != nil {
		t.Fatal(err)
	}
	if !isNow {
		t.Error("a state change did not set updated_at to now()")
	}
}

// checkViolation runs sql and wants it refused by the named CHECK constraint.
func checkViolation(t *testing.T, conn *pgx.Conn, constraint, sql string, args ...any) {
	t.Helper()
	_, err := conn.Exec(context.Background(), sql, args...)
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	if !ok || pgErr.Code != "23514" || pgErr.ConstraintName != constraint {
		t.Errorf("%s: got %v, want check_violation of %s", sql, err, constraint)
	}
}

func TestLedgerChecksRefuseWhatTheLMSRefuses(t *testing.T) {
	conn, _ := applied(t)
	f := seed(t, conn)
	id := insertLedgerRow(t, conn, f)

	// The enrolment-check claim lease exists only in no_usable_enrolment.
	checkViolation(t, conn, "credit_registrations_enrolment_check_claimed",
		`UPDATE credit_registrations SET enrolment_check_claimed_until = now() + interval '5 minutes' WHERE id = $1`, id)
	if _, err := conn.Exec(context.Background(), `UPDATE credit_registrations SET state = 'no_usable_enrolment',
		enrolment_check_claimed_until = now() + interval '5 minutes' WHERE id = $1`, id); err != nil {
		t.Errorf("a claim on a row in no_usable_enrolment was refused: %v", err)
	}
	checkViolation(t, conn, "credit_registrations_superseded_pair",
		`UPDATE credit_registrations SET superseded_at = now() WHERE id = $1`, id)
	checkViolation(t, conn, "credit_registrations_registered_at_set",
		`UPDATE credit_registrations SET state = 'registered', enrolment_check_claimed_until = NULL WHERE id = $1`, id)
	checkViolation(t, conn, "credit_registrations_enrolment_check_step",
		`UPDATE credit_registrations SET enrolment_check_step = 0 WHERE id = $1`, id)
	checkViolation(t, conn, "credit_registration_admin_actions_target_id_kind",
		`INSERT INTO credit_registration_admin_actions (action, target_kind, target_id, actor_user_id, actor_role)
		 VALUES ('retry_item', 'credit_registration', NULL, $1, 'global_admin')`, f.user)
	checkViolation(t, conn, "credit_registration_attention_dismissals_reason",
		`INSERT INTO credit_registration_attention_dismissals (credit_registration_id, dismissed_reasons, dismissed_by_user_id, reason)
		 VALUES ($1, '{stuck_in_state}', $2, '   ')`, id, f.user)
}

// TestPipelineShapedWrites writes what the LMS's transition() writes for pending → ready_to_submit
// and checks it lands, and that an event without a kind does not.
func TestPipelineShapedWrites(t *testing.T) {
	conn, _ := applied(t)
	ctx := context.Background()
	f := seed(t, conn)
	id := insertLedgerRow(t, conn, f)

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT state FROM credit_registrations WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	tag, err := tx.Exec(ctx, `UPDATE credit_registrations
		SET state = 'ready_to_submit',
		  state_entered_at = clock_timestamp(),
		  state_changed_at = clock_timestamp(),
		  phase_started_at = clock_timestamp(),
		  error_code = NULL,
		  error_message = NULL,
		  terminal_at = NULL,
		  enrolment_check_claimed_until = NULL,
		  enrolment_check_source = 'schedule',
		  next_attempt_at = now()
		WHERE id = $1 AND state = 'pending' AND deleted_at IS NULL`, id)
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != 1 {
		t.Fatalf("the transition updated %d rows, want 1", tag.RowsAffected())
	}
	if _, err := tx.Exec(ctx, `INSERT INTO credit_registration_events (credit_registration_id, kind, from_state, to_state, message)
		VALUES ($1, 'state_changed', 'pending', 'ready_to_submit', 'preconditions met')`, id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	var state string
	var events int
	err = conn.QueryRow(ctx, `SELECT cr.state::text, (SELECT count(*) FROM credit_registration_events e WHERE e.credit_registration_id = cr.id)
		FROM credit_registrations cr WHERE cr.id = $1`, id).Scan(&state, &events)
	if err != nil {
		t.Fatal(err)
	}
	if state != "ready_to_submit" || events != 2 {
		t.Errorf("after the transition: state %s with %d events, want ready_to_submit with 2", state, events)
	}

	_, err = conn.Exec(ctx, `INSERT INTO credit_registration_events (credit_registration_id) VALUES ($1)`, id)
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); !ok || pgErr.Code != "23502" {
		t.Errorf("an event without a kind: got %v, want not_null_violation", err)
	}
}

func TestViewsReadTheLedgerAsTheLMSDoes(t *testing.T) {
	conn, _ := applied(t)
	ctx := context.Background()
	f := seed(t, conn)

	var registrable int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM credit_registration_registrable_completions`).Scan(&registrable); err != nil {
		t.Fatal(err)
	}
	if registrable != 1 {
		t.Errorf("before a ledger row: %d registrable completions, want 1", registrable)
	}
	id := insertLedgerRow(t, conn, f)
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM credit_registration_registrable_completions`).Scan(&registrable); err != nil {
		t.Fatal(err)
	}
	if registrable != 0 {
		t.Errorf("after a ledger row: %d registrable completions, want 0", registrable)
	}

	if _, err := conn.Exec(ctx, `INSERT INTO verified_student_numbers (user_id, student_number, sisu_person_id, verified_via_email)
		VALUES ($1, '012345678', 'hy-hlo-1', 'maija@helsinki.fi')`, f.user); err != nil {
		t.Fatal(err)
	}
	// Frozen with the right number but another Sisu person: the LMS's view calls that stale, a
	// comparison of the number alone would not.
	if _, err := conn.Exec(ctx, `UPDATE credit_registrations SET student_number = '012345678', sisu_person_id = 'hy-hlo-2' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	// A verdict on a code the module no longer has does not hold the row back.
	if _, err := conn.Exec(ctx, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, checked_course_code)
		VALUES ($1, now(), false, 'TKT10001')`, f.module); err != nil {
		t.Fatal(err)
	}
	var eligible, hasNumber, stale, codeAllowed bool
	err := conn.QueryRow(ctx, `SELECT completion_eligible, has_verified_student_number, frozen_identity_stale, course_code_allowed
		FROM credit_registration_preconditions WHERE credit_registration_id = $1`, id).Scan(&eligible, &hasNumber, &stale, &codeAllowed)
	if err != nil {
		t.Fatal(err)
	}
	if !eligible || !hasNumber || !stale || !codeAllowed {
		t.Errorf("preconditions: eligible %v, has number %v, stale %v, code allowed %v; want all true", eligible, hasNumber, stale, codeAllowed)
	}
	if _, err := conn.Exec(ctx, `UPDATE course_module_suotar_configurations SET checked_course_code = 'TKT10002' WHERE course_module_id = $1`, f.module); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT course_code_allowed FROM credit_registration_preconditions WHERE credit_registration_id = $1`, id).Scan(&codeAllowed); err != nil {
		t.Fatal(err)
	}
	if codeAllowed {
		t.Error("a refusal of the module's current code still reads as allowed")
	}
}

func TestGrantReadOnlyAllowsSelectOnly(t *testing.T) {
	conn, admin := applied(t)
	ctx := context.Background()
	f := seed(t, conn)
	id := insertLedgerRow(t, conn, f)

	role := "lmsdb_ro_" + randomHex(t)
	ident := pgx.Identifier{role}.Sanitize()
	if _, err := conn.Exec(ctx, `CREATE ROLE `+ident+` NOLOGIN`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Roles are cluster-wide: take back what the role holds here before dropping it.
		bg := context.Background()
		if _, err := conn.Exec(bg, `DROP OWNED BY `+ident); err != nil {
			t.Logf("drop owned by %s: %v", role, err)
		}
		c, err := pgx.Connect(bg, admin)
		if err != nil {
			t.Logf("drop role %s: %v", role, err)
			return
		}
		defer c.Close(bg)
		if _, err := c.Exec(bg, `DROP ROLE `+ident); err != nil {
			t.Logf("drop role %s: %v", role, err)
		}
	})
	if err := lmsdb.GrantReadOnly(ctx, conn, role); err != nil {
		t.Fatal(err)
	}

	// asRole runs sql as the role in a transaction of its own, rolled back after.
	asRole := func(sql string, args ...any) error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `SET LOCAL ROLE `+ident); err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec(ctx, sql, args...)
		return err
	}
	for _, sql := range []string{
		`SELECT count(*) FROM credit_registrations`,
		`SELECT count(*) FROM credit_registration_preconditions`,
		`SELECT search_helper FROM user_details`,
		`SELECT phase FROM credit_registration_phase_state`,
	} {
		if err := asRole(sql); err != nil {
			t.Errorf("as the read-only role, %s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		`UPDATE credit_registrations SET needs_admin_attention = true WHERE id = $1`,
		`INSERT INTO credit_registration_events (credit_registration_id, kind) VALUES ($1, 'admin_action')`,
		`DELETE FROM credit_registration_events WHERE credit_registration_id = $1`,
	} {
		err := asRole(sql, id)
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); !ok || pgErr.Code != "42501" {
			t.Errorf("as the read-only role, %s: got %v, want insufficient_privilege", sql, err)
		}
	}
	if err := asRole(`CREATE TABLE public.sneaky (id int)`); err == nil {
		t.Error("the read-only role could create a table in public")
	}
}
