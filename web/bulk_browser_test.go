package web_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/store/storetest"
)

// addFlagged adds n flagged failed_permanent rows of Anna's, each an hour older than the last, and
// returns their ids.
func (b *testBundle) addFlagged(t *testing.T, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
			ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Duration(4+i) * time.Minute)})
	}
	return ids
}

// A bulk action on every row matching a filter, from the queue's "Select all" to the result, in
// the browser: past the rows answered at once (51) it runs in the background and its progress page
// turns into the result; at the limit (500) too. Every row the preview counted is applied.
func TestBrowserBulkOnEveryMatchingRow(t *testing.T) {
	t.Parallel()
	for _, n := range []int{51, 500} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			// The fixture's flagged failed_permanent row is one of them.
			ids := append(b.addFlagged(t, n-1), b.permanent)
			bt := newTab(t)
			bt.do(t,
				login(b.server.URL, b.support.Email, testPassword),
				chromedp.Navigate(b.server.URL+"/?show=all&state=failed_permanent"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-select-all"]`)),
			)
			if got, want := bt.text(t, `[data-testid="bulk-select-all"]`), fmt.Sprintf("Select all %d matching this filter", n); !strings.Contains(got, want) {
				t.Fatalf("select-all button = %q, want %q", got, want)
			}
			bt.do(t,
				chromedp.SetValue(chromedp.CSS(`#bulk-form [data-testid="bulk-action"]`), "clear_flag"),
				chromedp.Click(chromedp.CSS(`[data-testid="bulk-select-all"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-apply-form"]`)),
			)
			if got := bt.eval(t, `String(document.querySelectorAll('[data-testid="bulk-apply-form"] input[name="row"]').length)`); got != strconv.Itoa(n) {
				t.Fatalf("the apply form carries %s rows, want %d", got, n)
			}
			bt.do(t,
				chromedp.SendKeys(chromedp.CSS(`[data-testid="bulk-reason"]`), "Course code allowed now"),
				chromedp.Click(chromedp.CSS(`[data-testid="bulk-apply"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-result"]`)),
			)
			bt.waitLocation(t, "the job's page", func(loc string) bool { return strings.Contains(loc, "/bulk/jobs/") })
			if got := bt.eval(t, `document.querySelector('[data-testid="bulk-count-applied"]').dataset.count`); got != strconv.Itoa(n) {
				t.Errorf("the result counts %s applied, want %d", got, n)
			}
			var flagged int
			if err := b.store.Pool().QueryRow(t.Context(), `SELECT count(*) FROM credit_registrations WHERE id = ANY($1) AND needs_admin_attention`, ids).Scan(&flagged); err != nil {
				t.Fatal(err)
			}
			if flagged != 0 {
				t.Errorf("%d of the %d rows are still flagged after the apply", flagged, n)
			}
		})
	}
}
