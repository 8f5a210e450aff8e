package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file is accounts as admins manage them in the browser (and the command line through the
// same functions): every change with its record in account_changes in the same transaction, the
// guard that keeps one active admin, and one-time links to set a password.

// ErrLastAdmin reports a change that would leave no active admin; nothing was written.
var ErrLastAdmin = errors.New("the last active admin cannot be removed")

// DefaultPasswordLinkTTL is how long a one-time password link works: a working day.
const DefaultPasswordLinkTTL = 24 * time.Hour

// AccountReasonMaxLength is the longest reason a person may give for a change to an account.
const AccountReasonMaxLength = 1000

// The changes account_changes records.
const (
	AccountChangeCreated            = "created"
	AccountChangeRoleChanged        = "role_changed"
	AccountChangeCoursesChanged     = "courses_changed"
	AccountChangeDisabled           = "disabled"
	AccountChangeEnabled            = "enabled"
	AccountChangePasswordLinkIssued = "password_link_issued"
	AccountChangePasswordSet        = "password_set"
)

// AccountChangeBy is who changes an account, when and why. ActorID "" is the command line on the
// server.
type AccountChangeBy struct {
	ActorID string
	At      time.Time
	Reason  string
	// ReasonCode, when regdesk itself words the reason (a first password, a token made), names
	// it, with ReasonArgs its values; the row keeps them in details so the page says the reason
	// in the reader's language, and Reason is the same in English, for the command line.
	ReasonCode string
	ReasonArgs map[string]string
	// ActorRole is the actor's role as they acted, when the caller knows it better than the
	// account does at the change's write (a person changing their own role); "" reads it from the
	// actor's account in the change's transaction.
	ActorRole string
}

// The reasons regdesk words itself; see AccountChangeBy.ReasonCode.
const (
	AccountReasonFirstPassword = "first_password"
	AccountReasonOwnPassword   = "own_password"
	AccountReasonTokenMade     = "api_token_made"
	AccountReasonTokenRevoked  = "api_token_revoked"
	// AccountReasonOwnPasswordSignedOut is a password set through a one-time link since such a
	// change ends every other session of the account (AccountReasonOwnPassword before).
	AccountReasonOwnPasswordSignedOut = "own_password_signed_out"
	// AccountReasonTokenRevokedDisabled is a token revoked because its account was disabled.
	AccountReasonTokenRevokedDisabled = "api_token_revoked_disabled"
)

// The details a "disabled" change keeps of what the disabling ended: how many open password links
// it spent and API tokens it revoked (each token also has its own api_token_revoked change).
const (
	AccountDetailLinksSpent    = "password_links_spent"
	AccountDetailTokensRevoked = "api_tokens_revoked"
)

// AccountChangeReason is the reason a change's details name, as AccountChangeBy gave it: its code
// and values, or "" for a reason a person typed. A row written before reasons had codes holds
// only the English sentence; ReadAccountChangeReason recognises the sentences regdesk wrote.
type AccountChangeReason struct {
	Code string            `json:"reason_code,omitempty"`
	Args map[string]string `json:"reason_args,omitempty"`
}

// oldReasons are the English sentences regdesk wrote as reasons before they had codes.
var oldReasons = []struct {
	code string
	re   *regexp.Regexp
}{
	{AccountReasonFirstPassword, regexp.MustCompile(`^First password for the new account\.$`)},
	{AccountReasonOwnPassword, regexp.MustCompile(`^Set their own password through a one-time link\.$`)},
	{AccountReasonTokenMade, regexp.MustCompile(`^Made the API token “(?P<Name>.*)”\.$`)},
	{AccountReasonTokenRevoked, regexp.MustCompile(`^Revoked the API token “(?P<Name>.*)”\.$`)},
}

// ReadAccountChangeReason returns the coded reason of a change: from its details, or for a row
// in the old shape from the English sentence regdesk wrote; a reason a person typed has none.
func ReadAccountChangeReason(c AccountChange) AccountChangeReason {
	var r AccountChangeReason
	if len(c.Details) > 0 && json.Unmarshal(c.Details, &r) == nil && r.Code != "" {
		return r
	}
	if c.ActorID != nil || c.Change == AccountChangePasswordSet {
		for _, o := range oldReasons {
			if m := o.re.FindStringSubmatch(c.Reason); m != nil {
				r = AccountChangeReason{Code: o.code}
				if i := o.re.SubexpIndex("Name"); i > 0 {
					r.Args = map[string]string{"Name": m[i]}
				}
				return r
			}
		}
	}
	return AccountChangeReason{}
}

func (b AccountChangeBy) validate() (AccountChangeBy, error) {
	b.Reason = strings.TrimSpace(b.Reason)
	if b.Reason == "" {
		return b, &ValidationError{Field: "reason", Message: "Say why: the reason is kept with the change.", Key: "invalid.accountReason"}
	}
	if len([]rune(b.Reason)) > AccountReasonMaxLength {
		return b, &ValidationError{Field: "reason", Message: fmt.Sprintf("Keep the reason under %d characters.", AccountReasonMaxLength), Key: "invalid.reasonTooLong", Args: []any{"Max", AccountReasonMaxLength}}
	}
	if b.ActorID != "" && !IsUUID(b.ActorID) {
		return b, fmt.Errorf("account change by %q: %w", b.ActorID, ErrNotFound)
	}
	return b, nil
}

// AccountChange is one recorded change to an account.
type AccountChange struct {
	ID        string          `db:"id"`
	CreatedAt time.Time       `db:"created_at"`
	AccountID string          `db:"account_id"`
	Change    string          `db:"change"`
	ActorID   *string         `db:"actor_id"`
	ActorName *string         `db:"actor_name"`
	Reason    string          `db:"reason"`
	Details   json.RawMessage `db:"details"`
}

func (q *Queries) accountChangeInsert(ctx context.Context, accountID, change string, by AccountChangeBy, details map[string]any) error {
	if by.ReasonCode != "" {
		details = maps.Clone(details)
		if details == nil {
			details = map[string]any{}
		}
		details["reason_code"] = by.ReasonCode
		if len(by.ReasonArgs) > 0 {
			details["reason_args"] = by.ReasonArgs
		}
	}
	var raw []byte
	if details != nil {
		var err error
		if raw, err = json.Marshal(details); err != nil {
			return fmt.Errorf("accountChangeInsert: %w", err)
		}
	}
	var actor *string
	if by.ActorID != "" {
		actor = &by.ActorID
	}
	// The role is the actor's as they act, kept with the change: the audit shows it, whatever
	// their role later becomes. None for the command line.
	_, err := q.db.Exec(ctx, `INSERT INTO account_changes (id, created_at, account_id, actor_user_id, change, reason, details, actor_role)
VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce(nullif($8, '')::account_role, (SELECT a.role FROM accounts a WHERE a.id = $4)))`,
		NewID(), by.At, accountID, actor, change, by.Reason, raw, by.ActorRole)
	if err != nil {
		return dbError("accountChangeInsert", err)
	}
	return nil
}

// AccountChangeList returns the newest limit changes, of one account when accountID is not "".
func (q *Queries) AccountChangeList(ctx context.Context, accountID string, limit int) ([]AccountChange, error) {
	if accountID != "" && !IsUUID(accountID) {
		return nil, nil
	}
	rows, _ := q.db.Query(ctx, `SELECT c.id::text AS id, c.created_at, c.account_id::text AS account_id, c.change,
  c.actor_user_id::text AS actor_id, a.name AS actor_name, c.reason, c.details
FROM account_changes c LEFT JOIN accounts a ON a.id = c.actor_user_id
WHERE ($1 = '' OR c.account_id = nullif($1, '')::uuid)
ORDER BY c.created_at DESC, c.id DESC LIMIT $2`, accountID, limit)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[AccountChange])
	if err != nil {
		return nil, dbError("AccountChangeList", err)
	}
	return list, nil
}

