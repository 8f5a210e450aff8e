package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/store"
)

// The enums COPY must know: its binary format needs each type registered on the connection.
var enumTypes = []string{
	"credit_registration_state", "credit_registration_error_code", "enrolment_check_group", "enrolment_check_source",
	"credit_registration_event_kind", "suotar_endpoint", "suotar_answer", "student_number_verification_method",
	"credit_registration_admin_action", "credit_registration_admin_action_target", "credit_registration_attention_reason",
	"_credit_registration_attention_reason", "user_role",
}

func write(ctx context.Context, st *store.Store, cfg Config) (_ Summary, retErr error) {
	lms := cfg.LMS
	if lms == nil {
		lms = st.Pool()
	}
	conn, err := lms.Acquire(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("demo: acquire a connection: %w", err)
	}
	defer conn.Release()
	// make run and a second seeder may start together: the lock makes the later one wait for
	// the first to finish and then see its rows.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('regdesk demo seed'))`); err != nil {
		return Summary{}, fmt.Errorf("demo: take the seed lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('regdesk demo seed'))`)
	}()
	var hasRows, mayWrite bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM credit_registrations), has_table_privilege('credit_registrations', 'INSERT')`).Scan(&hasRows, &mayWrite); err != nil {
		return Summary{}, fmt.Errorf("demo: check the ledger is empty: %w", err)
	}
	if hasRows {
		if cfg.IfEmpty {
			return Summary{Skipped: true}, nil
		}
		return Summary{}, fmt.Errorf("demo: %w", ErrNotEmpty)
	}
	if !mayWrite {
		return Summary{}, errors.New("demo: this role may not write the LMS's tables (regdesk's own role only reads them): set Config.LMS to a pool that writes as their owner")
	}

	skip := false
	if cfg.SkipForeignKeyChecks {
		// Only a superuser (or a role granted the parameter) may skip triggers; anyone else
		// gets the checks, and the same data, more slowly.
		_, err := conn.Exec(ctx, `SET session_replication_role = origin`)
		skip = err == nil
	}

	// Every copying connection must get one while this one holds the lock: a connection that
	// waits for the pool would keep the others waiting at the commit gate for ever.
	if lms.Config().MaxConns < 2 {
		return Summary{}, errors.New("demo: the pool must allow two connections: one holds the seed lock, one copies")
	}
	cfg.Workers = min(cfg.Workers, int(lms.Config().MaxConns)-1)

	g := newGen(cfg)
	sum := Summary{States: map[string]int{}, Courses: len(g.courses), Modules: len(g.modules), ForeignKeysChecked: !skip, Staff: map[string]string{}}
	for _, u := range g.staff {
		sum.Staff[u.email] = uuidString(u.id)
	}
	w := &writer{pool: lms, skipFKChecks: skip}
	if err := w.catalogue(ctx, g); err != nil {
		return Summary{}, err
	}
	var deferred, deferredMirror []indexDef
	if cfg.BuildIndexesAfter {
		if deferred, err = dropSecondaryIndexes(ctx, conn, lmsSchemaOf(ctx, conn), bulkTables); err != nil {
			return Summary{}, err
		}
		// The indexes come back whatever fails: a failed run has emptied the ledger by then, and
		// building them on empty tables takes no time.
		defer func() {
			if err := buildIndexes(context.WithoutCancel(ctx), lms, deferred); err != nil && retErr == nil {
				retErr = err
			}
		}()
		mirrorConn, err := st.Pool().Acquire(ctx)
		if err != nil {
			return Summary{}, fmt.Errorf("demo: acquire a connection: %w", err)
		}
		deferredMirror, err = dropSecondaryIndexes(ctx, mirrorConn, store.Schema, mirrorTables)
		mirrorConn.Release()
		if err != nil {
			return Summary{}, err
		}
		defer func() {
			if err := buildIndexes(context.WithoutCancel(ctx), st.Pool(), deferredMirror); err != nil && retErr == nil {
				retErr = err
			}
		}()
	}

	// Batches are independent (a student, their completions, rows and events are always in
	// one batch), so several connections copy them at once: PostgreSQL's index upkeep, not Go,
	// is what takes the time. Each connection copies its share in one transaction, and all
	// commit together once every one has copied without error: a failed run then leaves
	// nothing behind, and autovacuum does not rescan the growing tables after every batch.
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *batch, cfg.Workers)
	done := make(chan *batch, cfg.Workers)
	go func() {
		defer close(batches)
		g.run(gctx, cfg.Rows, cfg.BatchRows, batches)
	}()
	c := &commitGate{decided: make(chan struct{})}
	c.copying.Add(cfg.Workers)
	errs := make(chan error, cfg.Workers)
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- w.copyBatches(gctx, batches, done, cancel, c)
		}()
	}
	go func() {
		c.copying.Wait()
		c.commit = gctx.Err() == nil
		close(c.decided)
	}()
	go func() { wg.Wait(); close(done) }()
	for b := range done {
		sum.Students += len(b.students)
		sum.Completions += len(b.completions)
		sum.Rows += len(b.regs)
		sum.Events += b.events
		for _, r := range b.regs {
			sum.States[r.state]++
			sum.AdminActions += len(r.actions)
			if r.dismissal != nil {
				sum.Dismissals++
			}
		}
	}
	// The connection that failed reports why; the others only report that they were stopped.
	var copyErr error
	for range cfg.Workers {
		if err := <-errs; err != nil && (copyErr == nil || errors.Is(copyErr, context.Canceled)) {
			copyErr = err
		}
	}
	if err := ctx.Err(); err != nil {
		copyErr = fmt.Errorf("demo: %w", err) // the caller stopped the run; the rest followed from that
	}
	if copyErr != nil {
		if err := w.undo(context.WithoutCancel(ctx), conn, c.committed.Load() > 0); err != nil {
			return Summary{}, fmt.Errorf("%w (and removing the partial demo failed: %v)", copyErr, err)
		}
		return Summary{}, copyErr
	}
	// The steps below read the ledger through its indexes. Built, they are no longer the
	// deferred rebuild's to do.
	if err := buildIndexes(ctx, lms, deferred); err != nil {
		return sum, err
	}
	deferred = nil
	// Fresh statistics, so the mirror's copy and the dashboard's first queries plan for a full
	// ledger, not an empty one, and a visibility map, so index-only reads are index-only from the
	// start, as on a ledger autovacuum has long since visited.
	if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) users, user_details, verified_student_numbers, roles, courses, course_instances,
  course_modules, course_module_suotar_configurations, course_module_completions, credit_registrations,
  credit_registration_events, credit_registration_admin_actions, credit_registration_attention_dismissals`); err != nil {
		return sum, fmt.Errorf("demo: analyze: %w", err)
	}
	// regdesk's copy of the ledger, with what it derives from each row: what its pages read. The
	// mirror job's own full comparison, so the copy is exactly what the job would have made.
	if _, err := st.LedgerMirrorSweep(ctx); err != nil {
		return sum, fmt.Errorf("demo: fill regdesk's copy of the ledger: %w", err)
	}
	if err := buildIndexes(ctx, st.Pool(), deferredMirror); err != nil {
		return sum, err
	}
	deferredMirror = nil
	if _, err := st.Pool().Exec(ctx, `VACUUM (ANALYZE) ledger_mirror`); err != nil {
		return sum, fmt.Errorf("demo: analyze the ledger's copy: %w", err)
	}
	// The overview's pile chart reads daily snapshots, which a new ledger has none of: derive the
	// days before from the generated history, and count the last day as the server would.
	if _, err := st.AttentionSnapshotBackfill(ctx, cfg.Now, SnapshotBackfillDays); err != nil {
		return sum, fmt.Errorf("demo: %w", err)
	}
	if _, err := st.AttentionSnapshotTake(ctx, cfg.Now); err != nil {
		return sum, fmt.Errorf("demo: %w", err)
	}
	// The support list of course modules counts settled rows by the week, as the server does.
	if _, err := st.CourseWeeksRoll(ctx, cfg.Now); err != nil {
		return sum, fmt.Errorf("demo: %w", err)
	}
	// The overview counts registered rows by the finished day, as the server does.
	if _, err := st.RegisteredDaysRoll(ctx, cfg.Now); err != nil {
		return sum, fmt.Errorf("demo: %w", err)
	}
	return sum, nil
}

