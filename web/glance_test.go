package web_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/web"
)

// This file tests issue 27's "triage at a glance" asks in the handlers: the compact alert strip,
// the queue's total, Previous page, saved views and self-refresh, and the registration page that
// leads with its decision. The browser's side (what shows above the fold) is in
// glance_browser_test.go.

// hrefOf is the href of the element with data-testid testid in body, unescaped; "" when absent.
func hrefOf(body, testid string) string {
	i := strings.Index(body, `data-testid="`+testid+`"`)
	if i < 0 {
		return ""
	}
	tag := body[strings.LastIndex(body[:i], "<"):]
	tag = tag[:strings.Index(tag, ">")]
	m := regexp.MustCompile(`href="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// rowIDs are the ids of the queue rows in body, in order.
func rowIDs(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`data-testid="registration-row" [^>]*data-id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// testidText is the text inside the first element with data-testid testid (tags stripped).
func testidText(body, testid string) string {
	i := strings.Index(body, `data-testid="`+testid+`"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	rest = rest[strings.Index(rest, ">")+1:]
	end := strings.Index(rest, "</")
	return strings.TrimSpace(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(rest[:end], ""))
}

func TestQueueSaysItsTotalAndGoesBackAPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 120 {
		storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "registered",
			StateChangedAt: testNow.Add(-time.Duration(i+100) * time.Minute)})
	}
	// 121 registered rows: the fixtures' one and these.
	_, first := b.get(t, "/?show=all&state=registered", true)
	if got := testidText(first, "queue-range"); got != "1–50 of 121" {
		t.Errorf("first page's range = %q, want 1–50 of 121", got)
	}
	if strings.Contains(first, `data-testid="prev-page"`) {
		t.Error("the first page offers a previous page")
	}
	_, second := b.get(t, hrefOf(first, "next-page"), true)
	if got := testidText(second, "queue-range"); got != "51–100 of 121" {
		t.Errorf("second page's range = %q", got)
	}
	if got := hrefOf(second, "prev-page"); got != "/?show=all&state=registered" {
		t.Errorf("the second page's previous page is %q, want the first", got)
	}
	_, third := b.get(t, hrefOf(second, "next-page"), true)
	if got := testidText(third, "queue-range"); got != "101–121 of 121" {
		t.Errorf("third page's range = %q", got)
	}
	if strings.Contains(third, `data-testid="next-page"`) {
		t.Error("the last page offers a next page")
	}
	_, back := b.get(t, hrefOf(third, "prev-page"), true)
	if got, want := strings.Join(rowIDs(back), ","), strings.Join(rowIDs(second), ","); got != want || len(rowIDs(back)) != 50 {
		t.Errorf("Previous from the third page lists %d rows, not the second page's 50", len(rowIDs(back)))
	}
	if got := hrefOf(back, "prev-page"); got != "/?show=all&state=registered" {
		t.Errorf("the second page, reached back, goes back to %q", got)
	}
	// A page's link is whole: the refresh asks for the same page again.
	if !strings.Contains(third, `hx-get="`+strings.ReplaceAll(hrefOf(second, "next-page"), "&", "&amp;")+`"`) {
		t.Error("the third page does not refresh itself")
	}
	// A trail without a page, or a damaged one, is refused by name, not a 500.
	for _, path := range []string{"/?show=all&trail=1.x", "/?show=all&after=" + strings.SplitN(hrefOf(second, "next-page"), "after=", 2)[1] + ",nope"} {
		if resp, _ := b.get(t, path, false); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", path, resp.StatusCode)
		}
	}
}

func TestQueueTotalStopsAtTheBulkLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Past the bulk limit the total says "500+": one bounded count serves the total and the bulk
	// bar.
	for i := range 505 {
		storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "registered",
			StateChangedAt: testNow.Add(-time.Duration(i+100) * time.Minute)})
	}
	_, body := b.get(t, "/?show=all&state=registered", true)
	if got := testidText(body, "queue-range"); got != "1–50 of 500+" {
		t.Errorf("range = %q, want 1–50 of 500+", got)
	}
}

func TestQueueRefreshKeepsTheAddressAndMovesTheViewMark(t *testing.T) {
	t.Parallel()
	b := setup(t)
	refresh := func(path, trigger string) (*http.Response, string) {
		req, err := http.NewRequest(http.MethodGet, b.server.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "queue-results")
		req.Header.Set("HX-Trigger", trigger)
		return do(t, b.client, req)
	}
	// The list's own refresh leaves the address bar and the history alone...
	resp, body := refresh("/?show=all", "queue-results")
	if resp.Header.Get("HX-Push-Url") != "" {
		t.Errorf("the refresh pushes %q into the history", resp.Header.Get("HX-Push-Url"))
	}
	if strings.Contains(body, "<html") || !strings.Contains(body, `id="queue-results"`) {
		t.Fatalf("the refresh is not the list alone:\n%s", body)
	}
	// ...a filter change puts its view there, and marks its saved view.
	resp, body = refresh("/?show=all&claimed=mine&phase=", "queue-filter")
	if got := resp.Header.Get("HX-Push-Url"); got != "/?claimed=mine&show=all" {
		t.Errorf("HX-Push-Url = %q", got)
	}
	if !regexp.MustCompile(`<nav id="queue-views"[^>]*hx-swap-oob="true"`).MatchString(body) ||
		!regexp.MustCompile(`aria-current="page" data-testid="view-mine"`).MatchString(body) {
		t.Errorf("the swap does not mark the saved view Mine out of band:\n%s", body)
	}
	// The bare queue is the view "needs a person"; a teacher has no "Mine".
	_, page := b.get(t, "/", false)
	if !strings.Contains(page, `aria-current="page" data-testid="view-needs_admin"`) {
		t.Error("the bare queue does not mark the view needs a person")
	}
	// The lists support is asked about most are one click away, and mark themselves.
	for view, path := range map[string]string{
		"uncertain":  "/?lookup=none&show=all&state=submission_uncertain",
		"escalating": "/?escalates=1d&show=all",
	} {
		resp, page := b.get(t, path, false)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `aria-current="page" data-testid="view-`+view+`"`) {
			t.Errorf("%s: status %d, the saved view %s not marked", path, resp.StatusCode, view)
		}
	}
	_, teacher := b.getWith(t, b.login(t, b.teacher), "/?show=all", false)
	if strings.Contains(teacher, `data-testid="view-mine"`) || !strings.Contains(teacher, `data-testid="view-all"`) {
		t.Error("a teacher's saved views offer Mine, or lack All")
	}
}

// fireMany fires n warnings and, with critical, one critical alert.
func (b *testBundle) fireMany(t *testing.T, n int, critical bool) {
	t.Helper()
	var alerts []schedule.Alert
	reasons := schedule.Reasons()
	for i := range n {
		alerts = append(alerts, schedule.Alert{Rule: schedule.RuleNeedsPerson, Key: string(reasons[i%len(reasons)]) + fmt.Sprint(i), Severity: schedule.SeverityWarning,
			Count: i + 1, Subject: string(reasons[i%len(reasons)]), Path: "/?show=needs_admin&reason=" + string(reasons[i%len(reasons)])})
	}
	if critical {
		alerts = append(alerts, schedule.Alert{Rule: schedule.RuleCredentialsRejected, Severity: schedule.SeverityCritical, Count: 2, Path: "/?show=all&error=unauthorized"})
	}
	b.fire(t, testNow.Add(-time.Hour), alerts...)
}

func TestAlertStripNamesTheCriticalOneAndCountsTheRest(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.AlertsTTL = time.Nanosecond })
	b.fireMany(t, 14, true)
	_, body := b.get(t, "/?show=all", false)
	strip := body[strings.Index(body, `data-testid="health-banner"`):]
	strip = strip[:strings.Index(strip, "</section>")]
	lead := strings.Index(strip, `class="strip-lead severity-critical"`)
	if lead < 0 || strings.Count(strip, "Credentials rejected") != 1 {
		t.Errorf("the strip does not name the critical alert once:\n%s", strip)
	}
	if got := testidText(strip, "health-banner-count"); got != "14 more alerts" {
		t.Errorf("the count says %q, want 14 more alerts", got)
	}
	if n := strings.Count(strip, `data-testid="health-banner-alert"`); n != 15 {
		t.Errorf("the strip holds %d alerts, want every one of the 15 (one named, 14 in its list)", n)
	}
	if !strings.Contains(strip, `href="/alerts"`) {
		t.Error("the strip's list does not lead to /alerts")
	}

	// Without a critical one, nothing is named: the count alone.
	b2 := setupWith(t, func(d *web.Deps) { d.AlertsTTL = time.Nanosecond })
	b2.fireMany(t, 3, false)
	_, body = b2.get(t, "/?show=all", false)
	if strings.Contains(body, "strip-lead") || testidText(body, "health-banner-count") != "3 alerts" {
		t.Errorf("three warnings: want the count alone, 3 alerts; got %q", testidText(body, "health-banner-count"))
	}
}

// nextStep is a registration page's next-step kind and recommended action.
func nextStep(t *testing.T, body string) (kind, action string) {
	t.Helper()
	m := regexp.MustCompile(`data-testid="next-step" data-kind="([^"]*)" data-action="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the page has no next step:\n%s", body)
	}
	return m[1], m[2]
}

