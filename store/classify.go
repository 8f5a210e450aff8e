package store

import (
	"fmt"
	"strings"
	"time"

	"regdesk/schedule"
)

// This file mirrors schedule.Classify in SQL, so filters and counts run in the database on a
// million rows instead of in Go. The rules are schedule's; the numbers below come from its
// constants; TestClassifySQLAgreesWithSchedule proves the two agree on generated rows.
//
// Every expression reads the row as "cr", the live dismissal as "d" (LEFT JOIN), and the current
// instant as the query's $1. Whole-second window rules (schedule's "inclusive, truncated to whole
// seconds") are written as plain comparisons: for a window of whole seconds W and an age A > 0,
// trunc(A) >= W exactly when A >= W.

// interval renders d as a PostgreSQL interval literal in microseconds, the database's precision,
// so no calendar arithmetic (days, months) can creep in.
func interval(d time.Duration) string {
	return fmt.Sprintf("interval '%d microseconds'", d.Microseconds())
}

// quoteList renders values as a SQL list of string literals; only schedule's own constants reach it.
func quoteList[T ~string](vals ...T) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
	}
	return strings.Join(parts, ", ")
}

var (
	verificationStates = func() []schedule.State {
		var out []schedule.State
		for _, s := range schedule.States() {
			if s.InVerification() {
				out = append(out, s)
			}
		}
		return out
	}()
)

const liveSQL = `cr.deleted_at IS NULL`

// sqlInVerification is true for rows the verify phase owns.
var sqlInVerification = `cr.state IN (` + quoteList(verificationStates...) + `)`

// cutoff is the instant d before now: a scalar subquery, which PostgreSQL runs once per query as
// an init plan, so no row recomputes it and an index can compare against it. (A plain
// "$1 - interval" is evaluated for every row: timestamptz arithmetic is not immutable.)
func cutoff(d time.Duration) string {
	return `(SELECT $1::timestamptz - ` + interval(d) + `)`
}

// reasonStates are the states some reason picks by state alone (or with a time), and
// resolving_enrolment, whose recovery grace is an escalation (schedule.Status.EscalatesAt) the
// health rules read from the candidates; every other row needs the pipeline's flag, the
// retry-window code, a high counter or a student stuck waiting for a number (sqlLinkingStuck) to
// carry a reason. The agreement test proves no reason escapes this set.
var reasonStates = []schedule.State{
	schedule.StateSubmissionUncertain, schedule.StatePartiallyRegistered, schedule.StateAwaitingVerification,
	schedule.StateMisregistered, schedule.StateSubmitting, schedule.StateResolvingEnrolment,
	schedule.StateFailedRetryable, schedule.StateReadyToSubmit,
}

// sqlOpen is the LMS's "still the pipeline's" test: terminal_at, not the state (attention.rs).
const sqlOpen = `cr.terminal_at IS NULL`

// sqlAttentionCandidate is true for every row a reason can pick: a few per cent of the ledger.
// idx_ledger_mirror_attention_covering and idx_ledger_mirror_waiting have exactly this predicate
// (migration 0006), so the queue's reasons never scan the ledger. A pending row is a candidate only
// when it is stuck waiting for a student number (sqlLinkingStuck): pending rows are a twentieth of
// the ledger, the stuck ones a handful.
var sqlAttentionCandidate = `cr.superseded_by_id IS NULL AND (cr.state IN (` + quoteList(reasonStates...) + `)` +
	` OR cr.needs_admin_attention OR cr.error_code = 'retry_window_expired'` +
	fmt.Sprintf(` OR ((cr.submit_retry_count >= %d OR cr.not_registered_reimport_count >= %d) AND `,
		schedule.TooManySubmitRetries, schedule.NotRegisteredReimportAdminThreshold) + sqlOpen + `)` +
	` OR (cr.state = 'pending' AND ` + sqlLinkingStuck + `))`

// phasePredicate returns a condition true for the rows in phase p. The verification windows are
// ranges of submitted_at, so idx_credit_registrations_verification serves them.
func phasePredicate(p schedule.Phase) string { return phaseCondition(p, cutoff) }

