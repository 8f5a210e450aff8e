package web_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// "I'm on the ticked rows" leaves the person on the view they used it from, with its filters, not
// on all registrations (issue 27, defect 10): from the default view (what needs a person), from a
// filtered one, and from a view changed through the filter form without reloading the page.
func TestBrowserBulkClaimStaysOnTheView(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)
	bt.do(t, login(b.server.URL, b.support.Email, testPassword))
	claimFrom := func(t *testing.T, start string, change func(), id string, want url.Values) {
		t.Helper()
		row := `tr[data-id="` + id + `"]`
		// The page left behind may still be settling the last claim's swap; a navigation that
		// lands on it is aborted by Chromium (net::ERR_ABORTED), so wait, and try once more.
		bt.waitIdle(t)
		if err := chromedp.Do(bt.ctx, chromedp.Navigate(b.server.URL+start)); err != nil {
			bt.do(t, chromedp.Navigate(b.server.URL+start))
		}
		bt.do(t, chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-results"]`)))
		if change != nil {
			change()
		}
		bt.waitIdle(t)
		bt.do(t,
			chromedp.WaitVisible(chromedp.CSS(row)),
			chromedp.Click(chromedp.CSS(row+` [data-testid="select-row"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="bulk-claim"]`)),
			// The page the claim leads to says so; the row may have been ours already.
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"] .flash-message`)),
			chromedp.WaitVisible(chromedp.CSS(row+`[data-claimed="true"] [data-testid="claim"][data-mine="true"]`)),
		)
		bt.waitIdle(t)
		u, err := url.Parse(bt.location(t))
		if err != nil {
			t.Fatal(err)
		}
		got := u.Query()
		for k, vs := range want {
			if !slices.Equal(got[k], vs) {
				t.Errorf("from %s: after the claim %s=%v, want %v (at %s)", start, k, got[k], vs, u)
			}
		}
		if got.Get("show") == "all" && want.Get("show") != "all" {
			t.Errorf("from %s: the claim switched to all registrations (%s)", start, u)
		}
	}
	claimFrom(t, "/", nil, b.permanent, url.Values{"show": {"needs_admin"}})
	claimFrom(t, "/?show=needs_admin&reason=outcome_uncertain", nil, b.uncertainOverdue,
		url.Values{"show": {"needs_admin"}, "reason": {"outcome_uncertain"}})
	claimFrom(t, "/?show=all&state=submission_uncertain&lookup=none", nil, b.uncertainOverdue,
		url.Values{"show": {"all"}, "state": {"submission_uncertain"}, "lookup": {"none"}})
	claimFrom(t, "/?show=all", func() {
		bt.do(t, chromedp.Click(chromedp.CSS(`[data-testid="show-needs-admin"]`)))
		bt.waitLocation(t, "show=needs_admin", func(s string) bool {
			u, err := url.Parse(s)
			return err == nil && u.Query().Get("show") == "needs_admin"
		})
	}, b.permanent, url.Values{"show": {"needs_admin"}})
	claimFrom(t, "/", func() {
		bt.do(t, chromedp.SetValue(chromedp.CSS(`[data-testid="filter-reason"]`), "outcome_uncertain"))
		bt.eval(t, `document.querySelector('[data-testid="filter-reason"]').dispatchEvent(new Event("change", {bubbles: true})); "ok"`)
		bt.waitLocation(t, "reason=outcome_uncertain", func(s string) bool {
			u, err := url.Parse(s)
			return err == nil && u.Query().Get("reason") == "outcome_uncertain"
		})
	}, b.uncertainOverdue, url.Values{"show": {"needs_admin"}, "reason": {"outcome_uncertain"}})
}
