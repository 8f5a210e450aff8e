// Package demo writes deterministic, realistic demo data into the LMS's tables, as the LMS's
// credit-registration pipeline would have left them: students (users, user_details and their
// verified_student_numbers), the department's MOOC catalogue (courses, their default instances,
// modules and module configurations), completions, credit registrations in every state the
// pipeline can leave them in, each row's event history, and the hands of staff in it (the LMS's
// own audit rows and attention dismissals, their actors LMS users with the global
// credit_registration_admin role). All of it is consistent with the pipeline's rules
// (domain.md) as of a chosen instant and within every NOT NULL and CHECK of the LMS's DDL
// (store/lmsdb). It then fills regdesk's own copy of the ledger (ledger_mirror) and the roll-ups
// regdesk's pages read, as the server would.
//
// The same Config.Seed, Config.Rows and Config.Now always give byte-identical data: every
// random choice comes from one PCG source drawn in a fixed order, and every id is derived from
// it. Rows are generated in one pass, oldest first, in batches that two connections COPY at
// once, each connection in one transaction; they commit together, so a million rows take a
// few minutes and a stopped or failed run leaves nothing behind.
//
// Sisu's side of the story (what landed, what the registry holds) is not in the ledger; Write
// hands it to Config.Truth for a fake registry to be built from.
//
// Write is the one writer of the LMS's tables in regdesk: beside the LMS, regdesk's role only
// reads them, so Write takes a pool that writes as their owner (Config.LMS) and is for fixture
// databases only (make run's, the tests', the benchmark's). It COPYs whole tables' worth of rows
// (skipping foreign-key checks when Config.SkipForeignKeyChecks asks and the role may): a
// statement per row, each with the checks an application's writes need, would take hours for a
// million registrations and their eight million events, where COPY takes minutes. The speed is
// the point, so the generator is shaped around COPY; it writes only the LMS's own tables and
// columns, and its tests check that what it wrote follows the pipeline's rules (schedule) and
// that a write without the checks equals one with them.
package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/store"
)

// Config says what to generate.
type Config struct {
	// LMS writes the LMS's tables, as their owner. nil uses the Store's own pool, for a database
	// where one role owns both the LMS's tables and regdesk's schema (make run's); beside the
	// LMS, and in the tests, regdesk's role may only read them (storetest.LMS gives a test's).
	LMS *pgxpool.Pool
	// Staff are the people whose hands appear in the history; nil means DefaultStaff.
	Staff []Staff
	// Rows is the number of credit_registrations rows, superseded attempts included.
	Rows int
	// Seed picks the data set.
	Seed int64
	// Now is the instant the data is consistent at: nothing happens after it, and every row is
	// where the pipeline would have left it by then.
	Now time.Time
	// IfEmpty makes Write do nothing (Summary.Skipped) when the ledger already has rows, instead
	// of failing with ErrNotEmpty.
	IfEmpty bool
	// Truth, when set, receives Sisu's side of every row that reached Sisu or found its credit
	// there, in generation order, so a fake registry can be built to agree with the ledger. It is
	// called from the generating goroutine, before the row is committed.
	Truth func(SisuTruth)
	// BatchRows is how many ledger rows are generated and copied together; 0 means 5000.
	BatchRows int
	// Workers is how many connections copy batches at once; 0 means 2.
	Workers int
	// SkipForeignKeyChecks has PostgreSQL skip checking the foreign keys of completions,
	// ledger rows and events as they are copied (session_replication_role = replica, as
	// pg_restore --disable-triggers does), when the role may. Those checks are two thirds of the
	// copying time, and the generator makes every reference itself; the tests check them after
	// the fact. Unique, NOT NULL and CHECK constraints are enforced either way.
	SkipForeignKeyChecks bool
	// BuildIndexesAfter drops the bulk tables' secondary indexes (the LMS's in its schema, and
	// regdesk's copy of the ledger's) before copying and builds each again, identically, once the
	// rows are in: for a ledger of millions of rows, a third of the time. Unique indexes stay, so
	// the copy is checked as before. Only for a fixture database nobody else is reading while it
	// fills (the benchmark ledger, written under another name and renamed when done): its
	// queries would find no index.
	BuildIndexesAfter bool
}

// Summary reports what Write did.
type Summary struct {
	Skipped     bool // the ledger had rows and Config.IfEmpty was set
	Rows        int
	Students    int
	Completions int
	Events      int
	Courses     int
	Modules     int // the modules that register credits
	// AdminActions counts the LMS's audit rows of hands on rows; Dismissals the rows taken off the
	// Needs attention queue.
	AdminActions int
	Dismissals   int
	// Staff maps each staff e-mail address to the LMS user (users.id) made for them.
	Staff map[string]string
	// States counts rows by state.
	States map[string]int
	// ForeignKeysChecked is false when PostgreSQL skipped the foreign key checks
	// (Config.SkipForeignKeyChecks and the role may).
	ForeignKeysChecked bool
	Duration           time.Duration
}

// ErrNotEmpty reports that the ledger already has rows; demo data goes only into an empty one.
var ErrNotEmpty = errors.New("the ledger already has rows")

// DefaultRows is the size of the demo make run shows: big enough that every state, phase,
// attention reason and standing on the queue appears, small enough to read.
const DefaultRows = 2000

// Write generates the data set cfg names and writes it to the LMS's tables (through cfg.LMS) in
// one transaction, then fills st's copy of the ledger and roll-ups. It refuses a ledger that
// already has rows (ErrNotEmpty) unless cfg.IfEmpty, when it does nothing. The database must hold
// the LMS's tables (lmsdb.Apply) and regdesk's migrations.
func Write(ctx context.Context, st *store.Store, cfg Config) (Summary, error) {
	start := time.Now()
	if cfg.Rows < 0 {
		return Summary{}, fmt.Errorf("demo: rows must not be negative, got %d", cfg.Rows)
	}
	if cfg.Now.IsZero() {
		return Summary{}, errors.New("demo: Config.Now is not set")
	}
	if cfg.BatchRows <= 0 {
		cfg.BatchRows = 5000
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	sum, err := write(ctx, st, cfg)
	sum.Duration = time.Since(start)
	return sum, err
}
