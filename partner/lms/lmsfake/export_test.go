package lmsfake

import "context"

// SetBeforeWrite lets a test run f between a single-row transition's read and its transaction,
// as another writer of the row would.
func SetBeforeWrite(s *Server, f func(ctx context.Context, registrationID string)) {
	s.beforeWrite = f
}
