package maintenance_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"regdesk/handaction"
	"regdesk/maintenance"
	"regdesk/store"
	"regdesk/store/storetest"
)

// bulkWorld is a ledger of flagged rows, a person who may act on them, and the LMS's fake.
type bulkWorld struct {
	st     *store.Store
	rows   []string
	actor  store.ActionActor
	now    func() time.Time
	newJob func(t *testing.T) *maintenance.BulkApply
}

func newBulkWorld(t *testing.T, rows int) *bulkWorld {
	t.Helper()
	st := storetest.New(t)
	now := func() time.Time { return storetest.Now() }
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	w := &bulkWorld{st: st, now: now}
	for range rows {
		student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: storetest.NewID() + "@example.invalid"})
		w.rows = append(w.rows, storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: course, State: "failed_permanent",
			ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: now().Add(-3 * time.Hour)}))
	}
	lmsUser := storetest.AddLMSAdmin(t, st, "Sami Support", "support@example.invalid")
	acct, err := st.AccountCreate(context.Background(), store.AccountCreateParams{Name: "Sami Support", Email: "support@example.invalid",
		Role: "support", PasswordHash: "x", LMSUserID: lmsUser})
	if err != nil {
		t.Fatal(err)
	}
	w.actor = store.ActionActor{ID: acct.ID, Role: "support", LMSUserID: lmsUser}
	_, client := storetest.FakeLMS(t, st, now)
	w.newJob = func(t *testing.T) *maintenance.BulkApply {
		return &maintenance.BulkApply{Store: st, Actions: &handaction.Service{Store: st, LMS: client, Now: now}, Now: now,
			Log: slog.New(slog.DiscardHandler)}
	}
	return w
}

// queue queues a clear_flag of ids at at, as a request does, and returns the job's id.
func (w *bulkWorld) queue(t *testing.T, at time.Time, ids ...string) string {
	t.Helper()
	var rows []store.BulkRow
	for _, id := range ids {
		reg, err := w.st.RegistrationGet(context.Background(), w.now(), id, store.AllCourses())
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, store.BulkRow{ID: id, Version: reg.Version})
	}
	job := storetest.NewID()
	p := store.BulkApplyParams{Scope: store.AllCourses(), Action: "clear_flag", Rows: rows, Reason: "Config fixed", Actor: w.actor}
	if err := w.st.BulkJobCreate(context.Background(), job, p, at); err != nil {
		t.Fatal(err)
	}
	return job
}

func (w *bulkWorld) job(t *testing.T, id string) store.BulkJob {
	t.Helper()
	j, err := w.st.BulkJobGet(context.Background(), id, w.actor.ID)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// Two instances working the same queue at once run every job exactly once: each job is claimed
// from its row with SKIP LOCKED, so neither waits for the other and neither takes the other's.
// A job run twice would ask the LMS again and record a second attempt.
func TestBulkApplyOnTwoInstancesRunsEveryJobOnce(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t, 8)
	var jobs []string
	for i := 0; i < len(w.rows); i += 2 {
		jobs = append(jobs, w.queue(t, w.now(), w.rows[i], w.rows[i+1]))
	}
	a, b := w.newJob(t), w.newJob(t)
	var ran [2]int
	var wg sync.WaitGroup
	for i, inst := range []*maintenance.BulkApply{a, b} {
		wg.Go(func() {
			n, err := inst.RunQueued(context.Background())
			if err != nil {
				t.Error(err)
			}
			ran[i] = n
		})
	}
	wg.Wait()
	if ran[0]+ran[1] != len(jobs) {
		t.Errorf("the two instances ran %d and %d jobs, want %d in all", ran[0], ran[1], len(jobs))
	}
	for _, id := range jobs {
		j := w.job(t, id)
		if j.Outcome != store.BulkJobApplied || j.Result == nil || j.Result.Applied != 2 {
			t.Errorf("job %s: outcome %q, result %+v; want applied to its 2 rows", id, j.Outcome, j.Result)
		}
	}
	var attempts int
	if err := w.st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM actions WHERE action = 'clear_flag'`).Scan(&attempts); err != nil {
		t.Fatal(err)
	}
	if attempts != len(jobs) {
		t.Errorf("%d bulk attempts recorded for %d jobs: a job ran twice or not at all", attempts, len(jobs))
	}
	if n, err := a.RunQueued(context.Background()); err != nil || n != 0 {
		t.Errorf("a round after the queue emptied ran %d jobs (%v)", n, err)
	}
}

// A job whose instance stopped while it ran (claimed, its heartbeat long past) is ended as
// interrupted by the next instance's round, never run again: the LMS may already have acted on
// its rows. A job nobody claimed yet is run.
func TestBulkApplyEndsAJobCutShortAndRunsAWaitingOne(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t, 2)
	ctx := context.Background()
	stopped := w.now().Add(-time.Hour)
	cut := w.queue(t, stopped, w.rows[0])
	if _, ok, err := w.st.BulkJobClaim(ctx, stopped); err != nil || !ok {
		t.Fatalf("claim as the stopped instance: %v, %v", ok, err)
	}
	waiting := w.queue(t, w.now(), w.rows[1])
	n, err := w.newJob(t).RunQueued(ctx)
	if err != nil || n != 1 {
		t.Fatalf("the round ran %d jobs (%v), want the waiting one", n, err)
	}
	if j := w.job(t, cut); j.Outcome != store.BulkJobInterrupted {
		t.Errorf("the job cut short ended %q, want interrupted", j.Outcome)
	}
	if j := w.job(t, waiting); j.Outcome != store.BulkJobApplied {
		t.Errorf("the waiting job ended %q, want applied", j.Outcome)
	}
	reg, err := w.st.RegistrationGet(ctx, w.now(), w.rows[0], store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if !reg.NeedsAdminAttention {
		t.Error("the job cut short was run again: its row's flag was cleared")
	}
}
