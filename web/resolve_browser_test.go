package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/partner/suotar/suotarfake"
	"regdesk/schedule"
	"regdesk/store/storetest"
	"regdesk/views"
)

// The resolution flows a support person goes through, in a real browser against the fake Suotar
// over HTTP: settle an uncertain row the lookup found, see a resubmit refused and why, settle a
// partial row, and lose a race to a colleague without writing anything.

// actInBrowser opens an action's form on the registration page, types the reason and submits it.
func actInBrowser(action schedule.Action, reason string) chromedp.Action[chromedp.Void] {
	item := `[data-testid="action-` + string(action) + `"]`
	return chromedp.Steps(
		chromedp.Click(chromedp.CSS(item+` [data-testid="action-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(item+` [data-testid="action-reason"]`)),
		chromedp.SendKeys(chromedp.CSS(item+` [data-testid="action-reason"]`), reason),
		chromedp.Click(chromedp.CSS(item+` [data-testid="action-submit"]`)),
	)
}

func TestBrowserResolveAnUncertainRowFoundInSisu(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-landed", suotarfake.TransitionRegistered)
	id := b.row(t, "hy-kur-landed")
	bt := newTab(t)

	bt.do(t,
		login(b.server.URL, lookupSupportEmail, testPassword),
		chromedp.Navigate(b.server.URL+"/registrations/"+id),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-state="submission_uncertain"]`)),
		// Resubmitting an uncertain row waits for a lookup after the pending window.
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-resubmit"][data-allowed="false"]`)),
	)

	// The lookup finds the credit: resubmitting stays refused, and Check now lets the pipeline
	// record the credit itself on its next pass, without a reload.
	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="lookup-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="lookup"][data-verdict="registered"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-check_now"][data-allowed="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-resubmit"][data-allowed="false"]`)),
	)
	b.clock.Advance(2 * time.Minute) // the person reads the lookup before acting
	bt.do(t,
		actInBrowser(schedule.ActionCheckNow, "Course unit attainment in Sisu with grade 4, as sent"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline"] [data-testid="event"][data-kind="admin_action"]`)),
	)
	if got := bt.text(t, `[data-testid="flash"]`); got != "The pipeline will check this registration at once." {
		t.Errorf("flash = %q", got)
	}
	// The LMS made the row due and recorded the hand action as Sami's LMS user.
	if got := bt.text(t, `[data-testid="timeline"] [data-testid="event"]:first-of-type`); !strings.Contains(got, "by Sami Support") ||
		!strings.Contains(got, "Course unit attainment in Sisu with grade 4, as sent") {
		t.Errorf("the newest history entry is %q, want the hand action with who and why", got)
	}
	var actor string
	if err := storetest.LMS(t, b.store).QueryRow(context.Background(), `SELECT coalesce(d.first_name || ' ' || d.last_name, '')
FROM credit_registration_admin_actions a JOIN user_details d ON d.user_id = a.actor_user_id
WHERE a.target_id = $1 AND a.action = 'transition_item'`, id).Scan(&actor); err != nil || actor != "Sami Support" {
		t.Errorf("the LMS's audit names %q (%v), want Sami Support", actor, err)
	}
}