// phaseCondition is phasePredicate with the instants d before now written by cut: cutoff's init
// plan for the counts, where every window has its own index, or a parameter for the list, whose
// planner must see the instant to know how few rows a window holds (see whereBuilder.cutoff).
func phaseCondition(p schedule.Phase, cut func(time.Duration) string) string {
	notSuperseded := `cr.superseded_by_id IS NULL AND `
	verif := notSuperseded + sqlInVerification + ` AND `
	after := func(d time.Duration) string { return `cr.submitted_at > ` + cut(d) }
	atOrBefore := func(d time.Duration) string { return `cr.submitted_at <= ` + cut(d) }
	switch p {
	case schedule.PhaseSuperseded:
		return `cr.superseded_by_id IS NOT NULL`
	case schedule.PhaseWaiting:
		return verif + after(schedule.VerifyWindowStart)
	case schedule.PhaseDenseWindow:
		// No submission time, or submitted between the window's two ends: with NULL read as
		// infinity, one range of idx_credit_registrations_verification_due (migration 0024) from
		// the far end up, less the rows submitted since the near end. As an OR of the two, the
		// count walked the submitted_at index from its oldest entry.
		return verif + `coalesce(cr.submitted_at, 'infinity'::timestamptz) > ` + cut(schedule.VerifyDenseWindowEnd) +
			` AND (cr.submitted_at IS NULL OR ` + atOrBefore(schedule.VerifyWindowStart) + `)`
	case schedule.PhaseLateWindow:
		return verif + atOrBefore(schedule.VerifyDenseWindowEnd) + ` AND ` + after(schedule.VerifyWindowEnd)
	case schedule.PhaseBackingOff:
		return verif + atOrBefore(schedule.VerifyWindowEnd) + ` AND ` + after(schedule.VerifyMaxAge)
	case schedule.PhasePastGiveUpAge:
		return verif + atOrBefore(schedule.VerifyMaxAge)
	}
	states := statesOfPhase(p)
	if len(states) == 0 {
		return `false`
	}
	return notSuperseded + `cr.state IN (` + quoteList(states...) + `)`
}

// statesOfPhase lists the states that classify as p outside verification and supersession, found
// by asking schedule itself, so a new state mapping needs no edit here.
func statesOfPhase(p schedule.Phase) []schedule.State {
	var out []schedule.State
	var zero time.Time
	for _, s := range schedule.States() {
		if s.InVerification() {
			continue
		}
		if schedule.Classify(schedule.Row{State: s}, zero).Phase == p {
			out = append(out, s)
		}
	}
	return out
}

// sqlLinkingStuck is student_number_stuck on a pending row, schedule.LinkingFacts' rule over the
// facts regdesk's copy of the ledger derives from the LMS's tables when it copies a row
// (linkingFactsJoin, store/ledger_mirror.go): the student awaits a number, pressed "I have
// enrolled", a fetch of the code's enrolment list started StudentNumberStuckAfterPress or more after
// the press, and no linking email has gone out on the code since the press (attention.rs,
// get_attention_items). The facts are copied rather than joined at read time because the counts
// read every candidate from one index (idx_ledger_mirror_attention_covering, which includes them),
// and the joins (preconditions, press, roster schedule, linking emails) would cost five lookups for
// each of a million-row ledger's fifty thousand pending rows on every count. The difference of two
// instants, not "pressed + interval", because an index predicate takes only immutable expressions.
var sqlLinkingStuck = linkingStuck("cr")

// linkingStuck is sqlLinkingStuck over the copy's row a.
func linkingStuck(a string) string {
	return a + `.linking_awaits AND NOT ` + a + `.linking_email_since_press AND ` +
		a + `.linking_fetch_started_at - ` + a + `.linking_pressed_at >= ` + interval(schedule.StudentNumberStuckAfterPress)
}

// sqlStudentNumberStuck is student_number_stuck's condition (schedule.ReasonStudentNumberStuck).
var sqlStudentNumberStuck = `cr.state = 'pending' AND ` + sqlLinkingStuck

