package web_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"regdesk/handaction"
	"regdesk/maintenance"
	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/web"
)

// testNow is the fixed clock of every handler test.
var testNow = storetest.Now()

// testPassword is every test account's password.
const testPassword = "correct horse battery staple"

// testClock is a clock tests can move: the limits on sign-ins count time.
type testClock struct{ ns atomic.Int64 }

func newTestClock() *testClock { c := &testClock{}; c.ns.Store(testNow.UnixNano()); return c }

func (c *testClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }
func (c *testClock) Set(t time.Time)         { c.ns.Store(t.UnixNano()) }

// testAccount is a signed-up person of a test.
type testAccount struct {
	ID, Name, Email string
	Role            web.Role
	// LMSUserID is the LMS user a support person or admin is; "" for a teacher.
	LMSUserID string
}

type testBundle struct {
	store  *store.Store
	server *httptest.Server
	clock  *testClock
	course storetest.Course
	anna   storetest.Student
	// ids of the fixture rows, by what they show.
	uncertainOverdue, dense, settled, permanent string
	// One account per role; the teacher teaches course.
	admin, support, teacher testAccount
	// client is signed in as support: the role of most tests.
	client *http.Client
	// lmsFake is the LMS's admin endpoints the server takes hand actions through, and lms a
	// client of it.
	lmsFake *lmsfake.Server
	lms     *lms.Client
}

// actAs takes a hand action as a, through the same service and LMS the server uses.
func (b *testBundle) actAs(t *testing.T, at time.Time, a testAccount, p store.ActionParams) (handaction.Result, error) {
	t.Helper()
	p.Actor = store.ActionActor{ID: a.ID, Role: string(a.Role), LMSUserID: a.LMSUserID}
	svc := &handaction.Service{Store: b.store, LMS: b.lms, Now: b.clock.Now}
	// The LMS dates what it writes by its clock: the action's instant, as if it happened then.
	was := b.clock.Now()
	b.clock.Set(at)
	defer b.clock.Set(was)
	return svc.Apply(context.Background(), at, p)
}

func ptr[T any](v T) *T { return &v }

// setup starts regdesk on a fresh database holding a handful of rows in known places and an
// account per role, and signs in as support.
func setup(t *testing.T) *testBundle { return setupWith(t, nil) }

// setupWith is setup with the server's dependencies adjusted by edit first.
func setupWith(t *testing.T, edit func(*web.Deps)) *testBundle {
	t.Helper()
	return setupOn(t, storetest.New(t), edit)
}

