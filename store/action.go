package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file applies one person's hand action to one registration (bulk.go applies one action to
// many). Each runs in one transaction that locks the row, checks it is the version the person's
// page showed, decides again with schedule.Decide on the locked row and its latest Sisu lookup,
// and writes the change, an admin_action event and an audit row together, so a second click, a
// second person or a pipeline write in between can never turn into a second registration. The
// locked read (actionRowsByID) and the write (applyAction) here serve bulk.go too.

// ActionReasonMaxLength is the longest reason a person may type, in characters.
const ActionReasonMaxLength = 2000

// ErrRefused reports that the rules refuse an action on a row as it is now.
var ErrRefused = errors.New("refused")

// ActionActor is the person a hand action is recorded for. The caller has checked they may act.
type ActionActor struct {
	// ID is the accounts.id of the person.
	ID string
	// Role is their role as the audit records it (admin, support).
	Role string
}

// ValidationError reports input the person must correct; nothing was written. Key and Args name
// the sentence in the catalogue (views/i18n), so the edge tells the person in their language;
// Message is the same in English, for logs and the command line.
type ValidationError struct {
	Field   string
	Message string
	Key     string
	Args    []any
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Message }

// Change is the latest recorded change of a row: who made it, when, and what it did.
type Change struct {
	At time.Time
	// ActorName is the person who made it; "" when the pipeline did.
	ActorName string
	// Kind is the event kind (admin_action, state_changed, suotar_response, ...).
	Kind string
	// FromState and ToState are the move, "" when the event names none.
	FromState, ToState schedule.State
	// Message is the event's message: for a hand action, the person's reason.
	Message string
}

// StaleError reports that the row changed since the person's page was drawn: nothing was
// written. It says who changed it, when and to what, so the page can show that and offer a
// reload. errors.Is(err, ErrConflict) holds.
type StaleError struct {
	RegistrationID string
	// SeenVersion is the version the page showed; Version is the row's version now.
	SeenVersion, Version int64
	// State is the row's state now, and UpdatedAt when it was last written.
	State     schedule.State
	UpdatedAt time.Time
	// LastChange is the newest event that changed the row; nil when it has none.
	LastChange *Change
	// SeenLookupID and LookupID differ when a newer Sisu lookup is what changed: the decision
	// would rest on evidence the person has not seen.
	SeenLookupID, LookupID string
	// Lookup is the row's newest lookup, as the locked read saw it; nil when it has none.
	Lookup *LookupSummary
}

func (e *StaleError) Error() string {
	if e.SeenVersion == e.Version {
		return fmt.Sprintf("registration %s has a newer Sisu lookup than the page showed", e.RegistrationID)
	}
	return fmt.Sprintf("registration %s changed since the page showed it (version %d, now %d)", e.RegistrationID, e.SeenVersion, e.Version)
}

// Unwrap makes a stale row a conflict.
func (e *StaleError) Unwrap() error { return ErrConflict }

// RefusedError reports that the rules refuse the action on the row as it is now; nothing was
// written. Decision says why in words.
type RefusedError struct {
	RegistrationID string
	Decision       schedule.Decision
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s on registration %s refused: %s", e.Decision.Action, e.RegistrationID, e.Decision.Refusal)
}

// Unwrap makes a refusal ErrRefused.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// RiskConfirmationError reports an allowed action whose risk the person has not confirmed by
// name; nothing was written. The page asks again, naming Risk.
type RiskConfirmationError struct {
	RegistrationID string
	Risk           schedule.RiskLabel
	Decision       schedule.Decision
}

func (e *RiskConfirmationError) Error() string {
	return fmt.Sprintf("%s on registration %s needs the risk %s confirmed", e.Decision.Action, e.RegistrationID, e.Risk)
}

// actionRow is a registration as the hand-action rules read it, with its latest lookup.
type actionRow struct {
	ID                      string  `db:"id"`
	Version                 int64   `db:"version"`
	SubmittedAttainmentID   *string `db:"submitted_attainment_id"`
	SubmittedAttainmentType *string `db:"submitted_attainment_type"`
	ScheduleColumns
	LookupID      *string         `db:"lookup_id"`
	LookupAt      *time.Time      `db:"lookup_at"`
	LookupDetails json.RawMessage `db:"lookup_details"`
	LookupActor   *string         `db:"lookup_actor"`
	// linkedTo is filled after the read: another row holding the lookup's match.
	linkedTo string
}

