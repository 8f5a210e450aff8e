package store

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// ScheduleColumns are the columns classification reads. Both row types embed them, so every
// screen classifies a row the same way.
type ScheduleColumns struct {
	State                      schedule.State     `db:"state"`
	ErrorCode                  schedule.ErrorCode `db:"error_code"`
	NeedsAdminAttention        bool               `db:"needs_admin_attention"`
	SupersededByID             *string            `db:"superseded_by_id"`
	StateEnteredAt             time.Time          `db:"state_entered_at"`
	StateChangedAt             time.Time          `db:"state_changed_at"`
	NextAttemptAt              time.Time          `db:"next_attempt_at"`
	TerminalAt                 *time.Time         `db:"terminal_at"`
	FirstFailedAt              *time.Time         `db:"first_failed_at"`
	SubmittedAt                *time.Time         `db:"submitted_at"`
	PartiallyRegisteredAt      *time.Time         `db:"partially_registered_at"`
	ResubmitNotBefore          *time.Time         `db:"resubmit_not_before"`
	SubmitRetryCount           int32              `db:"submit_retry_count"`
	VerifyAttemptCount         int32              `db:"verify_attempt_count"`
	NotRegisteredReimportCount int32              `db:"not_registered_reimport_count"`
	DismissedReasons           []string           `db:"dismissed_reasons"`
	// NeedsPersonSince is when the row first needed a person since it was last settled (migration
	// 0019's trigger stamps it on every write); it may lie ahead, when a time rule will fire then,
	// and it means something only while the row needs a person. nil: it never has.
	NeedsPersonSince *time.Time `db:"needs_person_since"`
	// The facts of the LMS's tables student_number_stuck reads of a pending row (schedule.LinkingFacts;
	// linkingFactsJoin says where each comes from): false and nil for a row in any other state.
	LinkingAwaits          bool       `db:"linking_awaits"`
	LinkingPressedAt       *time.Time `db:"linking_pressed_at"`
	LinkingFetchStartedAt  *time.Time `db:"linking_fetch_started_at"`
	LinkingEmailSincePress bool       `db:"linking_email_since_press"`
}

// scheduleColumns selects ScheduleColumns from cr and the live dismissal d.
const scheduleColumns = `cr.state::text AS state, coalesce(cr.error_code::text, '') AS error_code,
  cr.needs_admin_attention, cr.superseded_by_id::text AS superseded_by_id,
  cr.state_entered_at, cr.state_changed_at, cr.next_attempt_at, cr.terminal_at, cr.first_failed_at, cr.submitted_at,
  cr.partially_registered_at, cr.resubmit_not_before, cr.submit_retry_count, cr.verify_attempt_count,
  cr.not_registered_reimport_count, d.dismissed_reasons::text[] AS dismissed_reasons, cr.needs_person_since,
  cr.linking_awaits, cr.linking_pressed_at, cr.linking_fetch_started_at, cr.linking_email_since_press`

// ScheduleRow returns the row as schedule reads it, with the linking facts student_number_stuck
// reads (Row.Linking). The module and its code, which only blocking problems read, are left out.
func (f ScheduleColumns) ScheduleRow() schedule.Row {
	var dismissed []schedule.Reason
	for _, r := range f.DismissedReasons {
		dismissed = append(dismissed, schedule.Reason(r))
	}
	return schedule.Row{
		State:                      f.State,
		ErrorCode:                  f.ErrorCode,
		NeedsAdminAttention:        f.NeedsAdminAttention,
		Superseded:                 f.SupersededByID != nil,
		StateEnteredAt:             f.StateEnteredAt,
		StateChangedAt:             f.StateChangedAt,
		NextAttemptAt:              f.NextAttemptAt,
		TerminalAt:                 f.TerminalAt,
		FirstFailedAt:              f.FirstFailedAt,
		SubmittedAt:                f.SubmittedAt,
		PartiallyRegisteredAt:      f.PartiallyRegisteredAt,
		ResubmitNotBefore:          f.ResubmitNotBefore,
		SubmitRetryCount:           f.SubmitRetryCount,
		VerifyAttemptCount:         f.VerifyAttemptCount,
		NotRegisteredReimportCount: f.NotRegisteredReimportCount,
		Linking: schedule.LinkingFacts{
			AwaitsStudentNumber:       f.LinkingAwaits,
			PressedAt:                 f.LinkingPressedAt,
			LastMailingFetchStartedAt: f.LinkingFetchStartedAt,
			LinkingEmailSincePress:    f.LinkingEmailSincePress,
		},
		DismissedReasons: dismissed,
	}
}

// RegistrationAbout is whom and what a registration is about, as lists and pages name them.
type RegistrationAbout struct {
	StudentID     string  `db:"student_id"`
	StudentName   string  `db:"student_name"`
	StudentEmail  string  `db:"student_email"`
	StudentNumber *string `db:"student_number"`
	CourseID      string  `db:"course_id"`
	CourseName    string  `db:"course_name"`
	ModuleName    string  `db:"module_name"`
	// UhCourseCode is the row's frozen course code, else its module's.
	UhCourseCode *string `db:"uh_course_code"`
}

// RegistrationListRow is one line of the queue: lean, so a page of fifty stays cheap.
type RegistrationListRow struct {
	ID        string    `db:"id"`
	UpdatedAt time.Time `db:"updated_at"`
	Classified
	AttemptNumber int32 `db:"attempt_number"`
	RegistrationAbout
	ErrorMessage     *string `db:"error_message"`
	SubmittedAttempt *string `db:"submitted_attainment_id"`
	ClaimColumns
}

// listColumnsAt selects RegistrationListRow from listFrom, its problems at now (a parameter such
// as "$1").
func listColumnsAt(now string) string {
	return `cr.id::text AS id, cr.updated_at, ` + scheduleColumns + `,
  cr.attempt_number, ` + studentColumns + `, coalesce(cr.student_number, sv.student_number) AS student_number,
  c.id::text AS course_id, c.name AS course_name, coalesce(m.name, '') AS module_name,
  coalesce(cr.uh_course_code, m.uh_course_code) AS uh_course_code, cr.error_message,
  cr.submitted_attainment_id, ` + claimColumns + `, ` + problemColumns(now)
}

