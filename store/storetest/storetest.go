// Package storetest gives each test a real PostgreSQL database of its own, cloned from a template
// that the production migrations built once.
package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"regdesk/migrations"
	"regdesk/store"
	"regdesk/store/lmsdb"
)

// AdminURL returns the URL of a database on the test server from which databases are created:
// TEST_DATABASE_URL. Without it the test is skipped, except in CI (CI set), where a database suite
// that skips would pass silently, so it fails instead.
func AdminURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("TEST_DATABASE_URL")
	if u == "" {
		if os.Getenv("CI") != "" {
			tb.Fatal("TEST_DATABASE_URL is not set, and CI is: database tests must run (use make test)")
		}
		tb.Skip("TEST_DATABASE_URL is not set: run make test, which starts a private PostgreSQL")
	}
	return u
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// templateDB returns the name of a template database holding the migrated schema. It is named by
// a hash of the migration files, so an edited migration gets a fresh template, and it is built
// under an advisory lock because go test runs packages as parallel processes.
func templateDB(ctx context.Context, admin string) (string, error) {
	templateOnce.Do(func() {
		templateName, templateErr = buildTemplate(ctx, admin)
	})
	return templateName, templateErr
}

func buildTemplate(ctx context.Context, admin string) (string, error) {
	h := sha256.New()
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return "", err
	}
	slices.Sort(names)
	for _, n := range names {
		b, err := fs.ReadFile(migrations.FS, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	fmt.Fprintf(h, "lms\x00%d\x00%s", len(lmsdb.Schema()), lmsdb.Schema())
	name := "tpl_" + hex.EncodeToString(h.Sum(nil))[:12]

	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connect to the test server: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext($1))`, name); err != nil {
		return "", err
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, name) }()

	var isTemplate bool
	err = conn.QueryRow(ctx, `SELECT datistemplate FROM pg_database WHERE datname = $1`, name).Scan(&isTemplate)
	if err == nil && isTemplate {
		return name, nil
	}
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`); err != nil {
		return "", fmt.Errorf("drop stale template: %w", err)
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+ident); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	if err := ensureRole(ctx, conn); err != nil {
		return "", err
	}
	// The LMS's tables, as the LMS's own migrations leave them, then regdesk's schema beside them,
	// made by regdesk's own role: exactly what a DBA's installation gives regdesk.
	lms, err := pgx.Connect(ctx, withDatabase(admin, name))
	if err != nil {
		return "", fmt.Errorf("connect to the template: %w", err)
	}
	err = lmsdb.Apply(ctx, lms)
	if err == nil {
		err = lmsdb.GrantReadOnly(ctx, lms, Role)
	}
	if err == nil {
		_, err = lms.Exec(ctx, `CREATE SCHEMA regdesk AUTHORIZATION `+pgx.Identifier{Role}.Sanitize())
	}
	lms.Close(ctx)
	if err != nil {
		return "", fmt.Errorf("LMS fixture: %w", err)
	}
	st, err := store.Open(ctx, asRole(withDatabase(admin, name)), store.Options{MaxConns: 2, PasswordCost: passwordCost})
	if err != nil {
		return "", err
	}
	_, err = st.Migrate(ctx)
	st.Close()
	if err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := conn.Exec(ctx, `ALTER DATABASE `+ident+` IS_TEMPLATE true`); err != nil {
		return "", err
	}
	return name, nil
}

// Role is the role every test's Store acts as: it owns the schema regdesk and may only read the
// LMS's tables (lmsdb.GrantReadOnly), as regdesk's role does beside the LMS. A test that writes
// what the LMS writes does so through LMS, as the LMS's owner.
const Role = "regdesk_test_app"

// ensureRole creates Role once per server: roles belong to the server, not to a database.
func ensureRole(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('regdesk role'))`); err != nil {
		return err
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('regdesk role'))`)
	}()
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, Role).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, `CREATE ROLE `+pgx.Identifier{Role}.Sanitize()+` NOLOGIN`); err != nil {
		return fmt.Errorf("create role %s: %w", Role, err)
	}
	return nil
}

