package web_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// contrastJS lists every visible piece of text on the page whose contrast with what is behind it
// is below WCAG 2 AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold). The background is
// found by compositing the element's and its ancestors' background colours; the text colour is
// composited over it. Disabled controls are exempt, as WCAG exempts inactive components.
const contrastJS = `(() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const ch = (i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a;
    return [ch(0), ch(1), ch(2), a];
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = [255, 255, 255, 1]; // the canvas behind everything
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const visible = (el) => {
    const s = getComputedStyle(el);
    if (s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    // The visually-hidden pattern: clipped to a pixel.
    if (s.clip === "rect(0px, 0px, 0px, 0px)" || s.clipPath === "inset(50%)") return false;
    for (let e = el; e; e = e.parentElement) {
      if (e.tagName === "DETAILS" && !e.open && e !== el && !el.closest("summary")) return false;
      if (e.hidden) return false;
    }
    return true;
  };
  // Text in a chart is painted by its fill, over the chart's HTML background and any shape under
  // it (a band of the verify windows), each with its opacity.
  const svgBackground = (el) => {
    let bg = background(el.ownerSVGElement.parentElement);
    el.scrollIntoView({block: "center"});
    const r = el.getBoundingClientRect();
    const under = document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2)
      .filter((e) => e !== el && e.ownerSVGElement === el.ownerSVGElement && ["rect", "circle", "path", "polygon"].includes(e.tagName));
    for (let i = under.length - 1; i >= 0; i--) {
      const cs = getComputedStyle(under[i]);
      if (cs.fill === "none") continue;
      const f = parse(cs.fill);
      f[3] *= Number(cs.fillOpacity) * Number(cs.opacity);
      bg = over(f, bg);
    }
    return bg;
  };
  const failures = [];
  const seen = new Set();
  const check = (el, text) => {
    if (seen.has(el) || !visible(el) || el.disabled) return;
    seen.add(el);
    const s = getComputedStyle(el);
    const inSVG = el instanceof SVGElement;
    const bg = inSVG ? svgBackground(el) : background(el);
    const fg = over(parse(inSVG ? s.fill : s.color), bg);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = (size >= 24 || (size >= 18.66 && bold)) ? 3 : 4.5;
    if (ratio < need) {
      failures.push({tag: el.tagName.toLowerCase(), cls: String(el.className || ""), text: text.trim().slice(0, 40),
        ratio: Math.round(ratio * 100) / 100, need, color: s.color, background: "rgb(" + bg.slice(0, 3).map(Math.round).join(",") + ")"});
    }
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeValue.trim() && n.parentElement && !["SCRIPT", "STYLE", "NOSCRIPT", "OPTION"].includes(n.parentElement.tagName)) {
      check(n.parentElement, n.nodeValue);
    }
  }
  document.querySelectorAll("input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select, textarea").forEach((el) => check(el, el.value || el.placeholder || el.tagName));
  // A chart's marks and its legend's swatches are graphics that carry meaning: WCAG 2.1 (1.4.11)
  // asks 3:1 against what is next to them. A bar or dot is its fill, a line its stroke.
  let graphics = 0;
  const mark = (el, color, bgEl, what) => {
    if (!visible(el)) return;
    graphics++;
    const bg = background(bgEl);
    const c = over(parse(color), bg);
    const l1 = lum(c), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < 3) {
      failures.push({tag: el.tagName.toLowerCase(), cls: String(el.getAttribute("class") || ""), text: what,
        ratio: Math.round(ratio * 100) / 100, need: 3, color, background: "rgb(" + bg.slice(0, 3).map(Math.round).join(",") + ")"});
    }
  };
  document.querySelectorAll("svg.chart-svg .bar, svg.chart-svg .dot, svg.chart-svg .line, svg.sparkline .spark").forEach((el) => {
    const cs = getComputedStyle(el);
    mark(el, el.classList.contains("line") || el.classList.contains("spark") ? cs.stroke : cs.fill, el.ownerSVGElement.parentElement, "(chart mark)");
  });
  document.querySelectorAll(".legend .swatch:not(.band)").forEach((el) => mark(el, getComputedStyle(el).backgroundColor, el.parentElement, "(legend swatch)"));
  return JSON.stringify({checked: seen.size, graphics, failures});
})()`

