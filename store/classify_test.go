package store_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// The test in this file is the proof the README promises: for thousands of generated rows at
// several instants, the SQL filters and counts pick exactly the rows schedule.Classify puts in
// each phase and reason. Its raw SQL reaches the store through export_test.go.

// thresholds are the durations the rules compare ages with; generated times cluster around them.
var thresholds = []time.Duration{
	0, schedule.VerifyWindowStart, schedule.VerifyDenseWindowEnd, schedule.VerifyWindowEnd,
	schedule.VerifyMaxAge, schedule.UncertainAdminAfter, schedule.PartialRegistrationAdminAfter,
	schedule.SubmitMaxRetryAge, schedule.SubmittingRecoveryGrace, schedule.ResolvingRecoveryGrace,
	2 * time.Hour, 15 * time.Minute, 24 * time.Hour, 72 * time.Hour,
}

// nearThreshold returns an instant before base by about one of the thresholds, often exactly
// on it or a microsecond or a second either side.
func nearThreshold(r *mrand.Rand, base time.Time) time.Time {
	d := thresholds[r.IntN(len(thresholds))]
	jitters := []time.Duration{0, time.Microsecond, -time.Microsecond, time.Second, -time.Second,
		time.Duration(r.Int64N(int64(time.Hour))) - 30*time.Minute}
	return base.Add(-d + jitters[r.IntN(len(jitters))]).Truncate(time.Microsecond)
}

type genRow struct {
	id                                    string
	state                                 schedule.State
	errorCode                             *string
	flag                                  bool
	superseded                            bool
	stateEnteredAt, stateChangedAt        time.Time
	nextAttemptAt                         time.Time
	firstFailedAt, submittedAt, partialAt *time.Time
	terminalAt                            *time.Time
	resubmitNotBefore                     *time.Time
	retries, polls, reimports             int32
	dismissed                             []string
	// updatedAt is the write's instant; zero is the tests' clock.
	updatedAt time.Time
	// What student_number_stuck reads: the completion's eligibility and date, whether the student
	// has a verified number, and the "I have enrolled" press (nil: none). The code's one enrolment
	// list fetch and one linking email are linkingAt's.
	eligible, numbered bool
	completedAt        time.Time
	pressedAt          *time.Time
}

// linkingAt are the instants of the generated rows' code: account linking began (the Store's
// AccountLinkingSince), its enrolment list's latest fetch that could claim linking mail started,
// and the one linking email on it went out. Presses cluster around fetch − StudentNumberStuckAfterPress
// and the email, where the rule turns.
type linkingAt struct{ since, fetch, email time.Time }

func linkingInstants(base time.Time) linkingAt {
	return linkingAt{since: base.Add(-30 * 24 * time.Hour), fetch: base.Add(-2 * time.Hour), email: base.Add(-5 * time.Hour)}
}

func genRows(r *mrand.Rand, n int, base time.Time) []genRow {
	states := schedule.States()
	codes := schedule.ErrorCodes()
	maybe := func() *time.Time {
		if r.IntN(6) == 0 {
			return nil
		}
		t := nearThreshold(r, base)
		return &t
	}
	out := make([]genRow, n)
	for i := range out {
		g := genRow{
			id:             store.NewID(),
			state:          states[r.IntN(len(states))],
			flag:           r.IntN(3) == 0,
			superseded:     r.IntN(25) == 0,
			stateEnteredAt: nearThreshold(r, base),
			stateChangedAt: nearThreshold(r, base),
			nextAttemptAt:  nearThreshold(r, base.Add(12*time.Hour)),
			firstFailedAt:  maybe(),
			submittedAt:    maybe(),
			partialAt:      maybe(),
			retries:        int32(r.IntN(8)),
			polls:          int32(r.IntN(30)),
			reimports:      int32(r.IntN(5)),
		}
		if r.IntN(20) == 0 {
			g.nextAttemptAt = schedule.Never
		}
		// terminal_at as the pipeline writes it (set in exactly the terminal states), and one row
		// in ten not: the rules read the column, not the state.
		if g.state.IsTerminal() != (r.IntN(10) == 0) {
			t := nearThreshold(r, base)
			g.terminalAt = &t
		}
		if r.IntN(2) == 0 {
			c := string(codes[r.IntN(len(codes))])
			g.errorCode = &c
		}
		if r.IntN(4) == 0 {
			t := nearThreshold(r, base.Add(24*time.Hour))
			g.resubmitNotBefore = &t
		}
		l := linkingInstants(base)
		g.eligible, g.numbered = r.IntN(6) != 0, r.IntN(4) == 0
		g.completedAt = nearThreshold(r, base)
		if r.IntN(6) == 0 {
			g.completedAt = l.since.Add([]time.Duration{-time.Microsecond, 0, -24 * time.Hour}[r.IntN(3)])
		}
		if r.IntN(5) != 0 {
			jitters := []time.Duration{0, time.Microsecond, -time.Microsecond, time.Second, -time.Second}
			at := []time.Time{l.fetch.Add(-schedule.StudentNumberStuckAfterPress), l.email,
				base.Add(-time.Duration(r.Int64N(int64(10 * time.Hour))))}[r.IntN(3)].Add(jitters[r.IntN(len(jitters))])
			g.pressedAt = &at
		}
		if r.IntN(8) == 0 {
			all := schedule.Reasons()
			for _, x := range all {
				if r.IntN(3) == 0 {
					g.dismissed = append(g.dismissed, string(x))
				}
			}
			if len(g.dismissed) == 0 {
				g.dismissed = []string{string(all[r.IntN(len(all))])}
			}
		}
		out[i] = g
	}
	return out
}

