package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"regdesk/schedule"
)

// A refusal the page answers in words (422: the reason is blank) is swapped into the form like
// any answer and is no error in the console: htmx does not report it (views/page.go's
// htmxConfig), so the tab, which fails on any console error, passes without allowing one (issue
// 27, defect 8).
func TestBrowserRefusalInWordsIsNoConsoleError(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)
	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/registrations/"+b.permanent),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-dismiss_attention"][data-allowed="true"]`)),
		// Blanks pass the browser's "required" and reach the server, which refuses them with 422.
		actInBrowser(schedule.ActionDismissAttention, "   "),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-dismiss_attention"] [data-testid="action-error"]`)),
	)
	if got := bt.text(t, `[data-testid="action-dismiss_attention"] [data-testid="action-error"]`); got == "" {
		t.Errorf("the refusal says nothing")
	}
}
