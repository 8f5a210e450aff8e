package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file reads what the health rules that count Suotar's calls and answers, the LMS's
// completions or a week's time counted (credentials_rejected, study_registry_unreachable,
// sisu_unavailable, completions_never_entered, confirmation_latency_regressed), for the page their
// alerts link to. healthFacts counts them with these same functions, so the page's number and the
// alert's are one.

// SuotarCall is one call of the pipeline to Suotar, as the events of its items record it.
type SuotarCall struct {
	Endpoint    string
	RequestedAt *time.Time
	// At is when the newest of its items' events was written.
	At time.Time
	// Items is how many of its items the events record.
	Items int
	// RegistrationID is one registration the call carried, to open.
	RegistrationID string
}

// SuotarItem is one item of a call that Suotar answered, as its event records it.
type SuotarItem struct {
	At             time.Time
	RegistrationID string
	ErrorCode      string
}

// MissingCompletion is a passed completion the pipeline should have made a registration of.
type MissingCompletion struct {
	CompletionID string
	StudentID    string
	StudentName  string
	CourseID     string
	CourseName   string
	ModuleName   string
	CompletedAt  time.Time
}

// RegisteredLatency is a registration Sisu confirmed, and how long after it was sent.
type RegisteredLatency struct {
	RegistrationID string
	SubmittedAt    time.Time
	RegisteredAt   time.Time
}

// Took is how long Sisu took to confirm it.
func (r RegisteredLatency) Took() time.Duration { return r.RegisteredAt.Sub(r.SubmittedAt) }

// AlertEvidence is what one of those rules counted at now: the facts its rule reads (only its own
// filled in, so schedule.Evaluate fires at most its alert) and the things behind them.
type AlertEvidence struct {
	Facts schedule.HealthFacts
	// Calls are the calls credentials_rejected and study_registry_unreachable counted, newest first.
	Calls []SuotarCall
	// Items are the items sisu_unavailable counted as failed on Sisu's side, newest first, at most
	// EvidenceShown of them (Facts.SisuBlamed counts them all).
	Items []SuotarItem
	// Completions are those completions_never_entered counted, oldest first.
	Completions []MissingCompletion
	// Slowest are this week's slowest confirmations, behind confirmation_latency_regressed's p95.
	Slowest []RegisteredLatency
	// RegisteredThisWeek is how many registrations that p95 is of.
	RegisteredThisWeek int
}

// CountedRules are the rules AlertEvidenceGet reads: those whose alerts count something other
// than rows of the ledger. Their alerts link to AlertCountedPath.
var CountedRules = []schedule.AlertRule{
	schedule.RuleCredentialsRejected, schedule.RuleStudyRegistryUnreachable, schedule.RuleSisuUnavailable,
	schedule.RuleCompletionsNeverEntered, schedule.RuleConfirmationLatencyRegressed,
}

// slowestShown is how many of the week's slowest confirmations the latency page lists.
const slowestShown = 20

// EvidenceShown is the most items of a Sisu outage the page lists: it may fail thousands, and the
// newest hundreds say what the rest would.
const EvidenceShown = 500

