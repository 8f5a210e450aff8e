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

	"regdesk/schedule"
	"regdesk/store"
)

// The enums COPY must know: its binary format needs each type registered on the connection.
var enumTypes = []string{
	"credit_registration_state", "credit_registration_error_code", "credit_registration_enrolment_kind",
	"enrolment_check_group", "credit_registration_event_kind", "suotar_endpoint", "suotar_answer",
}

func write(ctx context.Context, st *store.Store, cfg Config) (_ Summary, retErr error) {
	pool := st.Pool()
	conn, err := pool.Acquire(ctx)
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
	var hasRows bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM credit_registrations)`).Scan(&hasRows); err != nil {
		return Summary{}, fmt.Errorf("demo: check the ledger is empty: %w", err)
	}
	if hasRows {
		if cfg.IfEmpty {
			return Summary{Skipped: true}, nil
		}
		return Summary{}, fmt.Errorf("demo: %w", ErrNotEmpty)
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
	if pool.Config().MaxConns < 2 {
		return Summary{}, errors.New("demo: the pool must allow two connections: one holds the seed lock, one copies")
	}
	cfg.Workers = min(cfg.Workers, int(pool.Config().MaxConns)-1)

	g := newGen(cfg)
	sum := Summary{States: map[string]int{}, Courses: len(g.courses), Modules: len(g.modules), ForeignKeysChecked: !skip}
	w := &writer{pool: pool, skipFKChecks: skip}
	if err := w.catalogue(ctx, g); err != nil {
		return Summary{}, err
	}
	var deferred []indexDef
	if cfg.BuildIndexesAfter {
		if deferred, err = dropSecondaryIndexes(ctx, conn); err != nil {
			return Summary{}, err
		}
		// The indexes come back whatever fails: a failed run has emptied the ledger by then, and
		// building them on empty tables takes no time.
		defer func() {
			if err := buildIndexes(context.WithoutCancel(ctx), pool, deferred); err != nil && retErr == nil {
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
	// COPY gave every row but the pending ones its student_rank; a pending row's reads its
	// completion, student and module, which the insert trigger looks up unless replica mode
	// skipped it. Set those few per cent here, still without touching updated_at.
	if skip {
		if err := pendingRanks(ctx, conn); err != nil {
			return sum, err
		}
	}
	// The steps below read the ledger through its indexes. Built, they are no longer the
	// deferred rebuild's to do.
	if err := buildIndexes(ctx, pool, deferred); err != nil {
		return sum, err
	}
	deferred = nil
	// Fresh statistics, so the dashboard's first queries plan for a full ledger, not an empty one,
	// and a visibility map, so its index-only reads are index-only from the start, as on a ledger
	// autovacuum has long since visited.
	if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) students, courses, course_instances, course_modules, course_module_completions, credit_registrations, credit_registration_events`); err != nil {
		return sum, fmt.Errorf("demo: analyze: %w", err)
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

// pendingRanks sets the student_rank of the pending rows COPY left without one.
func pendingRanks(ctx context.Context, conn *pgxpool.Conn) error {
	return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return fmt.Errorf("demo: pending ranks: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE credit_registrations cr
SET student_rank = credit_registration_pending_rank(cr.course_module_completion_id, cr.user_id, cr.course_module_id)
WHERE cr.state = 'pending' AND cr.student_rank IS NULL`); err != nil {
			return fmt.Errorf("demo: pending ranks: %w", err)
		}
		return nil
	})
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
	students    []pgtype.UUID
	completions []pgtype.UUID
	courses     []pgtype.UUID
	instances   []pgtype.UUID
	modules     []pgtype.UUID
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
	for b := range in {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		w.remember(b)
		if err := copyBatch(ctx, tx, b, w.skipFKChecks); err != nil {
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
		w.students = append(w.students, uid(s.id))
	}
	for _, c := range b.completions {
		w.completions = append(w.completions, uid(c.id))
	}
}

// undo takes out what a failed run wrote: the catalogue, and when a connection had committed
// before another failed to, its batches too. The ledger was empty when the run began, and the
// seed lock kept other seeders out, so its tables are then emptied outright: deleting a
// million rows by key, each checked against the foreign keys that point at it, would take
// longer than the run. The other tables may hold rows of their own, so only the demo's are
// deleted.
func (w *writer) undo(ctx context.Context, conn *pgxpool.Conn, committed bool) error {
	if committed {
		if _, err := conn.Exec(ctx, `TRUNCATE credit_registration_events, credit_registrations, credit_registration_attention_dismissals`); err != nil {
			return fmt.Errorf("demo: undo: empty the ledger: %w", err)
		}
	}
	for _, step := range []struct {
		table string
		keys  []pgtype.UUID
	}{
		{"course_module_completions", w.completions}, {"students", w.students},
		{"course_modules", w.modules}, {"course_instances", w.instances}, {"courses", w.courses},
	} {
		if len(step.keys) == 0 {
			continue
		}
		if _, err := conn.Exec(ctx, `DELETE FROM `+step.table+` WHERE id = ANY($1)`, step.keys); err != nil {
			return fmt.Errorf("demo: undo: delete from %s: %w", step.table, err)
		}
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

// flush closes the batch: a student never spans two batches, so their created_at can be set
// from all their completions.
func (g *gen) flush() *batch {
	b := g.out
	for _, s := range b.students {
		// Accounts are made shortly before the first completion, mostly: the course start.
		s.createdAt = s.earliest.Add(-g.rng.dur(time.Hour, 60*24*time.Hour))
		s.id = g.rng.uuid7(s.createdAt)
		if s.updatedAt.Before(s.createdAt) {
			s.updatedAt = s.createdAt
		}
	}
	for _, r := range b.regs {
		b.events += len(r.events)
	}
	g.out = &batch{}
	g.cur, g.curLeft = nil, 0
	return b
}

// catalogue writes the courses, their instances and modules, which every batch refers to.
func (w *writer) catalogue(ctx context.Context, g *gen) error {
	for _, c := range g.courses {
		w.courses = append(w.courses, uid(c.id))
		for _, in := range c.instances {
			w.instances = append(w.instances, uid(in.id))
		}
	}
	for _, m := range g.modules {
		w.modules = append(w.modules, uid(m.id))
	}
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error { return copyCatalogue(ctx, tx, g) })
}

func copyCatalogue(ctx context.Context, tx pgx.Tx, g *gen) error {
	var rows [][]any
	for _, c := range g.courses {
		rows = append(rows, []any{uid(c.id), c.createdAt, c.createdAt, c.def.name, c.def.slug})
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"courses"}, []string{"id", "created_at", "updated_at", "name", "slug"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("demo: copy courses: %w", err)
	}
	rows = rows[:0]
	for _, c := range g.courses {
		for _, in := range c.instances {
			rows = append(rows, []any{uid(in.id), in.createdAt, uid(c.id), in.name})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"course_instances"}, []string{"id", "created_at", "course_id", "name"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("demo: copy course_instances: %w", err)
	}
	rows = rows[:0]
	for _, m := range g.modules {
		var credits any
		if m.def.credits > 0 {
			credits = m.def.credits
		}
		rows = append(rows, []any{uid(m.id), m.createdAt, m.createdAt, uid(m.course.id), m.def.name, m.order, str(m.def.code), credits, true})
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"course_modules"}, []string{"id", "created_at", "updated_at", "course_id", "name", "order_number", "uh_course_code", "ects_credits", "enable_credit_registration_via_suotar"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("demo: copy course_modules: %w", err)
	}
	return nil
}

func copyBatch(ctx context.Context, tx pgx.Tx, b *batch, skipFKChecks bool) error {
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"students"}, studentColumns, &studentSource{rows: b.students, i: -1}); err != nil {
		return fmt.Errorf("demo: copy students: %w", err)
	}
	// The students' insert trigger must run (it keeps search_text); the tables below have no
	// insert triggers but their foreign keys, which replica mode skips.
	if skipFKChecks {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return fmt.Errorf("demo: skip foreign key checks: %w", err)
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"course_module_completions"}, completionColumns, &completionSource{rows: b.completions, i: -1}); err != nil {
		return fmt.Errorf("demo: copy course_module_completions: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"credit_registrations"}, regColumns, &regSource{rows: b.regs, i: -1}); err != nil {
		return fmt.Errorf("demo: copy credit_registrations: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"credit_registration_events"}, eventColumns, &eventSource{rows: b.regs, r: -1}); err != nil {
		return fmt.Errorf("demo: copy credit_registration_events: %w", err)
	}
	if skipFKChecks { // the next batch's students need their trigger again
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = origin`); err != nil {
			return fmt.Errorf("demo: restore triggers: %w", err)
		}
	}
	return nil
}

