package web_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views/i18n"
	"regdesk/web"
)

// This file is issue 27's asks in Chromium: the work above the fold on a laptop and a phone in
// every language, a queue that stays current, and the alert strip's list.

// rect is an element's box in the viewport, from getBoundingClientRect.
type rect struct{ Top, Bottom, Left, Right, Width, Height float64 }

// box reads the box of the first element sel matches; ok is false when none does.
func (bt *browserTest) box(t *testing.T, sel string) (rect, bool) {
	t.Helper()
	v := bt.eval(t, `(() => { const e = document.querySelector(`+strconv.Quote(sel)+`); if (!e) return "";
  const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right, r.width, r.height].join(","); })()`)
	if v == "" {
		return rect{}, false
	}
	var n [6]float64
	for i, f := range strings.Split(v, ",") {
		n[i], _ = strconv.ParseFloat(f, 64)
	}
	return rect{n[0], n[1], n[2], n[3], n[4], n[5]}, true
}

// onScreen fails unless sel is wholly inside a w×h viewport, unscrolled.
func (bt *browserTest) onScreen(t *testing.T, what, sel string, w, h float64) {
	t.Helper()
	r, ok := bt.box(t, sel)
	switch {
	case !ok:
		t.Errorf("%s: no %s on the page", what, sel)
	case r.Height == 0 || r.Width == 0:
		t.Errorf("%s: %s is not shown", what, sel)
	case r.Top < 0 || r.Bottom > h || r.Left < 0 || r.Right > w:
		t.Errorf("%s: %s is at %+v, outside the first %gx%g screen", what, sel, r, w, h)
	}
}

// noSideways fails when the page is wider than the viewport: nothing to scroll sideways to.
func (bt *browserTest) noSideways(t *testing.T, what string) {
	t.Helper()
	if got := bt.eval(t, `String(document.documentElement.scrollWidth - window.innerWidth)`); got != "0" {
		t.Errorf("%s: the page is %s px wider than the screen", what, got)
	}
}

func TestBrowserTheWorkIsAboveTheFold(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.AlertsTTL = time.Nanosecond; d.MirrorStaleAfter = 0 })
	// The worst of every page's top: fifteen alerts, one critical, and a ledger copy behind.
	b.fireMany(t, 14, true)
	if _, err := b.store.Pool().Exec(context.Background(), `UPDATE ledger_mirror_state SET refreshed_at = clock_timestamp() - interval '3 minutes'`); err != nil {
		t.Fatal(err)
	}
	// A name and a course as long as real ones get, on the row the queue shows first.
	long := storetest.AddCourse(t, b.store, storetest.Course{Name: "Johdatus tekoälyyn ja koneoppimisen perusteisiin – syventävä jatkokurssi", Code: "TKT20017-LONG"})
	maria := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Maria-Kristiina Aleksandra", LastName: "Väisänen-Lindqvist-Björkenheim",
		Email: "maria-kristiina.vaisanen-lindqvist@example.invalid", StudentNumber: "019999999"})
	storetest.AddRegistration(t, b.store, storetest.Registration{Student: maria, Course: long, State: "submission_uncertain", ErrorCode: "sisu_timeout",
		SubmittedAt: ptr(testNow.Add(-40 * time.Hour)), StateChangedAt: testNow.Add(-time.Minute), NextAttemptAt: testNow.Add(time.Hour), StudentNumber: "019999999"})
	bt := newTab(t)
	bt.do(t, login(b.server.URL, b.support.Email, testPassword))

	for _, lang := range i18n.Langs {
		bt.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(b.server.URL+"/"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="language-`+string(lang)+`"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="language-`+string(lang)+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="`+string(lang)+`"] [data-testid="registration-row"]`)))
		what := "queue at 1280×900 in " + string(lang)
		bt.onScreen(t, what, `[data-testid="registration-row"]`, 1280, 900)
		bt.noSideways(t, what)
		if r, _ := bt.box(t, `[data-testid="health-banner"]`); r.Height > 48 {
			t.Errorf("%s: the alert strip is %g px high, want one line", what, r.Height)
		}
		if r, _ := bt.box(t, `[data-testid="mirror-behind"]`); r.Height > 48 {
			t.Errorf("%s: the ledger copy's notice is %g px high, want one line", what, r.Height)
		}
		if r, _ := bt.box(t, `header.topbar`); r.Height > 48 {
			t.Errorf("%s: the top bar is %g px high, want one line", what, r.Height)
		}
		if got := bt.eval(t, `(() => { const t = document.querySelector('[data-testid="queue-table"]'); return String(t.scrollWidth - t.clientWidth) })()`); got != "0" {
			t.Errorf("%s: the table is %s px wider than its place", what, got)
		}
		// Cut words keep their whole in the title.
		if got := bt.eval(t, `document.querySelector('[data-testid="registration-row"] [data-testid="registration-link"]').title`); !strings.Contains(got, "Björkenheim") {
			t.Errorf("%s: the first row's name has title %q, want the whole name", what, got)
		}

		bt.do(t, chromedp.Navigate(b.server.URL+"/registrations/"+b.uncertainOverdue),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="decision"]`)))
		what = "registration at 1280×900 in " + string(lang)
		for _, sel := range []string{`[data-testid="state-words"]`, `[data-testid="decision-verdict"]`, `[data-testid="next-step"]`,
			`[data-testid="actions"] li:first-child`, `[data-testid="actions"] li:last-child`} {
			bt.onScreen(t, what, sel, 1280, 900)
		}
		bt.noSideways(t, what)
	}

	// A phone, in Finnish: the header's search, sign-out and languages are there; the queue is
	// cards; a registration's decision and its first actions are on the first screen.
	bt.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait),
		chromedp.Navigate(b.server.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="language-fi"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="language-fi"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="fi"] [data-testid="registration-row"]`)))
	for _, sel := range []string{`#student-search`, `[data-testid="logout"]`, `[data-testid="language-sv"]`, `[data-testid="registration-row"]`} {
		bt.onScreen(t, "queue at 390×844", sel, 390, 844)
	}
	bt.noSideways(t, "queue at 390×844")
	if got := bt.eval(t, `getComputedStyle(document.querySelector('[data-testid="registration-row"]')).display`); got == "table-row" {
		t.Error("queue at 390×844: the rows are a table's, want cards")
	}
	bt.do(t, chromedp.Navigate(b.server.URL+"/registrations/"+b.uncertainOverdue), chromedp.WaitVisible(chromedp.CSS(`[data-testid="decision"]`)))
	for _, sel := range []string{`[data-testid="state-words"]`, `[data-testid="next-step"]`, `[data-testid="actions"] li:first-child`} {
		bt.onScreen(t, "registration at 390×844", sel, 390, 844)
	}
	bt.noSideways(t, "registration at 390×844")
}

