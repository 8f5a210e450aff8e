package store

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// The student and course pages' reads. Every one takes a course Scope: AllCourses is every
// course; a teacher's scope (their course ids) reaches only students with a registration in one
// of those courses, and only those courses' registrations; the zero Scope reaches nothing.

// sqlInScope is true for a ledger row "cr" in the scope $n, which the statement takes as
// Scope.arg() (NULL for every course, else the courses; an empty array matches nothing). The
// check is in the statement that reads the rows, inside its transaction, so no caller can read
// past it.
func sqlInScope(n int) string {
	return fmt.Sprintf(`($%[1]d::uuid[] IS NULL OR cr.course_id = ANY($%[1]d::uuid[]))`, n)
}

// sqlStudentInScope is true for a student "s" with a live registration in the scope $n
// (Scope.arg(), as for sqlInScope).
func sqlStudentInScope(n int) string {
	return fmt.Sprintf(`($%[1]d::uuid[] IS NULL OR EXISTS (SELECT 1 FROM ledger_mirror cr
    WHERE cr.user_id = s.id AND cr.deleted_at IS NULL AND cr.course_id = ANY($%[1]d::uuid[])))`, n)
}

// likeEscaper makes LIKE's wildcards and escape character literal.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// StudentSearchRow is one student found by the search box.
type StudentSearchRow struct {
	ID            string  `db:"id"`
	Name          string  `db:"name"`
	Email         string  `db:"email"`
	StudentNumber *string `db:"student_number"`
	// RegistrationCount counts the student's registrations in scope, superseded attempts too: the
	// rows their page lists.
	RegistrationCount int64 `db:"registration_count"`
}

// searchMinChars is the shortest text the trigram index can look up: shorter words would scan
// every student.
const searchMinChars = 3

// studentNumberPrefix matches a query that can only be (the start of) a student number.
var studentNumberPrefix = regexp.MustCompile(`^[0-9]+$`)