// listFrom is what a list reads: regdesk's copy of the ledger (ledger_mirror, "cr"), each row's
// student ("s", "sd", "sv": studentJoin), course and module, its live dismissal and its claim.
const listFrom = `ledger_mirror cr
  JOIN ` + studentJoin + `
  JOIN courses c ON c.id = cr.course_id
  JOIN course_modules m ON m.id = cr.course_module_id
  LEFT JOIN credit_registration_attention_dismissals d
    ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL` + claimJoin

// RegistrationFilter narrows the queue. Empty fields do not filter, but for Scope, whose zero
// value matches nothing; several values of one field are alternatives.
type RegistrationFilter struct {
	// NeedsAdmin keeps only rows a person must look at (standing needs_attention).
	NeedsAdmin bool
	Phases     []schedule.Phase
	// Reasons keeps rows carrying one of these reasons that are not dismissed.
	Reasons []schedule.Reason
	// Standings keeps rows in one of these standings (schedule.Status.Standing).
	Standings  []schedule.Standing
	States     []schedule.State
	ErrorCodes []schedule.ErrorCode
	// CourseIDs keeps rows of these courses.
	CourseIDs []string
	// Search matches a registration id, a student number, a Sisu attainment id, or part of a
	// student's name or e-mail (case and accents ignored).
	Search string
	// Scope is the courses the filter may reach: AllCourses for support and admins, a teacher's
	// CoursesOnly. The zero value reaches none, so a filter that forgets it lists nothing.
	Scope Scope
	// Claimed keeps rows by their claim: ClaimedMine those ClaimAccountID holds a live claim on,
	// ClaimedNobody those without one; "" keeps everyone's. A claim is live when touched less than
	// ClaimLapse before now.
	Claimed        ClaimedFilter
	ClaimAccountID string
	ClaimLapse     time.Duration
	// Sort orders the list: SortActivity (the default) newest activity first, SortWaiting the rows
	// that have waited longest for a person first.
	Sort RegistrationSort
	// NotLookedUp keeps rows nobody has looked up in Sisu since they were sent
	// (sqlNotLookedUpSinceSent): with the state submission_uncertain, the rows the alert
	// uncertain_awaiting_lookup and the overview's "waiting for a lookup" count.
	NotLookedUp bool
	// EscalatesWithin, when positive, keeps the rows that need nobody yet and will escalate
	// (schedule.Classify's EscalatesAt) within that much of now: what the alert escalating_soon
	// counts (EscalatingList). The rows are classified in Go, so the filter resolves them to ids
	// first (resolve).
	EscalatesWithin time.Duration
	// EndedWithin, when positive, keeps the rows that ended (terminal_at) within that much of now:
	// with the state failed_permanent, what permanent_failures_accumulating counts.
	EndedWithin time.Duration
	// MisregisteredWithin, when positive, keeps the rows Sisu reversed (a move into misregistered
	// in their history, sqlMisregisteredSince) within that much of now: what
	// misregistrations_detected counts.
	MisregisteredWithin time.Duration
	// escalating are the ids EscalatesWithin resolved to; resolved says resolve ran.
	escalating []string
	resolved   bool
}

// Escalation is a row that needs nobody yet and will escalate at At.
type Escalation struct {
	ID string
	At time.Time
}

// EscalatingList returns the rows that need nobody yet and will escalate (schedule.Classify's
// EscalatesAt) after now, within scope: the attention candidates not on the
// needs-a-person list, classified as the queue classifies them. The alert escalating_soon counts
// those within schedule.EscalatingSoonWindow, and the queue's escalates filter lists the same.
func (q *Queries) EscalatingList(ctx context.Context, now time.Time, scope Scope) ([]Escalation, error) {
	type candidate struct {
		ScheduleColumns
		ID string `db:"id"`
	}
	rows, _ := q.db.Query(ctx, `SELECT `+scheduleColumns+`, cr.id::text AS id
FROM `+attentionFrom+`
WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND NOT `+sqlNeedsAdmin+`
  AND ($2::uuid[] IS NULL OR cr.course_id = ANY($2::uuid[]))`, now, scope.arg())
	cands, err := pgx.CollectRows(rows, pgx.RowToStructByName[candidate])
	if err != nil {
		return nil, dbError("EscalatingList", err)
	}
	var out []Escalation
	for _, c := range cands {
		if st := schedule.Classify(c.ScheduleRow(), now); !st.EscalatesAt.IsZero() && st.EscalatesAt.After(now) {
			out = append(out, Escalation{ID: c.ID, At: st.EscalatesAt})
		}
	}
	return out, nil
}

// resolve reads what f's conditions need before they can be written as SQL: the ids of the rows
// that escalate within f.EscalatesWithin.
func (q *Queries) resolve(ctx context.Context, now time.Time, f *RegistrationFilter) error {
	if f.resolved || f.EscalatesWithin <= 0 {
		return nil
	}
	list, err := q.EscalatingList(ctx, now, f.Scope)
	if err != nil {
		return err
	}
	f.escalating = []string{}
	for _, e := range list {
		if !e.At.After(now.Add(f.EscalatesWithin)) {
			f.escalating = append(f.escalating, e.ID)
		}
	}
	f.resolved = true
	return nil
}

// sqlNotLookedUpSinceSent is true for a row without a Sisu lookup since it was sent (any lookup
// when it has no submitted_at). The alert uncertain_awaiting_lookup, the overview's tile and the
// queue's filter lookup=none all read this one condition, so their numbers agree.
const sqlNotLookedUpSinceSent = `NOT EXISTS (SELECT 1 FROM lookups l
    WHERE l.credit_registration_id = cr.id AND l.created_at >= coalesce(cr.submitted_at, '-infinity'))`

