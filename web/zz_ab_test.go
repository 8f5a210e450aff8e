package web_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views"
)

const oldLatency = `SELECT width_bucket(date_part('epoch', cr.registered_at - cr.submitted_at), $3::float8[]) AS bin,
  count(*) FILTER (WHERE cr.registered_at >= $4), count(*) FILTER (WHERE cr.registered_at >= $6),
  count(*) FILTER (WHERE cr.registered_at >= $5 AND cr.registered_at < $6)
FROM credit_registrations cr
WHERE cr.deleted_at IS NULL AND cr.state = 'registered' AND cr.submitted_at IS NOT NULL
  AND cr.registered_at >= $2 AND cr.registered_at <= $1
GROUP BY bin`

const oldOutcomes = `SELECT 'registered', width_bucket(cr.registered_at, $1::timestamptz[]), count(*)
FROM credit_registrations cr
WHERE cr.deleted_at IS NULL AND cr.state = 'registered' AND cr.registered_at >= $2 AND cr.registered_at < $3
GROUP BY 2
UNION ALL
SELECT cr.state::text, width_bucket(cr.state_entered_at, $1::timestamptz[]), count(*)
FROM credit_registrations cr
WHERE cr.deleted_at IS NULL AND cr.state IN ('partially_registered', 'submission_uncertain', 'failed_permanent', 'cancelled')
  AND cr.state_entered_at >= $2 AND cr.state_entered_at < $3
GROUP BY cr.state, 2`

const oldFailures = `SELECT cr.error_code::text, regexp_replace(regexp_replace(regexp_replace(coalesce(cr.error_message, ''),
  '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '…', 'g'),
  '"[^"]*"', '"…"', 'g'), '[0-9]+', '#', 'g') AS shape, cr.course_id::text, c.name,
  count(*) FILTER (WHERE cr.updated_at >= $2), count(*) FILTER (WHERE cr.updated_at >= $3), count(*),
  max(cr.updated_at), (array_agg(cr.id::text ORDER BY cr.updated_at DESC, cr.id DESC))[1]
FROM credit_registrations cr JOIN courses c ON c.id = cr.course_id
WHERE cr.deleted_at IS NULL AND cr.superseded_by_id IS NULL AND cr.error_code IS NOT NULL
  AND cr.updated_at >= $4 AND cr.updated_at <= $1
GROUP BY cr.error_code, 2, cr.course_id, c.name`

func TestZZAB(t *testing.T) {
	if os.Getenv("ZZAB") == "" {
		t.Skip()
	}
	st, dbURL := storetest.DemoLedger(t, 1_000_000)
	ctx := context.Background()
	if _, err := st.RegisteredDaysRoll(ctx, benchNow); err != nil {
		t.Fatal(err)
	}
	rec := &storetest.StatementRecorder{}
	traced, err := store.Open(ctx, dbURL, store.Options{Tracer: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer traced.Close()
	now := benchNow
	days := views.HelsinkiDays(now, 60)
	today := days[len(days)-1]
	p := store.OverviewParams{Now: now, DayBounds: views.DayBounds(days), LatencyEdges: views.LatencyEdges(),
		LatencyFrom: days[len(days)-30].Start, LastWeek: days[len(days)-8].Start, ThisWeek: days[len(days)-1].Start, Today: today.Start, SnapshotsFrom: days[0].Date}
	if _, err := traced.OverviewGet(ctx, p); err != nil {
		t.Fatal(err)
	}
	newStmts := rec.Take()
	from := p.LastWeek
	if p.LatencyFrom.Before(from) {
		from = p.LatencyFrom
	}
	var oldStmts []storetest.Statement
	for _, s := range newStmts {
		switch {
		case strings.HasPrefix(s.SQL, "SET TRANSACTION"), strings.Contains(s.SQL, "pg_export_snapshot"),
			strings.Contains(s.SQL, "registered_day"), strings.HasPrefix(s.SQL, "WITH parts"),
			strings.HasPrefix(s.SQL, "SELECT cr.state::text, width_bucket"):
			continue
		}
		oldStmts = append(oldStmts, s)
	}
	oldStmts = append(oldStmts,
		storetest.Statement{SQL: oldLatency, Args: []any{now, from, p.LatencyEdges, p.LatencyFrom, p.LastWeek, p.ThisWeek}},
		storetest.Statement{SQL: oldOutcomes, Args: []any{p.DayBounds, p.DayBounds[0], p.DayBounds[len(p.DayBounds)-1]}},
		storetest.Statement{SQL: oldFailures, Args: []any{now, now.Add(-time.Hour), now.Add(-24 * time.Hour), now.Add(-7 * 24 * time.Hour)}})
	per := map[string][]time.Duration{}
	replay := func(stmts []storetest.Statement) time.Duration {
		conn, err := st.Pool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		s := time.Now()
		for _, q := range stmts {
			if strings.HasPrefix(q.SQL, "SET TRANSACTION SNAPSHOT") {
				continue
			}
			qs := time.Now()
			rows, err := conn.Query(ctx, q.SQL, q.Args...)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
			}
			rows.Close()
			k := strings.Join(strings.Fields(q.SQL), " ")
			k = k[:min(len(k), 90)]
			per[k] = append(per[k], time.Since(qs))
			if rows.Err() != nil {
				t.Fatal(rows.Err(), q.SQL)
			}
		}
		return time.Since(s)
	}
	var page, floorNew, floorOld []time.Duration
	for range 25 {
		s := time.Now()
		if _, err := st.OverviewGet(ctx, p); err != nil {
			t.Fatal(err)
		}
		page = append(page, time.Since(s))
		floorNew = append(floorNew, replay(newStmts))
		floorOld = append(floorOld, replay(oldStmts))
	}
	pct := func(d []time.Duration, q float64) string {
		slices.Sort(d)
		return fmt.Sprintf("%.1f", float64(d[int(q*float64(len(d)-1))].Microseconds())/1000)
	}
	for k, v := range per {
		fmt.Printf("ZZAB stmt %s ms x%d: %s\n", pct(v, .5), len(v), k)
	}
	fmt.Printf("ZZAB p50/p90 ms: OverviewGet (3 conns) %s/%s; new statements one after another %s/%s; old statements one after another %s/%s (%d vs %d stmts)\n",
		pct(page, .5), pct(page, .9), pct(floorNew, .5), pct(floorNew, .9), pct(floorOld, .5), pct(floorOld, .9), len(newStmts), len(oldStmts))
}
