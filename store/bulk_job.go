package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file keeps the background bulk applies (bulk_jobs, migrations 0004 and 0009): the request
// writes a job with everything its apply needs, any instance claims it (BulkJobClaim, SKIP
// LOCKED) and runs it, and the job's page, on any instance, shows how it goes. The apply writes
// its job's end with its record of what the LMS did (RegistrationBulkRecord with
// BulkApplyParams.JobID), so a job reads as applied exactly when that record was written.

// BulkJobKeep is how long a job stays in the table after it started; older ones are deleted when a
// new job starts.
const BulkJobKeep = 7 * 24 * time.Hour

// BulkJobOutcome is how a background bulk apply ended.
type BulkJobOutcome string

// The outcomes of a job; a running (or cut short) job has none.
const (
	BulkJobApplied BulkJobOutcome = "applied"
	BulkJobFailed  BulkJobOutcome = "failed"
	// BulkJobInterrupted is a job whose instance stopped while it ran: the LMS may have been
	// asked about some of its rows, which the audit's record of the attempt names.
	BulkJobInterrupted BulkJobOutcome = "interrupted"
)

// BulkJobStale is how long a claimed job may go without a heartbeat before it counts as cut
// short: many beats, so a slow write or two does not end a live job.
const BulkJobStale = 30 * time.Second

// BulkJob is one background bulk apply.
type BulkJob struct {
	ID      string
	OwnerID string
	Action  schedule.Action
	Reason  string
	// Total is the rows to go through, Done those gone through at the last heartbeat.
	Total, Done int
	StartedAt   time.Time
	HeartbeatAt time.Time
	EndedAt     *time.Time
	// ClaimedAt is when an instance took the job up; nil while it waits for one.
	ClaimedAt *time.Time
	Outcome   BulkJobOutcome
	// Result is what the apply did, when Outcome is BulkJobApplied.
	Result *BulkResult
}

// BulkJobCreate queues the apply p as job id for any instance to claim (its heartbeat at
// startedAt, so a job nobody claims reads as waiting), and deletes the jobs started more than
// BulkJobKeep before it. p.JobID is set to id.
func (s *Store) BulkJobCreate(ctx context.Context, id string, p BulkApplyParams, startedAt time.Time) error {
	p.JobID = id
	raw, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("BulkJobCreate: %w", err)
	}
	return s.InTx(ctx, func(q *Queries) error {
		if _, err := q.db.Exec(ctx, `DELETE FROM bulk_jobs WHERE started_at < $1`, startedAt.Add(-BulkJobKeep)); err != nil {
			return dbError("BulkJobCreate prune", err)
		}
		_, err := q.db.Exec(ctx, `INSERT INTO bulk_jobs (id, owner_id, action, reason, total, started_at, heartbeat_at, params)
VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`, id, p.Actor.ID, string(p.Action), p.Reason, len(p.Rows), startedAt, raw)
		if err != nil {
			return dbError("BulkJobCreate", err)
		}
		return nil
	})
}

// BulkJobClaim takes the oldest job waiting for an instance at now and returns its apply, with
// ok false when none waits. Jobs another instance is claiming are skipped (SKIP LOCKED), so two
// instances never take one job. First it ends the claimed jobs whose heartbeat stopped more than
// BulkJobStale before now as interrupted: their instance stopped while the LMS may have been
// asked, so running them again could not say truthfully what each row went through.
func (s *Store) BulkJobClaim(ctx context.Context, now time.Time) (p BulkApplyParams, ok bool, err error) {
	err = s.InTx(ctx, func(q *Queries) error {
		if _, err := q.db.Exec(ctx, `UPDATE bulk_jobs SET outcome = 'interrupted', ended_at = $1
WHERE id IN (SELECT id FROM bulk_jobs WHERE outcome IS NULL AND claimed_at IS NOT NULL AND heartbeat_at < $2
  FOR UPDATE SKIP LOCKED)`, now, now.Add(-BulkJobStale)); err != nil {
			return dbError("BulkJobClaim interrupted", err)
		}
		var raw []byte
		err := q.db.QueryRow(ctx, `UPDATE bulk_jobs SET claimed_at = $1, heartbeat_at = greatest(heartbeat_at, $1)
WHERE id = (SELECT id FROM bulk_jobs WHERE outcome IS NULL AND claimed_at IS NULL
  ORDER BY started_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING params`, now).Scan(&raw)
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return dbError("BulkJobClaim", err)
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("BulkJobClaim: the job's apply does not read: %w", err)
		}
		ok = true
		return nil
	})
	return p, ok && err == nil, err
}

