package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A password set through a one-time link ends every other session of the account at its next
// request: a session signed in with the old password (a stolen cookie, a forgotten tab) opens
// nothing after it. The session the link was used in, if it is the account's own, carries on.
// The change is recorded as such.
func TestPasswordLinkEndsEveryOtherSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	own, other, third := b.login(t, b.teacher), b.login(t, b.teacher), b.login(t, b.teacher)
	for _, c := range []*http.Client{own, other, third} {
		if resp, _ := b.getWith(t, c, "/courses", false); resp.StatusCode != http.StatusOK {
			t.Fatalf("a signed-in teacher's /courses = %d", resp.StatusCode)
		}
	}
	resp, body := b.postForm(t, admin, "/admin/accounts/"+b.teacher.ID+"/password-link", url.Values{"reason": {"forgot it"}})
	m := linkPattern.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("password link: %d", resp.StatusCode)
	}
	resp, _ = b.postForm(t, own, "/password/"+m[2], url.Values{"password": {"a-new-password-1"}, "confirm": {"a-new-password-1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("set the password: %d", resp.StatusCode)
	}
	for name, c := range map[string]*http.Client{"another": other, "a third": third} {
		resp, _ := b.getWith(t, c, "/courses", false)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
			t.Errorf("%s session signed in with the old password = %d → %q, want it ended (to sign-in)", name, resp.StatusCode, resp.Header.Get("Location"))
		}
		// Ended for good: not revived by a second request.
		if resp, _ := b.getWith(t, c, "/courses", false); resp.StatusCode == http.StatusOK {
			t.Errorf("%s session came back", name)
		}
	}
	if resp, _ := b.getWith(t, own, "/courses", false); resp.StatusCode != http.StatusOK {
		t.Errorf("the session the password was set in = %d, want it kept", resp.StatusCode)
	}
	_, page := b.getWith(t, admin, "/admin/accounts/"+b.teacher.ID, false)
	if !strings.Contains(html.UnescapeString(page), "Set their own password through a one-time link; every other session of the account ended.") {
		t.Errorf("the account's changes do not record that its other sessions ended")
	}
}

// Disabling an account spends its open password links and revokes its API tokens, each recorded
// in the account's changes; enabling it again gives none of them back.
func TestDisablingEndsLinksAndTokensForGood(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	support := b.login(t, b.support)
	token := b.makeToken(t, support, "nightly report")
	if status, _ := b.api(t, token, "/api/v1/registrations"); status != http.StatusOK {
		t.Fatalf("the token before: %d", status)
	}
	resp, body := b.postForm(t, admin, "/admin/accounts/"+b.support.ID+"/password-link", url.Values{"reason": {"forgot it"}})
	m := linkPattern.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("password link: %d", resp.StatusCode)
	}
	link := "/password/" + m[2]
	for _, step := range []string{"disable", "enable"} {
		if resp, _ := b.postForm(t, admin, "/admin/accounts/"+b.support.ID+"/"+step, url.Values{"reason": {"left, came back"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", step, resp.StatusCode)
		}
	}
	if status, _ := b.api(t, token, "/api/v1/registrations"); status != http.StatusUnauthorized {
		t.Errorf("a token made before the account was disabled, after it is enabled again = %d, want 401", status)
	}
	if resp, _ := b.getWith(t, newClient(t), link, false); resp.StatusCode != http.StatusGone {
		t.Errorf("a password link made before the account was disabled, after it is enabled again = %d, want 410", resp.StatusCode)
	}
	resp, _ = b.postForm(t, newClient(t), link, url.Values{"password": {"a-new-password-1"}, "confirm": {"a-new-password-1"}})
	if resp.StatusCode != http.StatusGone {
		t.Errorf("setting a password through it = %d, want 410", resp.StatusCode)
	}
	_, page := b.getWith(t, admin, "/admin/accounts/"+b.support.ID, false)
	text := html.UnescapeString(page)
	for _, want := range []string{"disabled (1 open password link spent, 1 API token revoked)",
		"Revoked the API token “nightly report” as the account was disabled."} {
		if !strings.Contains(text, want) {
			t.Errorf("the account's changes do not say %q", want)
		}
	}
	// A new link and a new token work: only what the disabling ended stays ended.
	if status, _ := b.api(t, b.makeToken(t, b.login(t, b.support), "after"), "/api/v1/registrations"); status != http.StatusOK {
		t.Errorf("a token made after enabling = %d", status)
	}
}
