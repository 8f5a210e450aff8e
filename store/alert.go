package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file counts the health rules' facts (schedule/health.go) and keeps the alerts' state:
// which are firing, since when, cleared when, acknowledged by whom.

// Which Suotar calls are the pipeline's: lookups are regdesk's own and say nothing about it.
const pipelineCallKinds = `e.kind IN ('suotar_response', 'retry_scheduled') AND e.suotar_endpoint IS NOT NULL`

// sqlUnreachable is true for a call that never reached Suotar or Sisu: no answer, or one saying
// the service was unavailable.
const sqlUnreachable = `(e.suotar_answer = 'unanswered' OR (e.suotar_answer = 'refused' AND e.error_code IN ('service_temporarily_unavailable', 'transport_error')))`

// sqlBlamedOnSisu is true for an item Suotar answered with a failure on Sisu's side.
const sqlBlamedOnSisu = `e.error_code IN ('sisu_timeout', 'service_temporarily_unavailable')`

// CompletionLookback bounds completions_never_entered to completions of the last week, so the
// rule reads an index range rather than every completion ever made; an older completion without a
// row has been someone's problem for days already, and shows on its course.
const CompletionLookback = 7 * 24 * time.Hour

// HealthFactsGet counts every health rule's facts at now in one snapshot.
func (s *Store) HealthFactsGet(ctx context.Context, now time.Time) (schedule.HealthFacts, error) {
	var f schedule.HealthFacts
	err := s.InReadTx(ctx, func(q *Queries) error {
		var err error
		f, err = q.healthFacts(ctx, now)
		return err
	})
	return f, err
}

func (q *Queries) healthFacts(ctx context.Context, now time.Time) (schedule.HealthFacts, error) {
	var f schedule.HealthFacts
	occ := func(n int, at *time.Time) schedule.Occurrences { return schedule.Occurrences{Count: n, LastAt: at} }

	// The rules that count calls, items, completions or time read them as their alerts' page
	// lists them (alert_counted.go).
	calls, err := q.credentialRejections(ctx, now)
	if err != nil {
		return f, err
	}
	f.CredentialRejections = callOccurrences(calls)
	if calls, err = q.unreachableRun(ctx, now); err != nil {
		return f, err
	}
	f.UnreachableRun = callOccurrences(calls)
	if f.SisuItems, f.SisuBlamed, err = q.sisuAnswered(ctx, now); err != nil {
		return f, err
	}

	var n int
	var at *time.Time
	rows, _ := q.db.Query(ctx, `SELECT cr.state::text, count(*)::int, min(cr.state_changed_at)
FROM ledger_mirror cr
WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND `+stuckCondition(cutoff)+`
GROUP BY cr.state ORDER BY cr.state`, now)
	f.Stuck, err = pgx.CollectRows(rows, pgx.RowToStructByPos[schedule.StuckCount])
	if err != nil {
		return f, dbError("HealthFactsGet stuck", err)
	}

	// The failed rows are counted as the queue lists them (/?state=failed_permanent&ended=1d): a
	// failed attempt superseded by a new one is history there.
	err = q.db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE cr.state = 'failed_permanent' AND cr.superseded_by_id IS NULL)
FROM ledger_mirror cr
WHERE cr.terminal_at IS NOT NULL AND cr.deleted_at IS NULL AND cr.terminal_at > $1`, now.Add(-schedule.PermanentFailureWindow)).Scan(&f.Terminal, &f.FailedPermanent)
	if err != nil {
		return f, dbError("HealthFactsGet terminal", err)
	}
	// The idle rule's window is the permanent-failure one (a day); count apart if they ever differ.
	f.Finished = f.Terminal
	if schedule.IdleWindow != schedule.PermanentFailureWindow {
		err = q.db.QueryRow(ctx, `SELECT count(*) FROM ledger_mirror cr
