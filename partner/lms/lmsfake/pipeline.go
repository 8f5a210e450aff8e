package lmsfake

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// Pipeline stands in for the LMS's import and verify phases in the demo, where no LMS pipeline
// runs: without it, Check now would make a row due and nothing would ever look at it, and a
// resubmitted row would never go out. Each round it sends the due ready_to_submit rows that carry
// their payload (import_attainments), then takes the due rows the verify phase owns
// (submission_uncertain, awaiting_verification, partially_registered), asks Sisu what became of
// each, and moves the row as the LMS's verify outcomes do (domain.md §2.3): registered on a course
// unit attainment, partially_registered on an assessment item attainment only, misregistered,
// failed_retryable on notRegistered, duplicate when the uncertain recovery finds the credit among
// the student's attainments, and otherwise the row waits VerifyInterval for its next poll. It
// settles supersessions as transition() does and writes one suotar_response event per move; a
// move raises the attention flag on misregistered and clears it otherwise. It does nothing while
// the phase or the row's module is paused, as the LMS would not run them.
//
// It is a fake's part, never started by serve: the real LMS's pipeline does this work.
type Pipeline struct {
	Server *Server
	Sisu   Sisu
	Log    *slog.Logger
	// Every is how often a round runs; DefaultPipelineEvery when 0.
	Every time.Duration
	// Batch is the most rows a round polls; 50 when 0.
	Batch int
	// Since, when set, leaves alone the rows that were already overdue then and no person has
	// acted on since: the demo's data was written with a pipeline that fell behind, and its
	// examples of late and uncertain rows stay until someone acts on them. A row that falls due
	// later, or that a person made due (Check now), is polled.
	Since time.Time
}

// DefaultPipelineEvery is how often the stand-in polls: often, so that a person who pressed
// Check now sees the outcome within a minute, as the demo promises.
const DefaultPipelineEvery = 5 * time.Second

// VerifyInterval is how long a row the stand-in polled without an outcome waits for its next
// poll: the LMS's VERIFY_WINDOW_INTERVAL.
const VerifyInterval = 30 * time.Minute

// Sisu answers what the stand-in asks the registry.
type Sisu interface {
	// Submit sends one registration's payload (Suotar's import_attainments).
	Submit(ctx context.Context, item SubmitItem) (SubmitAnswer, error)
	// Verify answers what became of one submitted attainment (Suotar's verify_attainments).
	Verify(ctx context.Context, submittedAttainmentID string) (SisuAnswer, error)
	// Existing answers whether Sisu holds a course unit attainment for the student on the course
	// code (resolve_enrolments' existingAttainments, the uncertain recovery).
	Existing(ctx context.Context, studentNumber, courseCode string) (SisuAnswer, error)
}

// SisuOutcome is what a SisuAnswer says became of a submission.
type SisuOutcome string

// The outcomes the stand-in moves a row on.
const (
	// SisuUnknown: no outcome yet (submissionPending, an error item, nothing found); the row waits.
	SisuUnknown SisuOutcome = ""
	// SisuRegistered: a course unit attainment.
	SisuRegistered SisuOutcome = "registered"
	// SisuPartial: only the assessment item attainment.
	SisuPartial SisuOutcome = "partial"
	// SisuMisregistered: Sisu reversed or voided it.
	SisuMisregistered SisuOutcome = "misregistered"
	// SisuNotRegistered: the submission did not land.
	SisuNotRegistered SisuOutcome = "not_registered"
)

// SisuAnswer is one answer of Sisu's.
type SisuAnswer struct {
	Outcome SisuOutcome
	// AttainmentID and AttainmentType name the attainment Sisu holds, when it holds one.
	AttainmentID, AttainmentType string
}

// SubmitItem is a registration's frozen payload as the import phase sends it.
type SubmitItem struct {
	StudentNumber, CourseCode, EnrolmentID, AttainmentDate, AttainmentLanguage, GradeScaleID, GradeID string
	Credits                                                                                           float64
}

// SubmitAnswer is the import's answer: Code is Suotar's (sent, duplicateAttainment,
// notImprovedAttainment, or a refusal), with the submitted attainment on sent.
type SubmitAnswer struct {
	Code                                           string
	SubmittedAttainmentID, SubmittedAttainmentType string
}