// The sources below hand pgx pointers to fields they reuse for every row: a pointer fits in an
// interface without an allocation, where a time or a UUID would be copied to the heap. pgx
// encodes a row's values before it asks for the next row, so the reuse is safe. An invalid
// (zero) value is SQL NULL.

func uid(u [16]byte) pgtype.UUID { return pgtype.UUID{Bytes: u, Valid: true} }

func setUUID(dst *pgtype.UUID, u [16]byte) *pgtype.UUID {
	*dst = pgtype.UUID{Bytes: u, Valid: true}
	return dst
}

func setUUIDOf(dst *pgtype.UUID, r *reg) *pgtype.UUID {
	if r == nil {
		*dst = pgtype.UUID{}
		return dst
	}
	return setUUID(dst, r.id)
}

func setTime(dst *pgtype.Timestamptz, t time.Time) *pgtype.Timestamptz {
	*dst = pgtype.Timestamptz{Time: t, Valid: !t.IsZero()}
	return dst
}

func setText(dst *pgtype.Text, s string) *pgtype.Text {
	*dst = pgtype.Text{String: s, Valid: s != ""}
	return dst
}

func setInt(dst *pgtype.Int4, n int32, valid bool) *pgtype.Int4 {
	*dst = pgtype.Int4{Int32: n, Valid: valid}
	return dst
}

