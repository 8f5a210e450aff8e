package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views"
	"regdesk/views/i18n"
)

var auditRowID = regexp.MustCompile(`data-testid="audit-row" data-id="([^"]+)" data-action="([^"]+)"`)

// auditRows returns the audit page's entries, in page order, as "action" values.
func auditActions(body string) []string {
	var out []string
	for _, m := range auditRowID.FindAllStringSubmatch(body, -1) {
		out = append(out, m[2])
	}
	return out
}

func auditIDs(body string) []string {
	var out []string
	for _, m := range auditRowID.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestAuditListsEveryActionNewestFirstAndFilters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := storetest.AddCourse(t, b.store, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	elsewhere := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: other, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-5 * 24 * time.Hour)})

	// Three days of hand actions by two people on two courses, at noon in Helsinki on the three
	// days before testNow's.
	noon := func(daysBefore int) time.Time {
		d := testNow.In(schedule.Helsinki())
		return time.Date(d.Year(), d.Month(), d.Day()-daysBefore, 12, 0, 0, 0, schedule.Helsinki())
	}
	day := func(daysBefore int) string { return noon(daysBefore).Format(time.DateOnly) }
	b.actAsStore(t, b.admin, elsewhere, schedule.ActionClearFlag, "Config fixed upstream", noon(3))
	b.actAsStore(t, b.support, b.dense, schedule.ActionCheckNow, "Student asked", noon(2))
	b.actAsStore(t, b.support, b.permanent, schedule.ActionCancel, "Student withdrew", noon(1))

	resp, body := b.get(t, "/audit", false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /audit = %d", resp.StatusCode)
	}
	if got := auditActions(body); strings.Join(got, ",") != "cancel,check_now,clear_flag" {
		t.Errorf("entries = %v, want newest first: cancel, check_now, clear_flag", got)
	}
	text := html.UnescapeString(body)
	en := i18n.For(i18n.EN)
	for _, want := range []string{"Sami Support", "Aino Admin", `<span class="muted">support</span>`, "Cancel", "Student withdrew",
		`href="/registrations/` + b.permanent + `"`, "Anna Äijälä · Ohjelmoinnin perusteet", `data-state="failed_permanent" title="failed_permanent">` + en.Code("state", "failed_permanent") + `</span>`,
		`data-state="cancelled" title="cancelled">` + en.Code("state", "cancelled") + `</span>`,
		views.NewWhen(ptr(noon(1)), testNow).Abs, `id="audit-`} {
		if !strings.Contains(text, want) {
			t.Errorf("the audit page lacks %q", want)
		}
	}
	// Read only: the only forms that post are the header's sign-out and language switch.
	if n := strings.Count(body, `method="post"`); n != 2 {
		t.Errorf("the audit page has %d forms that post, want only sign-out and the language switch", n)
	}

	filters := []struct {
		query string
		want  string
	}{
		{"actor=" + b.admin.ID, "clear_flag"},
		{"actor=" + b.support.ID, "cancel,check_now"},
		{"action=check_now", "check_now"},
		{"course=" + other.ID, "clear_flag"},
		{"course=" + b.course.ID, "cancel,check_now"},
		{"registration=" + b.permanent, "cancel"},
		// Helsinki days, both ends included.
		{"from=" + day(2), "cancel,check_now"},
		{"to=" + day(2), "check_now,clear_flag"},
		{"from=" + day(2) + "&to=" + day(2), "check_now"},
		{"actor=" + b.support.ID + "&action=cancel", "cancel"},
		{"action=resubmit", ""},
	}
	for _, f := range filters {
		resp, body := b.get(t, "/audit?"+f.query, false)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /audit?%s = %d", f.query, resp.StatusCode)
			continue
		}
		if got := strings.Join(auditActions(body), ","); got != f.want {
			t.Errorf("GET /audit?%s = %s, want %s", f.query, got, f.want)
		}
	}
	_, body = b.get(t, "/audit?action=resubmit", false)
	if !strings.Contains(body, `data-testid="audit-empty"`) {
		t.Errorf("an empty filter result says nothing")
	}
	for _, bad := range []string{"actor=nobody", "action=explode", "from=yesterday", "from=2026-11-30&to=2026-11-01", "after=garbage"} {
		resp, body := b.get(t, "/audit?"+bad, false)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-testid="error-page"`) {
			t.Errorf("GET /audit?%s = %d, want 400 with the error page", bad, resp.StatusCode)
		}
	}
}

func TestAuditShowsABulkActionWithItsRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, body := b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"clear_flag"}, "id": {b.permanent, b.uncertainOverdue}})
	if resp, body := b.postForm(t, b.client, "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": previewRows(body), "reason": {"Fixed"}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("apply = %d\n%s", resp.StatusCode, body)
	}
	_, body = b.get(t, "/audit", false)
	text := html.UnescapeString(body)
	for _, want := range []string{`data-testid="audit-bulk"`, "Bulk: 1 of 1 row acted on", `href="/registrations/` + b.permanent + `"`,
		"Clear the attention flag", "1 registration"} {
		if !strings.Contains(text, want) {
			t.Errorf("the bulk entry lacks %q", want)
		}
	}
	// The bulk entry is found from the row it acted on.
	_, body = b.get(t, "/audit?registration="+b.permanent, false)
	if got := auditActions(body); len(got) != 1 || got[0] != "clear_flag" {
		t.Errorf("the registration's audit = %v, want the bulk entry", got)
	}
}

func TestAuditPagesByKeyset(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// 53 entries, the last two at the same instant: the cursor must tell them apart by id.
	for i := range 53 {
		at := testNow.Add(-time.Duration(60-i) * time.Minute)
		if i == 52 {
			at = testNow.Add(-time.Duration(60-51) * time.Minute)
		}
		retrying := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_retryable",
			ErrorCode: "sisu_timeout", StateChangedAt: testNow.Add(-time.Hour), NextAttemptAt: testNow.Add(time.Hour)})
		b.actAsStore(t, b.support, retrying, schedule.ActionCheckNow, "poke", at)
	}
	_, first := b.get(t, "/audit", false)
	page1 := auditIDs(first)
	if len(page1) != 50 {
		t.Fatalf("first page has %d entries, want 50", len(page1))
	}
	i := strings.Index(first, `data-testid="audit-next-page"`)
	if i < 0 {
		t.Fatal("the first page has no link to older entries")
	}
	href := first[strings.LastIndex(first[:i], `href="`)+6:]
	href = html.UnescapeString(href[:strings.Index(href, `"`)])
	_, second := b.get(t, href, false)
	page2 := auditIDs(second)
	if len(page2) != 3 {
		t.Errorf("second page has %d entries, want 3", len(page2))
	}
	seen := map[string]bool{}
	for _, id := range append(page1, page2...) {
		if seen[id] {
			t.Errorf("entry %s is on both pages", id)
		}
		seen[id] = true
	}
	if strings.Contains(second, `data-testid="audit-next-page"`) || !strings.Contains(second, `data-testid="audit-first-page"`) {
		t.Errorf("the last page's pager is wrong")
	}
	// The filter survives paging.
	_, filtered := b.get(t, "/audit?action=check_now", false)
	if !strings.Contains(filtered, "action=check_now&amp;after=") {
		t.Errorf("the next-page link drops the filter")
	}
}