// AccountOverview is an account as the admin list shows it.
type AccountOverview struct {
	Account
	// LastSignInAt is the last successful sign-in with a password; nil when there was none.
	LastSignInAt *time.Time `db:"last_sign_in_at"`
	// LMSUserName is the LMS user the account is, by name, or by e-mail when the LMS knows no
	// name; "" when the account is no LMS user.
	LMSUserName string `db:"lms_user_name"`
}

// AccountOverviewList returns every account with its last sign-in, by name.
func (q *Queries) AccountOverviewList(ctx context.Context) ([]AccountOverview, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+accountColumns+`,
  (SELECT max(l.created_at) FROM login_attempts l WHERE l.account_id = a.id AND l.outcome = 'success') AS last_sign_in_at,
  CASE WHEN a.lms_user_id IS NULL THEN '' ELSE coalesce(nullif(btrim(concat_ws(' ', lu.first_name, lu.last_name)), ''), lu.email, a.lms_user_id::text) END AS lms_user_name
FROM accounts a LEFT JOIN user_details lu ON lu.user_id = a.lms_user_id ORDER BY lower(a.name), lower(a.email), a.id`)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[AccountOverview])
	if err != nil {
		return nil, dbError("AccountOverviewList", err)
	}
	return list, nil
}

// validRole reports whether role is one of the account roles.
func validRole(role string) bool {
	return role == AccountRoleAdmin || role == AccountRoleSupport || role == AccountRoleTeacher
}

