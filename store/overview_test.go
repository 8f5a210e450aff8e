package store_test

import (
	"sync"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store/storetest"
)

// Two instances taking the day's snapshot at once write it once, with the queue's numbers; the
// demo's backfill fills the days before and leaves a counted day alone.
func TestAttentionSnapshotOncePerDay(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := t.Context()
	now := storetest.Now()
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	anna := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: "anna@example.invalid", StudentNumber: "014979622"})
	storetest.AddRegistration(t, st, storetest.Registration{Student: anna, Course: course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: now.Add(-3 * 24 * time.Hour)})
	storetest.AddRegistration(t, st, storetest.Registration{Student: anna, Course: course, State: "submission_uncertain",
		SubmittedAt: new(now.Add(-30 * time.Hour)), StateChangedAt: now.Add(-30 * time.Hour)})

	var wg sync.WaitGroup
	wrote := make([]bool, 4)
	for i := range wrote {
		wg.Go(func() {
			w, err := st.AttentionSnapshotTake(ctx, now)
			if err != nil {
				t.Error(err)
			}
			wrote[i] = w
		})
	}
	wg.Wait()
	n := 0
	for _, w := range wrote {
		if w {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d of 4 concurrent takes wrote the day's snapshot, want 1", n)
	}
	counts, err := st.RegistrationCountsGet(ctx, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := st.AttentionSnapshotBackfill(ctx, now, 5)
	if err != nil || back != 5 {
		t.Fatalf("backfill wrote %d days (%v), want 5", back, err)
	}
	today := schedule.HelsinkiDate(now)
	list, err := st.AttentionSnapshotList(ctx, today.AddDays(-10))
	if err != nil || len(list) != 6 {
		t.Fatalf("snapshots = %d (%v), want 6", len(list), err)
	}
	last := list[5]
	if last.Day != today || last.Backfilled || last.NeedsAdmin != counts.NeedsAdmin || last.NeedsAdmin != 2 ||
		last.Reasons[schedule.ReasonPermanentError] != 1 || last.Reasons[schedule.ReasonUncertainOverdue] != 1 {
		t.Errorf("today's snapshot = %+v, want the queue's %+v", last, counts)
	}
	// Derived from the rows' history: the failed row, failed three days ago, is on the pile from
	// then; the uncertain row entered its state 30 hours ago.
	if first := list[0]; !first.Backfilled || first.NeedsAdmin != 0 || first.Day != today.AddDays(-5) {
		t.Errorf("five days ago = %+v, want nothing yet", first)
	}
	if d := list[4]; d.NeedsAdmin < 1 || d.Reasons[schedule.ReasonPermanentError] != 1 {
		t.Errorf("yesterday = %+v, want the failed row", d)
	}
	if again, _ := st.AttentionSnapshotBackfill(ctx, now, 5); again != 0 {
		t.Errorf("a second backfill wrote %d days", again)
	}
}
