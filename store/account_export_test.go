package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// StringsForTest runs a query returning one text column, for tests that read what is at rest.
func (s *Store) StringsForTest(ctx context.Context, sql string, args ...any) ([]string, error) {
	rows, _ := s.pool.Query(ctx, sql, args...)
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
