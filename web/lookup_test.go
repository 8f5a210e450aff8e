package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar"
	"regdesk/partner/suotar/suotarfake"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/web"
)

// lookupSupportEmail signs in the support person of setupLookup, with testPassword.
const lookupSupportEmail = "support@example.invalid"

const (
	fakeToken    = "suotar_web-test-token"
	annaNumber   = "014979622"
	annaPerson   = "hy-hlo-125563414"
	basicsCode   = "TKT10002"
	basicsCU     = "hy-CU-137765567-2020-08-01"
	basicsReal   = "otm-5680ea93-6e5f-4913-a219-5e668cc884c3"
	basicsAI     = "otm-9b1e2c3d-4f50-4a61-8b72-93a4b5c6d7e8"
	submittedAgo = 30 * time.Hour
)

var (
	// attainedAt is when Anna's grade was attained, three days before testNow; attainedDay its
	// Helsinki date, the attainment date Sisu records.
	attainedAt  = testNow.Add(-72 * time.Hour)
	attainedDay = schedule.HelsinkiDate(attainedAt).String()
	// today is testNow's Helsinki date.
	today = schedule.HelsinkiDate(testNow).String()
)

// lookupWorld is Sisu as the fake serves it: Anna, enrolled on TKT10002, with whatever the test
// adds.
func lookupWorld() *suotarfake.World {
	w := suotarfake.NewWorld().
		AddPerson(suotarfake.Person{StudentNumber: annaNumber, PersonID: annaPerson, FirstNames: "Anna Sofia", LastName: "Äijälä",
			PrimaryEmail: "anna.aijala@helsinki.example"}).
		AddCourseUnit(suotarfake.CourseUnit{Code: basicsCode, ID: basicsCU, GroupID: "hy-CU-137765567", Credits: &suotarfake.Credits{Min: 5, Max: 5},
			GradeScaleID: "sis-0-5", Realisations: []suotarfake.Realisation{{ID: basicsReal, AssessmentItemID: basicsAI,
				ActivityPeriod: suotarfake.Period{StartDate: schedule.HelsinkiDate(testNow).AddDays(-90).String(), EndDate: schedule.HelsinkiDate(testNow).AddDays(20).String()},
				Teachers:       []string{"hy-hlo-131122009"}}}}).
		Allow(basicsCode, "Ohjelmoinnin perusteet")
	w.AddEnrolment(suotarfake.Enrolment{PersonID: annaPerson, CourseUnitRealisationID: basicsReal, StudyRightID: "otm-sr-1"})
	return w
}

// submissionOf is a submission Suotar made of Anna's grade 4, 30 hours before testNow.
func submissionOf(id string) suotarfake.Submission {
	return suotarfake.Submission{ID: id, StudentNumber: annaNumber, PersonID: annaPerson, CourseCode: basicsCode,
		CourseUnitID: basicsCU, CourseUnitGroupID: "hy-CU-137765567", AssessmentItemID: basicsAI, CourseUnitRealisationID: basicsReal,
		AttainmentDate: attainedDay, AttainmentLanguage: "fi", StudyRightID: "otm-sr-1", GradeScaleID: "sis-0-5", GradeID: "4", Credits: 5,
		SendState: suotarfake.SendAttempted, CreatedAt: suotarfake.DateTime{Time: testNow.Add(-submittedAgo)}}
}

type lookupBundle struct {
	store  *store.Store
	server *httptest.Server
	// client is signed in as support, who may look students up.
	client *http.Client
	fake   *suotarfake.Server
	// clock is regdesk's; it stands at testNow until a test moves it.
	clock  *testClock
	course storetest.Course
	anna   storetest.Student
}