// validateCourses checks a teacher's courses as a person picked them, and returns them sorted
// without repeats; other roles have none.
func (q *Queries) validateCourses(ctx context.Context, role string, courseIDs []string) ([]string, error) {
	if role != AccountRoleTeacher {
		return nil, nil
	}
	ids := slices.Compact(slices.Sorted(slices.Values(courseIDs)))
	if len(ids) == 0 {
		// The command line allows it, with a warning; the browser's form asks for a course.
		return nil, nil
	}
	for _, id := range ids {
		if !IsUUID(id) {
			return nil, &ValidationError{Field: "courses", Message: "Pick the courses from the list.", Key: "invalid.courses"}
		}
	}
	var n int
	if err := q.db.QueryRow(ctx, `SELECT count(*) FROM courses WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`, ids).Scan(&n); err != nil {
		return nil, dbError("validateCourses", err)
	}
	if n != len(ids) {
		return nil, &ValidationError{Field: "courses", Message: "One of those courses does not exist; pick the courses from the list.", Key: "invalid.courseGone"}
	}
	return ids, nil
}

// AccountAddParams is a new account added by a person (or the command line).
type AccountAddParams struct {
	Name, Email, Role string
	CourseIDs         []string
	// PasswordHash may be empty: the account signs in through single sign-on, or gets a password
	// through a one-time link.
	PasswordHash string
	// LMSUser, when not "", is the LMS user the person is, by LMS user id or LMS e-mail address
	// (see LMSUserFind): hand actions are asked of the LMS as them.
	LMSUser string
	By      AccountChangeBy
}

// AccountAdd creates an account with its courses and records the change, in one transaction. Bad
// input is a *ValidationError, an address in use ErrConflict; nothing is written then.
func (s *Store) AccountAdd(ctx context.Context, p AccountAddParams) (Account, error) {
	by, err := p.By.validate()
	if err != nil {
		return Account{}, err
	}
	name, email := strings.TrimSpace(p.Name), strings.TrimSpace(p.Email)
	if name == "" || len([]rune(name)) > 200 {
		return Account{}, &ValidationError{Field: "name", Message: "Give the person's name, as the top bar and the audit show it (up to 200 characters).", Key: "invalid.accountName", Args: []any{"Max", 200}}
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		return Account{}, &ValidationError{Field: "email", Message: "Give an e-mail address such as sami@helsinki.fi.", Key: "invalid.email"}
	}
	if !validRole(p.Role) {
		return Account{}, &ValidationError{Field: "role", Message: "Pick a role: admin, support or teacher.", Key: "invalid.role"}
	}
	var acct Account
	err = s.InTx(ctx, func(q *Queries) error {
		courses, err := q.validateCourses(ctx, p.Role, p.CourseIDs)
		if err != nil {
			return err
		}
		var hash *string
		if p.PasswordHash != "" {
			hash = &p.PasswordHash
		}
		var lms LMSUser
		if strings.TrimSpace(p.LMSUser) != "" {
			if lms, err = q.LMSUserFind(ctx, p.LMSUser); err != nil {
				return err
			}
			if err := q.lmsUserFree(ctx, "", lms); err != nil {
				return err
			}
		}
		var id string
		if err := q.db.QueryRow(ctx, `INSERT INTO accounts (id, created_at, name, email, role, password_hash, lms_user_id)
VALUES (gen_random_uuid(), $1, $2, $3, $4::account_role, $5, $6) RETURNING id::text`, by.At, name, email, p.Role, hash, nullIfEmpty(lms.ID)).Scan(&id); err != nil {
			return dbError("AccountAdd", err)
		}
		if err := q.accountCoursesInsert(ctx, id, courses); err != nil {
			return err
		}
		if err := q.accountChangeInsert(ctx, id, AccountChangeCreated, by, map[string]any{
			"role": p.Role, "course_ids": courses, "email": email, "name": name, "password": hash != nil, "lms_user_id": lms.ID,
		}); err != nil {
			return err
		}
		acct, err = q.AccountGet(ctx, id)
		return err
	})
	return acct, err
}

