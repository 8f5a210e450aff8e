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
	if len(ids) < 4 {
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
	// j then o opens the chosen row beside the list, which keeps its place: the same page, the
	// chosen row still chosen. Enter does too; Escape closes the panel; O opens the whole page.
	bt.do(t, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent("jj"))
	want := currentID()
	bt.eval(t, `document.body.dataset.marker = "kept"; "ok"`)
	bt.do(t, chromedp.KeyEvent("o"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration-panel"][data-id="`+want+`"] [data-testid="decision"]`)))
	if got := bt.eval(t, `document.body.dataset.marker || "reloaded"`); got != "kept" {
		t.Errorf("o left the list; want the registration beside it")
	}
	if got := currentID(); got != want {
		t.Errorf("with the panel open the chosen row is %s, want %s", got, want)
	}
	if !strings.HasSuffix(bt.location(t), "/?show=all") {
		t.Errorf("the panel changed the address to %s", bt.location(t))
	}
	bt.do(t, chromedp.KeyEvent("j"), chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration-panel"][data-id="`+ids[3]+`"]`)))
	bt.do(t, chromedp.KeyEvent(kb.Escape), chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="registration-panel"]`)))
	if got := currentID(); got != ids[3] {
		t.Errorf("after closing the panel the chosen row is %s, want %s", got, ids[3])
	}
	bt.do(t, chromedp.KeyEvent("O"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-id="`+ids[3]+`"]`)))
	// On a narrow screen there is no room beside the list: Enter opens the page.
	bt.do(t,
		chromedp.EmulateViewport(900, 900),
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-table"]`)),
		chromedp.KeyEvent("j"),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-id="`+ids[0]+`"]`)),
	)
}
