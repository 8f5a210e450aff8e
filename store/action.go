package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file is regdesk's half of a person's hand action on a registration (bulk.go does the same
// for many rows). The change itself is the LMS's: its admin endpoints are the only writer of a
// row, and regdesk asks them as the person (package handaction makes the call). Here regdesk
//   - reads the row as the LMS has it now, checks it is the version the person's page showed and
//     that no newer Sisu lookup has been made, and decides with schedule.Decide, so a refusal the
//     rules foresee is explained before anything is asked (RegistrationActionPrepare);
//   - records the attempt, with who, why, the lookup it rested on and the risk accepted, before
//     the call (ActionAttemptInsert), and the LMS's answer after it (ActionAnswerInsert): an
//     attempt without an answer is one whose outcome nobody knows.
// The LMS has no version check of its own; the version is the row's updated_at, which the LMS's
// trigger stamps on every write, so a second click or a second person, who would act on a row that
// changed, is caught here as stale.

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
	// LMSUserID is the LMS user the person is (accounts.lms_user_id): whom the LMS's own audit
	// names when regdesk acts for them; "" when the account names none, and then they cannot act.
	LMSUserID string
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
	// Action is the hand action a person asked for through regdesk, when the change is one
	// (regdesk's own record of it, matched by row, reason and time); "" when it is not, or the
	// action was taken in the LMS itself. A change that leaves the state as it was (Check now,
	// Clear flag) is told by it.
	Action schedule.Action
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

const actionRowColumns = `cr.id::text AS id, ` + sqlRowVersion + ` AS version, cr.submitted_attainment_id, cr.submitted_attainment_type,
  ` + scheduleColumns + `,
  lk.id::text AS lookup_id, lk.created_at AS lookup_at, lk.details AS lookup_details, la.name AS lookup_actor`

// actionRowFrom reads the LMS's live row (not regdesk's copy), its live dismissal and its newest
// Sisu lookup.
func actionRowFrom(linkingSince *time.Time) string {
	return liveLedger(linkingSince) + `
  LEFT JOIN credit_registration_attention_dismissals d ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL
  LEFT JOIN LATERAL (SELECT l.id, l.created_at, l.details, l.account_id FROM lookups l
    WHERE l.credit_registration_id = cr.id
    ORDER BY l.created_at DESC, l.id DESC LIMIT 1) lk ON true
  LEFT JOIN accounts la ON la.id = lk.account_id`
}

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

// actionRowsByID reads the rows with the given ids as the LMS has them now, in id order, and marks
// those whose lookup matched an attainment another live row already holds.
func (q *Queries) actionRowsByID(ctx context.Context, ids []string, scope Scope) ([]actionRow, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+actionRowColumns+`
FROM `+actionRowFrom(q.linkingSince)+`
WHERE cr.id = ANY($1::uuid[]) AND `+liveSQL+` AND `+sqlInScope(2)+`
ORDER BY cr.id`, ids, scope.arg())
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
	// Scope limits the action to rows of its courses (see Scope): a row outside it is not
	// found, checked in the same locked read the rules decide on.
	Scope Scope
}

// ActionPrepared is a hand action regdesk's rules allow on the row as it is now, ready to be asked
// of the LMS.
type ActionPrepared struct {
	RegistrationID string
	Action         schedule.Action
	Decision       schedule.Decision
	Before         schedule.State
	// Version is the row's version the decision was made on.
	Version int64
	// Reason is the person's reason, trimmed.
	Reason string
	// Lookup is the Sisu lookup the decision rested on, for the actions that rest on one.
	Lookup *LookupSummary
}

// ValidateAction checks what a person typed or the page sent for a hand action, so a mistake is
// told before anything is read or asked: a *ValidationError naming the field.
func ValidateAction(a schedule.Action, reason string, actor ActionActor) error {
	_, err := validateAction(a, reason, actor)
	return err
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
	return a == schedule.ActionResubmit
}