func str(s string) any {
	if s == "" {
		return nil
	}
	return s
}

var studentColumns = []string{"id", "created_at", "updated_at", "first_name", "last_name", "email", "student_number"}

type studentSource struct {
	rows                       []*student
	i                          int
	vals                       [7]any
	id                         pgtype.UUID
	created, updated           pgtype.Timestamptz
	first, last, email, number pgtype.Text
}

func (s *studentSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *studentSource) Err() error { return nil }
func (s *studentSource) Values() ([]any, error) {
	x := s.rows[s.i]
	s.vals = [7]any{
		setUUID(&s.id, x.id), setTime(&s.created, x.createdAt), setTime(&s.updated, x.updatedAt),
		setText(&s.first, x.first), setText(&s.last, x.last), setText(&s.email, x.email), setText(&s.number, x.number),
	}
	return s.vals[:], nil
}

var completionColumns = []string{
	"id", "created_at", "updated_at", "deleted_at", "user_id", "course_id", "course_module_id", "course_instance_id",
	"completion_date", "grade", "passed", "eligible_for_ects", "prerequisite_modules_completed", "needs_to_be_reviewed",
	"register_credits_via_suotar",
}

type completionSource struct {
	rows                               []*completion
	i                                  int
	vals                               [15]any
	id, user, course, module, instance pgtype.UUID
	created, updated, deleted, done    pgtype.Timestamptz
	grade                              pgtype.Int4
}

func (s *completionSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *completionSource) Err() error { return nil }
func (s *completionSource) Values() ([]any, error) {
	c := s.rows[s.i]
	s.vals = [15]any{
		setUUID(&s.id, c.id), setTime(&s.created, c.createdAt), setTime(&s.updated, c.updatedAt), setTime(&s.deleted, c.deletedAt),
		setUUID(&s.user, c.student.id), setUUID(&s.course, c.module.course.id), setUUID(&s.module, c.module.id), setUUID(&s.instance, c.instance.id),
		setTime(&s.done, c.completionDate), setInt(&s.grade, c.grade, c.grade > 0), true, c.eligible, c.prereqs, c.needsReview, true,
	}
	return s.vals[:], nil
}

