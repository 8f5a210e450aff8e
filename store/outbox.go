package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// MailKind is why a mail was written: the outbox's mail_kind.
type MailKind string

const (
	// MailAlertFired tells that an alert fired, or rose to a severity the person is mailed at.
	MailAlertFired MailKind = "alert_fired"
	// MailAlertCleared tells those its firing mailed that an alert cleared.
	MailAlertCleared MailKind = "alert_cleared"
	// MailAlertReminder tells that an alert still fires a day on.
	MailAlertReminder MailKind = "alert_reminder"
	// MailDigest is an account's daily digest of what fires.
	MailDigest MailKind = "digest"
	// MailTeacherWeekly is a teacher's weekly digest of their students who can act.
	MailTeacherWeekly MailKind = "teacher_weekly"
)

// OutboxMail is one mail to write to the outbox.
type OutboxMail struct {
	// DedupeKey names the mail's reason to exist ("fired/<alert>/<account>"): a second write of the
	// same key is a no-op, so two evaluations of one change mail once.
	DedupeKey string
	Kind      MailKind
	AccountID string
	To        string
	// AlertID is the alert the mail tells of; "" for digests.
	AlertID   string
	MessageID string
	Subject   string
	Text      string
	HTML      string
	// Headers are extra headers (List-Unsubscribe and its kin).
	Headers map[string]string
}

// OutboxInsert writes m, due at once, and reports whether it was new; a mail of the same
// DedupeKey already written leaves the outbox as it was.
func (q *Queries) OutboxInsert(ctx context.Context, m OutboxMail, now time.Time) (bool, error) {
	headers, err := json.Marshal(m.Headers)
	if err != nil {
		return false, fmt.Errorf("OutboxInsert: %w", err)
	}
	tag, err := q.db.Exec(ctx, `INSERT INTO mail_outbox (id, created_at, dedupe_key, kind, account_id, to_address, alert_id,
  message_id, subject, text_body, html_body, headers, next_attempt_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $2)
ON CONFLICT (dedupe_key) DO NOTHING`, NewID(), now, m.DedupeKey, string(m.Kind), nullIfEmpty(m.AccountID), m.To,
		nullIfEmpty(m.AlertID), m.MessageID, m.Subject, m.Text, m.HTML, headers)
	if err != nil {
		return false, dbError("OutboxInsert", err)
	}
	return tag.RowsAffected() == 1, nil
}

// OutboxExists reports whether a mail of key was ever written.
func (q *Queries) OutboxExists(ctx context.Context, key string) (bool, error) {
	var ok bool
	if err := q.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE dedupe_key = $1)`, key).Scan(&ok); err != nil {
		return false, dbError("OutboxExists", err)
	}
	return ok, nil
}

// OutboxRecipients returns the accounts that were written a mail of kind about alertID: a
// cleared alert mails those its firing mailed.
func (q *Queries) OutboxRecipients(ctx context.Context, alertID string, kind MailKind) ([]string, error) {
	rows, _ := q.db.Query(ctx, `SELECT DISTINCT account_id::text FROM mail_outbox
WHERE alert_id = $1 AND kind = $2 AND account_id IS NOT NULL ORDER BY 1`, alertID, string(kind))
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError("OutboxRecipients", err)
	}
	return ids, nil
}

// OutboxItem is a mail claimed for sending.
type OutboxItem struct {
	ID           string            `db:"id"`
	To           string            `db:"to_address"`
	MessageID    string            `db:"message_id"`
	Subject      string            `db:"subject"`
	Text         string            `db:"text_body"`
	HTML         string            `db:"html_body"`
	Headers      map[string]string `db:"headers"`
	CreatedAt    time.Time         `db:"created_at"`
	AttemptCount int               `db:"attempt_count"`
	AttemptID    int64             `db:"attempt_id"`
}

// OutboxClaimLease is how long a sender holds a claimed mail: longer than any SMTP exchange.
const OutboxClaimLease = 2 * time.Minute

// OutboxClaim takes the mail due longest at now that no other sender holds, holds it for
// OutboxClaimLease and records the attempt's start; ErrNotFound when none is due. Two senders
// never take the same mail: the claim skips rows another has locked.
func (q *Queries) OutboxClaim(ctx context.Context, now time.Time) (OutboxItem, error) {
	rows, _ := q.db.Query(ctx, `WITH c AS (
  UPDATE mail_outbox SET claimed_until = $2, attempt_count = attempt_count + 1
  WHERE id = (SELECT id FROM mail_outbox
    WHERE sent_at IS NULL AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
    ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING id, to_address, message_id, subject, text_body, html_body, headers, created_at, attempt_count
), a AS (
  INSERT INTO mail_attempts (outbox_id, started_at) SELECT id, $1 FROM c RETURNING id
)
SELECT c.id::text, c.to_address, c.message_id, c.subject, c.text_body, c.html_body, c.headers, c.created_at,
  c.attempt_count, a.id AS attempt_id FROM c, a`, now, now.Add(OutboxClaimLease))
	item, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[OutboxItem])
	if err != nil {
		return item, dbError("OutboxClaim", err)
	}
	return item, nil
}

// OutboxSent records that item was handed to the mail server at now.
func (q *Queries) OutboxSent(ctx context.Context, item OutboxItem, now time.Time) error {
	_, err := q.db.Exec(ctx, `WITH o AS (
  UPDATE mail_outbox SET sent_at = $2, claimed_until = NULL, last_error = NULL WHERE id = $1
)
UPDATE mail_attempts SET finished_at = $2, ok = true WHERE id = $3`, item.ID, now, item.AttemptID)
	if err != nil {
		return dbError("OutboxSent", err)
	}
	return nil
}

// OutboxFailed records a failed attempt and when to try again: the pipeline's submit backoff
// shape (a minute, doubling, at most six hours), so a mail server that is down for a while is
// not hammered and one that comes back gets every mail within hours.
func (q *Queries) OutboxFailed(ctx context.Context, item OutboxItem, now time.Time, cause string) error {
	next := now.Add(schedule.SubmitBackoff(int32(item.AttemptCount - 1)))
	_, err := q.db.Exec(ctx, `WITH o AS (
  UPDATE mail_outbox SET claimed_until = NULL, last_error = $3, next_attempt_at = $4 WHERE id = $1
)
UPDATE mail_attempts SET finished_at = $2, ok = false, error = $3 WHERE id = $5`, item.ID, now, cause, next, item.AttemptID)
	if err != nil {
		return dbError("OutboxFailed", err)
	}
	return nil
}

// OutboxStats is how the outbox stands, for /alerts.
type OutboxStats struct {
	Waiting   int        `db:"waiting"`
	Sent      int        `db:"sent"`
	LastError *string    `db:"last_error"`
	LastSent  *time.Time `db:"last_sent"`
}

// OutboxStatsGet counts mails waiting and sent, with the newest failure of a waiting one.
func (q *Queries) OutboxStatsGet(ctx context.Context) (OutboxStats, error) {
	rows, _ := q.db.Query(ctx, `SELECT count(*) FILTER (WHERE sent_at IS NULL)::int AS waiting,
  count(*) FILTER (WHERE sent_at IS NOT NULL)::int AS sent,
  (SELECT last_error FROM mail_outbox WHERE sent_at IS NULL AND last_error IS NOT NULL ORDER BY next_attempt_at DESC LIMIT 1) AS last_error,
  max(sent_at) AS last_sent
FROM mail_outbox`)
	st, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[OutboxStats])
	if err != nil {
		return st, dbError("OutboxStatsGet", err)
	}
	return st, nil
}