// setupLookup starts regdesk with a real Suotar client talking over HTTP to a fake Suotar serving
// world, on a clock stopped at testNow. A zero timeout means the client's default.
func setupLookup(t *testing.T, world *suotarfake.World, timeout time.Duration, opts ...suotarfake.Option) *lookupBundle {
	t.Helper()
	fake, err := suotarfake.New(fakeToken, append([]suotarfake.Option{
		suotarfake.WithWorld(world), suotarfake.WithClock(suotarfake.NewClock(testNow, 0)),
	}, opts...)...)
	if err != nil {
		t.Fatalf("suotarfake.New: %v", err)
	}
	fakeServer := httptest.NewServer(fake)
	t.Cleanup(fakeServer.Close)
	t.Cleanup(fake.Close) // runs first: ends hanging calls so the server can close
	client, err := suotar.New(suotar.Config{BaseURL: fakeServer.URL + "/api/", Token: fakeToken, Timeout: timeout})
	if err != nil {
		t.Fatalf("suotar.New: %v", err)
	}
	st := storetest.New(t)
	b := &lookupBundle{store: st, fake: fake, clock: newTestClock()}
	b.course = storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: basicsCode})
	b.anna = storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: "anna.aijala@example.invalid", StudentNumber: annaNumber})
	_, lmsClient := storetest.FakeLMS(t, st, b.clock.Now)
	srv := web.New(web.Deps{Store: st, Now: b.clock.Now, Suotar: client, Session: web.SessionConfig{Insecure: true}, LMS: lmsClient})
	b.server = httptest.NewServer(srv.Routes())
	t.Cleanup(b.server.Close)
	signIn := &testBundle{store: st, server: b.server}
	b.client = signIn.login(t, signIn.addAccount(t, "Sami Support", lookupSupportEmail, web.RoleSupport))
	return b
}

// setupSubmitted is setupLookup on lookupWorld with a submission Suotar made of Anna's grade under
// submittedID, which Sisu has since taken through the transition.
func setupSubmitted(t *testing.T, submittedID string, to suotarfake.Transition, opts ...suotarfake.Option) *lookupBundle {
	t.Helper()
	world := lookupWorld()
	world.AddSubmission(submissionOf(submittedID))
	b := setupLookup(t, world, 0, opts...)
	if _, err := b.fake.Transition(submittedID, to); err != nil {
		t.Fatal(err)
	}
	return b
}

// row adds Anna's uncertain row for grade 4 attained on 27 Nov, sent 30 hours ago.
func (b *lookupBundle) row(t *testing.T, submittedID string, edit ...func(*storetest.Registration)) string {
	t.Helper()
	r := storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain", ErrorCode: "sisu_timeout",
		SubmittedAt: ptr(testNow.Add(-submittedAgo)), StateChangedAt: testNow.Add(-submittedAgo), NextAttemptAt: testNow.Add(time.Hour),
		StudentNumber: annaNumber, SisuPersonID: annaPerson, GradeScaleID: "sis-0-5", GradeID: "4", Credits: 5,
		AttainedAt: ptr(attainedAt), SubmittedAttainmentID: submittedID}
	for _, f := range edit {
		f(&r)
	}
	return storetest.AddRegistration(t, b.store, r)
}

// post sends the lookup form with client c, as htmx does when htmx is true and as a plain browser
// otherwise; redirects are not followed.
func postLookup(t *testing.T, c *http.Client, base, id string, htmx bool) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/registrations/"+id+"/lookup", nil)
	if err != nil {
		t.Fatal(err)
	}
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "lookup")
	}
	return do(t, c, req)
}

// recorded is a lookup's history entry with its details decoded.
type recorded struct {
	event   store.Event
	details map[string]any
}

