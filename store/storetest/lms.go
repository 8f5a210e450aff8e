package storetest

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/store"
)

// Every test's Store acts as Role, which may only read the LMS's tables, as regdesk does beside the
// LMS. What the LMS itself writes (its pipeline, its admin endpoints, the rows a test starts from)
// a test writes through LMS: a pool on the same database as the LMS's owner.

// lmsPools holds each test Store's LMS pool.
var lmsPools sync.Map // *store.Store → *pgxpool.Pool

// LMS returns the pool that writes st's database as the LMS does: as the owner of its tables.
func LMS(tb testing.TB, st *store.Store) *pgxpool.Pool {
	tb.Helper()
	p, ok := lmsPools.Load(st)
	if !ok {
		tb.Fatal("storetest: this Store has no LMS pool: open it with storetest.New")
	}
	return p.(*pgxpool.Pool)
}

// openLMS opens the LMS pool for st on the database at adminURL (the test server's administrator)
// and closes it with the test.
func openLMS(tb testing.TB, st *store.Store, adminURL string) {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(adminURL)
	if err != nil {
		tb.Fatalf("storetest: LMS pool: %v", err)
	}
	cfg.MaxConns = 4
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	// The LMS's tables first; regdesk's are reachable too, for a test that sets up both.
	cfg.ConnConfig.RuntimeParams["search_path"] = "public, regdesk"
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("storetest: LMS pool: %v", err)
	}
	lmsPools.Store(st, p)
	tb.Cleanup(func() {
		lmsPools.Delete(st)
		p.Close()
	})
}

// LMSExecNoSync runs sql on st's database as the LMS and leaves regdesk's copy of the ledger as it
// was: for writes the test then makes regdesk read, or for a test of the copy itself.
func LMSExecNoSync(tb testing.TB, st *store.Store, sql string, args ...any) {
	tb.Helper()
	if _, err := LMS(tb, st).Exec(context.Background(), sql, args...); err != nil {
		tb.Fatalf("storetest: as the LMS: %v\n%s", err, sql)
	}
}

// LMSExec runs sql on st's database as the LMS, then brings regdesk's copy of the ledger up to
// date with a full comparison (store.LedgerMirrorSweep), as the mirror job would within seconds.
func LMSExec(tb testing.TB, st *store.Store, sql string, args ...any) {
	tb.Helper()
	LMSExecNoSync(tb, st, sql, args...)
	SyncMirror(tb, st)
}

// SyncMirror copies the given ledger rows into regdesk's copy now, or with no ids compares every
// row (store.LedgerMirrorSweep).
func SyncMirror(tb testing.TB, st *store.Store, ids ...string) {
	tb.Helper()
	ctx := context.Background()
	if len(ids) > 0 {
		if err := st.LedgerMirrorRows(ctx, ids); err != nil {
			tb.Fatalf("storetest: copy rows: %v", err)
		}
		return
	}
	if _, err := st.LedgerMirrorSweep(ctx); err != nil {
		tb.Fatalf("storetest: sweep: %v", err)
	}
}

// ShareLMS lets a second Store on the same database (one opened through a fault proxy, say) write
// as the LMS through from's pool.
func ShareLMS(tb testing.TB, from, to *store.Store) {
	tb.Helper()
	lmsPools.Store(to, LMS(tb, from))
	tb.Cleanup(func() { lmsPools.Delete(to) })
}

// LMSExecAsOf runs an UPDATE of the LMS's tables that sets updated_at itself, as the LMS would have
// written it at that instant, then brings regdesk's copy up to date. The LMS's set_timestamp trigger
// stamps updated_at with the database's clock, which a test on the suite's clock (storetest.Now)
// cannot move; here the triggers are off for the one statement (foreign keys too: the test writes
// rows that exist).
func LMSExecAsOf(tb testing.TB, st *store.Store, sql string, args ...any) {
	tb.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, LMS(tb, st), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sql, args...)
		return err
	})
	if err != nil {
		tb.Fatalf("storetest: as the LMS: %v\n%s", err, sql)
	}
	SyncMirror(tb, st)
}

// OwnerURL is the URL of a test database (NewWithURL's) without its role: a connection as the test
// server's administrator, for a test that must do what regdesk's role may not (end a server
// process, lock the LMS's tables). regdesk's tables are under the schema regdesk there.
func OwnerURL(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return dbURL
	}
	q := u.Query()
	q.Del("role")
	u.RawQuery = q.Encode()
	return u.String()
}

// DatabaseURL is the test server's URL admin with its database replaced by name.
func DatabaseURL(admin, name string) string { return withDatabase(admin, name) }

// AsRole is the database URL u with its sessions acting as Role, which may only read the LMS's
// tables.
func AsRole(u string) string { return asRole(u) }