WHERE cr.terminal_at IS NOT NULL AND cr.deleted_at IS NULL AND cr.terminal_at > $1`, now.Add(-schedule.IdleWindow)).Scan(&f.Finished)
		if err != nil {
			return f, dbError("HealthFactsGet finished", err)
		}
	}

	// The rows as the queue lists them (/?misregistered=1d): live, and not superseded by a new
	// attempt; the instant is the latest reversal among them.
	err = q.db.QueryRow(ctx, `SELECT count(*), max(m.at)
FROM ledger_mirror cr JOIN (`+sqlMisregistrations(`$1`)+`) m ON m.id = cr.id
WHERE `+liveSQL+` AND cr.superseded_by_id IS NULL`, now.Add(-schedule.MisregistrationWindow)).Scan(&n, &at)
	if err != nil {
		return f, dbError("HealthFactsGet misregistrations", err)
	}
	f.Misregistrations = occ(n, at)

	err = q.db.QueryRow(ctx, `SELECT count(*) FROM ledger_mirror cr
WHERE `+liveSQL+` AND cr.superseded_by_id IS NULL AND cr.state IN ('ready_to_submit', 'awaiting_verification')
  AND $1::timestamptz IS NOT NULL`, now).Scan(&f.Queued)
	if err != nil {
		return f, dbError("HealthFactsGet queued", err)
	}

	missing, err := q.completionsNeverEntered(ctx, now)
	if err != nil {
		return f, err
	}
	f.CompletionsNeverEntered = len(missing)
	if f.LatencyThisWeek, f.LatencyLastWeek, _, err = q.confirmationLatency(ctx, now); err != nil {
		return f, err
	}

	reasons := schedule.Reasons()
	cols := make([]string, 0, len(reasons))
	for _, r := range reasons {
		cols = append(cols, `count(*) FILTER (WHERE `+reasonPredicate(r)+`)`)
	}
	counts := make([]int, len(cols))
	dest := make([]any, len(cols))
	for i := range counts {
		dest[i] = &counts[i]
	}
	err = q.db.QueryRow(ctx, `SELECT `+strings.Join(cols, ",\n  ")+`
FROM `+attentionFrom+`
WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND `+sqlNeedsAdmin, now).Scan(dest...)
	if err != nil {
		return f, dbError("HealthFactsGet reasons", err)
	}
	for i, r := range reasons {
		if counts[i] > 0 {
			f.NeedsPerson = append(f.NeedsPerson, schedule.ReasonCount{Reason: r, Count: counts[i]})
		}
	}

	rows, _ = q.db.Query(ctx, `SELECT cr.course_id::text, c.name, count(*)::int
FROM `+attentionFrom+`
  JOIN courses c ON c.id = cr.course_id
WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND `+sqlNeedsAdmin+`
GROUP BY cr.course_id, c.name ORDER BY cr.course_id`, now)
	f.Courses, err = pgx.CollectRows(rows, pgx.RowToStructByPos[schedule.CourseCount])
	if err != nil {
		return f, dbError("HealthFactsGet courses", err)
	}

	// When rows that need nobody yet will escalate: schedule's rule, run on the candidates, as
	// the queue's escalates filter runs it.
	escalating, err := q.EscalatingList(ctx, now, AllCourses())
	if err != nil {
		return f, fmt.Errorf("HealthFactsGet escalations: %w", err)
	}
	for _, e := range escalating {
		f.EscalationsAt = append(f.EscalationsAt, e.At)
	}

	err = q.db.QueryRow(ctx, `SELECT count(*), min(cr.submitted_at)
