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

func TestEventInsertLookupRecordsWithoutTouchingTheRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "A", Email: "a@example.invalid"})
	id := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: course, State: "submission_uncertain"})
	before, err := st.RegistrationGet(ctx, storetest.Now(), id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}

	requested := storetest.Now()
	answered := requested.Add(1500 * time.Millisecond)
	evID, err := st.EventInsertLookup(ctx, store.LookupEvent{Scope: store.AllCourses(), RegistrationID: id, CreatedAt: answered, Record: store.LookupRecord{
		V: store.LookupRecordVersion, DurationMS: 1500,
		AttainmentsCall: &store.LookupCall{Endpoint: store.EndpointResolveEnrolments, RequestedAt: requested, AnsweredAt: &answered,
			Answer: store.AnswerAnswered},
		Verdict: &store.LookupVerdict{Kind: schedule.VerdictRegistered, Say: []schedule.Phrase{{Key: "why.creditCounts"}}},
	}, Message: "Registered in Sisu: The credit counts; do not resubmit."})
	if err != nil {
		t.Fatalf("EventInsertLookup: %v", err)
	}

	events, err := st.EventListByRegistration(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	e := events[0]
	if e.ID != evID || e.Kind != "sisu_lookup" || e.ToState != nil || e.FromState != nil {
		t.Fatalf("newest event = %+v, want the sisu_lookup with no state", e)
	}
	if !e.CreatedAt.Equal(answered) || e.SuotarAnswer == nil || *e.SuotarAnswer != "answered" ||
		e.SuotarEndpoint == nil || *e.SuotarEndpoint != "resolve_enrolments" || e.SuotarAnsweredAt == nil || !e.SuotarAnsweredAt.Equal(answered) {
		t.Errorf("event = %+v, want the call's times, endpoint and answer", e)
	}
	if rec, ok := store.ReadLookupRecord(e.Details); !ok || rec.DurationMS != 1500 {
		t.Errorf("details = %s (read %v), want duration_ms 1500", e.Details, ok)
	}
	if e.Message == nil || *e.Message != "Registered in Sisu: The credit counts; do not resubmit." {
		t.Errorf("message = %v, want the words the caller gave", e.Message)
	}

	after, err := st.RegistrationGet(ctx, storetest.Now(), id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) || after.State != before.State {
		t.Errorf("the row changed: version %d → %d, updated_at %v → %v", before.Version, after.Version, before.UpdatedAt, after.UpdatedAt)
	}

	_, err = st.EventInsertLookup(ctx, store.LookupEvent{RegistrationID: id, CreatedAt: answered, Scope: store.CoursesOnly([]string{storetest.NewID()}),
		Record: store.LookupRecord{AttainmentsCall: &store.LookupCall{Endpoint: store.EndpointResolveEnrolments, RequestedAt: requested,
			Answer: store.AnswerUnanswered}}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a lookup of a row outside the scope: err = %v, want ErrNotFound", err)
	}
	_, err = st.EventInsertLookup(ctx, store.LookupEvent{Scope: store.AllCourses(), RegistrationID: storetest.NewID(), CreatedAt: answered, Record: store.LookupRecord{
		AttainmentsCall: &store.LookupCall{Endpoint: store.EndpointResolveEnrolments, RequestedAt: requested, Answer: store.AnswerUnanswered}}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a lookup of an unknown row: err = %v, want ErrNotFound", err)
	}
}

// setupSince gives a store with a student on a course, and an alert 46 minutes before the suite's
// instant.
func setupSince(t *testing.T) (*store.Store, time.Time, storetest.Student, storetest.Course) {
	t.Helper()
	st := storetest.New(t)
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "a@example.fi", StudentNumber: "010000011"})
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Kurssi", Code: "TKT1"})
	return st, storetest.Now().Add(-46 * time.Minute), student, course
}

