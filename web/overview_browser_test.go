package web_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserOverviewOnTheDemoData opens /overview on make run's data in Chromium: every chart
// draws marks, its table opens without script, and nothing breaks the CSP or the console.
// REGDESK_SCREENSHOT=/tmp/overview.png writes a screenshot of the page there (README).
func TestBrowserOverviewOnTheDemoData(t *testing.T) {
	t.Parallel()
	bt := newTab(t)
	b, support := setupDemo(t)

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
	// The demo's pile is derived before today: shaded and dashed, and the legend says so.
	if bt.eval(t, `String(document.querySelectorAll('[data-testid="chart-pile"] polyline.derived').length > 0 && document.querySelectorAll('[data-testid="chart-pile"] rect.band-derived').length > 0)`) != "true" {
		t.Errorf("the demo's derived pile days are drawn as if counted")
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
	// The marks' colours switch with the scheme and stay readable in both: every bar, line and
	// dot 3:1 against the panel and the bands behind it (WCAG 1.4.11), every band label 4.5:1 on
	// its band.
	light := bt.marksContrast(t, "light")
	bt.do(t, colorScheme("dark"), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="overview"]`)))
	if dark := bt.marksContrast(t, "dark"); dark == light {
		t.Errorf("the first bar is %s in both schemes: the chart colours do not switch", dark)
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

// marksContrastJS checks the colours of the overview's chart marks against what is behind them:
// the panel's background, composited with any band the mark stands on (at the band's opacity).
const marksContrastJS = `(() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, a, under) => [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a));
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const panelOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] >= 1) return c;
    }
    return [255, 255, 255, 1];
  };
  const failures = [];
  let checked = 0, first = "";
  for (const svg of document.querySelectorAll('[data-testid="overview"] svg.chart-svg')) {
    const panel = panelOf(svg);
    const bands = [...svg.querySelectorAll("rect.band")].map((b) => {
      const s = getComputedStyle(b);
      return { x0: +b.getAttribute("x"), x1: +b.getAttribute("x") + +b.getAttribute("width"),
        color: over(parse(s.fill), Number(s.fillOpacity), panel), label: b.getAttribute("class") };
    });
    const behind = (x0, x1) => [panel, ...bands.filter((b) => b.x0 < x1 && b.x1 > x0).map((b) => b.color)];
    for (const m of svg.querySelectorAll('[data-testid="mark"], circle.dot')) {
      const s = getComputedStyle(m);
      const c = parse(m.tagName === "polyline" ? s.stroke : s.fill);
      if (!c) { failures.push(m.tagName + " has no colour"); continue; }
      if (!first) first = s.fill;
      const x0 = m.tagName === "rect" ? +m.getAttribute("x") : m.tagName === "circle" ? +m.getAttribute("cx") : 0;
      const x1 = m.tagName === "rect" ? x0 + +m.getAttribute("width") : m.tagName === "circle" ? x0 : 1e9;
      for (const bg of behind(x0, x1)) {
        checked++;
        const r = ratio(c, bg);
        if (r < 3) failures.push(m.tagName + "." + m.getAttribute("class") + " " + s.fill + "/" + s.stroke + " on rgb(" + bg.map(Math.round) + "): " + r.toFixed(2));
      }
    }
    for (const t of svg.querySelectorAll("text.band-label")) {
      const c = parse(getComputedStyle(t).fill), x = +t.getAttribute("x");
      const band = bands.find((b) => b.x0 <= x && x < b.x1);
      if (!band) continue;
      checked++;
      const r = ratio(c, band.color);
      if (r < 4.5) failures.push("band label " + JSON.stringify(t.textContent) + " on " + band.label + ": " + r.toFixed(2));
    }
  }
  return JSON.stringify({ checked, failures, first });
})()`

// marksContrast fails the test for every chart mark below its contrast, and returns the first
// bar's fill, so two schemes can be compared.
func (bt *browserTest) marksContrast(t *testing.T, scheme string) string {
	t.Helper()
	var rep struct {
		Checked  int
		Failures []string
		First    string
	}
	if err := json.Unmarshal([]byte(bt.eval(t, marksContrastJS)), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Checked < 20 {
		t.Errorf("%s: only %d chart marks checked; the charts did not draw", scheme, rep.Checked)
	}
	for _, f := range rep.Failures {
		t.Errorf("%s: %s", scheme, f)
	}
	return rep.First
}