// RegistrationActionPrepare reads the row as the LMS has it now and decides the person's action on
// it, writing nothing. It returns *ValidationError for bad input, ErrNotFound for an unknown row or
// one outside p.Scope, *StaleError (ErrConflict) when the row or its lookup changed since the page
// showed it, *RefusedError (ErrRefused) when regdesk's rules refuse the action now, and
// *RiskConfirmationError when a risk was not confirmed.
func (q *Queries) RegistrationActionPrepare(ctx context.Context, now time.Time, p ActionParams) (ActionPrepared, error) {
	reason, err := validateAction(p.Action, p.Reason, p.Actor)
	if err != nil {
		return ActionPrepared{}, err
	}
	if !IsUUID(p.RegistrationID) {
		return ActionPrepared{}, fmt.Errorf("RegistrationActionPrepare %q: %w", p.RegistrationID, ErrNotFound)
	}
	op := fmt.Sprintf("RegistrationActionPrepare %s %s", p.Action, p.RegistrationID)
	list, err := q.actionRowsByID(ctx, []string{p.RegistrationID}, p.Scope)
	if err != nil {
		return ActionPrepared{}, fmt.Errorf("%s: %w", op, err)
	}
	if len(list) != 1 {
		return ActionPrepared{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	r := list[0]
	if r.Version != p.Version || (restsOnLookup(p.Action) && r.lookupID() != p.LookupID) {
		stale, err := q.staleError(ctx, &r, p.Version, p.LookupID)
		if err != nil {
			return ActionPrepared{}, fmt.Errorf("%s: %w", op, err)
		}
		return ActionPrepared{}, stale
	}
	d := schedule.Decide(p.Action, r.scheduleFacts(), schedule.StrictnessAny, now)
	if !d.Allowed {
		return ActionPrepared{}, &RefusedError{RegistrationID: r.ID, Decision: d}
	}
	// An action that leaves the row as it was (check now on a row already due) leaves its version
	// too: a second click, or a second tab, on the same page is caught by regdesk's own record.
	var asked AlreadyAskedError
	err = q.db.QueryRow(ctx, `SELECT r.created_at, a.name FROM actions r
  JOIN accounts a ON a.id = r.account_id
  LEFT JOIN action_answers ans ON ans.action_id = r.id
WHERE r.target_kind = 'credit_registration' AND r.target_id = $1 AND r.action = $2
  AND (r.details->>'version_before')::bigint = $3 AND coalesce(ans.outcome, 'unknown') NOT IN ('refused', 'failed')
ORDER BY r.created_at DESC LIMIT 1`, r.ID, string(p.Action), p.Version).Scan(&asked.At, &asked.ActorName)
	switch {
	case err == nil:
		asked.RegistrationID, asked.Action = r.ID, p.Action
		return ActionPrepared{}, &asked
	case !errors.Is(err, pgx.ErrNoRows):
		return ActionPrepared{}, dbError(op, err)
	}
	if d.Risk.NeedsConfirmation() && p.ConfirmedRisk != d.Risk {
		return ActionPrepared{}, &RiskConfirmationError{RegistrationID: r.ID, Risk: d.Risk, Decision: d}
	}
	out := ActionPrepared{RegistrationID: r.ID, Action: p.Action, Decision: d, Before: r.State, Version: r.Version, Reason: reason}
	if lk := r.lookup(); lk != nil && restsOnLookup(p.Action) {
		out.Lookup = lk
	}
	return out, nil
}

// AlreadyAskedError reports that someone already asked for this action on the row as the page
// showed it: nothing more is asked. errors.Is(err, ErrConflict) holds.
type AlreadyAskedError struct {
	RegistrationID string
	Action         schedule.Action
	At             time.Time
	ActorName      string
}

func (e *AlreadyAskedError) Error() string {
	return fmt.Sprintf("%s on %s was already asked for by %s at %s", e.Action, e.RegistrationID, e.ActorName, e.At)
}

// Unwrap makes a repeated action a conflict.
func (e *AlreadyAskedError) Unwrap() error { return ErrConflict }

// ActionAttempt is what regdesk records before it asks the LMS for a person's action.
type ActionAttempt struct {
	ID       string
	At       time.Time
	Actor    ActionActor
	Prepared ActionPrepared
}

// ActionAttemptInsert records that the person asked for the prepared action, before the LMS is
// called. It writes regdesk's own audit (actions) only.
func (q *Queries) ActionAttemptInsert(ctx context.Context, a ActionAttempt) error {
	p := a.Prepared
	details := AuditDetails{Action: p.Action, Strictness: schedule.StrictnessAny, Outcome: AuditOutcomeAsked,
		Decision: auditDecisionOf(p.Decision), VersionBefore: &p.Version}
	if p.Lookup != nil {
		details.Lookup = auditLookupOf(p.Lookup)
	}
	before := p.Before
	return q.auditInsert(ctx, auditRow{ID: a.ID, At: a.At, Action: string(p.Action), TargetID: p.RegistrationID, Actor: a.Actor,
		Reason: p.Reason, Before: &before, Details: details, Affected: 1})
}

// The outcomes of a hand action regdesk asked the LMS for. An attempt with no answer recorded is
// AuditOutcomeUnknown: nobody knows whether the LMS applied it.
const (
	AuditOutcomeAsked    = "asked"
	AuditOutcomeApplied  = "applied"
	AuditOutcomeRefused  = "refused"
	AuditOutcomeNoChange = "no_change"
	AuditOutcomeFailed   = "failed"
	AuditOutcomeUnknown  = "unknown"
)

// ActionAnswer is the LMS's answer to an attempt.
type ActionAnswer struct {
	ActionID   string
	AnsweredAt time.Time
	// Outcome is AuditOutcomeApplied, AuditOutcomeRefused, AuditOutcomeNoChange or
	// AuditOutcomeFailed (the LMS turned the call down before acting).
	Outcome string
	// Refusal is the LMS's refusal code, or its error message for a failed call.
	Refusal string
	// StateAfter is the row's state as the LMS answered it; "" when it did not say.
	StateAfter string
	// Answer is the LMS's answer as it came, for the record.
	Answer any
}

// ActionAnswerInsert records the LMS's answer to an attempt.
func (q *Queries) ActionAnswerInsert(ctx context.Context, a ActionAnswer) error {
	raw, err := json.Marshal(a.Answer)
	if err != nil {
		return fmt.Errorf("ActionAnswerInsert: encode the answer: %w", err)
	}
	_, err = q.db.Exec(ctx, `INSERT INTO action_answers (action_id, answered_at, outcome, refusal, state_after, answer)
VALUES ($1, $2, $3, $4, $5, $6)`, a.ActionID, a.AnsweredAt, a.Outcome, nullIfEmpty(a.Refusal), nullIfEmpty(a.StateAfter), raw)
	if err != nil {
		return dbError("ActionAnswerInsert", err)
	}
	return nil
}

// ClaimAfterAction keeps the row's claim as a person's action leaves it: a person who acted on the
// row is done with it, unless they only asked the pipeline to look again; then they are still on
// it, and their claim is kept from lapsing.
func (s *Store) ClaimAfterAction(ctx context.Context, now time.Time, rowID string, action schedule.Action, actor ActionActor) error {
	return s.InTx(ctx, func(q *Queries) error {
		if settles(action) {
			return q.endClaim(ctx, now, rowID, actor, string(action))
		}
		return q.touchClaim(ctx, now, rowID, actor.ID)
	})
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
	rows, _ := q.db.Query(ctx, `SELECT e.created_at, nullif(`+sqlLMSUserName+`, '') AS actor_name, e.kind::text AS kind,
  e.from_state::text AS from_state, e.to_state::text AS to_state, e.message
FROM credit_registration_events e LEFT JOIN user_details da ON da.user_id = e.actor_user_id
WHERE e.credit_registration_id = $1 AND e.deleted_at IS NULL
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
	if c.Kind == "admin_action" && c.Message != nil {
		// The LMS's event does not name the action; regdesk's record of asking for it does. It is
		// written before the LMS is called, so it is dated a little before the event: up to the
		// LMS client's deadline, and a minute of slack for the two clocks.
		var action string
		err := q.db.QueryRow(ctx, `SELECT r.action FROM actions r
WHERE r.target_kind = 'credit_registration' AND r.target_id = $1 AND r.action NOT IN ('claim', 'release') AND r.reason = $2
  AND r.created_at BETWEEN $3::timestamptz - interval '2 minutes' AND $3::timestamptz + interval '1 minute'
ORDER BY r.created_at DESC, r.id DESC LIMIT 1`, r.ID, *c.Message, c.At).Scan(&action)
		switch {
		case err == nil:
			if a := schedule.Action(action); a.Valid() {
				e.LastChange.Action = a
			}
		case !errors.Is(err, pgx.ErrNoRows):
			return nil, dbError("staleError action", err)
		}
	}
	return e, nil
}

// settles reports whether a person who took the action is done with the row.
func settles(a schedule.Action) bool { return a != schedule.ActionCheckNow }

// actionLockClass is the first key of the advisory locks LockRegistrations takes ("rd" in ASCII):
// the second is the registration's hash.
const actionLockClass = 0x7264

// WithRegistrationsLocked runs fn holding, across every instance of regdesk, a lock on each of the
// registrations: a person's hand action holds it from reading the row to recording the LMS's
// answer, so a second click, a second tab or a colleague acting on the same row reads it only
// after the first action is done, sees its new version and is told the row changed. (The LMS's
// transition has no version check of its own.) fn's queries run on the connection that holds the
// locks, so the waiters, who each hold a connection while they wait, never starve it.
func (s *Store) WithRegistrationsLocked(ctx context.Context, ids []string, fn func(q *Queries) error) error {
	ids = slices.Clone(onlyUUIDs(ids))
	slices.Sort(ids)
	ids = slices.Compact(ids)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return dbError("WithRegistrationsLocked", err)
	}
	defer func() {
		// Unlocked on a context of its own: the request's may be over.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock_all()`); err != nil {
			// A connection whose locks cannot be released must not go back to the pool.
			conn.Conn().Close(ctx)
		}
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(id)) FROM unnest($2::text[]) AS id ORDER BY id`,
		int32(actionLockClass), ids); err != nil {
		return dbError("WithRegistrationsLocked", err)
	}
	return fn(s.on(conn))
}
