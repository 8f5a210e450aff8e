package maintenance

import (
	"cmp"
	"context"
	"time"

	"regdesk/store"
)

// Sessions deletes the sessions past their expiry (store.SessionsDeleteExpired). An expired
// session is refused whether or not it is deleted; deleting keeps the table small. Every instance
// may run it: a second deletion finds nothing.
type Sessions struct {
	Store *store.Store
	// Every is how often a round runs; DefaultSessionsEvery when 0.
	Every time.Duration
}

// DefaultSessionsEvery is how often expired sessions are deleted.
const DefaultSessionsEvery = 5 * time.Minute

// Name is the job's name in logs.
func (j *Sessions) Name() string { return "session cleanup" }

// Interval is how long the runner waits between rounds.
func (j *Sessions) Interval() time.Duration { return cmp.Or(j.Every, DefaultSessionsEvery) }

// RunOnce deletes the expired sessions.
func (j *Sessions) RunOnce(ctx context.Context) error {
	_, err := j.Store.SessionsDeleteExpired(ctx)
	return err
}