func TestBrowserResubmitRefusedInsideThePendingWindow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	recent := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: ptr(testNow.Add(-2 * time.Hour)), StateChangedAt: testNow.Add(-2 * time.Hour),
		StudentNumber: annaNumber})
	bt := newTab(t)

	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/registrations/"+recent),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-resubmit"][data-allowed="false"]`)),
	)
	if got := bt.text(t, `[data-testid="action-resubmit"] [data-testid="action-why"]`); got != "Suotar may still hold this submission as pending until "+views.At(testNow.Add(22*time.Hour), testNow)+"." {
		t.Errorf("the refusal says %q", got)
	}
	if got := bt.text(t, `[data-testid="action-resubmit"] [data-testid="action-available"]`); got != "Available from "+views.At(testNow.Add(22*time.Hour), testNow)+"." {
		t.Errorf("availability = %q", got)
	}
	if got := bt.eval(t, `document.querySelector('[data-testid="action-resubmit"] button').disabled ? "disabled" : "enabled"`); got != "disabled" {
		t.Errorf("the resubmit button is %s", got)
	}
	if got := bt.eval(t, `String(document.querySelectorAll('[data-testid="action-resubmit"] form').length)`); got != "0" {
		t.Errorf("a refused resubmit still has %s forms", got)
	}

	// The escalation countdown keeps counting: as if 21 hours had passed since the page was drawn.
	if got := bt.text(t, `[data-testid="escalates"] .rel`); got != "in 22 h" {
		t.Errorf("escalates %q, want in 22 h as drawn", got)
	}
	got := bt.eval(t, `(function () {
  var el = document.querySelector('[data-testid="escalates"] time');
  el.setAttribute("data-countdown", new Date(Date.parse("`+testNow.Format(time.RFC3339)+`") + 21 * 3600 * 1000).toISOString());
  window.regdeskCountdownTick();
  return el.querySelector(".rel").textContent;
})()`)
	// The seconds since the page loaded count too, so a slow machine may already be under the hour.
	if got != "in 1 h" && got != "in 59 min" {
		t.Errorf("after 21 h the countdown says %q, want in 1 h", got)
	}
}

func TestBrowserResolveAPartialRow(t *testing.T) {
	t.Parallel()
	// Sisu has built the course unit attainment since the pipeline last looked.
	b := setupSubmitted(t, "hy-kur-partial", suotarfake.TransitionRegistered)
	id := b.row(t, "hy-kur-partial", func(r *storetest.Registration) {
		r.State, r.ErrorCode, r.PartiallyRegisteredAt = "partially_registered", "", ptr(testNow.Add(-4*24*time.Hour))
		r.SubmittedAt, r.StateChangedAt = ptr(testNow.Add(-5*24*time.Hour)), testNow.Add(-4*24*time.Hour)
	})
	bt := newTab(t)

	bt.do(t,
		login(b.server.URL, lookupSupportEmail, testPassword),
		chromedp.Navigate(b.server.URL+"/registrations/"+id),
		chromedp.Click(chromedp.CSS(`[data-testid="lookup-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="lookup"][data-verdict="registered"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-check_now"][data-allowed="true"]`)),
	)
	// Partial rows cannot be resubmitted or cancelled by hand.
	for _, a := range []string{"resubmit", "cancel"} {
		if got := bt.eval(t, `document.querySelector('[data-testid="action-`+a+`"]').dataset.allowed`); got != "false" {
			t.Errorf("%s on a partial row is allowed=%s", a, got)
		}
	}
	b.clock.Advance(time.Minute)
	bt.do(t,
		actInBrowser(schedule.ActionCheckNow, "Course unit attainment now in Sisu"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline"] [data-testid="event"][data-kind="admin_action"]`)),
	)
	if got := bt.text(t, `[data-testid="flash"]`); got != "The pipeline will check this registration at once." {
		t.Errorf("flash = %q", got)
	}
}

func TestBrowserConflictWhenTheRowChangedUnderneath(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)
	// The conflict is an answer the page expects and swaps: no allowance, so the tab's check of the
	// console holds it to no error (issue 27, defect 8).
	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/registrations/"+b.permanent),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-dismiss_attention"][data-allowed="true"]`)),
	)
	// A colleague cancels the row while the page is open.
	b.actAsStore(t, b.admin, b.permanent, schedule.ActionCancel, "Student withdrew from the course", testNow)
	before := b.written(t, b.permanent)

	bt.eval(t, `document.body.dataset.marker = "kept"; "ok"`)
	bt.do(t,
		actInBrowser(schedule.ActionDismissAttention, "Known config problem, fixed tomorrow"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-notice"][data-kind="stale"]`)),
	)
	if got := bt.eval(t, `document.body.dataset.marker || "reloaded"`); got != "kept" {
		t.Errorf("the conflict reloaded the page; want the panel swapped")
	}
	if got := bt.text(t, `[data-testid="action-notice-message"]`); got != "Aino Admin moved this registration to “Cancelled” at "+views.At(testNow, testNow)+". Nothing was saved." {
		t.Errorf("the conflict says %q", got)
	}
	if got := bt.text(t, `[data-testid="action-notice-detail"]`); !strings.Contains(got, "Student withdrew from the course") {
		t.Errorf("the conflict does not quote the colleague's reason: %q", got)
	}
	if got := b.written(t, b.permanent); got != before {
		t.Errorf("the stale action wrote: %+v → %+v", before, got)
	}

	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="reload"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-state="cancelled"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="action-notice"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-cancel"][data-allowed="false"]`)),
	)
	if got := bt.text(t, `[data-testid="timeline"] [data-testid="event"]:first-of-type`); !strings.Contains(got, "by Aino Admin") {
		t.Errorf("after reloading, the newest history entry is %q, want the colleague's cancel", got)
	}
}