// Name names the job in logs.
func (p *Pipeline) Name() string { return "demo pipeline (the LMS's import and verify phases)" }

// Interval is how long the runner waits between rounds.
func (p *Pipeline) Interval() time.Duration { return cmp.Or(p.Every, DefaultPipelineEvery) }

// verifyRow is what the stand-in reads of a due row.
type verifyRow struct {
	id, state                              string
	submittedID, studentNumber, courseCode string
}

// RunOnce polls the due rows once and returns how many it moved.
func (p *Pipeline) RunOnce(ctx context.Context) error {
	_, err := p.Poll(ctx)
	return err
}

// Poll sends the due ready rows and polls the due verify rows once, and returns how many changed
// state.
func (p *Pipeline) Poll(ctx context.Context) (int, error) {
	sent, err := p.submit(ctx)
	if err != nil {
		return sent, err
	}
	moved, err := p.verify(ctx)
	return sent + moved, err
}

// due is the stand-in's condition on a due row (cr): due now, live, unsuperseded, falling due or
// acted on since Since, its module not paused.
const due = `cr.next_attempt_at <= ` + nowSQL + `
  AND cr.deleted_at IS NULL AND cr.superseded_by_id IS NULL
  AND (@since::timestamptz IS NULL OR cr.next_attempt_at >= @since OR EXISTS (SELECT 1 FROM credit_registration_events e
    WHERE e.credit_registration_id = cr.id AND e.kind = 'admin_action' AND e.created_at >= @since))
  AND NOT EXISTS (SELECT 1 FROM course_module_suotar_configurations mc
    WHERE mc.course_module_id = cr.course_module_id AND mc.paused_at IS NOT NULL AND mc.deleted_at IS NULL)`

// phaseRunning is true while the named phase is not paused.
func phaseRunning(phase string) string {
	return `NOT EXISTS (SELECT 1 FROM credit_registration_phase_state ps
    WHERE ps.phase = '` + phase + `' AND ps.paused_at IS NOT NULL AND ps.deleted_at IS NULL)`
}

// submit is the import phase for the due ready_to_submit rows that carry their payload (a row a
// person resubmitted keeps the one it was sent with): sent moves a row to awaiting_verification,
// due at once for its first poll; Sisu already holding the credit to duplicate or not_improved; a
// refusal leaves it waiting VerifyInterval.
func (p *Pipeline) submit(ctx context.Context) (int, error) {
	s := p.Server
	rows, err := s.pool.Query(ctx, `
SELECT cr.id::text, cr.student_number, trim(cr.uh_course_code), cr.selected_enrolment_id,
  to_char(c.completion_date AT TIME ZONE 'Europe/Helsinki', 'YYYY-MM-DD'), coalesce(cr.attainment_language, 'fi'),
  cr.grade_scale_id, cr.grade_id, cr.credits::float8
FROM credit_registrations cr
  JOIN course_module_completions c ON c.id = cr.course_module_completion_id
WHERE cr.state = 'ready_to_submit' AND `+due+` AND `+phaseRunning("import")+`
  AND cr.student_number IS NOT NULL AND cr.uh_course_code IS NOT NULL AND cr.selected_enrolment_id IS NOT NULL
  AND cr.grade_scale_id IS NOT NULL AND cr.grade_id IS NOT NULL AND cr.credits IS NOT NULL
ORDER BY cr.next_attempt_at, cr.id
LIMIT @limit`, pgx.NamedArgs{"now": s.dbNow(), "limit": cmp.Or(p.Batch, 50), "since": nilIfZero(p.Since)})
	if err != nil {
		return 0, fmt.Errorf("lmsfake pipeline: ready rows: %w", err)
	}
	type ready struct {
		id   string
		item SubmitItem
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ready, error) {
		var v ready
		return v, r.Scan(&v.id, &v.item.StudentNumber, &v.item.CourseCode, &v.item.EnrolmentID, &v.item.AttainmentDate,
			&v.item.AttainmentLanguage, &v.item.GradeScaleID, &v.item.GradeID, &v.item.Credits)
	})
	if err != nil {
		return 0, fmt.Errorf("lmsfake pipeline: ready rows: %w", err)
	}
	moved := 0
	for _, v := range list {
		ans, err := p.Sisu.Submit(ctx, v.item)
		if err != nil {
			p.log().Warn("demo pipeline: the import did not answer", "registration", v.id, "err", err)
			continue
		}
		to := map[string]string{"sent": "awaiting_verification", "duplicateAttainment": "duplicate", "notImprovedAttainment": "not_improved"}[ans.Code]
		code := schedule.ErrorCode(snakeCase(ans.Code))
		if to == "" && code.Valid() {
			// A refusal, as the import phase records it: a code that waits for the student, the
			// course or a person fails the row for a person; any other is tried again.
			to = "failed_retryable"
			switch code.Class() {
			case schedule.PermanentNeedsStudent, schedule.PermanentNeedsConfig, schedule.PermanentNeedsAdmin:
				to = "failed_permanent"
			}
		} else {
			code = ""
		}
		changed, err := p.recordSubmit(ctx, v.id, to, code, ans)
		if err != nil {
			return moved, err
		}
		if changed {
			moved++
		}
	}
	return moved, nil
}

