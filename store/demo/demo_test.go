package demo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/demo"
	"regdesk/store/storetest"
)

// now is the instant every test's demo is consistent at; tests never read the clock.
var now = storetest.Now().Add(-22 * time.Hour)

type testBundle struct {
	st    *store.Store
	sum   demo.Summary
	truth []demo.SisuTruth
	rows  []row
}

// linkingSince is the LMS's account_linking_since the tests' stores run with: before every
// completion, as readRows reads the ledger.
var linkingSince = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// setup writes a demo of rows rows into a fresh database and reads it back.
func setup(t *testing.T, rows int) *testBundle {
	t.Helper()
	st, _ := storetest.NewWithURL(t, storetest.Options{AccountLinkingSince: &linkingSince})
	b := &testBundle{st: st}
	sum, err := demo.Write(context.Background(), st, demo.Config{
		LMS: storetest.LMS(t, st), Rows: rows, Seed: 1, Now: now,
		Truth: func(s demo.SisuTruth) { b.truth = append(b.truth, s) },
	})
	if err != nil {
		t.Fatalf("Write() = %v", err)
	}
	b.sum = sum
	b.rows = readRows(t, st)
	return b
}

func TestDefaultDemo(t *testing.T) {
	t.Parallel()
	b := setup(t, demo.DefaultRows)

	if got, want := len(b.rows), demo.DefaultRows; got != want {
		t.Fatalf("the ledger has %d rows, want %d", got, want)
	}
	if b.sum.Rows != demo.DefaultRows || b.sum.Events == 0 || b.sum.Students == 0 {
		t.Errorf("Summary = %+v, want %d rows with students and events", b.sum, demo.DefaultRows)
	}

	t.Run("EveryStatePhaseAndReason", func(t *testing.T) {
		t.Parallel()
		states := map[schedule.State]int{}
		phases := map[schedule.Phase]int{}
		reasons := map[schedule.Reason]int{}
		standings := map[schedule.Standing]int{}
		for _, r := range b.rows {
			states[r.sched.State]++
			st := schedule.Classify(r.sched, now)
			phases[st.Phase]++
			for _, reason := range st.Reasons.List() {
				reasons[reason]++
			}
			standings[st.Standing]++
		}
		for _, s := range schedule.States() {
			if states[s] == 0 {
				t.Errorf("no row in state %s", s)
			}
		}
		for _, p := range schedule.Phases() {
			if phases[p] == 0 {
				t.Errorf("no row in phase %s", p)
			}
		}
		checkReasonsAndStandings(t, reasons, standings)
		// Most of a real ledger is settled; a demo that is mostly problems would mislead.
		if settled := phases[schedule.PhaseSettled]; settled < len(b.rows)*7/10 {
			t.Errorf("%d of %d rows settled, want most", settled, len(b.rows))
		}
		t.Logf("states %v", states)
		t.Logf("phases %v", phases)
		t.Logf("reasons %v", reasons)
		t.Logf("standings %v", standings)
	})

	t.Run("StudentNumbers", func(t *testing.T) {
		t.Parallel()
		rows, _ := b.st.Pool().Query(context.Background(), `SELECT student_number FROM verified_student_numbers
			UNION ALL SELECT student_number FROM credit_registrations WHERE student_number IS NOT NULL`)
		numbers, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if len(numbers) == 0 {
			t.Fatal("no student numbers")
		}
		for _, n := range numbers {
			if !demo.ValidStudentNumber(n) {
				t.Errorf("student number %q fails the HY check digit", n)
			}
		}
		// Students: every user but the staff. Some have no live link (pending rows wait for
		// one), and some lost theirs when Sisu had no person for it: a deleted link.
		var unlinked, dropped, noName int
		if err := b.st.Pool().QueryRow(context.Background(), `SELECT
  count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM verified_student_numbers v WHERE v.user_id = u.id AND v.deleted_at IS NULL)),
  count(*) FILTER (WHERE EXISTS (SELECT 1 FROM verified_student_numbers v WHERE v.user_id = u.id AND v.deleted_at IS NOT NULL)),
  count(*) FILTER (WHERE d.first_name IS NULL AND d.last_name IS NULL)
FROM users u JOIN user_details d ON d.user_id = u.id
WHERE NOT EXISTS (SELECT 1 FROM roles r WHERE r.user_id = u.id)`).Scan(&unlinked, &dropped, &noName); err != nil {
			t.Fatal(err)
		}
		if unlinked == 0 {
			t.Error("every student has a linked number; the demo needs some without (pending rows)")
		}
		if dropped == 0 {
			t.Error("no student lost their link; person_not_found rows need one")
		}
		if noName == 0 {
			t.Error("every student has a name; the LMS allows accounts without, and the pages must show them")
		}
		// A frozen payload is the student's live link, unless the link was dropped since.
		var stale int
		if err := b.st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM credit_registrations c
  JOIN verified_student_numbers v ON v.user_id = c.user_id AND v.deleted_at IS NULL
WHERE c.student_number IS NOT NULL AND (c.student_number <> v.student_number OR c.sisu_person_id IS DISTINCT FROM v.sisu_person_id)`).Scan(&stale); err != nil {
			t.Fatal(err)
		}
		if stale > 0 {
			t.Errorf("%d rows froze a number that is not their student's link", stale)
		}
	})

	t.Run("Catalogue", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		// Some rows register credits on a course's default module: no name.
		var onDefault, heldRows int
		if err := b.st.Pool().QueryRow(ctx, `SELECT count(*) FROM credit_registrations c
  JOIN course_modules m ON m.id = c.course_module_id WHERE m.name IS NULL`).Scan(&onDefault); err != nil {
			t.Fatal(err)
		}
		if onDefault == 0 {
			t.Error("no registration is on a course's default module (name NULL)")
		}
		// Every module that registers credits has its configuration, and the checks' verdicts
		// include an accepted code, a rejected one and none at all.
		var missing int
		verdicts := map[string]int{}
		if err := b.st.Pool().QueryRow(ctx, `SELECT count(*) FROM course_modules m
WHERE m.enable_credit_registration_via_suotar AND NOT EXISTS (
  SELECT 1 FROM course_module_suotar_configurations c WHERE c.course_module_id = m.id AND c.deleted_at IS NULL)`).Scan(&missing); err != nil {
			t.Fatal(err)
		}
		if missing > 0 {
			t.Errorf("%d modules register credits without a configuration", missing)
		}
		rows, _ := b.st.Pool().Query(ctx, `SELECT coalesce(course_code_allowed::text, 'null') FROM course_module_suotar_configurations`)
		vs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			verdicts[v]++
		}
		for _, v := range []string{"true", "false", "null"} {
			if verdicts[v] == 0 {
				t.Errorf("no module configuration with course_code_allowed %s; verdicts %v", v, verdicts)
			}
		}
		// The rejected code holds its module's completions in pending, as the preconditions say.
		if err := b.st.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE c.state = 'pending'), count(*) FROM credit_registrations c
  JOIN credit_registration_preconditions p ON p.credit_registration_id = c.id WHERE NOT p.course_code_allowed`).Scan(&heldRows, &missing); err != nil {
			t.Fatal(err)
		}
		if heldRows == 0 || heldRows != missing {
			t.Errorf("%d rows are on a module whose code is not accepted, %d of them pending; want some, all pending", missing, heldRows)
		}
	})

	t.Run("RowsAgreeWithTheirEvents", func(t *testing.T) {
		t.Parallel()
		for _, r := range b.rows {
			for _, problem := range checkRow(r) {
				t.Errorf("row %s (%s): %s", r.id, r.sched.State, problem)
			}
		}
	})

	t.Run("NoTimestampAfterNow", func(t *testing.T) {
		t.Parallel()
		// next_attempt_at, resubmit_not_before and enrolment_check_due_at are plans, and
		// plans lie ahead; everything else records the past.
		for _, q := range []string{
			`SELECT count(*) FROM users WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM user_details WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM verified_student_numbers WHERE greatest(created_at, updated_at, verified_at, deleted_at) > $1`,
			`SELECT count(*) FROM roles WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM course_module_completions WHERE greatest(created_at, updated_at, completion_date, deleted_at) > $1`,
			`SELECT count(*) FROM credit_registrations WHERE greatest(created_at, updated_at, superseded_at, state_entered_at,
				state_changed_at, phase_started_at, first_failed_at, last_attempt_at, terminal_at, submitted_at, registered_at,
				enrolment_checked_at, partially_registered_at, no_usable_enrolment_since, attained_at, enrolment_checks_stopped_at,
				enrolment_check_anchor_at, enrolment_check_requested_at, enrolment_check_restart_window_started_at) > $1`,
			`SELECT count(*) FROM credit_registration_events WHERE greatest(created_at, updated_at, suotar_requested_at, suotar_answered_at) > $1`,
			`SELECT count(*) FROM credit_registration_admin_actions WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM credit_registration_attention_dismissals WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM courses WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM course_instances WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM course_modules WHERE greatest(created_at, updated_at) > $1`,
			`SELECT count(*) FROM course_module_suotar_configurations WHERE greatest(created_at, updated_at, config_checked_at) > $1`,
		} {
			var n int
			if err := b.st.Pool().QueryRow(context.Background(), q, now).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				t.Errorf("%d rows have a time after now: %s", n, q)
			}
		}
	})

	t.Run("SisuTruth", func(t *testing.T) {
		t.Parallel()
		byID := map[string]demo.SisuTruth{}
		for _, s := range b.truth {
			byID[s.RegistrationID] = s
		}
		var uncertain, landed, conflicts int
		for _, r := range b.rows {
			s, ok := byID[r.id]
			switch r.sched.State {
			case schedule.StateSubmissionUncertain:
				if !ok {
					t.Errorf("uncertain row %s has no Sisu truth", r.id)
					continue
				}
				uncertain++
				if s.Landed {
					landed++
				}
			case schedule.StatePartiallyRegistered:
				// What Sisu shows by now: a course unit attainment that lands later (the row is
				// still being verified) is Sisu's future, not a contradiction of the partial state.
				var shown []demo.SisuAttainment
				for _, a := range s.Attainments {
					if !a.VisibleAt.After(now) {
						shown = append(shown, a)
					}
				}
				if !ok || len(shown) != 1 || shown[0].Type != "AssessmentItemAttainment" {
					t.Errorf("partial row %s: truth %+v, want its assessment item attainment only by %v", r.id, s, now)
				}
			case schedule.StateRegistered:
				if !ok || !slices.ContainsFunc(s.Attainments, func(a demo.SisuAttainment) bool {
					return a.Type == "CourseUnitAttainment" && a.ID == r.sisuAttainmentID
				}) {
					t.Errorf("registered row %s: truth %+v, want the course unit attainment %s", r.id, s, r.sisuAttainmentID)
				}
			}
			if ok && s.Conflict != "" {
				conflicts++
			}
		}
		if landed == 0 || landed == uncertain {
			t.Errorf("%d of %d uncertain rows landed in Sisu, want about half", landed, uncertain)
		}
		if conflicts == 0 {
			t.Error("no conflicting attainment in Sisu")
		}
	})

	t.Run("Presses", func(t *testing.T) {
		t.Parallel()
		// "I have enrolled" is the completion's enrolment route: pressed while waiting for an
		// enrolment, and without a linked number, where the code's enrolment list has been
		// fetched an hour past the press with no linking mail (the LMS's student_number_stuck),
		// or not yet.
		var stuck, notYet, waiting, unfetched int
		if err := b.st.Pool().QueryRow(context.Background(), `SELECT
  count(*) FILTER (WHERE c.state = 'pending' AND NOT p.has_verified_student_number
    AND s.last_mailing_fetch_started_at >= r.enrolment_confirmed_at + interval '60 minutes'),
  count(*) FILTER (WHERE c.state = 'pending' AND NOT p.has_verified_student_number
    AND s.last_mailing_fetch_started_at < r.enrolment_confirmed_at + interval '60 minutes'),
  count(*) FILTER (WHERE c.enrolment_check_requested_at = r.enrolment_confirmed_at),
  count(*) FILTER (WHERE s.id IS NULL)
FROM credit_registrations c
  JOIN credit_registration_enrolment_routes r ON r.course_module_completion_id = c.course_module_completion_id AND r.deleted_at IS NULL
  JOIN course_modules m ON m.id = c.course_module_id
  JOIN credit_registration_preconditions p ON p.credit_registration_id = c.id
  LEFT JOIN credit_registration_roster_schedules s ON s.course_code = trim(m.uh_course_code)
WHERE c.superseded_by_id IS NULL AND r.user_id = c.user_id`).Scan(&stuck, &notYet, &waiting, &unfetched); err != nil {
			t.Fatal(err)
		}
		if stuck == 0 || notYet == 0 || waiting == 0 || unfetched > 0 {
			t.Errorf("presses: %d stuck without a number, %d not yet, %d of rows waiting for an enrolment, %d on a code never fetched; want some of the first three, none of the last",
				stuck, notYet, waiting, unfetched)
		}
	})

	t.Run("HandsAreTheLMSStaff", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		if b.sum.AdminActions == 0 || b.sum.Dismissals == 0 {
			t.Fatalf("Summary = %+v, want hand actions and dismissals", b.sum)
		}
		// Every hand in the history is an LMS user with the global credit_registration_admin
		// grant the LMS's admin pages require, and one of the demo's staff.
		staff := map[string]bool{}
		for _, id := range b.sum.Staff {
			staff[id] = true
		}
		rows, _ := b.st.Pool().Query(ctx, `SELECT DISTINCT x.actor::text, EXISTS (SELECT 1 FROM roles r WHERE r.user_id = x.actor
    AND r.role = 'credit_registration_admin' AND r.is_global AND r.deleted_at IS NULL)
FROM (SELECT actor_user_id AS actor FROM credit_registration_events WHERE actor_user_id IS NOT NULL
  UNION ALL SELECT actor_user_id FROM credit_registration_admin_actions
  UNION ALL SELECT dismissed_by_user_id FROM credit_registration_attention_dismissals) x`)
		var actor string
		var granted bool
		n, err := pgx.ForEachRow(rows, []any{&actor, &granted}, func() error {
			if !staff[actor] || !granted {
				t.Errorf("actor %s: staff %v, global credit_registration_admin %v", actor, staff[actor], granted)
			}
			return nil
		})
		if err != nil || n.RowsAffected() == 0 {
			t.Fatalf("read the actors: %s, %v", n, err)
		}
		// Each audit row is what the LMS's endpoint writes beside its event: a transition names
		// the states and its outcome, a dismissal the reasons it dismissed, and the event at the
		// same instant carries the same person and reason.
		var bad int
		if err := b.st.Pool().QueryRow(ctx, `SELECT count(*) FROM credit_registration_admin_actions a
WHERE a.actor_role <> 'global_admin' OR a.target_kind <> 'credit_registration' OR a.affected_row_count <> 1
  OR NOT EXISTS (SELECT 1 FROM credit_registration_events e WHERE e.credit_registration_id = a.target_id
    AND e.kind = 'admin_action' AND e.created_at = a.created_at AND e.actor_user_id = a.actor_user_id AND e.message = a.reason
    AND (e.to_state IS NULL OR (e.from_state = a.before_state AND e.to_state = a.after_state)))
  OR CASE a.action
    WHEN 'transition_item' THEN a.details <> '{"outcome": "applied"}' OR a.before_state IS NULL OR a.after_state IS NULL
    WHEN 'dismiss_attention' THEN a.before_state IS NOT NULL OR NOT EXISTS (SELECT 1 FROM credit_registration_attention_dismissals d
      WHERE d.credit_registration_id = a.target_id AND d.deleted_at IS NULL AND d.created_at = a.created_at
        AND d.dismissed_by_user_id = a.actor_user_id AND d.reason = a.reason
        AND to_jsonb(d.dismissed_reasons) = a.details -> 'attention_reasons')
    ELSE true END`).Scan(&bad); err != nil {
			t.Fatal(err)
		}
		if bad > 0 {
			t.Errorf("%d audit rows are not what the LMS's endpoints write", bad)
		}
		// Every hand event has its audit row.
		if err := b.st.Pool().QueryRow(ctx, `SELECT count(*) FROM credit_registration_events e WHERE e.kind = 'admin_action'
  AND NOT EXISTS (SELECT 1 FROM credit_registration_admin_actions a WHERE a.target_id = e.credit_registration_id AND a.created_at = e.created_at)`).Scan(&bad); err != nil {
			t.Fatal(err)
		}
		if bad > 0 {
			t.Errorf("%d hand events have no audit row", bad)
		}
		// A dismissal is of a live row that carries the reasons it dismissed: the flag alone, or a
		// partial registration past its threshold.
		if err := b.st.Pool().QueryRow(ctx, `SELECT count(*) FROM credit_registration_attention_dismissals d
  JOIN credit_registrations c ON c.id = d.credit_registration_id
WHERE c.superseded_by_id IS NOT NULL OR NOT c.needs_admin_attention OR CASE
    WHEN d.dismissed_reasons = '{flagged_by_pipeline}' THEN c.state <> 'awaiting_verification'
    WHEN d.dismissed_reasons = '{partly_registered_overdue}' THEN c.state <> 'partially_registered'
      OR c.partially_registered_at > d.created_at - interval '3 days'
    ELSE true END`).Scan(&bad); err != nil {
			t.Fatal(err)
		}
		if bad > 0 {
			t.Errorf("%d dismissals are of rows that do not carry what they dismissed", bad)
		}
	})

	t.Run("TheCopyKnowsWhoIsStuck", func(t *testing.T) {
		t.Parallel()
		// regdesk's copy derives student_number_stuck's facts from the LMS's tables; read as
		// attention.rs reads them (readRows), they must give every row the same verdict.
		q, _ := b.st.Pool().Query(context.Background(), `SELECT id::text, linking_awaits, linking_pressed_at,
  linking_fetch_started_at, linking_email_since_press FROM ledger_mirror`)
		copied := map[string]schedule.LinkingFacts{}
		var id string
		var l schedule.LinkingFacts
		if _, err := pgx.ForEachRow(q, []any{&id, &l.AwaitsStudentNumber, &l.PressedAt, &l.LastMailingFetchStartedAt, &l.LinkingEmailSincePress}, func() error {
			copied[id] = l
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var stuck int
		for _, r := range b.rows {
			want := schedule.Classify(r.sched, now).Reasons.Has(schedule.ReasonStudentNumberStuck)
			row := r.sched
			row.Linking = copied[r.id]
			if got := schedule.Classify(row, now).Reasons.Has(schedule.ReasonStudentNumberStuck); got != want {
				t.Errorf("row %s (%s): the copy says stuck = %v (%+v), the LMS's tables %v (%+v)", r.id, r.sched.State, got, row.Linking, want, r.sched.Linking)
			}
			if want {
				stuck++
			}
		}
		if stuck == 0 {
			t.Error("no row is stuck waiting for a student number")
		}
	})

	t.Run("MirrorIsWhatTheMirrorJobCopies", func(t *testing.T) {
		// Not parallel: it rewrites the copy, which the other subtests do not read.
		ctx := context.Background()
		var n, ledger int
		if err := b.st.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM ledger_mirror), (SELECT count(*) FROM credit_registrations)`).Scan(&n, &ledger); err != nil {
			t.Fatal(err)
		}
		if n != ledger {
			t.Fatalf("the copy has %d rows, the ledger %d", n, ledger)
		}
		copied := mirrorRows(t, b.st)
		ids := make([]string, 0, len(copied))
		for id := range copied {
			ids = append(ids, id)
		}
		if _, err := b.st.Pool().Exec(ctx, `DELETE FROM ledger_mirror`); err != nil {
			t.Fatal(err)
		}
		if err := b.st.LedgerMirrorRows(ctx, ids); err != nil {
			t.Fatal(err)
		}
		again := mirrorRows(t, b.st)
		ranked := map[string]bool{}
		for id, r := range copied {
			if again[id] != r {
				t.Errorf("row %s: the demo copied\n%s\nLedgerMirrorRows copies\n%s", id, r, again[id])
			}
			var x struct {
				Rank int `json:"student_rank"`
			}
			if err := json.Unmarshal([]byte(r), &x); err != nil {
				t.Fatal(err)
			}
			ranked[strconv.Itoa(x.Rank)] = true
		}
		if len(ranked) < 8 {
			t.Errorf("the copy holds %d student ranks, want most of the course page's order", len(ranked))
		}
	})
}

// mirrorRows reads regdesk's copy of the ledger, each row as JSON without when it was copied.
func mirrorRows(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	rows, _ := st.Pool().Query(context.Background(), `SELECT id::text, (to_jsonb(m) - 'mirrored_at')::text FROM ledger_mirror m`)
	out := map[string]string{}
	var id, r string
	if _, err := pgx.ForEachRow(rows, []any{&id, &r}, func() error { out[id] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWriteIsDeterministic writes the same config twice, once with PostgreSQL checking every
// foreign key and once without, and expects the same bytes; a third write with another seed
// must differ. A fourth builds the indexes after copying, as the benchmark ledger is written,
// and must leave the same bytes and the same indexes, the LMS's and the mirror's, as the first.
func TestWriteIsDeterministic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := demo.Config{Rows: 700, Seed: 42, Now: now, BatchRows: 150}
	var sums [4]map[string]string
	var indexes [4][]string
	for i := range sums {
		st := storetest.New(t)
		c := cfg
		c.LMS = storetest.LMS(t, st)
		c.SkipForeignKeyChecks = i > 0
		if i == 2 {
			c.Seed = 43
		}
		c.BuildIndexesAfter = i == 3
		sum, err := demo.Write(ctx, st, c)
		if err != nil {
			t.Fatalf("Write() = %v", err)
		}
		if i == 1 && sum.ForeignKeysChecked {
			t.Log("the test role may not skip foreign key checks; both writes checked them")
		}
		sums[i] = tableDigests(t, st)
		indexes[i] = indexDefinitions(t, st)
		if c.SkipForeignKeyChecks {
			checkReferences(t, st)
		}
	}
	for _, i := range []int{1, 3} {
		for table, d := range sums[0] {
			if sums[i][table] != d {
				t.Errorf("write %d: table %s differs from the first write of the same config", i, table)
			}
		}
	}
	for _, table := range []string{"credit_registrations", "users", "ledger_mirror"} {
		if sums[2][table] == sums[0][table] {
			t.Errorf("seeds 42 and 43 wrote the same %s", table)
		}
	}
	if len(indexes[0]) < 60 {
		t.Fatalf("found %d indexes on the bulk tables, the schemas have more", len(indexes[0]))
	}
	if !slices.Equal(indexes[3], indexes[0]) {
		t.Errorf("building the indexes after copying left other indexes:\n%s\nwant\n%s",
			strings.Join(indexes[3], "\n"), strings.Join(indexes[0], "\n"))
	}
}

// bulkTables are the tables a write fills with a row or more per ledger row: the LMS's, and
// regdesk's copy of the ledger.
var bulkTables = []string{"users", "user_details", "verified_student_numbers", "course_module_completions",
	"credit_registrations", "credit_registration_events", "ledger_mirror"}

// demoTables are every table a write fills.
var demoTables = append([]string{"roles", "courses", "course_instances", "course_modules", "course_module_suotar_configurations",
	"credit_registration_admin_actions", "credit_registration_attention_dismissals", "credit_registration_enrolment_routes",
	"credit_registration_roster_schedules"}, bulkTables...)

// indexDefinitions lists the definitions of every index of the bulk tables, in both schemas,
// sorted.
func indexDefinitions(t *testing.T, st *store.Store) []string {
	t.Helper()
	rows, _ := st.Pool().Query(context.Background(), `SELECT indexdef FROM pg_indexes
WHERE schemaname IN ('public', 'regdesk') AND tablename = ANY($1)
ORDER BY indexdef`, bulkTables)
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// checkReferences fails the test for any foreign key of the demo's tables that points nowhere:
// with the checks skipped while copying, this is what proves them.
func checkReferences(t *testing.T, st *store.Store) {
	t.Helper()
	rows, _ := st.Pool().Query(context.Background(), `
		SELECT c.conrelid::regclass::text, a.attname, c.confrelid::regclass::text, fa.attname
		FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
		WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
		ORDER BY 1, 2`)
	type fk struct{ table, col, ref, refCol string }
	fks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (fk, error) {
		var f fk
		return f, r.Scan(&f.table, &f.col, &f.ref, &f.refCol)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(fks) < 30 {
		t.Fatalf("found %d foreign keys, the schemas have more", len(fks))
	}
	for _, f := range fks {
		var n int
		q := fmt.Sprintf(`SELECT count(*) FROM %s x WHERE x.%s IS NOT NULL AND NOT EXISTS (SELECT FROM %s y WHERE y.%s = x.%s)`,
			f.table, pgx.Identifier{f.col}.Sanitize(), f.ref, pgx.Identifier{f.refCol}.Sanitize(), pgx.Identifier{f.col}.Sanitize())
		if err := st.Pool().QueryRow(context.Background(), q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			t.Errorf("%d rows of %s.%s point at no %s", n, f.table, f.col, f.ref)
		}
	}
}

// tableDigests returns an md5 of every table the demo writes, over its rows in order; the
// mirror's without mirrored_at, which is when it was copied.
func tableDigests(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range demoTables {
		var d string
		q := fmt.Sprintf(`SELECT md5(coalesce(string_agg(x, E'\n' ORDER BY x), '')) FROM (SELECT (to_jsonb(t) - 'mirrored_at')::text AS x FROM %s t) r`, table)
		if err := st.Pool().QueryRow(context.Background(), q).Scan(&d); err != nil {
			t.Fatal(err)
		}
		out[table] = d
	}
	return out
}

func TestWriteRefusesANonEmptyLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	cfg := demo.Config{LMS: storetest.LMS(t, st), Rows: 60, Seed: 7, Now: now}
	if _, err := demo.Write(ctx, st, cfg); err != nil {
		t.Fatalf("first Write() = %v", err)
	}
	if _, err := demo.Write(ctx, st, cfg); !errors.Is(err, demo.ErrNotEmpty) {
		t.Errorf("second Write() = %v, want ErrNotEmpty", err)
	}
	cfg.IfEmpty = true
	sum, err := demo.Write(ctx, st, cfg)
	if err != nil || !sum.Skipped {
		t.Errorf("Write(IfEmpty) on a full ledger = %+v, %v; want skipped", sum, err)
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM credit_registrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 60 {
		t.Errorf("the ledger has %d rows after the refused writes, want 60", n)
	}
}

// TestWriteNeedsTheLMSOwner writes through regdesk's own role, which may only read the LMS's
// tables: a clear refusal, and nothing written.
func TestWriteNeedsTheLMSOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	_, err := demo.Write(ctx, st, demo.Config{Rows: 60, Seed: 7, Now: now})
	if err == nil || !strings.Contains(err.Error(), "Config.LMS") {
		t.Fatalf("Write() as regdesk's role = %v, want a refusal naming Config.LMS", err)
	}
	for _, table := range demoTables {
		var n int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s has %d rows after a refused write", table, n)
		}
	}
}

// TestWriteLeavesNothingWhenStopped stops a write halfway through and expects every table it
// touched to be as empty as before, and every index it dropped to copy faster built again.
func TestWriteLeavesNothingWhenStopped(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	want := indexDefinitions(t, st)
	_, err := demo.Write(ctx, st, demo.Config{LMS: storetest.LMS(t, st), Rows: 3000, Seed: 3, Now: now, BatchRows: 200,
		SkipForeignKeyChecks: true, BuildIndexesAfter: true,
		Truth: func(demo.SisuTruth) {
			if seen++; seen == 1500 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Write() = %v, want context.Canceled", err)
	}
	for _, table := range demoTables {
		var n int
		if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s has %d rows after a stopped write, want none", table, n)
		}
	}
	if got := indexDefinitions(t, st); !slices.Equal(got, want) {
		t.Errorf("a stopped write left the indexes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func BenchmarkWrite100k(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 100,000 rows")
	}
	for b.Loop() {
		b.StopTimer()
		st := storetest.New(b)
		b.StartTimer()
		sum, err := demo.Write(context.Background(), st, demo.Config{LMS: storetest.LMS(b, st), Rows: 100_000, Seed: 1, Now: now, SkipForeignKeyChecks: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Rows)/sum.Duration.Seconds(), "rows/s")
		b.ReportMetric(float64(sum.Events)/sum.Duration.Seconds(), "events/s")
	}
}

// row is a ledger row as the tests read it back, with its events.
type row struct {
	id                string
	sched             schedule.Row
	createdAt         time.Time
	updatedAt         time.Time
	supersededAt      *time.Time
	terminalAt        *time.Time
	registeredAt      *time.Time
	studentNumber     *string
	personID          *string
	gradeScaleID      *string
	attainedAt        *time.Time
	sisuAttainmentID  string
	pendingSuperseded bool
	checksStoppedAt   *time.Time
	events            []event
}

type event struct {
	at          time.Time
	kind        string
	from, to    *string
	actor       *string
	endpoint    *string
	requestedAt *time.Time
	answeredAt  *time.Time
	answer      *string
	code        *string // details #>> '{response,code}'
	hasDetails  bool
}

// checkReasonsAndStandings fails for an attention reason no row carries (student_number_stuck
// too: readRows reads its LMS tables), and for a standing a person sees on the queue that no row
// stands in: needing attention, running late (stuck in its state and nothing else), and
// dismissed.
func checkReasonsAndStandings(t *testing.T, reasons map[schedule.Reason]int, standings map[schedule.Standing]int) {
	t.Helper()
	for _, r := range schedule.Reasons() {
		if reasons[r] == 0 {
			t.Errorf("no row with attention reason %s", r)
		}
	}
	for _, s := range []schedule.Standing{schedule.StandingNeedsAttention, schedule.StandingRunningLate, schedule.StandingDismissed} {
		if standings[s] == 0 {
			t.Errorf("no row stands %s", s)
		}
	}
}

func readRows(t *testing.T, st *store.Store) []row {
	t.Helper()
	ctx := context.Background()
	// Read as the LMS's attention query reads them (attention.rs): the row, its live dismissal,
	// and for student_number_stuck the preconditions, the student's press (the enrolment route),
	// the code's roster schedule and any linking mail on the code since the press. Account linking
	// counts as on for every completion (the LMS's account_linking_since unset to the past).
	q, _ := st.Pool().Query(ctx, `SELECT cr.id::text, cr.state::text, coalesce(cr.error_code::text, ''), cr.needs_admin_attention,
		cr.superseded_by_id IS NOT NULL, cr.state_entered_at, cr.state_changed_at, cr.next_attempt_at, cr.first_failed_at, cr.submitted_at,
		cr.partially_registered_at, cr.resubmit_not_before, cr.submit_retry_count, cr.verify_attempt_count, cr.not_registered_reimport_count,
		cr.created_at, cr.updated_at, cr.superseded_at, cr.terminal_at, cr.registered_at, cr.student_number, cr.sisu_person_id,
		cr.grade_scale_id, cr.attained_at, coalesce(cr.sisu_attainment_id, ''), cr.pending_superseded_by_id IS NOT NULL,
		cr.enrolment_checks_stopped_at, coalesce(dis.dismissed_reasons::text[], '{}'),
		p.completion_eligible AND NOT p.has_verified_student_number, route.enrolment_confirmed_at, s.last_mailing_fetch_started_at,
		EXISTS (SELECT 1 FROM credit_registration_account_linking_emails e
		  JOIN course_modules code_module ON code_module.course_id = e.course_id AND code_module.deleted_at IS NULL
		  WHERE trim(code_module.uh_course_code) = s.course_code AND e.sent_at >= route.enrolment_confirmed_at AND e.deleted_at IS NULL)
		FROM credit_registrations cr
		  JOIN course_modules cm ON cm.id = cr.course_module_id
		  JOIN credit_registration_preconditions p ON p.credit_registration_id = cr.id
		  LEFT JOIN credit_registration_enrolment_routes route ON route.course_module_completion_id = cr.course_module_completion_id
		    AND route.deleted_at IS NULL
		  LEFT JOIN credit_registration_roster_schedules s ON s.course_code = trim(cm.uh_course_code)
		  LEFT JOIN credit_registration_attention_dismissals dis ON dis.credit_registration_id = cr.id AND dis.deleted_at IS NULL
		ORDER BY cr.id`)
	rows, err := pgx.CollectRows(q, func(rs pgx.CollectableRow) (row, error) {
		var r row
		var state, code string
		var dismissed []string
		l := &r.sched.Linking
		err := rs.Scan(&r.id, &state, &code, &r.sched.NeedsAdminAttention, &r.sched.Superseded, &r.sched.StateEnteredAt,
			&r.sched.StateChangedAt, &r.sched.NextAttemptAt, &r.sched.FirstFailedAt, &r.sched.SubmittedAt,
			&r.sched.PartiallyRegisteredAt, &r.sched.ResubmitNotBefore, &r.sched.SubmitRetryCount, &r.sched.VerifyAttemptCount,
			&r.sched.NotRegisteredReimportCount, &r.createdAt, &r.updatedAt, &r.supersededAt, &r.terminalAt,
			&r.registeredAt, &r.studentNumber, &r.personID, &r.gradeScaleID, &r.attainedAt, &r.sisuAttainmentID,
			&r.pendingSuperseded, &r.checksStoppedAt, &dismissed,
			&l.AwaitsStudentNumber, &l.PressedAt, &l.LastMailingFetchStartedAt, &l.LinkingEmailSincePress)
		r.sched.State, r.sched.ErrorCode, r.sched.TerminalAt = schedule.State(state), schedule.ErrorCode(code), r.terminalAt
		for _, d := range dismissed {
			r.sched.DismissedReasons = append(r.sched.DismissedReasons, schedule.Reason(d))
		}
		return r, err
	})
	if err != nil {
		t.Fatalf("read the ledger: %v", err)
	}
	index := make(map[string]int, len(rows))
	for i, r := range rows {
		index[r.id] = i
	}
	q, _ = st.Pool().Query(ctx, `SELECT credit_registration_id::text, created_at, kind::text, from_state::text, to_state::text,
		actor_user_id::text, suotar_endpoint::text, suotar_requested_at, suotar_answered_at, suotar_answer::text,
		details #>> '{response,code}', details IS NOT NULL
		FROM credit_registration_events ORDER BY credit_registration_id, created_at, id`)
	var id string
	var e event
	_, err = pgx.ForEachRow(q, []any{&id, &e.at, &e.kind, &e.from, &e.to, &e.actor, &e.endpoint, &e.requestedAt, &e.answeredAt, &e.answer, &e.code, &e.hasDetails}, func() error {
		i, ok := index[id]
		if !ok {
			return fmt.Errorf("event of unknown row %s", id)
		}
		rows[i].events = append(rows[i].events, e)
		return nil
	})
	if err != nil {
		t.Fatalf("read the events: %v", err)
	}
	return rows
}

// edges are the pipeline's transitions (domain.md §2.2); admin_action events may also move any
// row to ready_to_submit or cancelled, and any transition may stay in its state.
var edges = map[string][]string{
	"pending":               {"ready_to_submit", "no_usable_enrolment", "blocked", "cancelled"},
	"ready_to_submit":       {"resolving_enrolment", "failed_retryable", "pending", "failed_permanent", "blocked", "cancelled"},
	"resolving_enrolment":   {"checking_enrolment", "no_usable_enrolment", "duplicate", "failed_retryable", "failed_permanent", "ready_to_submit", "pending", "blocked", "cancelled"},
	"no_usable_enrolment":   {"checking_enrolment", "duplicate", "failed_retryable", "failed_permanent", "pending", "blocked", "cancelled"},
	"checking_enrolment":    {"submitting", "ready_to_submit", "duplicate", "failed_permanent", "pending", "blocked", "cancelled"},
	"submitting":            {"awaiting_verification", "duplicate", "not_improved", "submission_uncertain", "failed_retryable", "failed_permanent", "no_usable_enrolment", "pending", "registered"},
	"awaiting_verification": {"registered", "partially_registered", "misregistered", "failed_retryable", "duplicate"},
	"partially_registered":  {"registered", "duplicate", "misregistered", "failed_retryable"},
	"submission_uncertain":  {"awaiting_verification", "partially_registered", "registered", "duplicate", "misregistered", "failed_retryable"},
	"failed_retryable":      {"ready_to_submit", "checking_enrolment", "awaiting_verification", "failed_permanent", "pending", "blocked", "cancelled"},
	"blocked":               {"pending", "ready_to_submit", "no_usable_enrolment", "cancelled"},
}

// checkRow lists how a row disagrees with its events or with the rules for its state.
func checkRow(r row) []string { return checkRowAt(r, now) }

// checkRowAt is checkRow for a demo consistent at now.
func checkRowAt(r row, now time.Time) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	s := r.sched
	if len(r.events) == 0 {
		return []string{"no events"}
	}
	first := r.events[0]
	if first.kind != "created" || first.from != nil || store.Deref(first.to) != "pending" || !first.at.Equal(r.createdAt) {
		bad("first event is %s %v→%v at %v, want created →pending at created_at %v", first.kind, store.Deref(first.from), store.Deref(first.to), first.at, r.createdAt)
	}
	state := ""
	var lastChange, lastMove time.Time
	submitted := false
	for i, e := range r.events {
		if i > 0 && !e.at.After(r.events[i-1].at) {
			bad("event %d at %v is not after event %d at %v", i, e.at, i-1, r.events[i-1].at)
		}
		if e.at.After(now) {
			bad("event %d at %v is after now", i, e.at)
		}
		// A person's hand names them; the pipeline's and the student's events name nobody.
		if (e.actor != nil) != (e.kind == "admin_action") {
			bad("event %d (%s) has actor %v", i, e.kind, store.Deref(e.actor))
		}
		if e.to == nil {
			// A hand that moves nothing (the flag cleared, a dismissal): no states at all.
			if i == 0 || e.kind != "admin_action" || e.from != nil {
				bad("event %d (%s) has from_state %v and no to_state", i, e.kind, store.Deref(e.from))
			}
			continue
		}
		lastMove = e.at
		if i > 0 {
			from, to := store.Deref(e.from), store.Deref(e.to)
			if from != state {
				bad("event %d leaves %q, but the row was in %q", i, from, state)
			}
			admin := e.kind == "admin_action" && (to == "ready_to_submit" || to == "cancelled")
			if to != from && !admin && !slices.Contains(edges[from], to) {
				bad("event %d (%s) moves %s → %s, not a pipeline edge", i, e.kind, from, to)
			}
		}
		if store.Deref(e.to) != state || i == 0 {
			lastChange = e.at
		}
		state = store.Deref(e.to)
		if state == "submitting" {
			submitted = true
		}
		switch e.kind {
		case "suotar_response", "retry_scheduled":
			if e.kind == "retry_scheduled" && state != "failed_retryable" {
				bad("retry_scheduled event %d moves to %s", i, state)
			}
			if e.endpoint == nil || e.requestedAt == nil || e.answer == nil || !e.hasDetails {
				bad("Suotar event %d lacks its endpoint, request time, answer or details", i)
				continue
			}
			if e.requestedAt.After(e.at) || (e.answeredAt != nil && (e.answeredAt.Before(*e.requestedAt) || e.answeredAt.After(e.at))) {
				bad("Suotar event %d: requested %v, answered %v, written %v out of order", i, *e.requestedAt, e.answeredAt, e.at)
			}
			if (*e.answer == "unanswered") != (e.answeredAt == nil) {
				bad("Suotar event %d: answer %s with answered_at %v", i, *e.answer, e.answeredAt)
			}
			if e.kind == "suotar_response" && *e.answer == "answered" && e.code == nil {
				bad("Suotar event %d has no /response/code", i)
			}
		}
	}
	if state != string(s.State) {
		bad("last event leaves the row in %s", state)
	}
	if !lastMove.Equal(s.StateEnteredAt) {
		bad("state_entered_at %v, last transition at %v", s.StateEnteredAt, lastMove)
	}
	if !lastChange.Equal(s.StateChangedAt) {
		bad("state_changed_at %v, last change of state at %v", s.StateChangedAt, lastChange)
	}
	if r.updatedAt.Before(lastMove) || r.updatedAt.After(now) {
		bad("updated_at %v is before its last transition %v or after now", r.updatedAt, lastMove)
	}
	if (r.terminalAt != nil) != s.State.IsTerminal() {
		bad("terminal_at %v in state %s", r.terminalAt, s.State)
	}
	if (r.registeredAt != nil) != (s.State == schedule.StateRegistered) {
		bad("registered_at %v in state %s", r.registeredAt, s.State)
	}
	// The one exception: an uncertain row that lost its submission time (a worker died before
	// stamping it), which the demo keeps because only a person can settle it.
	if (s.SubmittedAt != nil) != submitted && !(s.SubmittedAt == nil && s.State == schedule.StateSubmissionUncertain) {
		bad("submitted_at %v, but submitting in its history is %v", s.SubmittedAt, submitted)
	}
	if submitted && (r.studentNumber == nil || r.personID == nil || r.gradeScaleID == nil || r.attainedAt == nil) {
		bad("submitted without a frozen payload")
	}
	if s.State == schedule.StatePartiallyRegistered && s.PartiallyRegisteredAt == nil {
		bad("partially_registered without partially_registered_at")
	}
	switch s.State {
	case schedule.StateFailedRetryable, schedule.StateFailedPermanent:
		if s.FirstFailedAt == nil {
			bad("failed without first_failed_at")
		}
		if s.ErrorCode == "" {
			bad("failed without an error code")
		}
	case schedule.StateSubmissionUncertain:
		if s.ErrorCode != schedule.ErrorSisuTimeout && s.ErrorCode != schedule.ErrorUnknown {
			bad("uncertain with error code %q", s.ErrorCode)
		}
	case schedule.StateMisregistered:
		if !s.NeedsAdminAttention {
			bad("misregistered without the admin flag")
		}
	case schedule.StateNoUsableEnrolment:
		if s.NextAttemptAt.Equal(schedule.Never) != (r.checksStoppedAt != nil) {
			bad("next_attempt_at %v with enrolment_checks_stopped_at %v", s.NextAttemptAt, r.checksStoppedAt)
		}
	}
	if (r.supersededAt != nil) != s.Superseded {
		bad("superseded_at %v without superseded_by_id, or the other way", r.supersededAt)
	}
	if r.pendingSuperseded && s.State != schedule.StateRegistered {
		bad("pending supersession on a %s row", s.State)
	}
	if s.State != schedule.StateNoUsableEnrolment && s.NextAttemptAt.Equal(schedule.Never) {
		bad("parked forever in %s", s.State)
	}
	return out
}
