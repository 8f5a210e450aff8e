package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// Outcome is what a registration came to, as the overview's outcomes per day count it: the state
// the row is in now, on the day it got there.
type Outcome string

// The outcomes the overview counts per day.
const (
	OutcomeRegistered Outcome = "registered"
	OutcomePartial    Outcome = "partially_registered"
	OutcomeUncertain  Outcome = "submission_uncertain"
	OutcomeFailed     Outcome = "failed_permanent"
	OutcomeCancelled  Outcome = "cancelled"
)

// Outcomes lists the outcomes in the order the overview stacks them.
func Outcomes() []Outcome {
	return []Outcome{OutcomeRegistered, OutcomePartial, OutcomeUncertain, OutcomeFailed, OutcomeCancelled}
}

// OverviewParams says what the overview counts. The caller derives the days and the bins (from
// the calendar and schedule's windows), so the pictures and the counts share them.
type OverviewParams struct {
	Now time.Time
	// DayBounds are the starts of the charted Helsinki days, oldest first, and the end of the last.
	DayBounds []time.Time
	// LatencyEdges are the time-to-registration bins' lower edges in seconds after the
	// submission; the last bin is open.
	LatencyEdges []float64
	// LatencyFrom is where the time-to-registration histogram starts (30 days back); LastWeek,
	// ThisWeek and Today are the starts of last week, this week and today in Helsinki.
	LatencyFrom, LastWeek, ThisWeek, Today time.Time
	// SnapshotsFrom is the first day of the snapshots to read.
	SnapshotsFrom schedule.Date
}

// Overview is everything /overview shows, read in one snapshot.
type Overview struct {
	// Attention is the queue's own counts (RegistrationCountsGet), read in the same snapshot.
	Attention RegistrationCounts
	// NeedsAdminToday counts the rows needing a person that entered their state today.
	NeedsAdminToday int64
	// UncertainNotLookedUp counts the uncertain rows nobody has looked up in Sisu since they were
	// sent: what the alert uncertain_awaiting_lookup counts.
	UncertainNotLookedUp int64
	// Latency holds, per series (since LatencyFrom, this week, last week), the count of
	// registrations per LatencyEdges bin.
	Latency [3][]int64
	// MedianThisWeek and MedianLastWeek are the median times to registration; nil: none.
	MedianThisWeek, MedianLastWeek *time.Duration
	// Outcomes holds, per outcome, the count per charted day.
	Outcomes map[Outcome][]int64
	// Snapshots are the daily snapshots of the needs-a-person pile, oldest first.
	Snapshots []AttentionSnapshot
	// Failures are the rows failing now, active in the last week, grouped by code and message shape.
	Failures []FailureGroup
}

// AttentionSnapshot is one day's count of the needs-a-person pile.
type AttentionSnapshot struct {
	Day        schedule.Date
	TakenAt    time.Time
	NeedsAdmin int64
	Reasons    map[schedule.Reason]int64
	Backfilled bool
}

// FailureGroup is the rows failing with one error code and one message shape.
type FailureGroup struct {
	Code schedule.ErrorCode
	// Shape is the error message with its numbers, ids and quoted values blanked, so messages
	// that differ only in those fold together.
	Shape string
	// Hour, Day and Week count the group's rows active in the last hour, day and week.
	Hour, Day, Week int64
	// LastAt is the latest activity of a row of the group, ExampleID that row.
	LastAt    time.Time
	ExampleID string
	// Courses are the courses the group hits most, most first (at most three).
	Courses []FailureCourse
}

// FailureCourse is a course a failure group hits, with how many of its rows.
type FailureCourse struct {
	ID, Name string
	N        int64
}

// sqlMessageShape blanks what varies inside one kind of message: ids, quoted values, numbers.
const sqlMessageShape = `regexp_replace(regexp_replace(regexp_replace(coalesce(cr.error_message, ''),
  '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '…', 'g'),
  '"[^"]*"', '"…"', 'g'), '[0-9]+', '#', 'g')`

// failureWindow is how far back the failure groups look.
const failureWindow = 7 * 24 * time.Hour