// reasonConditions are the conditions of schedule's reasons, in schedule.Reasons() order, except
// flagged_by_pipeline, which is "the flag is up and no other reason applies" (reasonPredicate
// builds it). They are attention.rs's detectors. cond is the whole condition, written so the
// planner sees the states a partial index matches; at holds the same condition once the row's
// state is known, for every state in which it can hold ("" for "the state alone"), nil for a
// condition of any state. The counts' reason mask (sqlReasonMask) reads at; the agreement test
// proves the two forms pick the same rows.
var reasonConditions = []struct {
	reason schedule.Reason
	cond   string
	at     map[schedule.State]string
}{
	{schedule.ReasonStuckInState, stuckCondition(cutoff), eachState(stuckStates(), func(s schedule.State) string {
		d, _ := schedule.StuckThreshold(s)
		return sqlOpen + ` AND cr.state_changed_at < ` + cutoff(d)
	})},
	{schedule.ReasonPermanentError,
		`cr.state = 'failed_permanent' AND cr.needs_admin_attention AND cr.error_code IS DISTINCT FROM 'retry_window_expired'`,
		map[schedule.State]string{schedule.StateFailedPermanent: `cr.needs_admin_attention AND cr.error_code IS DISTINCT FROM 'retry_window_expired'`}},
	{schedule.ReasonRetryWindowExpired, `cr.error_code = 'retry_window_expired'`, nil},
	{schedule.ReasonMisregistered,
		`cr.state = 'misregistered'`,
		map[schedule.State]string{schedule.StateMisregistered: ``}},
	{schedule.ReasonTooManyAttempts,
		fmt.Sprintf(`cr.submit_retry_count >= %d AND `, schedule.TooManySubmitRetries) + sqlOpen, nil},
	{schedule.ReasonOutcomeUncertain,
		`cr.state = 'submission_uncertain'`,
		map[schedule.State]string{schedule.StateSubmissionUncertain: ``}},
	{schedule.ReasonPartlyRegisteredOverdue,
		`cr.state = 'partially_registered' AND cr.partially_registered_at <= ` + cutoff(schedule.PartialRegistrationAdminAfter),
		map[schedule.State]string{schedule.StatePartiallyRegistered: `cr.partially_registered_at <= ` + cutoff(schedule.PartialRegistrationAdminAfter)}},
	{schedule.ReasonVerificationGaveUp,
		`cr.state IN (` + quoteList(givingUpStates...) + `) AND cr.submitted_at <= ` + cutoff(schedule.VerifyMaxAge),
		eachState(givingUpStates, func(schedule.State) string { return `cr.submitted_at <= ` + cutoff(schedule.VerifyMaxAge) })},
	{schedule.ReasonRepeatedlyNotRegistered,
		fmt.Sprintf(`cr.not_registered_reimport_count >= %d AND `, schedule.NotRegisteredReimportAdminThreshold) + sqlOpen, nil},
	{schedule.ReasonStudentNumberStuck, sqlStudentNumberStuck,
		map[schedule.State]string{schedule.StatePending: sqlLinkingStuck}},
}

// givingUpStates are the states verification_gave_up picks: the two verify polls, not
// submission_uncertain, which outcome_uncertain has already.
var givingUpStates = []schedule.State{schedule.StateAwaitingVerification, schedule.StatePartiallyRegistered}

// eachState maps every state of states to cond(state).
func eachState(states []schedule.State, cond func(schedule.State) string) map[schedule.State]string {
	out := make(map[schedule.State]string, len(states))
	for _, s := range states {
		out[s] = cond(s)
	}
	return out
}

// stuckStates are the states that have a stuck threshold.
func stuckStates() []schedule.State {
	var out []schedule.State
	for _, s := range schedule.States() {
		if _, ok := schedule.StuckThreshold(s); ok {
			out = append(out, s)
		}
	}
	return out
}

// sqlReasonMask is an integer whose bit i is set when reasonConditions[i] holds (flagged_by_pipeline
// is not in it: it needs the other reasons, so reasonMaskSet derives it). A CASE on the state
// tests only the conditions that can hold in the row's state, so a row tests two or three, not
// all of them: a FILTER per reason tested every condition on every attention candidate, and the
// needs-admin count all of them again, 18 ms of expression evaluation at a million rows. A
// condition that is constantly false is left out.
var sqlReasonMask = func() string {
	var anyState []string
	byState := map[schedule.State][]string{}
	for i, rc := range reasonConditions {
		if rc.cond == `false` {
			continue
		}
		if rc.at == nil {
			anyState = append(anyState, fmt.Sprintf(`CASE WHEN %s THEN %d ELSE 0 END`, rc.cond, 1<<i))
			continue
		}
		for s, cond := range rc.at {
			if cond == `` {
				byState[s] = append(byState[s], fmt.Sprint(1<<i))
			} else {
				byState[s] = append(byState[s], fmt.Sprintf(`CASE WHEN %s THEN %d ELSE 0 END`, cond, 1<<i))
			}
		}
	}
	var whens []string
	for _, s := range schedule.States() {
		if terms := byState[s]; len(terms) > 0 {
			whens = append(whens, `WHEN '`+string(s)+`' THEN `+strings.Join(terms, ` | `))
		}
	}
	return `(CASE cr.state ` + strings.Join(whens, "\n    ") + ` ELSE 0 END | ` + strings.Join(anyState, ` | `) + `)`
}()