// lockAdmins locks every active admin, so two admins demoting each other at once are decided one
// after the other, and returns their ids.
func (q *Queries) lockAdmins(ctx context.Context) ([]string, error) {
	rows, _ := q.db.Query(ctx, `SELECT id::text FROM accounts WHERE role = 'admin' AND disabled_at IS NULL ORDER BY id FOR UPDATE`)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError("lockAdmins", err)
	}
	return ids, nil
}

// guardLastAdmin refuses a change that takes id out of the active admins when it is the only one.
func (q *Queries) guardLastAdmin(ctx context.Context, id string) error {
	admins, err := q.lockAdmins(ctx)
	if err != nil {
		return err
	}
	if len(admins) == 1 && admins[0] == id {
		return ErrLastAdmin
	}
	return nil
}

// accountForUpdate locks and reads one account.
func (q *Queries) accountForUpdate(ctx context.Context, id string) (Account, error) {
	if !IsUUID(id) {
		return Account{}, fmt.Errorf("accountForUpdate: %w", ErrNotFound)
	}
	if _, err := q.db.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, id); err != nil {
		return Account{}, dbError("accountForUpdate", err)
	}
	return q.AccountGet(ctx, id)
}

// AccountUpdateParams changes an account's role and courses.
type AccountUpdateParams struct {
	ID        string
	Role      string
	CourseIDs []string
	By        AccountChangeBy
}

// AccountUpdate sets an account's role and (for a teacher) courses, recording each change that is
// one; a form sent back unchanged writes nothing. Demoting the last active admin is ErrLastAdmin.
// It reports whether anything changed.
func (s *Store) AccountUpdate(ctx context.Context, p AccountUpdateParams) (bool, error) {
	by, err := p.By.validate()
	if err != nil {
		return false, err
	}
	if !validRole(p.Role) {
		return false, &ValidationError{Field: "role", Message: "Pick a role: admin, support or teacher.", Key: "invalid.role"}
	}
	changed := false
	err = s.InTx(ctx, func(q *Queries) error {
		acct, err := q.accountForUpdate(ctx, p.ID)
		if err != nil {
			return err
		}
		courses, err := q.validateCourses(ctx, p.Role, p.CourseIDs)
		if err != nil {
			return err
		}
		if acct.Role == AccountRoleAdmin && p.Role != AccountRoleAdmin && acct.DisabledAt == nil {
			if err := q.guardLastAdmin(ctx, acct.ID); err != nil {
				return err
			}
		}
		if acct.Role != p.Role {
			if acct.ID == by.ActorID && by.ActorRole == "" {
				// Someone changing their own role acted in the role they had before it.
				by.ActorRole = acct.Role
			}
			if _, err := q.db.Exec(ctx, `UPDATE accounts SET role = $2::account_role WHERE id = $1`, acct.ID, p.Role); err != nil {
				return dbError("AccountUpdate role", err)
			}
			if err := q.accountChangeInsert(ctx, acct.ID, AccountChangeRoleChanged, by, map[string]any{"from": acct.Role, "to": p.Role}); err != nil {
				return err
			}
			changed = true
		}
		before := acct.CourseIDs
		if before == nil {
			before = []string{}
		}
		if courses == nil {
			courses = []string{}
		}
		if !slices.Equal(before, courses) {
			if _, err := q.db.Exec(ctx, `DELETE FROM account_courses WHERE account_id = $1`, acct.ID); err != nil {
				return dbError("AccountUpdate courses", err)
			}
			if err := q.accountCoursesInsert(ctx, acct.ID, courses); err != nil {
				return err
			}
			if err := q.accountChangeInsert(ctx, acct.ID, AccountChangeCoursesChanged, by, map[string]any{"from": before, "to": courses}); err != nil {
				return err
			}
			changed = true
		}
		return nil
	})
	return changed, err
}

