package store

import (
	"context"
	"encoding/json"
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
		return nil, classify("EventListByRegistration", err)
	}
	return list, nil
}
