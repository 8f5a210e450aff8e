package store

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// This file keeps person_search, regdesk's copy of the LMS's search columns of user_details
// (migration 0007), under the ledger copy's lock: the header's student search reads it through
// trigram indexes of regdesk's own.

// personSearchColumns are person_search's copied columns, and personSearchSource the same read
// from the LMS's tables (d: user_details, u: users, sv: the live verified number).
const (
	personSearchColumns = `updated_at, name_search, email_search, first_name, last_name, student_number, deleted`
	personSearchSource  = `d.updated_at, coalesce(d.name_search_helper, ''), coalesce(d.email_search_helper, ''),
  d.first_name, d.last_name, sv.student_number, u.deleted_at IS NOT NULL`
	personSearchFrom = `user_details d
  JOIN users u ON u.id = d.user_id
  LEFT JOIN verified_student_numbers sv ON sv.user_id = d.user_id AND sv.deleted_at IS NULL`
)

// personSearchUpsert copies the students the WHERE clause picks (aliases of personSearchFrom) and
// says how many changed.
func personSearchUpsert(where string) string {
	return `INSERT INTO person_search (user_id, ` + personSearchColumns + `)
SELECT d.user_id, ` + personSearchSource + `
FROM ` + personSearchFrom + `
WHERE ` + where + `
-- In name order: a search for a surname then reads its matches from a few pages of the table
-- (migration 0011).
ORDER BY d.last_name, d.first_name
ON CONFLICT (user_id) DO UPDATE SET (` + personSearchColumns + `) = (EXCLUDED.updated_at, EXCLUDED.name_search,
  EXCLUDED.email_search, EXCLUDED.first_name, EXCLUDED.last_name, EXCLUDED.student_number, EXCLUDED.deleted)
WHERE (person_search.` + strings.ReplaceAll(personSearchColumns, ", ", ", person_search.") + `) IS DISTINCT FROM
  (EXCLUDED.updated_at, EXCLUDED.name_search, EXCLUDED.email_search, EXCLUDED.first_name, EXCLUDED.last_name,
  EXCLUDED.student_number, EXCLUDED.deleted)`
}

// personSearchCopyForRows copies the students of the given ledger rows: a registration's student
// is findable as soon as the registration is on the lists.
func personSearchCopyForRows(ctx context.Context, tx pgx.Tx, ledgerIDs []string) (int64, error) {
	if len(ledgerIDs) == 0 {
		return 0, nil
	}
	tag, err := tx.Exec(ctx, personSearchUpsert(`d.user_id = ANY(ARRAY(SELECT c.user_id FROM credit_registrations c WHERE c.id = ANY($1::uuid[])))`), ledgerIDs)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// personSearchSweep compares every student with their copy, every column: it copies the new and
// the changed (a rename, a new e-mail, a number linked or removed, a user deleted, a student with
// no registration yet) and removes the copies of students the LMS no longer has.
func personSearchSweep(ctx context.Context, tx pgx.Tx) (int64, error) {
	tag, err := tx.Exec(ctx, personSearchUpsert(`NOT EXISTS (SELECT 1 FROM person_search p WHERE p.user_id = d.user_id
  AND (p.`+strings.ReplaceAll(personSearchColumns, ", ", ", p.")+`) IS NOT DISTINCT FROM (`+personSearchSource+`))`))
	if err != nil {
		return 0, err
	}
	del, err := tx.Exec(ctx, `DELETE FROM person_search p WHERE NOT EXISTS (SELECT 1 FROM user_details d WHERE d.user_id = p.user_id)`)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected() + del.RowsAffected(), nil
}

// PersonSearchCopy copies the given students' search columns now, whatever the sweep has reached:
// for a student the caller has just seen written (a test's fixture, say). It waits for a running
// refresh.
func (s *Store) PersonSearchCopy(ctx context.Context, userIDs []string) error {
	userIDs = onlyUUIDs(userIDs)
	if len(userIDs) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, mirrorLock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, personSearchUpsert(`d.user_id = ANY($1::uuid[])`), userIDs)
		return err
	})
	if err != nil {
		return dbError("PersonSearchCopy", err)
	}
	return nil
}
