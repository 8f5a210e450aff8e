package lmsfake

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The handlers, each writing what its LMS controller writes, in one transaction. The facts are
// from the LMS's ledger.rs [70926634491], errors.rs [71515058884], dashboard.rs [60784932859],
// courses.rs [69424942192] and the models they call: transition.rs [71115419823], row_writes.rs
// [71082675886], attention.rs [71168911011], credit_registration_admin_actions.rs [60821698065],
// credit_registration_phase_state.rs [61093281089]. The SQL is the fake's own.

// nowSQL and clockSQL stand for the LMS's now() and clock_timestamp(), on the injected clock when
// there is one: @now is nil without it.
const (
	nowSQL   = `COALESCE(@now::timestamptz, now())`
	clockSQL = `COALESCE(@now::timestamptz + (clock_timestamp() - now()), clock_timestamp())`
)

// globalAdminRole is GLOBAL_ADMIN_ROLE, the actor_role every admin endpoint records.
const globalAdminRole = "global_admin"

type transitionAnswer struct {
	Outcome             string  `json:"outcome"`
	Refusal             *string `json:"refusal"`
	State               string  `json:"state"`
	NeedsAdminAttention bool    `json:"needs_admin_attention"`
}

type skipCount struct {
	Refusal string `json:"refusal"`
	Count   int64  `json:"count"`
}

type bulkAnswer struct {
	AppliedCount   int64       `json:"applied_count"`
	Skipped        []skipCount `json:"skipped"`
	NotFoundCount  int64       `json:"not_found_count"`
	MaxRowsPerCall int64       `json:"max_rows_per_call"`
}

type requeueAnswer struct {
	RequeuedCount  int64 `json:"requeued_count"`
	MaxRowsPerCall int64 `json:"max_rows_per_call"`
}

type dismissAnswer struct {
	DismissedReasons []string `json:"dismissed_reasons"`
}

type phaseStatus struct {
	Phase                 string     `json:"phase"`
	ProcessName           string     `json:"process_name"`
	ExpectedIntervalSecs  int32      `json:"expected_interval_secs"`
	LastHeartbeatAt       *time.Time `json:"last_heartbeat_at"`
	LastSuccessAt         *time.Time `json:"last_success_at"`
	LastRunFinishedAt     *time.Time `json:"last_run_finished_at"`
	ItemsProcessedLastRun *int32     `json:"items_processed_last_run"`
	ItemsFailedLastRun    *int32     `json:"items_failed_last_run"`
	ConsecutiveFailures   int32      `json:"consecutive_failures"`
	PausedAt              *time.Time `json:"paused_at"`
	PauseReason           *string    `json:"pause_reason"`
	Implemented           bool       `json:"implemented"`
	SecondsSinceHeartbeat *int64     `json:"seconds_since_heartbeat"`
	HeartbeatLate         bool       `json:"heartbeat_late"`
}

// row is the part of a ledger row a hand action is judged on.
type row struct {
	id string
	facts
}

const factColumns = `id::text, state::text, superseded_by_id IS NOT NULL, resubmit_not_before, submitted_at, needs_admin_attention`

func scanRow(r pgx.Row) (row, error) {
	var x row
	err := r.Scan(&x.id, &x.state, &x.superseded, &x.resubmitNotBefore, &x.submittedAt, &x.needsAttention)
	return x, err
}

// transition is admin_transition_credit_registration: one row, read unlocked, refused or applied.
func (s *Server) transition(ctx context.Context, c *call) (any, error) {
	act := c.act
	reason, err := requiredReason(c.reason)
	if err != nil {
		return nil, err
	}
	r, err := scanRow(s.pool.QueryRow(ctx, `SELECT `+factColumns+` FROM credit_registrations WHERE id = $1 AND deleted_at IS NULL`, c.param))
	if err != nil {
		return nil, fmt.Errorf("transition: read %s: %w", c.param, err)
	}
	if r.superseded {
		return nil, badRequest("This attempt has been replaced by a later one. Act on the later one.")
	}
	// Any: a person is looking at this one row.
	if refusal := act.refusal(r.facts, anyStrictness, s.now()); refusal != "" {
		return transitionAnswer{Outcome: "refused", Refusal: &refusal, State: r.state, NeedsAdminAttention: r.needsAttention}, nil
	}
	if s.beforeWrite != nil {
		s.beforeWrite(ctx, r.id)
	}

	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	applied, err := s.apply(ctx, tx, r, act, c.actor, reason)
	if err != nil {
		return nil, err
	}
	if applied.dueNow {
		if err := s.makeDueNow(ctx, tx, []string{r.id}); err != nil {
			return nil, err
		}
	}
	details, _ := json.Marshal(map[string]string{"outcome": applied.outcome})
	if err := s.audit(ctx, tx, auditRow{
		action: "transition_item", targetKind: "credit_registration", targetID: &r.id,
		actor: c.actor, reason: &reason, before: &r.state, after: &applied.state,
		details: details, affected: ptr(1),
	}); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return transitionAnswer{Outcome: applied.outcome, State: applied.state, NeedsAdminAttention: applied.needsAttention}, nil
}

