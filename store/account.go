package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The account roles, as the account_role enum spells them.
const (
	AccountRoleAdmin   = "admin"
	AccountRoleSupport = "support"
	AccountRoleTeacher = "teacher"
)

// Account is a staff account: who may sign in, with what role, and (for teachers) which courses
// they may see.
type Account struct {
	ID        string    `db:"id"`
	CreatedAt time.Time `db:"created_at"`
	Name      string    `db:"name"`
	Email     string    `db:"email"`
	Role      string    `db:"role"`
	// PasswordHash is nil for an account that signs in through the single sign-on proxy only.
	PasswordHash *string    `db:"password_hash"`
	DisabledAt   *time.Time `db:"disabled_at"`
	// CourseIDs are the courses the account teaches, in id order; empty for most non-teachers.
	CourseIDs []string `db:"course_ids"`
	// Language is the language the person chose for regdesk ("fi", "sv", "en"); empty when they
	// never chose, and pages follow their browser.
	Language string `db:"language"`
	// LMSUserID is the LMS user (users.id) the person is; "" when the account names none, and then
	// they cannot take hand actions, which the LMS records as that user's.
	LMSUserID string `db:"lms_user_id"`
}

const accountColumns = `a.id::text AS id, a.created_at, a.name, a.email, a.role::text AS role, a.password_hash,
  a.disabled_at, coalesce(a.language, '') AS language, coalesce(a.lms_user_id::text, '') AS lms_user_id, ARRAY(SELECT ac.course_id::text FROM account_courses ac WHERE ac.account_id = a.id
    ORDER BY ac.course_id) AS course_ids`

// AccountCreateParams is a new account.
type AccountCreateParams struct {
	Name  string
	Email string
	Role  string
	// PasswordHash may be empty: such an account signs in through the single sign-on proxy only.
	PasswordHash string
	CourseIDs    []string
	// LMSUserID is the LMS user the person is ("" for none): hand actions are taken as that user.
	LMSUserID string
}

// AccountCreate inserts an account with its courses in one transaction and returns it. An e-mail
// address already in use (in any letter case) gives ErrConflict.
func (s *Store) AccountCreate(ctx context.Context, p AccountCreateParams) (Account, error) {
	var acct Account
	err := s.InTx(ctx, func(q *Queries) error {
		var hash *string
		if p.PasswordHash != "" {
			hash = &p.PasswordHash
		}
		var id string
		err := q.db.QueryRow(ctx, `INSERT INTO accounts (id, name, email, role, password_hash, lms_user_id)
VALUES (gen_random_uuid(), $1, $2, $3::account_role, $4, $5) RETURNING id::text`,
			p.Name, strings.TrimSpace(p.Email), p.Role, hash, nullIfEmpty(p.LMSUserID)).Scan(&id)
		if err != nil {
			return dbError("AccountCreate", err)
		}
		if err := q.accountCoursesInsert(ctx, id, p.CourseIDs); err != nil {
			return err
		}
		acct, err = q.AccountGet(ctx, id)
		return err
	})
	return acct, err
}

func (q *Queries) accountCoursesInsert(ctx context.Context, accountID string, courseIDs []string) error {
	if len(courseIDs) == 0 {
		return nil
	}
	_, err := q.db.Exec(ctx, `INSERT INTO account_courses (account_id, course_id)
SELECT $1, c FROM unnest($2::uuid[]) AS c ON CONFLICT DO NOTHING`, accountID, courseIDs)
	if err != nil {
		return dbError("AccountCourses insert", err)
	}
	return nil
}

// AccountSetCourses replaces the courses an account teaches. An unknown account gives ErrNotFound.
func (s *Store) AccountSetCourses(ctx context.Context, accountID string, courseIDs []string) error {
	return s.InTx(ctx, func(q *Queries) error {
		if _, err := q.AccountGet(ctx, accountID); err != nil {
			return err
		}
		if _, err := q.db.Exec(ctx, `DELETE FROM account_courses WHERE account_id = $1`, accountID); err != nil {
			return dbError("AccountSetCourses", err)
		}
		return q.accountCoursesInsert(ctx, accountID, courseIDs)
	})
}