const actionRowColumns = `cr.id::text AS id, cr.version, cr.submitted_attainment_id, cr.submitted_attainment_type,
  ` + scheduleColumns + `,
  lk.id::text AS lookup_id, lk.created_at AS lookup_at, lk.details AS lookup_details, la.name AS lookup_actor`

const actionRowFrom = `credit_registrations cr
  LEFT JOIN credit_registration_attention_dismissals d ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL
  LEFT JOIN LATERAL (SELECT e.id, e.created_at, e.details, e.actor_user_id FROM credit_registration_events e
    WHERE e.credit_registration_id = cr.id AND e.kind = 'sisu_lookup'
    ORDER BY e.created_at DESC, e.id DESC LIMIT 1) lk ON true
  LEFT JOIN accounts la ON la.id = lk.actor_user_id`

func (r *actionRow) lookup() *LookupSummary {
	if r.LookupID == nil || r.LookupAt == nil {
		return nil
	}
	return &LookupSummary{EventID: *r.LookupID, At: *r.LookupAt, ActorName: Deref(r.LookupActor), LookupDetails: ParseLookupDetails(r.LookupDetails)}
}

func (r *actionRow) lookupID() string { return Deref(r.LookupID) }

func (r *actionRow) scheduleFacts() schedule.Facts {
	return schedule.Facts{
		Row:                   r.ScheduleRow(),
		SubmittedAttainmentID: Deref(r.SubmittedAttainmentID),
		Lookup:                r.lookup().ScheduleLookup(),
		MatchLinkedTo:         r.linkedTo,
	}
}

// actionRowsByID reads the rows with the given ids, in id order, and marks those whose lookup
// matched an attainment another live row already holds. Call it after locking the rows, as its
// own statement, so it sees what committed while the lock was awaited.
func (q *Queries) actionRowsByID(ctx context.Context, ids []string, scope []string) ([]actionRow, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+actionRowColumns+`
FROM `+actionRowFrom+`
WHERE cr.id = ANY($1::uuid[]) AND `+liveSQL+` AND `+sqlInScope(2)+`
ORDER BY cr.id`, ids, scope)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[actionRow])
	if err != nil {
		return nil, dbError("actionRowsByID", err)
	}
	var matches []string
	for i := range list {
		if lk := list[i].lookup(); lk != nil && lk.MatchID != "" {
			matches = append(matches, lk.MatchID)
		}
	}
	if len(matches) == 0 {
		return list, nil
	}
	holders, err := q.matchHolders(ctx, matches)
	if err != nil {
		return nil, fmt.Errorf("actionRowsByID: %w", err)
	}
	for i := range list {
		list[i].linkedTo = linkedTo(holders, list[i].lookup().matchID(), list[i].ID)
	}
	return list, nil
}

// ActionParams is one person's hand action on one registration.
type ActionParams struct {
	RegistrationID string
	Action         schedule.Action
	// Version is the row version the person's page showed.
	Version int64
	// LookupID is the id of the newest lookup the page showed; "" when it showed none. Actions
	// that rest on a lookup (mark in Sisu, mark registered, resubmit) are refused as stale when
	// a newer one exists.
	LookupID string
	// Reason is what the person typed; it is required.
	Reason string
	// ConfirmedRisk is the risk the person confirmed by name; an action whose decision carries a
	// risk other than normal needs it.
	ConfirmedRisk schedule.RiskLabel
	Actor         ActionActor
	// Scope, when not nil, limits the action to rows of these courses: a row outside it is not
	// found, checked in the same locked read the rules decide on.
	Scope []string
}

// ActionResult is what an applied hand action did.
type ActionResult struct {
	RegistrationID string
	Decision       schedule.Decision
	Before, After  schedule.State
	// Version is the row's version after the action.
	Version int64
	AuditID string
}

