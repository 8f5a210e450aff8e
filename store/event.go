package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// Event is one entry of a registration's history. Its json tags read the events a page's read
// aggregates (RegistrationPageGet).
type Event struct {
	ID                string          `db:"id" json:"id"`
	CreatedAt         time.Time       `db:"created_at" json:"created_at"`
	Kind              string          `db:"kind" json:"kind"`
	FromState         *string         `db:"from_state" json:"from_state"`
	ToState           *string         `db:"to_state" json:"to_state"`
	ErrorCode         *string         `db:"error_code" json:"error_code"`
	Message           *string         `db:"message" json:"message"`
	ActorName         *string         `db:"actor_name" json:"actor_name"`
	Details           json.RawMessage `db:"details" json:"details"`
	RequestItemID     *string         `db:"request_item_id" json:"request_item_id"`
	SuotarEndpoint    *string         `db:"suotar_endpoint" json:"suotar_endpoint"`
	SuotarRequestedAt *time.Time      `db:"suotar_requested_at" json:"suotar_requested_at"`
	SuotarAnsweredAt  *time.Time      `db:"suotar_answered_at" json:"suotar_answered_at"`
	SuotarAnswer      *string         `db:"suotar_answer" json:"suotar_answer"`
}

// KindLookup is the Kind of a history entry that is one of regdesk's own Sisu lookups (the
// lookups table): the LMS's events have no such kind.
const KindLookup = "sisu_lookup"

// historySQL reads the history of the registration whose id is regID as Events: the LMS's own
// events (their actor an LMS user, named from user_details) and regdesk's Sisu lookups (their actor
// an account), in no order; the caller orders them.
func historySQL(regID string) string {
	return `SELECT e.id::text AS id, e.created_at, e.kind::text AS kind, e.from_state::text AS from_state,
  e.to_state::text AS to_state, e.error_code::text AS error_code, e.message, nullif(` + sqlLMSUserName + `, '') AS actor_name,
  e.details, e.request_item_id, e.suotar_endpoint::text AS suotar_endpoint, e.suotar_requested_at, e.suotar_answered_at,
  e.suotar_answer::text AS suotar_answer
FROM credit_registration_events e
  LEFT JOIN user_details da ON da.user_id = e.actor_user_id
WHERE e.credit_registration_id = ` + regID + ` AND e.deleted_at IS NULL
UNION ALL
SELECT l.id::text, l.created_at, '` + KindLookup + `', NULL, NULL, NULL, l.message, a.name, l.details, NULL, l.suotar_endpoint,
  l.suotar_requested_at, l.suotar_answered_at, l.suotar_answer
FROM lookups l
  LEFT JOIN accounts a ON a.id = l.account_id
WHERE l.credit_registration_id = ` + regID
}

// EventListByRegistration returns the registration's history, newest first.
func (q *Queries) EventListByRegistration(ctx context.Context, registrationID string) ([]Event, error) {
	rows, _ := q.db.Query(ctx, `SELECT * FROM (`+historySQL("$1")+`) h
ORDER BY h.created_at DESC, h.id DESC`, registrationID)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[Event])
	if err != nil {
		return nil, dbError("EventListByRegistration", err)
	}
	return list, nil
}

// Suotar endpoints as the suotar_endpoint enum names them, and the suotar_answer values.
const (
	EndpointResolveEnrolments = "resolve_enrolments"
	EndpointVerifyAttainments = "verify_attainments"

	AnswerAnswered   = "answered"
	AnswerUnanswered = "unanswered"
	AnswerRefused    = "refused"
)

// LookupEvent is a person's Sisu lookup of a registration, for its history. A lookup is only
// recorded: it never changes the row.
type LookupEvent struct {
	RegistrationID string
	// ActorID is the account that looked; nil when the request had no signed-in person.
	ActorID   *string
	CreatedAt time.Time
	// Scope limits the lookup to rows of its courses (see Scope): a row outside it is not
	// found.
	Scope Scope
	// Record is what the lookup found; its attainments call, which every lookup makes, also fills
	// the event's Suotar columns.
	Record LookupRecord
	// Message is the lookup in English words for the history's message column, which the
	// command line and readers of the table see; the caller words it from the catalogue, since
	// store holds no words. The page words the record itself, in the reader's language. "" leaves
	// the column empty.
	Message string
}

