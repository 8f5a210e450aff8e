package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"regdesk/static"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/web"
)

// answer is the kind of response a request gets: a status, and for a redirect where it leads.
type answer struct {
	status   int
	location string
}

func (a answer) String() string {
	if a.location != "" {
		return fmt.Sprintf("%d → %s", a.status, a.location)
	}
	return fmt.Sprint(a.status)
}

var (
	ok200        = answer{status: http.StatusOK}
	notFound404  = answer{status: http.StatusNotFound}
	unauth401    = answer{status: http.StatusUnauthorized}
	forbidden403 = answer{status: http.StatusForbidden}
	// unavailable503 is a lookup without Suotar configured.
	unavailable503 = answer{status: http.StatusServiceUnavailable}
	unproc422      = answer{status: http.StatusUnprocessableEntity}
	badRequest400  = answer{status: http.StatusBadRequest}
	conflict409    = answer{status: http.StatusConflict}
)

// toLogin is the answer to an anonymous visit of a protected page: off to sign in, and back to
// path afterwards.
func toLogin(path string) answer {
	return answer{status: http.StatusSeeOther, location: "/login?next=" + url.QueryEscape(path)}
}

func seeOther(path string) answer { return answer{status: http.StatusSeeOther, location: path} }

// routeCase is one request to a route and the answer each kind of visitor must get.
type routeCase struct {
	path string
	form url.Values // sent as the body of a POST
	// public marks routes anyone may use: every visitor gets the same answer, want.
	public                        bool
	want                          answer // for public routes
	anon, teacher, support, admin answer
}

