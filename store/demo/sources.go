package demo

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// The sources below stream a batch into the LMS's tables. They hand pgx pointers to fields they
// reuse for every row: a pointer fits in an interface without an allocation, where a time or a
// UUID would be copied to the heap. pgx encodes a row's values before it asks for the next row, so
// the reuse is safe. An invalid (zero) value is SQL NULL. Every column with a default of now() is
// written, so the same config always gives the same bytes.

func uid(u [16]byte) pgtype.UUID { return pgtype.UUID{Bytes: u, Valid: true} }

func setUUID(dst *pgtype.UUID, u [16]byte) *pgtype.UUID {
	*dst = pgtype.UUID{Bytes: u, Valid: true}
	return dst
}

func setUUIDOf(dst *pgtype.UUID, r *reg) *pgtype.UUID {
	if r == nil {
		*dst = pgtype.UUID{}
		return dst
	}
	return setUUID(dst, r.id)
}

func setActor(dst *pgtype.UUID, u *staffUser) *pgtype.UUID {
	if u == nil {
		*dst = pgtype.UUID{}
		return dst
	}
	return setUUID(dst, u.id)
}

func setTime(dst *pgtype.Timestamptz, t time.Time) *pgtype.Timestamptz {
	*dst = pgtype.Timestamptz{Time: t, Valid: !t.IsZero()}
	return dst
}

func setText(dst *pgtype.Text, s string) *pgtype.Text {
	*dst = pgtype.Text{String: s, Valid: s != ""}
	return dst
}

func setInt(dst *pgtype.Int4, n int32, valid bool) *pgtype.Int4 {
	*dst = pgtype.Int4{Int32: n, Valid: valid}
	return dst
}