// BulkJobBeat records that a running job is alive at at, having gone through done rows. A job
// that has ended is left as it is.
func (s *Store) BulkJobBeat(ctx context.Context, id string, done int, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE bulk_jobs SET done = greatest(done, $2), heartbeat_at = greatest(heartbeat_at, $3)
WHERE id = $1 AND outcome IS NULL`, id, done, at)
	if err != nil {
		return dbError("BulkJobBeat", err)
	}
	return nil
}

// BulkJobFail records that a job's apply ended in an error: it rolled back and changed nothing.
func (s *Store) BulkJobFail(ctx context.Context, id string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE bulk_jobs SET outcome = 'failed', ended_at = $2 WHERE id = $1 AND outcome IS NULL`, id, at)
	if err != nil {
		return dbError("BulkJobFail", err)
	}
	return nil
}

// bulkJobApplied ends a job with its result, in the apply's transaction.
func (q *Queries) bulkJobApplied(ctx context.Context, id string, res BulkResult, at time.Time) error {
	raw, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("bulkJobApplied: %w", err)
	}
	tag, err := q.db.Exec(ctx, `UPDATE bulk_jobs SET outcome = 'applied', ended_at = $2, result = $3, done = total
WHERE id = $1 AND outcome IS NULL`, id, at, raw)
	if err != nil {
		return dbError("bulkJobApplied", err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("bulkJobApplied %s: no running job", id)
	}
	return nil
}

// BulkJobGet returns the job id of the account ownerID; another's job, or none, is ErrNotFound.
func (s *Store) BulkJobGet(ctx context.Context, id, ownerID string) (BulkJob, error) {
	if !IsUUID(id) || !IsUUID(ownerID) {
		return BulkJob{}, fmt.Errorf("BulkJobGet: %w", ErrNotFound)
	}
	var j BulkJob
	var action string
	var outcome *string
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT id::text, owner_id::text, action, reason, total, done, started_at, heartbeat_at, ended_at,
  claimed_at, outcome, result
FROM bulk_jobs WHERE id = $1 AND owner_id = $2`, id, ownerID).Scan(&j.ID, &j.OwnerID, &action, &j.Reason, &j.Total, &j.Done,
		&j.StartedAt, &j.HeartbeatAt, &j.EndedAt, &j.ClaimedAt, &outcome, &raw)
	if err == pgx.ErrNoRows {
		return BulkJob{}, fmt.Errorf("BulkJobGet: %w", ErrNotFound)
	}
	if err != nil {
		return BulkJob{}, dbError("BulkJobGet", err)
	}
	j.Action, j.Outcome = schedule.Action(action), BulkJobOutcome(Deref(outcome))
	if raw != nil {
		var res BulkResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return BulkJob{}, fmt.Errorf("BulkJobGet %s result: %w", id, err)
		}
		j.Result = &res
	}
	return j, nil
}

// BulkJobListRow is one background bulk apply in the list of them: who started it, and what came
// of it without its rows.
type BulkJobListRow struct {
	ID        string
	OwnerID   string
	OwnerName string
	Action    schedule.Action
	Reason    string
	// Total is the rows to go through, Done those gone through at the last heartbeat.
	Total, Done int
	StartedAt   time.Time
	HeartbeatAt time.Time
	EndedAt     *time.Time
	ClaimedAt   *time.Time
	Outcome     BulkJobOutcome
	// Applied is how many rows the apply changed, when Outcome is BulkJobApplied.
	Applied *int
}

// BulkJobList returns the newest limit background bulk applies of everyone, newest first, each
// with its owner's name: the jobs kept for BulkJobKeep, running and ended.
func (s *Store) BulkJobList(ctx context.Context, limit int) ([]BulkJobListRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT j.id::text, j.owner_id::text, a.name, j.action, j.reason, j.total, j.done, j.started_at,
  j.heartbeat_at, j.ended_at, j.claimed_at, coalesce(j.outcome, ''), (j.result->>'Applied')::int
FROM bulk_jobs j JOIN accounts a ON a.id = j.owner_id
ORDER BY j.started_at DESC, j.id
LIMIT $1`, limit)
	if err != nil {
		return nil, dbError("BulkJobList", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (BulkJobListRow, error) {
		var j BulkJobListRow
		var action, outcome string
		err := row.Scan(&j.ID, &j.OwnerID, &j.OwnerName, &action, &j.Reason, &j.Total, &j.Done, &j.StartedAt,
			&j.HeartbeatAt, &j.EndedAt, &j.ClaimedAt, &outcome, &j.Applied)
		j.Action, j.Outcome = schedule.Action(action), BulkJobOutcome(outcome)
		return j, err
	})
	if err != nil {
		return nil, dbError("BulkJobList", err)
	}
	return out, nil
}