// asRole returns the server URL u with its sessions acting as Role: the test server's
// administrator connects and sets the role at once, so no password or login is needed for it.
func asRole(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := parsed.Query()
	q.Set("role", Role)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

// withDatabase returns admin with its database name replaced by db.
func withDatabase(admin, db string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + db
	return u.String()
}

// passwordCost is bcrypt's cheapest: tests hash many passwords, and the cost does not change the
// code that runs.
const passwordCost = bcrypt.MinCost

// Options tune New.
type Options struct {
	// StatementTimeout is passed to store.Open.
	StatementTimeout time.Duration
	// Tracer is passed to store.Open: it sees every query of the store's pool.
	Tracer pgx.QueryTracer
	// AccountLinkingSince is passed to store.Open: nil leaves account linking off.
	AccountLinkingSince *time.Time
}

// adminConn connects to the test server's admin database and makes sure the template exists.
func adminConn(tb testing.TB) (conn *pgx.Conn, admin, tpl string) {
	tb.Helper()
	admin = AdminURL(tb)
	ctx := context.Background()
	tpl, err := templateDB(ctx, admin)
	if err != nil {
		tb.Fatalf("storetest: template database: %v", err)
	}
	conn, err = pgx.Connect(ctx, admin)
	if err != nil {
		tb.Fatalf("storetest: connect: %v", err)
	}
	return conn, admin, tpl
}

// cloneTemplate creates database name from the template. FILE_COPY copies the template's files
// instead of WAL-logging every block: about twice as fast.
func cloneTemplate(tb testing.TB, conn *pgx.Conn, tpl, name string) {
	tb.Helper()
	if _, err := conn.Exec(context.Background(), `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()+
		` TEMPLATE `+pgx.Identifier{tpl}.Sanitize()+` STRATEGY FILE_COPY`); err != nil {
		tb.Fatalf("storetest: create database %s: %v", name, err)
	}
}

// New returns a Store on a fresh database cloned from the migrated template. The database is
// dropped when the test passes and kept (its URL logged, for psql) when it fails.
func New(tb testing.TB) *store.Store {
	tb.Helper()
	st, _ := NewWithURL(tb, Options{})
	return st
}

// NewWithURL is New that also returns the database's URL, for code under test that opens its own
// connections (the session store, a second server).
func NewWithURL(tb testing.TB, opts Options) (*store.Store, string) {
	tb.Helper()
	ctx := context.Background()
	conn, admin, tpl := adminConn(tb)
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	cloneTemplate(tb, conn, tpl, name)
	ownerURL := withDatabase(admin, name)
	dbURL := asRole(ownerURL)
	st, err := store.Open(ctx, dbURL, store.Options{StatementTimeout: opts.StatementTimeout, MaxConns: 8, PasswordCost: passwordCost, Tracer: opts.Tracer,
		AccountLinkingSince: opts.AccountLinkingSince})
	if err != nil {
		tb.Fatalf("storetest: open: %v", err)
	}
	openLMS(tb, st, ownerURL)
	tb.Cleanup(func() {
		st.Close()
		if tb.Failed() {
			tb.Logf("storetest: kept the database of this failed test: %s", dbURL)
			return
		}
		conn, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			tb.Logf("storetest: drop %s: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DROP DATABASE `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
			tb.Logf("storetest: drop %s: %v", name, err)
		}
	})
	return st, dbURL
}

// Persistent returns a Store on a database that outlives the test run: built once from the
// template and filled by fill, then reused by every later run with the same key. Benchmarks use it
// for ledgers too large to rebuild each time. It is named by the key alone, not the migrations: a
// later migration is applied to the kept database when it is opened (then ANALYZEd), as it would
// be to a production ledger, so adding an index does not cost a re-seed. A database that holds a
// migration this code does not know (another branch's) is refused rather than silently mixed.
// A fill that fails or is interrupted leaves no database under the final name, because the
// filled database is renamed into place only when fill returns.
func Persistent(tb testing.TB, key string, fill func(*store.Store) error) *store.Store {
	tb.Helper()
	st, _ := PersistentWithURL(tb, key, fill)
	return st
}