// sqlMisregistrations selects, per row, the latest move into misregistered in its history after
// the instant since (an SQL expression), as (id, at), through the events' kind and time index:
// what misregistrations_detected counts and the queue's misregistered filter lists.
func sqlMisregistrations(since string) string {
	return `SELECT e.credit_registration_id AS id, max(e.created_at) AS at FROM credit_registration_events e
    WHERE e.kind IN ('state_changed', 'suotar_response') AND e.to_state = 'misregistered'
      AND e.from_state IS DISTINCT FROM 'misregistered' AND e.created_at > ` + since + `
    GROUP BY e.credit_registration_id`
}

// sqlMisregisteredSince is true for a row Sisu reversed after since (sqlMisregistrations). The
// rows are collected once (an init plan) and looked up by id, so a list never probes the history
// of every row it walks.
func sqlMisregisteredSince(since string) string {
	return `cr.id = ANY(ARRAY(SELECT m.id FROM (` + sqlMisregistrations(since) + `) m))`
}

// sqlUncertainNotLookedUp is the uncertain rows waiting for a lookup, as the alert and the overview
// count them ($1 is now) and as the queue lists them (/?show=all&state=submission_uncertain&lookup=none).
const sqlUncertainNotLookedUp = liveSQL + ` AND cr.superseded_by_id IS NULL AND cr.state = 'submission_uncertain'
  AND $1::timestamptz IS NOT NULL AND ` + sqlNotLookedUpSinceSent

// ClaimedFilter is the queue's choice of whose rows to show.
type ClaimedFilter string

// The claim filters.
const (
	ClaimedAnyone ClaimedFilter = ""
	ClaimedMine   ClaimedFilter = "mine"
	ClaimedNobody ClaimedFilter = "unclaimed"
)

// RegistrationSort is an order of the queue.
type RegistrationSort string

// The queue's orders.
const (
	SortActivity RegistrationSort = ""
	SortWaiting  RegistrationSort = "waiting"
)

// sqlWaitingSince is when a row began waiting for a person: the first moment it needed one since
// it was last settled, which the ledger's trigger keeps in needs_person_since (migration 0019), so
// a row the pipeline retried between two calls for a person keeps its first. Rows that never
// needed anyone sort last, at WaitingNever.
const sqlWaitingSince = `coalesce(cr.needs_person_since, '9999-01-01T00:00:00Z'::timestamptz)`

// WaitingNever is where a row that has never needed a person sorts in SortWaiting, and so what
// its cursor holds.
var WaitingNever = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// WaitingSince is when the row began waiting for a person, as SortWaiting orders it.
func (f ScheduleColumns) WaitingSince() time.Time {
	if f.NeedsPersonSince == nil {
		return WaitingNever
	}
	return *f.NeedsPersonSince
}

