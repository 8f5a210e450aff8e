package web_test

import (
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/store/demo"
	"regdesk/store/storetest"
	"regdesk/web"
)

// TestBrowserOverviewOnTheDemoData opens /overview on make run's data in Chromium: every chart
// draws marks, its table opens without script, and nothing breaks the CSP or the console.
// REGDESK_SCREENSHOT=/tmp/overview.png writes a screenshot of the page there (README).
func TestBrowserOverviewOnTheDemoData(t *testing.T) {
	t.Parallel()
	bt := newTab(t)
	st := storetest.New(t)
	if _, err := demo.Write(t.Context(), st, demo.Config{Rows: demo.DefaultRows, Seed: 1, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	srv := web.New(web.Deps{Store: st, Now: func() time.Time { return testNow }, Session: web.SessionConfig{Insecure: true}})
	t.Cleanup(srv.Close)
	b := &testBundle{store: st, server: httptest.NewServer(srv.Routes())}
	t.Cleanup(b.server.Close)
	support := b.addAccount(t, "Sami Support", "support@example.invalid", web.RoleSupport)

	bt.do(t,
		login(b.server.URL, support.Email, testPassword),
		chromedp.Click(chromedp.CSS(`nav a[href="/overview"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="overview"]`)),
	)
	for _, id := range []string{"latency", "latency-weeks", "outcomes", "pile"} {
		chart := `[data-testid="chart-` + id + `"]`
		if n := bt.eval(t, `String(document.querySelectorAll('`+chart+` svg [data-testid="mark"]').length)`); n == "0" {
			t.Errorf("chart %s draws nothing on the demo data", id)
		}
		if e := bt.eval(t, `document.querySelector('`+chart+`').dataset.empty`); e != "false" {
			t.Errorf("chart %s says it is empty", id)
		}
		if bt.eval(t, `String(document.querySelectorAll('`+chart+` [data-testid="chart-legend"] li').length > 0)`) != "true" {
			t.Errorf("chart %s has no legend", id)
		}
	}
	// The right edge is now: the demo's rows keep landing up to now. Just after Helsinki midnight
	// "today" is minutes old, so today and yesterday are read together.
	recent := bt.eval(t, `(() => { const r = document.querySelectorAll('[data-testid="chart-table-outcomes"] tbody tr'); const n = (i) => i >= 0 ? parseInt(r[i].cells[1].textContent.replace(/\D/g, '') || '0', 10) : 0; return String(n(r.length-1) + n(r.length-2)) })()`)
	if recent == "0" || recent == "" {
		t.Errorf("no registration today or yesterday on the demo data (outcomes' last two rows: %q)", recent)
	}
	// A chart's numbers open as a table with no script of ours: <details> is the browser's own.
	bt.do(t, chromedp.Click(chromedp.CSS(`[data-testid="chart-table-latency"] summary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="chart-table-latency"] table`)))
	for _, testid := range []string{"tile-needs_admin", "tile-uncertain", "tile-registered_week"} {
		if v := bt.text(t, `[data-testid="`+testid+`"] .tile-value`); v == "" || v == "0" {
			t.Errorf("tile %s = %q on the demo data", testid, v)
		}
	}
	if n := bt.eval(t, `String(document.querySelectorAll('[data-testid="failure-group"]').length)`); n == "0" {
		t.Errorf("no failure group on the demo data")
	}
	if p := os.Getenv("REGDESK_SCREENSHOT"); p != "" {
		png, err := chromedp.Run(bt.ctx, chromedp.FullScreenshot(100))
		if err != nil || os.WriteFile(p, png, 0o644) != nil {
			t.Errorf("screenshot to %s: %v", p, err)
		} else {
			t.Logf("screenshot: %s", p)
		}
	}
	if strings.Contains(bt.eval(t, `document.body.innerHTML`), "style=") {
		t.Errorf("the page carries a style attribute, which the CSP refuses")
	}
}