// studentSearchSQL builds the search for words (the query's words) with $1 the whole query, $2
// the scope and $3 the limit, and returns it with its arguments. A query of digits finds students
// whose live verified number starts with it. Anything else must have every word in the student's
// name or e-mail as the LMS keeps them for search (sqlPersonSearchMatches; accents folded by
// searchPattern), which regdesk's trigram indexes serve as long as one word has searchMinChars
// characters; when none has, the words must also occur together as typed ("li wu"). A shorter
// query matches only an exact student number. The patterns are parameters rather than
// expressions, so the planner sees them and estimates from the trigram statistics.
func studentSearchSQL(query string, words []string, scope Scope, limit int) (string, []any) {
	args := []any{query, scope.arg(), limit}
	arg := func(v string) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	indexed := false
	for _, w := range words {
		indexed = indexed || utf8.RuneCountInString(w) >= searchMinChars
	}
	phrase := strings.Join(words, " ")
	numberPrefix := func() string { return arg(likeEscaper.Replace(strings.ToLower(query)) + "%") }
	var wordStart []string
	wordStartOf := func() []string {
		var out []string
		for _, w := range words {
			out = append(out, sqlPersonSearchWordStart(arg(searchWordStart(w))))
		}
		return out
	}
	count := `(SELECT count(*) FROM ledger_mirror cr
    WHERE cr.user_id = h.id AND cr.deleted_at IS NULL AND ` + sqlInScope(2) + `) AS registration_count`
	numberOnly := studentNumberPrefix.MatchString(query) && utf8.RuneCountInString(query) >= searchMinChars
	if numberOnly || (!indexed && utf8.RuneCountInString(phrase) < searchMinChars) {
		// By number: the LMS's verified numbers, through their own index.
		match := `sv.student_number = $1`
		if numberOnly {
			match = `sv.student_number LIKE ` + arg(likeEscaper.Replace(query)+"%")
		}
		wordStart = wordStartOf()
		sql := `WITH hits AS (
  SELECT s.id, sd.first_name, sd.last_name, sd.email, sv.student_number,
    CASE
      WHEN sv.student_number = $1 THEN 0
      WHEN sv.student_number LIKE ` + numberPrefix() + ` THEN 1
      WHEN ` + strings.Join(wordStart, " AND ") + ` THEN 2
      ELSE 3
    END AS rank
  FROM users s
    LEFT JOIN user_details sd ON sd.user_id = s.id
    LEFT JOIN person_search ps ON ps.user_id = s.id
    LEFT JOIN verified_student_numbers sv ON sv.user_id = s.id AND sv.deleted_at IS NULL
  WHERE s.deleted_at IS NULL
    AND ` + match + `
    AND ` + sqlStudentInScope(2) + `
  ORDER BY rank, sd.last_name, sd.first_name, s.id
  LIMIT $3
)
SELECT h.id::text AS id, coalesce(btrim(concat_ws(' ', h.first_name, h.last_name)), '') AS name,
  coalesce(h.email, '') AS email, h.student_number,
  ` + count + `
FROM hits h
ORDER BY h.rank, h.last_name, h.first_name, h.id`
		return sql, args
	}
	// By name or e-mail: ranked and cut to the page from regdesk's copy alone (person_search, its
	// trigram indexes and its copies of the sort keys and the number), and the LMS's tables read
	// for the page's rows only.
	var contains []string
	for _, w := range words {
		contains = append(contains, sqlPersonSearchMatches(arg(searchPattern(w))))
	}
	if !indexed {
		contains = append(contains, sqlPersonSearchMatches(arg(searchPattern(phrase))))
	}
	wordStart = wordStartOf()
	sql := `WITH hits AS (
  SELECT ps.user_id AS id, ps.first_name, ps.last_name,
    CASE
      WHEN ps.student_number = $1 THEN 0
      WHEN ps.student_number LIKE ` + numberPrefix() + ` THEN 1
      WHEN ` + strings.Join(wordStart, " AND ") + ` THEN 2
      ELSE 3
    END AS rank
  FROM person_search ps
  WHERE NOT ps.deleted
    AND ` + strings.Join(contains, " AND ") + `
    AND ($2::uuid[] IS NULL OR EXISTS (SELECT 1 FROM ledger_mirror cr
      WHERE cr.user_id = ps.user_id AND cr.deleted_at IS NULL AND cr.course_id = ANY($2::uuid[])))
  ORDER BY rank, ps.last_name, ps.first_name, ps.user_id
  LIMIT $3
)
SELECT h.id::text AS id, coalesce(btrim(concat_ws(' ', sd.first_name, sd.last_name)), '') AS name,
  coalesce(sd.email, '') AS email, sv.student_number,
  ` + count + `
FROM hits h
  JOIN users s ON s.id = h.id AND s.deleted_at IS NULL
  LEFT JOIN user_details sd ON sd.user_id = h.id
  LEFT JOIN verified_student_numbers sv ON sv.user_id = h.id AND sv.deleted_at IS NULL
ORDER BY h.rank, h.last_name, h.first_name, h.id`
	return sql, args
}

// StudentSearch finds up to limit students by student number (exact or prefix) or by part of
// their name or e-mail, ignoring case. Every word of the query must match. Exact numbers come
// first, then number prefixes, then students with a word starting with the query, then other
// matches; ties by name. A query shorter than three characters finds only an exact student
// number; a blank one finds nobody.
func (q *Queries) StudentSearch(ctx context.Context, query string, scope Scope, limit int) ([]StudentSearchRow, error) {
	query = strings.TrimSpace(query)
	words := strings.Fields(query)
	if len(words) == 0 || limit <= 0 {
		return nil, nil
	}
	sql, args := studentSearchSQL(query, words, scope, limit)
	rows, _ := q.db.Query(ctx, sql, args...)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[StudentSearchRow])
	if err != nil {
		return nil, dbError("StudentSearch", err)
	}
	return list, nil
}

// Student is a student as their page heads it. The LMS may know neither name nor e-mail: those
// are "" then.
type Student struct {
	ID            string  `db:"id"`
	FirstName     string  `db:"first_name"`
	LastName      string  `db:"last_name"`
	Email         string  `db:"email"`
	StudentNumber *string `db:"student_number"`
}

// Name is the student's full name; "" when the LMS knows neither part.
func (s Student) Name() string { return strings.TrimSpace(s.FirstName + " " + s.LastName) }