// reasonMaskSet reads a row's reasons from its sqlReasonMask and its pipeline flag, as
// schedule.Classify would (before dismissals): the flag is its own reason when no other applies.
func reasonMaskSet(mask int64, flagged bool) schedule.ReasonSet {
	var set schedule.ReasonSet
	for i, rc := range reasonConditions {
		if mask&(1<<i) != 0 {
			set |= schedule.ReasonSetOf(rc.reason)
		}
	}
	if flagged && set.Empty() {
		set |= schedule.ReasonSetOf(schedule.ReasonFlaggedByPipeline)
	}
	return set
}

// stuckCondition is stuck_in_state's condition: terminal_at NULL and strictly past the state's
// threshold (attention.rs: now - state_changed_at > threshold), each instant written by cut
// (cutoff's init plan, or the list's parameter).
func stuckCondition(cut func(time.Duration) string) string {
	var parts []string
	for _, s := range stuckStates() {
		d, _ := schedule.StuckThreshold(s)
		parts = append(parts, fmt.Sprintf(`(cr.state = '%s' AND cr.state_changed_at < %s)`, s, cut(d)))
	}
	if len(parts) == 0 {
		return `false`
	}
	return sqlOpen + ` AND (` + strings.Join(parts, ` OR `) + `)`
}

// sqlAnyDetector is true when a reason other than the flag's own applies; sqlPersonLevelDetector
// when a person-level one does (every one but stuck_in_state).
var (
	sqlAnyDetector         = reasonsWhere(func(schedule.Reason) bool { return true })
	sqlPersonLevelDetector = reasonsWhere(schedule.Reason.PersonLevel)
	sqlStuck               = reasonsWhere(func(r schedule.Reason) bool { return r == schedule.ReasonStuckInState })
)

func reasonsWhere(keep func(schedule.Reason) bool) string {
	var ors []string
	for _, rc := range reasonConditions {
		if keep(rc.reason) && rc.cond != `false` {
			ors = append(ors, `(`+rc.cond+`)`)
		}
	}
	if len(ors) == 0 {
		return `false`
	}
	return `coalesce(` + strings.Join(ors, ` OR `) + `, false)`
}

// sqlPersonLevel is true when the row carries a person-level reason, dismissals aside: a
// person-level detector, or the flag alone (flagged_by_pipeline), which stuck_in_state too
// explains.
var sqlPersonLevel = `(` + sqlPersonLevelDetector + ` OR (cr.needs_admin_attention AND NOT ` + sqlStuck + `))`

// sqlFlagCandidate is true for a flagged row that no reason decided by its columns alone explains
// (permanent_error, retry_window_expired, misregistered, too_many_attempts, outcome_uncertain,
// repeatedly_not_registered): flagged_by_pipeline's condition implies it, and written beside that
// condition it lets the planner walk idx_ledger_mirror_flag_candidates (migration 0010), the 950
// rows at a million the reason can pick, instead of fetching all 5,700 flagged ones (30 ms). The
// index's predicate must stay this one.
var sqlFlagCandidate = fmt.Sprintf(`cr.needs_admin_attention AND cr.state NOT IN ('failed_permanent', 'misregistered', 'submission_uncertain')
  AND cr.error_code IS DISTINCT FROM 'retry_window_expired'
  AND NOT (cr.submit_retry_count >= %d AND cr.terminal_at IS NULL)
  AND NOT (cr.not_registered_reimport_count >= %d AND cr.terminal_at IS NULL)`,
	schedule.TooManySubmitRetries, schedule.NotRegisteredReimportAdminThreshold)