type contrastReport struct {
	Checked int `json:"checked"`
	// Graphics counts the chart marks and legend swatches checked at 3:1.
	Graphics int `json:"graphics"`
	Failures []struct {
		Tag, Cls, Text, Color, Background string
		Ratio, Need                       float64
	} `json:"failures"`
}

func (bt *browserTest) contrast(t *testing.T, page string) contrastReport {
	t.Helper()
	var rep contrastReport
	if err := json.Unmarshal([]byte(bt.eval(t, contrastJS)), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Checked < 20 {
		t.Errorf("%s: only %d pieces of text checked; the page did not draw", page, rep.Checked)
	}
	for _, f := range rep.Failures {
		t.Errorf("%s: %s.%s %q: contrast %.2f, needs %.1f (%s on %s)", page, f.Tag, f.Cls, f.Text, f.Ratio, f.Need, f.Color, f.Background)
	}
	return rep
}

func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})
}

func TestBrowserContrastPassesAAInLightAndDark(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// A row with a claim and every kind of badge on it, so their colours are checked too.
	b.postForm(t, b.client, "/registrations/"+b.uncertainOverdue+"/claim", url.Values{})
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			bt := newTab(t)
			bt.do(t, colorScheme(scheme), login(b.server.URL, b.support.Email, testPassword))
			if got := bt.eval(t, `String(matchMedia("(prefers-color-scheme: dark)").matches)`); got != map[string]string{"light": "false", "dark": "true"}[scheme] {
				t.Fatalf("the emulated scheme did not take: dark matches = %s", got)
			}
			bt.do(t, chromedp.Navigate(b.server.URL+"/?show=all"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-table"]`)))
			bt.contrast(t, "queue")
			bt.do(t, chromedp.Navigate(b.server.URL+"/registrations/"+b.uncertainOverdue), chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"]`)))
			bt.contrast(t, "registration")
			if scheme == "dark" {
				bg := bt.eval(t, `getComputedStyle(document.documentElement).backgroundColor`)
				if !strings.HasPrefix(bg, "rgb(") || bg == "rgb(246, 247, 249)" {
					t.Errorf("dark scheme body background %s: the stylesheet has no dark theme", bg)
				}
			}
		})
	}
}

// TestBrowserContrastOnTheOverviewAndAStudent checks /overview, its charts' text, marks and legends
// included, and a student's page on make run's data, in both schemes.
func TestBrowserContrastOnTheOverviewAndAStudent(t *testing.T) {
	t.Parallel()
	b, support := setupDemo(t)
	// A student with registrations in several states, so the page shows several badges.
	var student string
	if err := b.store.Pool().QueryRow(t.Context(), `SELECT user_id::text FROM credit_registrations WHERE deleted_at IS NULL
GROUP BY user_id ORDER BY count(DISTINCT state) DESC, user_id LIMIT 1`).Scan(&student); err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			bt := newTab(t)
			bt.do(t, colorScheme(scheme), login(b.server.URL, support.Email, testPassword))
			bt.do(t, chromedp.Navigate(b.server.URL+"/overview"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="overview"]`)))
			if rep := bt.contrast(t, "overview"); rep.Graphics < 20 {
				t.Errorf("overview: only %d chart marks and swatches checked; the charts did not draw", rep.Graphics)
			}
			bt.do(t, chromedp.Navigate(b.server.URL+"/students/"+student), chromedp.WaitVisible(chromedp.CSS(`main`)))
			bt.contrast(t, "student")
		})
	}
}