// AccountSetDisabled disables or enables an account and records it; doing what is already so
// writes nothing and reports false. Disabling the last active admin is ErrLastAdmin. A disabled
// account's sessions end at their next request, which reloads the account. Disabling also spends
// the account's open password links and revokes its API tokens, in the same transaction, each
// recorded: enabling it again gives none of them back, so a link or token made before cannot
// outlive the disabling.
func (s *Store) AccountSetDisabled(ctx context.Context, id string, disabled bool, by AccountChangeBy) (bool, error) {
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
		if (acct.DisabledAt != nil) == disabled {
			return nil
		}
		changed = true
		if !disabled {
			if _, err := q.db.Exec(ctx, `UPDATE accounts SET disabled_at = NULL WHERE id = $1`, acct.ID); err != nil {
				return dbError("AccountSetDisabled", err)
			}
			return q.accountChangeInsert(ctx, acct.ID, AccountChangeEnabled, by, nil)
		}
		if acct.Role == AccountRoleAdmin {
			if err := q.guardLastAdmin(ctx, acct.ID); err != nil {
				return err
			}
		}
		if _, err := q.db.Exec(ctx, `UPDATE accounts SET disabled_at = $2 WHERE id = $1`, acct.ID, by.At); err != nil {
			return dbError("AccountSetDisabled", err)
		}
		// Withdrawn, not used: superseded says so, as for a link a newer one replaced.
		links, err := q.db.Exec(ctx, `UPDATE account_password_links SET used_at = $2, superseded = true
WHERE account_id = $1 AND used_at IS NULL AND expires_at > $2`, acct.ID, by.At)
		if err != nil {
			return dbError("AccountSetDisabled links", err)
		}
		rows, _ := q.db.Query(ctx, `UPDATE api_tokens SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL
RETURNING id::text AS id, name, created_at, last_used_at, revoked_at`, acct.ID, by.At)
		tokens, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIToken])
		if err != nil {
			return dbError("AccountSetDisabled tokens", err)
		}
		if err := q.accountChangeInsert(ctx, acct.ID, AccountChangeDisabled, by, map[string]any{
			AccountDetailLinksSpent: links.RowsAffected(), AccountDetailTokensRevoked: len(tokens),
		}); err != nil {
			return err
		}
		for _, t := range tokens {
			revokedBy := AccountChangeBy{ActorID: by.ActorID, At: by.At, ActorRole: by.ActorRole,
				Reason:     "Revoked the API token “" + t.Name + "” as the account was disabled.",
				ReasonCode: AccountReasonTokenRevokedDisabled, ReasonArgs: map[string]string{"Name": t.Name}}
			if err := q.accountChangeInsert(ctx, acct.ID, AccountChangeAPITokenRevoked, revokedBy, map[string]any{"token_id": t.ID}); err != nil {
				return err
			}
		}
		return nil
	})
	return changed, err
}

