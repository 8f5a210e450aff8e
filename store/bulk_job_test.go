package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// TestBulkJobListShowsEveryonesJobsNewestFirst: the list of background bulk applies names who
// started each, says how each ended (running, applied with how many rows changed, failed), and
// keeps only what BulkJobCreate keeps.
func TestBulkJobListShowsEveryonesJobsNewestFirst(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	now := storetest.Now()
	sami := bulkJobOwner(t, st, "Sami Support", store.AccountRoleSupport)
	aino := bulkJobOwner(t, st, "Aino Admin", store.AccountRoleAdmin)
	job := func(owner string, at time.Time, total int) string { return queueBulkJob(t, st, owner, at, total) }
	old := job(sami, now.Add(-3*time.Hour), 90)
	failed := job(aino, now.Add(-2*time.Hour), 200)
	applied := job(sami, now.Add(-time.Hour), 120)
	running := job(aino, now.Add(-time.Minute), 400)
	if err := st.BulkJobFail(ctx, failed, now.Add(-2*time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE bulk_jobs SET outcome = 'applied', ended_at = started_at + interval '1 minute', done = total,
  result = '{"AuditID": "x", "Applied": 117, "Rows": []}' WHERE id = $1`, applied); err != nil {
		t.Fatal(err)
	}
	if err := st.BulkJobBeat(ctx, running, 150, now); err != nil {
		t.Fatal(err)
	}

	list, err := st.BulkJobList(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != running || list[1].ID != applied || list[2].ID != failed {
		t.Fatalf("list = %+v, want the three newest, newest first (not %s)", list, old)
	}
	if r := list[0]; r.OwnerName != "Aino Admin" || r.Outcome != "" || r.Done != 150 || r.Total != 400 || r.Applied != nil {
		t.Errorf("running job = %+v", r)
	}
	if r := list[1]; r.OwnerName != "Sami Support" || r.Outcome != store.BulkJobApplied || r.Applied == nil || *r.Applied != 117 || r.EndedAt == nil {
		t.Errorf("applied job = %+v", r)
	}
	if r := list[2]; r.Outcome != store.BulkJobFailed || r.Applied != nil || r.Reason != "Suotar is back" || r.Action != schedule.ActionCheckNow {
		t.Errorf("failed job = %+v", r)
	}
}

// TestBulkJobClaimSkipsAJobBeingClaimed: while one instance holds a job's row (claiming it), a
// second instance's claim takes the next job at once instead of waiting for the first and then
// taking the same job again; and a job that was claimed is never claimed again.
func TestBulkJobClaimSkipsAJobBeingClaimed(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	now := storetest.Now()
	sami := bulkJobOwner(t, st, "Sami Support", store.AccountRoleSupport)
	var jobs []string
	for i := range 2 {
		jobs = append(jobs, queueBulkJob(t, st, sami, now.Add(time.Duration(i)*time.Second), 3))
	}
	// The first instance, mid-claim of the oldest job.
	first, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	if _, err := first.Exec(ctx, `UPDATE bulk_jobs SET claimed_at = $2 WHERE id = $1`, jobs[0], now); err != nil {
		t.Fatal(err)
	}
	type claim struct {
		p   store.BulkApplyParams
		ok  bool
		err error
	}
	second := make(chan claim, 1)
	go func() {
		p, ok, err := st.BulkJobClaim(ctx, now.Add(2*time.Second))
		second <- claim{p, ok, err}
	}()
	var got claim
	select {
	case got = <-second:
	case <-time.After(3 * time.Second):
		// Waiting on the first's row: let it claim, and see what the second then takes.
		if err := first.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		got = <-second
		t.Error("the second claim waited for the first instance's job instead of skipping it")
	}
	if got.err != nil || !got.ok || got.p.JobID != jobs[1] {
		t.Fatalf("the second claim took %q (%v, %v), want the next job %s", got.p.JobID, got.ok, got.err, jobs[1])
	}
	if err := first.Commit(ctx); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		t.Fatal(err)
	}
	if p, ok, err := st.BulkJobClaim(ctx, now.Add(3*time.Second)); err != nil || ok {
		t.Errorf("a third claim took %q (%v, %v), want none: both jobs are claimed", p.JobID, ok, err)
	}
}

// bulkJobOwner adds an account who starts bulk jobs and returns its id.
func bulkJobOwner(t *testing.T, st *store.Store, name, role string) string {
	t.Helper()
	email := strings.ToLower(strings.Fields(name)[0]) + "@example.invalid"
	a, err := st.AccountCreate(context.Background(), store.AccountCreateParams{Name: name, Email: email, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// queueBulkJob queues a Check now of rows rows by owner at at, and returns the job's id.
func queueBulkJob(t *testing.T, st *store.Store, owner string, at time.Time, rows int) string {
	t.Helper()
	id := storetest.NewID()
	p := store.BulkApplyParams{Scope: store.AllCourses(), Action: schedule.ActionCheckNow, Reason: "Suotar is back", Rows: make([]store.BulkRow, rows),
		Actor: store.ActionActor{ID: owner}}
	if err := st.BulkJobCreate(context.Background(), id, p, at); err != nil {
		t.Fatal(err)
	}
	return id
}