// recordSubmit writes one import's outcome for the ready row id, as transition() would; to ""
// leaves it ready, waiting VerifyInterval.
func (p *Pipeline) recordSubmit(ctx context.Context, id, to string, code schedule.ErrorCode, ans SubmitAnswer) (bool, error) {
	stay := to == ""
	if stay {
		to = "ready_to_submit"
	}
	return p.write(ctx, id, "ready_to_submit", to, `
UPDATE credit_registrations cr
SET state = @to::credit_registration_state,
  state_entered_at = clock.at,
  state_changed_at = CASE WHEN @moved THEN clock.at ELSE cr.state_changed_at END,
  phase_started_at = CASE WHEN @moved THEN clock.at ELSE cr.phase_started_at END,
  terminal_at = CASE WHEN @to IN ('duplicate', 'not_improved', 'failed_permanent') THEN COALESCE(cr.terminal_at, `+nowSQL+`) END,
  first_failed_at = CASE WHEN @to IN ('failed_permanent', 'failed_retryable') THEN COALESCE(cr.first_failed_at, `+nowSQL+`) ELSE cr.first_failed_at END,
  submitted_at = CASE WHEN @to = 'awaiting_verification' THEN `+nowSQL+` ELSE cr.submitted_at END,
  submitted_attainment_id = CASE WHEN @to = 'awaiting_verification' THEN @sub_id ELSE cr.submitted_attainment_id END,
  submitted_attainment_type = CASE WHEN @to = 'awaiting_verification' THEN @sub_type ELSE cr.submitted_attainment_type END,
  partially_registered_at = CASE WHEN @moved THEN NULL ELSE cr.partially_registered_at END,
  resubmit_not_before = NULL,
  needs_admin_attention = CASE WHEN @to = 'failed_permanent' THEN true WHEN @moved THEN false ELSE cr.needs_admin_attention END,
  error_code = CASE WHEN @code::text IS NOT NULL THEN @code::credit_registration_error_code WHEN @moved THEN NULL ELSE cr.error_code END,
  error_message = CASE WHEN @moved THEN NULL ELSE cr.error_message END,
  last_attempt_at = `+nowSQL+`,
  next_attempt_at = `+nowSQL+` + CASE WHEN @moved THEN interval '0' ELSE @wait::interval END
FROM (SELECT `+clockSQL+` AS at) clock
WHERE cr.id = @id`, pgx.NamedArgs{"moved": !stay, "wait": VerifyInterval.String(),
		"sub_id": nilIfEmpty(ans.SubmittedAttainmentID), "sub_type": nilIfEmpty(ans.SubmittedAttainmentType),
		"code": nilIfEmpty(string(code))}, "import: Suotar answered "+cmp.Or(ans.Code, "nothing"))
}