var regColumns = []string{
	"id", "created_at", "updated_at", "version",
	"course_module_completion_id", "user_id", "course_id", "course_module_id", "course_instance_id",
	"attempt_number", "superseded_by_id", "superseded_at", "pending_superseded_by_id",
	"state", "state_entered_at", "state_changed_at", "phase_started_at", "error_code", "error_message",
	"needs_admin_attention", "next_attempt_at", "first_failed_at", "last_attempt_at",
	"submit_retry_count", "verify_attempt_count", "not_registered_reimport_count", "terminal_at",
	"submitted_at", "registered_at", "enrolment_checked_at", "partially_registered_at", "resubmit_not_before",
	"no_usable_enrolment_since",
	"student_number", "sisu_person_id", "uh_course_code", "selected_enrolment_id", "selected_enrolment_kind",
	"selected_enrolment_realisation_id", "selected_enrolment_realisation_name", "attainment_language",
	"grade_scale_id", "grade_id", "credits", "attained_at",
	"submitted_attainment_id", "submitted_attainment_type", "sisu_attainment_id", "sisu_attainment_type", "student_rank",
	"enrolment_check_group", "enrolment_check_step", "enrolment_check_due_at", "enrolment_checks_stopped_at",
}

// regSource streams a batch's ledger rows; its fields are the scratch values of one row.
type regSource struct {
	rows []*reg
	i    int
	vals [54]any

	id, completion, user, course, module, instance, supersededBy, pendingBy pgtype.UUID

	created, updated, supersededAt, entered, changed, phaseStarted, next, firstFailed, lastAttempt,
	terminal, submitted, registered, checked, partial, notBefore, noEnrolmentSince, attained,
	dueAt, stoppedAt pgtype.Timestamptz

	state, code, message, number, person, courseCode, enrolment, kind, realisation, lang, scale,
	grade, submittedID, submittedType, sisuID, sisuType, group pgtype.Text

	attempt, retries, polls, reimports, step pgtype.Int4
	credits                                  pgtype.Float4
	rank                                     pgtype.Int2
}

