package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"regdesk/partner/lms/lmsfake"
	"regdesk/schedule"
	"regdesk/store/storetest"
)

// An action whose LMS call gets no answer (the LMS breaks off with a 500) is recorded as asked and
// unanswered, and the page says the outcome is unknown and to look at the row, never applied or
// refused (issue 26, item 5); a retry of the same action on the same row is not sent twice.
func TestActionWithoutAnAnswerIsUnknown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-3 * time.Hour)})
	if _, err := b.lmsFake.AddFault(lmsfake.Fault{Effect: lmsfake.FaultServerError, Endpoint: lmsfake.EndpointTransition, Times: 1}); err != nil {
		t.Fatal(err)
	}
	version, _ := b.pageForm(t, b.client, id)
	_, body := b.act(t, b.client, id, schedule.ActionClearFlag, url.Values{"version": {version}, "reason": {"Checked the setup"}}, true)
	if text := html.UnescapeString(body); !strings.Contains(text, "The LMS may or may not have done it. Look at the row now") {
		t.Errorf("the answer does not say the outcome is unknown:\n%s", body)
	}
	var asked, answered int
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT count(*), count(ans.action_id) FROM actions a
  LEFT JOIN action_answers ans ON ans.action_id = a.id WHERE a.target_id = $1`, id).Scan(&asked, &answered); err != nil {
		t.Fatal(err)
	}
	if asked != 1 || answered != 0 {
		t.Errorf("regdesk recorded %d attempts and %d answers, want the attempt without an answer", asked, answered)
	}
	var flagged bool
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT needs_admin_attention FROM credit_registrations WHERE id = $1`, id).Scan(&flagged); err != nil || !flagged {
		t.Fatalf("the LMS wrote though it broke off: flag %v, %v", flagged, err)
	}
	// Asked again from the page as it is now, the same action on the same row is not sent twice:
	// regdesk names the unanswered attempt and does nothing more.
	version, _ = b.pageForm(t, b.client, id)
	resp, body := b.act(t, b.client, id, schedule.ActionClearFlag, url.Values{"version": {version}, "reason": {"Checked the setup"}}, false)
	if text := html.UnescapeString(body); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(text, "already asked for “Clear the attention flag”") || !strings.Contains(text, "Nothing more was done.") {
		t.Errorf("the retry = %d, want 409 naming the unanswered attempt\n%s", resp.StatusCode, body)
	}
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM actions WHERE target_id = $1`, id).Scan(&asked); err != nil || asked != 1 {
		t.Errorf("after the retry regdesk recorded %d attempts (%v), want still one", asked, err)
	}
}
