package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/store"
)

var linkPattern = regexp.MustCompile(`value="(https?://[^"]+/password/([A-Za-z0-9_-]{43}))"`)

func TestAdminManagesAccounts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	ctx := context.Background()

	// Add Sami Two, single sign-on only.
	resp, body := b.postForm(t, admin, "/admin/accounts", url.Values{"name": {"Sami Two"}, "email": {"sami2@example.invalid"},
		"role": {"support"}, "signin": {"sso"}, "reason": {"joins the helpdesk"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d\n%s", resp.StatusCode, body)
	}
	sami, err := b.store.AccountGetByEmail(ctx, "sami2@example.invalid")
	if err != nil || sami.Role != "support" || sami.PasswordHash != nil {
		t.Fatalf("added: %+v %v", sami, err)
	}
	_, list := b.getWith(t, admin, "/admin/accounts", false)
	for _, want := range []string{`data-email="sami2@example.invalid"`, "single sign-on", "joins the helpdesk", `data-email="support@example.invalid"`} {
		if !strings.Contains(list, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	// The same address again is refused in words, the form keeping what was typed.
	resp, body = b.postForm(t, admin, "/admin/accounts", url.Values{"name": {"Again"}, "email": {"SAMI2@example.invalid"},
		"role": {"support"}, "signin": {"sso"}, "reason": {"dup"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "already has an account") || !strings.Contains(body, `value="Again"`) {
		t.Errorf("a taken address: %d", resp.StatusCode)
	}
	// A teacher needs courses; with one, the role changes.
	path := "/admin/accounts/" + sami.ID
	resp, _ = b.postForm(t, admin, path, url.Values{"role": {"teacher"}, "reason": {"teaches now"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("teacher without courses: %d", resp.StatusCode)
	}
	resp, _ = b.postForm(t, admin, path, url.Values{"role": {"teacher"}, "course": {b.course.ID}, "reason": {"teaches now"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("to teacher: %d", resp.StatusCode)
	}
	if got, _ := b.store.AccountGet(ctx, sami.ID); got.Role != "teacher" || len(got.CourseIDs) != 1 {
		t.Errorf("after the change: %+v", got)
	}
	// Without a reason nothing changes.
	resp, _ = b.postForm(t, admin, path+"/disable", url.Values{})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("disable without a reason: %d", resp.StatusCode)
	}
	// Disabling ends the support person's open session at the next request; enabling lets them back.
	resp, _ = b.postForm(t, admin, "/admin/accounts/"+b.support.ID+"/disable", url.Values{"reason": {"left the team"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", resp.StatusCode)
	}
	if resp, _ := b.getWith(t, b.client, "/?show=all", false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a disabled account's session still works: %d", resp.StatusCode)
	}
	if resp, _ = b.postForm(t, admin, "/admin/accounts/"+b.support.ID+"/enable", url.Values{"reason": {"came back"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("enable: %d", resp.StatusCode)
	}
	b.login(t, b.support)
	_, page := b.getWith(t, admin, "/admin/accounts/"+b.support.ID, false)
	for _, want := range []string{"left the team", "came back", "Aino Admin"} {
		if !strings.Contains(page, want) {
			t.Errorf("the account's record lacks %q", want)
		}
	}
	// The only admin cannot demote or disable themselves.
	resp, body = b.postForm(t, admin, "/admin/accounts/"+b.admin.ID, url.Values{"role": {"support"}, "reason": {"oops"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "last active admin") {
		t.Errorf("demoting the last admin: %d", resp.StatusCode)
	}
	resp, _ = b.postForm(t, admin, "/admin/accounts/"+b.admin.ID+"/disable", url.Values{"reason": {"oops"}})
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("disabling the last admin: %d", resp.StatusCode)
	}
	if got, _ := b.store.AccountGet(ctx, b.admin.ID); got.Role != "admin" || got.DisabledAt != nil {
		t.Errorf("the last admin changed: %+v", got)
	}
}

func TestPasswordLinkSetsAPasswordOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	resp, body := b.postForm(t, admin, "/admin/accounts", url.Values{"name": {"Tiina Teacher"}, "email": {"tiina@example.invalid"},
		"role": {"teacher"}, "course": {b.course.ID}, "signin": {"password"}, "reason": {"new teacher"}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("add with a password link: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	m := linkPattern.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no link on the page:\n%s", body)
	}
	path := "/password/" + m[2]
	anon := newClient(t)
	if resp, body := b.getWith(t, anon, path, false); resp.StatusCode != http.StatusOK || !strings.Contains(body, "tiina@example.invalid") {
		t.Fatalf("open the link: %d", resp.StatusCode)
	}
	// Opening it twice spends nothing; a mismatch or a short password saves nothing.
	if resp, _ := b.getWith(t, anon, path, false); resp.StatusCode != http.StatusOK {
		t.Errorf("second look: %d", resp.StatusCode)
	}
	for _, f := range []url.Values{{"password": {"long-enough-pass"}, "confirm": {"something-else!"}}, {"password": {"short"}, "confirm": {"short"}}} {
		if resp, _ := b.postForm(t, anon, path, f); resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%v: %d", f, resp.StatusCode)
		}
	}
	resp, _ = b.postForm(t, anon, path, url.Values{"password": {"tiinas-password-1"}, "confirm": {"tiinas-password-1"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("set: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = b.postForm(t, newClient(t), "/login", url.Values{"email": {"tiina@example.invalid"}, "password": {"tiinas-password-1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("sign in with the new password: %d", resp.StatusCode)
	}
	// The link works once.
	if resp, body := b.getWith(t, anon, path, false); resp.StatusCode != http.StatusGone || !strings.Contains(body, "no longer works") {
		t.Errorf("the spent link: %d", resp.StatusCode)
	}
	resp, _ = b.postForm(t, anon, path, url.Values{"password": {"another-password-2"}, "confirm": {"another-password-2"}})
	if resp.StatusCode != http.StatusGone {
		t.Errorf("using the spent link: %d", resp.StatusCode)
	}
	// A link for Sami expires after a day.
	resp, body = b.postForm(t, admin, "/admin/accounts/"+b.support.ID+"/password-link", url.Values{"reason": {"forgot it"}})
	m = linkPattern.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("password link: %d", resp.StatusCode)
	}
	b.clock.Advance(store.DefaultPasswordLinkTTL + time.Second)
	if resp, _ := b.getWith(t, anon, "/password/"+m[2], false); resp.StatusCode != http.StatusGone {
		t.Errorf("a day-old link: %d", resp.StatusCode)
	}
}

func TestBrowserAdminAddsATeacherWhoSignsIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := newTab(t)
	admin.do(t,
		login(b.server.URL, b.admin.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/admin/accounts"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="account-add"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="account-name"]`), "Tiina Teacher"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="account-email"]`), "tiina@example.invalid"),
		chromedp.SetValue(chromedp.CSS(`[data-testid="account-role"]`), "teacher"),
		chromedp.Click(chromedp.CSS(`[data-testid="account-courses"] input[value="`+b.course.ID+`"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="account-signin-password"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="account-reason"]`), "teaches the spring course"),
		chromedp.Click(chromedp.CSS(`[data-testid="account-add-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="password-link"]`)),
	)
	link := admin.eval(t, `document.querySelector('[data-testid="password-link"]').value`)
	if !strings.Contains(link, "/password/") {
		t.Fatalf("link = %q", link)
	}
	teacher := newTab(t)
	teacher.do(t,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="password-set-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="password-new"]`), "tiinas-password-1"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="password-confirm"]`), "tiinas-password-1"),
		chromedp.Click(chromedp.CSS(`[data-testid="password-set-submit"]`)),
		// The sign-in page that follows has her address filled in (issue 27, defect 9).
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="login-password"]`), "tiinas-password-1"),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="whoami"]`)),
	)
	teacher.waitLocation(t, "the teacher's courses", func(loc string) bool { return strings.HasSuffix(loc, "/courses") })
	if got := teacher.text(t, `[data-testid="whoami"]`); !strings.Contains(got, "Tiina Teacher") {
		t.Errorf("top bar: %q", got)
	}
	// The admin's list shows her last sign-in.
	admin.do(t,
		chromedp.Navigate(b.server.URL+"/admin/accounts"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-email="tiina@example.invalid"][data-role="teacher"]`)),
	)
	if got := admin.text(t, `tr[data-email="tiina@example.invalid"] td:nth-child(5)`); strings.Contains(got, "never") {
		t.Errorf("last sign-in: %q", got)
	}
}