func TestEventListSince(t *testing.T) {
	t.Parallel()
	st, alert, student, course := setupSince(t)
	ctx := context.Background()
	at := func(d time.Duration) time.Time { return alert.Add(d) }
	submitted := at(-30 * time.Hour)
	id := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: course, State: "submission_uncertain",
		StateChangedAt: at(-time.Hour), SubmittedAt: &submitted})
	mikko := storetest.AddStaff(t, st, "Mikko Mallikas", "mikko@example.fi", "support")
	staff := mikko.LMSUserID

	event := func(when time.Time, kind string, from, to, actor any) {
		if kind == store.KindLookup {
			exec(t, st, `INSERT INTO regdesk.lookups (id, created_at, credit_registration_id, account_id, details) VALUES ($1, $2, $3, $4, '{}')`,
				storetest.NewID(), when, id, mikko.AccountID)
			return
		}
		exec(t, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state, actor_user_id)
VALUES ($1, $2, $3, $4, $5, $6, $7)`, storetest.NewID(), when, id, kind, from, to, actor)
	}
	audit := func(when time.Time, action string, before, after any) {
		exec(t, st, `INSERT INTO credit_registration_admin_actions (id, created_at, action, target_kind, target_id, actor_user_id, actor_role, reason, before_state, after_state)
VALUES ($1, $2, $3, 'credit_registration', $4, $5, 'global_admin', 'checked Sisu', $6, $7)`, storetest.NewID(), when, action, id, staff, before, after)
	}
	event(at(-time.Minute), "state_changed", "submission_uncertain", "submission_uncertain", nil)  // before the alert
	event(at(5*time.Minute), "state_changed", "submission_uncertain", "submission_uncertain", nil) // a poll
	event(at(6*time.Minute), "sisu_lookup", nil, nil, staff)
	// A resubmit writes its event and its audit row in one transaction, at one instant.
	event(at(10*time.Minute), "admin_action", "submission_uncertain", "ready_to_submit", staff)
	audit(at(10*time.Minute), "transition_item", "submission_uncertain", "ready_to_submit")
	audit(at(12*time.Minute), "dismiss_attention", "ready_to_submit", "ready_to_submit")
	event(at(20*time.Minute), "state_changed", "ready_to_submit", "checking_enrolment", nil)

	changes, err := st.EventListSince(ctx, id, alert, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		at       time.Time
		kind     string
		action   string
		actor    string
		byPerson bool
	}
	var got []row
	for _, c := range changes {
		r := row{at: c.At, kind: c.Kind, byPerson: c.ByPerson}
		if c.Action != nil {
			r.action = *c.Action
		}
		if c.ActorName != nil {
			r.actor = *c.ActorName
		}
		got = append(got, r)
	}
	want := []row{
		{at(5 * time.Minute), "state_changed", "", "", false},
		{at(6 * time.Minute), "sisu_lookup", "", "Mikko Mallikas", true},
		{at(10 * time.Minute), "admin_action", "transition_item", "Mikko Mallikas", true},
		{at(12 * time.Minute), "admin_action", "dismiss_attention", "Mikko Mallikas", true},
		{at(20 * time.Minute), "state_changed", "", "", false},
	}
	if len(got) != len(want) {
		t.Fatalf("EventListSince = %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].at.Equal(want[i].at) || got[i].kind != want[i].kind || got[i].action != want[i].action ||
			got[i].actor != want[i].actor || got[i].byPerson != want[i].byPerson {
			t.Errorf("change %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	// The summary a page shows for it.
	regs, err := st.RegistrationListByStudent(ctx, storetest.Now(), student.ID, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	events := make([]schedule.AlertEvent, len(changes))
	for i, c := range changes {
		events[i] = c.AlertEvent()
	}
	now := at(time.Hour)
	summary := schedule.SinceAlert(events, schedule.StudentView(regs[0].ScheduleRow(), regs[0].Preconditions(), now), alert)
	var codes []string
	for _, c := range summary.Changes {
		codes = append(codes, c.ChangeCode()+" "+c.Actor+" "+c.At.Sub(alert).String())
	}
	wantCodes := []string{"person.looked_up Mikko Mallikas 6m0s", "person.resubmitted Mikko Mallikas 10m0s", "person.dismissed Mikko Mallikas 12m0s",
		"pipeline.checking_enrolment  20m0s"}
	// The row itself is still in submission_uncertain: the fixture never moved it.
	if !slices.Equal(codes, wantCodes) || !summary.StillNeedsAction || !slices.Equal(summary.Reasons, []schedule.Reason{schedule.ReasonOutcomeUncertain}) {
		t.Errorf("summary: changes %q, still needs action %v for %v; wantCodes %q, true for outcome_uncertain", codes, summary.StillNeedsAction, summary.Reasons, wantCodes)
	}

	if later, err := st.EventListSince(ctx, id, at(time.Hour), store.AllCourses()); err != nil || len(later) != 0 {
		t.Errorf("EventListSince(after everything) = %v, %v; want nothing", later, err)
	}
	if _, err := st.EventListSince(ctx, "nope", alert, store.AllCourses()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EventListSince(nope) error = %v, want ErrNotFound", err)
	}
}

func TestRegistrationListChangedSince(t *testing.T) {
	t.Parallel()
	st, alert, student, course := setupSince(t)
	ctx := context.Background()
	at := func(d time.Duration) time.Time { return alert.Add(d) }
	other := storetest.AddCourse(t, st, storetest.Course{Name: "Toinen", Code: "TKT2"})
	add := func(c storetest.Course, changed time.Time) string {
		return storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: c, State: "awaiting_verification", StateChangedAt: changed})
	}
	moved := add(course, at(10*time.Minute)) // its fixture history moves it after the alert
	movedLater := add(course, at(30*time.Minute))
	before := add(course, at(-time.Hour)) // moved before the alert only
	polled := add(course, at(-time.Hour))
	exec(t, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state)
VALUES ($1, $2, $3, 'state_changed', 'awaiting_verification', 'awaiting_verification')`, storetest.NewID(), at(5*time.Minute), polled)
	lookedUp := add(course, at(-time.Hour))
	mikko := storetest.AddStaff(t, st, "Mikko Mallikas", "mikko@example.fi", "support")
	exec(t, st, `INSERT INTO regdesk.lookups (id, created_at, credit_registration_id, account_id, details) VALUES ($1, $2, $3, $4, '{}')`,
		storetest.NewID(), at(20*time.Minute), lookedUp, mikko.AccountID)
	dismissed := add(course, at(-time.Hour))
	exec(t, st, `INSERT INTO credit_registration_admin_actions (id, created_at, action, target_kind, target_id, actor_user_id, actor_role, reason)
VALUES ($1, $2, 'dismiss_attention', 'credit_registration', $3, $4, 'global_admin', 'known')`, storetest.NewID(), at(40*time.Minute), dismissed, mikko.LMSUserID)
	elsewhere := add(other, at(10*time.Minute))

	got, err := st.RegistrationListChangedSince(ctx, course.ID, alert, store.AllCourses(), 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{dismissed, movedLater, lookedUp, moved}
	if !slices.Equal(got, want) {
		t.Errorf("RegistrationListChangedSince = %v, want %v (dismissed, movedLater, lookedUp, moved)", got, want)
	}
	for _, id := range []string{before, polled, elsewhere} {
		if slices.Contains(got, id) {
			t.Errorf("RegistrationListChangedSince lists %s, which has nothing worth a mention since the alert", id)
		}
	}
	if got, _ := st.RegistrationListChangedSince(ctx, course.ID, alert, store.AllCourses(), 2); !slices.Equal(got, want[:2]) {
		t.Errorf("with limit 2 = %v, want %v", got, want[:2])
	}
	if got, _ := st.RegistrationListChangedSince(ctx, course.ID, alert, store.CoursesOnly([]string{other.ID}), 10); len(got) != 0 {
		t.Errorf("with a scope without the course = %v, want nothing", got)
	}
	if got, err := st.RegistrationListChangedSince(ctx, "nope", alert, store.AllCourses(), 10); err != nil || len(got) != 0 {
		t.Errorf("for a malformed course id = %v, %v; want nothing", got, err)
	}
}