// reasonPredicate returns the condition of reason r, on attention candidates. It may be NULL
// where a compared column is: callers use it only where NULL counts as false (WHERE, FILTER,
// CASE WHEN), never under NOT. It is left bare so the planner sees "state = 'misregistered'"
// and can use the partial index that matches it; a coalesce around it hides the condition.
func reasonPredicate(r schedule.Reason) string {
	if r == schedule.ReasonFlaggedByPipeline {
		return `(` + sqlFlagCandidate + ` AND NOT ` + sqlAnyDetector + `)`
	}
	for _, rc := range reasonConditions {
		if rc.reason == r {
			return `(` + rc.cond + `)`
		}
	}
	return `false`
}

// sqlReasons is an expression giving the row's reasons as text[], in schedule.Reasons() order.
// Only the dismissal check builds it, and only for rows that have a dismissal.
var sqlReasons = func() string {
	cases := make([]string, 0, len(schedule.Reasons()))
	for _, r := range schedule.Reasons() {
		cases = append(cases, `CASE WHEN `+reasonPredicate(r)+` THEN '`+string(r)+`' END`)
	}
	return `array_remove(ARRAY[` + strings.Join(cases, ",\n  ") + `]::text[], NULL)`
}()

// attentionFrom is the FROM clause of the reason filters and counts: the ledger ("cr") with each
// row's live dismissal ("d").
var attentionFrom = `ledger_mirror cr
  LEFT JOIN credit_registration_attention_dismissals d
    ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL`

// sqlDismissed is true when reasons apply and the live dismissal covers every one of them. The
// CASE keeps rows without a dismissal (nearly all) from building their reasons at all.
var sqlDismissed = `(CASE WHEN d.dismissed_reasons IS NULL THEN false ELSE (SELECT cardinality(x.r) > 0 AND x.r <@ d.dismissed_reasons::text[]
  FROM (SELECT ` + sqlReasons + ` AS r) x) END)`

// The blocking problems of the LMS's Needs attention queue, read from the LMS's tables by each
// statement once (scalar subqueries, which PostgreSQL runs as init plans), at $1 (attention.rs
// BlockingProblems, gathered by the LMS's attention_rules for every count it takes):
//
//   - a stopped phase: a live credit_registration_phase_state row of a phase the LMS knows,
//     paused, or whose heartbeat is late (schedule.HeartbeatLate: more than
//     PhaseHeartbeatIntervalMultiplier intervals in whole seconds; never one that never beat);
//   - a failing course code: a roster schedule with consecutive_failures above 0, matched to a
//     row through its module's code now, trimmed;
//   - a misconfigured module: a live module with credit registration on whose live configuration
//     the last check left a message.
var (
	sqlStoppedPhases  = stoppedPhasesAt("$1")
	sqlFailingModules = `SELECT cm.id FROM course_modules cm
    JOIN credit_registration_roster_schedules rs ON trim(rs.course_code) = trim(cm.uh_course_code)
    WHERE rs.consecutive_failures > 0 AND trim(cm.uh_course_code) <> ''`
	sqlMisconfiguredModules = `SELECT m.id FROM course_module_suotar_configurations conf
    JOIN course_modules m ON m.id = conf.course_module_id
    WHERE m.enable_credit_registration_via_suotar AND m.deleted_at IS NULL AND conf.deleted_at IS NULL
      AND conf.config_checked_at IS NOT NULL AND conf.config_check_message IS NOT NULL`
)

// stoppedPhasesAt selects the stopped phases' names at now, a parameter such as "$1".
func stoppedPhasesAt(now string) string {
	return `SELECT ps.phase FROM credit_registration_phase_state ps
    WHERE ps.deleted_at IS NULL AND ps.phase IN (` + quoteList(schedule.PipelinePhases()...) + `)
      AND (ps.paused_at IS NOT NULL OR (ps.last_heartbeat_at IS NOT NULL
        AND trunc(extract(epoch FROM (` + now + `::timestamptz - ps.last_heartbeat_at))) > ps.expected_interval_secs * ` +
		fmt.Sprint(schedule.PhaseHeartbeatIntervalMultiplier) + `))`
}

// ProblemColumns are the blocking problems that bear on one row, read with it in the statement
// that reads the row (problemColumns), so a row's page and a list's rows stand where the queue's
// SQL puts them (sqlExplained): the stopped phases, the row's module's course code when that code
// is failing, and the row's module when it is misconfigured.
type ProblemColumns struct {
	ProblemPhases []string `db:"problem_phases"`
	ProblemCode   string   `db:"problem_code"`
	ProblemModule string   `db:"problem_module"`
}