// routePolicies states who may use every route regdesk serves, keyed by "METHOD pattern" as chi
// reports them ("*" for a route that takes every method). TestEveryRouteHasARolePolicy fails for a
// route missing here: whoever adds a route must say who may use it.
func routePolicies(b *testBundle, foreign string) map[string][]routeCase {
	own := "/registrations/" + b.uncertainOverdue + "?from=alert"
	// The foreign row's student and course are outside the teacher's course.
	elsewhere, err := b.store.RegistrationGet(context.Background(), storetest.Now(), foreign, store.AllCourses())
	if err != nil {
		panic(fmt.Sprintf("routePolicies: the foreign row: %v", err))
	}
	ownStudent := "/students/" + b.anna.ID + "?alerted_at=2026-11-30T09%3A14%3A00Z"
	ownCourse := "/courses/" + b.course.ID + "?alerted_at=2026-11-30T09%3A14%3A00Z"
	job := storetest.NewID() // a background bulk apply nobody started
	return map[string][]routeCase{
		"GET /static/*":    {{path: static.Path("css/app.css"), public: true, want: ok200}},
		"GET /favicon.ico": {{path: "/favicon.ico", public: true, want: ok200}},
		"GET /healthz":     {{path: "/healthz", public: true, want: ok200}},
		"GET /login":       {{path: "/login?next=%2Fqueue", anon: ok200, teacher: seeOther("/queue"), support: seeOther("/queue"), admin: seeOther("/queue")}},
		"POST /login":      {{path: "/login", form: url.Values{}, public: true, want: unproc422}},
		"POST /logout":     {{path: "/logout", public: true, want: seeOther("/login")}},
		// Everyone signed in chooses their own language; English here, so later cases read alike.
		"POST /language": {{path: "/language", form: url.Values{"lang": {"en"}, "next": {"/courses"}},
			anon: unauth401, teacher: seeOther("/courses"), support: seeOther("/courses"), admin: seeOther("/courses")}},
		"GET /": {
			{path: "/?show=all", anon: toLogin("/?show=all"), teacher: ok200, support: ok200, admin: ok200},
			// A teacher's landing page is their courses; support's is the triage queue.
			{path: "/", anon: toLogin("/"), teacher: seeOther("/courses"), support: ok200, admin: ok200},
		},
		// Exports: whoever sees the list gets it, scoped like it.
		"GET /queue/export.csv":  {{path: "/queue/export.csv?show=all", anon: toLogin("/queue/export.csv?show=all"), teacher: ok200, support: ok200, admin: ok200}},
		"GET /queue/export.json": {{path: "/queue/export.json", anon: toLogin("/queue/export.json"), teacher: ok200, support: ok200, admin: ok200}},
		"GET /courses/{id}/export.csv": {
			{path: "/courses/" + b.course.ID + "/export.csv", anon: toLogin("/courses/" + b.course.ID + "/export.csv"), teacher: ok200, support: ok200, admin: ok200},
			{path: "/courses/" + elsewhere.CourseID + "/export.csv", anon: toLogin("/courses/" + elsewhere.CourseID + "/export.csv"), teacher: notFound404, support: ok200, admin: ok200},
		},
		"GET /courses/{id}/export.json": {{path: "/courses/" + b.course.ID + "/export.json", anon: toLogin("/courses/" + b.course.ID + "/export.json"), teacher: ok200, support: ok200, admin: ok200}},
		"GET /audit/export.csv":         {{path: "/audit/export.csv", anon: toLogin("/audit/export.csv"), teacher: forbidden403, support: ok200, admin: ok200}},
		"GET /audit/export.json":        {{path: "/audit/export.json", anon: toLogin("/audit/export.json"), teacher: forbidden403, support: ok200, admin: ok200}},
		"GET /queue/counts":             {{path: "/queue/counts", anon: toLogin("/queue/counts"), teacher: ok200, support: ok200, admin: ok200}},
		// Without Suotar configured (as here) support and admins get past the role check to the 503
		// that says so; teachers never get that far.
		"POST /registrations/{id}/lookup": {
			{path: "/registrations/" + b.uncertainOverdue + "/lookup", form: url.Values{},
				anon: unauth401, teacher: forbidden403, support: unavailable503, admin: unavailable503},
		},
		// Hand actions, bulk and the audit: support and admins. The forms here are empty, so those who
		// get past the role check are told what is missing and nothing changes.
		"POST /registrations/{id}/actions/{action}": {
			{path: "/registrations/" + b.uncertainOverdue + "/actions/cancel", form: url.Values{},
				anon: unauth401, teacher: forbidden403, support: badRequest400, admin: badRequest400},
		},
		"POST /bulk/preview": {{path: "/bulk/preview", form: url.Values{}, anon: unauth401, teacher: forbidden403, support: unproc422, admin: unproc422}},
		"POST /bulk/apply":   {{path: "/bulk/apply", form: url.Values{}, anon: unauth401, teacher: forbidden403, support: badRequest400, admin: badRequest400}},
		// The list of background applies is support's and admins', everyone's jobs in it.
		"GET /bulk/jobs": {{path: "/bulk/jobs", anon: toLogin("/bulk/jobs"), teacher: forbidden403, support: ok200, admin: ok200}},
		// A background apply's page is its owner's: a job nobody started is not found.
		"GET /bulk/jobs/{id}": {{path: "/bulk/jobs/" + job, anon: toLogin("/bulk/jobs/" + job), teacher: forbidden403, support: notFound404, admin: notFound404}},
		// A long export is its asker's alone; nobody here asked for this one.
		"GET /exports/{id}":      {{path: "/exports/" + job, anon: toLogin("/exports/" + job), teacher: notFound404, support: notFound404, admin: notFound404}},
		"GET /exports/{id}/file": {{path: "/exports/" + job + "/file", anon: toLogin("/exports/" + job + "/file"), teacher: notFound404, support: notFound404, admin: notFound404}},
		// A claim warns and never blocks: support and admins each claim (or release) and are sent back.
		"POST /registrations/{id}/claim": {{path: "/registrations/" + b.uncertainOverdue + "/claim", form: url.Values{},
			anon: unauth401, teacher: forbidden403, support: seeOther("/registrations/" + b.uncertainOverdue), admin: seeOther("/registrations/" + b.uncertainOverdue)}},
		"POST /registrations/{id}/release": {{path: "/registrations/" + b.uncertainOverdue + "/release", form: url.Values{},
			anon: unauth401, teacher: forbidden403, support: seeOther("/registrations/" + b.uncertainOverdue), admin: seeOther("/registrations/" + b.uncertainOverdue)}},
		"POST /bulk/claim": {{path: "/bulk/claim", form: url.Values{}, anon: unauth401, teacher: forbidden403, support: seeOther("/?show=needs_admin"), admin: seeOther("/?show=needs_admin")}},
		// Accounts: admins only. The forms are empty, so the admin is told what is missing.
		"GET /admin/accounts":  {{path: "/admin/accounts", anon: toLogin("/admin/accounts"), teacher: forbidden403, support: forbidden403, admin: ok200}},
		"POST /admin/accounts": {{path: "/admin/accounts", form: url.Values{}, anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		"GET /admin/accounts/{id}": {{path: "/admin/accounts/" + b.support.ID, anon: toLogin("/admin/accounts/" + b.support.ID),
			teacher: forbidden403, support: forbidden403, admin: ok200}},
		"POST /admin/accounts/{id}": {{path: "/admin/accounts/" + b.support.ID, form: url.Values{}, anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		"POST /admin/accounts/{id}/disable": {{path: "/admin/accounts/" + b.support.ID + "/disable", form: url.Values{},
			anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		"POST /admin/accounts/{id}/enable": {{path: "/admin/accounts/" + b.support.ID + "/enable", form: url.Values{},
			anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		"POST /admin/accounts/{id}/password-link": {{path: "/admin/accounts/" + b.support.ID + "/password-link", form: url.Values{},
			anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		"POST /admin/accounts/{id}/lms-user": {{path: "/admin/accounts/" + b.support.ID + "/lms-user", form: url.Values{},
			anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		// The System page: support reads how the LMS's pipeline stands, admins also control it. The
		// forms are empty, so the admin is told what is missing and nothing is asked of the LMS.
		"GET /system": {{path: "/system?alerted_at=2026-11-30T09%3A14%3A00Z", anon: toLogin("/system?alerted_at=2026-11-30T09%3A14%3A00Z"),
			teacher: forbidden403, support: ok200, admin: ok200}},
		"POST /system/phases/{phase}/{control}": {
			{path: "/system/phases/import/pause", form: url.Values{}, anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422},
			{path: "/system/phases/no-such-phase/pause", form: url.Values{}, anon: unauth401, teacher: forbidden403, support: forbidden403, admin: notFound404},
		},
		"POST /system/modules/{control}": {{path: "/system/modules/pause", form: url.Values{"reason": {"Course code wrong"}},
			anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		"POST /system/requeue": {{path: "/system/requeue", form: url.Values{}, anon: unauth401, teacher: forbidden403, support: forbidden403, admin: unproc422}},
		// A password link's token is its own credential: everyone gets the same answer, here for a
		// token never issued.
		"GET /password/{token}":  {{path: "/password/" + strings.Repeat("A", 43), public: true, want: notFound404}},
		"POST /password/{token}": {{path: "/password/" + strings.Repeat("A", 43), form: url.Values{}, public: true, want: notFound404}},
		"GET /audit":             {{path: "/audit", anon: toLogin("/audit"), teacher: forbidden403, support: ok200, admin: ok200}},
		"GET /alerts/counted/{rule}": {{path: "/alerts/counted/credentials_rejected", anon: toLogin("/alerts/counted/credentials_rejected"), teacher: forbidden403, support: ok200, admin: ok200},
			{path: "/alerts/counted/needs_person", anon: toLogin("/alerts/counted/needs_person"), teacher: forbidden403, support: notFound404, admin: notFound404}},
		"GET /students":        {{path: "/students?q=anna", anon: toLogin("/students?q=anna"), teacher: ok200, support: ok200, admin: ok200}},
		"GET /students/search": {{path: "/students/search?q=anna", anon: toLogin("/students/search?q=anna"), teacher: seeOther("/students?q=anna"), support: seeOther("/students?q=anna"), admin: seeOther("/students?q=anna")}},
		"GET /overview":        {{path: "/overview", anon: toLogin("/overview"), teacher: forbidden403, support: ok200, admin: ok200}},
		"GET /students/{id}": {
			{path: ownStudent, anon: toLogin(ownStudent), teacher: ok200, support: ok200, admin: ok200},
			{path: "/students/" + elsewhere.StudentID, anon: toLogin("/students/" + elsewhere.StudentID), teacher: notFound404, support: ok200, admin: ok200},
		},
		// Alerts: everyone sees those that concern them; acknowledging is for those who act.
		"GET /alerts": {{path: "/alerts", anon: toLogin("/alerts"), teacher: ok200, support: ok200, admin: ok200}},
		// API tokens: each person's own; an empty form is told what is missing, a token of nobody is not found.
		"POST /settings/tokens": {{path: "/settings/tokens", form: url.Values{}, anon: unauth401, teacher: unproc422, support: unproc422, admin: unproc422}},
		"POST /settings/tokens/{id}/revoke": {{path: "/settings/tokens/" + b.uncertainOverdue + "/revoke", form: url.Values{},
			anon: unauth401, teacher: notFound404, support: notFound404, admin: notFound404}},
		// The API takes a token, never the session: without one, everyone gets 401.
		"GET /api/v1/registrations":              {{path: "/api/v1/registrations", public: true, want: unauth401}},
		"GET /api/v1/registrations/{id}":         {{path: "/api/v1/registrations/" + b.uncertainOverdue, public: true, want: unauth401}},
		"GET /api/v1/courses/{id}/registrations": {{path: "/api/v1/courses/" + b.course.ID + "/registrations", public: true, want: unauth401}},
		"GET /api/v1/audit":                      {{path: "/api/v1/audit", public: true, want: unauth401}},
		"GET /settings":                          {{path: "/settings", anon: toLogin("/settings"), teacher: ok200, support: ok200, admin: ok200}},
		"POST /settings/mail": {{path: "/settings/mail", form: url.Values{"immediate": {"loud"}},
			anon: unauth401, teacher: unproc422, support: unproc422, admin: unproc422}},
		"POST /alerts/{id}/acknowledge": {{path: "/alerts/" + storetest.NewID() + "/acknowledge", form: url.Values{},
			anon: unauth401, teacher: forbidden403, support: conflict409, admin: conflict409}},
		"GET /courses": {{path: "/courses", anon: toLogin("/courses"), teacher: ok200, support: ok200, admin: ok200}},
		"GET /courses/{id}": {
			{path: ownCourse, anon: toLogin(ownCourse), teacher: ok200, support: ok200, admin: ok200},
			{path: "/courses/" + elsewhere.CourseID, anon: toLogin("/courses/" + elsewhere.CourseID), teacher: notFound404, support: ok200, admin: ok200},
		},
		"GET /registrations/{id}": {
			// A teacher reads the registration in plain words, on its student's page.
			{path: own, anon: toLogin(own), teacher: seeOther("/students/" + b.anna.ID + "#reg-" + b.uncertainOverdue), support: ok200, admin: ok200},
			// A teacher asking for a row of a course they do not teach learns nothing, not even that it exists.
			{path: "/registrations/" + foreign, anon: toLogin("/registrations/" + foreign), teacher: notFound404, support: ok200, admin: ok200},
		},
	}
}

// walkedRoutes returns every "METHOD pattern" the router serves, with chi's every-method routes
// folded into "* pattern".
func walkedRoutes(t *testing.T, h http.Handler) map[string][]string {
	t.Helper()
	routes, ok := h.(chi.Routes)
	if !ok {
		t.Fatalf("Routes() is a %T, not a chi router the test can walk", h)
	}
	methods := map[string][]string{} // pattern → methods
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		methods[route] = append(methods[route], method)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for pattern, ms := range methods {
		if len(ms) >= 9 { // Handle: chi registers it for every method it knows
			out["* "+pattern] = ms
			continue
		}
		for _, m := range ms {
			out[m+" "+pattern] = []string{m}
		}
	}
	return out
}

func TestEveryRouteHasARolePolicy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := storetest.AddCourse(t, b.store, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	// A student of the other course only: the teacher of b.course may not see them.
	cecilia := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Cecilia", LastName: "Virtanen", Email: "cecilia@example.invalid", StudentNumber: "016000001"})
	foreign := storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: cecilia, Course: other, State: "failed_permanent", StateChangedAt: testNow.Add(-time.Hour),
	})
	policies := routePolicies(b, foreign)
	walked := walkedRoutes(t, web.New(web.Deps{Store: b.store}).Routes())

	for key := range walked {
		if _, ok := policies[key]; !ok {
			t.Errorf("route %s has no policy in routePolicies: state what anonymous visitors, teachers, support and admins get", key)
		}
	}
	for key := range policies {
		if _, ok := walked[key]; !ok {
			t.Errorf("routePolicies has %s, which is no longer a route: remove it", key)
		}
	}

	visitors := []web.Role{"", web.RoleTeacher, web.RoleSupport, web.RoleAdmin}
	for key, cases := range policies {
		methods := walked[key]
		if strings.HasPrefix(key, "* ") {
			methods = []string{http.MethodGet} // the same handler for every method; GET stands for them
		}
		for _, method := range methods {
			for _, tc := range cases {
				for _, role := range visitors {
					want := tc.want
					if !tc.public {
						want = map[web.Role]answer{"": tc.anon, web.RoleTeacher: tc.teacher, web.RoleSupport: tc.support, web.RoleAdmin: tc.admin}[role]
					}
					// A fresh client per request: a sign-out must not spoil the next case.
					got := b.send(t, b.clientFor(t, role), method, tc.path, tc.form)
					if got != want {
						t.Errorf("%s %s as %s = %s, want %s", method, tc.path, visitorName(role), got, want)
					}
				}
			}
		}
	}

	// A method a pattern does not take is 405 for everyone, signed in or not.
	for key := range policies {
		method, pattern, _ := strings.Cut(key, " ")
		if method == "*" {
			continue
		}
		other := http.MethodPost
		if method == http.MethodPost {
			other = http.MethodGet
		}
		if _, taken := walked[other+" "+pattern]; taken {
			continue
		}
		path := policies[key][0].path
		for _, role := range visitors {
			if got := b.send(t, b.clientFor(t, role), other, path, url.Values{}); got.status != http.StatusMethodNotAllowed {
				t.Errorf("%s %s as %s = %s, want 405", other, path, visitorName(role), got)
			}
		}
	}
}

// send makes one request with c and returns the kind of answer it got.
func (b *testBundle) send(t *testing.T, c *http.Client, method, path string, form url.Values) answer {
	t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, b.server.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, _ := do(t, c, req)
	a := answer{status: resp.StatusCode}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		a.location = resp.Header.Get("Location")
	}
	return a
}

func visitorName(r web.Role) string {
	if r == "" {
		return "anonymous"
	}
	return string(r)
}

// HEAD works wherever GET does (monitors and link checkers use it), and static files answer only
// GET and HEAD.
func TestHeadWhereverGetAndStaticFilesOnlyRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		client *http.Client
		method string
		path   string
		want   int
	}{
		{newClient(t), http.MethodHead, "/healthz", http.StatusOK},
		{newClient(t), http.MethodHead, "/login", http.StatusOK},
		{b.client, http.MethodHead, "/", http.StatusOK},
		{b.client, http.MethodHead, "/registrations/" + b.permanent, http.StatusOK},
		{newClient(t), http.MethodHead, static.Path("css/app.css"), http.StatusOK},
		{newClient(t), http.MethodHead, "/favicon.ico", http.StatusOK},
		{newClient(t), http.MethodPost, static.Path("css/app.css"), http.StatusMethodNotAllowed},
		{newClient(t), http.MethodDelete, "/favicon.ico", http.StatusMethodNotAllowed},
	} {
		req, err := http.NewRequest(tc.method, b.server.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, _ := do(t, tc.client, req)
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}
