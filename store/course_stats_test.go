package store_test

import (
	"sync"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// The support list's numbers, made of weekly counts and the rows since, equal a plain count of
// the ledger before and after the weeks are counted, and counting the weeks twice at once counts
// each once.
func TestCourseModuleStatsEqualAPlainCount(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := t.Context()
	now := storetest.Now()
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	other := storetest.AddCourse(t, st, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	anna := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: "anna@example.invalid", StudentNumber: "014979622"})
	week := store.HelsinkiWeekStart(now)
	reg := func(c storetest.Course, state string, at time.Time, code string) string {
		return storetest.AddRegistration(t, st, storetest.Registration{Student: anna, Course: c, State: state, ErrorCode: code,
			StateChangedAt: at, SubmittedAt: ptrTime(at.Add(-6 * time.Hour))})
	}
	reg(course, "registered", week.Add(-20*24*time.Hour), "")        // three weeks back
	reg(course, "registered", week.Add(-10*24*time.Hour), "")        // last week but one
	reg(course, "duplicate", week.Add(-3*24*time.Hour), "")          // last week
	reg(course, "cancelled", week.Add(-3*24*time.Hour), "")          // last week
	thisWeek := reg(course, "registered", now.Add(-time.Minute), "") // this week, and the newest
	reg(course, "failed_permanent", now.Add(-2*time.Hour), "course_not_allowed")
	reg(course, "failed_permanent", now.Add(-3*time.Hour), "course_not_allowed")
	reg(course, "failed_retryable", now.Add(-3*time.Hour), "sisu_timeout")
	reg(course, "pending", now.Add(-time.Hour), "")
	reg(other, "registered", week.Add(-4*24*time.Hour), "")
	reg(other, "awaiting_verification", now.Add(-5*time.Hour), "")

	check := func(when string) {
		t.Helper()
		list, err := st.CourseModuleStatsList(ctx, now, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 {
			t.Fatalf("%s: %d modules, want 2", when, len(list))
		}
		m := list[0]
		if m.CourseID != course.ID {
			m = list[1]
		}
		if m.Total != 9 || m.Registered != 4 || m.Failed != 2 || m.InFlight != 2 {
			t.Errorf("%s: total %d registered %d failed %d in flight %d; want 9, 4, 2, 2", when, m.Total, m.Registered, m.Failed, m.InFlight)
		}
		if m.TopError != schedule.ErrorCourseNotAllowed || m.TopErrorN != 2 || m.SetupError != schedule.ErrorCourseNotAllowed {
			t.Errorf("%s: top error %s (%d), setup %s", when, m.TopError, m.TopErrorN, m.SetupError)
		}
		if m.LastRegisteredAt == nil || !m.LastRegisteredAt.Equal(now.Add(-time.Minute).Truncate(time.Microsecond)) {
			t.Errorf("%s: last registered %v, want that of %s", when, m.LastRegisteredAt, thisWeek)
		}
		// Weeks: three back, two back, last, this (the duplicate is registered but counts as
		// found already in Sisu, not in the sparkline of registrations).
		if want := []int64{1, 1, 0, 1}; len(m.Weekly) != 4 || m.Weekly[0] != want[0] || m.Weekly[1] != want[1] || m.Weekly[2] != want[2] || m.Weekly[3] != want[3] {
			t.Errorf("%s: weekly %v, want %v", when, m.Weekly, want)
		}
		if m.NeedsAdmin != 0 {
			t.Errorf("%s: needs admin %d, want 0 (no row flagged)", when, m.NeedsAdmin)
		}
	}
	check("before the weeks are counted")
	var wg sync.WaitGroup
	counted := make([]int, 2)
	for i := range counted {
		wg.Go(func() {
			n, err := st.CourseWeeksRoll(ctx, now)
			if err != nil {
				t.Error(err)
			}
			counted[i] = n
		})
	}
	wg.Wait()
	if counted[0] == 0 && counted[1] == 0 {
		t.Fatal("no week was counted")
	}
	check("after the weeks are counted")
	if n, err := st.CourseWeeksRoll(ctx, now); err != nil || n != 0 {
		t.Errorf("a second roll counted %d weeks (%v)", n, err)
	}
	check("after a second roll")
}

// The courses page's "needs a person" per module is the queue's needs-admin count for that
// module: rows a dismissal covers wholly are left out, a dismissal of only some reasons is not.
func TestCourseModuleStatsNeedsAdminAgreesWithTheQueue(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := t.Context()
	b.uncertainRow(t)
	b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "invalid_credits", NeedsAdminAttention: true})
	b.addRow(t, storetest.Registration{State: "pending"})
	covered := b.addRow(t, storetest.Registration{State: "misregistered", ErrorCode: "misregistered"})
	partly := b.addRow(t, storetest.Registration{State: "misregistered", ErrorCode: "misregistered", SubmitRetryCount: 6})
	dismiss := func(id, reasons string) {
		b.exec(t, `INSERT INTO credit_registration_attention_dismissals (id, created_at, credit_registration_id, dismissed_reasons, dismissed_by_user_id, reason)
VALUES ($1, $2, $3, $4::text[]::credit_registration_attention_reason[], $5, 'seen')`, storetest.NewID(), actionNow.Add(-time.Hour), id, reasons, b.ben.LMSUserID)
	}
	dismiss(covered, "{misregistered}")
	dismiss(partly, "{misregistered}") // too_many_attempts is not dismissed

	list, err := b.st.CourseModuleStatsList(ctx, actionNow, 4)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := b.st.RegistrationCountsGet(ctx, actionNow, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("%d modules, want 1", len(list))
	}
	if got := list[0].NeedsAdmin; got != 3 || got != counts.NeedsAdmin {
		t.Errorf("module needs admin = %d, queue %d; want 3 (uncertain, flagged, partly dismissed)", got, counts.NeedsAdmin)
	}
}