// insertGenerated writes rows with their required parents: one course, module and account, two
// students (one with a verified number), and a completion per row, with what student_number_stuck
// reads: each completion's press, the code's roster schedule and one linking email on the course,
// at linking's instants (the Store's AccountLinkingSince must be l.since).
func insertGenerated(ctx context.Context, t *testing.T, s *store.Store, l linkingAt, rows []genRow) {
	t.Helper()
	c := storetest.AddCourse(t, s, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: " TKT10002"})
	numbered := storetest.AddStudent(t, s, storetest.Student{FirstName: "Aino", LastName: "Äijälä", Email: "aino@example.invalid", StudentNumber: "014979622"}).ID
	waiting := storetest.AddStudent(t, s, storetest.Student{FirstName: "Eino", LastName: "Ek", Email: "eino@example.invalid"}).ID
	course, instance, module := c.ID, c.InstanceID, c.ModuleID
	account := storetest.AddStaff(t, s, "Sanna Support", "sanna@example.invalid", "support").LMSUserID
	students := make([]string, len(rows))
	for i, g := range rows {
		students[i] = waiting
		if g.numbered {
			students[i] = numbered
		}
	}
	err := pgx.BeginFunc(ctx, storetest.LMS(t, s), func(q pgx.Tx) error {
		completions := make([][]any, len(rows))
		var routes [][]any
		for i, g := range rows {
			completions[i] = []any{store.NewID(), students[i], course, module, g.completedAt, true, "fi-FI", true, g.eligible,
				"aino@example.invalid", students[i]}
			if g.pressedAt != nil {
				routes = append(routes, []any{completions[i][0], students[i], "university_of_helsinki", *g.pressedAt})
			}
		}
		if _, err := q.CopyFrom(ctx, pgx.Identifier{"course_module_completions"},
			[]string{"id", "user_id", "course_id", "course_module_id", "completion_date", "passed", "completion_language",
				"eligible_for_ects", "prerequisite_modules_completed", "email", "completion_granter_user_id"},
			pgx.CopyFromRows(completions)); err != nil {
			return err
		}
		if _, err := q.CopyFrom(ctx, pgx.Identifier{"credit_registration_enrolment_routes"},
			[]string{"course_module_completion_id", "user_id", "route", "enrolment_confirmed_at"}, pgx.CopyFromRows(routes)); err != nil {
			return err
		}
		// The roster schedule is the trimmed code's, as the LMS keys it.
		if _, err := q.Exec(ctx, `INSERT INTO credit_registration_roster_schedules (course_code, last_mailing_fetch_started_at)
VALUES ('TKT10002', $1)`, l.fetch); err != nil {
			return err
		}
		if _, err := q.Exec(ctx, `INSERT INTO credit_registration_account_linking_emails (student_number, sisu_person_id, course_id, emailed_to, sent_at)
VALUES ('012345678', 'hy-hlo-1', $1, 'someone@example.invalid', $2)`, course, l.email); err != nil {
			return err
		}
		// A superseded row points at another generated row; any other id will do for the rules.
		regs := make([][]any, len(rows))
		for i, g := range rows {
			var supersededBy *string
			var supersededAt *time.Time
			if g.superseded {
				other := rows[(i+1)%len(rows)].id
				supersededBy, supersededAt = &other, &g.stateChangedAt
			}
			updatedAt := any(g.updatedAt)
			if g.updatedAt.IsZero() {
				updatedAt = storetest.Now()
			}
			var registeredAt *time.Time
			if g.state == schedule.StateRegistered {
				registeredAt = &g.stateChangedAt
			}
			regs[i] = []any{g.id, completions[i][0], students[i], course, module, instance, string(g.state), g.errorCode,
				g.flag, supersededBy, supersededAt, g.stateEnteredAt, g.stateChangedAt, g.nextAttemptAt,
				g.firstFailedAt, g.submittedAt, g.partialAt, g.resubmitNotBefore, g.retries, g.polls, g.reimports, registeredAt, g.terminalAt, updatedAt}
		}
		if _, err := q.CopyFrom(ctx, pgx.Identifier{"credit_registrations"},
			[]string{"id", "course_module_completion_id", "user_id", "course_id", "course_module_id", "course_instance_id",
				"state", "error_code", "needs_admin_attention", "superseded_by_id", "superseded_at", "state_entered_at",
				"state_changed_at", "next_attempt_at", "first_failed_at", "submitted_at", "partially_registered_at",
				"resubmit_not_before", "submit_retry_count", "verify_attempt_count", "not_registered_reimport_count", "registered_at",
				"terminal_at", "updated_at"},
			pgx.CopyFromRows(regs)); err != nil {
			return err
		}
		for _, g := range rows {
			if len(g.dismissed) == 0 {
				continue
			}
			if _, err := q.Exec(ctx, `INSERT INTO credit_registration_attention_dismissals
  (id, credit_registration_id, dismissed_reasons, dismissed_by_user_id, reason)
VALUES ($1, $2, $3::text[]::credit_registration_attention_reason[], $4, 'seen')`, store.NewID(), g.id, g.dismissed, account); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("insert generated rows: %v", err)
	}
	storetest.SyncMirror(t, s)
}

func idsWhere(ctx context.Context, t *testing.T, s *store.Store, now time.Time, from, cond string) []string {
	t.Helper()
	ids, err := s.IDsWhereForTest(ctx, now, from, cond)
	if err != nil {
		t.Fatalf("ids where %s: %v", cond, err)
	}
	sort.Strings(ids)
	return ids
}

func diffIDs(got, want []string) (missing, extra []string) {
	for _, id := range want {
		if _, ok := slices.BinarySearch(got, id); !ok {
			missing = append(missing, id)
		}
	}
	for _, id := range got {
		if _, ok := slices.BinarySearch(want, id); !ok {
			extra = append(extra, id)
		}
	}
	return missing, extra
}

func TestClassifySQLAgreesWithSchedule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, facts, base := generatedLedger(t, 11, 4000)

	nows := []time.Time{
		base,
		base.Add(time.Microsecond),
		base.Add(-time.Second),
		base.Add(90 * time.Minute),
		base.Add(26 * time.Hour),
		base.Add(15 * 24 * time.Hour),
	}
	for _, now := range nows {
		t.Run(now.Format(time.RFC3339Nano), func(t *testing.T) {
			wantPhase := map[schedule.Phase][]string{}
			wantReason := map[schedule.Reason][]string{}
			wantStanding := map[schedule.Standing][]string{}
			var wantNeedsAdmin, wantDismissed, withReasons []string
			for id, row := range facts {
				c := schedule.Classify(row, now)
				wantPhase[c.Phase] = append(wantPhase[c.Phase], id)
				if !c.Reasons.Empty() {
					withReasons = append(withReasons, id)
				}
				if !c.Dismissed {
					for _, reason := range c.Reasons.List() {
						wantReason[reason] = append(wantReason[reason], id)
					}
				}
				if c.NeedsAdmin {
					wantNeedsAdmin = append(wantNeedsAdmin, id)
				}
				wantStanding[c.Standing] = append(wantStanding[c.Standing], id)
				if c.Dismissed {
					wantDismissed = append(wantDismissed, id)
				}
			}
			check := func(name string, got, want []string) { t.Helper(); checkIDs(t, name, got, want) }
			for _, p := range schedule.Phases() {
				check("phase "+string(p), idsWhere(ctx, t, st, now, `credit_registrations cr`, store.PhasePredicate(p)), wantPhase[p])
				// The queue's phase filter writes the window's instants as parameters computed in Go
				// (whereBuilder.cutoff), not as the database's $1 − d: it must pick the same rows.
				check("queue filter phase "+string(p), listIDs(ctx, t, st, now, store.RegistrationFilter{Scope: store.AllCourses(), Phases: []schedule.Phase{p}}), wantPhase[p])
			}
			// Every row with a reason must be an attention candidate, or the index would hide it.
			check("candidates ⊇ rows with reasons",
				idsWhere(ctx, t, st, now, store.AttentionFrom, `cardinality(`+store.SQLReasons+`) > 0 AND `+store.SQLAttentionCandidate),
				withReasons)
			for _, reason := range schedule.Reasons() {
				check("reason "+string(reason), idsWhere(ctx, t, st, now, store.AttentionFrom,
					store.SQLAttentionCandidate+` AND `+store.ReasonPredicate(reason)+` AND NOT `+store.SQLDismissed), wantReason[reason])
				// The queue's reason filter, as a person uses it (without the attention-candidate
				// condition for a reason that implies it), must pick the same rows.
				check("queue filter reason "+string(reason), listIDs(ctx, t, st, now, store.RegistrationFilter{Scope: store.AllCourses(), Reasons: []schedule.Reason{reason}}), wantReason[reason])
			}
			for _, s := range schedule.Standings() {
				check("queue filter standing "+string(s), listIDs(ctx, t, st, now, store.RegistrationFilter{Scope: store.AllCourses(), Standings: []schedule.Standing{s}}), wantStanding[s])
			}
			// student_number_stuck with rows on both sides of it: stuck, and pending rows whose
			// student pressed and waits for a number but is not (mailed since, or fetched too soon).
			var pressedNotStuck int
			for _, row := range facts {
				if row.State == schedule.StatePending && row.Linking.AwaitsStudentNumber && row.Linking.PressedAt != nil &&
					!schedule.Classify(row, now).Reasons.Has(schedule.ReasonStudentNumberStuck) {
					pressedNotStuck++
				}
			}
			if len(wantReason[schedule.ReasonStudentNumberStuck]) == 0 || pressedNotStuck == 0 {
				t.Errorf("the generator reaches %d rows stuck waiting for a student number and %d pressed but not stuck; want some of each",
					len(wantReason[schedule.ReasonStudentNumberStuck]), pressedNotStuck)
			}
			if len(wantStanding[schedule.StandingRunningLate]) == 0 || len(wantStanding[schedule.StandingNeedsAttention]) == 0 || len(wantStanding[schedule.StandingDismissed]) == 0 {
				t.Errorf("the generator no longer reaches every standing: %d running late, %d needing attention, %d dismissed",
					len(wantStanding[schedule.StandingRunningLate]), len(wantStanding[schedule.StandingNeedsAttention]), len(wantStanding[schedule.StandingDismissed]))
			}
			checkRowsStandAsListed(ctx, t, st, now, len(facts), wantStanding)
			check("needs admin", idsWhere(ctx, t, st, now, store.AttentionFrom, store.SQLAttentionCandidate+` AND `+store.SQLNeedsAdmin), wantNeedsAdmin)
			check("dismissed", idsWhere(ctx, t, st, now, store.AttentionFrom, store.SQLAttentionCandidate+` AND `+store.SQLDismissed), wantDismissed)

			counts, err := st.RegistrationCountsGet(ctx, now, store.AllCourses())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range schedule.Phases() {
				if got, want := counts.Phases[p], int64(len(wantPhase[p])); got != want {
					t.Errorf("RegistrationCountsGet().Phases[%s] = %d, want %d", p, got, want)
				}
			}
			for _, reason := range schedule.Reasons() {
				if got, want := counts.Reasons[reason], int64(len(wantReason[reason])); got != want {
					t.Errorf("RegistrationCountsGet().Reasons[%s] = %d, want %d", reason, got, want)
				}
			}
			if got, want := counts.NeedsAdmin, int64(len(wantNeedsAdmin)); got != want {
				t.Errorf("RegistrationCountsGet().NeedsAdmin = %d, want %d", got, want)
			}
			if got, want := counts.Dismissed, int64(len(wantDismissed)); got != want {
				t.Errorf("RegistrationCountsGet().Dismissed = %d, want %d", got, want)
			}
			if got, want := counts.RunningLate, int64(len(wantStanding[schedule.StandingRunningLate])); got != want {
				t.Errorf("RegistrationCountsGet().RunningLate = %d, want %d", got, want)
			}
		})
	}
}