// setupOn is setupWith on a store the test opened itself.
func setupOn(t *testing.T, st *store.Store, edit func(*web.Deps)) *testBundle {
	t.Helper()
	b := &testBundle{store: st, clock: newTestClock()}
	b.course = storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	b.anna = storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: "anna.aijala@example.invalid", StudentNumber: "014979622"})
	other := storetest.AddStudent(t, st, storetest.Student{FirstName: "Ben", LastName: "Okafor", Email: "ben@example.invalid", StudentNumber: "015448314"})
	b.uncertainOverdue = storetest.AddRegistration(t, st, storetest.Registration{
		Student: b.anna, Course: b.course, State: "submission_uncertain", ErrorCode: "sisu_timeout",
		SubmittedAt: ptr(testNow.Add(-30 * time.Hour)), StateChangedAt: testNow.Add(-30 * time.Hour),
		NextAttemptAt: testNow.Add(2 * time.Hour), StudentNumber: "014979622", GradeScaleID: "sis-0-5", GradeID: "4", Credits: 5,
	})
	b.dense = storetest.AddRegistration(t, st, storetest.Registration{
		Student: other, Course: b.course, State: "awaiting_verification",
		SubmittedAt: ptr(testNow.Add(-6 * time.Hour)), StateChangedAt: testNow.Add(-6 * time.Hour),
		NextAttemptAt: testNow.Add(20 * time.Minute), StudentNumber: "015448314", SubmittedAttainmentID: "hy-kur-1",
	})
	b.settled = storetest.AddRegistration(t, st, storetest.Registration{
		Student: other, Course: b.course, State: "registered", StateChangedAt: testNow.Add(-50 * time.Hour),
		SisuAttainmentID: "otm-1",
	})
	b.permanent = storetest.AddRegistration(t, st, storetest.Registration{
		Student: b.anna, Course: b.course, State: "failed_permanent", ErrorCode: "course_not_allowed",
		NeedsAdminAttention: true, StateChangedAt: testNow.Add(-3 * time.Hour),
	})
	b.admin = b.addAccount(t, "Aino Admin", "admin@example.invalid", web.RoleAdmin)
	b.support = b.addAccount(t, "Sami Support", "support@example.invalid", web.RoleSupport)
	b.teacher = b.addAccount(t, "Tuula Teacher", "teacher@example.invalid", web.RoleTeacher, b.course.ID)

	b.lmsFake, b.lms = storetest.FakeLMS(t, st, b.clock.Now)
	// No refresh job runs beside a test, whose copy of the ledger is synced by the fixtures: the
	// banner that the copy is behind is TestPagesSayWhenTheLedgerCopyIsBehind's.
	deps := web.Deps{Store: st, Now: b.clock.Now, Session: web.SessionConfig{Insecure: true}, LMS: b.lms, MirrorStaleAfter: -1}
	if edit != nil {
		edit(&deps)
	}
	// The bulk applies a request queues run in this instance's job, as a server's do.
	bulk := &maintenance.BulkApply{Store: deps.Store, Actions: &handaction.Service{Store: deps.Store, LMS: deps.LMS, Now: b.clock.Now},
		Now: b.clock.Now, Log: slog.New(slog.DiscardHandler)}
	runner := &maintenance.Runner{Jobs: []maintenance.Job{bulk}, Log: slog.New(slog.DiscardHandler)}
	runner.Start(context.Background())
	t.Cleanup(runner.Stop)
	deps.BulkQueued = bulk.Queued
	srv := web.New(deps)
	t.Cleanup(srv.Close)
	b.server = httptest.NewServer(srv.Routes())
	t.Cleanup(b.server.Close)
	b.client = b.login(t, b.support)
	return b
}

// addAccount creates an account with testPassword teaching courseIDs.
func (b *testBundle) addAccount(t *testing.T, name, email string, role web.Role, courseIDs ...string) testAccount {
	t.Helper()
	hash, err := b.store.HashPassword(testPassword)
	if err != nil {
		t.Fatal(err)
	}
	// Support and admins are LMS users too, as whom their hand actions are asked of the LMS.
	var lmsUser string
	if role != web.RoleTeacher {
		lmsUser = storetest.AddLMSAdmin(t, b.store, name, email)
	}
	acct, err := b.store.AccountCreate(context.Background(), store.AccountCreateParams{
		Name: name, Email: email, Role: string(role), PasswordHash: hash, CourseIDs: courseIDs, LMSUserID: lmsUser,
	})
	if err != nil {
		t.Fatalf("AccountCreate(%s): %v", email, err)
	}
	return testAccount{ID: acct.ID, Name: name, Email: email, Role: role, LMSUserID: lmsUser}
}

// addForeignRow adds a course the bundle's teacher does not teach, with Cecilia, a student of only
// that course, and returns the course and her flagged registration on it.
func (b *testBundle) addForeignRow(t *testing.T) (storetest.Course, string) {
	t.Helper()
	other := storetest.AddCourse(t, b.store, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	cecilia := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Cecilia", LastName: "Virtanen", Email: "cecilia@example.invalid", StudentNumber: "016000001"})
	foreign := storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: cecilia, Course: other, State: "failed_permanent", ErrorCode: "course_not_allowed",
		NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Hour),
	})
	return other, foreign
}

