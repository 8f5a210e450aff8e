package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// TestRegistrationPageGet reads a registration's page: the row with its preconditions, its
// history as EventListByRegistration reads it, both attempts at its completion, its newest lookup
// and the decisions on it, which see another row holding the lookup's match.
func TestRegistrationPageGet(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	id := b.addRow(t, storetest.Registration{State: "submission_uncertain", ErrorCode: "sisu_timeout", AttemptNumber: 2,
		SubmittedAt: ptrTime(actionNow.Add(-72 * time.Hour)), SubmittedAttainmentID: "hy-kur-1", StudentNumber: "012345678"})
	var completion string
	if err := b.st.Pool().QueryRow(ctx, `SELECT course_module_completion_id::text FROM credit_registrations WHERE id = $1`, id).Scan(&completion); err != nil {
		t.Fatal(err)
	}
	first := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "invalid_credits", CompletionID: completion,
		SupersededByID: id, StateChangedAt: actionNow.Add(-96 * time.Hour)})
	storetest.AddEvent(t, b.st, id, actionNow.Add(-72*time.Hour), "state_changed", "submitting", "submission_uncertain", "timed out")
	older := b.addLookup(t, id, actionNow.Add(-2*time.Hour), notInSisu)
	newest := b.addLookup(t, id, actionNow.Add(-time.Minute), registeredOurs)
	holder := b.addRow(t, storetest.Registration{State: "registered", SisuAttainmentID: "hy-cu-1"})

	page, err := b.st.RegistrationPageGet(ctx, actionNow, id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if page.ID != id || page.State != schedule.StateSubmissionUncertain || page.Version != b.ledger(t, id).Version || !page.CompletionEligible ||
		!page.Submitted || page.EnrolmentResolved {
		t.Errorf("row = %+v, preconditions %+v", page.Registration, page.PreconditionColumns)
	}
	events, err := b.st.EventListByRegistration(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Events) != len(events) || len(events) < 3 {
		t.Fatalf("page has %d events, the history %d; want the same, the lookups and the move among them", len(page.Events), len(events))
	}
	for i, e := range events {
		p := page.Events[i]
		if p.ID != e.ID || !p.CreatedAt.Equal(e.CreatedAt) || p.Kind != e.Kind || store.Deref(p.ActorName) != store.Deref(e.ActorName) ||
			store.Deref(p.ToState) != store.Deref(e.ToState) || store.Deref(p.Message) != store.Deref(e.Message) ||
			store.ParseLookupDetails(p.Details).Verdict != store.ParseLookupDetails(e.Details).Verdict {
			t.Errorf("event %d: page %+v, history %+v", i, p, e)
		}
	}
	var lookups []string
	for _, e := range page.Events {
		if e.Kind == "sisu_lookup" {
			lookups = append(lookups, e.ID)
		}
	}
	if !slices.Equal(lookups, []string{newest, older}) {
		t.Errorf("lookups in the history = %v, want %s then %s (newest first)", lookups, newest, older)
	}
	if got := []string{page.Attempts[0].ID, page.Attempts[1].ID}; len(page.Attempts) != 2 || !slices.Equal(got, []string{first, id}) ||
		page.Attempts[0].State != schedule.StateFailedPermanent || page.Attempts[0].ErrorCode != "invalid_credits" {
		t.Errorf("attempts = %+v, want %s then %s", page.Attempts, first, id)
	}
	if page.Lookup == nil || page.LookupID() != newest || page.Lookup.ActorName != "Anna Support" || page.Lookup.MatchID != "hy-cu-1" {
		t.Errorf("lookup = %+v, want the newest", page.Lookup)
	}
	_ = holder

	if _, err := b.st.RegistrationPageGet(ctx, actionNow, id, store.CoursesOnly([]string{storetest.NewID()})); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("outside the scope: err = %v, want ErrNotFound", err)
	}
	if _, err := b.st.RegistrationPageGet(ctx, actionNow, "nope", store.AllCourses()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a malformed id: err = %v, want ErrNotFound", err)
	}
}