// EventInsertLookup records a Sisu lookup in the registration's history (regdesk's lookups: the
// LMS's row and its events are not touched) and returns the record's id. An unknown registration,
// or one outside e.Scope, is ErrNotFound.
func (q *Queries) EventInsertLookup(ctx context.Context, e LookupEvent) (string, error) {
	op := fmt.Sprintf("EventInsertLookup %s", e.RegistrationID)
	call := e.Record.AttainmentsCall
	if call == nil {
		return "", fmt.Errorf("%s: the record has no attainments call", op)
	}
	details, err := json.Marshal(e.Record)
	if err != nil {
		return "", fmt.Errorf("%s: encode the record: %w", op, err)
	}
	var id string
	err = q.db.QueryRow(ctx, `INSERT INTO lookups (id, created_at, credit_registration_id, state, message,
  account_id, details, suotar_endpoint, suotar_requested_at, suotar_answered_at, suotar_answer)
SELECT gen_random_uuid(), $2, cr.id, cr.state::text, $3, $4, $5, $6, $7, $8, $9
FROM ledger_mirror cr
WHERE cr.id = $1 AND `+liveSQL+` AND `+sqlInScope(10)+`
RETURNING id::text`,
		e.RegistrationID, e.CreatedAt, nullIfEmpty(e.Message), e.ActorID, details, call.Endpoint, call.RequestedAt, call.AnsweredAt,
		call.Answer, e.Scope.arg()).Scan(&id)
	if err != nil {
		return "", dbError(op, err)
	}
	return id, nil
}

// RegistrationChange is one entry of a registration's history with the hand action behind it, if
// any: what SinceAlert reads.
type RegistrationChange struct {
	RegistrationID string    `db:"registration_id"`
	At             time.Time `db:"at"`
	// Kind is the history event's kind; "admin_action" for a hand action that left no event.
	Kind string `db:"kind"`
	// Action is the hand action (credit_registration_admin_action); nil for the pipeline's events.
	Action    *string `db:"action"`
	FromState *string `db:"from_state"`
	ToState   *string `db:"to_state"`
	// ActorName is the staff member who acted; nil for the pipeline, or an account that is gone.
	ActorName *string `db:"actor_name"`
	// ByPerson is true for a staff member's doing.
	ByPerson bool `db:"by_person"`
	// Message is the event's message or the hand action's reason: for support staff only.
	Message *string `db:"message"`
}

// AlertEvent returns the change as schedule.SinceAlert reads it.
func (c RegistrationChange) AlertEvent() schedule.AlertEvent {
	e := schedule.AlertEvent{At: c.At, ByPerson: c.ByPerson, Action: c.Kind}
	if c.Action != nil {
		e.Action = *c.Action
	}
	if c.ActorName != nil {
		e.Actor = *c.ActorName
	}
	if c.FromState != nil {
		e.FromState = schedule.State(*c.FromState)
	}
	if c.ToState != nil {
		e.ToState = schedule.State(*c.ToState)
	}
	return e
}

// EventListSince returns what happened to the registration after since, oldest first: its history
// events, each with the hand action written in the same transaction (same actor and instant), and
// hand actions that left no event. A registration outside scope is ErrNotFound.
func (q *Queries) EventListSince(ctx context.Context, registrationID string, since time.Time, scope Scope) ([]RegistrationChange, error) {
	if !IsUUID(registrationID) {
		return nil, fmt.Errorf("EventListSince %q: %w", registrationID, ErrNotFound)
	}
	var found bool
	err := q.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM ledger_mirror cr
WHERE cr.id = $1 AND `+liveSQL+` AND `+sqlInScope(2)+`)`, registrationID, scope.arg()).Scan(&found)
	if err != nil {
		return nil, dbError("EventListSince", err)
	}
	if !found {
		return nil, fmt.Errorf("EventListSince %s: %w", registrationID, ErrNotFound)
	}
	changes, err := q.eventListSince(ctx, []string{registrationID}, since)
	if err != nil {
		return nil, err
	}
	return changes[registrationID], nil
}

// eventListSince is EventListSince for several registrations at once, by registration id, without
// the scope check: the caller has read the registrations in scope.
func (q *Queries) eventListSince(ctx context.Context, registrationIDs []string, since time.Time) (map[string][]RegistrationChange, error) {
	out := map[string][]RegistrationChange{}
	if len(registrationIDs) == 0 {
		return out, nil
	}
	// The LMS's events, each with the LMS's audit row written in its transaction (same actor and
	// now()); the LMS's audit rows that left no event; regdesk's own records of what the LMS does not
	// keep: lookups, claims and releases. (A hand action regdesk asked for is the LMS's event.)
	rows, _ := q.db.Query(ctx, `SELECT e.credit_registration_id::text AS registration_id, e.created_at AS at, e.kind::text AS kind,
  aa.action, e.from_state::text AS from_state, e.to_state::text AS to_state, nullif(`+sqlLMSUserName+`, '') AS actor_name,
  (e.actor_user_id IS NOT NULL OR e.kind = 'admin_action') AS by_person, e.message