FROM ledger_mirror cr
WHERE `+sqlUncertainNotLookedUp,
		now).Scan(&n, &at)
	if err != nil {
		return f, dbError("HealthFactsGet uncertain", err)
	}
	f.UncertainNotLookedUp = occ(n, at)

	if f.Phases, f.PausedModules, err = q.pipelineFacts(ctx); err != nil {
		return f, err
	}
	return f, nil
}

// AlertRow is one firing of an alert, as the alerts table keeps it.
type AlertRow struct {
	ID             string     `db:"id"`
	Rule           string     `db:"rule"`
	Key            string     `db:"alert_key"`
	Severity       string     `db:"severity"`
	PeakSeverity   string     `db:"peak_severity"`
	Count          int        `db:"row_count"`
	Of             int        `db:"of_count"`
	PeakCount      int        `db:"peak_count"`
	Subject        string     `db:"subject"`
	CourseID       *string    `db:"course_id"`
	Path           string     `db:"path"`
	OccurredAt     *time.Time `db:"occurred_at"`
	FiredAt        time.Time  `db:"fired_at"`
	LastSeenAt     time.Time  `db:"last_seen_at"`
	ClearedAt      *time.Time `db:"cleared_at"`
	RemindedAt     *time.Time `db:"reminded_at"`
	AcknowledgedAt *time.Time `db:"acknowledged_at"`
	AcknowledgedBy *string    `db:"acknowledged_by_name"`
}

// Alert returns the row as schedule's Alert, for summaries.
func (a AlertRow) Alert() schedule.Alert {
	sev, _ := schedule.ParseSeverity(a.Severity)
	return schedule.Alert{Rule: schedule.AlertRule(a.Rule), Key: a.Key, Severity: sev, Count: a.Count, Of: a.Of,
		At: a.OccurredAt, Subject: a.Subject, CourseID: Deref(a.CourseID), Path: a.Path}
}

const alertColumns = `al.id::text, al.rule, al.alert_key, al.severity::text, al.peak_severity::text, al.row_count,
  al.of_count, al.peak_count, al.subject, al.course_id::text, al.path, al.occurred_at, al.fired_at, al.last_seen_at,
  al.cleared_at, al.reminded_at, al.acknowledged_at, ack.name AS acknowledged_by_name`

const alertFrom = `alerts al LEFT JOIN accounts ack ON ack.id = al.acknowledged_by`

// AlertListFiring returns the alerts firing now, most severe first.
func (q *Queries) AlertListFiring(ctx context.Context) ([]AlertRow, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+alertColumns+` FROM `+alertFrom+` WHERE al.cleared_at IS NULL
ORDER BY al.severity DESC, al.fired_at, al.id`)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[AlertRow])
	if err != nil {
		return nil, dbError("AlertListFiring", err)
	}
	return list, nil
}

// AlertListSince returns the alerts that fired, or were still firing, after since, newest first,
// at most limit.
func (q *Queries) AlertListSince(ctx context.Context, since time.Time, limit int) ([]AlertRow, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+alertColumns+` FROM `+alertFrom+`
WHERE al.cleared_at IS NULL OR al.cleared_at > $1 OR al.fired_at > $1
ORDER BY al.fired_at DESC, al.id DESC LIMIT $2`, since, limit)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[AlertRow])
	if err != nil {
		return nil, dbError("AlertListSince", err)
	}
	return list, nil
}

// AlertGet returns one alert; ErrNotFound when there is none with id.
func (q *Queries) AlertGet(ctx context.Context, id string) (AlertRow, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+alertColumns+` FROM `+alertFrom+` WHERE al.id = $1`, id)
	a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[AlertRow])
	if err != nil {
		return a, dbError("AlertGet", err)
	}
	return a, nil
}

// AlertAcknowledge records that accountID has seen a firing alert, with an optional note. An
// alert already acknowledged, cleared or unknown is ErrNotFound: nothing is written.
func (q *Queries) AlertAcknowledge(ctx context.Context, id, accountID, note string, at time.Time) error {
	tag, err := q.db.Exec(ctx, `UPDATE alerts SET acknowledged_at = $3, acknowledged_by = $2, acknowledge_note = nullif(btrim($4), '')