// StudentGet returns the student with the given id, or ErrNotFound: for a deleted student, and
// for one without a registration in scope, so a teacher learns
// nothing about students outside their courses.
func (q *Queries) StudentGet(ctx context.Context, id string, scope Scope) (Student, error) {
	if !IsUUID(id) {
		return Student{}, fmt.Errorf("StudentGet %q: %w", id, ErrNotFound)
	}
	rows, _ := q.db.Query(ctx, `SELECT s.id::text AS id, coalesce(sd.first_name, '') AS first_name,
  coalesce(sd.last_name, '') AS last_name, coalesce(sd.email, '') AS email, sv.student_number
FROM users s
  LEFT JOIN user_details sd ON sd.user_id = s.id
  LEFT JOIN verified_student_numbers sv ON sv.user_id = s.id AND sv.deleted_at IS NULL
WHERE s.id = $1 AND s.deleted_at IS NULL AND `+sqlStudentInScope(2), id, scope.arg())
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Student])
	if err != nil {
		return Student{}, dbError(fmt.Sprintf("StudentGet %s", id), err)
	}
	return s, nil
}

// RegistrationOverview is one registration as the student and course pages show it: what a
// teacher asks about (course, grade, credits) and what schedule.StudentView reads.
type RegistrationOverview struct {
	ID        string    `db:"id"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
	Classified
	AttemptNumber int32 `db:"attempt_number"`
	RegistrationAbout
	CourseModuleID string     `db:"course_module_id"`
	ErrorMessage   *string    `db:"error_message"`
	CompletionDate time.Time  `db:"completion_date"`
	Passed         bool       `db:"passed"`
	RegisteredAt   *time.Time `db:"registered_at"`
	// Grade is the frozen payload's Sisu grade once the row has one, else the completion's grade;
	// nil for a pass/fail completion not yet frozen.
	Grade *string `db:"grade"`
	// GradeScaleID is the frozen payload's Sisu grade scale; nil before the payload is frozen.
	GradeScaleID *string `db:"grade_scale_id"`
	// Credits are the frozen payload's credits, else the module's.
	Credits *float32 `db:"credits"`
	// AttainmentLanguage is the language the attainment is registered in ("fi", "sv", "en"): the
	// course's language, which a message to the student defaults to; nil when not frozen yet.
	AttainmentLanguage *string `db:"attainment_language"`
	PreconditionColumns
	// StudentStatus is the SQL mirror of schedule.StudentStatusOf, which orders and counts rows in
	// the database; pages take the status from schedule.StudentView.
	StudentStatus schedule.StudentStatus `db:"student_status"`
	ClaimColumns
}

// PreconditionColumns are the credit_registration_preconditions view's columns, and how far the
// row had got: what schedule.StudentView reads beside the row.
type PreconditionColumns struct {
	CompletionDeleted        bool `db:"completion_deleted"`
	CompletionEligible       bool `db:"completion_eligible"`
	HasVerifiedStudentNumber bool `db:"has_verified_student_number"`
	FrozenIdentityStale      bool `db:"frozen_identity_stale"`
	CourseCodeAllowed        bool `db:"course_code_allowed"`
	EnrolmentResolved        bool `db:"enrolment_resolved"`
	Submitted                bool `db:"submitted"`
}

// preconditionColumns selects PreconditionColumns from cr and its preconditions p.
const preconditionColumns = `p.completion_deleted, p.completion_eligible, p.has_verified_student_number, p.frozen_identity_stale,
  p.course_code_allowed, cr.enrolment_resolved,
  cr.submitted_attainment_id IS NOT NULL AS submitted`

// Preconditions returns the row's preconditions as schedule reads them.
func (r PreconditionColumns) Preconditions() schedule.Preconditions {
	return schedule.Preconditions{
		CompletionDeleted:        r.CompletionDeleted,
		CompletionEligible:       r.CompletionEligible,
		HasVerifiedStudentNumber: r.HasVerifiedStudentNumber,
		CourseCodeAllowed:        r.CourseCodeAllowed,
		EnrolmentResolved:        r.EnrolmentResolved,
		Submitted:                r.Submitted,
	}
}

// sqlStudentStatus mirrors schedule.StudentStatusOf over the ledger row "cr" and its
// preconditions "p"; TestRegistrationListByCourseMirrorsStudentStatus holds them together.
const sqlStudentStatus = `CASE
    WHEN cr.state = 'pending' THEN CASE
      WHEN p.completion_deleted THEN 'not_registering'
      WHEN NOT p.completion_eligible THEN 'waiting_for_completion'
      WHEN NOT p.has_verified_student_number THEN 'needs_student_number'
      WHEN NOT p.course_code_allowed THEN 'held_for_course_setup'
      ELSE 'looking_for_enrolment' END
    WHEN cr.state IN ('ready_to_submit', 'resolving_enrolment', 'checking_enrolment') THEN 'looking_for_enrolment'
    WHEN cr.state = 'no_usable_enrolment' THEN 'needs_enrolment'
    WHEN cr.state = 'submitting' THEN 'sending'
    WHEN cr.state = 'failed_retryable' THEN CASE
      WHEN cr.enrolment_resolved OR cr.submitted_attainment_id IS NOT NULL THEN 'sending'
      ELSE 'looking_for_enrolment' END
    WHEN cr.state IN ('submission_uncertain', 'awaiting_verification') THEN 'waiting_for_sisu'
    WHEN cr.state = 'partially_registered' THEN 'partly_registered'
    WHEN cr.state IN ('registered', 'duplicate', 'not_improved') THEN 'registered'
    WHEN cr.state IN ('misregistered', 'failed_permanent') THEN 'failed'
    WHEN cr.state IN ('blocked', 'cancelled') THEN 'not_registering'
    ELSE cr.state::text
  END`

// CourseListOrder returns the order of a course's registrations by student-facing status, which
// RegistrationListByCourse sorts by and a course page groups by: those the student can act on
// first, then those a person must fix, then the ones moving by themselves, then the finished.
func CourseListOrder() []schedule.StudentStatus { return slices.Clone(courseListOrder) }

var courseListOrder = []schedule.StudentStatus{
	schedule.StudentNeedsStudentNumber, schedule.StudentNeedsEnrolment, schedule.StudentWaitingForCompletion,
	schedule.StudentHeldForCourseSetup, schedule.StudentFailed, schedule.StudentLookingForEnrolment,
	schedule.StudentSending, schedule.StudentWaitingForSisu, schedule.StudentPartlyRegistered,
	schedule.StudentRegistered, schedule.StudentNotRegistering,
}

// overviewColumnsAt selects RegistrationOverview from overviewFrom, its blocking problems at now
// (a parameter such as "$3").
func overviewColumnsAt(now string) string {
	return overviewColumns + `, ` + problemColumns(now)
}

const overviewColumns = `cr.id::text AS id, cr.created_at, cr.updated_at, ` + scheduleColumns + `,
  cr.attempt_number, ` + studentColumns + `, coalesce(sv.student_number, cr.student_number) AS student_number,
  c.id::text AS course_id, c.name AS course_name, m.id::text AS course_module_id, coalesce(m.name, '') AS module_name,
  coalesce(cr.uh_course_code, m.uh_course_code) AS uh_course_code, cr.error_message,
  cmc.completion_date, cmc.passed, cr.registered_at,
  coalesce(lr.grade_id, cmc.grade::text) AS grade, lr.grade_scale_id,
  coalesce(lr.credits, m.ects_credits) AS credits, lr.attainment_language,
  ` + preconditionColumns + `,
  ` + sqlStudentStatus + ` AS student_status, ` + claimColumns

const overviewFrom = `ledger_mirror cr
  JOIN credit_registrations lr ON lr.id = cr.id
  JOIN credit_registration_preconditions p ON p.credit_registration_id = cr.id
  JOIN ` + studentJoin + `
  JOIN courses c ON c.id = cr.course_id
  JOIN course_modules m ON m.id = cr.course_module_id
  JOIN course_module_completions cmc ON cmc.id = cr.course_module_completion_id
  LEFT JOIN credit_registration_attention_dismissals d
    ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL` + claimJoin

// RegistrationListByStudent returns every live registration of the student in scope, superseded
// attempts too, newest first.
func (q *Queries) RegistrationListByStudent(ctx context.Context, now time.Time, studentID string, scope Scope) ([]RegistrationOverview, error) {
	if !IsUUID(studentID) {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT `+overviewColumnsAt("$3")+`
FROM `+overviewFrom+`
WHERE cr.user_id = $1 AND `+liveSQL+` AND `+sqlInScope(2)+`
ORDER BY cr.created_at DESC, cr.id DESC`, studentID, scope.arg(), now)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[RegistrationOverview])
	if err != nil {
		return nil, dbError("RegistrationListByStudent", err)
	}
	return list, nil
}