FROM credit_registration_events e
  LEFT JOIN user_details da ON da.user_id = e.actor_user_id
  LEFT JOIN LATERAL (SELECT aa.action::text AS action FROM credit_registration_admin_actions aa
    WHERE aa.target_kind = 'credit_registration' AND aa.target_id = e.credit_registration_id
      AND aa.created_at BETWEEN e.created_at - interval '1 second' AND e.created_at + interval '1 second'
      AND aa.actor_user_id = e.actor_user_id AND aa.deleted_at IS NULL
    ORDER BY aa.id LIMIT 1) aa ON true
WHERE e.credit_registration_id = ANY($1::uuid[]) AND e.created_at > $2 AND e.deleted_at IS NULL
UNION ALL
SELECT aa.target_id::text, aa.created_at, 'admin_action', aa.action::text, aa.before_state::text, aa.after_state::text,
  nullif(`+sqlLMSUserName+`, ''), true, aa.reason
FROM credit_registration_admin_actions aa
  LEFT JOIN user_details da ON da.user_id = aa.actor_user_id
WHERE aa.target_kind = 'credit_registration' AND aa.target_id = ANY($1::uuid[]) AND aa.created_at > $2 AND aa.deleted_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM credit_registration_events e
    WHERE e.credit_registration_id = aa.target_id AND e.actor_user_id = aa.actor_user_id
      AND e.created_at BETWEEN aa.created_at - interval '1 second' AND aa.created_at + interval '1 second')
UNION ALL
SELECT l.credit_registration_id::text, l.created_at, '`+KindLookup+`', NULL, NULL, NULL, a.name, true, l.message
FROM lookups l
  LEFT JOIN accounts a ON a.id = l.account_id
WHERE l.credit_registration_id = ANY($1::uuid[]) AND l.created_at > $2
UNION ALL
SELECT ra.target_id::text, ra.created_at, 'admin_action', ra.action, ra.before_state, ra.after_state, a.name, true, ra.reason
FROM actions ra
  LEFT JOIN accounts a ON a.id = ra.account_id
WHERE ra.target_kind = 'credit_registration' AND ra.target_id = ANY($1::uuid[]) AND ra.created_at > $2
  AND ra.action IN ('claim', 'release')
ORDER BY registration_id, at, kind`, registrationIDs, since)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[RegistrationChange])
	if err != nil {
		return nil, dbError("EventListSince", err)
	}
	for _, c := range list {
		out[c.RegistrationID] = append(out[c.RegistrationID], c)
	}
	return out, nil
}

// sqlWorthAMention is true for a history event "e" that may tell a person something happened: a
// state move, or anything a person or the student did. The pipeline's same-state rewrites (polls)
// are not; schedule.SinceAlert decides about the rest.
const sqlWorthAMention = `((e.to_state IS NOT NULL AND e.to_state IS DISTINCT FROM e.from_state)
    OR e.actor_user_id IS NOT NULL OR e.kind IN ('admin_action', 'student_action'))`

// RegistrationListChangedSince returns the ids of up to limit of the course's live, unsuperseded
// registrations with a history event worth a mention or a hand action after since, most recently
// changed first: what a course page's alert banner lists (CoursePageGet). Nothing when scope
// does not hold the course.
func (q *Queries) RegistrationListChangedSince(ctx context.Context, courseID string, since time.Time, scope Scope, limit int) ([]string, error) {
	if !IsUUID(courseID) || limit <= 0 {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT cr.id::text
FROM ledger_mirror cr
  CROSS JOIN LATERAL (SELECT greatest(
      (SELECT max(e.created_at) FROM credit_registration_events e
        WHERE e.credit_registration_id = cr.id AND e.created_at > $2 AND e.deleted_at IS NULL AND `+sqlWorthAMention+`),
      (SELECT max(aa.created_at) FROM credit_registration_admin_actions aa
        WHERE aa.target_kind = 'credit_registration' AND aa.target_id = cr.id AND aa.created_at > $2 AND aa.deleted_at IS NULL),
      (SELECT max(l.created_at) FROM lookups l WHERE l.credit_registration_id = cr.id AND l.created_at > $2),
      (SELECT max(ra.created_at) FROM actions ra
        WHERE ra.target_kind = 'credit_registration' AND ra.target_id = cr.id AND ra.created_at > $2)) AS at) ch
WHERE cr.course_id = $1 AND `+liveSQL+` AND cr.superseded_by_id IS NULL AND `+sqlInScope(3)+`
  AND ch.at IS NOT NULL
ORDER BY ch.at DESC, cr.id DESC
LIMIT `+sqlLimit(limit), courseID, since, scope.arg())
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError("RegistrationListChangedSince", err)
	}
	return ids, nil
}