func TestBrowserQueueStaysCurrentAndKeepsTheTicks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)
	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.settled+`"]`)),
	)
	history := bt.eval(t, `String(history.length)`)
	// Tick a row, choose another with j, pick a bulk action: what a person is in the middle of.
	bt.do(t,
		chromedp.Click(chromedp.CSS(`tr[data-id="`+b.settled+`"] [data-testid="select-row"]`)),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`),
		chromedp.KeyEvent("j"),
		chromedp.SetValue(chromedp.CSS(`[data-testid="bulk-action"]`), "cancel"),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`),
	)
	chosen := bt.eval(t, `document.querySelector('tr.kbd-current').dataset.id`)
	// Meanwhile a colleague takes a row on, and a new one needs a person.
	if _, err := b.store.RegistrationClaim(context.Background(), testNow, store.ClaimParams{Scope: store.AllCourses(), IDs: []string{b.dense},
		Actor: store.ActionActor{ID: b.admin.ID, Role: string(b.admin.Role), LMSUserID: b.admin.LMSUserID}, Lapse: 4 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	fresh := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
		ErrorCode: "sisu_validation_failed", NeedsAdminAttention: true, StateChangedAt: testNow})
	// The refresh comes every 15 s while the tab is visible; the test asks for it at once.
	bt.do(t,
		chromedp.Evaluate[chromedp.Void](`htmx.trigger(document.getElementById("queue-results"), "refresh")`),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+fresh+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+b.dense+`"][data-claimed="true"]`)),
	)
	bt.waitIdle(t)
	if got := bt.eval(t, `String(document.querySelector('tr[data-id="`+b.settled+`"] [data-testid="select-row"]').checked)`); got != "true" {
		t.Error("the refresh dropped the ticked row")
	}
	if got := bt.eval(t, `(document.querySelector('tr.kbd-current') || {dataset: {}}).dataset.id || ""`); got != chosen {
		t.Errorf("after the refresh the chosen row is %q, want %q", got, chosen)
	}
	if got := bt.eval(t, `document.querySelector('[data-testid="bulk-action"]').value`); got != "cancel" {
		t.Errorf("after the refresh the bulk action is %q, want the one picked", got)
	}
	if got := bt.eval(t, `String(history.length)`); got != history {
		t.Errorf("the refresh added to the history (%s entries, was %s)", got, history)
	}
	if !strings.HasSuffix(bt.location(t), "/?show=all") {
		t.Errorf("the refresh moved the address to %s", bt.location(t))
	}
}

func TestBrowserAlertStripOpensItsList(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.AlertsTTL = time.Nanosecond })
	b.fireMany(t, 6, true)
	bt := newTab(t)
	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="health-banner"] .strip-lead`)),
	)
	if got := bt.eval(t, `String(document.querySelector('[data-testid="health-banner-more"] li').checkVisibility())`); got != "false" {
		t.Error("the list of the other alerts shows before it is opened")
	}
	top, _ := bt.box(t, `[data-testid="queue-counts"]`)
	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="health-banner-count"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="health-banner-more"] li`)),
	)
	if n := bt.eval(t, `String(document.querySelectorAll('[data-testid="health-banner-more"] li').length)`); n != "6" {
		t.Errorf("the opened list has %s alerts, want 6", n)
	}
	// It opens over the page: the work below does not move.
	if after, _ := bt.box(t, `[data-testid="queue-counts"]`); after.Top != top.Top {
		t.Errorf("opening the list moved the page from %g to %g", top.Top, after.Top)
	}
	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="health-banner-more"] [data-testid="health-banner-all"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="alerts-firing"]`)),
	)
}