// applied is AppliedHandAction.
type applied struct {
	outcome        string
	state          string
	needsAttention bool
	dueNow         bool
}

// apply is apply_transition: the action on a row already judged, in the caller's transaction.
func (s *Server) apply(ctx context.Context, tx pgx.Tx, r row, act action, actor, reason string) (applied, error) {
	switch act.kind {
	case "clear_needs_admin_attention":
		if !r.needsAttention {
			return applied{outcome: "no_change", state: r.state}, nil
		}
		if _, err := tx.Exec(ctx, `UPDATE credit_registrations SET needs_admin_attention = false WHERE id = $1 AND deleted_at IS NULL`, r.id); err != nil {
			return applied{}, fmt.Errorf("clear the flag of %s: %w", r.id, err)
		}
		if err := s.event(ctx, tx, r.id, nil, nil, actor, reason); err != nil {
			return applied{}, err
		}
		return applied{outcome: "applied", state: r.state}, nil
	case "check_now":
		if err := s.event(ctx, tx, r.id, nil, nil, actor, reason); err != nil {
			return applied{}, err
		}
		return applied{outcome: "applied", state: r.state, needsAttention: r.needsAttention, dueNow: true}, nil
	}
	state, flag, err := s.moveRow(ctx, tx, r.id, r.state, act.toState, actor, reason)
	if err != nil {
		return applied{}, err
	}
	// Nothing else brings a resubmitted row forward: it is made due, unless the move ended it.
	return applied{outcome: "applied", state: state, needsAttention: flag, dueNow: !isTerminal(state)}, nil
}

