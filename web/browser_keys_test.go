package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func TestBrowserKeyboardShortcuts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)
	bt.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-table"]`)),
	)
	currentID := func() string {
		return bt.eval(t, `(document.querySelector('tr.kbd-current') || {dataset: {}}).dataset.id || ""`)
	}
	ids := strings.Split(bt.eval(t, `Array.from(document.querySelectorAll('tr[data-testid="registration-row"]')).map(r => r.dataset.id).join(",")`), ",")
	if len(ids) < 3 {
		t.Fatalf("rows: %v", ids)
	}
	// j moves down from the first row, k back up; neither runs past the ends.
	bt.do(t, chromedp.KeyEvent("j"))
	if got := currentID(); got != ids[0] {
		t.Errorf("after j: %s, want the first row %s", got, ids[0])
	}
	bt.do(t, chromedp.KeyEvent("jj"))
	if got := currentID(); got != ids[2] {
		t.Errorf("after jjj: %s, want the third row", got)
	}
	bt.do(t, chromedp.KeyEvent("k"))
	if got := currentID(); got != ids[1] {
		t.Errorf("after k: %s, want the second row", got)
	}
	bt.do(t, chromedp.KeyEvent("kkkk"))
	if got := currentID(); got != ids[0] {
		t.Errorf("k past the top: %s", got)
	}
	// / focuses the search; typed letters then go into the box, not to the shortcuts.
	bt.do(t, chromedp.KeyEvent("/"), chromedp.WaitReady(chromedp.CSS("#q:focus")))
	if got := bt.eval(t, `document.activeElement.id`); got != "q" {
		t.Fatalf("after /: focus on %q, want the search", got)
	}
	bt.do(t, chromedp.KeyEvent("jko?"))
	if got := bt.eval(t, `document.getElementById("q").value`); got != "jko?" {
		t.Errorf("typed into the search: %q", got)
	}
	if got := currentID(); got != ids[0] {
		t.Errorf("typing moved the row: %s", got)
	}
	if got := bt.eval(t, `String(document.getElementById("keys-help").open)`); got != "false" {
		t.Errorf("typing ? opened the help")
	}
	// Clear the search (it filters as one types) and leave the field.
	bt.do(t,
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value = ""; document.getElementById("q").dispatchEvent(new Event("keyup")); document.activeElement.blur()`),
	)
	bt.waitIdle(t)
	// ? lists the keys; Escape closes the list.
	bt.do(t, chromedp.KeyEvent("?"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="keys-help"]`)))
	if got := bt.text(t, `[data-testid="keys-help"]`); !strings.Contains(got, "j") || !strings.Contains(got, "Open the chosen row") {
		t.Errorf("help: %q", got)
	}
	bt.do(t, chromedp.KeyEvent(kb.Escape), chromedp.WaitNotVisible(chromedp.CSS(`[data-testid="keys-help"]`)))
	// j then o opens the chosen row; Enter does too.
	bt.do(t, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent("jj"))
	want := currentID()
	bt.do(t, chromedp.KeyEvent("o"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-id="`+want+`"]`)))
	bt.do(t,
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-table"]`)),
		chromedp.KeyEvent("j"),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-id="`+ids[0]+`"]`)),
	)
}
