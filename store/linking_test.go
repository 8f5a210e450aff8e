package store_test

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// linkingWorld is a ledger in the LMS's shape around one course code's account linking: rows whose
// students pressed "I have enrolled" at chosen instants, the code's roster schedule, linking emails.
type linkingWorld struct {
	st    *store.Store
	url   string
	now   time.Time
	since time.Time
	// fetch is when the latest fetch of TKT10002's enrolment list that could claim linking mail
	// started.
	fetch time.Time
	// waiting has no verified student number; numbered has one.
	waiting, numbered storetest.Student
	// a and b are two courses with a module on the code TKT10002 (a's written with a trailing
	// space, as the LMS trims it); other's module is on TKT20001, which has no roster schedule.
	a, b, other storetest.Course
}

func newLinkingWorld(t *testing.T) *linkingWorld {
	t.Helper()
	w := &linkingWorld{now: storetest.Now()}
	w.since = w.now.Add(-30 * 24 * time.Hour)
	w.fetch = w.now.Add(-time.Hour)
	w.st, w.url = storetest.NewWithURL(t, storetest.Options{AccountLinkingSince: &w.since})
	w.waiting = storetest.AddStudent(t, w.st, storetest.Student{FirstName: "Eino", LastName: "Ek"})
	w.numbered = storetest.AddStudent(t, w.st, storetest.Student{FirstName: "Aino", LastName: "Äijälä", StudentNumber: "014979622"})
	w.a = storetest.AddCourse(t, w.st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002 "})
	w.b = storetest.AddCourse(t, w.st, storetest.Course{Name: "Ohjelmoinnin perusteet (avoin)", Code: "TKT10002"})
	w.other = storetest.AddCourse(t, w.st, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT20001"})
	storetest.LMSExecNoSync(t, w.st, `INSERT INTO credit_registration_roster_schedules (course_code, last_mailing_fetch_started_at)
VALUES ('TKT10002', $1)`, w.fetch)
	return w
}

// pending adds a pending row of student on course whose student pressed at pressed (nil: never)
// and returns its id.
func (w *linkingWorld) pending(t *testing.T, student storetest.Student, course storetest.Course, pressed *time.Time) string {
	t.Helper()
	return w.row(t, "pending", student, course, pressed)
}

func (w *linkingWorld) row(t *testing.T, state string, student storetest.Student, course storetest.Course, pressed *time.Time) string {
	t.Helper()
	id := storetest.AddRegistration(t, w.st, storetest.Registration{Student: student, Course: course, State: state,
		StateChangedAt: w.now.Add(-6 * time.Hour)})
	if pressed != nil {
		storetest.LMSExecNoSync(t, w.st, `INSERT INTO credit_registration_enrolment_routes (course_module_completion_id, user_id, route, enrolment_confirmed_at)
SELECT course_module_completion_id, user_id, 'university_of_helsinki', $2 FROM credit_registrations WHERE id = $1`, id, *pressed)
	}
	return id
}

// email records a linking email on course sent at at; deleted marks it deleted.
func (w *linkingWorld) email(t *testing.T, course storetest.Course, at time.Time, deleted bool) {
	t.Helper()
	var deletedAt *time.Time
	if deleted {
		deletedAt = &at
	}
	storetest.LMSExecNoSync(t, w.st, `INSERT INTO credit_registration_account_linking_emails
  (student_number, sisu_person_id, course_id, emailed_to, sent_at, deleted_at)
VALUES ('012345678', 'hy-hlo-' || gen_random_uuid(), $1, 'someone@example.invalid', $2, $3)`, course.ID, at, deletedAt)
}

// stuckInList is what the queue lists under student_number_stuck, and the count it shows.
func stuckInList(ctx context.Context, t *testing.T, st *store.Store, now time.Time) ([]string, int64) {
	t.Helper()
	ids := listIDs(ctx, t, st, now, store.RegistrationFilter{Scope: store.AllCourses(), Reasons: []schedule.Reason{schedule.ReasonStudentNumberStuck}})
	counts, err := st.RegistrationCountsGet(ctx, now, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	return ids, counts.Reasons[schedule.ReasonStudentNumberStuck]
}

// stuckOnPage reports whether the registration's own page, which reads the LMS's tables as they are
// now, finds the row stuck.
func stuckOnPage(ctx context.Context, t *testing.T, st *store.Store, now time.Time, id string) bool {
	t.Helper()
	reg, err := st.RegistrationGet(ctx, storetest.Now(), id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	return schedule.Classify(reg.ScheduleRow(), now).Reasons.Has(schedule.ReasonStudentNumberStuck)
}

// Each clause of the LMS's student_number_stuck (attention.rs), on rows written as the LMS writes
// them: regdesk's queue, its count and a registration's page pick exactly the rows the LMS does.
func TestStudentNumberStuckReadsTheLMSTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newLinkingWorld(t)
	at := func(d time.Duration) *time.Time { x := w.fetch.Add(-d); return &x }
	hour := schedule.StudentNumberStuckAfterPress
	// A linking email on the code went out three hours before the fetch, on the code's other
	// course: it counts, the code's emails being the courses' with a live module on the code.
	w.email(t, w.b, w.fetch.Add(-3*time.Hour), false)
	// Emails that do not count: a deleted one, and one on a course of another code.
	w.email(t, w.a, w.fetch.Add(-10*time.Minute), true)
	w.email(t, w.other, w.fetch.Add(-10*time.Minute), false)

	want := map[string]bool{}
	add := func(id string, stuck bool) { want[id] = stuck }
	// Pressed exactly an hour before the fetch, mailed before the press: stuck.
	add(w.pending(t, w.waiting, w.a, at(hour)), true)
	// Pressed on the other course of the code, two hours before the fetch: stuck.
	add(w.pending(t, w.waiting, w.b, at(2*hour)), true)
	// Fetched a microsecond short of the hour after the press: not yet.
	add(w.pending(t, w.waiting, w.a, at(hour-time.Microsecond)), false)
	// Pressed before the email went out: the email reached them.
	add(w.pending(t, w.waiting, w.a, at(4*hour)), false)
	// Pressed the very instant the email went out: it counts (sent at or after the press).
	add(w.pending(t, w.waiting, w.a, at(3*hour)), false)
	// Never pressed.
	add(w.pending(t, w.waiting, w.a, nil), false)
	// A student with a verified number waits for nothing.
	add(w.pending(t, w.numbered, w.a, at(2*hour)), false)
	// A code nobody fetches.
	add(w.pending(t, w.waiting, w.other, at(2*hour)), false)
	// Not pending: whatever the facts, no longer waiting for a number.
	add(w.row(t, "no_usable_enrolment", w.waiting, w.a, at(2*hour)), false)
	// A completion a teacher must review is not eligible.
	reviewed := w.pending(t, w.waiting, w.a, at(2*hour))
	storetest.LMSExecNoSync(t, w.st, `UPDATE course_module_completions SET needs_to_be_reviewed = true
WHERE id = (SELECT course_module_completion_id FROM credit_registrations WHERE id = $1)`, reviewed)
	add(reviewed, false)
	// Completed a microsecond before account linking began, and at the instant it began.
	early, onTime := w.pending(t, w.waiting, w.a, at(2*hour)), w.pending(t, w.waiting, w.a, at(2*hour))
	storetest.LMSExecNoSync(t, w.st, `UPDATE course_module_completions c SET completion_date = $2
FROM credit_registrations r WHERE r.id = $1 AND c.id = r.course_module_completion_id`, early, w.since.Add(-time.Microsecond))
	storetest.LMSExecNoSync(t, w.st, `UPDATE course_module_completions c SET completion_date = $2
FROM credit_registrations r WHERE r.id = $1 AND c.id = r.course_module_completion_id`, onTime, w.since)
	add(early, false)
	add(onTime, true)
	storetest.SyncMirror(t, w.st)

	var wantIDs []string
	for id, stuck := range want {
		if stuck {
			wantIDs = append(wantIDs, id)
		}
		if got := stuckOnPage(ctx, t, w.st, w.now, id); got != stuck {
			t.Errorf("row %s: its page says stuck = %v, want %v", id, got, stuck)
		}
	}
	sort.Strings(wantIDs)
	ids, n := stuckInList(ctx, t, w.st, w.now)
	if !slices.Equal(ids, wantIDs) || n != int64(len(wantIDs)) {
		t.Errorf("the queue lists %v (count %d) under student_number_stuck, want %v", ids, n, wantIDs)
	}
	needs := listIDs(ctx, t, w.st, w.now, store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true})
	for _, id := range wantIDs {
		if _, ok := slices.BinarySearch(needs, id); !ok {
			t.Errorf("stuck row %s is not on the needs-a-person list", id)
		}
	}

	// With account linking off (no LMS_ACCOUNT_LINKING_SINCE), nobody is stuck.
	off, err := store.Open(ctx, w.url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if _, err := off.LedgerMirrorSweep(ctx); err != nil {
		t.Fatal(err)
	}
	if ids, n := stuckInList(ctx, t, off, w.now); len(ids) > 0 || n != 0 {
		t.Errorf("linking off: the queue lists %v (count %d) under student_number_stuck, want none", ids, n)
	}
	if stuckOnPage(ctx, t, off, w.now, wantIDs[0]) {
		t.Errorf("linking off: row %s's page says stuck", wantIDs[0])
	}
}

// The facts student_number_stuck reads move without the ledger row moving: a fetch of the code's
// enrolment list starts, a linking email goes out. Each refresh of regdesk's copy picks that up,
// not only the sweep; a registration's page sees it at once.
func TestStudentNumberStuckFollowsTheLMSBetweenSweeps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newLinkingWorld(t)
	pressed := w.fetch.Add(-30 * time.Minute)
	id := w.pending(t, w.waiting, w.a, &pressed)
	storetest.SyncMirror(t, w.st)
	if ids, _ := stuckInList(ctx, t, w.st, w.now); len(ids) > 0 {
		t.Fatalf("stuck before any fetch an hour past the press: %v", ids)
	}

	// The LMS starts the next fetch an hour after the press.
	storetest.LMSExecNoSync(t, w.st, `UPDATE credit_registration_roster_schedules SET last_mailing_fetch_started_at = $1
WHERE course_code = 'TKT10002'`, pressed.Add(schedule.StudentNumberStuckAfterPress))
	if !stuckOnPage(ctx, t, w.st, w.now, id) {
		t.Error("the page does not see the fetch")
	}
	if _, err := w.st.LedgerMirrorRefresh(ctx); err != nil {
		t.Fatal(err)
	}
	if ids, n := stuckInList(ctx, t, w.st, w.now); !slices.Equal(ids, []string{id}) || n != 1 {
		t.Fatalf("after the fetch and a refresh the queue lists %v (count %d), want [%s]", ids, n, id)
	}
	waiting, err := w.st.RegistrationGet(ctx, storetest.Now(), id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if at := pressed.Add(schedule.StudentNumberStuckAfterPress); waiting.NeedsPersonSince == nil || !waiting.NeedsPersonSince.Equal(at) {
		t.Errorf("waiting since %v, want %v: an hour after the press", waiting.NeedsPersonSince, at)
	}

	// A linking email goes out on the code.
	w.email(t, w.b, w.fetch, false)
	if stuckOnPage(ctx, t, w.st, w.now, id) {
		t.Error("the page does not see the email")
	}
	if _, err := w.st.LedgerMirrorRefresh(ctx); err != nil {
		t.Fatal(err)
	}
	if ids, n := stuckInList(ctx, t, w.st, w.now); len(ids) > 0 || n != 0 {
		t.Errorf("after the email and a refresh the queue lists %v (count %d), want none", ids, n)
	}
}