func str(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// The LMS's account of a student: users, then user_details.

var userColumns = []string{"id", "created_at", "updated_at"}

type userSource struct {
	rows             []*student
	i                int
	vals             [3]any
	id               pgtype.UUID
	created, updated pgtype.Timestamptz
}

func (s *userSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *userSource) Err() error { return nil }
func (s *userSource) Values() ([]any, error) {
	x := s.rows[s.i]
	s.vals = [3]any{setUUID(&s.id, x.id), setTime(&s.created, x.createdAt), setTime(&s.updated, x.createdAt)}
	return s.vals[:], nil
}

var userDetailsColumns = []string{"user_id", "created_at", "updated_at", "first_name", "last_name", "email"}

type userDetailsSource struct {
	rows               []*student
	i                  int
	vals               [6]any
	id                 pgtype.UUID
	created, updated   pgtype.Timestamptz
	first, last, email pgtype.Text
}

func (s *userDetailsSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *userDetailsSource) Err() error { return nil }
func (s *userDetailsSource) Values() ([]any, error) {
	x := s.rows[s.i]
	first, last := x.first, x.last
	if x.noName {
		first, last = "", ""
	}
	s.vals = [6]any{
		setUUID(&s.id, x.id), setTime(&s.created, x.createdAt), setTime(&s.updated, x.createdAt),
		setText(&s.first, first), setText(&s.last, last), setText(&s.email, x.email),
	}
	return s.vals[:], nil
}

// verified_student_numbers: the student proved their number with the link mailed to their
// address (emailed_link, which names the address and the Sisu person). A dropped link is the
// same row, deleted when the pipeline dropped it.

var linkColumns = []string{
	"id", "user_id", "student_number", "sisu_person_id", "first_names", "last_name", "verified_at", "verified_via",
	"verified_via_email", "created_at", "updated_at", "deleted_at",
}

type linkSource struct {
	rows                                     []*student
	i                                        int
	vals                                     [12]any
	id, user                                 pgtype.UUID
	number, person, first, last, email       pgtype.Text
	verified, created, updated, deletedAtVal pgtype.Timestamptz
}

func newLinkSource(students []*student) *linkSource {
	var rows []*student
	for _, s := range students {
		if s.number != "" || s.droppedNumber != "" {
			rows = append(rows, s)
		}
	}
	return &linkSource{rows: rows, i: -1}
}

func (s *linkSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *linkSource) Err() error { return nil }
func (s *linkSource) Values() ([]any, error) {
	x := s.rows[s.i]
	number, person, updated := x.number, x.personID, x.linkedAt
	if x.droppedNumber != "" {
		number, person, updated = x.droppedNumber, x.droppedPerson, x.droppedAt
	}
	s.vals = [12]any{
		setUUID(&s.id, x.linkID), setUUID(&s.user, x.id), setText(&s.number, number), setText(&s.person, person),
		// Sisu's names for the person, whatever the LMS account holds.
		setText(&s.first, x.first), setText(&s.last, x.last), setTime(&s.verified, x.linkedAt), "emailed_link",
		setText(&s.email, x.email), setTime(&s.created, x.linkedAt), setTime(&s.updated, updated), setTime(&s.deletedAtVal, x.droppedAt),
	}
	return s.vals[:], nil
}

// course_module_completions: automatic completions (no granter), one per student and module,
// which the push path registers (register_credits_via_suotar).

var completionColumns = []string{
	"id", "created_at", "updated_at", "deleted_at", "course_id", "course_module_id", "user_id", "completion_date",
	"completion_language", "eligible_for_ects", "email", "grade", "passed", "prerequisite_modules_completed",
	"needs_to_be_reviewed", "register_credits_via_suotar",
}

type completionSource struct {
	rows                            []*completion
	i                               int
	vals                            [16]any
	id, user, course, module        pgtype.UUID
	created, updated, deleted, done pgtype.Timestamptz
	grade                           pgtype.Int4
	lang, email                     pgtype.Text
}

func (s *completionSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *completionSource) Err() error { return nil }
func (s *completionSource) Values() ([]any, error) {
	c := s.rows[s.i]
	s.vals = [16]any{
		setUUID(&s.id, c.id), setTime(&s.created, c.createdAt), setTime(&s.updated, c.updatedAt), setTime(&s.deleted, c.deletedAt),
		setUUID(&s.course, c.module.course.id), setUUID(&s.module, c.module.id), setUUID(&s.user, c.student.id),
		setTime(&s.done, c.completionDate), setText(&s.lang, c.module.course.def.lang), c.eligible, setText(&s.email, c.student.email),
		setInt(&s.grade, c.grade, c.grade > 0), true, c.prereqs, c.needsReview, true,
	}
	return s.vals[:], nil
}

// credit_registration_enrolment_routes: the student's "I have enrolled", one per completion.

var routeColumns = []string{"id", "created_at", "updated_at", "course_module_completion_id", "user_id", "route", "enrolment_confirmed_at"}

type routeSource struct {
	rows                 []*completion
	i                    int
	vals                 [7]any
	id, completion, user pgtype.UUID
	created, updated     pgtype.Timestamptz
}

func newRouteSource(completions []*completion) *routeSource {
	var rows []*completion
	for _, c := range completions {
		if !c.pressedAt.IsZero() {
			rows = append(rows, c)
		}
	}
	return &routeSource{rows: rows, i: -1}
}

func (s *routeSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *routeSource) Err() error { return nil }
func (s *routeSource) Values() ([]any, error) {
	c := s.rows[s.i]
	s.vals = [7]any{
		setUUID(&s.id, c.routeID), setTime(&s.created, c.routeAt), setTime(&s.updated, c.pressedAt), setUUID(&s.completion, c.id),
		setUUID(&s.user, c.student.id), c.enrolmentRoute(), &s.updated,
	}
	return s.vals[:], nil
}

var regColumns = []string{
	"id", "course_module_completion_id", "user_id", "course_id", "course_module_id", "course_instance_id",
	"state", "state_entered_at", "error_code", "error_message", "needs_admin_attention",
	"student_number", "sisu_person_id", "uh_course_code", "selected_enrolment_id", "selected_enrolment_kind",
	"selected_enrolment_realisation_id", "attainment_language", "grade_scale_id", "grade_id", "credits",
	"submitted_attainment_id", "submitted_attainment_type", "sisu_attainment_id", "sisu_attainment_type",
	"submit_retry_count", "verify_attempt_count", "next_attempt_at", "first_failed_at", "last_attempt_at",
	"attempt_number", "superseded_by_id", "superseded_at", "enrolment_checked_at", "submitted_at", "registered_at",
	"terminal_at", "created_at", "updated_at", "partially_registered_at", "not_registered_reimport_count",
	"selected_enrolment_realisation_name", "resubmit_not_before", "pending_superseded_by_id", "no_usable_enrolment_since",
	"enrolment_check_group", "enrolment_check_anchor_at", "enrolment_check_step", "enrolment_check_due_at",
	"is_enrolment_check_batched", "enrolment_check_source", "enrolment_checks_stopped_at", "enrolment_check_requested_at",
	"enrolment_check_restart_window_started_at", "enrolment_check_restart_count", "state_changed_at", "phase_started_at",
	"attained_at",
}

// regSource streams a batch's ledger rows; its fields are the scratch values of one row.
type regSource struct {
	rows []*reg
	i    int
	vals [58]any

	id, completion, user, course, module, instance, supersededBy, pendingBy pgtype.UUID

	created, updated, supersededAt, entered, changed, phaseStarted, next, firstFailed, lastAttempt,
	terminal, submitted, registered, checked, partial, notBefore, noEnrolmentSince, attained,
	anchor, dueAt, stoppedAt, requestedAt, restartWindow pgtype.Timestamptz

	state, code, message, number, person, courseCode, enrolment, kind, realisation, lang, scale,
	grade, submittedID, submittedType, sisuID, sisuType, group, source pgtype.Text

	attempt, retries, polls, reimports, step, restarts pgtype.Int4
	credits                                            pgtype.Float4
}

func (s *regSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *regSource) Err() error { return nil }
func (s *regSource) Values() ([]any, error) {
	r := s.rows[s.i]
	c := r.c
	frozen := func(v string) string {
		if !r.frozen {
			return ""
		}
		return v
	}
	var name any
	realisationID := ""
	attainedAt := time.Time{}
	if r.frozen {
		name = r.realisation.nameJSON
		realisationID = r.realisation.id
		attainedAt = r.attainedAt
	}
	submittedType := ""
	if r.submittedAttainmentID != "" {
		submittedType = "AssessmentItemAttainment"
	}
	s.credits = pgtype.Float4{Float32: r.credits, Valid: r.frozen}
	s.vals = [58]any{
		setUUID(&s.id, r.id), setUUID(&s.completion, c.id), setUUID(&s.user, c.student.id), setUUID(&s.course, c.module.course.id),
		setUUID(&s.module, c.module.id), setUUID(&s.instance, c.module.course.instance.id),
		setText(&s.state, r.state), setTime(&s.entered, r.stateEnteredAt), setText(&s.code, r.errorCode), setText(&s.message, r.errorMessage),
		r.needsAdmin,
		setText(&s.number, frozen(r.studentNumber)), setText(&s.person, frozen(r.personID)), setText(&s.courseCode, frozen(r.courseCode)),
		setText(&s.enrolment, frozen(r.enrolmentID)), setText(&s.kind, frozen(r.kind)),
		setText(&s.realisation, realisationID), setText(&s.lang, frozen(r.lang)), setText(&s.scale, frozen(r.gradeScale)),
		setText(&s.grade, frozen(r.gradeID)), &s.credits,
		setText(&s.submittedID, r.submittedAttainmentID), setText(&s.submittedType, submittedType), setText(&s.sisuID, r.sisuAttainmentID),
		setText(&s.sisuType, r.sisuAttainmentType),
		setInt(&s.retries, r.submitRetries, true), setInt(&s.polls, r.verifyAttempts, true), setTime(&s.next, r.nextAttemptAt),
		setTime(&s.firstFailed, r.firstFailedAt), setTime(&s.lastAttempt, r.lastAttemptAt),
		setInt(&s.attempt, r.attempt, true), setUUIDOf(&s.supersededBy, r.supersededBy), setTime(&s.supersededAt, r.supersededAt),
		setTime(&s.checked, r.enrolmentCheckedAt), setTime(&s.submitted, r.submittedAt), setTime(&s.registered, r.registeredAt),
		setTime(&s.terminal, r.terminalAt), setTime(&s.created, r.createdAt), setTime(&s.updated, r.updatedAt),
		setTime(&s.partial, r.partiallyRegisteredAt), setInt(&s.reimports, r.reimports, true),
		name, setTime(&s.notBefore, r.resubmitNotBefore), setUUIDOf(&s.pendingBy, r.pendingSupBy), setTime(&s.noEnrolmentSince, r.noUsableEnrolmentSince),
		setText(&s.group, r.ecGroup), setTime(&s.anchor, r.ecAnchor), setInt(&s.step, r.ecStep, r.ecScheduled), setTime(&s.dueAt, r.ecDueAt),
		r.ecBatched, setText(&s.source, r.ecSource), setTime(&s.stoppedAt, r.ecStoppedAt), setTime(&s.requestedAt, r.ecRequestedAt),
		setTime(&s.restartWindow, r.ecRestartWindow), setInt(&s.restarts, r.ecRestarts, true),
		setTime(&s.changed, r.stateChangedAt), setTime(&s.phaseStarted, r.phaseStartedAt), setTime(&s.attained, attainedAt),
	}
	return s.vals[:], nil
}

var eventColumns = []string{
	"id", "credit_registration_id", "kind", "from_state", "to_state", "error_code", "message", "actor_user_id", "details",
	"created_at", "updated_at", "request_item_id", "suotar_endpoint", "suotar_requested_at", "suotar_answered_at", "suotar_answer",
}

// eventSource streams the events of a batch's rows, row by row; its fields are the scratch
// values of one event.
type eventSource struct {
	rows []*reg
	r, e int
	vals [16]any

	id, reg, actor                                  pgtype.UUID
	at, requested, answered                         pgtype.Timestamptz
	kind, from, to, code, message, endpoint, answer pgtype.Text
}

func (s *eventSource) Next() bool {
	if s.r >= 0 && s.e+1 < len(s.rows[s.r].events) {
		s.e++
		return true
	}
	for {
		s.r++
		if s.r >= len(s.rows) {
			return false
		}
		if len(s.rows[s.r].events) > 0 {
			s.e = 0
			return true
		}
	}
}

func (s *eventSource) Err() error { return nil }

func (s *eventSource) Values() ([]any, error) {
	r := s.rows[s.r]
	e := &r.events[s.e]
	var details, item any
	if e.details != nil {
		details = e.details
	}
	if e.itemID != nil {
		item = e.itemID
	}
	s.vals = [16]any{
		setUUID(&s.id, e.id), setUUID(&s.reg, r.id), setText(&s.kind, e.kind), setText(&s.from, e.from), setText(&s.to, e.to),
		setText(&s.code, e.errorCode), setText(&s.message, e.message), setActor(&s.actor, e.actor), details,
		// Events are never updated: updated_at is their creation.
		setTime(&s.at, e.at), &s.at, item, setText(&s.endpoint, e.endpoint), setTime(&s.requested, e.requestedAt),
		setTime(&s.answered, e.answeredAt), setText(&s.answer, e.answer),
	}
	return s.vals[:], nil
}

var actionColumns = []string{
	"id", "action", "target_kind", "target_id", "actor_user_id", "actor_role", "reason", "before_state", "after_state",
	"details", "affected_row_count", "created_at", "updated_at",
}

// actionSource streams the LMS's audit rows of a batch's rows.
type actionSource struct {
	rows []*reg
	r, a int
	vals [13]any

	id, target, actor             pgtype.UUID
	at                            pgtype.Timestamptz
	action, reason, before, after pgtype.Text
}

func (s *actionSource) Next() bool {
	if s.r >= 0 && s.a+1 < len(s.rows[s.r].actions) {
		s.a++
		return true
	}
	for {
		s.r++
		if s.r >= len(s.rows) {
			return false
		}
		if len(s.rows[s.r].actions) > 0 {
			s.a = 0
			return true
		}
	}
}

func (s *actionSource) Err() error { return nil }

func (s *actionSource) Values() ([]any, error) {
	r := s.rows[s.r]
	a := &r.actions[s.a]
	s.vals = [13]any{
		setUUID(&s.id, a.id), setText(&s.action, a.action), targetRegistration, setUUID(&s.target, r.id), setActor(&s.actor, a.actor),
		actorRoleGlobalAdmin, setText(&s.reason, a.reason), setText(&s.before, a.before), setText(&s.after, a.after), a.details,
		int32(1), setTime(&s.at, a.at), &s.at,
	}
	return s.vals[:], nil
}

var dismissalColumns = []string{"id", "credit_registration_id", "dismissed_reasons", "dismissed_by_user_id", "reason", "created_at", "updated_at"}

// dismissalSource streams the dismissals of a batch's rows.
type dismissalSource struct {
	rows []*reg
	i    int
	vals [7]any

	id, reg, by pgtype.UUID
	at          pgtype.Timestamptz
}

func newDismissalSource(regs []*reg) *dismissalSource {
	var rows []*reg
	for _, r := range regs {
		if r.dismissal != nil {
			rows = append(rows, r)
		}
	}
	return &dismissalSource{rows: rows, i: -1}
}

func (s *dismissalSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *dismissalSource) Err() error { return nil }
func (s *dismissalSource) Values() ([]any, error) {
	r := s.rows[s.i]
	d := r.dismissal
	s.vals = [7]any{
		setUUID(&s.id, d.id), setUUID(&s.reg, r.id), d.reasons, setActor(&s.by, d.by), d.note, setTime(&s.at, d.at), &s.at,
	}
	return s.vals[:], nil
}
