package store_test

import (
	"context"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

func TestRegistrationCountCappedStopsAtTheCap(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	for range 4 {
		b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed"})
	}
	b.addRow(t, storetest.Registration{State: "registered"})
	ctx := context.Background()
	f := store.RegistrationFilter{Scope: store.AllCourses(), States: []schedule.State{schedule.StateFailedPermanent}}
	for _, tc := range []struct{ limit, want int }{{10, 4}, {4, 4}, {3, 3}} {
		n, err := b.st.RegistrationCountCapped(ctx, actionNow, f, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("count capped at %d = %d, want %d", tc.limit, n, tc.want)
		}
	}
	// A name search counts through the matching students collected first, folded as the list
	// folds them: the same rows as the list, capped alike.
	storetest.SyncMirror(t, b.st)
	for _, q := range []string{"VIRTÄNEN", "aino virtanen", "nobody"} {
		byName := store.RegistrationFilter{Scope: store.AllCourses(), States: f.States, Search: q}
		list, _, err := b.st.RegistrationList(ctx, actionNow, byName, nil, 50)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{10, 2} {
			n, err := b.st.RegistrationCountCapped(ctx, actionNow, byName, limit)
			if want := min(len(list), limit); err != nil || n != want {
				t.Errorf("count of %q capped at %d = %d, %v; the list has %d", q, limit, n, err, len(list))
			}
		}
		if q != "nobody" && len(list) != 4 {
			t.Errorf("%q lists %d rows, want the 4 failed ones", q, len(list))
		}
	}
	other := storetest.AddCourse(t, b.st, storetest.Course{Name: "Other", Code: "TKT1"})
	f.Scope = store.CoursesOnly([]string{other.ID})
	if n, err := b.st.RegistrationCountCapped(ctx, actionNow, f, 10); err != nil || n != 0 {
		t.Errorf("count outside the scope = %d, %v; want 0", n, err)
	}
}

func TestRegistrationListByIDs(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	first := b.addRow(t, storetest.Registration{State: "failed_permanent"})
	second := b.addRow(t, storetest.Registration{State: "cancelled", StateChangedAt: actionNow.Add(-2 * time.Hour)})
	other := storetest.AddCourse(t, b.st, storetest.Course{Name: "Other", Code: "TKT1"})
	elsewhere := storetest.AddRegistration(t, b.st, storetest.Registration{Student: b.student, Course: other, State: "pending"})
	ctx := context.Background()

	rows, err := b.st.RegistrationListByIDs(ctx, storetest.Now(), []string{second, first, elsewhere, "junk", storetest.NewID()}, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("got %d rows, want the 3 that exist", len(rows))
	}
	rows, err = b.st.RegistrationListByIDs(ctx, storetest.Now(), []string{first, elsewhere}, store.CoursesOnly([]string{b.course.ID}))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != first || rows[0].CourseName != "Ohjelmoinnin perusteet" {
		t.Errorf("scoped rows = %+v, want only the row on the course in scope", rows)
	}
	if rows, err := b.st.RegistrationListByIDs(ctx, storetest.Now(), []string{"junk"}, store.AllCourses()); err != nil || rows != nil {
		t.Errorf("only junk ids = %v, %v; want nothing", rows, err)
	}
}