// newClient returns a client with a cookie jar of its own that reports redirects instead of
// following them.
func newClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// login signs a in through the form and returns a client holding the session.
func (b *testBundle) login(t *testing.T, a testAccount) *http.Client {
	t.Helper()
	c := newClient(t)
	resp, body := b.postForm(t, c, "/login", url.Values{"email": {a.Email}, "password": {testPassword}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in as %s: status %d, want 303\n%s", a.Email, resp.StatusCode, body)
	}
	return c
}

// clientFor returns a fresh client signed in with role, or an anonymous one for "".
func (b *testBundle) clientFor(t *testing.T, role web.Role) *http.Client {
	t.Helper()
	switch role {
	case web.RoleAdmin:
		return b.login(t, b.admin)
	case web.RoleSupport:
		return b.login(t, b.support)
	case web.RoleTeacher:
		return b.login(t, b.teacher)
	}
	return newClient(t)
}

// do sends req with c and returns the answer and its body.
func do(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// postForm posts form to path with c, as a plain browser form would.
func (b *testBundle) postForm(t *testing.T, c *http.Client, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.server.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, c, req)
}

// get fetches path as support, with htmx's request headers when htmx is true.
func (b *testBundle) get(t *testing.T, path string, htmx bool) (*http.Response, string) {
	t.Helper()
	return b.getWith(t, b.client, path, htmx)
}

// getWith fetches path with c, with htmx's request headers when htmx is true.
func (b *testBundle) getWith(t *testing.T, c *http.Client, path string, htmx bool) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "queue-results")
	}
	return do(t, c, req)
}

func TestQueueShowsWhatNeedsAdminByDefault(t *testing.T) {
	t.Parallel()
	b := setup(t)

	resp, body := b.get(t, "/", false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d, want 200", resp.StatusCode)
	}
	for _, id := range []string{b.uncertainOverdue, b.permanent} {
		if !strings.Contains(body, `data-id="`+id+`"`) {
			t.Errorf("GET / does not list row %s, which needs admin", id)
		}
	}
	for _, id := range []string{b.dense, b.settled} {
		if strings.Contains(body, `data-id="`+id+`"`) {
			t.Errorf("GET / lists row %s, which needs no admin", id)
		}
	}
	if !strings.Contains(body, `data-testid="count-needs_admin" data-count="2"`) {
		t.Errorf("GET / does not count 2 rows needing admin")
	}
	if !strings.Contains(body, `data-testid="count-outcome_uncertain" data-count="1"`) {
		t.Errorf("GET / does not count the overdue uncertain row under its reason")
	}
}

// An uncertain row is on the needs-a-person list from its first moment, under the LMS's one
// reason, saying what a person can do now and, separately, when the pipeline escalates it; one
// without a submission time shows too, with a note that it never escalates.
func TestQueueShowsEveryUncertainRowAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fresh := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: ptr(testNow.Add(-10 * time.Minute)), StateChangedAt: testNow.Add(-10 * time.Minute),
		NextAttemptAt: testNow.Add(5 * time.Minute)})
	noTime := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", StateChangedAt: testNow.Add(-40 * 24 * time.Hour), NextAttemptAt: testNow.Add(time.Hour)})

	_, body := b.get(t, "/", false)
	for _, id := range []string{fresh, noTime} {
		if !strings.Contains(body, `data-id="`+id+`"`) {
			t.Errorf("GET / does not list the uncertain row %s", id)
		}
	}
	for _, want := range []string{`data-testid="count-needs_admin" data-count="4"`, `data-testid="count-outcome_uncertain" data-count="3"`,
		`data-note="submission_time_missing"`, `data-note="uncertain_overdue"`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET / lacks %s", want)
		}
	}
	_, page := b.get(t, "/registrations/"+fresh, false)
	text := html.UnescapeString(page)
	for _, want := range []string{"Outcome uncertain", "Look it up in Sisu now", "about an hour"} {
		if !strings.Contains(text, want) {
			t.Errorf("the fresh uncertain row's page lacks %q", want)
		}
	}
	// It escalates a day after sending, not now.
	if !strings.Contains(page, `datetime="`+testNow.Add(-10*time.Minute+24*time.Hour).UTC().Format(time.RFC3339)+`"`) {
		t.Errorf("the page does not count down to the escalation a day after sending")
	}
	_, page = b.get(t, "/registrations/"+noTime, false)
	if text := html.UnescapeString(page); !strings.Contains(text, "Sent at an unknown time") || !strings.Contains(text, "can never be resubmitted") {
		t.Errorf("the row without a submission time does not say what that means")
	}
	_, body = b.get(t, "/?reason=outcome_uncertain", false)
	for _, id := range []string{fresh, noTime, b.uncertainOverdue} {
		if !strings.Contains(body, `data-id="`+id+`"`) {
			t.Errorf("the outcome_uncertain filter does not list the uncertain row %s", id)
		}
	}
	if strings.Contains(body, `data-id="`+b.permanent+`"`) {
		t.Errorf("the outcome_uncertain filter lists a row that is not uncertain")
	}
}