// lookupChecked posts a lookup with htmx and checks what every lookup must do: answer 200 with
// the region, record one sisu_lookup with its duration, and leave the row as it was.
func (b *lookupBundle) lookupChecked(t *testing.T, id string) (string, recorded) {
	t.Helper()
	ctx := context.Background()
	before, err := b.store.RegistrationGet(ctx, storetest.Now(), id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	eventsBefore, err := b.store.EventListByRegistration(ctx, id)
	if err != nil {
		t.Fatal(err)
	}

	resp, body := postLookup(t, b.client, b.server.URL, id, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST lookup = %d, want 200:\n%s", resp.StatusCode, body)
	}
	if strings.Contains(body, "<html") || !strings.Contains(body, `id="lookup"`) || !strings.Contains(body, `data-testid="lookup"`) {
		t.Errorf("the htmx answer is not the lookup region:\n%s", body)
	}
	if !strings.Contains(body, `id="timeline" class="panel" data-testid="timeline" hx-swap-oob="true"`) {
		t.Errorf("the htmx answer does not refresh the history out of band")
	}

	after, err := b.store.RegistrationGet(ctx, storetest.Now(), id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) || after.State != before.State ||
		after.ErrorCode != before.ErrorCode || after.NeedsAdminAttention != before.NeedsAdminAttention {
		t.Errorf("the lookup changed the row: version %d → %d, updated_at %v → %v, state %s → %s",
			before.Version, after.Version, before.UpdatedAt, after.UpdatedAt, before.State, after.State)
	}
	events, err := b.store.EventListByRegistration(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != len(eventsBefore)+1 || events[0].Kind != "sisu_lookup" {
		t.Fatalf("history has %d events (was %d), newest %q; want one more, a sisu_lookup", len(events), len(eventsBefore), events[0].Kind)
	}
	rec := recorded{event: events[0]}
	if err := json.Unmarshal(events[0].Details, &rec.details); err != nil {
		t.Fatalf("details are not JSON: %v", err)
	}
	if _, ok := rec.details["duration_ms"].(float64); !ok {
		t.Errorf("details have no duration_ms: %s", events[0].Details)
	}
	if e := events[0]; e.SuotarEndpoint == nil || *e.SuotarEndpoint != "resolve_enrolments" || e.SuotarRequestedAt == nil || e.SuotarAnswer == nil {
		t.Errorf("the lookup event lacks its Suotar call: %+v", e)
	}
	if e := events[0]; e.Message == nil || *e.Message == "" {
		t.Errorf("the lookup event has no message")
	}
	for _, personal := range []string{"Anna Sofia", "Äijälä", "helsinki.example", "anna.aijala"} {
		if strings.Contains(string(events[0].Details), personal) || strings.Contains(store.Deref(events[0].Message), personal) {
			t.Errorf("the recorded lookup holds %q: %s", personal, events[0].Details)
		}
	}
	return body, rec
}

func verdictOf(rec recorded) string {
	v, _ := rec.details["verdict"].(map[string]any)
	k, _ := v["kind"].(string)
	return k
}

func TestLookupOfALandedUncertainRowSaysRegistered(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-landed", suotarfake.TransitionRegistered)
	id := b.row(t, "hy-kur-landed")

	body, rec := b.lookupChecked(t, id)
	if got := verdictOf(rec); got != "registered" {
		t.Fatalf("verdict = %q, want registered; details %s", got, rec.event.Details)
	}
	for _, want := range []string{`data-verdict="registered"`, "Registered in Sisu", `data-status="match"`, "hy-kur-landed", "Course unit",
		`data-testid="lookup-verify"`, "registered", "The credit counts"} {
		if !strings.Contains(body, want) {
			t.Errorf("the region lacks %q", want)
		}
	}
	if got := *rec.event.SuotarAnswer; got != "answered" {
		t.Errorf("suotar_answer = %q, want answered", got)
	}
	verify, _ := rec.details["verify_call"].(map[string]any)
	if verify["code"] != "registered" || verify["attainment_type"] != "CourseUnitAttainment" {
		t.Errorf("verify call recorded as %v, want registered with the course unit attainment", verify)
	}
	if rec.details["person"] != "same_as_row" || rec.details["person_id"] != annaPerson {
		t.Errorf("person = %v %v, want the row's own person", rec.details["person"], rec.details["person_id"])
	}
	held, _ := rec.details["attainments"].([]any)
	if len(held) != 2 {
		t.Fatalf("recorded %d attainments, want the assessment item and the course unit attainment", len(held))
	}
	first, _ := held[0].(map[string]any)
	for _, key := range []string{"id", "type", "state", "attainment_date", "registration_date", "grade_scale_id", "grade_id"} {
		if first[key] == nil || first[key] == "" {
			t.Errorf("recorded attainment lacks %s: %v", key, first)
		}
	}
	if _, ok := first["person_id"]; ok {
		t.Errorf("a recorded attainment keeps its person id: %v", first)
	}
}

func TestLookupWithoutSubmittedIdMatchesByDate(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-unnamed", suotarfake.TransitionRegistered)
	// The import went unanswered, so the row never learnt the id: only the rule can find it.
	id := b.row(t, "")

	body, rec := b.lookupChecked(t, id)
	if got := verdictOf(rec); got != "registered" {
		t.Errorf("verdict = %q, want registered", got)
	}
	if _, asked := rec.details["verify_call"]; asked {
		t.Errorf("verify was asked without a submitted id")
	}
	if !strings.Contains(body, "Not asked") {
		t.Errorf("the region does not say verify was not asked")
	}
}

func TestLookupOfARowThatDidNotLandSaysNotInSisu(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-lost", suotarfake.TransitionLost)
	id := b.row(t, "hy-kur-lost")

	body, rec := b.lookupChecked(t, id)
	if got := verdictOf(rec); got != "not_in_sisu" {
		t.Fatalf("verdict = %q, want not_in_sisu; details %s", got, rec.event.Details)
	}
	for _, want := range []string{"Not in Sisu", `data-testid="lookup-nothing"`, "notRegistered", "no evidence"} {
		if !strings.Contains(body, want) {
			t.Errorf("the region lacks %q", want)
		}
	}
}

func TestLookupOfAPartialRowShowsOnlyTheAssessmentItem(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-partial", suotarfake.TransitionPartial)
	id := b.row(t, "hy-kur-partial", func(r *storetest.Registration) {
		r.State, r.ErrorCode, r.PartiallyRegisteredAt = "partially_registered", "", ptr(testNow.Add(-2*time.Hour))
	})

	body, rec := b.lookupChecked(t, id)
	if got := verdictOf(rec); got != "partly_registered" {
		t.Fatalf("verdict = %q, want partly_registered; details %s", got, rec.event.Details)
	}
	if got := strings.Count(body, `data-testid="attainment"`); got != 1 {
		t.Errorf("the region lists %d attainments, want only the assessment item attainment", got)
	}
	for _, want := range []string{"Only the assessment item", "Assessment item", `data-id="hy-kur-partial" data-status="match"`, "not yet the course unit attainment"} {
		if !strings.Contains(body, want) {
			t.Errorf("the region lacks %q", want)
		}
	}
}

func TestLookupMarksAConflict(t *testing.T) {
	t.Parallel()
	world := lookupWorld()
	world.AddAttainment(suotarfake.Attainment{ID: "otm-graded-3", Type: suotarfake.TypeCourseUnit, PersonID: annaPerson, CourseUnitID: basicsCU,
		AttainmentDate: attainedDay, RegistrationDate: today, State: suotarfake.StateAttained, GradeScaleID: "sis-0-5", GradeID: "3", Credits: 5})
	b := setupLookup(t, world, 0)
	id := b.row(t, "")

	body, rec := b.lookupChecked(t, id)
	if got := verdictOf(rec); got != "conflicting" {
		t.Fatalf("verdict = %q, want conflicting", got)
	}
	for _, want := range []string{"Conflicts", `data-id="otm-graded-3" data-status="conflict"`, "grade 3, regdesk sent 4", `class="nowrap differs"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the region lacks %q", want)
		}
	}
}

func TestLookupSeesAnotherPersonWithoutRecordingThem(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-other", suotarfake.TransitionRegistered)
	id := b.row(t, "", func(r *storetest.Registration) { r.SisuPersonID = "hy-hlo-999999999" })

	body, rec := b.lookupChecked(t, id)
	if rec.details["person"] != "differs_from_row" {
		t.Errorf("person = %v, want differs_from_row", rec.details["person"])
	}
	if strings.Contains(string(rec.event.Details), annaPerson) {
		t.Errorf("the record keeps a person id that is not the row's: %s", rec.event.Details)
	}
	if !strings.Contains(body, "Not the row&#39;s Sisu person") {
		t.Errorf("the region does not warn that the person differs")
	}
}

func TestLookupFailuresAreClearAndRecorded(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		fault   suotarfake.Fault
		timeout time.Duration
		message string
		answer  string
		atLeast time.Duration
	}{
		{name: "Unavailable503", fault: suotarfake.Fault{Effect: suotarfake.FaultUnavailable},
			message: "Suotar is unavailable, try again in a minute.", answer: "refused"},
		{name: "ProxyHTML502", fault: suotarfake.Fault{Effect: suotarfake.FaultBadGateway},
			message: "Suotar failed while answering; try again in a minute.", answer: "unanswered"},
		{name: "Hang", fault: suotarfake.Fault{Effect: suotarfake.FaultHang}, timeout: 400 * time.Millisecond,
			message: "Suotar did not answer within 0.4 seconds; try again.", answer: "unanswered", atLeast: 400 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fault.Endpoint = suotarfake.PathResolveEnrolments
			b := setupLookup(t, lookupWorld(), tc.timeout, suotarfake.WithFaults(tc.fault))
			id := b.row(t, "")

			body, rec := b.lookupChecked(t, id)
			if !strings.Contains(body, `data-testid="lookup-error"`) || !strings.Contains(body, tc.message) {
				t.Errorf("the region does not show %q:\n%s", tc.message, body)
			}
			if !strings.Contains(body, "Nothing was changed") {
				t.Errorf("the region does not say nothing changed")
			}
			if got := store.Deref(rec.event.SuotarAnswer); got != tc.answer {
				t.Errorf("suotar_answer = %q, want %q", got, tc.answer)
			}
			// A failed call is not an answer: the verdict is "cannot tell", naming the call.
			say, _ := json.Marshal(rec.details["verdict"].(map[string]any)["say"])
			if verdictOf(rec) != "cannot_tell" || !strings.Contains(string(say), `"k":"why.cannotTellFailed"`) || !strings.Contains(string(say), `"k":"call.attainments"`) {
				t.Errorf("recorded verdict %q, say %s; want cannot_tell naming the failed call", verdictOf(rec), say)
			}
			if ms, _ := rec.details["duration_ms"].(float64); time.Duration(ms)*time.Millisecond < tc.atLeast {
				t.Errorf("duration_ms = %v, want at least %v", ms, tc.atLeast)
			}
			if got := store.Deref(rec.event.Message); !strings.HasPrefix(got, "Cannot tell: The call for the student's attainments on the course failed") {
				t.Errorf("message = %q, want the failure in words", got)
			}
		})
	}
}

func TestLookupWithoutJavaScriptRedirectsToThePage(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-landed", suotarfake.TransitionRegistered)
	id := b.row(t, "hy-kur-landed")

	_, page := (&testBundle{server: b.server, client: b.client}).get(t, "/registrations/"+id, false)
	if !strings.Contains(page, `data-testid="lookup-none"`) || !strings.Contains(page, `action="/registrations/`+id+`/lookup"`) {
		t.Errorf("before a lookup the page lacks the plain form")
	}

	resp, _ := postLookup(t, b.client, b.server.URL, id, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST without htmx = %d, want 303", resp.StatusCode)
	}
	if got := resp.Header.Get("Location"); got != "/registrations/"+id+"#lookup" {
		t.Errorf("Location = %q", got)
	}
	_, page = (&testBundle{server: b.server, client: b.client}).get(t, "/registrations/"+id, false)
	for _, want := range []string{`data-verdict="registered"`, "Registered in Sisu", `data-testid="lookup-meta"`, "Looked up", "Look up again",
		`data-kind="sisu_lookup"`, "Looked up in Sisu · Registered in Sisu"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page after the lookup lacks %q", want)
		}
	}
}

func TestLookupWithoutSuotarExplainsInsteadOfFailing(t *testing.T) {
	t.Parallel()
	b := setup(t) // no Registry

	_, page := b.get(t, "/registrations/"+b.uncertainOverdue, false)
	if !strings.Contains(page, `data-testid="lookup-unavailable"`) || !strings.Contains(page, "Suotar is not configured") {
		t.Errorf("the page does not explain that Suotar is not configured")
	}
	resp, body := postLookup(t, b.client, b.server.URL, b.uncertainOverdue, true)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "Suotar is not configured") {
		t.Errorf("POST lookup = %d %s, want 503 with the explanation", resp.StatusCode, body)
	}
	events, err := b.store.EventListByRegistration(context.Background(), b.uncertainOverdue)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Kind == "sisu_lookup" {
			t.Errorf("a lookup that never happened was recorded")
		}
	}
}

func TestLookupRefusesARowWithNothingToLookUp(t *testing.T) {
	t.Parallel()
	b := setupLookup(t, lookupWorld(), 0)
	unlinked := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Ville", LastName: "V", Email: "v@example.invalid"})
	id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: unlinked, Course: b.course, State: "pending"})

	resp, body := postLookup(t, b.client, b.server.URL, id, true)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "no student number") {
		t.Errorf("POST lookup = %d %s, want 422 saying there is no student number", resp.StatusCode, body)
	}
	if calls := b.fake.Calls(); len(calls) != 0 {
		t.Errorf("Suotar was called %d times for a row with nothing to look up", len(calls))
	}
	for _, path := range []string{"/registrations/" + storetest.NewID() + "/lookup", "/registrations/not-a-uuid/lookup"} {
		resp, err := b.client.Post(b.server.URL+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s = %d, want 404", path, resp.StatusCode)
		}
	}
}

// A verify call that fails leaves the lookup unable to say "not in Sisu", even when the attainment
// list shows nothing, and the resubmit it would have unlocked stays refused.
func TestLookupWithAFailedVerifyCallCannotTellAndResubmitStaysRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault suotarfake.Fault
	}{
		{"Unavailable503", suotarfake.Fault{Effect: suotarfake.FaultUnavailable}},
		{"ProxyHTML502", suotarfake.Fault{Effect: suotarfake.FaultBadGateway}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			world := lookupWorld()
			lost := submissionOf("hy-kur-lost")
			lost.SendState = suotarfake.SendRejected // Sisu never took it: a clean lookup would find nothing
			world.AddSubmission(lost)
			tc.fault.Endpoint = suotarfake.PathVerifyAttainments
			b := setupLookup(t, world, 0, suotarfake.WithFaults(tc.fault))
			id := b.row(t, "hy-kur-lost")

			body, rec := b.lookupChecked(t, id)
			// The history's line is the English catalogue's wording of the recorded phrases.
			message := store.Deref(rec.event.Message)
			if got := verdictOf(rec); got != "cannot_tell" || !strings.Contains(message, "The verify call for the submitted attainment failed") {
				t.Fatalf("verdict = %q (%s), want cannot_tell naming the verify call", got, message)
			}
			if !strings.Contains(body, `data-testid="lookup-error"`) || !strings.Contains(body, "Suotar&#39;s verify call for the submitted attainment failed") {
				t.Errorf("the region does not say the verify call failed:\n%s", body)
			}
			tb := &testBundle{store: b.store, server: b.server, client: b.client}
			_, page := tb.get(t, "/registrations/"+id, false)
			item := actionItem(t, page, schedule.ActionResubmit)
			if !strings.Contains(item, `data-allowed="false"`) {
				t.Errorf("resubmit is allowed on a lookup whose verify call failed:\n%s", item)
			}
		})
	}
}

// TestLookupRecordedInTodaysShapeShows reads a lookup written before the record had one type: the
// page shows its verdict, calls and attainments, and the rules let the row be marked on it.
func TestLookupRecordedInTodaysShapeShows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.addLookup(t, b.uncertainOverdue, testNow.Add(-time.Minute), b.support, storetest.LookupRecordedRegistered)

	_, page := b.get(t, "/registrations/"+b.uncertainOverdue, false)
	for _, want := range []string{`data-verdict="registered"`, "Registered in Sisu", "X-Correlation-Id c-1", "X-Correlation-Id c-2", "hy-cu-1",
		"Sisu holds the course unit attainment this submission created.", "Looked up in Sisu · Registered in Sisu · 412 ms",
		`data-testid="action-check_now"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "cannot show") {
		t.Error("the page says it cannot show the lookup")
	}
	acts, err := b.store.RegistrationPageGet(context.Background(), testNow, b.uncertainOverdue, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range acts.Decisions {
		if d.Action == schedule.ActionCheckNow && !d.Allowed {
			t.Errorf("check now refused on the lookup: %+v", d)
		}
		if d.Action == schedule.ActionResubmit && d.Allowed {
			t.Errorf("resubmit allowed though the lookup found the credit: %+v", d)
		}
	}
	if acts.Lookup == nil || acts.Lookup.MatchID != "hy-cu-1" || !acts.Lookup.MatchOurs || acts.Lookup.MatchType != schedule.AttainmentCourseUnit {
		t.Errorf("lookup as the rules read it = %+v", acts.Lookup)
	}
}

// A lookup is work on the row: it keeps the looker's own claim from lapsing while they work, and
// on a row nobody is on it puts them on it, so the next person sees who is already looking.
func TestLookupRefreshesOrStartsTheLookersClaim(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-claimed", suotarfake.TransitionRegistered)
	ctx := context.Background()
	claimed := b.row(t, "hy-kur-claimed")
	signIn := &testBundle{store: b.store, server: b.server}
	if resp, _ := signIn.postForm(t, b.client, "/registrations/"+claimed+"/claim", url.Values{}); resp.StatusCode >= 400 {
		t.Fatalf("claim: %d", resp.StatusCode)
	}
	lapse := store.DefaultClaimLapse
	// Time passes with Sami at work: the session stays alive, the claim is not touched.
	pass := func(d time.Duration) {
		t.Helper()
		for ; d > 0; d -= 30 * time.Minute {
			b.clock.Advance(min(d, 30*time.Minute))
			if resp, _ := signIn.getWith(t, b.client, "/", false); resp.StatusCode != http.StatusOK {
				t.Fatalf("GET / = %d", resp.StatusCode)
			}
		}
	}
	pass(lapse - time.Hour)
	body, _ := b.lookupChecked(t, claimed)
	if !strings.Contains(body, `data-testid="claim-panel" data-claimed="true" data-mine="true" hx-swap-oob="true"`) {
		t.Errorf("the lookup's answer does not redraw the claim panel:\n%s", body)
	}
	// Past the lapse counted from the claim, but not from the lookup: still Sami's.
	pass(2 * time.Hour)
	reg, err := b.store.RegistrationGet(ctx, storetest.Now(), claimed, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if c := reg.ClaimColumns.Claim(b.clock.Now(), lapse); c == nil || c.AccountName != "Sami Support" || !c.ClaimedAt.Equal(testNow) {
		t.Fatalf("after a lookup, %v past the claim: claim %+v, want Sami's, from %v", lapse+time.Hour, c, testNow)
	}

	// A row nobody is on becomes the looker's, with its audit entry.
	free := b.row(t, "hy-kur-claimed", func(r *storetest.Registration) { r.SisuPersonID = "" })
	b.lookupChecked(t, free)
	reg, err = b.store.RegistrationGet(ctx, storetest.Now(), free, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if c := reg.ClaimColumns.Claim(b.clock.Now(), lapse); c == nil || c.AccountName != "Sami Support" {
		t.Fatalf("a lookup of a free row: claim %+v, want Sami's", c)
	}
	audit, _, err := b.store.AuditList(ctx, store.AuditFilter{RegistrationID: free}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(audit) != 1 || audit[0].Action != "claim" || audit[0].Reason != store.LookupClaimReason {
		t.Errorf("audit of the free row: %+v, want one claim saying %q", audit, store.LookupClaimReason)
	}
}
