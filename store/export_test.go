package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// The student search's fold, for its agreement with migration 0011's search_fold.
var (
	SearchFold = searchFold
	FoldGroups = foldGroups
)

// The SQL mirror of schedule's rules, for the agreement test.
var (
	PhasePredicate        = phasePredicate
	AttentionFrom         = attentionFrom
	SQLAttentionCandidate = sqlAttentionCandidate
	SQLDismissed          = sqlDismissed
	SQLNeedsAdmin         = sqlNeedsAdmin
	SQLReasons            = sqlReasons
	ReasonPredicate       = reasonPredicate
)

// ExecForTest runs a statement directly, for tests that must put the database in a state no
// query function produces.
func (s *Store) ExecForTest(ctx context.Context, sql string, args ...any) error {
	_, err := s.pool.Exec(ctx, sql, args...)
	return err
}

// ExecForTest runs a statement inside the caller's transaction.
func (q *Queries) ExecForTest(ctx context.Context, sql string, args ...any) error {
	_, err := q.db.Exec(ctx, sql, args...)
	return err
}

// CopyForTest bulk-loads rows inside the caller's transaction.
func (q *Queries) CopyForTest(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return q.db.CopyFrom(ctx, table, cols, src)
}

// IDsWhereForTest returns the ids of the live rows of from (which must name the ledger "cr")
// that satisfy cond, with now as $1.
func (s *Store) IDsWhereForTest(ctx context.Context, now time.Time, from, cond string) ([]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT cr.id::text FROM `+from+` WHERE `+liveSQL+` AND `+cond+` AND $1::timestamptz IS NOT NULL`, now)
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ScheduleRowsForTest reads every row's facts as the application does.
func (s *Store) ScheduleRowsForTest(ctx context.Context) (map[string]schedule.Row, error) {
	rows, _ := s.pool.Query(ctx, `SELECT cr.id::text AS id, `+scheduleColumns+`
FROM ledger_mirror cr
  LEFT JOIN credit_registration_attention_dismissals d ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL`)
	type idFacts struct {
		ID string `db:"id"`
		ScheduleColumns
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[idFacts])
	if err != nil {
		return nil, err
	}
	out := make(map[string]schedule.Row, len(list))
	for _, f := range list {
		out[f.ID] = f.ScheduleRow()
	}
	return out, nil
}

// MirrorLock is the advisory lock one refresh or sweep of the ledger copy holds.
const MirrorLock = mirrorLock

// LedgerMirrorRefreshBatch is LedgerMirrorRefresh copying at most batch rows.
func (s *Store) LedgerMirrorRefreshBatch(ctx context.Context, batch int) (MirrorRefresh, error) {
	return s.ledgerMirrorRefresh(ctx, batch)
}
