package store_test

import (
	"context"
	"testing"
	"time"

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
	sami, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "Sami Support", Email: "sami@example.invalid", Role: store.AccountRoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	aino, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "Aino Admin", Email: "aino@example.invalid", Role: store.AccountRoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	job := func(owner string, at time.Time, total int) string {
		id := storetest.NewID()
		if err := st.BulkJobCreate(ctx, store.BulkJob{ID: id, OwnerID: owner, Action: schedule.ActionCheckNow, Reason: "Suotar is back", Total: total, StartedAt: at}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	old := job(sami.ID, now.Add(-3*time.Hour), 90)
	failed := job(aino.ID, now.Add(-2*time.Hour), 200)
	applied := job(sami.ID, now.Add(-time.Hour), 120)
	running := job(aino.ID, now.Add(-time.Minute), 400)
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