// problemColumns selects ProblemColumns for cr and its module m at now, a parameter such as "$1".
// Each list is an init plan, read once per statement.
func problemColumns(now string) string {
	return `ARRAY(` + stoppedPhasesAt(now) + ` ORDER BY 1) AS problem_phases,
  CASE WHEN cr.course_module_id = ANY(ARRAY(` + sqlFailingModules + `)) THEN trim(m.uh_course_code) ELSE '' END AS problem_code,
  CASE WHEN cr.course_module_id = ANY(ARRAY(` + sqlMisconfiguredModules + `)) THEN cr.course_module_id::text ELSE '' END AS problem_module`
}

// Problems are the blocking problems p names, as schedule.ClassifyWith reads them; nil when none
// bears on the row.
func (p ProblemColumns) Problems() *schedule.BlockingProblems {
	if len(p.ProblemPhases) == 0 && p.ProblemCode == "" && p.ProblemModule == "" {
		return nil
	}
	var out schedule.BlockingProblems
	for _, ph := range p.ProblemPhases {
		out.StoppedPhases = append(out.StoppedPhases, schedule.StoppedPhaseNamed(ph))
	}
	if p.ProblemCode != "" {
		out.FailingCourseCodes = []string{p.ProblemCode}
	}
	if p.ProblemModule != "" {
		out.MisconfiguredModuleIDs = []string{p.ProblemModule}
	}
	return &out
}

// classify is schedule.ClassifyWith of row at now under the problems p names.
func (p ProblemColumns) classify(row schedule.Row, now time.Time) schedule.Status {
	return schedule.ClassifyWith(p.matched(row), now, p.Problems())
}

// matched is row carrying the module and code p's problems are matched by.
func (p ProblemColumns) matched(row schedule.Row) schedule.Row {
	row.CourseModuleID, row.CourseCode = p.ProblemModule, p.ProblemCode
	return row
}

// Classified is a row as every screen classifies it: the columns schedule reads and the blocking
// problems read with them in the same statement, so a list's row, a page and the queue's SQL put
// it in the same standing.
type Classified struct {
	ScheduleColumns
	ProblemColumns
}

// Status is where the row stands at now, under the blocking problems read with it.
func (c Classified) Status(now time.Time) schedule.Status {
	return c.ProblemColumns.classify(c.ScheduleRow(), now)
}

// StudentView is schedule.StudentView of the row at now under the blocking problems read with it:
// a row a problem explains waits on what the problem holds up, not on support.
func (c Classified) StudentView(pre schedule.Preconditions, now time.Time) schedule.StudentSummary {
	return schedule.StudentViewWith(c.matched(c.ScheduleRow()), pre, now, c.Problems())
}

// BlockingProblem is the problem that explains the row at now, if one does.
func (c Classified) BlockingProblem(now time.Time) (schedule.BlockingProblem, bool) {
	row := c.matched(c.ScheduleRow())
	st := schedule.ClassifyWith(row, now, c.Problems())
	if st.Standing != schedule.StandingExplainedByProblem {
		return schedule.BlockingProblem{}, false
	}
	return c.Problems().Explaining(&row, st.Reasons)
}

// ownedStatesOf is a SQL text[] of the states the stopped phases keep (schedule.PhaseOwnedStates),
// of those whose names pass keep.
func ownedStatesOf(keep func(phase string) bool) string {
	var pairs []string
	for _, ph := range schedule.PipelinePhases() {
		if !keep(ph) {
			continue
		}
		for _, st := range schedule.PhaseOwnedStates(ph) {
			pairs = append(pairs, `(`+quoteList(ph)+`, `+quoteList(st)+`)`)
		}
	}
	if len(pairs) == 0 {
		return `'{}'::text[]`
	}
	return `ARRAY(SELECT o.state FROM (VALUES ` + strings.Join(pairs, ", ") + `) o(phase, state)
    WHERE o.phase IN (` + sqlStoppedPhases + `))`
}

// configErrorCodes are the codes a misconfigured module explains: they wait for the course's
// setup (schedule.PermanentNeedsConfig).
var configErrorCodes = func() []schedule.ErrorCode {
	var out []schedule.ErrorCode
	for _, c := range schedule.ErrorCodes() {
		if c.Class() == schedule.PermanentNeedsConfig {
			out = append(out, c)
		}
	}
	return out
}()