// A row only stuck in its state runs late: it is on no needs-a-person list or count, the queue
// counts and lists it under standing=running_late, and its page says so. A stuck row with a
// person-level reason too needs admin instead.
func TestQueueListsRunningLateApart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	late := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "ready_to_submit",
		StateChangedAt: testNow.Add(-3 * time.Hour), NextAttemptAt: testNow.Add(time.Minute)})
	lateAndTried := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_retryable",
		StateChangedAt: testNow.Add(-4 * 24 * time.Hour), FirstFailedAt: ptr(testNow.Add(-4 * 24 * time.Hour)), SubmitRetryCount: 5,
		NextAttemptAt: testNow.Add(time.Hour)})

	_, body := b.get(t, "/", false)
	for _, want := range []string{`data-testid="count-needs_admin" data-count="3"`, `data-testid="count-running_late" data-count="1"`,
		`data-testid="count-stuck_in_state" data-count="2"`, `href="/?show=all&amp;standing=running_late"`, `data-testid="filter-standing"`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET / lacks %s", want)
		}
	}
	if strings.Contains(body, `data-id="`+late+`"`) || !strings.Contains(body, `data-id="`+lateAndTried+`"`) {
		t.Errorf("the needs-admin list does not hold exactly the stuck row with a person-level reason")
	}
	_, body = b.get(t, "/?show=all&standing=running_late", false)
	if !strings.Contains(body, `data-id="`+late+`"`) || strings.Contains(body, `data-id="`+lateAndTried+`"`) || strings.Contains(body, `data-id="`+b.permanent+`"`) {
		t.Errorf("standing=running_late does not list exactly the row only stuck in its state")
	}
	if !strings.Contains(body, `data-reason="stuck_in_state"`) {
		t.Errorf("the running-late row does not show its reason")
	}
	_, page := b.get(t, "/registrations/"+late, false)
	if !strings.Contains(page, `data-testid="running-late"`) || strings.Contains(page, `data-testid="needs-admin"`) {
		t.Errorf("the running-late row's page does not say it runs late")
	}
}

func TestQueueFilterByPhaseSwapsOnlyTheList(t *testing.T) {
	t.Parallel()
	b := setup(t)

	resp, body := b.get(t, "/?show=all&phase=dense_window", true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	if got := resp.Header.Get("Vary"); !strings.Contains(got, "HX-Request") {
		t.Errorf("Vary = %q, want it to name HX-Request", got)
	}
	if strings.Contains(body, "<html") {
		t.Errorf("an htmx filter request got a full page, want the list fragment")
	}
	if !strings.Contains(body, `data-id="`+b.dense+`" data-state="awaiting_verification" data-phase="dense_window"`) {
		t.Errorf("the dense-window row is missing from the fragment:\n%s", body)
	}
	if strings.Contains(body, `data-id="`+b.uncertainOverdue+`"`) {
		t.Errorf("the fragment lists a row outside the dense window")
	}

	_, page := b.get(t, "/?show=all&phase=dense_window", false)
	if !strings.Contains(page, "<html") {
		t.Errorf("a navigation got a fragment, want the full page")
	}
}

func TestQueueSearchFindsStudentsIgnoringAccentsAndCase(t *testing.T) {
	t.Parallel()
	b := setup(t)

	_, body := b.get(t, "/?show=all&q="+url.QueryEscape("AIJALA"), true)
	if !strings.Contains(body, `data-id="`+b.uncertainOverdue+`"`) || !strings.Contains(body, `data-id="`+b.permanent+`"`) {
		t.Errorf("searching AIJALA does not find Anna Äijälä's rows")
	}
	if strings.Contains(body, `data-id="`+b.dense+`"`) {
		t.Errorf("searching AIJALA finds another student's row")
	}
	_, body = b.get(t, "/?show=all&q=015448314", true)
	if !strings.Contains(body, `data-id="`+b.dense+`"`) || strings.Contains(body, `data-id="`+b.permanent+`"`) {
		t.Errorf("searching by student number does not find exactly that student's rows")
	}
}

func TestQueueRefusesUnknownFilterValuesClearly(t *testing.T) {
	t.Parallel()
	b := setup(t)

	for _, path := range []string{"/?phase=soon", "/?state=lost", "/?course=TKT", "/?after=garbage", "/?show=mine", "/?reason=%27;DROP",
		"/?standing=late", "/?reason=uncertain_overdue", "/?reason=running_late", "/?reason=partial_overdue",
		"/?reason=submission_time_missing", "/?reason=stuck_past_recovery_grace"} {
		resp, body := b.get(t, path, false)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", path, resp.StatusCode)
		}
		// A reason regdesk used before it took the LMS's is refused like any unknown value, by name.
		if k, v, _ := strings.Cut(path, "="); (k == "/?reason" || k == "/?standing") && !strings.Contains(v, "%") && !strings.Contains(body, v) {
			t.Errorf("GET %s: the refusal does not name %q", path, v)
		}
		if !strings.Contains(body, `data-testid="error-page"`) {
			t.Errorf("GET %s did not render the error page", path)
		}
		if strings.Contains(strings.ToLower(body), "sql") || strings.Contains(body, "pgx") {
			t.Errorf("GET %s leaks internals: %s", path, body)
		}
	}
}