// Every change to an account is on /audit beside the hand actions, with who, when and why, and
// the filter keeps them, all or one kind; the command line is named as such.
func TestAuditListsAccountChanges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	if resp, body := b.postForm(t, admin, "/admin/accounts", url.Values{"name": {"Sami Two"}, "email": {"sami2@example.invalid"},
		"role": {"support"}, "signin": {"sso"}, "reason": {"joins the helpdesk"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d\n%s", resp.StatusCode, body)
	}
	sami, err := b.store.AccountGetByEmail(t.Context(), "sami2@example.invalid")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		path   string
		form   url.Values
		change string
	}{
		{"/admin/accounts/" + sami.ID, url.Values{"role": {"teacher"}, "course": {b.course.ID}, "reason": {"teaches now"}}, "role_changed"},
		{"/admin/accounts/" + sami.ID + "/disable", url.Values{"reason": {"left the team"}}, "disabled"},
		{"/admin/accounts/" + sami.ID + "/enable", url.Values{"reason": {"came back"}}, "enabled"},
		{"/admin/accounts/" + b.support.ID + "/password-link", url.Values{"reason": {"forgot it"}}, "password_link_issued"},
	}
	for _, s := range steps {
		if resp, body := b.postForm(t, admin, s.path, s.form); resp.StatusCode >= 400 {
			t.Fatalf("%s: %d\n%s", s.path, resp.StatusCode, body)
		}
	}
	// A change made on the server's command line has nobody signed in.
	if _, err := b.store.AccountSetDisabled(t.Context(), b.teacher.ID, true, store.AccountChangeBy{At: testNow, Reason: "term ended"}); err != nil {
		t.Fatal(err)
	}
	resp, body := b.get(t, "/audit?action=account", false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/audit?action=account = %d", resp.StatusCode)
	}
	text := html.UnescapeString(body)
	for _, want := range []string{"joins the helpdesk", "teaches now", "left the team", "came back", "forgot it", "term ended",
		"Account: added", "Sami Two · sami2@example.invalid", `href="/admin/accounts/` + sami.ID + `"`, b.admin.Name, "command line"} {
		if !strings.Contains(text, want) {
			t.Errorf("the audit of account changes lacks %q", want)
		}
	}
	if n := strings.Count(body, `data-testid="audit-row"`); n != 7 { // the role and the courses are two changes
		t.Errorf("the account filter shows %d entries, want the 7 account changes only: %v", n, auditActions(body))
	}
	_, body = b.get(t, "/audit?action=account_role_changed", false)
	if n := strings.Count(body, `data-testid="audit-row"`); n != 1 || !strings.Contains(body, "teaches now") {
		t.Errorf("the role filter shows %d entries", n)
	}
	if !strings.Contains(body, `<option value="account_role_changed" selected`) {
		t.Errorf("the filter does not offer the role change as chosen")
	}
	_, body = b.get(t, "/audit", false)
	if !strings.Contains(body, "joins the helpdesk") {
		t.Errorf("the unfiltered audit leaves out account changes")
	}
	if resp, _ := b.get(t, "/audit?action=account_renamed", false); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown account change filter: %d, want 400", resp.StatusCode)
	}
}
