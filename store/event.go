package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Event is one entry of a registration's history.
type Event struct {
	ID                string          `db:"id"`
	CreatedAt         time.Time       `db:"created_at"`
	Kind              string          `db:"kind"`
	FromState         *string         `db:"from_state"`
	ToState           *string         `db:"to_state"`
	ErrorCode         *string         `db:"error_code"`
	Message           *string         `db:"message"`
	ActorName         *string         `db:"actor_name"`
	Details           json.RawMessage `db:"details"`
	RequestItemID     *string         `db:"request_item_id"`
	SuotarEndpoint    *string         `db:"suotar_endpoint"`
	SuotarRequestedAt *time.Time      `db:"suotar_requested_at"`
	SuotarAnsweredAt  *time.Time      `db:"suotar_answered_at"`
	SuotarAnswer      *string         `db:"suotar_answer"`
}

const eventColumns = `e.id::text AS id, e.created_at, e.kind::text AS kind, e.from_state::text AS from_state,
  e.to_state::text AS to_state, e.error_code::text AS error_code, e.message, a.name AS actor_name, e.details,
  e.request_item_id, e.suotar_endpoint::text AS suotar_endpoint, e.suotar_requested_at, e.suotar_answered_at,
  e.suotar_answer::text AS suotar_answer`

// EventListByRegistration returns the registration's history, newest first.
func (q *Queries) EventListByRegistration(ctx context.Context, registrationID string) ([]Event, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+eventColumns+`
FROM credit_registration_events e
  LEFT JOIN accounts a ON a.id = e.actor_user_id
WHERE e.credit_registration_id = $1
ORDER BY e.created_at DESC, e.id DESC`, registrationID)
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
	// Message is the verdict (or the failure) in words.
	Message string
	// Details is the scrubbed record of the lookup, written as jsonb.
	Details json.RawMessage
	// Endpoint, RequestedAt, AnsweredAt and Answer describe the main Suotar call; AnsweredAt is
	// nil when no answer came.
	Endpoint    string
	RequestedAt time.Time
	AnsweredAt  *time.Time
	Answer      string
}

// EventInsertLookup records a Sisu lookup in the registration's history and returns the event's
// id. It writes credit_registration_events only, so the row's version and updated_at stay as
// they were. An unknown registration is ErrNotFound.
func (q *Queries) EventInsertLookup(ctx context.Context, e LookupEvent) (string, error) {
	var id string
	err := q.db.QueryRow(ctx, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, message,
  actor_user_id, details, suotar_endpoint, suotar_requested_at, suotar_answered_at, suotar_answer)
SELECT gen_random_uuid(), $2, cr.id, 'sisu_lookup', $3, $4, $5, $6, $7, $8, $9
FROM credit_registrations cr
WHERE cr.id = $1 AND `+liveSQL+`
RETURNING id::text`,
		e.RegistrationID, e.CreatedAt, e.Message, e.ActorID, e.Details, e.Endpoint, e.RequestedAt, e.AnsweredAt, e.Answer).Scan(&id)
	if err != nil {
		return "", dbError(fmt.Sprintf("EventInsertLookup %s", e.RegistrationID), err)
	}
	return id, nil
}
