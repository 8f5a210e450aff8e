// Package store is regdesk's only door to PostgreSQL: the pool, every SQL string, the row types,
// the typed records kept in jsonb details, and the migration runner. Its files go by table or by
// job: registration.go, student.go, course.go, event.go, account.go (with password.go) and
// login_attempt.go query their tables; page.go reads whole pages, each in one snapshot; action.go
// and bulk.go apply hand actions and audit.go records them; lookup.go reads Sisu lookups
// (LookupRecord); classify.go mirrors schedule's rules in SQL for filters and counts.
//
// Beside it, not under it, live the packages that deal in the same data but are not SQL: the
// partners (partner/suotar, partner/lms, each with its fake beside it, importing nothing of
// regdesk's but schedule) and the services that join a partner to the store (sisucheck). Under it
// live only what fills it: store/demo writes demo data straight into the tables with COPY, outside
// these query functions, for speed (its doc says why), store/lmsdb holds the LMS's tables for the
// demo and the tests, and store/storetest gives each test a database of its own, cloned from a
// migrated template.
package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"
)

// ErrNotFound reports that a query that must find one row found none.
var ErrNotFound = errors.New("not found")

// ErrConflict reports that a write lost a race: a unique constraint, or a row that changed since
// the caller read it.
var ErrConflict = errors.New("conflict")

// querier is what both *pgxpool.Pool and pgx.Tx offer; queries run on either.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
}

// Queries holds the named queries. Get one from a Store (no transaction) or inside InTx.
type Queries struct {
	db querier
	// linkingSince is the Store's Options.AccountLinkingSince: the live reads of a registration
	// derive its linking facts with it.
	linkingSince *time.Time
}

// Store owns the pool. Its embedded Queries run outside any transaction.
type Store struct {
	*Queries
	pool *pgxpool.Pool
	// health is a pool of one connection for Ping alone: a crowd holding every connection of pool
	// (a burst of sign-ins, each waiting on its limits' locks) is regdesk's congestion, not the
	// database's, and /healthz must not call it an outage.
	health       *pgxpool.Pool
	passwordCost int
	// decoyHash is a hash at passwordCost for SpendPasswordCheck, made on first use.
	decoyHash func() []byte
	// lmsSchema is the schema of the LMS's tables (Options.LMSSchema).
	lmsSchema string
	// linkingSince is Options.AccountLinkingSince.
	linkingSince *time.Time
}

// Options tune a Store.
type Options struct {
	// StatementTimeout bounds every statement of the pool's connections. The dashboard sets it so a
	// slow query fails with a message instead of holding a person's page; bulk tools leave it 0.
	StatementTimeout time.Duration
	// MaxConns overrides the pool size when positive.
	MaxConns int32
	// Tracer, when set, sees every query of the pool's connections: tests count a page's queries
	// with it.
	Tracer pgx.QueryTracer
	// PasswordCost is bcrypt's work factor for HashPassword; 0 is DefaultPasswordCost. Tests,
	// which hash many passwords, lower it.
	PasswordCost int
	// LMSSchema is the schema holding the LMS's tables; "" is DefaultLMSSchema.
	LMSSchema string
	// AccountLinkingSince is the LMS's account_linking_since, a setting of the LMS's own process
	// (its SuotarConfiguration, read from its environment) that no LMS table records: only
	// completions dated at or after it can be stuck waiting for a student number
	// (student_number_stuck); nil means account linking is off and nobody can be. It must be what
	// the LMS runs with, on every instance, or regdesk's queue and the LMS's disagree on those rows.
	AccountLinkingSince *time.Time
}

// Schema is the schema that holds everything regdesk keeps. Nothing of regdesk's lives outside it.
const Schema = "regdesk"

// DefaultLMSSchema is where the LMS keeps its tables.
const DefaultLMSSchema = "public"