// sqlExplained is true when one blocking problem accounts for every reason the row carries
// (schedule.BlockingProblems.Explaining, attention.rs blocking_problem), reading the reasons from
// the row's sqlReasonMask: a stopped phase explains stuck_in_state in a state it keeps, and
// student_number_stuck when it sends linking e-mail; a failing code explains
// student_number_stuck alone; a misconfigured module explains permanent_error or the flag alone
// on a row whose error waits for the course's setup. With no problem known (nearly always) the
// CASE reads one init plan and nothing of the row.
var sqlExplained = func() string {
	bit := func(r schedule.Reason) int64 {
		for i, rc := range reasonConditions {
			if rc.reason == r {
				return 1 << i
			}
		}
		panic("sqlExplained: no condition for " + string(r))
	}
	stuck, number, permanent := bit(schedule.ReasonStuckInState), bit(schedule.ReasonStudentNumberStuck), bit(schedule.ReasonPermanentError)
	linking := func(ph string) bool { return schedule.StoppedPhaseNamed(ph).SendsLinkingEmails }
	anyProblem := `(SELECT EXISTS (` + sqlStoppedPhases + `) OR EXISTS (` + sqlFailingModules + `) OR EXISTS (` + sqlMisconfiguredModules + `))`
	linkingStopped := `(SELECT EXISTS (SELECT 1 FROM (` + sqlStoppedPhases + `) sp WHERE sp.phase IN ('enrolment-discovery', 'link-emails')))`
	// Only a row some problem could explain is classified further: in a state a stopped phase
	// keeps, pending (student_number_stuck) with a linking phase stopped or its code failing, or
	// with a setup error on a misconfigured module; each test reads only init plans. The mask is
	// then computed once for the row.
	candidate := `(cr.state = ANY(` + ownedStatesOf(func(string) bool { return true }) + `)
    OR (cr.state = 'pending' AND (` + linkingStopped + ` OR cr.course_module_id = ANY(ARRAY(` + sqlFailingModules + `))))
    OR (cr.error_code IN (` + quoteList(configErrorCodes...) + `) AND cr.course_module_id = ANY(ARRAY(` + sqlMisconfiguredModules + `))))`
	return `(CASE WHEN ` + anyProblem + ` AND ` + candidate + ` THEN (SELECT coalesce(
    (x.m = ` + fmt.Sprint(stuck) + ` AND cr.state = ANY(` + ownedStatesOf(func(string) bool { return true }) + `))
    OR (x.m = ` + fmt.Sprint(number) + ` AND (` + linkingStopped + ` OR cr.course_module_id = ANY(ARRAY(` + sqlFailingModules + `))))
    OR (x.m = ` + fmt.Sprint(stuck|number) + ` AND cr.state = ANY(` + ownedStatesOf(linking) + `))
    OR (cr.error_code IN (` + quoteList(configErrorCodes...) + `) AND cr.course_module_id = ANY(ARRAY(` + sqlMisconfiguredModules + `))
      AND (x.m = ` + fmt.Sprint(permanent) + ` OR (x.m = 0 AND cr.needs_admin_attention)))
    , false) FROM (SELECT ` + sqlReasonMask + ` AS m) x) ELSE false END)`
}()

// sqlNeedsAdmin is true when the row stands needs_attention: a person-level reason applies, the
// row is not dismissed, and no blocking problem explains it (attention.rs standing).
var sqlNeedsAdmin = `(` + sqlPersonLevel + ` AND NOT ` + sqlDismissed + ` AND NOT ` + sqlExplained + `)`

// standingPredicate returns the condition of standing s, on attention candidates: needs_attention
// is sqlNeedsAdmin; running_late is stuck_in_state alone (the flag is explained by it), undismissed
// and unexplained; dismissed is sqlDismissed; explained_by_problem is a row a blocking problem
// accounts for, undismissed.
func standingPredicate(s schedule.Standing, cut func(time.Duration) string) string {
	switch s {
	case schedule.StandingNeedsAttention:
		return sqlNeedsAdmin
	case schedule.StandingRunningLate:
		return `(` + stuckCondition(cut) + ` AND NOT ` + sqlPersonLevelDetector + ` AND NOT ` + sqlDismissed + ` AND NOT ` + sqlExplained + `)`
	case schedule.StandingDismissed:
		return sqlDismissed
	case schedule.StandingExplainedByProblem:
		return `(NOT ` + sqlDismissed + ` AND ` + sqlExplained + `)`
	}
	return `false`
}
