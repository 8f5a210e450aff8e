package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// SessionStore keeps web sessions in the sessions table (scs's schema: token, data, expiry). It
// has the method set of scs's Store and CtxStore without importing scs, and every call takes the
// request's context, so a database that hangs holds a request only as long as the request's
// deadline allows (scs's own pgxstore runs with context.Background()). The tokens it sees are
// already hashed by scs.
type SessionStore struct {
	db *Store
}

// sessionCallTimeout bounds the calls that come without a context (scs's plain Store methods).
const sessionCallTimeout = 5 * time.Second

// NewSessionStore returns a session store on s. Expired sessions are refused at once and deleted
// by the maintenance job (maintenance.Sessions, Store.SessionsDeleteExpired).
func NewSessionStore(s *Store) *SessionStore { return &SessionStore{db: s} }

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

// SessionsDeleteExpired deletes the sessions past their expiry and says how many.
func (s *Store) SessionsDeleteExpired(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expiry < current_timestamp`)
	if err != nil {
		return 0, dbError("SessionsDeleteExpired", err)
	}
	return tag.RowsAffected(), nil
}