// verify is the verify phase for the due rows it owns.
func (p *Pipeline) verify(ctx context.Context) (int, error) {
	s := p.Server
	rows, err := s.pool.Query(ctx, `
SELECT cr.id::text, cr.state::text, coalesce(cr.submitted_attainment_id, ''), coalesce(cr.student_number, ''),
  coalesce(trim(cr.uh_course_code), '')
FROM credit_registrations cr
WHERE cr.state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered') AND `+due+` AND `+phaseRunning("verify")+`
ORDER BY cr.next_attempt_at, cr.id
LIMIT @limit`, pgx.NamedArgs{"now": s.dbNow(), "limit": cmp.Or(p.Batch, 50), "since": nilIfZero(p.Since)})
	if err != nil {
		return 0, fmt.Errorf("lmsfake pipeline: due rows: %w", err)
	}
	due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (verifyRow, error) {
		var v verifyRow
		return v, r.Scan(&v.id, &v.state, &v.submittedID, &v.studentNumber, &v.courseCode)
	})
	if err != nil {
		return 0, fmt.Errorf("lmsfake pipeline: due rows: %w", err)
	}
	moved := 0
	for _, v := range due {
		ans, err := p.ask(ctx, v)
		if err != nil {
			// As the LMS's phase does with a failed call: the row is polled again later.
			p.log().Warn("demo pipeline: Sisu did not answer", "registration", v.id, "err", err)
			ans = SisuAnswer{}
		}
		changed, err := p.record(ctx, v, ans)
		if err != nil {
			return moved, err
		}
		if changed {
			moved++
		}
	}
	return moved, nil
}

func (p *Pipeline) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// ask is the verify phase's question for v: a verify poll by its submitted attainment, and for an
// uncertain row the poll left without an outcome, the uncertain recovery.
func (p *Pipeline) ask(ctx context.Context, v verifyRow) (SisuAnswer, error) {
	var ans SisuAnswer
	if v.submittedID != "" {
		var err error
		if ans, err = p.Sisu.Verify(ctx, v.submittedID); err != nil {
			return SisuAnswer{}, err
		}
	}
	if ans.Outcome == SisuUnknown && v.state == "submission_uncertain" && v.studentNumber != "" && v.courseCode != "" {
		found, err := p.Sisu.Existing(ctx, v.studentNumber, v.courseCode)
		if err != nil {
			return SisuAnswer{}, err
		}
		if found.Outcome == SisuRegistered {
			// Recovery found the credit among what Sisu already holds: whose it is, it cannot tell.
			return SisuAnswer{Outcome: "duplicate", AttainmentID: found.AttainmentID, AttainmentType: found.AttainmentType}, nil
		}
	}
	return ans, nil
}

// outcomeState is the state a verify outcome moves a row in from to; "" when it stays.
func outcomeState(from string, o SisuOutcome) string {
	switch o {
	case SisuRegistered:
		return "registered"
	case "duplicate":
		return "duplicate"
	case SisuPartial:
		return "partially_registered"
	case SisuMisregistered:
		return "misregistered"
	case SisuNotRegistered:
		return "failed_retryable"
	}
	return from
}

