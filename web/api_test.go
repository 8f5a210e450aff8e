package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var tokenPattern = regexp.MustCompile(`value="(rdk_[A-Za-z0-9_-]+)"`)

// makeToken makes an API token through the settings page with c and returns it.
func (b *testBundle) makeToken(t *testing.T, c *http.Client, name string) string {
	t.Helper()
	resp, body := b.postForm(t, c, "/settings/tokens", url.Values{"name": {name}})
	m := tokenPattern.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("make a token: %d\n%s", resp.StatusCode, body)
	}
	return m[1]
}

func (b *testBundle) api(t *testing.T, token, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, body := do(t, newClient(t), req)
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%s: not JSON (%d): %s", path, resp.StatusCode, body)
	}
	return resp.StatusCode, v
}

func TestAPIReadsWithATokenScopedLikeItsAccount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other, foreign := b.addForeignRow(t)
	token := b.makeToken(t, b.client, "nightly report")
	// The settings page shows the token once, then only its name.
	_, page := b.get(t, "/settings", false)
	if strings.Contains(page, token) || !strings.Contains(page, "nightly report") {
		t.Errorf("the settings page shows the token again, or not its name")
	}

	status, v := b.api(t, token, "/api/v1/registrations?show=all&limit=2")
	regs, _ := v["registrations"].([]any)
	next, _ := v["next"].(string)
	if status != http.StatusOK || len(regs) != 2 || !strings.HasPrefix(next, "/api/v1/registrations?") {
		t.Fatalf("first page: %d %v", status, v)
	}
	seen := map[string]bool{}
	for path := "/api/v1/registrations?show=all&limit=2"; path != ""; {
		_, v := b.api(t, token, path)
		for _, r := range v["registrations"].([]any) {
			seen[r.(map[string]any)["id"].(string)] = true
		}
		path, _ = v["next"].(string)
	}
	if len(seen) != 5 || !seen[foreign] {
		t.Errorf("support's pages: %d rows, foreign %v", len(seen), seen[foreign])
	}
	status, v = b.api(t, token, "/api/v1/registrations/"+b.uncertainOverdue)
	if status != http.StatusOK || v["state"] != "submission_uncertain" || v["history"] == nil {
		t.Errorf("one registration: %d %v", status, v)
	}
	// The LMS's reason and standing, and regdesk's note that the pipeline has escalated it.
	if fmt.Sprint(v["reasons"]) != "[outcome_uncertain]" || v["standing"] != "needs_attention" || fmt.Sprint(v["notes"]) != "[uncertain_overdue]" {
		t.Errorf("one registration's attention: reasons %v, standing %v, notes %v", v["reasons"], v["standing"], v["notes"])
	}
	if status, _ := b.api(t, token, "/api/v1/registrations/"+strings.Repeat("0", 8)+"-0000-4000-8000-000000000000"); status != http.StatusNotFound {
		t.Errorf("unknown registration: %d", status)
	}
	if status, v := b.api(t, token, "/api/v1/registrations?phase=nonsense"); status != http.StatusBadRequest || v["error"] == "" {
		t.Errorf("bad filter: %d %v", status, v)
	}
	if status, v := b.api(t, token, "/api/v1/audit"); status != http.StatusOK || v["rows"] == nil {
		t.Errorf("audit: %d %v", status, v)
	}

	// A teacher's token reads their course in plain words, and nothing else.
	teacher := b.login(t, b.teacher)
	tt := b.makeToken(t, teacher, "course sheet")
	if status, v := b.api(t, tt, "/api/v1/courses/"+b.course.ID+"/registrations"); status != http.StatusOK || len(v["rows"].([]any)) != 4 {
		t.Errorf("teacher's course: %d %v", status, v)
	}
	if status, _ := b.api(t, tt, "/api/v1/courses/"+other.ID+"/registrations"); status != http.StatusNotFound {
		t.Errorf("another course for the teacher: %d", status)
	}
	for _, path := range []string{"/api/v1/registrations", "/api/v1/registrations/" + b.uncertainOverdue, "/api/v1/audit"} {
		if status, _ := b.api(t, tt, path); status != http.StatusForbidden {
			t.Errorf("teacher %s: %d", path, status)
		}
	}

	// No token, a wrong one, and a revoked one open nothing.
	for _, tok := range []string{"", "rdk_wrong", token + "x"} {
		if status, _ := b.api(t, tok, "/api/v1/registrations"); status != http.StatusUnauthorized {
			t.Errorf("token %q: %d", tok, status)
		}
	}
	_, page = b.get(t, "/settings", false)
	m := regexp.MustCompile(`action="(/settings/tokens/[0-9a-f-]+/revoke)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no revoke form")
	}
	if resp, _ := b.postForm(t, b.client, m[1], url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if status, _ := b.api(t, token, "/api/v1/registrations"); status != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d", status)
	}
	// The API only reads.
	req, _ := http.NewRequest(http.MethodPost, b.server.URL+"/api/v1/registrations", nil)
	req.Header.Set("Authorization", "Bearer "+tt)
	if resp, _ := do(t, newClient(t), req); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the API: %d", resp.StatusCode)
	}
	// A token of another person cannot be revoked by someone else.
	if resp, _ := b.postForm(t, teacher, m[1], url.Values{}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("revoking another's token: %d", resp.StatusCode)
	}
}

// TestAPIErrorsHaveStableCodesInEnglish: the API answers a mistake with a stable code and an
// English message, even for an account that reads the pages in Finnish, so a script's handling
// does not change with its owner's language.
func TestAPIErrorsHaveStableCodesInEnglish(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {"fi"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("choosing Finnish: %d", resp.StatusCode)
	}
	token := b.makeToken(t, admin, "skripti")
	for path, want := range map[string][2]string{
		"/api/v1/registrations?phase=nonsense": {"parse.unknown", "is not a known"},
		"/api/v1/registrations?limit=0":        {"bad_request", "limit is a number"},
		"/api/v1/nothing":                      {"no_such_path", "no such API path"},
	} {
		status, v := b.api(t, token, path)
		if status < 400 || v["code"] != want[0] || !strings.Contains(fmt.Sprint(v["error"]), want[1]) {
			t.Errorf("%s: %d %v, want code %q and English words %q", path, status, v, want[0], want[1])
		}
	}
	if status, v := b.api(t, "", "/api/v1/registrations"); status != http.StatusUnauthorized || v["code"] != "no_token" {
		t.Errorf("no token: %d %v", status, v)
	}
}
