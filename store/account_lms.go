package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// AccountChangeLMSUserChanged is the account change that links an account to an LMS user, moves
// the link, or clears it.
const AccountChangeLMSUserChanged = "lms_user_changed"

// LMSUser is a person of the LMS as an account links to them: hand actions are asked of the LMS
// as this user, and the LMS's audit rows that name them are the account's own.
type LMSUser struct {
	ID, Name, Email string
	// CanAct is true when the LMS lets the user administrate credit registrations: a live global
	// role admin or credit_registration_admin (authorize_credit_registration_admin). Without it
	// the LMS refuses every hand action taken as them.
	CanAct bool
}

// sqlLMSUserColumns reads an LMS user from users u and user_details d.
const sqlLMSUserColumns = `u.id::text, coalesce(btrim(concat_ws(' ', d.first_name, d.last_name)), ''), coalesce(d.email, ''),
  EXISTS (SELECT 1 FROM roles r WHERE r.user_id = u.id AND r.is_global AND r.deleted_at IS NULL
    AND r.role::text IN ('admin', 'credit_registration_admin'))`

// LMSUserGet returns the LMS user with id; ErrNotFound when the LMS has none (or deleted them).
func (q *Queries) LMSUserGet(ctx context.Context, id string) (LMSUser, error) {
	if !IsUUID(id) {
		return LMSUser{}, fmt.Errorf("LMSUserGet: %w", ErrNotFound)
	}
	var u LMSUser
	err := q.db.QueryRow(ctx, `SELECT `+sqlLMSUserColumns+`
FROM users u LEFT JOIN user_details d ON d.user_id = u.id
WHERE u.id = $1 AND u.deleted_at IS NULL`, id).Scan(&u.ID, &u.Name, &u.Email, &u.CanAct)
	if errors.Is(err, pgx.ErrNoRows) {
		return LMSUser{}, fmt.Errorf("LMSUserGet: %w", ErrNotFound)
	}
	if err != nil {
		return LMSUser{}, dbError("LMSUserGet", err)
	}
	return u, nil
}

// LMSUserFind finds the LMS user a person named by their LMS user id or the e-mail address they
// sign in to the LMS with (compared as the LMS's unique index does, ignoring case). A reference
// that is neither, or names nobody, is a *ValidationError.
func (q *Queries) LMSUserFind(ctx context.Context, ref string) (LMSUser, error) {
	ref = strings.TrimSpace(ref)
	unknown := &ValidationError{Field: "lms_user", Message: fmt.Sprintf("The LMS has no user %s; give their LMS user id or the e-mail address they sign in to the LMS with.", ref),
		Key: "invalid.lmsUserUnknown", Args: []any{"Ref", ref}}
	switch {
	case IsUUID(ref):
		u, err := q.LMSUserGet(ctx, ref)
		if errors.Is(err, ErrNotFound) {
			return LMSUser{}, unknown
		}
		return u, err
	case strings.Contains(ref, "@") && len(ref) <= 254:
		var u LMSUser
		err := q.db.QueryRow(ctx, `SELECT `+sqlLMSUserColumns+`
FROM user_details d JOIN users u ON u.id = d.user_id
WHERE lower(d.email) = lower($1) AND u.deleted_at IS NULL`, ref).Scan(&u.ID, &u.Name, &u.Email, &u.CanAct)
		if errors.Is(err, pgx.ErrNoRows) {
			return LMSUser{}, unknown
		}
		if err != nil {
			return LMSUser{}, dbError("LMSUserFind", err)
		}
		return u, nil
	default:
		return LMSUser{}, &ValidationError{Field: "lms_user", Message: "Give the person's LMS user id or the e-mail address they sign in to the LMS with.", Key: "invalid.lmsUser"}
	}
}

// lmsUserFree refuses to link an LMS user another account already is: the LMS's audit names one
// person, and regdesk must say which account that was.
func (q *Queries) lmsUserFree(ctx context.Context, accountID string, u LMSUser) error {
	var other string
	err := q.db.QueryRow(ctx, `SELECT name FROM accounts WHERE lms_user_id = $1 AND ($2 = '' OR id <> nullif($2, '')::uuid)`, u.ID, accountID).Scan(&other)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return dbError("lmsUserFree", err)
	}
	return &ValidationError{Field: "lms_user", Message: fmt.Sprintf("The account of %s is already that LMS user.", other),
		Key: "invalid.lmsUserTaken", Args: []any{"Name", other}}
}

// AccountSetLMSUser links the account to the LMS user ref names (see LMSUserFind), or clears the
// link when ref is "", and records the change with who, when and why. Linking what is already
// linked writes nothing and reports false. A reference that names nobody, or an LMS user another
// account already is, is a *ValidationError; an unknown account ErrNotFound.
func (s *Store) AccountSetLMSUser(ctx context.Context, id, ref string, by AccountChangeBy) (bool, error) {
	by, err := by.validate()
	if err != nil {
		return false, err
	}
	changed := false
	err = s.InTx(ctx, func(q *Queries) error {
		acct, err := q.accountForUpdate(ctx, id)
		if err != nil {
			return err
		}
		var to LMSUser
		if strings.TrimSpace(ref) != "" {
			if to, err = q.LMSUserFind(ctx, ref); err != nil {
				return err
			}
			if err := q.lmsUserFree(ctx, acct.ID, to); err != nil {
				return err
			}
		}
		if to.ID == acct.LMSUserID {
			return nil
		}
		if _, err := q.db.Exec(ctx, `UPDATE accounts SET lms_user_id = $2 WHERE id = $1`, acct.ID, nullIfEmpty(to.ID)); err != nil {
			return dbError("AccountSetLMSUser", err)
		}
		changed = true
		return q.accountChangeInsert(ctx, acct.ID, AccountChangeLMSUserChanged, by, map[string]any{
			"from": acct.LMSUserID, "to": to.ID, "to_email": to.Email, "to_name": to.Name})
	})
	return changed, err
}