// OverviewGet reads the overview in one snapshot of the database, so its numbers agree with each
// other and with the queue's. Its statements run on up to three connections at once: the first
// transaction exports its snapshot (pg_export_snapshot) and the others read in that same snapshot
// (SET TRANSACTION SNAPSHOT), so splitting the work changes no number.
func (s *Store) OverviewGet(ctx context.Context, p OverviewParams) (Overview, error) {
	var out Overview
	out.Outcomes = map[Outcome][]int64{}
	parts := []func(ctx context.Context, q *Queries) error{
		func(ctx context.Context, q *Queries) error {
			var err error
			if out.Attention, err = q.RegistrationCountsGet(ctx, p.Now, AllCourses()); err != nil {
				return err
			}
			out.Snapshots, err = q.AttentionSnapshotList(ctx, p.SnapshotsFrom)
			return err
		},
		func(ctx context.Context, q *Queries) error {
			if err := q.db.QueryRow(ctx, `SELECT count(*) FROM `+attentionFrom+`
WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND `+sqlNeedsAdmin+` AND cr.state_entered_at >= $2`, p.Now, p.Today).Scan(&out.NeedsAdminToday); err != nil {
				return dbError("OverviewGet needs admin today", err)
			}
			if err := q.db.QueryRow(ctx, `SELECT count(*) FROM ledger_mirror cr WHERE `+sqlUncertainNotLookedUp, p.Now).Scan(&out.UncertainNotLookedUp); err != nil {
				return dbError("OverviewGet uncertain not looked up", err)
			}
			var err error
			out.Failures, err = q.FailureGroupList(ctx, p.Now)
			return err
		},
		func(ctx context.Context, q *Queries) error {
			if err := q.overviewRegistered(ctx, p, &out); err != nil {
				return err
			}
			return q.overviewOutcomes(ctx, p, out.Outcomes)
		},
	}
	if err := s.inOneSnapshot(ctx, parts); err != nil {
		return Overview{}, fmt.Errorf("OverviewGet: %w", err)
	}
	return out, nil
}

// inOneSnapshot runs parts at once, each in a read-only transaction of its own connection, all in
// the snapshot of the first. It borrows the extra connections only when the pool would still have
// one free for everybody else after lending them (the queue's views must never wait behind a
// heavy page); otherwise the parts run one after another in the first transaction, the same
// numbers a little later.
func (s *Store) inOneSnapshot(ctx context.Context, parts []func(context.Context, *Queries) error) error {
	if len(parts) == 0 {
		return nil
	}
	return s.InReadTx(ctx, func(q *Queries) error {
		// This transaction holds one connection already; the others would take len(parts)-1 more.
		free := s.pool.Config().MaxConns - s.pool.Stat().AcquiredConns()
		if free < int32(len(parts)) {
			for _, part := range parts {
				if err := part(ctx, q); err != nil {
					return err
				}
			}
			return nil
		}
		var snap string
		if err := q.db.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snap); err != nil {
			return dbError("export snapshot", err)
		}
		if !snapshotID.MatchString(snap) {
			return fmt.Errorf("export snapshot: unexpected id %q", snap)
		}
		// The others stop early when one fails.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		errs := make([]error, len(parts))
		var wg sync.WaitGroup
		for i, part := range parts[1:] {
			wg.Go(func() {
				errs[i+1] = s.inSnapshot(ctx, snap, part)
				if errs[i+1] != nil {
					cancel()
				}
			})
		}
		errs[0] = parts[0](ctx, q)
		if errs[0] != nil {
			cancel()
		}
		// The exporting transaction stays open until every importer is done with the snapshot.
		wg.Wait()
		return errors.Join(errs...)
	})
}

// snapshotID is the shape of pg_export_snapshot's answer ("00000003-0000001B-1"), checked before
// it is spliced into SET TRANSACTION SNAPSHOT, which takes no parameter.
var snapshotID = regexp.MustCompile(`^[0-9A-F]+(-[0-9A-F]+)+$`)

// inSnapshot runs fn in a read-only transaction that reads the exported snapshot snap.
func (s *Store) inSnapshot(ctx context.Context, snap string, fn func(context.Context, *Queries) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `SET TRANSACTION SNAPSHOT '`+snap+`'`); err != nil {
		return dbError("import snapshot", err)
	}
	return fn(ctx, s.on(tx))
}