// RegistrationCursor marks where a queue page ended; the next page starts after it.
type RegistrationCursor struct {
	UpdatedAt time.Time
	ID        string
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s is a UUID in its canonical text form.
func IsUUID(s string) bool { return uuidPattern.MatchString(s) }

// whereBuilder collects conditions and their arguments; $1 is always now.
type whereBuilder struct {
	conds []string
	args  []any
	// planEach is set when a condition's selectivity depends on its arguments' values (cutoff):
	// the statement must then be planned for its values every time (queryArgs).
	planEach bool
	// student is set when a condition reads the row's student ("s"): a name or e-mail search.
	student bool
	// studentsFirst has a name search collect the matching students first (an init plan through
	// the trigram indexes) rather than join their search text: for a count, which has no order
	// to walk the ledger in (RegistrationCountCapped).
	studentsFirst bool
}

// from is what w's conditions read: the ledger with each row's live dismissal ("d") and claim
// ("cl", "cla"), and its student ("s") only when a condition asks for it. The students, courses
// and modules a list shows are joined to the page's rows after the LIMIT (RegistrationList): every
// row has one of each (foreign keys), so joined before it they only cost lookups for rows the
// LIMIT then drops, 40,000 of them for /?reason=running_late's 13,600 rows at a million.
func (w *whereBuilder) from() string {
	from := `ledger_mirror cr
  LEFT JOIN credit_registration_attention_dismissals d
    ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL` + claimJoin
	if w.student {
		from += `
  JOIN person_search ps ON ps.user_id = cr.user_id`
	}
	return from
}

// queryArgs returns the statement's arguments as Query takes them. A statement with planEach set
// is sent unnamed (pgx.QueryExecModeDescribeExec: described, then bound), so PostgreSQL plans it for these values on every
// execution: as a cached prepared statement, after five executions it may switch to a generic
// plan made without them, which guesses that any window of submitted_at holds 70 rows, and
// /?phase=backing_off (14,000 rows) then joined and sorted every one: 650 ms instead of 12.
func (w *whereBuilder) queryArgs() []any {
	if w.planEach {
		return append([]any{pgx.QueryExecModeDescribeExec}, w.args...)
	}
	return w.args
}

func newWhere(now time.Time) *whereBuilder {
	// now is always $1; typing it here binds it in a query none of whose conditions needs a time.
	return &whereBuilder{conds: []string{liveSQL, `$1::timestamptz IS NOT NULL`}, args: []any{now}}
}

func (w *whereBuilder) arg(v any) string {
	w.args = append(w.args, v)
	return fmt.Sprintf("$%d", len(w.args))
}

func (w *whereBuilder) add(cond string) { w.conds = append(w.conds, cond) }

// cutoff is the instant d before now as a parameter. In an init plan (classify.go's cutoff) the
// planner cannot see the instant and guesses a third of the verification rows for any window:
// /?phase=waiting, whose window is four and a half hours wide and often empty, then walked the
// whole ledger newest first looking for fifty rows that were not there (992,500 rows, 750 ms at
// a million). Seen as a value, the window's few rows are read through the submitted_at index and
// sorted. The instant is computed here exactly as the database computes $1 − d: both whole
// microseconds.
func (w *whereBuilder) cutoff(d time.Duration) string {
	w.planEach = true
	return w.arg(w.args[0].(time.Time).Add(-d)) + `::timestamptz`
}

func (w *whereBuilder) sql() string { return strings.Join(w.conds, "\n  AND ") }

// apply adds f's conditions. The reason conditions read the live dismissal as "d".
func (w *whereBuilder) apply(f RegistrationFilter) {
	if !f.Scope.All() {
		// Every filter has the condition but support's and admins': a zero Scope matches nothing.
		w.add(`cr.course_id = ANY(` + w.arg(f.Scope.arg()) + `::uuid[])`)
	}
	if len(f.CourseIDs) > 0 {
		w.add(`cr.course_id = ANY(` + w.arg(f.CourseIDs) + `::uuid[])`)
	}
	if len(f.States) > 0 {
		// Compared on the enum, as literals: a cast of the column to text rules out the state
		// indexes, and a parameter cast to the enum leaves the planner no statistics to pick the
		// rare state's index by. The values are schedule's own constants (the filter parsed them),
		// quoted by quoteList.
		w.add(`cr.state IN (` + quoteList(f.States...) + `)`)
	}
	if len(f.ErrorCodes) > 0 {
		w.add(`cr.error_code IN (` + quoteList(f.ErrorCodes...) + `)`)
	}
	if len(f.Phases) > 0 {
		var ors []string
		for _, p := range f.Phases {
			ors = append(ors, `(`+phaseCondition(p, w.cutoff)+`)`)
		}
		w.add(`(` + strings.Join(ors, ` OR `) + `)`)
	} else {
		// Superseded attempts are history; the queue shows them only when asked by phase.
		w.add(`cr.superseded_by_id IS NULL`)
	}
	if f.NeedsAdmin || (len(f.Standings) > 0 && !onlyRunningLate(f.Standings)) || (len(f.Reasons) > 0 && !allSelfIndexed(f.Reasons)) {
		w.add(sqlAttentionCandidate)
	}
	if f.NeedsAdmin {
		w.add(sqlNeedsAdmin)
	}
	if len(f.Reasons) > 0 {
		var ors []string
		for _, r := range f.Reasons {
			// Every reason with cutoff's init plans: the statement is prepared once and its plan
			// kept. stuck_in_state's thresholds were parameters planned for on every request, because
			// the planner guessed 35 late rows where 2,880 were and sorted all 15,000 of the four
			// states; the guess was the attention-candidate condition's (selfIndexedReasons), and
			// without it the kept plan walks idx_ledger_mirror_late_activity to its page (4 ms, and
			// the 10 ms of parsing and planning the statement each time saved).
			ors = append(ors, reasonPredicate(r))
		}
		w.add(`(` + strings.Join(ors, ` OR `) + `) AND NOT ` + sqlDismissed)
	}
	if len(f.Standings) > 0 {
		var ors []string
		for _, s := range f.Standings {
			ors = append(ors, standingPredicate(s, cutoff))
		}
		w.add(`(` + strings.Join(ors, ` OR `) + `)`)
	}
	if q := strings.TrimSpace(f.Search); q != "" {
		w.add(w.searchCondition(q))
	}
	if f.NotLookedUp {
		w.add(sqlNotLookedUpSinceSent)
	}
	if f.EscalatesWithin > 0 {
		w.add(`cr.id = ANY(` + w.arg(f.escalating) + `::uuid[])`)
	}
	if f.EndedWithin > 0 {
		w.add(`cr.terminal_at > ` + w.cutoff(f.EndedWithin))
	}
	if f.MisregisteredWithin > 0 {
		w.add(sqlMisregisteredSince(w.cutoff(f.MisregisteredWithin)))
	}
	if f.Claimed != ClaimedAnyone {
		// now is $1 (newWhere); the cutoff is computed here so the SQL compares two instants.
		cutoff := w.args[0].(time.Time).Add(-f.ClaimLapse)
		switch f.Claimed {
		case ClaimedMine:
			w.add(`cl.account_id = ` + w.arg(f.ClaimAccountID) + `::uuid AND cl.touched_at > ` + w.arg(cutoff))
		case ClaimedNobody:
			w.add(`(cl.credit_registration_id IS NULL OR cl.touched_at <= ` + w.arg(cutoff) + `)`)
		}
	}
}

// studentNumberLike matches what a person types for a student number: digits only.
var studentNumberLike = regexp.MustCompile(`^[0-9]{4,12}$`)

// searchCondition matches a search by what it looks like, so each kind uses its own index: a
// UUID is a registration or a student, digits are a student number, an id with a dash is a Sisu
// attainment id, anything else is part of a name or an e-mail (case and accents folded, through
// the students' trigram index). One OR over every kind would leave the planner no index to use.
// A name search reads the row's student's search text as "ps": it sets w.student, so
// whereBuilder.from joins it.
func (w *whereBuilder) searchCondition(q string) string {
	// The matching students are collected once (an init plan) and looked up through the user
	// index; written as "IN (subquery)" the planner walked the whole ledger testing each row.
	linked := func(number string) string {
		return `cr.user_id = ANY(ARRAY(SELECT v.user_id FROM verified_student_numbers v WHERE v.deleted_at IS NULL AND v.student_number = ` + number + `))`
	}
	switch {
	case IsUUID(q):
		p := w.arg(q)
		return `(cr.id = ` + p + `::uuid OR cr.user_id = ` + p + `::uuid)`
	case studentNumberLike.MatchString(q):
		p := w.arg(q)
		return `(cr.student_number = ` + p + ` OR ` + linked(p) + `)`
	case strings.HasPrefix(q, "hy-") || strings.HasPrefix(q, "otm-"):
		p := w.arg(q)
		return `(cr.submitted_attainment_id = ` + p + ` OR cr.sisu_attainment_id = ` + p + `)`
	}
	// A name or an e-mail filters the row's student through regdesk's copy of the LMS's search
	// text (person_search, "ps") and its GIN trigram indexes: for a common name the planner walks
	// the ledger newest first and stops at a page, for a rare one it starts from the index. The
	// LMS's own GiST indexes answered "virtanen" in 255 ms at a million rows. Planned for the
	// pattern each time: a generic plan cannot tell a rare name from a common one.
	w.planEach = true
	match := sqlPersonSearchMatches(w.arg(searchPattern(q)))
	if w.studentsFirst {
		return `cr.user_id = ANY(ARRAY(SELECT ps.user_id FROM person_search ps WHERE ` + match + `))`
	}
	w.student = true
	return match
}

// selfIndexedReasons are the reasons whose own condition a partial index of the ledger copy
// implies (permanent_error, flagged_by_pipeline, too_many_attempts, repeatedly_not_registered,
// stuck_in_state's open rows in the four states idx_ledger_mirror_late_activity names) or an index
// on a column they fix serves (retry_window_expired's error code, misregistered's and
// outcome_uncertain's state). Filtered by these alone, a list leaves out sqlAttentionCandidate,
// which every reason implies anyway: the planner takes the two for independent and guessed 124
// of permanent_error's 3,250 rows at a million, so it hashed the dismissals instead of walking the
// reason's index newest first and fetched every row (25 ms) to sort them; for stuck_in_state it
// guessed 35 of 2,880 and fetched 15,000 rows from the heap (25 ms) rather than walk its index to
// the page (5 ms).
var selfIndexedReasons = []schedule.Reason{
	schedule.ReasonPermanentError, schedule.ReasonFlaggedByPipeline, schedule.ReasonTooManyAttempts,
	schedule.ReasonRepeatedlyNotRegistered, schedule.ReasonRetryWindowExpired, schedule.ReasonMisregistered,
	schedule.ReasonOutcomeUncertain, schedule.ReasonStuckInState,
}

// onlyRunningLate reports whether standings is running_late alone, whose stuck_in_state implies
// the attention-candidate condition as that reason does (selfIndexedReasons).
func onlyRunningLate(standings []schedule.Standing) bool {
	return !slices.ContainsFunc(standings, func(s schedule.Standing) bool { return s != schedule.StandingRunningLate })
}

func allSelfIndexed(reasons []schedule.Reason) bool {
	for _, r := range reasons {
		if !slices.Contains(selfIndexedReasons, r) {
			return false
		}
	}
	return true
}

// RegistrationList returns up to limit rows matching f in f.Sort's order (newest activity first by
// default), starting after the cursor (nil: the first page), and the cursor of the next page (nil:
// this was the last). A cursor holds the sort's key: updated_at, or for SortWaiting when the row
// began waiting.
func (q *Queries) RegistrationList(ctx context.Context, now time.Time, f RegistrationFilter, after *RegistrationCursor, limit int) ([]RegistrationListRow, *RegistrationCursor, error) {
	if err := q.resolve(ctx, now, &f); err != nil {
		return nil, nil, fmt.Errorf("RegistrationList: %w", err)
	}
	sql, args := registrationListSQL(now, f, after, limit)
	rows, _ := q.db.Query(ctx, sql, args...)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[RegistrationListRow])
	if err != nil {
		return nil, nil, dbError("RegistrationList", err)
	}
	if len(list) <= limit {
		return list, nil, nil
	}
	list = list[:limit]
	last := list[limit-1]
	if f.Sort == SortWaiting {
		return list, &RegistrationCursor{UpdatedAt: last.WaitingSince(), ID: last.ID}, nil
	}
	return list, &RegistrationCursor{UpdatedAt: last.UpdatedAt, ID: last.ID}, nil
}