// listIDs returns the sorted ids of the queue's list for f at now, every page at once.
func listIDs(ctx context.Context, t *testing.T, st *store.Store, now time.Time, f store.RegistrationFilter) []string {
	t.Helper()
	list, _, err := st.RegistrationList(ctx, now, f, nil, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(list))
	for _, row := range list {
		ids = append(ids, row.ID)
	}
	sort.Strings(ids)
	return ids
}

// checkRowsStandAsListed holds what the pages show of a row (its Status, read with the blocking
// problems bearing on it) to want, the ids of each standing: every listed row, and the
// registration page of one row of each standing, which also names its problem exactly when it
// stands explained. n is how many rows the ledger has.
func checkRowsStandAsListed(ctx context.Context, t *testing.T, st *store.Store, now time.Time, n int, want map[schedule.Standing][]string) {
	t.Helper()
	all, _, err := st.RegistrationList(ctx, now, store.RegistrationFilter{Scope: store.AllCourses()}, nil, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	wantOf := map[string]schedule.Standing{}
	for s, ids := range want {
		for _, id := range ids {
			wantOf[id] = s
		}
	}
	var differ []string
	for _, row := range all {
		if got := row.Status(now).Standing; got != wantOf[row.ID] {
			differ = append(differ, fmt.Sprintf("%s: %q, schedule %q", row.ID, got, wantOf[row.ID]))
		}
	}
	if len(all) < n/2 || len(differ) > 0 {
		t.Errorf("of %d listed rows, %d stand elsewhere by their Status than by schedule.ClassifyWith: %v", len(all), len(differ), first(differ))
	}
	// The teachers' pages (a course's rows) classify them the same way.
	rows, err := st.Pool().Query(ctx, `SELECT DISTINCT course_id::text FROM ledger_mirror`)
	if err != nil {
		t.Fatal(err)
	}
	courses, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	seen, differ := 0, nil
	for _, course := range courses {
		list, err := st.RegistrationListByCourse(ctx, now, course, store.AllCourses(), 10_000)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range list {
			seen++
			if got := row.Status(now).Standing; got != wantOf[row.ID] {
				differ = append(differ, fmt.Sprintf("%s: %q, schedule %q", row.ID, got, wantOf[row.ID]))
			}
		}
	}
	if seen < n/2 || len(differ) > 0 {
		t.Errorf("of %d rows on the courses' pages, %d stand elsewhere than by schedule.ClassifyWith: %v", seen, len(differ), first(differ))
	}
	for _, s := range append(schedule.Standings(), "") {
		ids := want[s]
		if len(ids) == 0 {
			continue
		}
		page, err := st.RegistrationPageGet(ctx, now, ids[0], store.AllCourses())
		if err != nil {
			t.Fatal(err)
		}
		if got := page.Status(now).Standing; got != s {
			t.Errorf("registration page of %s stands %q, schedule %q", ids[0], got, s)
		}
		if _, named := page.BlockingProblem(now); named != (s == schedule.StandingExplainedByProblem) {
			t.Errorf("registration page of %s (standing %q) names a blocking problem: %v", ids[0], s, named)
		}
	}
}

// checkIDs fails t when the ids the SQL picked (got) are not the ids schedule picks (want).
func checkIDs(t *testing.T, name string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if missing, extra := diffIDs(got, want); len(missing)+len(extra) > 0 {
		t.Errorf("%s: SQL misses %d rows schedule picks (e.g. %v) and picks %d it does not (e.g. %v)",
			name, len(missing), first(missing), len(extra), first(extra))
	}
}

func first(ids []string) []string {
	if len(ids) > 3 {
		return ids[:3]
	}
	return ids
}

// TestClassifySQLAgreesWithScheduleUnderBlockingProblems is the agreement above with the LMS's
// three kinds of blocking problem in force at once: the verify phase paused, the rows' course code
// failing its enrolment-list fetches, and their module's configuration check failing. The SQL's
// standings, the needs-a-person list and the counts must pick exactly the rows
// schedule.ClassifyWith does: a row one problem accounts for is explained, not on the queue, as on
// the LMS's Needs attention queue.
func TestClassifySQLAgreesWithScheduleUnderBlockingProblems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, facts, base := generatedLedger(t, 12, 3000)
	var module, code string
	if err := st.Pool().QueryRow(ctx, `SELECT id::text, trim(uh_course_code) FROM course_modules`).Scan(&module, &code); err != nil {
		t.Fatal(err)
	}
	storetest.LMSExecNoSync(t, st, `UPDATE credit_registration_phase_state SET paused_at = now(), pause_reason = 'Suotar maintenance' WHERE phase = 'verify'`)
	storetest.LMSExecNoSync(t, st, `UPDATE credit_registration_roster_schedules SET consecutive_failures = 3 WHERE trim(course_code) = $1`, code)
	storetest.LMSExecNoSync(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, config_check_message)
VALUES ($1, now(), false, 'courseNotAllowed')`, module)
	problems := &schedule.BlockingProblems{
		StoppedPhases:          []schedule.StoppedPhase{{Phase: "verify", OwnedStates: schedule.PhaseOwnedStates("verify")}},
		FailingCourseCodes:     []string{code},
		MisconfiguredModuleIDs: []string{module},
	}

	for _, now := range []time.Time{base, base.Add(26 * time.Hour), base.Add(15 * 24 * time.Hour)} {
		t.Run(now.Format(time.RFC3339Nano), func(t *testing.T) {
			wantStanding := map[schedule.Standing][]string{}
			var wantNeedsAdmin []string
			for id, row := range facts {
				row.CourseModuleID, row.CourseCode = module, code
				c := schedule.ClassifyWith(row, now, problems)
				wantStanding[c.Standing] = append(wantStanding[c.Standing], id)
				if c.NeedsAdmin {
					wantNeedsAdmin = append(wantNeedsAdmin, id)
				}
			}
			check := func(name string, got, want []string) { t.Helper(); checkIDs(t, name, got, want) }
			if len(wantStanding[schedule.StandingExplainedByProblem]) == 0 {
				t.Fatal("no row is explained by a problem: the scenario tests nothing")
			}
			for _, s := range schedule.Standings() {
				check("standing "+string(s), listIDs(ctx, t, st, now, store.RegistrationFilter{Scope: store.AllCourses(), Standings: []schedule.Standing{s}}), wantStanding[s])
			}
			checkRowsStandAsListed(ctx, t, st, now, len(facts), wantStanding)
			check("needs admin", idsWhere(ctx, t, st, now, store.AttentionFrom, store.SQLAttentionCandidate+` AND `+store.SQLNeedsAdmin), wantNeedsAdmin)
			check("the queue's needs-a-person list", listIDs(ctx, t, st, now, store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true}), wantNeedsAdmin)
			counts, err := st.RegistrationCountsGet(ctx, now, store.AllCourses())
			if err != nil {
				t.Fatal(err)
			}
			for name, pair := range map[string][2]int64{
				"NeedsAdmin":  {counts.NeedsAdmin, int64(len(wantNeedsAdmin))},
				"RunningLate": {counts.RunningLate, int64(len(wantStanding[schedule.StandingRunningLate]))},
				"Dismissed":   {counts.Dismissed, int64(len(wantStanding[schedule.StandingDismissed]))},
				"Explained":   {counts.Explained, int64(len(wantStanding[schedule.StandingExplainedByProblem]))},
			} {
				if pair[0] != pair[1] {
					t.Errorf("RegistrationCountsGet().%s = %d, want %d", name, pair[0], pair[1])
				}
			}
		})
	}
}

// generatedLedger writes n generated rows (genRows, seeded by seed) around base into a database
// of the test's own with account linking on, and returns it with the rows as schedule reads them.
func generatedLedger(t *testing.T, seed uint64, n int) (*store.Store, map[string]schedule.Row, time.Time) {
	t.Helper()
	ctx := context.Background()
	base := storetest.Now().Add(-45*time.Minute - 33*time.Second + 123456*time.Microsecond)
	linking := linkingInstants(base)
	st, _ := storetest.NewWithURL(t, storetest.Options{AccountLinkingSince: &linking.since})
	insertGenerated(ctx, t, st, linking, genRows(mrand.New(mrand.NewPCG(2026, seed)), n, base))
	facts, err := st.ScheduleRowsForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st, facts, base
}