// validateAction checks what a person typed or the page sent, so a mistake writes nothing.
func validateAction(a schedule.Action, reason string, actor ActionActor) (string, error) {
	if !a.Valid() {
		return "", &ValidationError{Field: "action", Message: fmt.Sprintf("%q is not a hand action", string(a)), Key: "invalid.action", Args: []any{"Action", string(a)}}
	}
	if !IsUUID(actor.ID) || strings.TrimSpace(actor.Role) == "" {
		return "", &ValidationError{Field: "actor", Message: "a hand action must name the person taking it", Key: "invalid.actor"}
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return "", &ValidationError{Field: "reason", Message: "Give a reason: it is recorded with the action.", Key: "invalid.actionReason"}
	}
	if n := utf8.RuneCountInString(reason); n > ActionReasonMaxLength {
		return "", &ValidationError{Field: "reason", Message: fmt.Sprintf("The reason is %d characters long; keep it under %d.", n, ActionReasonMaxLength), Key: "invalid.actionReasonLong", Args: []any{"Count", n, "Max", ActionReasonMaxLength}}
	}
	return reason, nil
}

// restsOnLookup lists the actions whose decision reads the lookup.
func restsOnLookup(a schedule.Action) bool {
	return a == schedule.ActionMarkInSisu || a == schedule.ActionMarkRegistered || a == schedule.ActionResubmit
}

// RegistrationActionApply applies one person's hand action to one registration in one
// transaction. It returns *ValidationError for bad input, ErrNotFound for an unknown row or one
// outside p.Scope,
// *StaleError (ErrConflict) when the row or its lookup changed since the page showed it,
// *RefusedError (ErrRefused) when the rules refuse the action now, and *RiskConfirmationError
// when a risk was not confirmed; in every one of those cases nothing is written.
func (s *Store) RegistrationActionApply(ctx context.Context, now time.Time, p ActionParams) (ActionResult, error) {
	reason, err := validateAction(p.Action, p.Reason, p.Actor)
	if err != nil {
		return ActionResult{}, err
	}
	if !IsUUID(p.RegistrationID) {
		return ActionResult{}, fmt.Errorf("RegistrationActionApply %q: %w", p.RegistrationID, ErrNotFound)
	}
	op := fmt.Sprintf("RegistrationActionApply %s %s", p.Action, p.RegistrationID)
	var out ActionResult
	err = s.InTx(ctx, func(q *Queries) error {
		var version int64
		err := q.db.QueryRow(ctx, `SELECT cr.version FROM credit_registrations cr
WHERE cr.id = $1 AND `+liveSQL+` AND `+sqlInScope(2)+` FOR UPDATE`, p.RegistrationID, p.Scope).Scan(&version)
		if err != nil {
			return dbError(op, err)
		}
		list, err := q.actionRowsByID(ctx, []string{p.RegistrationID}, p.Scope)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		if len(list) != 1 {
			return fmt.Errorf("%s: %w", op, ErrNotFound)
		}
		r := list[0]
		if r.Version != p.Version || (restsOnLookup(p.Action) && r.lookupID() != p.LookupID) {
			stale, err := q.staleError(ctx, &r, p.Version, p.LookupID)
			if err != nil {
				return fmt.Errorf("%s: %w", op, err)
			}
			return stale
		}
		d := schedule.Decide(p.Action, r.scheduleFacts(), schedule.StrictnessAny, now)
		if !d.Allowed {
			return &RefusedError{RegistrationID: r.ID, Decision: d}
		}
		if d.Risk.NeedsConfirmation() && p.ConfirmedRisk != d.Risk {
			return &RiskConfirmationError{RegistrationID: r.ID, Risk: d.Risk, Decision: d}
		}
		auditID := NewID()
		w, err := q.applyAction(ctx, now, &r, d, reason, p.Actor, auditID)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		details := AuditDetails{Action: p.Action, Outcome: "applied", Strictness: schedule.StrictnessAny,
			Decision: auditDecisionOf(d), VersionBefore: &r.Version, VersionAfter: &w.version}
		if lk := r.lookup(); lk != nil && restsOnLookup(p.Action) {
			details.Lookup = auditLookupOf(lk)
		}
		after := w.after
		if err := q.auditInsert(ctx, auditRow{
			ID: auditID, At: now, Action: auditActionOf(p.Action), TargetID: r.ID, Actor: p.Actor, Reason: reason,
			Before: &r.State, After: &after, Details: details, Affected: 1,
		}); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		out = ActionResult{RegistrationID: r.ID, Decision: d, Before: r.State, After: w.after, Version: w.version, AuditID: auditID}
		return nil
	})
	if err != nil {
		return ActionResult{}, err
	}
	return out, nil
}