// registrationListSQL is RegistrationList's statement for a resolved filter, with its arguments:
// a page of limit+1 rows, so the caller knows whether another follows.
func registrationListSQL(now time.Time, f RegistrationFilter, after *RegistrationCursor, limit int) (string, []any) {
	w := newWhere(now)
	w.apply(f)
	order := `cr.updated_at DESC, cr.id DESC`
	if f.Sort == SortWaiting {
		order = sqlWaitingSince + `, cr.id`
		if after != nil {
			w.add(`(` + sqlWaitingSince + `, cr.id) > (` + w.arg(after.UpdatedAt) + `, ` + w.arg(after.ID) + `::uuid)`)
		}
	} else if after != nil {
		w.add(`(cr.updated_at, cr.id) < (` + w.arg(after.UpdatedAt) + `, ` + w.arg(after.ID) + `::uuid)`)
	}
	// The page's ids first, from the ledger alone (w.from), then its rows in full.
	sql := `SELECT ` + listColumnsAt("$1") + `
FROM (SELECT cr.id FROM ` + w.from() + `
  WHERE ` + w.sql() + `
  ORDER BY ` + order + `
  LIMIT ` + sqlLimit(limit+1) + `) page
  JOIN ` + strings.Replace(listFrom, `ledger_mirror cr`, `ledger_mirror cr ON cr.id = page.id`, 1) + `
ORDER BY ` + order
	return sql, w.queryArgs()
}

// PhaseCountCap bounds each phase's count: a count of PhaseCountCap means "that many or more",
// and the queue shows it as such. Counting the 875,000 settled rows of a million-row ledger
// exactly walked 978,000 index entries on every refresh; counting up to the cap reads at most
// that many per phase (River UI's capped counts). Nobody acts on the number of pending or settled
// rows, only on whether a phase holds a few or many.
const PhaseCountCap = 1_000

// RegistrationCounts are the queue's headline numbers: each phase's at most PhaseCountCap, the
// reasons and the standings exact.
type RegistrationCounts struct {
	// Phases counts live rows per phase (superseded attempts included as their own phase).
	Phases map[schedule.Phase]int64
	// Reasons counts rows carrying each reason that are not dismissed.
	Reasons map[schedule.Reason]int64
	// NeedsAdmin counts rows a person must look at (standing needs_attention).
	NeedsAdmin int64
	// RunningLate counts rows whose only reason is stuck_in_state, not dismissed, not explained.
	RunningLate int64
	// Explained counts rows a blocking problem accounts for, not dismissed (the LMS lists them
	// under the problem, not as needing a person).
	Explained int64
	// Dismissed counts rows whose every reason a person has dismissed.
	Dismissed int64
}

