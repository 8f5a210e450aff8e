package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"regdesk/store"
)

// Setting a password through a one-time link ends where the person can use it at once: the
// sign-in page says the password is set and has their address filled in, and signing in takes a
// teacher to their courses, with nothing about a queue they do not work (issue 27, defect 9).
func TestBrowserPasswordLinkEndsSignedInWhereTheTeacherWorks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	token, _, err := b.store.AccountPasswordLinkIssue(context.Background(), b.teacher.ID, 0,
		store.AccountChangeBy{ActorID: b.admin.ID, At: testNow, Reason: "first password"})
	if err != nil {
		t.Fatal(err)
	}
	const password = "tuulas-new-password-1"
	bt := newTab(t)
	bt.do(t,
		chromedp.Navigate(b.server.URL+"/password/"+token),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="password-set-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="password-new"]`), password),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="password-confirm"]`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="password-set-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
	)
	if got := bt.text(t, `[data-testid="flash"]`); !strings.Contains(got, "Your password is set") {
		t.Errorf("the sign-in page does not say the password is set: flash %q", got)
	}
	if got := bt.eval(t, `document.querySelector('[data-testid="login-email"]').value`); got != b.teacher.Email {
		t.Errorf("the address on the sign-in page = %q, want %q", got, b.teacher.Email)
	}
	if got := bt.eval(t, `document.activeElement && document.activeElement.dataset.testid || ""`); got != "login-password" {
		t.Errorf("the focus is on %q, want the password", got)
	}
	bt.do(t,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="login-password"]`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="whoami"]`)),
	)
	loc := bt.waitLocation(t, "/courses", func(s string) bool {
		u, err := url.Parse(s)
		return err == nil && u.Path == "/courses"
	})
	if body := bt.text(t, "main"); strings.Contains(body, "Back to the queue") {
		t.Errorf("%s offers the queue to a teacher: %s", loc, body)
	}
	// A page a teacher cannot have leads back to their courses, and the spent link, opened again
	// without a session, to signing in: neither to the queue.
	bt.allow("status of 404")
	bt.allow("status of 410")
	bt.do(t,
		chromedp.Navigate(b.server.URL+"/registrations/00000000-0000-4000-8000-000000000000"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-page"]`)),
	)
	if got := bt.eval(t, `document.querySelector('[data-testid="error-back"]').getAttribute("href") + " " + document.querySelector('[data-testid="error-back"]').textContent`); got != "/courses Back to your courses" {
		t.Errorf("a teacher's error page leads to %q", got)
	}
	anon := newTab(t)
	anon.allow("status of 410")
	anon.do(t,
		chromedp.Navigate(b.server.URL+"/password/"+token),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-page"]`)),
	)
	if got := anon.eval(t, `document.querySelector('[data-testid="error-back"]').getAttribute("href")`); got != "/login" {
		t.Errorf("the spent link's page leads to %q, want /login", got)
	}
}