// staleError describes what changed since the person's page: the row now and its newest
// recorded change other than a lookup (a lookup never changes the row).
func (q *Queries) staleError(ctx context.Context, r *actionRow, seenVersion int64, seenLookupID string) (*StaleError, error) {
	e := &StaleError{RegistrationID: r.ID, SeenVersion: seenVersion, Version: r.Version, State: r.State,
		SeenLookupID: seenLookupID, LookupID: r.lookupID(), Lookup: r.lookup()}
	if err := q.db.QueryRow(ctx, `SELECT updated_at FROM credit_registrations WHERE id = $1`, r.ID).Scan(&e.UpdatedAt); err != nil {
		return nil, dbError("staleError", err)
	}
	type changeRow struct {
		At        time.Time `db:"created_at"`
		ActorName *string   `db:"actor_name"`
		Kind      string    `db:"kind"`
		FromState *string   `db:"from_state"`
		ToState   *string   `db:"to_state"`
		Message   *string   `db:"message"`
	}
	rows, _ := q.db.Query(ctx, `SELECT e.created_at, a.name AS actor_name, e.kind::text AS kind,
  e.from_state::text AS from_state, e.to_state::text AS to_state, e.message
FROM credit_registration_events e LEFT JOIN accounts a ON a.id = e.actor_user_id
WHERE e.credit_registration_id = $1 AND e.kind <> 'sisu_lookup'
ORDER BY e.created_at DESC, e.id DESC LIMIT 1`, r.ID)
	c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[changeRow])
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return e, nil
	case err != nil:
		return nil, dbError("staleError change", err)
	}
	e.LastChange = &Change{At: c.At, ActorName: Deref(c.ActorName), Kind: c.Kind,
		FromState: schedule.State(Deref(c.FromState)), ToState: schedule.State(Deref(c.ToState)), Message: Deref(c.Message)}
	return e, nil
}

// ActionEventDetails is what an admin_action event's details hold: the action, its audit entry,
// and what it carried or rested on. applyAction writes it; the registration page reads it
// (ReadActionEventDetails).
type ActionEventDetails struct {
	Action  schedule.Action `json:"action"`
	AuditID string          `json:"audit_id"`
	// Risk is the decision's risk, "" when it carried none.
	Risk             schedule.RiskLabel   `json:"risk"`
	Check            schedule.CheckTarget `json:"check,omitempty"`
	DismissedReasons []schedule.Reason    `json:"dismissed_reasons,omitempty"`
	// LookupID is the Sisu lookup the decision rested on, for the actions that rest on one.
	LookupID string `json:"lookup_id,omitempty"`
}

// ReadActionEventDetails decodes an admin_action event's details; details it cannot read give the
// zero value, so a page shows less rather than fail.
func ReadActionEventDetails(raw []byte) ActionEventDetails { return readJSON[ActionEventDetails](raw) }

// written is what applyAction wrote.
type written struct {
	version int64
	after   schedule.State
}

// phaseChanges reports whether moving from one state to another starts a new timeline phase;
// the verification states share theirs.
func phaseChanges(from, to schedule.State) bool {
	return from != to && !(from.InVerification() && to.InVerification())
}