// overviewOutcomes counts per day the rows that reached each outcome other than registered
// (overviewRegistered counts those) by the moment they entered their state, into out.
func (q *Queries) overviewOutcomes(ctx context.Context, p OverviewParams, out map[Outcome][]int64) error {
	days := len(p.DayBounds) - 1
	for _, o := range Outcomes() {
		if out[o] == nil {
			out[o] = make([]int64, max(days, 0))
		}
	}
	if days < 1 {
		return nil
	}
	first, end := p.DayBounds[0], p.DayBounds[days]
	rows, _ := q.db.Query(ctx, `SELECT cr.state::text, width_bucket(cr.state_entered_at, $1::timestamptz[]), count(*)
FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND cr.state IN ('partially_registered', 'submission_uncertain', 'failed_permanent', 'cancelled')
  AND cr.state_entered_at >= $2 AND cr.state_entered_at < $3
GROUP BY cr.state, 2`, p.DayBounds, first, end)
	type dayCount struct {
		Outcome string
		Bin     int
		N       int64
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[dayCount])
	if err != nil {
		return dbError("OverviewGet outcomes", err)
	}
	for _, c := range list {
		if series, ok := out[Outcome(c.Outcome)]; ok && c.Outcome != string(OutcomeRegistered) && c.Bin >= 1 && c.Bin <= days {
			series[c.Bin-1] += c.N
		}
	}
	return nil
}

// AttentionSnapshotList returns the daily snapshots from the day from on, oldest first.
func (q *Queries) AttentionSnapshotList(ctx context.Context, from schedule.Date) ([]AttentionSnapshot, error) {
	rows, _ := q.db.Query(ctx, `SELECT day::text, taken_at, needs_admin, reasons, backfilled
FROM attention_snapshots WHERE day >= $1::date ORDER BY day`, from.String())
	type raw struct {
		Day        string
		TakenAt    time.Time
		NeedsAdmin int64
		Reasons    []byte
		Backfilled bool
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[raw])
	if err != nil {
		return nil, dbError("AttentionSnapshotList", err)
	}
	out := make([]AttentionSnapshot, 0, len(list))
	for _, r := range list {
		day, err := time.Parse(time.DateOnly, r.Day)
		if err != nil {
			return nil, fmt.Errorf("AttentionSnapshotList: day %q: %w", r.Day, err)
		}
		reasons := map[schedule.Reason]int64{}
		if err := json.Unmarshal(r.Reasons, &reasons); err != nil {
			return nil, fmt.Errorf("AttentionSnapshotList %s: %w", r.Day, err)
		}
		out = append(out, AttentionSnapshot{Day: schedule.DateOf(day), TakenAt: r.TakenAt, NeedsAdmin: r.NeedsAdmin, Reasons: reasons, Backfilled: r.Backfilled})
	}
	return out, nil
}

// AttentionSnapshotTake writes the snapshot of now's Helsinki day unless one exists, and reports
// whether this call wrote it. Several instances may call it at once: the day is the key and the
// insert does nothing on a conflict, so exactly one snapshot per day is kept.
func (s *Store) AttentionSnapshotTake(ctx context.Context, now time.Time) (bool, error) {
	day := schedule.HelsinkiDate(now).String()
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM attention_snapshots WHERE day = $1::date)`, day).Scan(&exists); err != nil {
		return false, dbError("AttentionSnapshotTake", err)
	}
	if exists {
		return false, nil
	}
	counts, err := s.RegistrationCountsGet(ctx, now, AllCourses())
	if err != nil {
		return false, fmt.Errorf("AttentionSnapshotTake: %w", err)
	}
	reasons, err := json.Marshal(counts.Reasons)
	if err != nil {
		return false, fmt.Errorf("AttentionSnapshotTake: %w", err)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO attention_snapshots (day, taken_at, needs_admin, reasons)
VALUES ($1::date, $2, $3, $4) ON CONFLICT (day) DO NOTHING`, day, now, counts.NeedsAdmin, reasons)
	if err != nil {
		return false, dbError("AttentionSnapshotTake insert", err)
	}
	return tag.RowsAffected() == 1, nil
}