// RegistrationCountsGet counts the ledger per phase and per reason at now, limited to scope's
// courses, in one transaction: the phases' capped counts, then the reasons' (see
// registrationPhaseCounts and registrationReasonCounts). Store.RegistrationCountsGet reads the two
// at once; this one serves a caller that holds its transaction already.
func (q *Queries) RegistrationCountsGet(ctx context.Context, now time.Time, scope Scope) (RegistrationCounts, error) {
	out := RegistrationCounts{Phases: map[schedule.Phase]int64{}, Reasons: map[schedule.Reason]int64{}}
	if err := q.registrationPhaseCounts(ctx, now, scope, out.Phases); err != nil {
		return out, fmt.Errorf("RegistrationCountsGet: %w", err)
	}
	if err := q.registrationReasonCounts(ctx, now, scope, &out); err != nil {
		return out, fmt.Errorf("RegistrationCountsGet: %w", err)
	}
	return out, nil
}

// RegistrationCountsGet is Queries.RegistrationCountsGet with the phases and the reasons read at
// once, on two connections in one snapshot (inOneSnapshot), when the pool has a connection to
// spare: the reasons' pass is the longer (11 ms at a million rows), the phases' 17 capped counts
// take 6 ms, and one after the other they were the whole of a cold count's 27 ms.
func (s *Store) RegistrationCountsGet(ctx context.Context, now time.Time, scope Scope) (RegistrationCounts, error) {
	out := RegistrationCounts{Phases: map[schedule.Phase]int64{}, Reasons: map[schedule.Reason]int64{}}
	err := s.inOneSnapshot(ctx, []func(context.Context, *Queries) error{
		func(ctx context.Context, q *Queries) error { return q.registrationReasonCounts(ctx, now, scope, &out) },
		func(ctx context.Context, q *Queries) error {
			return q.registrationPhaseCounts(ctx, now, scope, out.Phases)
		},
	})
	if err != nil {
		return RegistrationCounts{}, fmt.Errorf("RegistrationCountsGet: %w", err)
	}
	return out, nil
}

// countsScope is the counts' scope condition and arguments: $1 is now, $2 the courses.
func countsScope(now time.Time, scope Scope) (string, []any) {
	if !scope.All() {
		return `cr.course_id = ANY($2::uuid[])`, []any{now, scope.arg()}
	}
	return `true`, []any{now}
}

// registrationPhaseCounts fills out with each phase's count, at most PhaseCountCap, in one
// statement. Each phase is a scalar subquery that stops at the cap, served by the index whose
// predicate matches it: the state index for a phase of states, the submitted_at indexes for a
// verification window, the superseded index.
func (q *Queries) registrationPhaseCounts(ctx context.Context, now time.Time, scope Scope, out map[schedule.Phase]int64) error {
	scopeCond, args := countsScope(now, scope)
	phases := schedule.Phases()
	cols := make([]string, len(phases))
	dest := make([]any, len(phases))
	phaseN := make([]int64, len(phases))
	for i, p := range phases {
		cols[i] = `(SELECT count(*) FROM (SELECT 1 FROM ledger_mirror cr
    WHERE ` + liveSQL + ` AND (` + phasePredicate(p) + `) AND ` + scopeCond + ` AND $1::timestamptz IS NOT NULL
    LIMIT ` + sqlLimit(PhaseCountCap) + `) capped)`
		dest[i] = &phaseN[i]
	}
	if err := q.db.QueryRow(ctx, `SELECT `+strings.Join(cols, ",\n  "), args...).Scan(dest...); err != nil {
		return dbError("registrationPhaseCounts", err)
	}
	for i, p := range phases {
		out[p] = phaseN[i]
	}
	return nil
}

// registrationReasonCounts sets out's reasons and standings, exactly, in two
// statements. The first is one pass over the attention candidates, an index-only scan of their
// covering index (22,000 entries at a million rows), grouped by each row's reason mask
// (sqlReasonMask) and pipeline flag: a few dozen groups, whose reasons Go reads as Classify would.
// One pass serves every reason, where a capped scan per reason read the same entries a dozen times
// over, most reasons' conditions being an OR of states no index range can serve. Rows are counted
// as if nobody had dismissed anything, then the second statement reads the few rows a dismissal
// covers and Go takes them off: written into the pass, the dismissal check (every reason's
// condition again) made the statement take longer to plan than to run.
func (q *Queries) registrationReasonCounts(ctx context.Context, now time.Time, scope Scope, out *RegistrationCounts) error {
	scopeCond, args := countsScope(now, scope)
	var masks []int64
	var flags, explained []bool
	var groupN []int64
	err := q.db.QueryRow(ctx, `SELECT coalesce(array_agg(m), '{}'), coalesce(array_agg(f), '{}'), coalesce(array_agg(e), '{}'), coalesce(array_agg(n), '{}')
FROM (SELECT m, f, e, count(*) AS n
  FROM (SELECT `+sqlReasonMask+` AS m, cr.needs_admin_attention AS f, `+sqlExplained+` AS e
    FROM ledger_mirror cr
    WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND `+scopeCond+` AND $1::timestamptz IS NOT NULL) candidates
  GROUP BY m, f, e) groups`, args...).Scan(&masks, &flags, &explained, &groupN)
	if err != nil {
		return dbError("registrationReasonCounts", err)
	}
	if len(flags) != len(masks) || len(groupN) != len(masks) || len(explained) != len(masks) {
		return fmt.Errorf("registrationReasonCounts: %d masks, %d flags, %d explained, %d counts", len(masks), len(flags), len(explained), len(groupN))
	}
	reasons := schedule.Reasons()
	reasonN := make([]int64, len(reasons))
	for g, mask := range masks {
		set := reasonMaskSet(mask, flags[g])
		for i, r := range reasons {
			if set.Has(r) {
				reasonN[i] += groupN[g]
			}
		}
		switch {
		case explained[g] && !set.Empty():
			out.Explained += groupN[g]
		case !set.PersonLevel().Empty():
			out.NeedsAdmin += groupN[g]
		case !set.Empty():
			out.RunningLate += groupN[g]
		}
	}
	dismissed, err := q.attentionDismissedList(ctx, now, scope)
	if err != nil {
		return fmt.Errorf("registrationReasonCounts: %w", err)
	}
	for _, d := range dismissed {
		st := schedule.Classify(d.ScheduleRow(), now)
		if !st.Dismissed {
			continue
		}
		out.Dismissed++
		for i, r := range reasons {
			if st.Reasons.Has(r) {
				reasonN[i]--
			}
		}
		switch {
		case d.Explained:
			out.Explained--
		case st.Reasons.PersonLevel().Empty():
			out.RunningLate--
		default:
			out.NeedsAdmin--
		}
	}
	for i, r := range reasons {
		out.Reasons[r] = reasonN[i]
	}
	return nil
}