WHERE id = $1 AND cleared_at IS NULL AND acknowledged_at IS NULL`, id, accountID, at, note)
	if err != nil {
		return dbError("AlertAcknowledge", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("AlertAcknowledge: %w", ErrNotFound)
	}
	return nil
}

// AlertChange is what one evaluation did to one alert.
type AlertChange struct {
	Kind  schedule.AlertChange
	Alert AlertRow
}

// ErrBusy reports that another instance holds the evaluation lock: it evaluates and sends now.
var ErrBusy = errors.New("another instance is evaluating")

// alertLockKey is the transaction-level advisory lock every evaluation takes: with two instances
// on one database exactly one applies an evaluation at a time, and the other skips its turn.
const alertLockKey = "regdesk alerts"

// ReminderInterval is how often a still-firing alert reminds: at most daily.
const ReminderInterval = 24 * time.Hour

// AlertApply applies one evaluation at now in the transaction: alerts in found that are not
// firing fire, firing ones not in found clear, the rest take found's numbers. It first takes the
// evaluation's advisory lock, held until the transaction ends, so that the mails the caller then
// writes in the same transaction commit with the changes they tell of, and no other instance
// applies an evaluation meanwhile: if another holds it, nothing is written and the error is
// ErrBusy. It is a method of Tx, not Queries, because the lock is a transaction's.
func (t *Tx) AlertApply(ctx context.Context, now time.Time, found []schedule.Alert) ([]AlertChange, error) {
	q := t.Queries
	var got bool
	if err := q.db.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext($1))`, alertLockKey).Scan(&got); err != nil {
		return nil, dbError("AlertApply lock", err)
	}
	if !got {
		return nil, ErrBusy
	}
	firing, err := q.AlertListFiring(ctx)
	if err != nil {
		return nil, err
	}
	byIdentity := map[string]AlertRow{}
	for _, a := range firing {
		byIdentity[a.Alert().Identity()] = a
	}
	var changes []AlertChange
	seen := map[string]bool{}
	for _, a := range found {
		id := a.Identity()
		seen[id] = true
		old, ok := byIdentity[id]
		if !ok {
			row, err := q.alertInsert(ctx, a, now)
			if err != nil {
				return nil, err
			}
			changes = append(changes, AlertChange{Kind: schedule.AlertFired, Alert: row})
			continue
		}
		row, err := q.alertUpdate(ctx, old.ID, a, now)
		if err != nil {
			return nil, err
		}
		if peak, _ := schedule.ParseSeverity(old.PeakSeverity); a.Severity > peak {
			changes = append(changes, AlertChange{Kind: schedule.AlertRose, Alert: row})
		} else if last := cmpTime(row.RemindedAt, row.FiredAt); now.Sub(last) >= ReminderInterval {
			if _, err := q.db.Exec(ctx, `UPDATE alerts SET reminded_at = $2 WHERE id = $1`, row.ID, now); err != nil {
				return nil, dbError("AlertApply remind", err)
			}
			row.RemindedAt = &now
			changes = append(changes, AlertChange{Kind: schedule.AlertReminder, Alert: row})
		}
	}
	for _, old := range firing {
		if seen[old.Alert().Identity()] {
			continue
		}
		if _, err := q.db.Exec(ctx, `UPDATE alerts SET cleared_at = $2 WHERE id = $1`, old.ID, now); err != nil {
			return nil, dbError("AlertApply clear", err)
		}
		old.ClearedAt = &now
		changes = append(changes, AlertChange{Kind: schedule.AlertCleared, Alert: old})
	}
	return changes, nil
}

