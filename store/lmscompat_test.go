package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"regdesk/store"
	"regdesk/store/lmsdb"
	"regdesk/store/storetest"
)

// lmsCatalogue lists, one line each, every object of the database that is not regdesk's own:
// relations, columns with their types, nullability and defaults, constraints, indexes, triggers
// (the internal ones a foreign key puts on the table it points at included), types and their enum
// labels in order, functions with their bodies, extended statistics, and every dependency of an
// object outside regdesk on one inside it (a view or a column of an LMS table depending on a type of
// regdesk's, say).
const lmsCatalogue = `
WITH ns AS (SELECT oid, nspname FROM pg_namespace
  WHERE nspname NOT IN ('regdesk', 'pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg_toast%' AND nspname NOT LIKE 'pg_temp%')
SELECT 'relation ' || ns.nspname || '.' || c.relname || ' ' || c.relkind::text
  FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
UNION ALL
SELECT 'column ' || ns.nspname || '.' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
    || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint ' || ns.nspname || '.' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(co.oid)
  FROM pg_constraint co JOIN ns ON ns.oid = co.connamespace
UNION ALL
SELECT 'index ' || indexdef FROM pg_indexes i JOIN ns ON ns.nspname = i.schemaname
UNION ALL
SELECT 'trigger ' || t.tgrelid::regclass::text || ' ' || t.tgname || ' ' || t.tgenabled::text || ' ' || pg_get_triggerdef(t.oid)
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN ns ON ns.oid = c.relnamespace
UNION ALL
SELECT 'type ' || ns.nspname || '.' || t.typname || ' ' || t.typtype::text || coalesce(' ' || (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
    FROM pg_enum e WHERE e.enumtypid = t.oid), '')
  FROM pg_type t JOIN ns ON ns.oid = t.typnamespace
UNION ALL
SELECT 'function ' || ns.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(p.prosrc)
  FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
UNION ALL
SELECT 'statistics ' || s.stxnamespace::regnamespace::text || '.' || s.stxname || ' on ' || s.stxrelid::regclass::text
  FROM pg_statistic_ext s JOIN pg_class c ON c.oid = s.stxrelid JOIN ns ON ns.oid = c.relnamespace
UNION ALL
SELECT 'depends ' || pg_describe_object(d.classid, d.objid, d.objsubid) || ' on ' || pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
  FROM pg_depend d
  WHERE d.deptype <> 'i'
    AND pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) LIKE '%regdesk.%'
    AND pg_describe_object(d.classid, d.objid, d.objsubid) NOT LIKE '%regdesk.%'
    AND d.refobjid <> (SELECT oid FROM pg_namespace WHERE nspname = 'regdesk')
UNION ALL
SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension`

func catalogue(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, _ := conn.Query(context.Background(), lmsCatalogue)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return lines
}

// freshLMS creates an empty database holding the LMS's tables (lmsdb) and nothing of regdesk's,
// and returns a connection to it as the server's administrator, dropped with the test.
func freshLMS(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	ctx := context.Background()
	admin := storetest.AdminURL(t)
	name := "lmscompat_" + strings.ReplaceAll(store.NewID()[:13], "-", "")
	a, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = a.Exec(context.Background(), `DROP DATABASE `+name+` WITH (FORCE)`)
		a.Close(context.Background())
	})
	u := storetest.DatabaseURL(admin, name)
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if err := lmsdb.Apply(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return conn, u
}

func diffLines(before, after []string) (gone, added []string) {
	for _, l := range before {
		if _, ok := slices.BinarySearch(after, l); !ok {
			gone = append(gone, l)
		}
	}
	for _, l := range after {
		if _, ok := slices.BinarySearch(before, l); !ok {
			added = append(added, l)
		}
	}
	return gone, added
}