// dismissedCandidate is an attention candidate with a live dismissal, as the counts read it to take
// the rows the dismissal covers off.
type dismissedCandidate struct {
	ScheduleColumns
	CourseModuleID string `db:"course_module_id"`
	// Explained: a blocking problem accounts for the row's reasons (sqlExplained), which the
	// counts' pass counted it under.
	Explained bool `db:"explained"`
}

// attentionDismissedList reads the attention candidates that have a live dismissal, within scope
// when it is not nil: the few rows the queue's and the courses page's counts, made as if nobody
// had dismissed anything, take off once Go has classified them.
func (q *Queries) attentionDismissedList(ctx context.Context, now time.Time, scope Scope) ([]dismissedCandidate, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+scheduleColumns+`, cr.course_module_id::text AS course_module_id,
  `+sqlExplained+` AS explained
FROM credit_registration_attention_dismissals d
  JOIN ledger_mirror cr ON cr.id = d.credit_registration_id
WHERE d.deleted_at IS NULL AND `+liveSQL+` AND `+sqlAttentionCandidate+`
  AND ($2::uuid[] IS NULL OR cr.course_id = ANY($2::uuid[]))`, now, scope.arg())
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[dismissedCandidate])
	if err != nil {
		return nil, dbError("attentionDismissedList", err)
	}
	return list, nil
}

// Registration is one credit_registrations row with everything its page shows.
type Registration struct {
	RegistrationListRow
	CreatedAt                        time.Time         `db:"created_at"`
	Version                          int64             `db:"version"`
	CourseModuleCompletionID         string            `db:"course_module_completion_id"`
	CourseModuleID                   string            `db:"course_module_id"`
	SupersededAt                     *time.Time        `db:"superseded_at"`
	PendingSupersededByID            *string           `db:"pending_superseded_by_id"`
	PhaseStartedAt                   time.Time         `db:"phase_started_at"`
	LastAttemptAt                    *time.Time        `db:"last_attempt_at"`
	RegisteredAt                     *time.Time        `db:"registered_at"`
	EnrolmentCheckedAt               *time.Time        `db:"enrolment_checked_at"`
	NoUsableEnrolmentSince           *time.Time        `db:"no_usable_enrolment_since"`
	FrozenStudentNumber              *string           `db:"frozen_student_number"`
	LinkedStudentNumber              *string           `db:"linked_student_number"`
	SisuPersonID                     *string           `db:"sisu_person_id"`
	FrozenCourseCode                 *string           `db:"frozen_course_code"`
	SelectedEnrolmentID              *string           `db:"selected_enrolment_id"`
	SelectedEnrolmentKind            *string           `db:"selected_enrolment_kind"`
	SelectedEnrolmentRealisationID   *string           `db:"selected_enrolment_realisation_id"`
	SelectedEnrolmentRealisationName map[string]string `db:"selected_enrolment_realisation_name"`
	AttainmentLanguage               *string           `db:"attainment_language"`
	GradeScaleID                     *string           `db:"grade_scale_id"`
	GradeID                          *string           `db:"grade_id"`
	Credits                          *float32          `db:"credits"`
	AttainedAt                       *time.Time        `db:"attained_at"`
	SubmittedAttainmentType          *string           `db:"submitted_attainment_type"`
	SisuAttainmentID                 *string           `db:"sisu_attainment_id"`
	SisuAttainmentType               *string           `db:"sisu_attainment_type"`
	EnrolmentCheckGroup              *string           `db:"enrolment_check_group"`
	EnrolmentCheckStep               *int32            `db:"enrolment_check_step"`
	EnrolmentCheckDueAt              *time.Time        `db:"enrolment_check_due_at"`
	EnrolmentChecksStoppedAt         *time.Time        `db:"enrolment_checks_stopped_at"`
	ModuleCredits                    *float32          `db:"module_credits"`
	DismissedAt                      *time.Time        `db:"dismissed_at"`
	DismissedBy                      *string           `db:"dismissed_by"`
	DismissalNote                    *string           `db:"dismissal_note"`
}

// registrationColumnsAt selects Registration, its problems at now (a parameter such as "$1").
func registrationColumnsAt(now string) string {
	return listColumnsAt(now) + registrationMore
}

