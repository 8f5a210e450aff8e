package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file is api_tokens: per-account tokens for the read-only JSON API. A token is shown once,
// when made; only its SHA-256 is kept (hashToken). It reads what its account may read, and stops
// working when revoked or when the account is disabled.

// APITokenPrefix starts every token, so one pasted in the wrong place is recognisable.
const APITokenPrefix = "rdk_"

// APITokenNameMaxLength bounds a token's name.
const APITokenNameMaxLength = 100

// apiTokenTouchEvery is how stale last_used_at may get: a script polling every second does not
// write a row every second.
const apiTokenTouchEvery = time.Minute

// The changes account_changes records for tokens.
const (
	AccountChangeAPITokenCreated = "api_token_created"
	AccountChangeAPITokenRevoked = "api_token_revoked"
)

// APIToken is a token as its owner's list shows it; never the token itself.
type APIToken struct {
	ID         string     `db:"id"`
	Name       string     `db:"name"`
	CreatedAt  time.Time  `db:"created_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
}

// APITokenCreate makes a token for the account, records it, and returns the token, this once.
func (s *Store) APITokenCreate(ctx context.Context, accountID, name string, at time.Time) (string, APIToken, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > APITokenNameMaxLength {
		return "", APIToken{}, &ValidationError{Field: "name", Message: fmt.Sprintf("Name the token (up to %d characters): what script or tool uses it.", APITokenNameMaxLength), Key: "invalid.tokenName", Args: []any{"Max", APITokenNameMaxLength}}
	}
	token := APITokenPrefix + newToken()
	var t APIToken
	err := s.InTx(ctx, func(q *Queries) error {
		if _, err := q.accountForUpdate(ctx, accountID); err != nil {
			return err
		}
		rows, _ := q.db.Query(ctx, `INSERT INTO api_tokens (id, account_id, name, token_hash, created_at)
VALUES ($1, $2, $3, $4, $5) RETURNING id::text AS id, name, created_at, last_used_at, revoked_at`,
			NewID(), accountID, name, hashToken(token), at)
		var err error
		if t, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[APIToken]); err != nil {
			return dbError("APITokenCreate", err)
		}
		return q.accountChangeInsert(ctx, accountID, AccountChangeAPITokenCreated,
			AccountChangeBy{ActorID: accountID, At: at, Reason: "Made the API token “" + name + "”.", ReasonCode: AccountReasonTokenMade, ReasonArgs: map[string]string{"Name": name}}, map[string]any{"token_id": t.ID})
	})
	if err != nil {
		return "", APIToken{}, err
	}
	return token, t, nil
}

// APITokenList returns the account's tokens, newest first, revoked ones included.
func (q *Queries) APITokenList(ctx context.Context, accountID string) ([]APIToken, error) {
	if !IsUUID(accountID) {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT id::text AS id, name, created_at, last_used_at, revoked_at FROM api_tokens
WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, accountID)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIToken])
	if err != nil {
		return nil, dbError("APITokenList", err)
	}
	return list, nil
}

// APITokenRevoke revokes one of the account's tokens and records it; a token of another account,
// or none, is ErrNotFound, and revoking twice keeps the first time.
func (s *Store) APITokenRevoke(ctx context.Context, accountID, tokenID string, at time.Time) error {
	if !IsUUID(accountID) || !IsUUID(tokenID) {
		return fmt.Errorf("APITokenRevoke: %w", ErrNotFound)
	}
	return s.InTx(ctx, func(q *Queries) error {
		var name string
		var revoked *time.Time
		err := q.db.QueryRow(ctx, `SELECT name, revoked_at FROM api_tokens WHERE id = $1 AND account_id = $2 FOR UPDATE`,
			tokenID, accountID).Scan(&name, &revoked)
		if err != nil {
			return dbError("APITokenRevoke", err)
		}
		if revoked != nil {
			return nil
		}
		if _, err := q.db.Exec(ctx, `UPDATE api_tokens SET revoked_at = $2 WHERE id = $1`, tokenID, at); err != nil {
			return dbError("APITokenRevoke", err)
		}
		return q.accountChangeInsert(ctx, accountID, AccountChangeAPITokenRevoked,
			AccountChangeBy{ActorID: accountID, At: at, Reason: "Revoked the API token “" + name + "”.", ReasonCode: AccountReasonTokenRevoked, ReasonArgs: map[string]string{"Name": name}}, map[string]any{"token_id": tokenID})
	})
}

// ErrTokenRefused reports a token that opens nothing: unknown, revoked, or its account disabled.
var ErrTokenRefused = errors.New("API token refused")

// APITokenAccount returns the account a token reads as, noting its use at at (at most once a
// minute). Any token that does not open is ErrTokenRefused, the same for every reason.
func (s *Store) APITokenAccount(ctx context.Context, token string, at time.Time) (Account, error) {
	if !strings.HasPrefix(token, APITokenPrefix) || len(token) > 200 {
		return Account{}, ErrTokenRefused
	}
	var id, accountID string
	var last *time.Time
	err := s.db.QueryRow(ctx, `SELECT t.id::text, t.account_id::text, t.last_used_at FROM api_tokens t JOIN accounts a ON a.id = t.account_id
WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND a.disabled_at IS NULL`, hashToken(token)).Scan(&id, &accountID, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, ErrTokenRefused
	}
	if err != nil {
		return Account{}, dbError("APITokenAccount", err)
	}
	if last == nil || at.Sub(*last) >= apiTokenTouchEvery {
		if _, err := s.db.Exec(ctx, `UPDATE api_tokens SET last_used_at = $2 WHERE id = $1`, id, at); err != nil {
			return Account{}, dbError("APITokenAccount touch", err)
		}
	}
	return s.AccountGet(ctx, accountID)
}