// lmsSchemaOf is the schema the LMS's ledger is in, as conn's search path finds it.
func lmsSchemaOf(ctx context.Context, conn *pgxpool.Conn) string {
	var schema string
	if err := conn.QueryRow(ctx, `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = 'credit_registrations'::regclass`).Scan(&schema); err != nil {
		return store.DefaultLMSSchema
	}
	return schema
}

// SnapshotBackfillDays is how many days before its instant a demo ledger gets snapshots of the
// needs-a-person pile for: the overview's 60 days.
const SnapshotBackfillDays = 59

// writer copies batches to the database and remembers what it wrote, so a failed run can take
// it out again.
type writer struct {
	pool         *pgxpool.Pool
	skipFKChecks bool

	mu          sync.Mutex
	users       []pgtype.UUID // students and staff
	completions []pgtype.UUID
	courses     []pgtype.UUID
	instances   []pgtype.UUID
	modules     []pgtype.UUID // intro modules too
	rosterCodes []string
}

// commitGate makes the copying connections commit together: each waits, copied, until all
// have, and commits only if none failed.
type commitGate struct {
	copying   sync.WaitGroup
	decided   chan struct{}
	commit    bool // set before decided closes
	committed atomic.Int32
}

// copyBatches copies batches from in, in one transaction, until in closes or a copy fails; it
// cancels the run on failure, then commits or rolls back as the gate decides.
func (w *writer) copyBatches(ctx context.Context, in <-chan *batch, done chan<- *batch, cancel func(), gate *commitGate) (err error) {
	copying := true
	defer func() {
		if copying {
			gate.copying.Done()
		}
	}()
	fail := func(e error) error {
		cancel()
		for range in { // drain, so the generator can stop
		}
		return e
	}
	conn, err := w.pool.Acquire(ctx)
	if err != nil {
		return fail(fmt.Errorf("demo: acquire a connection: %w", err))
	}
	defer conn.Release()
	if err := registerEnums(ctx, conn.Conn()); err != nil {
		return fail(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fail(fmt.Errorf("demo: begin: %w", err))
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// The LMS's tables have no insert triggers but their foreign keys' checks, which replica mode
	// skips.
	if w.skipFKChecks {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return fail(fmt.Errorf("demo: skip foreign key checks: %w", err))
		}
	}
	for b := range in {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		w.remember(b)
		if err := copyBatch(ctx, tx, b); err != nil {
			return fail(err)
		}
		done <- b
	}
	copying = false
	gate.copying.Done()
	<-gate.decided
	if !gate.commit {
		return nil // another connection failed and reports why
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("demo: commit: %w", err)
	}
	gate.committed.Add(1)
	return nil
}

func (w *writer) remember(b *batch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range b.students {
		w.users = append(w.users, uid(s.id))
	}
	for _, c := range b.completions {
		w.completions = append(w.completions, uid(c.id))
	}
}

// undo takes out what a failed run wrote: the catalogue and the staff, and when a connection had
// committed before another failed to, its batches too. The ledger was empty when the run began,
// and the seed lock kept other seeders out, so its tables are then emptied outright: deleting a
// million rows by key, each checked against the foreign keys that point at it, would take
// longer than the run. The other tables may hold rows of their own, so only the demo's are
// deleted.
func (w *writer) undo(ctx context.Context, conn *pgxpool.Conn, committed bool) error {
	if committed {
		if _, err := conn.Exec(ctx, `TRUNCATE credit_registration_events, credit_registration_attention_dismissals,
  credit_registration_enrolment_check_outcomes, credit_registrations`); err != nil {
			return fmt.Errorf("demo: undo: empty the ledger: %w", err)
		}
	}
	for _, step := range []struct {
		table, key string
		keys       []pgtype.UUID
	}{
		{"credit_registration_admin_actions", "actor_user_id", w.users},
		{"credit_registration_enrolment_routes", "course_module_completion_id", w.completions},
		{"course_module_completions", "id", w.completions},
		{"verified_student_numbers", "user_id", w.users},
		{"roles", "user_id", w.users},
		{"user_details", "user_id", w.users},
		{"users", "id", w.users},
		{"course_module_suotar_configurations", "course_module_id", w.modules},
		{"course_modules", "id", w.modules},
		{"course_instances", "id", w.instances},
		{"courses", "id", w.courses},
	} {
		if len(step.keys) == 0 {
			continue
		}
		if _, err := conn.Exec(ctx, `DELETE FROM `+step.table+` WHERE `+step.key+` = ANY($1)`, step.keys); err != nil {
			return fmt.Errorf("demo: undo: delete from %s: %w", step.table, err)
		}
	}
	if _, err := conn.Exec(ctx, `DELETE FROM credit_registration_roster_schedules WHERE course_code = ANY($1)`, w.rosterCodes); err != nil {
		return fmt.Errorf("demo: undo: delete from credit_registration_roster_schedules: %w", err)
	}
	return nil
}

func registerEnums(ctx context.Context, conn *pgx.Conn) error {
	for _, name := range enumTypes {
		t, err := conn.LoadType(ctx, name)
		if err != nil {
			return fmt.Errorf("demo: load type %s: %w", name, err)
		}
		conn.TypeMap().RegisterType(t)
	}
	return nil
}

// run generates rows ledger rows in batches of about batchRows and sends them on out.
func (g *gen) run(ctx context.Context, rows, batchRows int, out chan<- *batch) {
	plan := g.allocate(rows)
	for i, in := range plan {
		scenarios[in.sc].run(g, time.Unix(0, in.at).UTC())
		if len(g.out.regs) >= batchRows || i == len(plan)-1 {
			b := g.flush()
			select {
			case out <- b:
			case <-ctx.Done():
				return
			}
		}
	}
}

// flush closes the batch: a student never spans two batches, so their account and their link can
// be dated from all their completions.
func (g *gen) flush() *batch {
	b := g.out
	for _, s := range b.students {
		// Accounts are made shortly before the first completion, mostly: the course start.
		s.createdAt = s.earliest.Add(-g.rng.dur(time.Hour, 60*24*time.Hour))
		s.id = g.rng.uuid7(s.createdAt)
		if s.number != "" || s.droppedNumber != "" {
			s.linkID = g.rng.uuid7(s.createdAt)
			if s.linkedAt.IsZero() {
				// Proved before the first completion, as the pipeline needs.
				s.linkedAt = s.createdAt.Add(g.rng.dur(time.Minute, s.earliest.Sub(s.createdAt)-time.Minute))
			}
		}
	}
	for _, r := range b.regs {
		b.events += len(r.events)
	}
	g.out = &batch{}
	g.cur, g.curLeft = nil, 0
	return b
}

// catalogue writes the courses, their default instances, modules and module configurations, and
// the staff, which every batch refers to.
func (w *writer) catalogue(ctx context.Context, g *gen) error {
	for _, c := range g.courses {
		w.courses = append(w.courses, uid(c.id))
		w.instances = append(w.instances, uid(c.instance.id))
		if c.intro != nil {
			w.modules = append(w.modules, uid(c.intro.id))
		}
	}
	for _, m := range g.modules {
		w.modules = append(w.modules, uid(m.id))
	}
	for _, u := range g.staff {
		w.users = append(w.users, uid(u.id))
	}
	for _, r := range g.rosters {
		w.rosterCodes = append(w.rosterCodes, r.code)
	}
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if err := registerEnums(ctx, tx.Conn()); err != nil {
			return err
		}
		return copyCatalogue(ctx, tx, g)
	})
}

