package store

import (
	"context"
	"fmt"
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
	// LoginChecking is an attempt reserved under the limits whose password is still being
	// checked; LoginAttemptFinish replaces it with the outcome.
	LoginChecking = "checking"
)

// loginFailures are the outcomes that count against a limit: every failure, and attempts still
// being checked, which may yet fail.
const loginFailures = `('wrong_password', 'unknown_account', 'no_password', 'disabled', 'checking')`

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

// loginEmail is what is kept of a typed address: PostgreSQL text holds neither NUL nor broken
// UTF-8, and a typed address may contain both.
func loginEmail(typed string) string {
	email := strings.ToValidUTF8(strings.ReplaceAll(typed, "\x00", ""), "\uFFFD")
	if len(email) > maxLoginEmail {
		email = strings.ToValidUTF8(email[:maxLoginEmail], "")
	}
	return email
}

// LoginAttemptInsert records a sign-in attempt.
func (q *Queries) LoginAttemptInsert(ctx context.Context, a LoginAttempt) error {
	_, err := q.db.Exec(ctx, `INSERT INTO login_attempts (created_at, address, email, account_id, outcome)
VALUES ($1, $2, $3, $4, $5::login_outcome)`, a.CreatedAt, a.Address, loginEmail(a.Email), a.AccountID, a.Outcome)
	if err != nil {
		return dbError("LoginAttemptInsert", err)
	}
	return nil
}

// LoginLimit refuses a key (an address, an account) that failed Max times within Window, until
// the oldest of those failures ages out.
type LoginLimit struct {
	Max    int
	Window time.Duration
}

// LoginAttemptReserve checks a sign-in attempt against the limits per address and per account
// (the typed e-mail address, case ignored; a success clears the account's count) and records it,
// in one transaction under locks on both keys, so concurrent attempts and other instances see each
// other. Within the limits it records the attempt as LoginChecking and returns its id, for
// LoginAttemptFinish once the password is checked; past them it records LoginRateLimited and
// returns when the attempt may be made again (id 0).
func (s *Store) LoginAttemptReserve(ctx context.Context, a LoginAttempt, byAddress, byAccount LoginLimit) (id int64, blockedUntil time.Time, err error) {
	email := loginEmail(a.Email)
	err = s.InTx(ctx, func(q *Queries) error {
		// Always the address first, then the account: one order, so two attempts never deadlock.
		if _, err := q.db.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('login address ' || $1, 0)),
  pg_advisory_xact_lock(hashtextextended('login account ' || lower($2), 0))`, a.Address, email); err != nil {
			return dbError("LoginAttemptReserve lock", err)
		}
		until, err := q.loginBlockedUntil(ctx, `address = $1`, a.Address, a.CreatedAt, byAddress)
		if err != nil {
			return err
		}
		acct, err := q.loginBlockedUntil(ctx, `lower(email) = lower($1) AND created_at > coalesce((SELECT max(s.created_at)
  FROM login_attempts s WHERE lower(s.email) = lower($1) AND s.outcome = 'success'), '-infinity')`, email, a.CreatedAt, byAccount)
		if err != nil {
			return err
		}
		if acct.After(until) {
			until = acct
		}
		outcome := LoginChecking
		if !until.IsZero() {
			outcome, blockedUntil = LoginRateLimited, until
		}
		err = q.db.QueryRow(ctx, `INSERT INTO login_attempts (created_at, address, email, account_id, outcome)
VALUES ($1, $2, $3, $4, $5::login_outcome) RETURNING id`, a.CreatedAt, a.Address, email, a.AccountID, outcome).Scan(&id)
		if err != nil {
			return dbError("LoginAttemptReserve insert", err)
		}
		return nil
	})
	if err != nil {
		return 0, time.Time{}, err
	}
	if !blockedUntil.IsZero() {
		id = 0
	}
	return id, blockedUntil, nil
}

// loginBlockedUntil returns until when the attempts matching where ($1 is key) block another at
// now under limit; the zero time when they do not. An attempt another instance dated a moment
// after now counts too: instances' clocks differ by that much.
func (q *Queries) loginBlockedUntil(ctx context.Context, where, key string, now time.Time, limit LoginLimit) (time.Time, error) {
	if limit.Max <= 0 {
		return time.Time{}, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT created_at FROM login_attempts
WHERE `+where+` AND created_at > $2 AND outcome IN `+loginFailures+`
ORDER BY created_at DESC LIMIT $3`, key, now.Add(-limit.Window), limit.Max)
	recent, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return time.Time{}, dbError("loginBlockedUntil", err)
	}
	if len(recent) < limit.Max {
		return time.Time{}, nil
	}
	// The oldest of the last Max failures decides when the key may try again.
	return recent[len(recent)-1].Add(limit.Window), nil
}

// LoginAttemptFinish records the outcome of an attempt LoginAttemptReserve let through. An id it
// does not know, or an attempt already finished, is ErrNotFound.
func (q *Queries) LoginAttemptFinish(ctx context.Context, id int64, outcome string, accountID *string) error {
	tag, err := q.db.Exec(ctx, `UPDATE login_attempts SET outcome = $2::login_outcome, account_id = coalesce($3, account_id)
WHERE id = $1 AND outcome = 'checking'`, id, outcome, accountID)
	if err != nil {
		return dbError("LoginAttemptFinish", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("LoginAttemptFinish %d: %w", id, ErrNotFound)
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