func cmpTime(p *time.Time, def time.Time) time.Time {
	if p != nil {
		return *p
	}
	return def
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (q *Queries) alertInsert(ctx context.Context, a schedule.Alert, now time.Time) (AlertRow, error) {
	id := NewID()
	_, err := q.db.Exec(ctx, `INSERT INTO alerts (id, rule, alert_key, severity, peak_severity, row_count, of_count, peak_count,
  subject, course_id, path, occurred_at, fired_at, last_seen_at)
VALUES ($1, $2, $3, $4, $4, $5, $6, $5, $7, $8, $9, $10, $11, $11)`,
		id, string(a.Rule), a.Key, a.Severity.String(), a.Count, a.Of, a.Subject, nullIfEmpty(a.CourseID), a.Path, a.At, now)
	if err != nil {
		return AlertRow{}, dbError("AlertFire", err)
	}
	return q.AlertGet(ctx, id)
}

func (q *Queries) alertUpdate(ctx context.Context, id string, a schedule.Alert, now time.Time) (AlertRow, error) {
	_, err := q.db.Exec(ctx, `UPDATE alerts SET severity = $2, row_count = $3, of_count = $4, subject = $5, path = $6,
  occurred_at = $7, last_seen_at = $8, peak_count = greatest(peak_count, $3),
  peak_severity = CASE WHEN $2::alert_severity > peak_severity THEN $2::alert_severity ELSE peak_severity END
WHERE id = $1`, id, a.Severity.String(), a.Count, a.Of, a.Subject, a.Path, a.At, now)
	if err != nil {
		return AlertRow{}, dbError("AlertUpdate", err)
	}
	return q.AlertGet(ctx, id)
}

// AlertSettings is what mails an account gets.
type AlertSettings struct {
	// ImmediateMin is the least severity mailed at once; 0 mails nothing at once.
	ImmediateMin schedule.Severity
	// Rules limits mails to these kinds; empty is every kind.
	Rules []schedule.AlertRule
	// DigestHour is the Helsinki hour of the daily digest; nil is no digest.
	DigestHour *int
	// TeacherWeekly is a teacher's weekly digest of their courses' students who can act.
	TeacherWeekly bool
	// Saved is true when the account chose these; false when they are its role's defaults.
	Saved bool
}

// DefaultDigestHour is the Helsinki hour of the default daily digest: before the working day.
const DefaultDigestHour = 8

// DefaultAlertSettings are a role's settings until the account saves its own: support and
// admins get critical alerts at once and a daily digest; teachers nothing until they opt in.
func DefaultAlertSettings(role string) AlertSettings {
	if role == "teacher" {
		return AlertSettings{}
	}
	h := DefaultDigestHour
	return AlertSettings{ImmediateMin: schedule.SeverityCritical, DigestHour: &h}
}

// Wants reports whether these settings mail alert a at once.
func (s AlertSettings) Wants(a schedule.Alert) bool {
	if s.ImmediateMin == 0 || a.Severity < s.ImmediateMin {
		return false
	}
	return s.WantsKind(a.Rule)
}

// WantsKind reports whether the settings include the kind of alert r (in a digest too).
func (s AlertSettings) WantsKind(r schedule.AlertRule) bool {
	return len(s.Rules) == 0 || slices.Contains(s.Rules, r)
}

// Subscriber is an active account with its mail settings.
type Subscriber struct {
	AccountID string
	Name      string
	Email     string
	Role      string
	// Language is the language the person chose ("" when none): their mails speak it.
	Language string
	// CourseIDs are a teacher's courses.
	CourseIDs []string
	Settings  AlertSettings
}

// Concerns reports whether alert a is one this person is told of: a teacher only of their
// courses' alerts, everyone else only of those that concern no single course.
func (s Subscriber) Concerns(a schedule.Alert) bool {
	if s.Role == "teacher" {
		return a.CourseID != "" && slices.Contains(s.CourseIDs, a.CourseID)
	}
	return a.CourseID == ""
}

type settingsRow struct {
	AccountID     string   `db:"account_id"`
	Name          string   `db:"name"`
	Email         string   `db:"email"`
	Role          string   `db:"role"`
	Language      string   `db:"language"`
	CourseIDs     []string `db:"course_ids"`
	Saved         bool     `db:"saved"`
	ImmediateMin  *string  `db:"immediate_min_severity"`
	Rules         []string `db:"rules"`
	DigestHour    *int     `db:"digest_hour"`
	TeacherWeekly bool     `db:"teacher_weekly"`
}

func (r settingsRow) subscriber() Subscriber {
	s := Subscriber{AccountID: r.AccountID, Name: r.Name, Email: r.Email, Role: r.Role, Language: r.Language, CourseIDs: r.CourseIDs}
	if !r.Saved {
		s.Settings = DefaultAlertSettings(r.Role)
		return s
	}
	s.Settings = AlertSettings{DigestHour: r.DigestHour, TeacherWeekly: r.TeacherWeekly, Saved: true}
	if r.ImmediateMin != nil {
		s.Settings.ImmediateMin, _ = schedule.ParseSeverity(*r.ImmediateMin)
	}
	for _, k := range r.Rules {
		s.Settings.Rules = append(s.Settings.Rules, schedule.AlertRule(k))
	}
	return s
}

const subscriberSelect = `SELECT a.id::text AS account_id, a.name, a.email, a.role::text AS role, coalesce(a.language, '') AS language,
  coalesce((SELECT array_agg(ac.course_id::text ORDER BY ac.course_id) FROM account_courses ac WHERE ac.account_id = a.id), '{}') AS course_ids,
  s.account_id IS NOT NULL AS saved, s.immediate_min_severity::text AS immediate_min_severity,
  coalesce(s.rules, '{}') AS rules, s.digest_hour, coalesce(s.teacher_weekly, false) AS teacher_weekly
FROM accounts a LEFT JOIN alert_settings s ON s.account_id = a.id`

// SubscriberList returns every active account with its mail settings, defaults filled in.
func (q *Queries) SubscriberList(ctx context.Context) ([]Subscriber, error) {
	rows, _ := q.db.Query(ctx, subscriberSelect+` WHERE a.disabled_at IS NULL ORDER BY a.email`)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[settingsRow])
	if err != nil {
		return nil, dbError("SubscriberList", err)
	}
	out := make([]Subscriber, len(list))
	for i, r := range list {
		out[i] = r.subscriber()
	}
	return out, nil
}

