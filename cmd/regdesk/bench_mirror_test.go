package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/store"
	"regdesk/store/storetest"
)

// benchMirrorTouched is how many ledger rows the "changed" refresh rounds find written.
const benchMirrorTouched = 100

// benchMirror measures regdesk's copy of the ledger (store.LedgerMirrorRefresh and
// store.LedgerMirrorSweep, what the mirror job runs) on the kept ledger, with the index regdesk
// asks the LMS team for (storetest.RequestedLedgerIndexName) and without it, and the sizes of that
// index and of the copy. It runs before the bench's servers start, whose own mirror jobs would
// take the lock. The rounds of changed rows write benchMirrorTouched ledger rows as the LMS's
// pipeline would (an UPDATE, whose set_timestamp trigger stamps updated_at); everything it changes
// is put back before it returns, the rows' updated_at, their copies, the copy's watermark and the
// index, so the pages are measured on the ledger as written.
func benchMirror(t *testing.T, dbURL string) string {
	t.Helper()
	ctx := context.Background()
	// No statement timeout: a sweep of a large ledger without the index may take long on a
	// loaded machine, and is measured, not bounded, here.
	rec := &storetest.StatementRecorder{}
	st, err := store.Open(ctx, dbURL, store.Options{Tracer: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pool := st.Pool()
	one := func(sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := pool.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatalf("bench mirror: %v\n%s", err, sql)
		}
		return n
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("bench mirror: %v\n%s", err, sql)
		}
	}

	// What is put back afterwards.
	var watermark, refreshedAt, sweptAt *time.Time
	if err := pool.QueryRow(ctx, `SELECT watermark, refreshed_at, swept_at FROM ledger_mirror_state`).Scan(&watermark, &refreshedAt, &sweptAt); err != nil {
		t.Fatal(err)
	}
	// Rows spread over the ledger, the same on every run.
	rows, err := pool.Query(ctx, `SELECT id::text, updated_at FROM credit_registrations ORDER BY md5(id::text) LIMIT `+fmt.Sprint(benchMirrorTouched))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var was []time.Time
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			t.Fatal(err)
		}
		ids, was = append(ids, id), append(was, at)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	restoreState := func() {
		t.Helper()
		exec(`UPDATE ledger_mirror_state SET watermark = $1, refreshed_at = $2, swept_at = $3`, watermark, refreshedAt, sweptAt)
	}
	touched := false
	hasIndex := func() bool {
		return one(`SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND indexname = $1`, storetest.RequestedLedgerIndexName) == 1
	}
	var rebuild time.Duration
	restored := false
	restore := func() {
		if restored {
			return
		}
		restored = true
		// Put everything back, also after a failure: the rows as they were written (their
		// updated_at without the trigger, as a restore would), their copies as the demo made them,
		// the watermark, and the index.
		if touched {
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `UPDATE credit_registrations c SET updated_at = w.at
FROM unnest($1::uuid[], $2::timestamptz[]) AS w(id, at) WHERE c.id = w.id`, ids, was)
				return err
			})
			if err != nil {
				t.Errorf("bench mirror: put the touched rows back: %v", err)
			}
			if _, err := pool.Exec(ctx, `DELETE FROM ledger_mirror WHERE id = ANY($1::uuid[])`, ids); err != nil {
				t.Errorf("bench mirror: %v", err)
			}
			if err := st.LedgerMirrorRows(ctx, ids); err != nil {
				t.Errorf("bench mirror: %v", err)
			}
		}
		if !hasIndex() {
			start := time.Now()
			if _, err := pool.Exec(ctx, storetest.RequestedLedgerIndex); err != nil {
				t.Errorf("bench mirror: build the index again: %v", err)
			}
			rebuild = time.Since(start)
		}
		restoreState()
		// The touched pages all-visible again, so the pages' index-only reads stay index-only.
		if _, err := pool.Exec(ctx, `VACUUM credit_registrations, ledger_mirror`); err != nil {
			t.Errorf("bench mirror: %v", err)
		}
	}
	defer restore()
	if !hasIndex() {
		t.Fatalf("bench mirror: the kept ledger lacks %s (storetest.DemoLedger builds it)", storetest.RequestedLedgerIndexName)
	}

	if watermark == nil {
		t.Fatal("bench mirror: the kept ledger's copy has never been refreshed")
	}
	lookback := one(`SELECT count(*) FROM credit_registrations WHERE updated_at >= $1`, watermark.Add(-store.MirrorLookback))
	refresh := func(what string) (time.Duration, int64) {
		t.Helper()
		for {
			start := time.Now()
			res, err := st.LedgerMirrorRefresh(ctx)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("bench mirror: %s: %v", what, err)
			}
			if !res.Skipped {
				return took, res.Copied
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	type figures struct {
		idle, changed, sweep [3]time.Duration
		changedCopied        int64
		plan                 string
	}
	measure := func() figures {
		t.Helper()
		var f figures
		restoreState()
		refresh("warm up")
		var ds []time.Duration
		for range 20 {
			d, n := refresh("a refresh with nothing changed")
			if n != 0 {
				t.Errorf("bench mirror: a refresh with nothing changed copied %d rows", n)
			}
			ds = append(ds, d)
		}
		f.idle = percentiles(ds)
		// The candidates' plan, as a round with nothing changed runs it.
		rec.Take()
		refresh("a refresh with nothing changed")
		f.plan = explainRefresh(t, pool, rec.Take())
		ds = ds[:0]
		for i := range 10 {
			touched = true
			// A real change: the LMS's set_timestamp leaves a write that changes nothing as it
			// was. A microsecond forward, then back: after the even number of rounds the rows
			// hold what they held, and restore puts their updated_at back.
			exec(`UPDATE credit_registrations SET next_attempt_at = next_attempt_at + $2 * interval '1 microsecond' WHERE id = ANY($1::uuid[])`, ids, 1-2*(i%2))
			d, n := refresh("a refresh with rows changed")
			f.changedCopied = n
			if n < benchMirrorTouched {
				t.Errorf("bench mirror: a refresh after %d rows changed copied %d", benchMirrorTouched, n)
			}
			ds = append(ds, d)
		}
		f.changed = percentiles(ds)
		ds = ds[:0]
		for range 3 {
			start := time.Now()
			res, err := st.LedgerMirrorSweep(ctx)
			if err != nil {
				t.Fatalf("bench mirror: sweep: %v", err)
			}
			if res.Skipped {
				t.Fatal("bench mirror: the sweep found the lock taken: is a server's mirror job running on the kept ledger?")
			}
			ds = append(ds, time.Since(start))
		}
		f.sweep = percentiles(ds)
		return f
	}

	indexSize := one(`SELECT pg_relation_size($1::regclass)`, "public."+storetest.RequestedLedgerIndexName)
	ledgerSize := one(`SELECT pg_total_relation_size('public.credit_registrations')`)
	mirrorHeap := one(`SELECT pg_table_size('regdesk.ledger_mirror')`)
	mirrorIndexes := one(`SELECT pg_indexes_size('regdesk.ledger_mirror')`)
	mirrorRows := one(`SELECT count(*) FROM ledger_mirror`)
	with := measure()
	exec(`DROP INDEX public.` + storetest.RequestedLedgerIndexName)
	without := measure()

	restore()

	var b strings.Builder
	fmt.Fprintf(&b, "\nregdesk's copy of the ledger (store.LedgerMirrorRefresh every 2 s, LedgerMirrorSweep every 10 min), with and without `%s`, p50 (p99) ms: ", storetest.RequestedLedgerIndexName)
	fmt.Fprintf(&b, "a refresh with nothing changed (the lookback holds %d rows), 20 rounds; with %d rows changed (%d copied), 10 rounds; a sweep, 3 rounds.\n\n", lookback, benchMirrorTouched, with.changedCopied)
	b.WriteString("| round | with the index | without | × |\n|---|---:|---:|---:|\n")
	for _, r := range []struct {
		name string
		w, o [3]time.Duration
	}{
		{"refresh, nothing changed", with.idle, without.idle},
		{fmt.Sprintf("refresh, %d rows changed", benchMirrorTouched), with.changed, without.changed},
		{"sweep", with.sweep, without.sweep},
	} {
		fmt.Fprintf(&b, "| %s | %s (%s) | %s (%s) | %.1f |\n", r.name, ms(r.w[0]), ms(r.w[2]), ms(r.o[0]), ms(r.o[2]), float64(r.o[0])/float64(max(r.w[0], time.Microsecond)))
	}
	fmt.Fprintf(&b, "\nSizes: `%s` %.1f MB (the ledger with its indexes %.0f MB); `ledger_mirror` %d rows, %.0f MB and its indexes %.0f MB.\n",
		storetest.RequestedLedgerIndexName, float64(indexSize)/1e6, float64(ledgerSize)/1e6, mirrorRows, float64(mirrorHeap)/1e6, float64(mirrorIndexes)/1e6)
	if rebuild > 0 {
		fmt.Fprintf(&b, "Building the index again after the rounds without it took %s.\n", rebuild.Round(100*time.Millisecond))
	}
	fmt.Fprintf(&b, "\nThe refresh's read of what changed, with the index:\n\n```\n%s```\n\nwithout:\n\n```\n%s```\n", with.plan, without.plan)
	return b.String()
}

// explainRefresh is EXPLAIN (ANALYZE, BUFFERS) of the refresh's read of the changed rows, found
// among the statements one refresh sent (stmts) by what it reads.
func explainRefresh(t *testing.T, pool *pgxpool.Pool, stmts []storetest.Statement) string {
	t.Helper()
	for _, s := range stmts {
		if !strings.Contains(s.SQL, "FROM credit_registrations c") || !strings.Contains(s.SQL, "ORDER BY c.updated_at") {
			continue
		}
		rows, err := pool.Query(context.Background(), `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) `+s.SQL, s.Args...)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			b.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	t.Errorf("bench mirror: no read of the changed rows among the refresh's statements")
	return ""
}