// record writes one poll's outcome for v, as transition() would: the row locked and still in the
// state it was read in, stamped, settled and one event. It reports whether the state changed.
func (p *Pipeline) record(ctx context.Context, v verifyRow, ans SisuAnswer) (bool, error) {
	to := outcomeState(v.state, ans.Outcome)
	msg := "verify: no outcome yet; polled again in " + VerifyInterval.String()
	if to != v.state {
		msg = fmt.Sprintf("verify: Sisu answered %s", ans.Outcome)
	}
	return p.write(ctx, v.id, v.state, to, `
UPDATE credit_registrations cr
SET state = @to::credit_registration_state,
  state_entered_at = clock.at,
  state_changed_at = CASE WHEN @state_changed THEN clock.at ELSE cr.state_changed_at END,
  phase_started_at = CASE WHEN @phase_changed THEN clock.at ELSE cr.phase_started_at END,
  needs_admin_attention = CASE WHEN @to = 'misregistered' THEN true WHEN @state_changed THEN false ELSE cr.needs_admin_attention END,
  terminal_at = CASE WHEN @terminal THEN COALESCE(cr.terminal_at, `+nowSQL+`) END,
  sisu_attainment_id = CASE WHEN @to IN ('registered', 'duplicate', 'partially_registered') THEN coalesce(@attainment, cr.sisu_attainment_id) ELSE cr.sisu_attainment_id END,
  sisu_attainment_type = CASE WHEN @to IN ('registered', 'duplicate', 'partially_registered') THEN coalesce(@type, cr.sisu_attainment_type) ELSE cr.sisu_attainment_type END,
  registered_at = CASE WHEN @to = 'registered' THEN COALESCE(cr.registered_at, `+nowSQL+`) ELSE cr.registered_at END,
  partially_registered_at = CASE WHEN @to = 'partially_registered' THEN COALESCE(cr.partially_registered_at, `+nowSQL+`) ELSE cr.partially_registered_at END,
  error_code = CASE WHEN @not_registered THEN 'not_registered'::credit_registration_error_code
    WHEN @state_changed THEN NULL ELSE cr.error_code END,
  error_message = CASE WHEN @state_changed THEN NULL ELSE cr.error_message END,
  not_registered_reimport_count = cr.not_registered_reimport_count + CASE WHEN @not_registered THEN 1 ELSE 0 END,
  resubmit_not_before = CASE WHEN @not_registered THEN NULL ELSE cr.resubmit_not_before END,
  verify_attempt_count = CASE WHEN @not_registered THEN 0 ELSE cr.verify_attempt_count + 1 END,
  last_attempt_at = `+nowSQL+`,
  next_attempt_at = `+nowSQL+` + CASE WHEN @state_changed THEN interval '0' ELSE @wait::interval END
FROM (SELECT `+clockSQL+` AS at) clock
WHERE cr.id = @id`, pgx.NamedArgs{
		"state_changed":  to != v.state,
		"phase_changed":  timelinePhase(to) != timelinePhase(v.state),
		"terminal":       isTerminal(to),
		"attainment":     nilIfEmpty(ans.AttainmentID),
		"type":           nilIfEmpty(ans.AttainmentType),
		"not_registered": ans.Outcome == SisuNotRegistered,
		"wait":           VerifyInterval.String(),
	}, msg)
}

// write is one of the stand-in's transition() calls on row id, read in state from: in one
// transaction the row is locked and still in from (else nothing is written: it moved or went since
// it was read, and the next round reads it again), update (an UPDATE of "cr" reading args, with
// @id, @to and @now given here) stamps it, the rows waiting on it are settled when it moved, and
// one suotar_response event says message. It reports whether the state changed.
func (p *Pipeline) write(ctx context.Context, id, from, to, update string, args pgx.NamedArgs, message string) (bool, error) {
	s := p.Server
	tx, err := s.begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx)
	var state string
	err = tx.QueryRow(ctx, `SELECT state::text FROM credit_registrations WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && state != from) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lmsfake pipeline: lock %s: %w", id, err)
	}
	args["id"], args["to"], args["now"] = id, to, s.dbNow()
	if _, err := tx.Exec(ctx, update, args); err != nil {
		return false, fmt.Errorf("lmsfake pipeline: record %s → %s: %w", id, to, err)
	}
	if to != from {
		if err := s.settle(ctx, tx, id, to); err != nil {
			return false, err
		}
	}
	_, err = tx.Exec(ctx, `
INSERT INTO credit_registration_events (credit_registration_id, kind, from_state, to_state, message, created_at)
VALUES (@id, 'suotar_response', @from::credit_registration_state, @to::credit_registration_state, @message, `+clockSQL+`)`,
		pgx.NamedArgs{"id": id, "from": from, "to": to, "message": message, "now": s.dbNow()})
	if err != nil {
		return false, fmt.Errorf("lmsfake pipeline: event for %s: %w", id, err)
	}
	return to != from, tx.Commit(ctx)
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nilIfZero(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// snakeCase is Suotar's camelCase code as the LMS's error code enum writes it:
// studyRightNotValid is study_right_not_valid.
func snakeCase(code string) string {
	var b strings.Builder
	for _, r := range code {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
