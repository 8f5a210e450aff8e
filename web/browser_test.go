package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"regdesk/partner/suotar/suotarfake"
	"regdesk/store/demo"
	"regdesk/store/storetest"
	"regdesk/web"
	"regdesk/web/browsertest"
)

// browserTest is a tab of its own (browsertest.Tab) with the steps the tests take in it.
type browserTest struct {
	ctx context.Context
	tab *browsertest.Tab
}

// newTab opens an isolated tab with a 40 s budget (browsertest.NewTab).
func newTab(t *testing.T) *browserTest {
	t.Helper()
	tab := browsertest.NewTab(t, 40*time.Second)
	return &browserTest{ctx: tab.Ctx, tab: tab}
}

// allow lets console messages containing s pass, for tests that provoke an error on purpose.
func (bt *browserTest) allow(s string) { bt.tab.Allow(s) }

func (bt *browserTest) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(bt.ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

func (bt *browserTest) text(t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(bt.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func (bt *browserTest) location(t *testing.T) string {
	t.Helper()
	loc, err := chromedp.Run(bt.ctx, chromedp.Location())
	if err != nil {
		t.Fatalf("browser: location: %v", err)
	}
	return loc
}

// waitLocation waits until the address bar satisfies ok: htmx pushes the URL after it swaps, so
// the new content can be visible a moment before the address changes.
func (bt *browserTest) waitLocation(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	var loc string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		loc = bt.location(t)
		if ok(loc) {
			return loc
		}
	}
	t.Errorf("location = %s, want %s", loc, what)
	return loc
}

// waitIdle waits until htmx has no request in flight and nothing swapping or settling, so a click
// lands on the page as it will stay, not on an element about to be replaced.
func (bt *browserTest) waitIdle(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		if bt.eval(t, `String(document.querySelectorAll(".htmx-request, .htmx-swapping, .htmx-settling").length)`) == "0" {
			return
		}
	}
	t.Errorf("htmx did not settle within 5 s")
}

func (bt *browserTest) eval(t *testing.T, js string) string {
	t.Helper()
	v, err := chromedp.Run(bt.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("browser: eval %s: %v", js, err)
	}
	return v
}

// login signs in through the real form and waits for the page it leads to.
func login(base, email, password string) chromedp.Action[chromedp.Void] {
	return browsertest.Login(base, email, password)
}

// fillLogin fills in and submits the sign-in form the tab shows.
func fillLogin(email, password string) chromedp.Action[chromedp.Void] {
	return browsertest.FillLogin(email, password)
}

func TestBrowserQueueFiltersAndOpensARow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)

	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-counts"]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.uncertainOverdue+`"]`)),
	)
	if got := bt.text(t, `[data-testid="count-needs_admin"]`); got != "2" {
		t.Errorf("needs-admin count = %q, want 2", got)
	}

	// Mark the page, so a full reload (which would drop the mark) is told apart from a swap.
	bt.eval(t, `document.body.dataset.marker = "kept"; "ok"`)
	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="show-all"]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.settled+`"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="filter-phase"]`), "dense_window"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="filter-phase"]').dispatchEvent(new Event('change', {bubbles: true}))`),
		chromedp.WaitNotPresent(chromedp.CSS(`tr[data-id="`+b.settled+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.dense+`"][data-phase="dense_window"]`)),
	)
	if got := bt.eval(t, `document.body.dataset.marker || "reloaded"`); got != "kept" {
		t.Errorf("the filter change reloaded the page; want an htmx swap")
	}
	bt.waitLocation(t, "the filter in the URL", func(loc string) bool {
		return strings.Contains(loc, "phase=dense_window") && strings.Contains(loc, "show=all")
	})
	if loc := bt.location(t); strings.Contains(loc, "state=&") || strings.HasSuffix(loc, "q=") {
		t.Errorf("location = %s, want the canonical link without empty fields", loc)
	}

	bt.waitIdle(t)
	bt.do(t,
		chromedp.Click(chromedp.CSS(`tr[data-id="`+b.dense+`"] [data-testid="registration-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-id="`+b.dense+`"]`)),
	)
	bt.waitLocation(t, "the registration page", func(loc string) bool { return strings.HasSuffix(loc, "/registrations/"+b.dense) })
	if got := bt.text(t, `[data-testid="phase"]`); got == "" {
		t.Errorf("the registration page shows no phase")
	}

	// Back returns to the filtered list.
	bt.do(t,
		chromedp.Evaluate[chromedp.Void](`history.back()`),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.dense+`"]`)),
	)
}

func TestBrowserWorksWithoutJavaScriptForms(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)

	// The plain form submit (what a browser without htmx does) lands on a full page with the filter.
	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/?show=all&state=registered"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.settled+`"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`tr[data-id="`+b.dense+`"]`)),
	)
}