const registrationMore = `,
  cr.created_at, ` + sqlRowVersion + ` AS version, cr.course_module_completion_id::text AS course_module_completion_id,
  cr.course_module_id::text AS course_module_id, cr.superseded_at,
  cr.pending_superseded_by_id::text AS pending_superseded_by_id, cr.phase_started_at, cr.last_attempt_at,
  cr.registered_at, cr.enrolment_checked_at, cr.no_usable_enrolment_since,
  cr.student_number AS frozen_student_number, sv.student_number AS linked_student_number,
  cr.sisu_person_id, cr.uh_course_code AS frozen_course_code, cr.selected_enrolment_id,
  cr.selected_enrolment_kind::text AS selected_enrolment_kind, cr.selected_enrolment_realisation_id,
  cr.selected_enrolment_realisation_name, cr.attainment_language, cr.grade_scale_id, cr.grade_id,
  cr.credits, cr.attained_at, cr.submitted_attainment_type, cr.sisu_attainment_id, cr.sisu_attainment_type,
  cr.enrolment_check_group::text AS enrolment_check_group, cr.enrolment_check_step, cr.enrolment_check_due_at,
  cr.enrolment_checks_stopped_at, m.ects_credits AS module_credits,
  d.created_at AS dismissed_at, nullif(` + sqlLMSUserName + `, '') AS dismissed_by, d.reason AS dismissal_note`

// liveLedger reads the LMS's own row (not the copy) as "cr", with what regdesk derives for it: the
// moment it began to need a person from the copy, and its linking facts (linkingFactsJoin, under
// the LMS's account_linking_since) from the LMS's tables as they are now. A registration's page
// and every hand action must see the row as it is now.
func liveLedger(linkingSince *time.Time) string {
	return `(SELECT c.*, c.selected_enrolment_id IS NOT NULL AS enrolment_resolved, mm.needs_person_since,
    ` + linkingFactsColumns + `
  FROM credit_registrations c
  LEFT JOIN ledger_mirror mm ON mm.id = c.id
  LEFT JOIN credit_registration_preconditions p ON p.credit_registration_id = c.id
  ` + linkingFactsJoin(linkingSince) + `) cr`
}

// sqlRowVersion is the row's version as a page carries it: its updated_at in microseconds. The
// LMS's set_timestamp trigger stamps every write, so any change to the row changes it.
const sqlRowVersion = `(extract(epoch FROM cr.updated_at) * 1000000)::bigint`

// RegistrationGet returns the registration with the given id, or ErrNotFound. When scope is not
// nil, a row outside those courses is not found either: a teacher asking for another course's
// row learns nothing.
func (q *Queries) RegistrationGet(ctx context.Context, now time.Time, id string, scope Scope) (Registration, error) {
	if !IsUUID(id) {
		return Registration{}, fmt.Errorf("RegistrationGet %q: %w", id, ErrNotFound)
	}
	rows, _ := q.db.Query(ctx, `SELECT `+registrationColumnsAt("$3")+`
FROM `+strings.Replace(listFrom, `ledger_mirror cr`, liveLedger(q.linkingSince), 1)+`
  LEFT JOIN user_details da ON da.user_id = d.dismissed_by_user_id
WHERE cr.id = $1 AND `+liveSQL+` AND `+sqlInScope(2)+``, id, scope.arg(), now)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Registration])
	if err != nil {
		return Registration{}, dbError(fmt.Sprintf("RegistrationGet %s", id), err)
	}
	return r, nil
}

// RegistrationAttempt is one attempt at registering a completion, for the attempts list. Its json
// tags read the attempts the registration page's read aggregates.
type RegistrationAttempt struct {
	ID             string             `db:"id" json:"id"`
	AttemptNumber  int32              `db:"attempt_number" json:"attempt_number"`
	State          schedule.State     `db:"state" json:"state"`
	CreatedAt      time.Time          `db:"created_at" json:"created_at"`
	StateChangedAt time.Time          `db:"state_changed_at" json:"state_changed_at"`
	SupersededByID *string            `db:"superseded_by_id" json:"superseded_by_id"`
	ErrorCode      schedule.ErrorCode `db:"error_code" json:"error_code"`
}

// attemptColumns selects a RegistrationAttempt from "cr2", an attempt at the completion of the
// row "cr" a query is about.
const attemptColumns = `cr2.id::text AS id, cr2.attempt_number, cr2.state::text AS state, cr2.created_at,
  cr2.state_changed_at, cr2.superseded_by_id::text AS superseded_by_id, coalesce(cr2.error_code::text, '') AS error_code`

// RegistrationCountCapped counts the rows matching f, as RegistrationList would list them, but
// stops at limit: a result of limit means "limit or more". Bulk selection shows it, and bulk
// actions are capped, so counting past the cap would only cost.
func (q *Queries) RegistrationCountCapped(ctx context.Context, now time.Time, f RegistrationFilter, limit int) (int, error) {
	if err := q.resolve(ctx, now, &f); err != nil {
		return 0, fmt.Errorf("RegistrationCountCapped: %w", err)
	}
	w := newWhere(now)
	// Joined, a name's students were read by a sequential scan the LIMIT was to stop early, and
	// person_search is kept in name order (migration 0011), so "virtanen" read 345,000 of them
	// first (65 ms); collected first through the trigram indexes, 9 ms.
	w.studentsFirst = true
	w.apply(f)
	var n int
	err := q.db.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1
FROM `+w.from()+`
WHERE `+w.sql()+`
LIMIT `+sqlLimit(limit)+`) capped`, w.queryArgs()...).Scan(&n)
	if err != nil {
		return 0, dbError("RegistrationCountCapped", err)
	}
	return n, nil
}

// RegistrationListByIDs returns the live rows with the given ids (superseded ones included), in
// id order; ids naming no row, or a row outside scope, are left out.
func (q *Queries) RegistrationListByIDs(ctx context.Context, now time.Time, ids []string, scope Scope) ([]RegistrationListRow, error) {
	var valid []string
	for _, id := range ids {
		if IsUUID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT `+listColumnsAt("$3")+`
FROM `+listFrom+`
WHERE cr.id = ANY($1::uuid[]) AND `+liveSQL+` AND `+sqlInScope(2)+`
ORDER BY cr.id`, valid, scope.arg(), now)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[RegistrationListRow])
	if err != nil {
		return nil, dbError("RegistrationListByIDs", err)
	}
	return list, nil
}