// DefaultConnectTimeout bounds making one connection, unless the URL's connect_timeout says
// otherwise.
const DefaultConnectTimeout = 3 * time.Second

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: parse database URL: %w", err)
	}
	if opts.StatementTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = fmt.Sprint(opts.StatementTimeout.Milliseconds())
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.Tracer != nil {
		cfg.ConnConfig.Tracer = opts.Tracer
	}
	// A database that accepts connections and never answers (stopped, or behind a dead link) must
	// not hold a request while pgx connects; request deadlines bound the rest.
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	// regdesk's own tables first, then the LMS's: every statement names tables unqualified, and
	// regdesk's names never repeat an LMS table's (TestRegdeskNamesNoLMSTable).
	lmsSchema := cmp.Or(opts.LMSSchema, DefaultLMSSchema)
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{Schema}.Sanitize() + ", " + pgx.Identifier{lmsSchema}.Sanitize()
	// Times are written and compared in UTC; Helsinki is a display concern.
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	// The queue's reason conditions make large expressions on a few thousand rows: JIT compiling
	// them took two seconds for a query that runs in 80 ms. Nothing regdesk runs gains from JIT.
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	// No parallel workers: the dashboard's statements read a few thousand index entries, where
	// starting workers costs more than it saves (the courses page's needs-a-person count took 19 ms
	// with two workers, 10 ms alone, at a million rows), and under a crowd the workers take the
	// cores the other requests are waiting for.
	cfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"] = "0"
	healthCfg := cfg.Copy()
	healthCfg.MaxConns, healthCfg.MinConns, healthCfg.ConnConfig.Tracer = 1, 0, nil
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: open pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: ping: %w", err)
	}
	health, err := pgxpool.NewWithConfig(ctx, healthCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: open health pool: %w", err)
	}
	cost := cmp.Or(opts.PasswordCost, DefaultPasswordCost)
	decoy := sync.OnceValue(func() []byte {
		h, _ := bcrypt.GenerateFromPassword([]byte("regdesk decoy password"), cost)
		return h
	})
	since := opts.AccountLinkingSince
	if since != nil {
		t := since.UTC()
		since = &t
	}
	return &Store{Queries: &Queries{db: pool, linkingSince: since}, pool: pool, health: health, passwordCost: cost, decoyHash: decoy,
		lmsSchema: lmsSchema, linkingSince: since}, nil
}

// sqlLimit writes a LIMIT into a statement's text rather than as a parameter. pgx prepares and
// caches every statement, and after five executions PostgreSQL may switch a prepared statement
// to a generic plan, made without the parameters' values: with the LIMIT a parameter, the generic
// plan of /?reason=flagged_by_pipeline assumed a large share of the rows and walked 992k index
// entries from the sixth request on. A constant LIMIT (like the states and error codes, written
// as literals) leaves the generic plan nothing to guess that matters, so it stays the plan the
// first five executions had, and is planned once. The other choice, plan_cache_mode =
// force_custom_plan, plans every execution again: 8 to 38 ms for the queue's reason counts, more
// than running them. TestQueuePlansUseIndexes checks the generic plans too.
func sqlLimit(n int) string { return strconv.Itoa(max(n, 0)) }

// Close releases every connection.
func (s *Store) Close() {
	s.pool.Close()
	s.health.Close()
}

// Pool exposes the pool to tests and tools that need a connection of their own.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping reports whether the database answers, on a connection of its own that no query holds;
// /healthz uses it.
func (s *Store) Ping(ctx context.Context) error { return s.health.Ping(ctx) }

// Tx is one read-write transaction its caller drives, in WTF Dial's manner: Begin, the queries
// (Tx embeds Queries), Commit, with a deferred Rollback that undoes whatever was not committed and
// does nothing after a Commit. The caller holds the transaction and passes it down; nothing in
// the store calls back up into the caller with it open.
type Tx struct {
	*Queries
	tx pgx.Tx
}