// applyAction writes an allowed decision's effect on the locked row r, with the LMS's side
// effects, and its admin_action event. No statement here can set state to submitting: the
// states written are the decision's target, which schedule never makes submitting.
//
// Every settling action (settles) also clears needs_person_since, which tells the ledger's trigger
// (migration 0019) that a person has dealt with the row: if it needs someone again, the wait
// counts from this action at the earliest. "Check now" leaves the wait running.
//
// Every UPDATE here sets version = version + 1 itself, since the optimistic check of a person's
// page rests on it, and dates updated_at with now, the instant of the event it writes, so a later
// conflict can name this change. The row's touch trigger (migration 0005) also moves version, to
// the same value, so that the pipeline's writes, which do not mention it, move it too; nothing
// here relies on the trigger.
func (q *Queries) applyAction(ctx context.Context, now time.Time, r *actionRow, d schedule.Decision, reason string, actor ActionActor, auditID string) (written, error) {
	if d.Target == schedule.StateSubmitting && r.State != schedule.StateSubmitting {
		// Decide never does this; refusing here keeps the promise even if it one day did.
		return written{}, fmt.Errorf("applyAction: refusing to move a row into submitting")
	}
	var w written
	var err error
	target := string(d.Target)
	switch d.Action {
	case schedule.ActionResubmit:
		// Back to the start, due now; the frozen payload stays, as the LMS keeps it.
		err = q.db.QueryRow(ctx, `UPDATE credit_registrations SET state = $2::credit_registration_state,
  state_entered_at = $3, state_changed_at = CASE WHEN state = $2::credit_registration_state THEN state_changed_at ELSE $3 END,
  phase_started_at = CASE WHEN $4 THEN $3 ELSE phase_started_at END,
  needs_admin_attention = false, error_code = NULL, error_message = NULL, next_attempt_at = $3,
  partially_registered_at = NULL, resubmit_not_before = NULL, terminal_at = NULL,
  needs_person_since = NULL, version = version + 1, updated_at = $3
WHERE id = $1 RETURNING version, state::text`, r.ID, target, now, phaseChanges(r.State, d.Target)).Scan(&w.version, &w.after)
	case schedule.ActionCancel:
		err = q.db.QueryRow(ctx, `UPDATE credit_registrations SET state = $2::credit_registration_state,
  state_entered_at = $3, state_changed_at = CASE WHEN state = $2::credit_registration_state THEN state_changed_at ELSE $3 END,
  phase_started_at = CASE WHEN $4 THEN $3 ELSE phase_started_at END,
  needs_admin_attention = false, error_code = NULL, error_message = NULL, terminal_at = coalesce(terminal_at, $3),
  enrolment_check_group = NULL, enrolment_check_step = NULL, enrolment_check_due_at = NULL, enrolment_checks_stopped_at = NULL,
  needs_person_since = NULL, version = version + 1, updated_at = $3
WHERE id = $1 RETURNING version, state::text`, r.ID, target, now, phaseChanges(r.State, d.Target)).Scan(&w.version, &w.after)
	case schedule.ActionMarkInSisu, schedule.ActionMarkRegistered:
		lk := r.lookup()
		matchType := lk.MatchType
		if matchType == "" {
			// The verdict names the kind when the lookup recorded no type.
			matchType = "AssessmentItemAttainment"
			if lk.Verdict == schedule.VerdictRegistered {
				matchType = "CourseUnitAttainment"
			}
		}
		partial := d.Target == schedule.StatePartiallyRegistered
		err = q.db.QueryRow(ctx, `UPDATE credit_registrations SET state = $2::credit_registration_state,
  state_entered_at = $3, state_changed_at = CASE WHEN state = $2::credit_registration_state THEN state_changed_at ELSE $3 END,
  phase_started_at = CASE WHEN $4 THEN $3 ELSE phase_started_at END,
  needs_admin_attention = false, error_code = NULL, error_message = NULL,
  sisu_attainment_id = $5, sisu_attainment_type = $6,
  registered_at = CASE WHEN $2 = 'registered' THEN coalesce(registered_at, $3) ELSE registered_at END,
  terminal_at = CASE WHEN $7 THEN coalesce(terminal_at, $3) ELSE NULL END,
  partially_registered_at = CASE WHEN $8 THEN coalesce(partially_registered_at, $3) ELSE partially_registered_at END,
  submitted_attainment_id = CASE WHEN $8 THEN coalesce(submitted_attainment_id, $5) ELSE submitted_attainment_id END,
  submitted_attainment_type = CASE WHEN $8 THEN coalesce(submitted_attainment_type, $6) ELSE submitted_attainment_type END,
  next_attempt_at = CASE WHEN $8 THEN $9 ELSE next_attempt_at END,
  enrolment_check_group = NULL, enrolment_check_step = NULL, enrolment_check_due_at = NULL, enrolment_checks_stopped_at = NULL,
  needs_person_since = NULL, version = version + 1, updated_at = $3
WHERE id = $1 RETURNING version, state::text`, r.ID, target, now, phaseChanges(r.State, d.Target), lk.MatchID, matchType,
			d.Target.IsTerminal(), partial, now.Add(schedule.VerifyWindowInterval)).Scan(&w.version, &w.after)
	case schedule.ActionCheckNow:
		err = q.db.QueryRow(ctx, `UPDATE credit_registrations SET next_attempt_at = $2, version = version + 1, updated_at = $2
WHERE id = $1 RETURNING version, state::text`, r.ID, now).Scan(&w.version, &w.after)
	case schedule.ActionClearFlag:
		err = q.db.QueryRow(ctx, `UPDATE credit_registrations SET needs_admin_attention = false, needs_person_since = NULL, version = version + 1, updated_at = $2
WHERE id = $1 RETURNING version, state::text`, r.ID, now).Scan(&w.version, &w.after)
	case schedule.ActionDismissAttention:
		// The dismissal lives in its own table; this UPDATE is the action's write to the row itself,
		// moving its version and updated_at, so two people dismissing at once cannot both succeed.
		err = q.db.QueryRow(ctx, `UPDATE credit_registrations SET needs_person_since = NULL, version = version + 1, updated_at = $2
WHERE id = $1 RETURNING version, state::text`, r.ID, now).Scan(&w.version, &w.after)
		if err == nil {
			_, err = q.db.Exec(ctx, `UPDATE credit_registration_attention_dismissals SET deleted_at = $2
WHERE credit_registration_id = $1 AND deleted_at IS NULL`, r.ID, now)
		}
		if err == nil {
			reasons := make([]string, len(d.Reasons))
			for i, x := range d.Reasons {
				reasons[i] = string(x)
			}
			_, err = q.db.Exec(ctx, `INSERT INTO credit_registration_attention_dismissals
  (id, created_at, credit_registration_id, dismissed_reasons, dismissed_by_user_id, reason)
VALUES (gen_random_uuid(), $2, $1, $3::text[]::credit_registration_attention_reason[], $4, $5)`, r.ID, now, reasons, actor.ID, reason)
		}
	default:
		return written{}, fmt.Errorf("applyAction: no effect for %q", d.Action)
	}
	if err != nil {
		return written{}, dbError("applyAction", err)
	}
	details := ActionEventDetails{Action: d.Action, AuditID: auditID, Risk: d.Risk, Check: d.Check, DismissedReasons: d.Reasons}
	if lk := r.lookup(); lk != nil && restsOnLookup(d.Action) {
		details.LookupID = lk.EventID
	}
	raw, err := json.Marshal(details)
	if err != nil {
		return written{}, fmt.Errorf("applyAction details: %w", err)
	}
	_, err = q.db.Exec(ctx, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state,
  message, actor_user_id, details)
VALUES (gen_random_uuid(), $2, $1, 'admin_action', $3::credit_registration_state, $4::credit_registration_state, $5, $6, $7)`,
		r.ID, now, string(r.State), string(w.after), reason, actor.ID, raw)
	if err != nil {
		return written{}, dbError("applyAction event", err)
	}
	// A person who acted on the row is done with it, unless they only asked the pipeline to look
	// again: then they are still on it, and their claim is kept from lapsing.
	if settles(d.Action) {
		err = q.endClaim(ctx, now, r.ID, actor, string(d.Action))
	} else {
		err = q.touchClaim(ctx, now, r.ID, actor.ID)
	}
	if err != nil {
		return written{}, fmt.Errorf("applyAction: %w", err)
	}
	return w, nil
}

// settles reports whether a hand action settles the row as far as a claim goes: every action but
// "check now", which hands the row back to the pipeline for another look while the person waits.
func settles(a schedule.Action) bool { return a != schedule.ActionCheckNow }