func TestBrowserSignInFromADeepLinkLandsOnTheRegistration(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)
	deep := b.server.URL + "/registrations/" + b.dense + "?from=alert&tab=history"

	// The link from an alert e-mail, opened by someone not signed in.
	bt.do(t, chromedp.Navigate(deep), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	if loc := bt.location(t); !strings.Contains(loc, "/login?next=") {
		t.Errorf("location = %s, want the sign-in page carrying the link", loc)
	}
	bt.do(t,
		fillLogin(b.support.Email, testPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-id="`+b.dense+`"]`)),
	)
	if loc := bt.location(t); loc != deep {
		t.Errorf("after signing in location = %s, want %s", loc, deep)
	}
	if got := bt.text(t, `[data-testid="whoami-role"]`); got != "support" {
		t.Errorf("the top bar shows role %q, want support", got)
	}
}

func TestBrowserTeacherCannotSeeAnotherCoursesStudent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, foreign := b.addForeignRow(t)
	bt := newTab(t)
	bt.allow("status of 404") // Chromium logs the refused page's status

	bt.do(t,
		login(b.server.URL, b.teacher.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.permanent+`"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`tr[data-id="`+foreign+`"]`)),
	)
	if got := bt.text(t, `[data-testid="whoami-role"]`); got != "teacher" {
		t.Errorf("the top bar shows role %q, want teacher", got)
	}
	bt.do(t,
		chromedp.Navigate(b.server.URL+"/registrations/"+foreign),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-page"][data-status="404"]`)),
	)
	if body := bt.text(t, "main"); strings.Contains(body, "Cecilia") || strings.Contains(body, "Virtanen") {
		t.Errorf("the 404 page names the other course's student: %s", body)
	}
}

func TestBrowserSignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)

	bt.do(t, login(b.server.URL, b.admin.Email, testPassword))
	cookies, err := chromedp.Call(bt.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.server.URL}})
	if err != nil {
		t.Fatal(err)
	}
	var token string
	for _, c := range cookies.Cookies {
		if c.Name == "regdesk_session" {
			token = c.Value
			if !c.HTTPOnly || c.SameSite != network.CookieSameSiteLax {
				t.Errorf("session cookie HttpOnly=%v SameSite=%v, want HttpOnly and Lax", c.HTTPOnly, c.SameSite)
			}
		}
	}
	if token == "" {
		t.Fatal("the browser holds no session cookie after signing in")
	}

	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="logout"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
	)
	if loc := bt.location(t); loc != b.server.URL+"/login" {
		t.Errorf("after signing out location = %s, want the sign-in page", loc)
	}
	// The queue is closed to this tab now...
	bt.do(t, chromedp.Navigate(b.server.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)))
	if loc := bt.location(t); !strings.Contains(loc, "/login?next=") {
		t.Errorf("after signing out GET / led to %s, want the sign-in page", loc)
	}
	// ...and to anyone holding a copy of the old cookie: the session is gone on the server too.
	req, err := http.NewRequest(http.MethodGet, b.server.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "regdesk_session", Value: token})
	resp, _ := do(t, newClient(t), req)
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the signed-out token still opens the queue (GET / = %d)", resp.StatusCode)
	}
}

func TestBrowserLookUpInSisu(t *testing.T) {
	t.Parallel()
	// Suotar is slow where it reads Sisu: long enough to see the spinner and the disabled button.
	b := setupSubmitted(t, "hy-kur-landed", suotarfake.TransitionRegistered, suotarfake.WithFaults(suotarfake.Fault{Effect: suotarfake.FaultLatency,
		Endpoint: suotarfake.PathResolveEnrolments, Delay: suotarfake.Duration(1500 * time.Millisecond)}))
	id := b.row(t, "hy-kur-landed")
	bt := newTab(t)

	bt.do(t,
		login(b.server.URL, lookupSupportEmail, testPassword),
		chromedp.Navigate(b.server.URL+"/registrations/"+id),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="lookup"][data-verdict="none"]`)),
	)
	bt.eval(t, `document.body.dataset.marker = "kept"; "ok"`)
	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="lookup-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#lookup-spinner.htmx-request`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="lookup-button"][disabled]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="lookup"][data-verdict="registered"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline"] [data-kind="sisu_lookup"]`)),
	)
	if got := bt.eval(t, `document.body.dataset.marker || "reloaded"`); got != "kept" {
		t.Errorf("the lookup reloaded the page; want an htmx swap")
	}
	if got := bt.text(t, `[data-testid="verdict-label"]`); got != "Registered in Sisu" {
		t.Errorf("verdict badge = %q, want Registered in Sisu", got)
	}
	if got := bt.text(t, `[data-testid="attainment"][data-status="match"] td:first-child`); got != "Course unit" {
		t.Errorf("the highlighted attainment is a %q, want the course unit attainment", got)
	}
	if got := bt.eval(t, `String(document.querySelectorAll('[data-testid="lookup"]').length)`); got != "1" {
		t.Errorf("%s lookup regions after the swap, want 1", got)
	}
	if got := bt.eval(t, `document.querySelector('[data-testid="lookup-button"]').disabled ? "disabled" : "enabled"`); got != "enabled" {
		t.Errorf("the button is %s after the lookup", got)
	}
}

// setupDemo is a server over make run's demo data (demo.DefaultRows rows, seed 1, consistent at
// testNow) with a support person to sign in as: the pages the overview's and the dark mode's
// browser tests look at, with something on every chart.
func setupDemo(t *testing.T) (*testBundle, testAccount) {
	t.Helper()
	st := storetest.New(t)
	if _, err := demo.Write(t.Context(), st, demo.Config{LMS: storetest.LMS(t, st), Rows: demo.DefaultRows, Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	srv := web.New(web.Deps{Store: st, Now: func() time.Time { return testNow }, Session: web.SessionConfig{Insecure: true}})
	t.Cleanup(srv.Close)
	b := &testBundle{store: st, server: httptest.NewServer(srv.Routes())}
	t.Cleanup(b.server.Close)
	return b, b.addAccount(t, "Sami Support", "support@example.invalid", web.RoleSupport)
}