// Begin opens a read-write transaction.
func (s *Store) Begin(ctx context.Context) (*Tx, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &Tx{Queries: s.on(tx), tx: tx}, nil
}

// Commit makes the transaction's writes stand.
func (t *Tx) Commit(ctx context.Context) error {
	if err := t.tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", dbError("commit", err))
	}
	return nil
}

// Rollback undoes the transaction unless it was committed; it runs even when ctx is cancelled,
// so an abandoned request or job never leaves a transaction open. Defer it right after Begin.
func (t *Tx) Rollback(ctx context.Context) error {
	if err := t.tx.Rollback(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// InTx runs fn in one transaction (Begin, Commit) and commits if fn returns nil: for the store's
// own methods, whose fn is their own code. A caller outside the store that has work of its own to
// do between the queries drives a Tx instead.
func (s *Store) InTx(ctx context.Context, fn func(q *Queries) error) error {
	tx, err := s.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := fn(tx.Queries); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// InReadTx runs fn in one read-only transaction at repeatable read: every query of fn sees the
// same snapshot, as the several reads of one page must. It commits nothing.
func (s *Store) InReadTx(ctx context.Context, fn func(q *Queries) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	return fn(s.on(tx))
}

// on returns the Store's queries run on db: a transaction or a connection of its own.
func (s *Store) on(db querier) *Queries { return &Queries{db: db, linkingSince: s.linkingSince} }

// dbError maps driver errors onto this package's sentinels, keeping the operation's name.
func dbError(op string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	if Unreachable(err) {
		return fmt.Errorf("%s: %w: %w", op, ErrUnavailable, err)
	}
	if pg, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch pg.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%s: %w (%s)", op, ErrConflict, pg.ConstraintName)
		case "40001", "40P01": // serialization_failure, deadlock_detected
			return fmt.Errorf("%s: %w (%s)", op, ErrConflict, pg.Code)
		case "57014": // query_canceled: the statement timeout fired
			return fmt.Errorf("%s: %w: %w", op, ErrTimeout, err)
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// ErrTimeout reports that a query ran past the statement timeout; the caller should ask for a
// narrower view rather than retry.
var ErrTimeout = errors.New("query took too long")

// ErrUnavailable reports that the database could not be reached (it is down, or the network to
// it is), as opposed to answering slowly: the caller should say so and that it is worth trying
// again shortly.
var ErrUnavailable = errors.New("database unreachable")

// Unreachable reports whether err says the database could not be reached at all: a failed
// connection, one that broke or was closed mid-statement, or PostgreSQL saying it is going away
// or that the connection failed (serverGone). A deadline that ran out is not that: the database
// may be there, not answering.
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, ErrUnavailable) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if pg, ok := errors.AsType[*pgconn.PgError](err); ok {
		return serverGone(pg.Code)
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// serverGone reports whether a PostgreSQL error code says the server, not the statement, failed:
// class 08 (connection exception) and class 57 (operator intervention: 57P01 admin_shutdown in a
// fast stop or restart, 57P02 crash_shutdown, 57P03 cannot_connect_now while it starts or stops,
// 57P04 database_dropped, 57P05 idle_session_timeout), except 57014 query_canceled, which is the
// statement timeout (ErrTimeout). Asking again shortly is then the right advice, as for a server
// that cannot be reached; every other code is the database answering.
func serverGone(code string) bool {
	return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "57") && code != "57014"
}

// NewID returns a random version 4 UUID. Rows get their ids here rather than from the database
// when a transaction must name a row (an audit entry, say) before it is written.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Deref returns the value p points to, or the zero value for nil: a nullable column read where
// NULL and the zero value mean the same, such as "" for text.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// readJSON decodes a jsonb details column into its record type; details that do not decode give
// the zero value, so a page shows less rather than fail.
func readJSON[T any](raw []byte) T {
	var v T
	if json.Unmarshal(raw, &v) != nil {
		var zero T
		return zero
	}
	return v
}
