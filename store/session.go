package store

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// SessionStore keeps web sessions in the sessions table (scs's schema: token, data, expiry). It
// has the method set of scs's Store and CtxStore without importing scs, and every call takes the
// request's context, so a database that hangs holds a request only as long as the request's
// deadline allows (scs's own pgxstore runs with context.Background()). The tokens it sees are
// already hashed by scs.
type SessionStore struct {
	db   *Store
	log  *slog.Logger
	stop chan struct{}
	done sync.WaitGroup
	once sync.Once
}

// sessionCallTimeout bounds the calls that come without a context (scs's plain Store methods).
const sessionCallTimeout = 5 * time.Second

// NewSessionStore returns a session store on s. With a cleanup interval above zero it deletes
// expired sessions that often until Close.
func NewSessionStore(s *Store, cleanupInterval time.Duration, log *slog.Logger) *SessionStore {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ss := &SessionStore{db: s, log: log, stop: make(chan struct{})}
	if cleanupInterval > 0 {
		ss.done.Add(1)
		go ss.cleanup(cleanupInterval)
	}
	return ss
}

// FindCtx returns the data of the live session token; found is false for an unknown or expired
// one.
func (ss *SessionStore) FindCtx(ctx context.Context, token string) (b []byte, found bool, err error) {
	err = ss.db.pool.QueryRow(ctx, `SELECT data FROM sessions WHERE token = $1 AND current_timestamp < expiry`, token).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, dbError("SessionFind", err)
	}
	return b, true, nil
}

// CommitCtx writes the session token with its data and expiry.
func (ss *SessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	_, err := ss.db.pool.Exec(ctx, `INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)
ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry`, token, b, expiry)
	if err != nil {
		return dbError("SessionCommit", err)
	}
	return nil
}

// DeleteCtx deletes the session token; an unknown one is no error.
func (ss *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	if _, err := ss.db.pool.Exec(ctx, `DELETE FROM sessions WHERE token = $1`, token); err != nil {
		return dbError("SessionDelete", err)
	}
	return nil
}

// Find is FindCtx bounded by sessionCallTimeout, for callers without a context.
func (ss *SessionStore) Find(token string) ([]byte, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sessionCallTimeout)
	defer cancel()
	return ss.FindCtx(ctx, token)
}

// Commit is CommitCtx bounded by sessionCallTimeout.
func (ss *SessionStore) Commit(token string, b []byte, expiry time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), sessionCallTimeout)
	defer cancel()
	return ss.CommitCtx(ctx, token, b, expiry)
}

// Delete is DeleteCtx bounded by sessionCallTimeout.
func (ss *SessionStore) Delete(token string) error {
	ctx, cancel := context.WithTimeout(context.Background(), sessionCallTimeout)
	defer cancel()
	return ss.DeleteCtx(ctx, token)
}

// SessionDeleteExpired deletes the sessions past their expiry and says how many.
func (ss *SessionStore) SessionDeleteExpired(ctx context.Context) (int64, error) {
	tag, err := ss.db.pool.Exec(ctx, `DELETE FROM sessions WHERE expiry < current_timestamp`)
	if err != nil {
		return 0, dbError("SessionDeleteExpired", err)
	}
	return tag.RowsAffected(), nil
}

func (ss *SessionStore) cleanup(every time.Duration) {
	defer ss.done.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ss.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), sessionCallTimeout)
			if _, err := ss.SessionDeleteExpired(ctx); err != nil {
				ss.log.Warn("deleting expired sessions failed", "err", err)
			}
			cancel()
		}
	}
}

// Close stops the cleanup and waits for it.
func (ss *SessionStore) Close() {
	ss.once.Do(func() { close(ss.stop) })
	ss.done.Wait()
}
