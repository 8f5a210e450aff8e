package store

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The outcomes of a sign-in attempt, as the login_outcome enum spells them.
const (
	LoginSuccess        = "success"
	LoginWrongPassword  = "wrong_password"
	LoginUnknownAccount = "unknown_account"
	LoginNoPassword     = "no_password"
	LoginDisabled       = "disabled"
	LoginRateLimited    = "rate_limited"
)

// LoginAttempt is one sign-in attempt.
type LoginAttempt struct {
	ID        int64     `db:"id"`
	CreatedAt time.Time `db:"created_at"`
	// Address is the client's IP address.
	Address string `db:"address"`
	// Email is what was typed, which need not name an account.
	Email string `db:"email"`
	// AccountID names the account the e-mail address belongs to, if any.
	AccountID *string `db:"account_id"`
	Outcome   string  `db:"outcome"`
}

const loginAttemptColumns = `id, created_at, address, email, account_id::text AS account_id, outcome::text AS outcome`

// maxLoginEmail bounds what is kept of a typed e-mail address, so a pasted essay cannot bloat the
// record.
const maxLoginEmail = 320

// LoginAttemptInsert records a sign-in attempt.
func (q *Queries) LoginAttemptInsert(ctx context.Context, a LoginAttempt) error {
	// PostgreSQL text holds neither NUL nor broken UTF-8, and a typed address may contain both.
	email := strings.ToValidUTF8(strings.ReplaceAll(a.Email, "\x00", ""), "\uFFFD")
	if len(email) > maxLoginEmail {
		email = strings.ToValidUTF8(email[:maxLoginEmail], "")
	}
	_, err := q.db.Exec(ctx, `INSERT INTO login_attempts (created_at, address, email, account_id, outcome)
VALUES ($1, $2, $3, $4, $5::login_outcome)`, a.CreatedAt, a.Address, email, a.AccountID, a.Outcome)
	if err != nil {
		return dbError("LoginAttemptInsert", err)
	}
	return nil
}

// LoginAttemptList returns the latest attempts, newest first, at most limit of them.
func (q *Queries) LoginAttemptList(ctx context.Context, limit int) ([]LoginAttempt, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+loginAttemptColumns+` FROM login_attempts
ORDER BY created_at DESC, id DESC LIMIT $1`, limit)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[LoginAttempt])
	if err != nil {
		return nil, dbError("LoginAttemptList", err)
	}
	return list, nil
}
