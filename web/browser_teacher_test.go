package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// grantClipboard lets the tab's pages of base read and write the clipboard, as a person allowing
// it would.
func (bt *browserTest) grantClipboard(t *testing.T, base string) {
	t.Helper()
	id := chromedp.FromContext(bt.ctx).BrowserContextID
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(bt.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted,
			Origin: base, BrowserContextID: id,
		})
		if err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}
}

func TestBrowserTeacherFindsAStudentAndCopiesTheMessage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	otto, _ := b.otherCourseStudent(t)
	bt := newTab(t)
	bt.grantClipboard(t, b.server.URL)

	// Signing in leads a teacher to their courses.
	bt.do(t,
		login(b.server.URL, b.teacher.Email, testPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="course-item"][data-id="`+b.course.ID+`"]`)),
	)
	bt.waitLocation(t, "the teacher's courses", func(loc string) bool { return strings.HasSuffix(loc, "/courses") })

	// Typing searches as they go: accents and case do not matter, other courses' students never show.
	bt.eval(t, `document.body.dataset.marker = "kept"; "ok"`)
	bt.do(t,
		chromedp.Click(chromedp.CSS(`[data-testid="search-input"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="search-input"]`), "aija"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="search-results"].open [data-student-id="`+b.anna.ID+`"]`)),
	)
	if got := bt.eval(t, `document.querySelectorAll('[data-testid="search-result"]').length + ""`); got != "1" {
		t.Errorf("%s results for a teacher, want Anna alone", got)
	}
	if got := bt.eval(t, `document.querySelector('[data-student-id="`+otto+`"]') ? "found" : "absent"`); got != "absent" {
		t.Errorf("the teacher's search shows the other course's student")
	}
	if got := bt.eval(t, `document.body.dataset.marker || "reloaded"`); got != "kept" {
		t.Errorf("typing reloaded the page; want the dropdown swapped in")
	}
	// Down arrow reaches the result from the keyboard; Enter opens it.
	bt.do(t,
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.WaitReady(chromedp.CSS(`[data-testid="search-result"]:focus`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="student"][data-id="`+b.anna.ID+`"]`)),
	)
	bt.waitLocation(t, "Anna's page", func(loc string) bool { return strings.HasSuffix(loc, "/students/"+b.anna.ID) })

	card := `[data-testid="registration-card"][data-id="` + b.uncertainOverdue + `"]`
	if got := bt.text(t, card+` [data-testid="status"]`); got != "Waiting for Sisu" {
		t.Errorf("status badge = %q, want Waiting for Sisu", got)
	}
	if got := bt.text(t, card+` [data-testid="waits-on"]`); got != "Waits on: Support" {
		t.Errorf("waits on = %q", got)
	}
	if got := bt.text(t, card+` [data-testid="next-step"]`); !strings.HasPrefix(got, "It is not yet clear whether Sisu received the credit") {
		t.Errorf("next step = %q", got)
	}
	if got := bt.eval(t, `document.querySelector('main').innerText.includes("submission_uncertain") ? "shown" : "hidden"`); got != "hidden" {
		t.Errorf("the teacher's page shows the internal state")
	}

	want := bt.eval(t, `document.querySelector('`+card+` [data-testid="message-text"]').value`)
	if !strings.HasPrefix(want, "Your credits for Ohjelmoinnin perusteet have been sent to Sisu") {
		t.Fatalf("message = %q", want)
	}
	bt.do(t,
		chromedp.Click(chromedp.CSS(card+` [data-testid="copy-message"]`)),
		chromedp.WaitVisible(chromedp.CSS(card+` [data-testid="copy-message"][data-copied="clipboard"]`)),
	)
	if got := bt.text(t, card+` [data-testid="copy-status"]`); got != "Copied" {
		t.Errorf("copy status = %q, want Copied", got)
	}
	clip, err := chromedp.Run(bt.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("read the clipboard: %v", err)
	}
	if clip != want {
		t.Errorf("clipboard = %q, want the message %q", clip, want)
	}
}

func TestBrowserAlertLinkShowsWhatChanged(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Someone else settled the row after the alert went out.
	b.cancelAs(t, b.admin, b.permanent, testNow.Add(-30*time.Minute))
	bt := newTab(t)
	link := b.server.URL + "/registrations/" + b.permanent + "?" + alertQuery(alertedAt)

	// The link from the e-mail, opened before signing in, keeps its alert time through sign-in.
	bt.do(t,
		chromedp.Navigate(link),
		fillLogin(b.support.Email, testPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="since-alert"][data-changed="true"]`)),
	)
	if loc := bt.location(t); loc != link {
		t.Errorf("location = %s, want %s", loc, link)
	}
	want := "Since the alert at " + at(alertedAt) + ", Aino Admin cancelled it at " + at(testNow.Add(-30*time.Minute)) + "; it is now “Not registering”."
	if got := bt.text(t, `[data-testid="since-alert-text"]`); got != want {
		t.Errorf("banner = %q, want %q", got, want)
	}

	// The student's page of the same alert lists the change and what still needs action.
	bt.do(t,
		chromedp.Navigate(b.server.URL+"/students/"+b.anna.ID+"?"+alertQuery(alertedAt)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="since-alert-item"][data-id="`+b.permanent+`"]`)),
	)
	if got := bt.text(t, `[data-testid="since-alert-item"][data-id="`+b.permanent+`"]`); !strings.Contains(got, "Aino Admin cancelled it at "+at(testNow.Add(-30*time.Minute))) {
		t.Errorf("student banner item = %q", got)
	}
	if got := bt.text(t, `[data-testid="since-alert-item"][data-id="`+b.uncertainOverdue+`"]`); !strings.Contains(got, "still needs action") {
		t.Errorf("student banner item for the untouched row = %q", got)
	}
}
