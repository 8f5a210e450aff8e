package sisucheck_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"regdesk/partner/suotar"
	"regdesk/partner/suotar/suotarfake"
	"regdesk/schedule"
	"regdesk/sisucheck"
	"regdesk/store"
	"regdesk/store/storetest"
)

const (
	token      = "suotar_lookup-test-token"
	number     = "014979622"
	person     = "hy-hlo-125563414"
	code       = "TKT10002"
	courseUnit = "hy-CU-137765567-2020-08-01"
	realised   = "otm-5680ea93-6e5f-4913-a219-5e668cc884c3"
	item       = "otm-9b1e2c3d-4f50-4a61-8b72-93a4b5c6d7e8"
)

var now = storetest.Now()

type bundle struct {
	st      *store.Store
	fake    *suotarfake.Server
	svc     *sisucheck.Service
	course  storetest.Course
	student storetest.Student
}

// setup gives a lookup service on a real Suotar client that talks over HTTP to a fake Suotar: the
// student enrolled on the course, and a submission of theirs made 30 hours before now that has
// since landed in Sisu.
func setup(t *testing.T) *bundle {
	t.Helper()
	today := schedule.HelsinkiDate(now)
	world := suotarfake.NewWorld().
		AddPerson(suotarfake.Person{StudentNumber: number, PersonID: person, FirstNames: "Anna", LastName: "Äijälä"}).
		AddCourseUnit(suotarfake.CourseUnit{Code: code, ID: courseUnit, GroupID: "hy-CU-137765567", Credits: &suotarfake.Credits{Min: 5, Max: 5},
			GradeScaleID: "sis-0-5", Realisations: []suotarfake.Realisation{{ID: realised, AssessmentItemID: item,
				ActivityPeriod: suotarfake.Period{StartDate: today.AddDays(-90).String(), EndDate: today.AddDays(20).String()}}}}).
		Allow(code, "Ohjelmoinnin perusteet")
	world.AddEnrolment(suotarfake.Enrolment{PersonID: person, CourseUnitRealisationID: realised, StudyRightID: "otm-sr-1"})
	world.AddSubmission(suotarfake.Submission{ID: "hy-kur-landed", StudentNumber: number, PersonID: person, CourseCode: code,
		CourseUnitID: courseUnit, CourseUnitGroupID: "hy-CU-137765567", AssessmentItemID: item, CourseUnitRealisationID: realised,
		AttainmentDate: schedule.HelsinkiDate(now.Add(-72 * time.Hour)).String(), AttainmentLanguage: "fi", StudyRightID: "otm-sr-1",
		GradeScaleID: "sis-0-5", GradeID: "4", Credits: 5, SendState: suotarfake.SendAttempted,
		CreatedAt: suotarfake.DateTime{Time: now.Add(-30 * time.Hour)}})
	fake, err := suotarfake.New(token, suotarfake.WithWorld(world), suotarfake.WithClock(suotarfake.NewClock(now, 0)))
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(fake)
	t.Cleanup(server.Close)
	t.Cleanup(fake.Close)
	if _, err := fake.Transition("hy-kur-landed", suotarfake.TransitionRegistered); err != nil {
		t.Fatal(err)
	}
	client, err := suotar.New(suotar.Config{BaseURL: server.URL + "/api/", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.New(t)
	b := &bundle{st: st, fake: fake, svc: &sisucheck.Service{Store: st, Suotar: client, Now: func() time.Time { return now }}}
	b.course = storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: code})
	b.student = storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: "anna@example.invalid", StudentNumber: number})
	return b
}

func (b *bundle) row(t *testing.T, edit func(*storetest.Registration)) string {
	t.Helper()
	r := storetest.Registration{Student: b.student, Course: b.course, State: "submission_uncertain", ErrorCode: "sisu_timeout",
		SubmittedAt: ptr(now.Add(-30 * time.Hour)), StateChangedAt: now.Add(-30 * time.Hour), StudentNumber: number,
		SisuPersonID: person, GradeScaleID: "sis-0-5", GradeID: "4", Credits: 5, AttainedAt: ptr(now.Add(-72 * time.Hour)),
		SubmittedAttainmentID: "hy-kur-landed"}
	if edit != nil {
		edit(&r)
	}
	return storetest.AddRegistration(t, b.st, r)
}