// AttentionSnapshotBackfill writes a snapshot for each of the days days before now's Helsinki
// day that has none, derived from the ledger as it stands: a row needing a person now is counted
// on every day since it entered its state, under the reasons it carries now. That is what a demo
// ledger's generated history can tell (nobody has settled anything in it yet); the rows are
// marked backfilled. It returns how many days it wrote.
func (s *Store) AttentionSnapshotBackfill(ctx context.Context, now time.Time, days int) (int64, error) {
	loc := schedule.Helsinki()
	t := now.In(loc)
	var dates []string
	var ends []time.Time
	for i := days; i >= 1; i-- {
		start := time.Date(t.Year(), t.Month(), t.Day()-i, 0, 0, 0, 0, loc)
		dates = append(dates, schedule.DateOf(start).String())
		ends = append(ends, time.Date(t.Year(), t.Month(), t.Day()-i+1, 0, 0, 0, 0, loc))
	}
	tag, err := s.pool.Exec(ctx, `WITH pile AS (
  SELECT cr.state_entered_at AS since, `+sqlReasons+` AS reasons
  FROM `+attentionFrom+`
  WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND `+sqlNeedsAdmin+`
), days AS (
  SELECT d.day, d.day_end FROM unnest($2::date[], $3::timestamptz[]) AS d (day, day_end)
)
INSERT INTO attention_snapshots (day, taken_at, needs_admin, reasons, backfilled)
SELECT days.day, days.day_end,
  (SELECT count(*) FROM pile WHERE pile.since < days.day_end),
  coalesce((SELECT jsonb_object_agg(x.reason, x.n) FROM (
    SELECT r AS reason, count(*) AS n FROM pile, unnest(pile.reasons) AS r WHERE pile.since < days.day_end GROUP BY r) x), '{}'::jsonb),
  true
FROM days
ON CONFLICT (day) DO NOTHING`, now, dates, ends)
	if err != nil {
		return 0, dbError("AttentionSnapshotBackfill", err)
	}
	return tag.RowsAffected(), nil
}

// FailureGroupList groups the rows failing now (an error code, not superseded) that were active
// in the week before now by code and message shape, largest first.
func (q *Queries) FailureGroupList(ctx context.Context, now time.Time) ([]FailureGroup, error) {
	// Rows are grouped by their message first and each distinct message is shaped once: the
	// regular expressions ran on every row (17,000 of a million-row ledger's week) before.
	rows, _ := q.db.Query(ctx, `WITH parts AS (
  SELECT cr.error_code, cr.error_message, cr.course_id,
    count(*) FILTER (WHERE cr.updated_at >= $2) AS hour, count(*) FILTER (WHERE cr.updated_at >= $3) AS day, count(*) AS week,
    max(cr.updated_at) AS last_at, (array_agg(cr.id ORDER BY cr.updated_at DESC, cr.id DESC))[1] AS example
  FROM ledger_mirror cr
  WHERE cr.deleted_at IS NULL AND cr.superseded_by_id IS NULL AND cr.error_code IS NOT NULL
    AND cr.updated_at >= $4 AND cr.updated_at <= $1
  GROUP BY cr.error_code, cr.error_message, cr.course_id
)
SELECT cr.error_code::text, `+sqlMessageShape+` AS shape, cr.course_id::text, c.name,
  sum(cr.hour)::bigint, sum(cr.day)::bigint, sum(cr.week)::bigint,
  max(cr.last_at), (array_agg(cr.example::text ORDER BY cr.last_at DESC, cr.example DESC))[1]
FROM parts cr JOIN courses c ON c.id = cr.course_id
GROUP BY cr.error_code, 2, cr.course_id, c.name`, now, now.Add(-time.Hour), now.Add(-24*time.Hour), now.Add(-failureWindow))
	type part struct {
		Code, Shape, CourseID, CourseName string
		Hour, Day, Week                   int64
		LastAt                            time.Time
		ExampleID                         string
	}
	parts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[part])
	if err != nil {
		return nil, dbError("FailureGroupList", err)
	}
	type key struct{ code, shape string }
	groups := map[key]*FailureGroup{}
	var order []key
	for _, p := range parts {
		k := key{p.Code, p.Shape}
		g, ok := groups[k]
		if !ok {
			g = &FailureGroup{Code: schedule.ErrorCode(p.Code), Shape: p.Shape}
			groups[k] = g
			order = append(order, k)
		}
		g.Hour, g.Day, g.Week = g.Hour+p.Hour, g.Day+p.Day, g.Week+p.Week
		if p.LastAt.After(g.LastAt) {
			g.LastAt, g.ExampleID = p.LastAt, p.ExampleID
		}
		g.Courses = append(g.Courses, FailureCourse{ID: p.CourseID, Name: p.CourseName, N: p.Week})
	}
	out := make([]FailureGroup, 0, len(order))
	for _, k := range order {
		g := groups[k]
		slices.SortFunc(g.Courses, func(a, b FailureCourse) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Name, b.Name)) })
		g.Courses = g.Courses[:min(len(g.Courses), 3)]
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b FailureGroup) int {
		return cmp.Or(cmp.Compare(b.Week, a.Week), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Shape, b.Shape))
	})
	return out, nil
}