func (s *regSource) Next() bool { s.i++; return s.i < len(s.rows) }
func (s *regSource) Err() error { return nil }
func (s *regSource) Values() ([]any, error) {
	r := s.rows[s.i]
	c := r.c
	frozen := func(v string) string {
		if !r.frozen {
			return ""
		}
		return v
	}
	var name any
	if r.frozen {
		name = r.realisation.nameJSON
	}
	realisationID := ""
	if r.frozen {
		realisationID = r.realisation.id
	}
	submittedType := ""
	if r.submittedAttainmentID != "" {
		submittedType = "AssessmentItemAttainment"
	}
	attainedAt := time.Time{}
	if r.frozen {
		attainedAt = r.attainedAt
	}
	s.credits = pgtype.Float4{Float32: r.credits, Valid: r.frozen}
	hasGroup := r.ecGroup != ""
	rank, ranked := store.StudentRankOfState(schedule.State(r.state), frozen(r.enrolmentID) != "", r.submittedAttainmentID != "")
	s.rank = pgtype.Int2{Int16: rank, Valid: ranked}
	s.vals = [54]any{
		setUUID(&s.id, r.id), setTime(&s.created, r.createdAt), setTime(&s.updated, r.updatedAt), int64(1),
		setUUID(&s.completion, c.id), setUUID(&s.user, c.student.id), setUUID(&s.course, c.module.course.id), setUUID(&s.module, c.module.id), setUUID(&s.instance, c.instance.id),
		setInt(&s.attempt, r.attempt, true), setUUIDOf(&s.supersededBy, r.supersededBy), setTime(&s.supersededAt, r.supersededAt), setUUIDOf(&s.pendingBy, r.pendingSupBy),
		setText(&s.state, r.state), setTime(&s.entered, r.stateEnteredAt), setTime(&s.changed, r.stateChangedAt), setTime(&s.phaseStarted, r.phaseStartedAt),
		setText(&s.code, r.errorCode), setText(&s.message, r.errorMessage),
		r.needsAdmin, setTime(&s.next, r.nextAttemptAt), setTime(&s.firstFailed, r.firstFailedAt), setTime(&s.lastAttempt, r.lastAttemptAt),
		setInt(&s.retries, r.submitRetries, true), setInt(&s.polls, r.verifyAttempts, true), setInt(&s.reimports, r.reimports, true), setTime(&s.terminal, r.terminalAt),
		setTime(&s.submitted, r.submittedAt), setTime(&s.registered, r.registeredAt), setTime(&s.checked, r.enrolmentCheckedAt), setTime(&s.partial, r.partiallyRegisteredAt), setTime(&s.notBefore, r.resubmitNotBefore),
		setTime(&s.noEnrolmentSince, r.noUsableEnrolmentSince),
		setText(&s.number, frozen(r.studentNumber)), setText(&s.person, frozen(r.personID)), setText(&s.courseCode, frozen(r.courseCode)), setText(&s.enrolment, frozen(r.enrolmentID)), setText(&s.kind, frozen(r.kind)),
		setText(&s.realisation, realisationID), name, setText(&s.lang, frozen(r.lang)),
		setText(&s.scale, frozen(r.gradeScale)), setText(&s.grade, frozen(r.gradeID)), &s.credits, setTime(&s.attained, attainedAt),
		setText(&s.submittedID, r.submittedAttainmentID), setText(&s.submittedType, submittedType), setText(&s.sisuID, r.sisuAttainmentID), setText(&s.sisuType, r.sisuAttainmentType), &s.rank,
		setText(&s.group, r.ecGroup), setInt(&s.step, r.ecStep, hasGroup), setTime(&s.dueAt, r.ecDueAt), setTime(&s.stoppedAt, r.ecStoppedAt),
	}
	return s.vals[:], nil
}

var eventColumns = []string{
	"id", "created_at", "credit_registration_id", "kind", "from_state", "to_state", "error_code", "message",
	"details", "request_item_id", "suotar_endpoint", "suotar_requested_at", "suotar_answered_at", "suotar_answer",
}

// eventSource streams the events of a batch's rows, row by row; its fields are the scratch
// values of one event.
type eventSource struct {
	rows []*reg
	r, e int
	vals [14]any

	id, reg                                         pgtype.UUID
	at, requested, answered                         pgtype.Timestamptz
	kind, from, to, code, message, endpoint, answer pgtype.Text
}

func (s *eventSource) Next() bool {
	if s.r >= 0 && s.e+1 < len(s.rows[s.r].events) {
		s.e++
		return true
	}
	for {
		s.r++
		if s.r >= len(s.rows) {
			return false
		}
		if len(s.rows[s.r].events) > 0 {
			s.e = 0
			return true
		}
	}
}

func (s *eventSource) Err() error { return nil }

func (s *eventSource) Values() ([]any, error) {
	r := s.rows[s.r]
	e := &r.events[s.e]
	var details, item any
	if e.details != nil {
		details = e.details
	}
	if e.itemID != nil {
		item = e.itemID
	}
	s.vals = [14]any{
		setUUID(&s.id, e.id), setTime(&s.at, e.at), setUUID(&s.reg, r.id), setText(&s.kind, e.kind),
		setText(&s.from, e.from), setText(&s.to, e.to), setText(&s.code, e.errorCode), setText(&s.message, e.message),
		details, item, setText(&s.endpoint, e.endpoint), setTime(&s.requested, e.requestedAt), setTime(&s.answered, e.answeredAt),
		setText(&s.answer, e.answer),
	}
	return s.vals[:], nil
}
