package store

import (
	"context"
	"fmt"
)

// RefuseOldLayout returns ErrOldLayout for a database an earlier regdesk laid out for itself, as
// Migrate does before it applies anything: for a caller that writes something else first (the
// demo, which creates the LMS's tables before regdesk's migrations) and must stop before it does.
func (s *Store) RefuseOldLayout(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("RefuseOldLayout: acquire: %w", err)
	}
	defer conn.Release()
	return refuseOldLayout(ctx, conn.Conn())
}
