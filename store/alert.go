package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// sqlWorthAMention is true for a history event "e" that may tell a person something happened: a
// state move, or anything a person or the student did. The pipeline's same-state rewrites (polls)
// are not; schedule.SinceAlert decides about the rest.
const sqlWorthAMention = `((e.to_state IS NOT NULL AND e.to_state IS DISTINCT FROM e.from_state)
    OR e.actor_user_id IS NOT NULL OR e.kind IN ('admin_action', 'sisu_lookup', 'student_action'))`

// RegistrationListChangedSince returns the ids of up to limit of the course's live, unsuperseded
// registrations with a history event worth a mention or a hand action after since, most recently
// changed first: what a course page's alert banner reads with EventListSince. Nothing when scope
// does not hold the course.
func (q *Queries) RegistrationListChangedSince(ctx context.Context, courseID string, since time.Time, scope []string, limit int) ([]string, error) {
	if !IsUUID(courseID) || limit <= 0 {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT cr.id::text
FROM credit_registrations cr
  CROSS JOIN LATERAL (SELECT greatest(
      (SELECT max(e.created_at) FROM credit_registration_events e
        WHERE e.credit_registration_id = cr.id AND e.created_at > $2 AND `+sqlWorthAMention+`),
      (SELECT max(aa.created_at) FROM credit_registration_admin_actions aa
        WHERE aa.target_kind = 'credit_registration' AND aa.target_id = cr.id AND aa.created_at > $2)) AS at) ch
WHERE cr.course_id = $1 AND `+liveSQL+` AND cr.superseded_by_id IS NULL AND `+sqlInScope(3)+`
  AND ch.at IS NOT NULL
ORDER BY ch.at DESC, cr.id DESC
LIMIT $4`, courseID, since, scope, limit)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError("RegistrationListChangedSince", err)
	}
	return ids, nil
}