// moveRow is transition() with the Admin policy and the flag cleared, for the admin-only targets:
// the row locked and checked against the state it was judged in, stamped, its schedule kept or
// cleared, its lease cleared, the rows waiting on it settled, and one admin_action event.
func (s *Server) moveRow(ctx context.Context, tx pgx.Tx, id, expected, to, actor, reason string) (string, bool, error) {
	if to != "ready_to_submit" && to != "cancelled" {
		return "", false, fmt.Errorf("the fake moves rows only to the LMS's admin-only targets, not %q", to)
	}
	var from string
	err := tx.QueryRow(ctx, `SELECT state::text FROM credit_registrations WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, id).Scan(&from)
	if err != nil {
		return "", false, fmt.Errorf("lock %s: %w", id, err)
	}
	if from != expected {
		return "", false, badRequest(fmt.Sprintf("Credit registration %s is in %s, not the expected %s: refusing to overwrite it.", id, rustName(from), rustName(expected)))
	}
	keeps := keepsEnrolmentCheckSchedule(to)
	args := pgx.NamedArgs{
		"id":            id,
		"to":            to,
		"now":           s.dbNow(),
		"state_changed": from != to,
		"phase_changed": timelinePhase(from) != timelinePhase(to),
		"terminal":      isTerminal(to),
		"failure":       isFailedState(to),
		"keeps":         keeps,
		"keeps_waiting": keeps && to != "no_usable_enrolment",
	}
	var state string
	var flag bool
	err = tx.QueryRow(ctx, `
UPDATE credit_registrations cr
SET state = @to::credit_registration_state,
  state_entered_at = clock.at,
  state_changed_at = CASE WHEN @state_changed THEN clock.at ELSE cr.state_changed_at END,
  phase_started_at = CASE WHEN @phase_changed THEN clock.at ELSE cr.phase_started_at END,
  error_code = NULL,
  error_message = NULL,
  needs_admin_attention = false,
  terminal_at = CASE WHEN @terminal THEN COALESCE(cr.terminal_at, `+nowSQL+`) END,
  first_failed_at = CASE WHEN @failure THEN COALESCE(cr.first_failed_at, `+nowSQL+`) ELSE cr.first_failed_at END,
  enrolment_checked_at = CASE
    WHEN cr.state = 'checking_enrolment' AND @to <> 'checking_enrolment' THEN `+nowSQL+`
    ELSE cr.enrolment_checked_at
  END,
  no_usable_enrolment_since = CASE WHEN @keeps_waiting THEN cr.no_usable_enrolment_since END,
  enrolment_check_anchor_at = CASE WHEN @keeps THEN cr.enrolment_check_anchor_at END,
  enrolment_check_step = CASE WHEN @keeps THEN cr.enrolment_check_step END,
  enrolment_check_due_at = CASE WHEN @keeps THEN cr.enrolment_check_due_at END,
  is_enrolment_check_batched = @keeps AND cr.is_enrolment_check_batched,
  enrolment_checks_stopped_at = CASE WHEN @keeps THEN cr.enrolment_checks_stopped_at END,
  enrolment_check_source = CASE WHEN @keeps THEN cr.enrolment_check_source ELSE 'schedule' END,
  enrolment_check_claimed_until = NULL,
  next_attempt_at = `+nowSQL+`
FROM (SELECT `+clockSQL+` AS at) clock
WHERE cr.id = @id
  AND cr.deleted_at IS NULL
RETURNING cr.state::text, cr.needs_admin_attention`, args).Scan(&state, &flag)
	if err != nil {
		return "", false, fmt.Errorf("move %s to %s: %w", id, to, err)
	}
	if err := s.settle(ctx, tx, id, to); err != nil {
		return "", false, err
	}
	if err := s.event(ctx, tx, id, &from, &to, actor, reason); err != nil {
		return "", false, err
	}
	return state, flag, nil
}

// settle is settle_pending_supersessions for one row entering state: the rows waiting to be
// replaced by it are replaced (registered, duplicate) or become the live credit again.
func (s *Server) settle(ctx context.Context, tx pgx.Tx, id, state string) error {
	effect := pendingSupersessionEffect(state)
	if effect == keepPending {
		return nil
	}
	_, err := tx.Exec(ctx, `
UPDATE credit_registrations
SET superseded_by_id = CASE WHEN @complete THEN pending_superseded_by_id ELSE superseded_by_id END,
  superseded_at = CASE WHEN @complete THEN `+nowSQL+` ELSE superseded_at END,
  pending_superseded_by_id = NULL
WHERE pending_superseded_by_id = @id
  AND deleted_at IS NULL`, pgx.NamedArgs{"id": id, "complete": effect == completePending, "now": s.dbNow()})
	if err != nil {
		return fmt.Errorf("settle the rows waiting on %s: %w", id, err)
	}
	return nil
}

// event writes one admin_action event: the reason as its message, the acting user as its actor.
func (s *Server) event(ctx context.Context, tx pgx.Tx, id string, from, to *string, actor, reason string) error {
	_, err := tx.Exec(ctx, `
INSERT INTO credit_registration_events (credit_registration_id, kind, from_state, to_state, message, actor_user_id, created_at)
VALUES (@id, 'admin_action', @from::credit_registration_state, @to::credit_registration_state, @message, @actor, `+clockSQL+`)`,
		pgx.NamedArgs{"id": id, "from": from, "to": to, "message": reason, "actor": actor, "now": s.dbNow()})
	if err != nil {
		return fmt.Errorf("event for %s: %w", id, err)
	}
	return nil
}

// makeDueNow is make_due_now_batch with source admin_request: rows waiting out a backoff become
// claimable now, and a parked row's check is marked as asked for by an admin.
func (s *Server) makeDueNow(ctx context.Context, tx pgx.Tx, ids []string) error {
	_, err := tx.Exec(ctx, `
UPDATE credit_registrations
SET next_attempt_at = `+nowSQL+`,
  enrolment_check_source = CASE
    WHEN state = 'no_usable_enrolment' THEN 'admin_request'
    ELSE enrolment_check_source
  END
WHERE id = ANY(@ids::text[]::uuid[])
  AND next_attempt_at > `+nowSQL+`
  AND superseded_by_id IS NULL
  AND deleted_at IS NULL`, pgx.NamedArgs{"ids": ids, "now": s.dbNow()})
	if err != nil {
		return fmt.Errorf("make due now: %w", err)
	}
	return nil
}

// auditRow is NewCreditRegistrationAdminAction.
type auditRow struct {
	action, targetKind string
	targetID           *string
	targetPhase        *string
	actor              string
	reason             *string
	before, after      *string
	details            []byte
	affected           *int
}

// audit is credit_registration_admin_actions::record, with actor_role global_admin.
func (s *Server) audit(ctx context.Context, tx pgx.Tx, a auditRow) error {
	var details *string
	if a.details != nil {
		d := string(a.details)
		details = &d
	}
	_, err := tx.Exec(ctx, `
INSERT INTO credit_registration_admin_actions (
    action, target_kind, target_id, target_phase, actor_user_id, actor_role, reason,
    before_state, after_state, details, affected_row_count, created_at
  )
VALUES (
    @action::credit_registration_admin_action, @target_kind::credit_registration_admin_action_target,
    @target_id, @target_phase, @actor, @role, @reason,
    @before::credit_registration_state, @after::credit_registration_state, @details::jsonb, @affected, `+nowSQL+`
  )`, pgx.NamedArgs{
		"action": a.action, "target_kind": a.targetKind, "target_id": a.targetID, "target_phase": a.targetPhase,
		"actor": a.actor, "role": globalAdminRole, "reason": a.reason, "before": a.before, "after": a.after,
		"details": details, "affected": a.affected, "now": s.dbNow(),
	})
	if err != nil {
		return fmt.Errorf("audit %s: %w", a.action, err)
	}
	return nil
}

// bulkTransition is admin_bulk_transition_credit_registrations: up to 500 ids, duplicates
// removed, rows locked in id order and judged with AnyExceptSubmissionUncertain, one audit row.
func (s *Server) bulkTransition(ctx context.Context, c *call) (any, error) {
	act, ids := c.act, c.ids
	reason, err := requiredReason(c.reason)
	if err != nil {
		return nil, err
	}
	if len(ids) > maxBulkIDs {
		return nil, badRequest(fmt.Sprintf("At most %d registrations per call.", maxBulkIDs))
	}
	distinct := slices.Clone(ids)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)

	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	rs, err := tx.Query(ctx, `SELECT `+factColumns+` FROM credit_registrations WHERE id = ANY($1::text[]::uuid[]) AND deleted_at IS NULL ORDER BY id FOR UPDATE`, distinct)
	if err != nil {
		return nil, fmt.Errorf("lock the selection: %w", err)
	}
	rows, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (row, error) { return scanRow(r) })
	if err != nil {
		return nil, fmt.Errorf("lock the selection: %w", err)
	}
	now := s.now()
	var appliedCount int64
	var due []string
	skipped := map[string]int64{}
	for _, r := range rows {
		if refusal := act.refusal(r.facts, anyExceptSubmissionUncertain, now); refusal != "" {
			skipped[refusal]++
			continue
		}
		a, err := s.apply(ctx, tx, r, act, c.actor, reason)
		if err != nil {
			return nil, err
		}
		if a.dueNow {
			due = append(due, r.id)
		}
		appliedCount++
	}
	if err := s.makeDueNow(ctx, tx, due); err != nil {
		return nil, err
	}
	skips := make([]skipCount, 0, len(skipped))
	for refusal, n := range skipped {
		skips = append(skips, skipCount{Refusal: refusal, Count: n})
	}
	slices.SortFunc(skips, func(a, b skipCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(refusalOrder[a.Refusal], refusalOrder[b.Refusal]))
	})
	details, _ := json.Marshal(struct {
		Action  action      `json:"action"`
		IDs     []string    `json:"credit_registration_ids"`
		Skipped []skipCount `json:"skipped"`
	}{act, ids, skips})
	// No target_id: the LMS names none for a selection, which its own CHECK refuses (see the
	// package documentation).
	if err := s.audit(ctx, tx, auditRow{
		action: "transition_item", targetKind: "credit_registration", actor: c.actor, reason: &reason,
		details: details, affected: ptr(int(appliedCount)),
	}); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return bulkAnswer{AppliedCount: appliedCount, Skipped: skips, NotFoundCount: int64(len(distinct) - len(rows)), MaxRowsPerCall: maxBulkIDs}, nil
}

// requeueRetryable is admin_requeue_retryable_credit_registrations: every failed_retryable row
// waiting out a backoff made due now, oldest due first, at most 5000; no events.
func (s *Server) requeueRetryable(ctx context.Context, c *call) (any, error) {
	courseID, moduleID := c.courseID, c.moduleID
	reason, err := requiredReason(c.reason)
	if err != nil {
		return nil, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	var n int64
	err = tx.QueryRow(ctx, `
WITH due AS (
  SELECT id
  FROM credit_registrations
  WHERE state = 'failed_retryable'
    AND next_attempt_at > `+nowSQL+`
    AND superseded_by_id IS NULL
    AND deleted_at IS NULL
    AND (@course::uuid IS NULL OR course_id = @course)
    AND (@module::uuid IS NULL OR course_module_id = @module)
  ORDER BY next_attempt_at
  LIMIT @limit
),
updated AS (
  UPDATE credit_registrations cr
  SET next_attempt_at = `+nowSQL+`
  FROM due
  WHERE cr.id = due.id
  RETURNING cr.id
)
SELECT count(*) FROM updated`, pgx.NamedArgs{"course": courseID, "module": moduleID, "limit": maxRequeue, "now": s.dbNow()}).Scan(&n)
	if err != nil {
		return nil, fmt.Errorf("requeue: %w", err)
	}
	details, _ := json.Marshal(map[string]*string{"course_id": courseID, "course_module_id": moduleID})
	kind := "credit_registration"
	if courseID != nil {
		kind = "course"
	}
	if err := s.audit(ctx, tx, auditRow{
		action: "requeue_batch", targetKind: kind, targetID: courseID, actor: c.actor, reason: &reason,
		details: details, affected: ptr(int(min(n, math.MaxInt32))),
	}); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return requeueAnswer{RequeuedCount: n, MaxRowsPerCall: maxRequeue}, nil
}

// dismissAttention is admin_dismiss_credit_registration_attention: the reasons the row carries
// now, the live dismissal replaced, one event, one audit row.
func (s *Server) dismissAttention(ctx context.Context, c *call) (any, error) {
	reason, err := requiredReason(c.reason)
	if err != nil {
		return nil, err
	}
	reasons, err := s.attentionReasons(ctx, c.param)
	if err != nil {
		return nil, err
	}
	if len(reasons) == 0 {
		return nil, badRequest("Nothing puts this registration on the Needs attention queue.")
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	args := pgx.NamedArgs{"id": c.param, "reasons": reasons, "actor": c.actor, "reason": reason, "now": s.dbNow()}
	if _, err := tx.Exec(ctx, `
UPDATE credit_registration_attention_dismissals
SET deleted_at = `+nowSQL+`
WHERE credit_registration_id = @id
  AND deleted_at IS NULL`, args); err != nil {
		return nil, fmt.Errorf("dismiss: retire the old dismissal: %w", err)
	}
	if _, err := tx.Exec(ctx, `
INSERT INTO credit_registration_attention_dismissals (credit_registration_id, dismissed_reasons, dismissed_by_user_id, reason, created_at)
VALUES (@id, @reasons::text[]::credit_registration_attention_reason[], @actor, @reason, `+nowSQL+`)`, args); err != nil {
		return nil, fmt.Errorf("dismiss: %w", err)
	}
	if err := s.event(ctx, tx, c.param, nil, nil, c.actor, reason); err != nil {
		return nil, err
	}
	details, _ := json.Marshal(map[string][]string{"attention_reasons": reasons})
	if err := s.audit(ctx, tx, auditRow{
		action: "dismiss_attention", targetKind: "credit_registration", targetID: &c.param, actor: c.actor,
		reason: &reason, details: details, affected: ptr(1),
	}); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return dismissAnswer{DismissedReasons: reasons}, nil
}

// attentionReasons is get_attention_items for one row: every detector of the LMS's Needs
// attention queue, on the row's own columns, in the reason enum's order. A superseded or missing
// row carries none.
func (s *Server) attentionReasons(ctx context.Context, id string) ([]string, error) {
	var d [11]bool
	err := s.pool.QueryRow(ctx, `
SELECT cr.terminal_at IS NULL
    AND t.secs IS NOT NULL
    AND `+nowSQL+` - cr.state_changed_at > make_interval(secs => t.secs),
  cr.state = 'failed_permanent' AND cr.needs_admin_attention AND cr.error_code IS DISTINCT FROM 'retry_window_expired',
  COALESCE(cr.error_code = 'retry_window_expired', false),
  cr.state = 'misregistered',
  cr.submit_retry_count >= @too_many AND cr.terminal_at IS NULL,
  cr.state = 'submission_uncertain',
  COALESCE(cr.state = 'partially_registered' AND cr.partially_registered_at <= `+nowSQL+` - make_interval(secs => @partial_secs), false),
  COALESCE(cr.state IN ('awaiting_verification', 'partially_registered') AND cr.submitted_at <= `+nowSQL+` - make_interval(secs => @verify_secs), false),
  cr.not_registered_reimport_count >= @reimports AND cr.terminal_at IS NULL,
  COALESCE(
    cr.state = 'pending'
    AND p.completion_eligible
    AND NOT p.has_verified_student_number
    AND cmc.completion_date >= @linking_since::timestamptz
    AND sched.last_mailing_fetch_started_at >= route.enrolment_confirmed_at + make_interval(secs => @stuck_secs)
    AND NOT EXISTS (
      SELECT 1
      FROM credit_registration_account_linking_emails e
        JOIN course_modules code_module ON code_module.course_id = e.course_id AND code_module.deleted_at IS NULL
      WHERE trim(code_module.uh_course_code) = sched.course_code
        AND e.sent_at >= route.enrolment_confirmed_at
        AND e.deleted_at IS NULL
    ),
    false
  ),
  cr.needs_admin_attention
FROM credit_registrations cr
  JOIN courses c ON c.id = cr.course_id
  JOIN course_modules cm ON cm.id = cr.course_module_id
  JOIN course_module_completions cmc ON cmc.id = cr.course_module_completion_id
  JOIN credit_registration_preconditions p ON p.credit_registration_id = cr.id
  LEFT JOIN credit_registration_enrolment_routes route
    ON route.course_module_completion_id = cr.course_module_completion_id AND route.deleted_at IS NULL
  LEFT JOIN credit_registration_roster_schedules sched ON sched.course_code = trim(cm.uh_course_code)
  LEFT JOIN (SELECT unnest(@stuck_states::text[]) AS state, unnest(@stuck_secs_by_state::float8[]) AS secs) t
    ON t.state = cr.state::text
WHERE cr.id = @id
  AND cr.superseded_by_id IS NULL
  AND cr.deleted_at IS NULL`, s.attentionArgs(id)).Scan(&d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7], &d[8], &d[9], &d[10])
	if err == pgx.ErrNoRows {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("attention reasons of %s: %w", id, err)
	}
	names := []string{
		"stuck_in_state", "permanent_error", "retry_window_expired", "misregistered", "too_many_attempts",
		"outcome_uncertain", "partly_registered_overdue", "verification_gave_up", "repeatedly_not_registered",
		"student_number_stuck",
	}
	reasons := []string{}
	for i, name := range names {
		if d[i] {
			reasons = append(reasons, name)
		}
	}
	// flagged_by_pipeline: the flag is up and nothing else explains it.
	if d[10] && len(reasons) == 0 {
		reasons = append(reasons, "flagged_by_pipeline")
	}
	return reasons, nil
}

func (s *Server) attentionArgs(id string) pgx.NamedArgs {
	states := make([]string, 0, len(stuckThresholds))
	secs := make([]float64, 0, len(stuckThresholds))
	for st, d := range stuckThresholds {
		states = append(states, st)
		secs = append(secs, d.Seconds())
	}
	return pgx.NamedArgs{
		"id": id, "now": s.dbNow(),
		"too_many":            tooManySubmitRetries,
		"partial_secs":        partialRegistrationAdminAfter.Seconds(),
		"verify_secs":         verifyMaxAge.Seconds(),
		"reimports":           notRegisteredReimportAdminThreshold,
		"linking_since":       s.opts.AccountLinkingSince,
		"stuck_secs":          studentNumberStuckAfterPress.Seconds(),
		"stuck_states":        states,
		"stuck_secs_by_state": secs,
	}
}

// phaseAction is admin_pause_phase, admin_resume_phase and admin_run_phase_now: the canonical name
// checked first, the write and its audit row committed, then the phase's status read back.
func (s *Server) phaseAction(ctx context.Context, c *call) (any, error) {
	if !slices.Contains(Phases, c.param) {
		return nil, badRequest("Not one of the canonical phase names.")
	}
	phase := c.param
	var reason *string
	var update, auditAction string
	switch c.endpoint {
	case EndpointPausePhase:
		r, err := requiredReason(c.reason)
		if err != nil {
			return nil, err
		}
		reason = &r
		update, auditAction = `paused_at = `+nowSQL+`, paused_by_user_id = @actor, pause_reason = @reason`, "pause_phase"
	case EndpointResumePhase:
		reason = c.reasonOpt
		update, auditAction = `paused_at = NULL, paused_by_user_id = NULL, pause_reason = NULL`, "resume_phase"
	default:
		reason = c.reasonOpt
		update, auditAction = `next_run_at = `+nowSQL, "run_phase_now"
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `UPDATE credit_registration_phase_state SET `+update+` WHERE phase = @phase AND deleted_at IS NULL`,
		pgx.NamedArgs{"phase": phase, "actor": c.actor, "reason": reason, "now": s.dbNow()}); err != nil {
		return nil, fmt.Errorf("%s %s: %w", auditAction, phase, err)
	}
	if err := s.audit(ctx, tx, auditRow{action: auditAction, targetKind: "phase", targetPhase: &phase, actor: c.actor, reason: reason}); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return s.phaseStatus(ctx, phase)
}

// phaseStatus is one_phase_status: the row, with the heartbeat judged on the LMS's application
// clock. A canonical phase with no row is 404, after the write was committed, as in the LMS.
func (s *Server) phaseStatus(ctx context.Context, phase string) (phaseStatus, error) {
	var p phaseStatus
	err := s.pool.QueryRow(ctx, `
SELECT phase, process_name, expected_interval_secs, last_heartbeat_at, last_success_at, last_run_finished_at,
  items_processed_last_run, items_failed_last_run, consecutive_failures, paused_at, pause_reason
FROM credit_registration_phase_state
WHERE phase = $1
  AND deleted_at IS NULL`, phase).Scan(&p.Phase, &p.ProcessName, &p.ExpectedIntervalSecs, &p.LastHeartbeatAt, &p.LastSuccessAt,
		&p.LastRunFinishedAt, &p.ItemsProcessedLastRun, &p.ItemsFailedLastRun, &p.ConsecutiveFailures, &p.PausedAt, &p.PauseReason)
	if err != nil {
		return phaseStatus{}, fmt.Errorf("phase %s: %w", phase, err)
	}
	p.Implemented = slices.Contains(Phases, p.Phase)
	if p.LastHeartbeatAt != nil {
		secs := int64(s.now().Sub(*p.LastHeartbeatAt) / time.Second)
		p.SecondsSinceHeartbeat = &secs
		// is_heartbeat_late: never while paused, late past two intervals.
		p.HeartbeatLate = p.PausedAt == nil && secs > int64(p.ExpectedIntervalSecs)*2
	}
	return p, nil
}

// moduleAction is admin_pause/resume_course_module_credit_registration: the module must have a
// live configuration row; the answer is true.
func (s *Server) moduleAction(ctx context.Context, c *call) (any, error) {
	var reason *string
	pause := c.endpoint == EndpointPauseModule
	if pause {
		r, err := requiredReason(c.reason)
		if err != nil {
			return nil, err
		}
		reason = &r
	} else {
		reason = c.reasonOpt
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM course_module_suotar_configurations WHERE course_module_id = $1 AND deleted_at IS NULL)`, c.param).Scan(&exists); err != nil {
		return nil, fmt.Errorf("module %s: %w", c.param, err)
	}
	if !exists {
		return nil, badRequest("This course module has no credit registration configuration.")
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	// The LMS stamps a module pause with its application clock (Utc::now()), not the database's.
	args := pgx.NamedArgs{"module": c.param, "actor": c.actor, "reason": reason, "at": s.now()}
	set := `paused_at = @at, paused_by_user_id = @actor, pause_reason = @reason`
	action := "pause_course_module"
	if !pause {
		set, action = `paused_at = NULL, paused_by_user_id = NULL, pause_reason = NULL`, "resume_course_module"
	}
	if _, err := tx.Exec(ctx, `UPDATE course_module_suotar_configurations SET `+set+` WHERE course_module_id = @module AND deleted_at IS NULL`, args); err != nil {
		return nil, fmt.Errorf("%s %s: %w", action, c.param, err)
	}
	if err := s.audit(ctx, tx, auditRow{action: action, targetKind: "course_module", targetID: &c.param, actor: c.actor, reason: reason}); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return true, nil
}

// rustName is a state as the LMS's Debug formatting writes it in an error message:
// awaiting_verification is AwaitingVerification.
func rustName(state string) string {
	parts := strings.Split(state, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

func ptr[T any](v T) *T { return &v }