// AlertEvidenceGet reads what rule counted at now, in one snapshot. A rule not in CountedRules
// is ErrNotFound.
func (s *Store) AlertEvidenceGet(ctx context.Context, now time.Time, rule schedule.AlertRule) (AlertEvidence, error) {
	var ev AlertEvidence
	err := s.InReadTx(ctx, func(q *Queries) error {
		var err error
		switch rule {
		case schedule.RuleCredentialsRejected:
			ev.Calls, err = q.credentialRejections(ctx, now)
			ev.Facts.CredentialRejections = callOccurrences(ev.Calls)
		case schedule.RuleStudyRegistryUnreachable:
			ev.Calls, err = q.unreachableRun(ctx, now)
			ev.Facts.UnreachableRun = callOccurrences(ev.Calls)
		case schedule.RuleSisuUnavailable:
			if ev.Facts.SisuItems, ev.Facts.SisuBlamed, err = q.sisuAnswered(ctx, now); err == nil {
				ev.Items, err = q.sisuBlamed(ctx, now, EvidenceShown)
			}
		case schedule.RuleCompletionsNeverEntered:
			ev.Completions, err = q.completionsNeverEntered(ctx, now)
			ev.Facts.CompletionsNeverEntered = len(ev.Completions)
		case schedule.RuleConfirmationLatencyRegressed:
			ev.Facts.LatencyThisWeek, ev.Facts.LatencyLastWeek, ev.RegisteredThisWeek, err = q.confirmationLatency(ctx, now)
			if err == nil {
				ev.Slowest, err = q.slowestConfirmations(ctx, now, slowestShown)
			}
		default:
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return AlertEvidence{}, fmt.Errorf("AlertEvidenceGet %s: %w", rule, err)
	}
	return ev, nil
}

// callOccurrences counts calls, newest first, as the rules read them.
func callOccurrences(calls []SuotarCall) schedule.Occurrences {
	o := schedule.Occurrences{Count: len(calls)}
	if len(calls) > 0 {
		at := calls[0].At
		o.LastAt = &at
	}
	return o
}

// suotarCallColumns group a call's item events into the call (one call answers many items).
const suotarCallColumns = `e.suotar_endpoint::text, e.suotar_requested_at, max(e.created_at), count(*)::int, min(e.credit_registration_id::text)`

// credentialRejections are the calls refused as unauthorized within CredentialRejectionWindow.
func (q *Queries) credentialRejections(ctx context.Context, now time.Time) ([]SuotarCall, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+suotarCallColumns+`
FROM credit_registration_events e
WHERE `+pipelineCallKinds+` AND e.error_code = 'unauthorized' AND e.created_at > $1 AND e.created_at <= $2
GROUP BY e.suotar_endpoint, e.suotar_requested_at
ORDER BY max(e.created_at) DESC`, now.Add(-schedule.CredentialRejectionWindow), now)
	calls, err := pgx.CollectRows(rows, pgx.RowToStructByPos[SuotarCall])
	if err != nil {
		return nil, dbError("credentialRejections", err)
	}
	return calls, nil
}

// unreachableRun is the run of unreachable calls at the head of UnreachableWindow's newest calls,
// newest first: it ends at the newest call that got an answer.
func (q *Queries) unreachableRun(ctx context.Context, now time.Time) ([]SuotarCall, error) {
	rows, _ := q.db.Query(ctx, `SELECT `+suotarCallColumns+`, bool_and(`+sqlUnreachable+`)
FROM credit_registration_events e
WHERE `+pipelineCallKinds+` AND e.created_at > $1 AND e.created_at <= $2
GROUP BY e.suotar_endpoint, e.suotar_requested_at
ORDER BY e.suotar_requested_at DESC LIMIT 200`, now.Add(-schedule.UnreachableWindow), now)
	var run []SuotarCall
	var c SuotarCall
	var unreachable, broken bool
	_, err := pgx.ForEachRow(rows, []any{&c.Endpoint, &c.RequestedAt, &c.At, &c.Items, &c.RegistrationID, &unreachable}, func() error {
		if broken = broken || !unreachable; !broken {
			run = append(run, c)
		}
		return nil
	})
	if err != nil {
		return nil, dbError("unreachableRun", err)
	}
	return run, nil
}

// sqlSisuAnswered is true for an item of a pipeline's call that Suotar answered within
// SisuWindow before $2 ($1 is the window's start).
const sqlSisuAnswered = pipelineCallKinds + ` AND e.suotar_answer = 'answered' AND e.created_at > $1 AND e.created_at <= $2`

// sisuAnswered counts the items Suotar answered within SisuWindow, and those of them that failed
// on Sisu's side.
func (q *Queries) sisuAnswered(ctx context.Context, now time.Time) (answered, blamed int, err error) {
	err = q.db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE `+sqlBlamedOnSisu+`)
FROM credit_registration_events e WHERE `+sqlSisuAnswered, now.Add(-schedule.SisuWindow), now).Scan(&answered, &blamed)
	if err != nil {
		return 0, 0, dbError("sisuAnswered", err)
	}
	return answered, blamed, nil
}

// sisuBlamed are the newest limit of the items that failed on Sisu's side, newest first.
func (q *Queries) sisuBlamed(ctx context.Context, now time.Time, limit int) ([]SuotarItem, error) {
	rows, _ := q.db.Query(ctx, `SELECT e.created_at, e.credit_registration_id::text, e.error_code::text
FROM credit_registration_events e WHERE `+sqlSisuAnswered+` AND `+sqlBlamedOnSisu+`
ORDER BY e.created_at DESC, e.id LIMIT $3`, now.Add(-schedule.SisuWindow), now, limit)
	items, err := pgx.CollectRows(rows, pgx.RowToStructByPos[SuotarItem])
	if err != nil {
		return nil, dbError("sisuBlamed", err)
	}
	return items, nil
}

// completionsNeverEntered are eligible completions older than CompletionEntryGrace (and younger
// than CompletionLookback) without a registration row, up to CompletionSample of them.
func (q *Queries) completionsNeverEntered(ctx context.Context, now time.Time) ([]MissingCompletion, error) {
	rows, _ := q.db.Query(ctx, fmt.Sprintf(`SELECT x.id::text, x.user_id::text, coalesce(btrim(concat_ws(' ', sd.first_name, sd.last_name)), ''),
  co.id::text, co.name, coalesce(m.name, ''), x.completion_date
FROM (
  SELECT c.id, c.user_id, c.course_id, c.course_module_id, c.completion_date FROM course_module_completions c
    JOIN course_modules m ON m.id = c.course_module_id
  WHERE c.deleted_at IS NULL AND c.passed AND c.eligible_for_ects AND c.prerequisite_modules_completed
    AND NOT c.needs_to_be_reviewed AND c.register_credits_via_suotar AND m.enable_credit_registration_via_suotar
    AND c.completion_date <= $1 AND c.completion_date > $2
    -- A scalar subquery, so the planner probes the completion index per candidate instead of
    -- hashing the whole ledger for an anti-join (480 ms on 100,000 rows, against 3 ms).
    AND NOT (SELECT EXISTS (SELECT 1 FROM ledger_mirror cr WHERE cr.course_module_completion_id = c.id AND cr.deleted_at IS NULL))
  LIMIT %d) x
  JOIN courses co ON co.id = x.course_id
  JOIN course_modules m ON m.id = x.course_module_id
  LEFT JOIN user_details sd ON sd.user_id = x.user_id
ORDER BY x.completion_date, x.id`, schedule.CompletionSample), now.Add(-schedule.CompletionEntryGrace), now.Add(-CompletionLookback))
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[MissingCompletion])
	if err != nil {
		return nil, dbError("completionsNeverEntered", err)
	}
	return list, nil
}

// sqlRegisteredWithin is true for a live registration Sisu confirmed after $2 and by $1, with the
// instant it was sent.
const sqlRegisteredWithin = `cr.registered_at IS NOT NULL AND cr.submitted_at IS NOT NULL AND cr.deleted_at IS NULL
  AND cr.registered_at > $2 AND cr.registered_at <= $1`

// confirmationLatency is the p95 of registered_at − submitted_at over the last LatencyWeek and
// the one before (nil for a week nothing registered in), and how many registered this week.
func (q *Queries) confirmationLatency(ctx context.Context, now time.Time) (thisWeek, lastWeek *time.Duration, n int, err error) {
	var this, last *float64
	err = q.db.QueryRow(ctx, `SELECT
  percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM cr.registered_at - cr.submitted_at)) FILTER (WHERE cr.registered_at > $3),
  percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM cr.registered_at - cr.submitted_at)) FILTER (WHERE cr.registered_at <= $3),
  count(*) FILTER (WHERE cr.registered_at > $3)::int
FROM ledger_mirror cr
WHERE `+sqlRegisteredWithin, now, now.Add(-2*schedule.LatencyWeek), now.Add(-schedule.LatencyWeek)).Scan(&this, &last, &n)
	if err != nil {
		return nil, nil, 0, dbError("confirmationLatency", err)
	}
	secs := func(v *float64) *time.Duration {
		if v == nil {
			return nil
		}
		d := time.Duration(*v * float64(time.Second)).Round(time.Second)
		return &d
	}
	return secs(this), secs(last), n, nil
}

// slowestConfirmations are this week's registrations that took Sisu longest to confirm.
func (q *Queries) slowestConfirmations(ctx context.Context, now time.Time, limit int) ([]RegisteredLatency, error) {
	rows, _ := q.db.Query(ctx, `SELECT cr.id::text, cr.submitted_at, cr.registered_at
FROM ledger_mirror cr
WHERE `+sqlRegisteredWithin+`
ORDER BY cr.registered_at - cr.submitted_at DESC, cr.id
LIMIT $3`, now, now.Add(-schedule.LatencyWeek), limit)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RegisteredLatency])
	if err != nil {
		return nil, dbError("slowestConfirmations", err)
	}
	return list, nil
}