func TestQueuePagesByKeyset(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 55 {
		storetest.AddRegistration(t, b.store, storetest.Registration{
			Student: b.anna, Course: b.course, State: "registered",
			StateChangedAt: testNow.Add(-time.Duration(i+100) * time.Minute),
		})
	}

	_, first := b.get(t, "/?show=all&state=registered", true)
	if got := strings.Count(first, `data-testid="registration-row"`); got != 50 {
		t.Fatalf("first page has %d rows, want 50", got)
	}
	i := strings.Index(first, `data-testid="next-page"`)
	if i < 0 {
		t.Fatal("first page has no next-page link")
	}
	href := first[strings.LastIndex(first[:i], `href="`)+6:]
	href = strings.ReplaceAll(href[:strings.Index(href, `"`)], "&amp;", "&")
	_, second := b.get(t, href, true)
	if got := strings.Count(second, `data-testid="registration-row"`); got != 6 {
		t.Errorf("second page has %d rows, want the remaining 6", got)
	}
	if strings.Contains(second, `data-testid="next-page"`) {
		t.Errorf("the last page offers a next page")
	}
}

func TestRegistrationPage(t *testing.T) {
	t.Parallel()
	b := setup(t)

	resp, body := b.get(t, "/registrations/"+b.uncertainOverdue, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	for _, want := range []string{`data-testid="registration"`, `data-state="submission_uncertain"`, "Anna Äijälä", "TKT10002", `data-kind="created"`, `data-testid="needs-admin"`} {
		if !strings.Contains(body, want) {
			t.Errorf("registration page lacks %s", want)
		}
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store on a page with personal data", got)
	}

	for _, path := range []string{"/registrations/" + storetest.NewID(), "/registrations/not-a-uuid", "/nowhere"} {
		resp, body := b.get(t, path, false)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
		if !strings.Contains(body, `data-testid="request-id"`) {
			t.Errorf("GET %s: the error page shows no request id", path)
		}
	}
}

func TestErrorsInSwapsGoToTheFlash(t *testing.T) {
	t.Parallel()
	b := setup(t)

	resp, body := b.get(t, "/?phase=soon", true)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status = %d, want 400", resp.StatusCode)
	}
	if got := resp.Header.Get("HX-Retarget"); got != "#flash" {
		t.Errorf("HX-Retarget = %q, want #flash", got)
	}
	if !strings.Contains(body, `data-testid="error-flash"`) || strings.Contains(body, "<html") {
		t.Errorf("want only the error flash, got:\n%s", body)
	}
	if !strings.Contains(body, "soon") {
		t.Errorf("the message does not name the bad value")
	}
}

