package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/store"
	"regdesk/store/demo"
)

// BenchNow is the instant the benchmark ledger is consistent at and every benchmark asks about.
var BenchNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// BenchRows is the size of the benchmark ledger: a million rows unless BENCH_ROWS (or the older
// REGDESK_BENCH_ROWS) says otherwise.
func BenchRows(tb testing.TB) int {
	tb.Helper()
	for _, name := range []string{"BENCH_ROWS", "REGDESK_BENCH_ROWS"} {
		if s := os.Getenv(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				tb.Fatalf("%s=%q is not a positive number", name, s)
			}
			return n
		}
	}
	return 1_000_000
}

// DemoLedger returns the kept demo ledger of rows rows (seed 1, consistent at BenchNow) and its
// URL, writing it on first use: minutes for a million rows, after which every run reuses it.
func DemoLedger(tb testing.TB, rows int) (*store.Store, string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("the benchmark ledger takes minutes to write")
	}
	key := fmt.Sprintf("demo rows=%d seed=1 now=%s", rows, BenchNow.Format(time.RFC3339))
	st, dbURL := PersistentWithURL(tb, key, func(st *store.Store) error {
		start := time.Now()
		sum, err := demo.Write(context.Background(), st, demo.Config{Rows: rows, Seed: 1, Now: BenchNow, SkipForeignKeyChecks: true, BuildIndexesAfter: true})
		if err == nil {
			d := time.Since(start)
			tb.Logf("storetest: seeded %d rows in %s (%.0f rows/s)", sum.Rows, d.Round(time.Second), float64(sum.Rows)/d.Seconds())
		}
		return err
	})
	// The index regdesk asks the LMS team for (README, "Beside the LMS"), built as they would
	// build it, also on a ledger kept from before it was asked for.
	start := time.Now()
	tag, err := st.Pool().Exec(context.Background(), RequestedLedgerIndex)
	if err != nil {
		tb.Fatalf("storetest: the requested index on the kept ledger: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		tb.Logf("storetest: %s in %s", tag, d.Round(100*time.Millisecond))
	}
	return st, dbURL
}

// RequestedLedgerIndexName is the index on the LMS's credit_registrations that regdesk asks the
// LMS team for: its copy's every-2-second read of what changed is then a range of it, not a scan
// of the ledger. regdesk is correct without it; the benchmark ledger has it, as the LMS's would.
const RequestedLedgerIndexName = "idx_credit_registrations_updated_at"

// RequestedLedgerIndex builds RequestedLedgerIndexName (a no-op when it is there).
const RequestedLedgerIndex = `CREATE INDEX IF NOT EXISTS ` + RequestedLedgerIndexName + ` ON public.credit_registrations (updated_at)`

// BenchTargets are the rows a benchmark of the pages asks about.
type BenchTargets struct {
	// LargestCourseID is the course with the most registrations.
	LargestCourseID string
	// RegistrationID is the most recently active live registration; StudentID its student.
	RegistrationID, StudentID string
	// StudentNumber is a live student's number, for a search.
	StudentNumber string
}

// FindBenchTargets picks BenchTargets from the ledger.
func FindBenchTargets(tb testing.TB, st *store.Store) BenchTargets {
	tb.Helper()
	ctx := context.Background()
	var t BenchTargets
	err := st.Pool().QueryRow(ctx, `SELECT course_id::text FROM credit_registrations
WHERE deleted_at IS NULL GROUP BY course_id ORDER BY count(*) DESC, course_id LIMIT 1`).Scan(&t.LargestCourseID)
	if err != nil {
		tb.Fatalf("storetest: largest course: %v", err)
	}
	err = st.Pool().QueryRow(ctx, `SELECT cr.id::text, cr.user_id::text, v.student_number FROM credit_registrations cr
  JOIN verified_student_numbers v ON v.user_id = cr.user_id AND v.deleted_at IS NULL
WHERE cr.deleted_at IS NULL AND cr.superseded_by_id IS NULL
ORDER BY cr.updated_at DESC, cr.id DESC LIMIT 1`).Scan(&t.RegistrationID, &t.StudentID, &t.StudentNumber)
	if err != nil {
		tb.Fatalf("storetest: newest registration: %v", err)
	}
	return t
}

// Statement is one statement a pool sent, with its arguments.
type Statement struct {
	SQL  string
	Args []any
}

// StatementRecorder is a pgx tracer that keeps every statement a pool sends, with its
// arguments, so a benchmark can send the same statements again without the application: the
// raw floor of a page. Install it with Options.Tracer.
type StatementRecorder struct {
	mu    sync.Mutex
	stmts []Statement
}

// TraceQueryStart keeps one statement.
func (r *StatementRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stmts = append(r.stmts, Statement{SQL: data.SQL, Args: slices.Clone(data.Args)})
	return ctx
}

// TraceQueryEnd is part of pgx.QueryTracer.
func (r *StatementRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Take returns the statements kept since the last Take and forgets them.
func (r *StatementRecorder) Take() []Statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = nil
	return out
}

// CacheLedgerFiles reads every file of st's database once, so the operating system's cache
// holds the ledger as it does on a server that has been answering for a while: on a machine
// just started, half the million-row ledger came from disk, and every floor of the bench read
// twice as slow as on a warm machine. It reads only when the database server is on this machine
// and its data directory is readable (a server elsewhere is left as it is: ok is false), and
// returns how many bytes it read.
func CacheLedgerFiles(ctx context.Context, st *store.Store) (n int64, ok bool, err error) {
	var dataDir string
	var oid uint32
	if err := st.Pool().QueryRow(ctx, `SELECT current_setting('data_directory'), d.oid
FROM pg_database d WHERE d.datname = current_database()`).Scan(&dataDir, &oid); err != nil {
		return 0, false, fmt.Errorf("cache the ledger: %w", err)
	}
	dir := filepath.Join(dataDir, "base", strconv.FormatUint(uint64(oid), 10))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false, nil
	}
	buf := make([]byte, 1<<20)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // a relation dropped since the listing
		}
		for {
			k, err := f.Read(buf)
			n += int64(k)
			if err != nil {
				break
			}
		}
		_ = f.Close()
	}
	return n, true, nil
}
