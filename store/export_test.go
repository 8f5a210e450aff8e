package store

import "context"

// ExecForTest runs a statement directly, for tests that must put the database in a state no
// query function produces.
func (s *Store) ExecForTest(ctx context.Context, sql string, args ...any) error {
	_, err := s.pool.Exec(ctx, sql, args...)
	return err
}
