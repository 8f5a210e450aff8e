package store

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// StudentSearchPlanForTest returns the plan of the query StudentSearch runs for query, with
// sequential scans priced out so the plan shows whether the query can use an index at all (a
// test database is too small for the planner to want one).
func (s *Store) StudentSearchPlanForTest(ctx context.Context, query string, scope Scope) (string, error) {
	query = strings.TrimSpace(query)
	var plan []string
	err := s.InTx(ctx, func(q *Queries) error {
		sql, args := studentSearchSQL(query, strings.Fields(query), scope, 20)
		var err error
		// Scans priced out, a walk of a whole primary key too: on a few thousand rows the
		// planner would rather walk users' key than read a trigram index.
		if _, err = q.db.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		if _, err = q.db.Exec(ctx, `SET LOCAL enable_indexscan = off`); err != nil {
			return err
		}
		rows, _ := q.db.Query(ctx, `EXPLAIN `+sql, args...)
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return strings.Join(plan, "\n"), err
}
