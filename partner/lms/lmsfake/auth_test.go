package lmsfake_test

import (
	"testing"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

// The fake accepts exactly the contract: the service token and a live acting user, who must hold
// a live global admin or credit_registration_admin role. Nothing looser, and nothing is written
// for a call it turns away.
func TestAuthContract(t *testing.T) {
	t.Parallel()
	b := setup(t)

	id := b.registration("failed_permanent", reg{"needs_admin_attention": true})
	body := `{"action":{"kind":"clear_needs_admin_attention"},"reason":"r"}`
	path := "registrations/" + id + "/transition"

	teacher := b.user("teacher", true)
	courseAdmin := b.user("admin", false)
	deletedRole := b.user("credit_registration_admin", true)
	b.exec(`UPDATE roles SET deleted_at = $2 WHERE user_id = $1`, deletedRole, b.now)
	deletedUser := b.user("credit_registration_admin", true)
	b.exec(`UPDATE users SET deleted_at = $2 WHERE id = $1`, deletedUser, b.now)

	tests := []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"no token", map[string]string{lmsfake.ActingUserHeader: b.admin}, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer " + token + "x", lmsfake.ActingUserHeader: b.admin}, 401},
		{"basic scheme", map[string]string{"Authorization": "Basic " + token, lmsfake.ActingUserHeader: b.admin}, 401},
		{"no acting user", map[string]string{"Authorization": "Bearer " + token}, 401},
		{"acting user not a uuid", map[string]string{"Authorization": "Bearer " + token, lmsfake.ActingUserHeader: "admin"}, 401},
		{"unknown acting user", map[string]string{"Authorization": "Bearer " + token, lmsfake.ActingUserHeader: "00000000-0000-4000-8000-000000000009"}, 401},
		{"deleted acting user", map[string]string{"Authorization": "Bearer " + token, lmsfake.ActingUserHeader: deletedUser}, 401},
		{"a session cookie is not enough", map[string]string{"Cookie": "session=abc", lmsfake.ActingUserHeader: b.admin}, 401},
		{"teacher", map[string]string{"Authorization": "Bearer " + token, lmsfake.ActingUserHeader: teacher}, 403},
		{"admin of one course only", map[string]string{"Authorization": "Bearer " + token, lmsfake.ActingUserHeader: courseAdmin}, 403},
		{"role taken away", map[string]string{"Authorization": "Bearer " + token, lmsfake.ActingUserHeader: deletedRole}, 403},
	}
	for _, tc := range tests {
		status, got := b.postWith(path, tc.headers, body)
		if status != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, status, tc.status)
		}
		if got == nil || got["message"] == "" || got["title"] == nil {
			t.Errorf("%s: body %v is not the LMS's error body", tc.name, got)
		}
	}
	if w := b.writes(); w != [3]int{} {
		t.Errorf("turned-away calls wrote %v", w)
	}
	if !b.row(id).NeedsAdminAttention {
		t.Error("a turned-away call cleared the flag")
	}

	// The client reports them by kind.
	c, err := lms.New(b.srv.URL, "not-the-token", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Transition(b.ctx, b.admin, id, lms.ClearAttention, "r")
	if e := lmsErr(t, err); e.Kind != lms.KindUnauthorized {
		t.Errorf("wrong token: kind %s", e.Kind)
	}
	_, err = b.client.Transition(b.ctx, teacher, id, lms.ClearAttention, "r")
	if e := lmsErr(t, err); e.Kind != lms.KindForbidden {
		t.Errorf("teacher: kind %s", e.Kind)
	}

	// Both roles that carry the right are let in, and the audit names each person.
	globalAdmin := b.user("admin", true)
	for _, actor := range []string{b.admin, globalAdmin} {
		if _, err := b.client.Transition(b.ctx, actor, id, lms.ClearAttention, "r"); err != nil {
			t.Errorf("actor %s: %v", actor, err)
		}
	}
	as := b.audits()
	if len(as) != 2 || as[0].Actor != b.admin || as[1].Actor != globalAdmin {
		t.Errorf("audit actors = %+v", as)
	}
}

// actix runs the extractors before the handler authorizes: a body it cannot read is 400 even for
// a user without the role, while an unauthenticated call is 401 before anything else.
func TestAuthOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)

	teacher := b.user("teacher", true)
	id := b.registration("failed_permanent", reg{})
	if status, _ := b.post("registrations/"+id+"/transition", teacher, `{"reason":"r"}`); status != 400 {
		t.Errorf("bad body from a teacher: %d, want 400", status)
	}
	if status, _ := b.postWith("registrations/"+id+"/transition", map[string]string{lmsfake.ActingUserHeader: teacher}, `{"reason":"r"}`); status != 401 {
		t.Errorf("bad body without a token: %d, want 401", status)
	}
	if status, _ := b.post("registrations/"+id+"/transition", teacher, `{"action":{"kind":"check_now"},"reason":"r"}`); status != 403 {
		t.Errorf("good body from a teacher: %d, want 403", status)
	}
}