// hashToken is how a link's token is kept: its SHA-256. The token is 32 random bytes, so a hash
// without salt or stretching is as strong as the token itself.
func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// newToken returns 32 random bytes as URL-safe text.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// AccountPasswordLinkIssue makes a one-time link token for the account that works until by.At +
// ttl, replacing any older unused link, and records it. The token is returned once and kept only
// as its hash.
func (s *Store) AccountPasswordLinkIssue(ctx context.Context, id string, ttl time.Duration, by AccountChangeBy) (token string, expires time.Time, err error) {
	by, err = by.validate()
	if err != nil {
		return "", time.Time{}, err
	}
	if ttl <= 0 {
		ttl = DefaultPasswordLinkTTL
	}
	token, expires = newToken(), by.At.Add(ttl)
	err = s.InTx(ctx, func(q *Queries) error {
		acct, err := q.accountForUpdate(ctx, id)
		if err != nil {
			return err
		}
		if _, err := q.db.Exec(ctx, `UPDATE account_password_links SET used_at = $2, superseded = true
WHERE account_id = $1 AND used_at IS NULL`, acct.ID, by.At); err != nil {
			return dbError("AccountPasswordLinkIssue supersede", err)
		}
		var creator *string
		if by.ActorID != "" {
			creator = &by.ActorID
		}
		if _, err := q.db.Exec(ctx, `INSERT INTO account_password_links (id, account_id, token_hash, created_at, created_by, expires_at)
VALUES ($1, $2, $3, $4, $5, $6)`, NewID(), acct.ID, hashToken(token), by.At, creator, expires); err != nil {
			return dbError("AccountPasswordLinkIssue", err)
		}
		return q.accountChangeInsert(ctx, acct.ID, AccountChangePasswordLinkIssued, by, map[string]any{"expires_at": expires.UTC()})
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return token, expires, nil
}

// ErrLinkExpired reports a password link that was valid once and no longer is: used, replaced by
// a newer one, or past its time.
var ErrLinkExpired = errors.New("password link expired or used")

// passwordLinkRow is a password link as its checks read it.
type passwordLinkRow struct {
	ID         string     `db:"id"`
	AccountID  string     `db:"account_id"`
	ExpiresAt  time.Time  `db:"expires_at"`
	UsedAt     *time.Time `db:"used_at"`
	DisabledAt *time.Time `db:"disabled_at"`
}

func (q *Queries) passwordLink(ctx context.Context, now time.Time, token string, lock bool) (passwordLinkRow, error) {
	sql := `SELECT l.id::text AS id, l.account_id::text AS account_id, l.expires_at, l.used_at, a.disabled_at
FROM account_password_links l JOIN accounts a ON a.id = l.account_id WHERE l.token_hash = $1`
	if lock {
		sql += ` FOR UPDATE OF l`
	}
	rows, _ := q.db.Query(ctx, sql, hashToken(token))
	l, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[passwordLinkRow])
	if err != nil {
		return l, dbError("passwordLink", err)
	}
	if l.UsedAt != nil || !now.Before(l.ExpiresAt) || l.DisabledAt != nil {
		return l, fmt.Errorf("passwordLink: %w", ErrLinkExpired)
	}
	return l, nil
}

// AccountPasswordLinkCheck returns the account a link token sets the password of, if the link
// still works at now: ErrNotFound for a token that was never issued, ErrLinkExpired for one used,
// replaced, past its time, or of a disabled account. It changes nothing, so a mail scanner or a
// preview opening the link does not spend it.
func (s *Store) AccountPasswordLinkCheck(ctx context.Context, now time.Time, token string) (Account, error) {
	l, err := s.passwordLink(ctx, now, token, false)
	if err != nil {
		return Account{}, err
	}
	return s.AccountGet(ctx, l.AccountID)
}

// AccountPasswordLinkUse sets the password through a link token, spending the link, and records
// the change as the account holder's own, in one transaction. Errors as AccountPasswordLinkCheck.
// The account's sessions are bound to the password they signed in with (the web's sessions keep
// a mark of its hash), so the new password ends them; the change says so.
func (s *Store) AccountPasswordLinkUse(ctx context.Context, now time.Time, token, passwordHash string) (Account, error) {
	var acct Account
	err := s.InTx(ctx, func(q *Queries) error {
		l, err := q.passwordLink(ctx, now, token, true)
		if err != nil {
			return err
		}
		if _, err := q.db.Exec(ctx, `UPDATE account_password_links SET used_at = $2 WHERE id = $1`, l.ID, now); err != nil {
			return dbError("AccountPasswordLinkUse", err)
		}
		if err := q.AccountSetPassword(ctx, l.AccountID, passwordHash); err != nil {
			return err
		}
		if err := q.accountChangeInsert(ctx, l.AccountID, AccountChangePasswordSet,
			AccountChangeBy{ActorID: l.AccountID, At: now, Reason: "Set their own password through a one-time link; every other session of the account ended.",
				ReasonCode: AccountReasonOwnPasswordSignedOut}, map[string]any{"other_sessions_ended": true}); err != nil {
			return err
		}
		acct, err = q.AccountGet(ctx, l.AccountID)
		return err
	})
	return acct, err
}

// AccountPasswordSet replaces an account's password hash and records the change; the command
// line's passwd uses it.
func (s *Store) AccountPasswordSet(ctx context.Context, id, passwordHash string, by AccountChangeBy) error {
	by, err := by.validate()
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(q *Queries) error {
		if err := q.AccountSetPassword(ctx, id, passwordHash); err != nil {
			return err
		}
		return q.accountChangeInsert(ctx, id, AccountChangePasswordSet, by, nil)
	})
}

// CommandLineChange is the change record of the command line, which has no signed-in person, at
// at, saying what was done ("Added").
func CommandLineChange(at time.Time, what string) AccountChangeBy {
	return AccountChangeBy{At: at, Reason: what + " on the server's command line."}
}