// StudentRank is s's place in CourseListOrder, 1-based, as the ledger keeps it in student_rank
// (migration 0008); 99 for a status regdesk does not know, which lists last.
func StudentRank(s schedule.StudentStatus) int16 {
	if i := slices.Index(courseListOrder, s); i >= 0 {
		return int16(i + 1)
	}
	return unknownStudentRank
}

const unknownStudentRank = 99

// StudentRankOfState is the student_rank of a row in state st that is not pending (a pending
// row's rank reads its completion, student and module), with whether an enrolment was found and
// whether Suotar accepted a submission. ok is false for a pending row. Bulk writers that skip the
// ledger's triggers use it.
func StudentRankOfState(st schedule.State, enrolmentResolved, submitted bool) (rank int16, ok bool) {
	if st == schedule.StatePending {
		return 0, false
	}
	status := schedule.StudentStatusOf(schedule.Row{State: st}, schedule.Preconditions{EnrolmentResolved: enrolmentResolved, Submitted: submitted})
	return StudentRank(status), true
}

// RegistrationListByCourse returns up to limit of the course's live, unsuperseded registrations
// (nothing when scope does not hold the course): those a student can act on first, then the rest
// by student-facing status in the order of CourseListOrder, most recently active first within
// each. RegistrationCountsByStudentStatus counts all of them. The order is the row's stored
// student_rank, so the largest course is a range scan that stops at limit.
func (q *Queries) RegistrationListByCourse(ctx context.Context, now time.Time, courseID string, scope Scope, limit int) ([]RegistrationOverview, error) {
	if !IsUUID(courseID) || limit <= 0 {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT `+overviewColumnsAt("$3")+`
FROM `+overviewFrom+`
WHERE cr.course_id = $1 AND `+liveSQL+` AND cr.superseded_by_id IS NULL AND `+sqlInScope(2)+`
ORDER BY cr.student_rank, cr.updated_at DESC, cr.id DESC
LIMIT `+sqlLimit(limit), courseID, scope.arg(), now)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[RegistrationOverview])
	if err != nil {
		return nil, dbError("RegistrationListByCourse", err)
	}
	return list, nil
}

// CourseCountCap bounds each of a course page's counts: a count of CourseCountCap means "that
// many or more". Counting the 232,000 registered rows of the largest course exactly would read
// them all on every page view; counting up to the cap reads at most that many index entries per
// status, as River UI's capped counts do.
const CourseCountCap = 10_000

// RegistrationCountsByStudentStatus counts the course's live, unsuperseded registrations per
// student-facing status, each up to CourseCountCap; empty when scope does not hold the course.
func (q *Queries) RegistrationCountsByStudentStatus(ctx context.Context, courseID string, scope Scope) (map[schedule.StudentStatus]int64, error) {
	out := map[schedule.StudentStatus]int64{}
	if !IsUUID(courseID) {
		return out, nil
	}
	ranks := make([]int16, 0, len(courseListOrder)+1)
	for _, st := range courseListOrder {
		ranks = append(ranks, StudentRank(st))
	}
	ranks = append(ranks, unknownStudentRank)
	rows, _ := q.db.Query(ctx, `SELECT r.rank, (SELECT count(*) FROM (SELECT 1 FROM ledger_mirror cr
    WHERE cr.course_id = $1 AND cr.student_rank = r.rank AND `+liveSQL+` AND cr.superseded_by_id IS NULL AND `+sqlInScope(2)+`
    LIMIT `+sqlLimit(CourseCountCap)+`) capped)
FROM unnest($3::smallint[]) AS r(rank)`, courseID, scope.arg(), ranks)
	type rankCount struct {
		Rank int16
		N    int64
	}
	counts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rankCount])
	if err != nil {
		return nil, dbError("RegistrationCountsByStudentStatus", err)
	}
	for _, c := range counts {
		if c.N == 0 {
			continue
		}
		if int(c.Rank) >= 1 && int(c.Rank) <= len(courseListOrder) {
			out[courseListOrder[c.Rank-1]] += c.N
		} else {
			out["unknown"] += c.N
		}
	}
	return out, nil
}