func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t)
	anon := newClient(t)
	request := func(method, path string, header http.Header) *http.Request {
		req, err := http.NewRequest(method, b.server.URL+path, strings.NewReader("email=a%40b.c&password=x"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header[k] = v
		}
		return req
	}
	cases := []struct {
		name   string
		client *http.Client
		req    *http.Request
		// cacheable answers carry no personal data (hashed assets, the icon).
		cacheable bool
	}{
		{"queue", b.client, request(http.MethodGet, "/", nil), false},
		{"not found", b.client, request(http.MethodGet, "/nowhere", nil), false},
		{"healthz", b.client, request(http.MethodGet, "/healthz", nil), false},
		{"favicon", b.client, request(http.MethodGet, "/favicon.ico", nil), true},
		{"sign-in page", anon, request(http.MethodGet, "/login", nil), false},
		{"redirect to sign in", anon, request(http.MethodGet, "/registrations/"+b.dense, nil), false},
		{"failed sign-in", anon, request(http.MethodPost, "/login", nil), false},
		{"anonymous not found", anon, request(http.MethodGet, "/nowhere", nil), false},
		{"method not allowed", b.client, request(http.MethodPost, "/", nil), false},
		{"cross-origin refusal", anon, request(http.MethodPost, "/login", http.Header{"Sec-Fetch-Site": {"cross-site"}}), false},
		{"htmx refusal", anon, request(http.MethodGet, "/queue/counts", http.Header{"Hx-Request": {"true"}}), false},
		{"sign-out redirect", b.login(t, b.admin), request(http.MethodPost, "/logout", nil), false},
	}
	for _, tc := range cases {
		resp, _ := do(t, tc.client, tc.req)
		h := resp.Header
		what := tc.name + " (" + tc.req.Method + " " + tc.req.URL.Path + ")"
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") {
			t.Errorf("%s: Content-Security-Policy = %q", what, csp)
		}
		if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options = %q", what, got)
		}
		if got := h.Get("Referrer-Policy"); got == "" {
			t.Errorf("%s: no Referrer-Policy", what)
		}
		if got := h.Get("Cache-Control"); !tc.cacheable && got != "no-store" {
			t.Errorf("%s: Cache-Control = %q, want no-store", what, got)
		}
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	b := setup(t)
	resp, body := b.get(t, "/healthz", false)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Errorf("GET /healthz = %d %q, want 200 ok", resp.StatusCode, body)
	}
}

func TestStaticAssetsAreHashedAndImmutable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, page := b.get(t, "/", false)
	i := strings.Index(page, `/static/`)
	if i < 0 {
		t.Fatal("the page links no static asset")
	}
	path := page[i:]
	path = path[:strings.IndexByte(path, '"')]
	resp, _ := b.get(t, path, false)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("GET %s = %d, Cache-Control %q", path, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	stale := strings.Replace(path, "/static/", "/static/0000000000", 1)
	if resp, _ := b.get(t, stale, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a stale hash got %d, want 404", resp.StatusCode)
	}
}

func TestRegistrationHistoryFoldsRepeatedPipelineAnswers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	start := testNow.Add(-20 * time.Hour)
	for i := range 12 {
		storetest.AddEvent(t, b.store, b.dense, start.Add(time.Duration(i)*time.Hour), "suotar_response",
			"awaiting_verification", "awaiting_verification", "Sisu has not shown the attainment yet.")
	}
	storetest.AddEvent(t, b.store, b.dense, start.Add(13*time.Hour), "suotar_response",
		"awaiting_verification", "awaiting_verification", "Suotar holds it as pending.")

	_, body := b.get(t, "/registrations/"+b.dense, false)
	if got := strings.Count(body, "Sisu has not shown the attainment yet."); got != 1 {
		t.Errorf("the repeated answer shows %d times, want once", got)
	}
	if !strings.Contains(body, `data-testid="event-repeats" data-repeats="11"`) {
		t.Errorf("the folded entry does not count the 11 earlier polls")
	}
	if !strings.Contains(body, "Suotar holds it as pending.") {
		t.Errorf("a different answer was folded away")
	}
}