// TestStudentAndCoursePageGet reads a student's and a course's page, with and without an alert
// time: the same rows as their separate reads give, the changes only when asked for, and nothing
// for a person whose scope does not hold them.
func TestStudentAndCoursePageGet(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	alert := actionNow.Add(-30 * time.Minute)
	changed := b.addRow(t, storetest.Registration{State: "awaiting_verification", SubmittedAt: ptrTime(actionNow.Add(-6 * time.Hour)),
		StateChangedAt: actionNow.Add(-10 * time.Minute)})
	storetest.AddEvent(t, b.st, changed, actionNow.Add(-5*time.Minute), "state_changed", "awaiting_verification", "awaiting_verification", "polled")
	quiet := b.addRow(t, storetest.Registration{State: "registered", StateChangedAt: actionNow.Add(-50 * time.Hour)})
	elsewhere := store.CoursesOnly([]string{storetest.NewID()})
	// Another student's registration on the course is on the course page, never on Aino's.
	ben := storetest.AddStudent(t, b.st, storetest.Student{FirstName: "Ben", LastName: "Okafor", Email: "ben@example.invalid"})
	bens := storetest.AddRegistration(t, b.st, storetest.Registration{Student: ben, Course: b.course, State: "pending"})

	student, err := b.st.StudentPageGet(ctx, storetest.Now(), b.student.ID, store.AllCourses(), nil)
	if err != nil {
		t.Fatal(err)
	}
	regs, err := b.st.RegistrationListByStudent(ctx, storetest.Now(), b.student.ID, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if student.ID != b.student.ID || student.Name() != "Aino Virtanen" || len(student.Registrations) != len(regs) || len(regs) != 2 ||
		student.Changes != nil {
		t.Errorf("student page = %+v, want the student and their %d registrations, no changes", student, len(regs))
	}
	for _, r := range student.Registrations {
		if r.ID == bens {
			t.Errorf("Aino's page lists Ben's registration")
		}
	}
	for i, r := range regs {
		if i >= len(student.Registrations) {
			break
		}
		p := student.Registrations[i]
		if p.ID != r.ID || p.StudentStatus != r.StudentStatus || p.Preconditions() != r.Preconditions() || p.CourseName != r.CourseName ||
			p.State != r.State || !p.UpdatedAt.Equal(r.UpdatedAt) || !p.CompletionDate.Equal(r.CompletionDate) ||
			store.Deref(p.Grade) != store.Deref(r.Grade) || store.Deref(p.Credits) != store.Deref(r.Credits) ||
			!store.Deref(p.SubmittedAt).Equal(store.Deref(r.SubmittedAt)) {
			t.Errorf("registration %d: page %+v, list %+v", i, p, r)
		}
	}
	student, err = b.st.StudentPageGet(ctx, storetest.Now(), b.student.ID, store.AllCourses(), &alert)
	if err != nil {
		t.Fatal(err)
	}
	want, err := b.st.EventListSince(ctx, changed, alert, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if got := student.Changes[changed]; len(want) < 2 || len(got) != len(want) || got[0].RegistrationID != changed || !got[1].At.Equal(want[1].At) ||
		len(student.Changes[quiet]) != 0 {
		t.Errorf("student page changes = %+v, want %s's %d changes as EventListSince reads them", student.Changes, changed, len(want))
	}
	if _, err := b.st.StudentPageGet(ctx, storetest.Now(), b.student.ID, elsewhere, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a student outside the scope: err = %v, want ErrNotFound", err)
	}

	course, err := b.st.CoursePageGet(ctx, store.CoursePageParams{Scope: store.AllCourses(), ID: b.course.ID, Limit: 10, Since: &alert, ChangedLimit: 5})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := b.st.RegistrationCountsByStudentStatus(ctx, b.course.ID, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, n := range course.Counts {
		total += n
	}
	if course.ID != b.course.ID || len(course.Registrations) != 3 || total != 3 || len(course.Counts) != len(counts) ||
		!slices.Equal(course.ChangedIDs, []string{changed}) || len(course.Changes[changed]) != len(want) {
		t.Errorf("course page = %+v", course)
	}
	if course, err := b.st.CoursePageGet(ctx, store.CoursePageParams{Scope: store.AllCourses(), ID: b.course.ID, Limit: 10}); err != nil || course.ChangedIDs != nil || course.Changes != nil {
		t.Errorf("without an alert time: %+v, %v; want no changes read", course, err)
	}
	if _, err := b.st.CoursePageGet(ctx, store.CoursePageParams{ID: b.course.ID, Scope: elsewhere, Limit: 10}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a course outside the scope: err = %v, want ErrNotFound", err)
	}
}