// AlertSettingsGet returns one account's settings, its role's defaults when it saved none.
func (q *Queries) AlertSettingsGet(ctx context.Context, accountID string) (AlertSettings, error) {
	rows, _ := q.db.Query(ctx, subscriberSelect+` WHERE a.id = $1`, accountID)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[settingsRow])
	if err != nil {
		return AlertSettings{}, dbError("AlertSettingsGet", err)
	}
	return r.subscriber().Settings, nil
}

// AlertSettingsSave stores an account's settings and records who changed them, when, and to
// what, in one transaction.
func (s *Store) AlertSettingsSave(ctx context.Context, accountID, byID string, set AlertSettings, at time.Time) error {
	var sev *string
	if set.ImmediateMin != 0 {
		v := set.ImmediateMin.String()
		sev = &v
	}
	rules := make([]string, 0, len(set.Rules))
	for _, r := range set.Rules {
		rules = append(rules, string(r))
	}
	details, err := json.Marshal(map[string]any{"immediate_min_severity": sev, "rules": rules,
		"digest_hour": set.DigestHour, "teacher_weekly": set.TeacherWeekly})
	if err != nil {
		return fmt.Errorf("AlertSettingsSave: %w", err)
	}
	return s.InTx(ctx, func(q *Queries) error {
		_, err := q.db.Exec(ctx, `INSERT INTO alert_settings (account_id, immediate_min_severity, rules, digest_hour, teacher_weekly, updated_at, updated_by)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (account_id) DO UPDATE SET immediate_min_severity = EXCLUDED.immediate_min_severity, rules = EXCLUDED.rules,
  digest_hour = EXCLUDED.digest_hour, teacher_weekly = EXCLUDED.teacher_weekly, updated_at = EXCLUDED.updated_at,
  updated_by = EXCLUDED.updated_by`, accountID, sev, rules, set.DigestHour, set.TeacherWeekly, at, byID)
		if err != nil {
			return dbError("AlertSettingsSave", err)
		}
		_, err = q.db.Exec(ctx, `INSERT INTO alert_setting_changes (account_id, changed_at, changed_by, details) VALUES ($1, $2, $3, $4)`,
			accountID, at, byID, details)
		if err != nil {
			return dbError("AlertSettingsSave record", err)
		}
		return nil
	})
}