// AccountGet returns the account with the given id, or ErrNotFound (also for a malformed id).
func (q *Queries) AccountGet(ctx context.Context, id string) (Account, error) {
	if !IsUUID(id) {
		return Account{}, fmt.Errorf("AccountGet: %w", ErrNotFound)
	}
	rows, _ := q.db.Query(ctx, `SELECT `+accountColumns+` FROM accounts a WHERE a.id = $1`, id)
	acct, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Account])
	if err != nil {
		return Account{}, dbError("AccountGet", err)
	}
	return acct, nil
}

// AccountSetLanguage keeps the language a person chose for regdesk ("fi", "sv" or "en"; the
// database refuses others) and when they chose it. An unknown account gives ErrNotFound.
func (q *Queries) AccountSetLanguage(ctx context.Context, id, language string, at time.Time) error {
	if !IsUUID(id) {
		return fmt.Errorf("AccountSetLanguage: %w", ErrNotFound)
	}
	tag, err := q.db.Exec(ctx, `UPDATE accounts SET language = $2, language_set_at = $3 WHERE id = $1`, id, language, at)
	if err != nil {
		return dbError("AccountSetLanguage", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("AccountSetLanguage: %w", ErrNotFound)
	}
	return nil
}

// AccountGetByEmail returns the account with the given e-mail address, compared without regard to
// letter case or surrounding spaces, or ErrNotFound.
func (q *Queries) AccountGetByEmail(ctx context.Context, email string) (Account, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+accountColumns+` FROM accounts a WHERE lower(a.email) = lower($1)`,
		strings.TrimSpace(email))
	acct, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Account])
	if err != nil {
		return Account{}, dbError("AccountGetByEmail", err)
	}
	return acct, nil
}

// AccountList returns every account, disabled ones included, by e-mail address.
func (q *Queries) AccountList(ctx context.Context) ([]Account, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+accountColumns+` FROM accounts a ORDER BY lower(a.email), a.id`)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[Account])
	if err != nil {
		return nil, dbError("AccountList", err)
	}
	return list, nil
}

// AccountSetPassword replaces an account's password hash. An unknown account gives ErrNotFound.
func (q *Queries) AccountSetPassword(ctx context.Context, id, passwordHash string) error {
	if !IsUUID(id) {
		return fmt.Errorf("AccountSetPassword: %w", ErrNotFound)
	}
	tag, err := q.db.Exec(ctx, `UPDATE accounts SET password_hash = $2 WHERE id = $1`, id, passwordHash)
	if err != nil {
		return dbError("AccountSetPassword", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("AccountSetPassword: %w", ErrNotFound)
	}
	return nil
}

// AccountDisable marks an account disabled as of at; disabling it again keeps the first time. The
// account's sessions end at their next request, which reloads the account. An unknown account
// gives ErrNotFound.
func (q *Queries) AccountDisable(ctx context.Context, id string, at time.Time) error {
	if !IsUUID(id) {
		return fmt.Errorf("AccountDisable: %w", ErrNotFound)
	}
	tag, err := q.db.Exec(ctx, `UPDATE accounts SET disabled_at = coalesce(disabled_at, $2) WHERE id = $1`, id, at)
	if err != nil {
		return dbError("AccountDisable", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("AccountDisable: %w", ErrNotFound)
	}
	return nil
}

// AccountCourseIDs returns the courses an account teaches, in id order; none for an unknown
// account.
func (q *Queries) AccountCourseIDs(ctx context.Context, id string) ([]string, error) {
	if !IsUUID(id) {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT course_id::text FROM account_courses WHERE account_id = $1 ORDER BY course_id`, id)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError("AccountCourseIDs", err)
	}
	return ids, nil
}
