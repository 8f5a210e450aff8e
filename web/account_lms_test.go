package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/web"
)

// An account that is no LMS user cannot act; once an admin links it on its page, the same person's
// action reaches the LMS, which records it as them.
func TestAdminLinksAnAccountToItsLMSUser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	admin := b.login(t, b.admin)
	hash, err := b.store.HashPassword(testPassword)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := b.store.AccountCreate(ctx, store.AccountCreateParams{Name: "Pia Support", Email: "pia@example.invalid", Role: "support", PasswordHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	pia := testAccount{ID: acct.ID, Name: acct.Name, Email: acct.Email, Role: web.RoleSupport}
	piaLMS := storetest.AddLMSAdmin(t, b.store, "Pia Support", "pia.support@lms.example")
	student := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Olli", LastName: "Opiskelija", Email: "olli@lms.example"})
	client := b.login(t, pia)
	path := "/admin/accounts/" + pia.ID

	_, page := b.getWith(t, admin, path, false)
	if !strings.Contains(page, "Not linked to an LMS user") {
		t.Errorf("the page of an account with no LMS user does not say so")
	}
	checkNow := func() (*http.Response, string) {
		version, lookupID := b.pageForm(t, client, b.dense)
		return b.act(t, client, b.dense, schedule.ActionCheckNow, url.Values{"version": {version}, "lookup_id": {lookupID}, "reason": {"Student asked"}}, true)
	}
	before := b.written(t, b.dense)
	if _, answer := checkNow(); !strings.Contains(answer, "not linked to your LMS user") {
		t.Errorf("an action by an account with no LMS user was not refused in words:\n%s", answer)
	}
	if got := b.written(t, b.dense); got != before {
		t.Errorf("the refused action wrote: %+v → %+v", before, got)
	}

	// Mistakes are named, and change nothing.
	for _, tc := range []struct{ ref, want string }{
		{"nobody@lms.example", "The LMS has no user nobody@lms.example"},
		{"pia", "LMS user id or the e-mail address"},
		{"support@example.invalid", "already the account of Sami Support"},
		{"", "Say why"},
	} {
		form := url.Values{"lms_user": {tc.ref}, "reason": {"New in support"}}
		if tc.want == "Say why" {
			form.Set("lms_user", "pia.support@lms.example")
			form.Del("reason")
		}
		resp, body := b.postForm(t, admin, path+"/lms-user", form)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.want) {
			t.Errorf("linking %q = %d; want 422 saying %q", tc.ref, resp.StatusCode, tc.want)
		}
	}
	if got, _ := b.store.AccountGet(ctx, pia.ID); got.LMSUserID != "" {
		t.Fatalf("a refused link changed the account: %q", got.LMSUserID)
	}

	// An LMS user the LMS would not let act is linked, with a warning that says so.
	if resp, _ := b.postForm(t, admin, path+"/lms-user", url.Values{"lms_user": {student.ID}, "reason": {"wrong one"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("link: %d", resp.StatusCode)
	}
	_, page = b.getWith(t, admin, path, false)
	if !strings.Contains(page, `data-testid="account-lms-warning"`) || !strings.Contains(page, "Olli Opiskelija (olli@lms.example) in the LMS") {
		t.Errorf("the page of an account linked to an LMS user without the role lacks the warning")
	}

	resp, _ := b.postForm(t, admin, path+"/lms-user", url.Values{"lms_user": {"PIA.support@lms.example"}, "reason": {"her own LMS user"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("link: %d", resp.StatusCode)
	}
	_, page = b.getWith(t, admin, path, false)
	for _, want := range []string{"Pia Support (pia.support@lms.example) in the LMS", "LMS user changed", "her own LMS user", "wrong one"} {
		if !strings.Contains(page, want) {
			t.Errorf("the account's page lacks %q", want)
		}
	}
	if strings.Contains(page, `data-testid="account-lms-warning"`) {
		t.Errorf("the page warns about an LMS user who may act")
	}
	_, list := b.getWith(t, admin, "/admin/accounts", false)
	if !regexp.MustCompile(`data-email="pia@example.invalid"[^\n]*?data-testid="account-lms-user">\s*Pia Support`).MatchString(strings.ReplaceAll(list, "\n", " ")) {
		t.Errorf("the accounts list does not name Pia's LMS user")
	}

	// The add form takes the LMS user too, and names a mistake keeping what was typed.
	resp, body := b.postForm(t, admin, "/admin/accounts", url.Values{"name": {"Ghost"}, "email": {"ghost@example.invalid"},
		"role": {"support"}, "signin": {"sso"}, "reason": {"new"}, "lms_user": {"ghost@lms.example"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "The LMS has no user ghost@lms.example") || !strings.Contains(body, `value="ghost@lms.example"`) {
		t.Errorf("adding an account as an unknown LMS user = %d", resp.StatusCode)
	}
	if _, err := b.store.AccountGetByEmail(ctx, "ghost@example.invalid"); err == nil {
		t.Errorf("the refused add wrote an account")
	}

	// Her session reloads the account: the same action now reaches the LMS as her.
	resp, answer := checkNow()
	if resp.StatusCode >= 400 || strings.Contains(answer, "not linked") {
		t.Fatalf("check now after linking = %d:\n%s", resp.StatusCode, answer)
	}
	var actor string
	if err := b.store.Pool().QueryRow(ctx, `SELECT actor_user_id::text FROM credit_registration_admin_actions WHERE target_id = $1 ORDER BY created_at DESC LIMIT 1`,
		b.dense).Scan(&actor); err != nil || actor != piaLMS {
		t.Errorf("the LMS recorded the action as %q (%v), want Pia's LMS user %s", actor, err, piaLMS)
	}
}