// teachers are the courses' teachers in charge (course_instances), by course.
var teachers = [][2]string{
	{"Leena Lehtinen", "leena.lehtinen@helsinki.fi"}, {"Antti Koskinen", "antti.koskinen@helsinki.fi"},
	{"Marja Heikkilä", "marja.heikkila@helsinki.fi"}, {"Jussi Rantanen", "jussi.rantanen@helsinki.fi"},
}

func copyCatalogue(ctx context.Context, tx pgx.Tx, g *gen) error {
	copyRows := func(table string, cols []string, rows [][]any) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("demo: copy %s: %w", table, err)
		}
		return nil
	}
	var rows [][]any
	for _, c := range g.courses {
		rows = append(rows, []any{uid(c.id), c.createdAt, c.createdAt, c.def.name, c.def.slug, uid(g.organization), c.def.lang, uid(c.languageGroup)})
	}
	if err := copyRows("courses", []string{"id", "created_at", "updated_at", "name", "slug", "organization_id", "language_code", "course_language_group_id"}, rows); err != nil {
		return err
	}
	rows = nil
	for i, c := range g.courses {
		t := teachers[i%len(teachers)]
		rows = append(rows, []any{uid(c.instance.id), c.instance.createdAt, c.instance.createdAt, uid(c.id), t[0], t[1]})
	}
	if err := copyRows("course_instances", []string{"id", "created_at", "updated_at", "course_id", "teacher_in_charge_name", "teacher_in_charge_email"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, c := range g.courses {
		if m := c.intro; m != nil {
			// The course's introduction: credit registration off.
			rows = append(rows, []any{uid(m.id), m.createdAt, m.createdAt, uid(c.id), nil, m.order, nil, nil, false, false})
		}
		for _, m := range c.modules {
			var credits any
			if m.def.credits > 0 {
				credits = m.def.credits
			}
			rows = append(rows, []any{uid(m.id), m.createdAt, m.createdAt, uid(c.id), str(m.name), m.order, str(m.def.code), credits, true, true})
		}
	}
	if err := copyRows("course_modules", []string{"id", "created_at", "updated_at", "course_id", "name", "order_number", "uh_course_code",
		"ects_credits", "enable_credit_registration_via_suotar", "register_eligible_new_completions_via_suotar"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, m := range g.modules {
		rows = append(rows, configRow(m))
	}
	if err := copyRows("course_module_suotar_configurations", []string{"id", "created_at", "updated_at", "course_module_id", "config_checked_at",
		"course_code_allowed", "checked_course_code", "config_check_message", "course_code_rejection"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, r := range g.rosters {
		rows = append(rows, []any{uid(r.id), r.createdAt, r.fetchedAt, r.code, r.startedAt, r.fetchedAt, r.durationMS, r.listed,
			r.startedAt, r.startedAt, pgtype.Date{Time: time.Date(r.startedAt.Year(), r.startedAt.Month(), r.startedAt.Day(), 0, 0, 0, 0, time.UTC), Valid: true}, r.fetchesToday})
	}
	if err := copyRows("credit_registration_roster_schedules", []string{"id", "created_at", "updated_at", "course_code", "last_attempted_at",
		"last_fetched_at", "last_fetch_duration_ms", "last_listed_person_count", "last_fetch_started_at", "last_mailing_fetch_started_at",
		"fetch_day", "fetch_day_count"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, u := range g.staff {
		rows = append(rows, []any{uid(u.id), u.createdAt, u.createdAt})
	}
	if err := copyRows("users", []string{"id", "created_at", "updated_at"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, u := range g.staff {
		rows = append(rows, []any{uid(u.id), u.createdAt, u.createdAt, str(u.first), str(u.last), u.email})
	}
	if err := copyRows("user_details", []string{"user_id", "created_at", "updated_at", "first_name", "last_name", "email"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, u := range g.staff {
		// The LMS's credit-registration admin pages are authorized by a live global grant.
		rows = append(rows, []any{uid(u.roleID), u.createdAt, u.createdAt, uid(u.id), "credit_registration_admin", true})
	}
	return copyRows("roles", []string{"id", "created_at", "updated_at", "user_id", "role", "is_global"}, rows)
}

// configRow is a module's course_module_suotar_configurations row as Suotar's daily
// configuration check leaves it: the code accepted, rejected, or no verdict when there is no code
// to ask about.
func configRow(m *module) []any {
	var allowed, checkedCode, message, rejection any
	switch {
	case m.def.code == "":
		message = "The module has no Sisu course code."
	case m.def.codeRejected:
		allowed, checkedCode = false, m.def.code
		rejection = "The course cannot be registered through this API yet."
		message = "Suotar does not accept the course code " + m.def.code + "."
	default:
		allowed, checkedCode = true, m.def.code
		if m.def.credits == 0 {
			message = "The module has no credits set."
		}
	}
	return []any{uid(m.configID), m.createdAt, m.checkedAt, uid(m.id), m.checkedAt, allowed, checkedCode, message, rejection}
}

func copyBatch(ctx context.Context, tx pgx.Tx, b *batch) error {
	for _, c := range []struct {
		table string
		cols  []string
		src   pgx.CopyFromSource
	}{
		{"users", userColumns, &userSource{rows: b.students, i: -1}},
		{"user_details", userDetailsColumns, &userDetailsSource{rows: b.students, i: -1}},
		{"verified_student_numbers", linkColumns, newLinkSource(b.students)},
		{"course_module_completions", completionColumns, &completionSource{rows: b.completions, i: -1}},
		{"credit_registration_enrolment_routes", routeColumns, newRouteSource(b.completions)},
		{"credit_registrations", regColumns, &regSource{rows: b.regs, i: -1}},
		{"credit_registration_events", eventColumns, &eventSource{rows: b.regs, r: -1}},
		{"credit_registration_admin_actions", actionColumns, &actionSource{rows: b.regs, r: -1}},
		{"credit_registration_attention_dismissals", dismissalColumns, newDismissalSource(b.regs)},
	} {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, c.src); err != nil {
			return fmt.Errorf("demo: copy %s: %w", c.table, err)
		}
	}
	return nil
}