func ptr[T any](v T) *T { return &v }

// TestLookUpRecordsWhatSisuHolds looks a landed submission up without any page: the record says
// registered, the history holds it as the rules read it, and the row is as it was.
func TestLookUpRecordsWhatSisuHolds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.row(t, nil)
	before, err := b.st.RegistrationGet(ctx, storetest.Now(), id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}

	res, err := b.svc.LookUp(ctx, id, store.AllCourses(), nil)
	if err != nil {
		t.Fatalf("LookUp: %v", err)
	}
	if res.Record.Verdict == nil || res.Record.Verdict.Kind != schedule.VerdictRegistered || res.Record.VerifyCall == nil ||
		res.Record.VerifyCall.Code != "registered" || res.Record.Person != store.LookupPersonSame {
		t.Fatalf("record = %+v", res.Record)
	}
	if res.Record.AttainmentsCall == nil || res.Record.AttainmentsCall.Answer != store.AnswerAnswered || res.Record.AttainmentsCall.RequestedAt.Before(now) || res.Record.AttainmentsCall.RequestedAt.After(now.Add(time.Minute)) {
		t.Errorf("attainments call = %+v, want answered, requested by the service's clock", res.Record.AttainmentsCall)
	}
	if calls := b.fake.Calls(); len(calls) != 2 {
		t.Errorf("Suotar got %d calls, want the attainments and the verify call", len(calls))
	}
	page, err := b.st.RegistrationPageGet(ctx, now, id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if page.Lookup == nil || page.Lookup.EventID != res.EventID || page.Lookup.Verdict != schedule.VerdictRegistered ||
		!page.Lookup.MatchOurs || page.Lookup.MatchType != schedule.AttainmentCourseUnit {
		t.Errorf("the rules read the lookup as %+v", page.Lookup)
	}
	if page.Version != before.Version || page.State != before.State {
		t.Errorf("the row changed: version %d → %d, state %s → %s", before.Version, page.Version, before.State, page.State)
	}
}

func TestLookUpRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.row(t, nil)

	if _, err := b.svc.LookUp(ctx, id, store.CoursesOnly([]string{storetest.NewID()}), nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a row outside the scope: err = %v, want ErrNotFound", err)
	}
	if _, err := b.svc.LookUp(ctx, storetest.NewID(), store.AllCourses(), nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown row: err = %v, want ErrNotFound", err)
	}
	off := &sisucheck.Service{Store: b.st, Now: b.svc.Now}
	if _, err := off.LookUp(ctx, id, store.AllCourses(), nil); !errors.Is(err, sisucheck.ErrNoSuotar) {
		t.Errorf("without Suotar: err = %v, want ErrNoSuotar", err)
	}
	unlinked := storetest.AddStudent(t, b.st, storetest.Student{FirstName: "Ville", LastName: "V", Email: "v@example.invalid"})
	nobody := storetest.AddRegistration(t, b.st, storetest.Registration{Student: unlinked, Course: b.course, State: "pending"})
	_, err := b.svc.LookUp(ctx, nobody, store.AllCourses(), nil)
	if e, ok := errors.AsType[*sisucheck.NothingToAskError](err); !ok || e.Problem != sisucheck.ProblemNoStudentNumber {
		t.Errorf("a row without a student number: err = %v, want NothingToAskError", err)
	}
	if calls := b.fake.Calls(); len(calls) != 0 {
		t.Errorf("Suotar got %d calls for lookups that were refused", len(calls))
	}
	events, err := b.st.EventListByRegistration(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Kind == "sisu_lookup" {
			t.Errorf("a refused lookup was recorded")
		}
	}
}