func TestRegistrationPageLeadsWithTheDecision(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, page := b.get(t, "/registrations/"+b.uncertainOverdue, false)
	order := []string{`data-testid="decision"`, `data-testid="actions"`, `data-testid="lookup"`, `data-testid="why"`, `data-testid="timeline"`}
	last := -1
	for _, m := range order {
		i := strings.Index(page, m)
		if i < last {
			t.Errorf("%s comes before what the page leads with", m)
		}
		last = i
	}
	if testidText(page, "state-words") == "" {
		t.Error("the decision does not say in words where the row stands")
	}
	for _, tc := range []struct {
		name, id, kind string
	}{
		{"a registered row", b.settled, "done"},
		{"a row waiting for Sisu", b.dense, "wait"},
		{"a course set up wrong", b.permanent, "setup"},
	} {
		_, body := b.get(t, "/registrations/"+tc.id, false)
		if kind, _ := nextStep(t, body); kind != tc.kind {
			t.Errorf("%s: next step %q, want %q", tc.name, kind, tc.kind)
		}
	}
}

// TestDecisionRecommendsOnlyWhatIsAllowed walks the demo's registrations that need a person: the
// step recommended is always an action the panel beside it allows, listed first and marked.
func TestDecisionRecommendsOnlyWhatIsAllowed(t *testing.T) {
	t.Parallel()
	b, support := setupDemo(t)
	client := b.login(t, support)
	rows, _, err := b.store.RegistrationList(context.Background(), testNow, store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true}, nil, 200)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, row := range rows {
		_, body := b.getWith(t, client, "/registrations/"+row.ID, false)
		kind, action := nextStep(t, body)
		kinds[kind]++
		if kind != "action" {
			continue
		}
		item := regexp.MustCompile(`<li class="[^"]*" data-testid="action-([a-z_]+)" data-allowed="(true|false)" data-recommended="(true|false)"`).FindAllStringSubmatch(body, -1)
		if len(item) == 0 || item[0][1] != action || item[0][2] != "true" || item[0][3] != "true" {
			t.Errorf("%s: recommends %s, but the first action is %v", row.ID, action, item)
		}
	}
	t.Logf("next steps: %v", kinds)
	if kinds["action"] == 0 || len(kinds) < 2 {
		t.Errorf("next steps on the demo's rows: %v; want actions and other kinds", kinds)
	}
}

func TestDecisionFollowsALookup(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-landed", suotarfake.TransitionRegistered)
	id := b.row(t, "hy-kur-landed")
	signIn := &testBundle{store: b.store, server: b.server}
	_, page := signIn.getWith(t, b.client, "/registrations/"+id, false)
	if kind, _ := nextStep(t, page); kind != "lookup" || !strings.Contains(page, `data-testid="next-step-lookup"`) {
		t.Errorf("an uncertain row never looked up: next step %q, want look it up with its button", kind)
	}
	body, _ := b.lookupChecked(t, id)
	if !regexp.MustCompile(`id="decision" class="panel decision" data-testid="decision" data-next="action"[^>]*hx-swap-oob="true"`).MatchString(body) {
		t.Fatalf("the lookup's answer does not redraw the decision out of band:\n%s", body)
	}
	if kind, action := nextStep(t, body); kind != "action" || action != string(schedule.ActionCheckNow) {
		t.Errorf("found in Sisu: next step %s %s, want Check now", kind, action)
	}
	if !strings.Contains(body, `data-testid="decision-verdict" data-kind="registered"`) {
		t.Error("the decision does not show the verdict")
	}
}