// TestMigrationsTouchNothingOfTheLMS applies regdesk's migrations to a database in the LMS's shape,
// as the server's administrator (so no missing right hides a migration that reaches out), and
// compares everything outside the schema regdesk before and after: relations, columns, defaults,
// constraints, indexes, triggers, types and enum values, functions, statistics, extensions and
// dependencies on regdesk's objects. Then the LMS's pipeline writes its ledger as it does (an
// UPDATE of state, a new attempt, an event), which regdesk's old triggers broke.
func TestMigrationsTouchNothingOfTheLMS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, u := freshLMS(t)
	before := catalogue(t, conn)
	if len(before) < 500 {
		t.Fatalf("the catalogue of the LMS's shape has only %d lines: the query reads too little", len(before))
	}
	st, err := store.Open(ctx, u, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	after := catalogue(t, conn)
	if gone, added := diffLines(before, after); len(gone)+len(added) > 0 {
		t.Errorf("regdesk's migrations changed the LMS's objects:\n- %s\n+ %s", strings.Join(gone, "\n- "), strings.Join(added, "\n+ "))
	}
	var regdeskTables int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'regdesk'`).Scan(&regdeskTables); err != nil || regdeskTables < 10 {
		t.Fatalf("the schema regdesk holds %d tables (%v): the migrations did not run where they should", regdeskTables, err)
	}

	// The pipeline's own writes, after regdesk's migrations.
	user, course, instance, module, completion, row := store.NewID(), store.NewID(), store.NewID(), store.NewID(), store.NewID(), store.NewID()
	for _, stmt := range []string{
		fmt.Sprintf(`INSERT INTO users (id) VALUES ('%s')`, user),
		fmt.Sprintf(`INSERT INTO courses (id, name, slug, organization_id, language_code, course_language_group_id)
VALUES ('%s', 'Kurssi', 'kurssi', gen_random_uuid(), 'fi-FI', gen_random_uuid())`, course),
		fmt.Sprintf(`INSERT INTO course_instances (id, course_id, teacher_in_charge_name, teacher_in_charge_email) VALUES ('%s', '%s', 'T', 't@example.org')`, instance, course),
		fmt.Sprintf(`INSERT INTO course_modules (id, course_id, order_number, uh_course_code, enable_credit_registration_via_suotar) VALUES ('%s', '%s', 0, 'TKT1', true)`, module, course),
		fmt.Sprintf(`INSERT INTO course_module_completions (id, course_id, course_module_id, user_id, completion_date, completion_language,
  eligible_for_ects, email, passed, register_credits_via_suotar) VALUES ('%s', '%s', '%s', '%s', now(), 'fi-FI', true, 's@example.org', true, true)`,
			completion, course, module, user),
		fmt.Sprintf(`INSERT INTO credit_registrations (id, course_module_completion_id, user_id, course_id, course_module_id, course_instance_id)
VALUES ('%s', '%s', '%s', '%s', '%s', '%s')`, row, completion, user, course, module, instance),
		fmt.Sprintf(`UPDATE credit_registrations SET state = 'ready_to_submit', state_entered_at = clock_timestamp(), next_attempt_at = now() WHERE id = '%s'`, row),
		fmt.Sprintf(`INSERT INTO credit_registration_events (credit_registration_id, kind, from_state, to_state) VALUES ('%s', 'state_changed', 'pending', 'ready_to_submit')`, row),
		fmt.Sprintf(`UPDATE credit_registrations SET state = 'cancelled', terminal_at = now() WHERE id = '%s'`, row),
		// A regrade's new attempt supersedes the old one in the same transaction (the foreign key is
		// deferred until it commits).
		fmt.Sprintf(`UPDATE credit_registrations SET superseded_by_id = '%[6]s', superseded_at = now() WHERE id = '%[7]s';
INSERT INTO credit_registrations (id, course_module_completion_id, user_id, course_id, course_module_id, course_instance_id, attempt_number)
VALUES ('%[6]s', '%[1]s', '%[2]s', '%[3]s', '%[4]s', '%[5]s', 2)`, completion, user, course, module, instance, store.NewID(), row),
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("the LMS's own write failed after regdesk's migrations: %v\n%s", err, stmt)
		}
	}
	// And regdesk sees them.
	if _, err := st.LedgerMirrorSweep(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM regdesk.ledger_mirror WHERE course_id = $1`, course).Scan(&n); err != nil || n != 2 {
		t.Errorf("regdesk's copy holds %d of the 2 rows (%v)", n, err)
	}
}

// TestMigrateWithLeastPrivilege migrates and reads as a role that owns the schema regdesk (a DBA
// made it) and may only read the LMS's tables: migrate, check the schema, copy the ledger and read
// a queue page all work, and writing an LMS table is refused.
func TestMigrateWithLeastPrivilege(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, u := freshLMS(t)
	if err := lmsdb.GrantReadOnly(ctx, conn, storetest.Role); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE SCHEMA regdesk AUTHORIZATION `+storetest.Role); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, storetest.AsRole(u), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate as the least-privileged role: %v", err)
	}
	if err := st.CheckSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LedgerMirrorSweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.RegistrationList(ctx, storetest.Now(), store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true}, nil, 50); err != nil {
		t.Fatalf("the queue as the least-privileged role: %v", err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE credit_registrations SET needs_admin_attention = false`); err == nil {
		t.Fatal("regdesk's role could write the LMS's ledger")
	}
}