// PersistentWithURL is Persistent that also returns the database's URL, for a server run as its
// own process.
func PersistentWithURL(tb testing.TB, key string, fill func(*store.Store) error) (*store.Store, string) {
	tb.Helper()
	ctx := context.Background()
	conn, admin, tpl := adminConn(tb)
	defer conn.Close(ctx)
	sum := sha256.Sum256([]byte(key))
	name := "keep_" + hex.EncodeToString(sum[:])[:16]
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext($1))`, name); err != nil {
		tb.Fatal(err)
	}
	defer func() { _, _ = conn.Exec(ctx, `SELECT pg_advisory_unlock(hashtext($1))`, name) }()
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		tb.Fatal(err)
	}
	if !exists {
		tmp := name + "_filling"
		ident, tmpIdent := pgx.Identifier{name}.Sanitize(), pgx.Identifier{tmp}.Sanitize()
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+tmpIdent+` WITH (FORCE)`); err != nil {
			tb.Fatal(err)
		}
		cloneTemplate(tb, conn, tpl, tmp)
		st, err := store.Open(ctx, withDatabase(admin, tmp), store.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Logf("storetest: filling %s (%s); later runs reuse it", name, key)
		err = fill(st)
		st.Close()
		if err != nil {
			tb.Fatalf("storetest: fill %s: %v", name, err)
		}
		if _, err := conn.Exec(ctx, `ALTER DATABASE `+tmpIdent+` RENAME TO `+ident); err != nil {
			tb.Fatalf("storetest: rename %s: %v", tmp, err)
		}
	}
	dbURL := withDatabase(admin, name)
	// A migration's backfill of a kept ledger takes minutes: no statement timeout for it.
	mig, err := store.Open(ctx, dbURL, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer mig.Close()
	if unknown := unknownMigrations(tb, mig); len(unknown) > 0 {
		tb.Fatalf("storetest: kept database %s holds migrations this code lacks: %v (drop it to rebuild)", name, unknown)
	}
	applied, err := mig.Migrate(ctx)
	if err != nil {
		tb.Fatalf("storetest: migrate kept database %s: %v", name, err)
	}
	if len(applied) > 0 {
		tb.Logf("storetest: applied %v to %s", applied, name)
		if _, err := mig.Pool().Exec(ctx, `VACUUM ANALYZE`); err != nil {
			tb.Fatal(err)
		}
	}
	st, err := store.Open(ctx, dbURL, store.Options{StatementTimeout: 30 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(st.Close)
	return st, dbURL
}

// unknownMigrations lists the migrations recorded in st's database that this code does not embed.
func unknownMigrations(tb testing.TB, st *store.Store) []string {
	tb.Helper()
	known, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		tb.Fatal(err)
	}
	rows, _ := st.Pool().Query(context.Background(), `SELECT name FROM schema_migration ORDER BY name`)
	applied, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatalf("storetest: list applied migrations: %v", err)
	}
	var unknown []string
	for _, n := range applied {
		if !slices.Contains(known, n) {
			unknown = append(unknown, n)
		}
	}
	return unknown
}

// QueryCounter is a pgx tracer that counts the statements a pool sends, for tests that bound how
// many queries a page makes: every query, every query of a batch and every COPY. Install it with
// Options.Tracer.
type QueryCounter struct {
	mu  sync.Mutex
	sql []string
}

// TraceQueryStart counts one statement.
func (c *QueryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql = append(c.sql, data.SQL)
	return ctx
}

// TraceQueryEnd is part of pgx.QueryTracer; the count is taken at the start.
func (c *QueryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart is part of pgx.BatchTracer; each query of the batch counts in TraceBatchQuery.
func (c *QueryCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

// TraceBatchQuery counts one statement of a batch: a batch saves round trips, not statements.
func (c *QueryCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql = append(c.sql, data.SQL)
}

// TraceBatchEnd is part of pgx.BatchTracer.
func (c *QueryCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TraceCopyFromStart counts a COPY as one statement.
func (c *QueryCounter) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql = append(c.sql, "COPY "+data.TableName.Sanitize())
	return ctx
}

// TraceCopyFromEnd is part of pgx.CopyFromTracer.
func (c *QueryCounter) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}

// Reset forgets the statements counted so far.
func (c *QueryCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql = nil
}

// Statements returns the statements counted since the last Reset, in the order they were sent.
func (c *QueryCounter) Statements() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.sql...)
}
