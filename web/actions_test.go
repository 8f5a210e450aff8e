package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views"
	"regdesk/views/i18n"
)

// Lookup details as regdesk records them.
var (
	lookupNotInSisu      = storetest.LookupDetails(schedule.VerdictNotInSisu, nil)
	lookupRegisteredOurs = storetest.LookupDetails(schedule.VerdictRegistered, &storetest.LookupMatch{ID: "hy-cu-1", Type: "CourseUnitAttainment", Ours: true})
)

// addLookup records a Sisu lookup of the row made at, by actor, and returns its id.
func (b *testBundle) addLookup(t *testing.T, id string, at time.Time, actor testAccount, details string) string {
	t.Helper()
	evID := storetest.NewID()
	if _, err := b.store.Pool().Exec(context.Background(), `INSERT INTO lookups
  (id, created_at, credit_registration_id, account_id, details, message)
VALUES ($1, $2, $3, $4, $5, 'looked up')`, evID, at, id, actor.ID, details); err != nil {
		t.Fatal(err)
	}
	return evID
}

var (
	versionField = regexp.MustCompile(`name="version" value="(\d+)"`)
	lookupField  = regexp.MustCompile(`name="lookup_id" value="([^"]*)"`)
)

// pageForm opens the registration page with c and returns the version and lookup id its action
// forms carry, as a person's browser would send them.
func (b *testBundle) pageForm(t *testing.T, c *http.Client, id string) (version, lookupID string) {
	t.Helper()
	resp, body := b.getWith(t, c, "/registrations/"+id, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET registration = %d", resp.StatusCode)
	}
	v, l := versionField.FindStringSubmatch(body), lookupField.FindStringSubmatch(body)
	if v == nil || l == nil {
		t.Fatalf("the page carries no action form with version and lookup_id")
	}
	return v[1], l[1]
}

// act posts the action form with c, as a plain browser does, or as htmx does when htmx is true.
func (b *testBundle) act(t *testing.T, c *http.Client, id string, action schedule.Action, form url.Values, htmx bool) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.server.URL+"/registrations/"+id+"/actions/"+string(action), strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "actions")
	}
	return do(t, c, req)
}

// written counts what hand actions wrote about a row: its version, admin_action events and audit
// rows.
type written struct {
	state   string
	version int64
	events  int
	audits  int
}

func (b *testBundle) written(t *testing.T, id string) written {
	t.Helper()
	var w written
	err := b.store.Pool().QueryRow(context.Background(), `SELECT cr.state::text, (extract(epoch FROM cr.updated_at) * 1000000)::bigint,
  (SELECT count(*) FROM credit_registration_events e WHERE e.credit_registration_id = cr.id AND e.kind = 'admin_action'),
  (SELECT count(*) FROM credit_registration_admin_actions a WHERE a.target_id = cr.id)
FROM credit_registrations cr WHERE cr.id = $1`, id).Scan(&w.state, &w.version, &w.events, &w.audits)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// actAsStore applies an action through the store as a, as another person's browser would.
func (b *testBundle) actAsStore(t *testing.T, a testAccount, id string, action schedule.Action, reason string, at time.Time) {
	t.Helper()
	ra, err := b.store.RegistrationPageGet(context.Background(), at, id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	p := store.ActionParams{Scope: store.AllCourses(), RegistrationID: id, Action: action, Version: ra.Version, Reason: reason}
	if ra.Lookup != nil {
		p.LookupID = ra.Lookup.EventID
	}
	if _, err := b.actAs(t, at, a, p); err != nil {
		t.Fatalf("%s as %s: %v", action, a.Name, err)
	}
}

// actionItem returns the panel's entry for an action: from its opening tag to the next entry.
func actionItem(t *testing.T, body string, action schedule.Action) string {
	t.Helper()
	i := strings.Index(body, `data-testid="action-`+string(action)+`"`)
	if i < 0 {
		t.Fatalf("the panel has no action %s", action)
	}
	rest := body[i:]
	if j := strings.Index(rest[1:], `<li class="action`); j >= 0 {
		rest = rest[:j+1]
	} else if j := strings.Index(rest, `</ul>`); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func TestRegistrationPageShowsEveryActionWithItsState(t *testing.T) {
	t.Parallel()
	b := setup(t)

	_, body := b.get(t, "/registrations/"+b.uncertainOverdue, false)
	if !strings.Contains(body, `id="actions"`) || !strings.Contains(body, `data-testid="actions"`) {
		t.Fatalf("the page has no action panel")
	}
	want := map[schedule.Action]bool{
		schedule.ActionResubmit: false,
		schedule.ActionCancel:   true, schedule.ActionCheckNow: true, schedule.ActionClearFlag: false, schedule.ActionDismissAttention: true,
	}
	for a, allowed := range want {
		item := actionItem(t, body, a)
		if got := strings.Contains(item, `data-allowed="true"`); got != allowed {
			t.Errorf("%s allowed = %v, want %v", a, got, allowed)
		}
		if allowed && (!strings.Contains(item, `method="post"`) || !strings.Contains(item, `name="reason"`) || !strings.Contains(item, " required")) {
			t.Errorf("allowed %s has no form asking for a reason", a)
		}
		if !allowed && (strings.Contains(item, "<form") || !strings.Contains(item, `data-testid="action-why"`)) {
			t.Errorf("refused %s shows a form or no reason in words", a)
		}
	}

	// A row sent two hours ago is inside Suotar's pending window: resubmit says until when.
	recent := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: ptr(testNow.Add(-2 * time.Hour)), StateChangedAt: testNow.Add(-2 * time.Hour)})
	_, body = b.get(t, "/registrations/"+recent, false)
	item := actionItem(t, body, schedule.ActionResubmit)
	// The window ends 24 h after the sending: tomorrow, two hours before this time of day.
	windowEnd := views.At(testNow.Add(22*time.Hour), testNow)
	for _, want := range []string{`data-allowed="false"`, "Suotar may still hold this submission as pending until " + windowEnd + ".",
		"Available from " + windowEnd + "."} {
		if !strings.Contains(html.UnescapeString(item), want) {
			t.Errorf("resubmit inside the window lacks %q:\n%s", want, item)
		}
	}
	if !strings.Contains(body, `data-countdown="`+testNow.Format(time.RFC3339)+`"`) {
		t.Errorf("the next check does not count down from the server's now")
	}
}

func TestTeacherSeesNoActionsAndCannotAct(t *testing.T) {
	t.Parallel()
	b := setup(t)
	teacher := b.login(t, b.teacher)

	_, body := b.getWith(t, teacher, "/registrations/"+b.permanent, false)
	if strings.Contains(body, `data-testid="actions"`) || strings.Contains(body, "/actions/") || strings.Contains(body, `data-testid="action-`) {
		t.Errorf("a teacher's page shows the action panel")
	}
	if strings.Contains(body, `href="/audit"`) {
		t.Errorf("a teacher's top bar links the audit")
	}
	before := b.written(t, b.permanent)
	resp, _ := b.act(t, teacher, b.permanent, schedule.ActionCancel, url.Values{"version": {"1"}, "reason": {"I teach this"}}, false)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("teacher POST = %d, want 403", resp.StatusCode)
	}
	if got := b.written(t, b.permanent); got != before {
		t.Errorf("a teacher's action wrote: %+v → %+v", before, got)
	}
}

func TestEveryActionWithoutJavaScript(t *testing.T) {
	t.Parallel()
	b := setup(t)
	partial := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "partially_registered",
		SubmittedAt: ptr(testNow.Add(-5 * 24 * time.Hour)), PartiallyRegisteredAt: ptr(testNow.Add(-4 * 24 * time.Hour)),
		StateChangedAt: testNow.Add(-4 * 24 * time.Hour), SubmittedAttainmentID: "hy-kur-1", StudentNumber: annaNumber})
	// Another attainment than the uncertain row's below: one attainment backs one row only.
	b.addLookup(t, partial, testNow.Add(-time.Hour), b.support,
		storetest.LookupDetails(schedule.VerdictRegistered, &storetest.LookupMatch{ID: "hy-cu-2", Type: "CourseUnitAttainment", Ours: true}))
	landed := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: ptr(testNow.Add(-30 * time.Hour)), StateChangedAt: testNow.Add(-30 * time.Hour),
		SubmittedAttainmentID: "hy-kur-1"})
	b.addLookup(t, landed, testNow.Add(-time.Hour), b.support, lookupRegisteredOurs)
	lost := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: ptr(testNow.Add(-30 * time.Hour)), StateChangedAt: testNow.Add(-30 * time.Hour)})
	b.addLookup(t, lost, testNow.Add(-time.Hour), b.support, lookupNotInSisu)
	flagged := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-2 * time.Hour)})
	stuck := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-2 * time.Hour)})

	tests := []struct {
		action schedule.Action
		id     string
		risk   schedule.RiskLabel
		flash  string
		state  string
	}{
		{schedule.ActionCheckNow, landed, "", "The pipeline will check this registration at once.", "submission_uncertain"},
		{schedule.ActionCheckNow, partial, "", "The pipeline will check this registration at once.", "partially_registered"},
		{schedule.ActionResubmit, lost, schedule.RiskPossibleDuplicate, "Sent back to the pipeline", "ready_to_submit"},
		{schedule.ActionCancel, b.permanent, "", "Cancelled: the pipeline will not touch this registration again.", "cancelled"},
		{schedule.ActionCheckNow, b.dense, "", "The pipeline will check this registration at once.", "awaiting_verification"},
		{schedule.ActionClearFlag, flagged, "", "The attention flag is cleared.", "failed_permanent"},
		{schedule.ActionDismissAttention, stuck, "", "Attention dismissed until a different reason applies.", "failed_permanent"},
	}
	for _, tc := range tests {
		version, lookupID := b.pageForm(t, b.client, tc.id)
		before := b.written(t, tc.id)
		form := url.Values{"version": {version}, "lookup_id": {lookupID}, "reason": {"Checked Sisu: " + string(tc.action)}}
		if tc.risk != "" {
			form.Set("confirm_risk", string(tc.risk))
		}
		resp, body := b.act(t, b.client, tc.id, tc.action, form, false)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/registrations/"+tc.id {
			t.Errorf("%s = %d → %q, want 303 back to the page\n%s", tc.action, resp.StatusCode, resp.Header.Get("Location"), body)
			continue
		}
		// The LMS applied it as Sami: its event and its audit row; a dismissal is a table of its own
		// and leaves the row's version.
		got := b.written(t, tc.id)
		// Check now on a row already due changes nothing of the row itself.
		moved := got.version != before.version || tc.action == schedule.ActionDismissAttention || tc.action == schedule.ActionCheckNow
		if got.state != tc.state || !moved || got.events != before.events+1 || got.audits != before.audits+1 {
			t.Errorf("%s wrote %+v (was %+v), want state %s, a new version, one more event and audit row", tc.action, got, before, tc.state)
		}
		_, page := b.get(t, "/registrations/"+tc.id, false)
		page = html.UnescapeString(page)
		if !strings.Contains(page, `data-testid="flash"`) || !strings.Contains(page, tc.flash) {
			t.Errorf("%s: the page after does not flash %q", tc.action, tc.flash)
		}
		if !strings.Contains(page, `data-kind="admin_action"`) || !strings.Contains(page, "by Sami Support") ||
			!strings.Contains(page, "Reason: “Checked Sisu: "+string(tc.action)+"”") || !strings.Contains(page, i18n.For(i18n.EN).Code("action", string(tc.action))) {
			t.Errorf("%s: the history does not show the hand action with who and why", tc.action)
		}
		if !strings.Contains(page, `data-testid="event-audit"`) {
			t.Errorf("%s: the history does not link the audit entry", tc.action)
		}
		// The flash is shown once.
		if _, again := b.get(t, "/registrations/"+tc.id, false); strings.Contains(html.UnescapeString(again), tc.flash) {
			t.Errorf("%s: the flash shows again on the next page", tc.action)
		}
	}
}

func TestActionWithHtmxRedirectsToThePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	version, _ := b.pageForm(t, b.client, b.permanent)
	resp, _ := b.act(t, b.client, b.permanent, schedule.ActionCancel, url.Values{"version": {version}, "reason": {"Withdrew"}}, true)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("HX-Redirect") != "/registrations/"+b.permanent {
		t.Errorf("htmx POST = %d, HX-Redirect %q; want 204 to the page", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
	if got := b.written(t, b.permanent); got.state != "cancelled" {
		t.Errorf("state = %s, want cancelled", got.state)
	}
}

func TestActionMistakesAre422AndWriteNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	lost := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: ptr(testNow.Add(-30 * time.Hour)), StateChangedAt: testNow.Add(-30 * time.Hour)})
	b.addLookup(t, lost, testNow.Add(-time.Hour), b.support, lookupNotInSisu)

	tests := []struct {
		name   string
		id     string
		action schedule.Action
		reason string
		htmx   bool
		want   string
	}{
		{"EmptyReason", b.permanent, schedule.ActionCancel, "   ", false, "Give a reason: it is recorded with the action."},
		{"EmptyReasonHtmx", b.permanent, schedule.ActionCancel, "", true, "Give a reason: it is recorded with the action."},
		{"RiskNotConfirmed", lost, schedule.ActionResubmit, "Nothing in Sisu", false, "Tick the box to confirm you accept the risk (Possible duplicate)"},
		{"RiskNotConfirmedHtmx", lost, schedule.ActionResubmit, "Nothing in Sisu", true, "Tick the box to confirm you accept the risk (Possible duplicate)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			version, lookupID := b.pageForm(t, b.client, tc.id)
			before := b.written(t, tc.id)
			resp, body := b.act(t, b.client, tc.id, tc.action, url.Values{"version": {version}, "lookup_id": {lookupID}, "reason": {tc.reason}}, tc.htmx)
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("status = %d, want 422\n%s", resp.StatusCode, body)
			}
			if got := b.written(t, tc.id); got != before {
				t.Errorf("a refused form wrote: %+v → %+v", before, got)
			}
			if isPage := strings.Contains(body, "<html"); isPage == tc.htmx {
				t.Errorf("htmx=%v but the answer is a full page=%v", tc.htmx, isPage)
			}
			item := actionItem(t, body, tc.action)
			if !strings.Contains(html.UnescapeString(item), tc.want) || !strings.Contains(item, `<details open`) {
				t.Errorf("the form is not shown again, open, with %q:\n%s", tc.want, item)
			}
			if tc.reason != "" && !strings.Contains(item, ">"+tc.reason+"</textarea>") {
				t.Errorf("what the person typed is lost")
			}
			if !strings.Contains(item, `name="version" value="`+version+`"`) && !strings.Contains(body, `name="version" value="`+version+`"`) {
				t.Errorf("the form lost the version the person saw")
			}
		})
	}
}

func TestActionOnAChangedRowIs409AndSaysWhoWhenWhat(t *testing.T) {
	t.Parallel()
	b := setup(t)

	for _, htmx := range []bool{false, true} {
		id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
			ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-3 * time.Hour)})
		version, _ := b.pageForm(t, b.client, id)
		// Another person cancels it while the page is open.
		b.actAsStore(t, b.admin, id, schedule.ActionCancel, "Student withdrew", testNow.Add(-time.Minute))
		before := b.written(t, id)

		resp, body := b.act(t, b.client, id, schedule.ActionClearFlag, url.Values{"version": {version}, "reason": {"Checked"}}, htmx)
		if resp.StatusCode != http.StatusConflict {
			t.Fatalf("htmx=%v: status = %d, want 409\n%s", htmx, resp.StatusCode, body)
		}
		if got := b.written(t, id); got != before {
			t.Errorf("htmx=%v: a stale action wrote: %+v → %+v", htmx, before, got)
		}
		text := html.UnescapeString(body)
		for _, want := range []string{`data-testid="action-notice"`, `data-kind="stale"`,
			"Aino Admin moved this registration to “Cancelled” at " + views.At(testNow.Add(-time.Minute), testNow) + ". Nothing was saved.",
			"Aino Admin’s reason: “Student withdrew”", `data-testid="reload"`, `href="/registrations/` + id + `"`} {
			if !strings.Contains(text, want) {
				t.Errorf("htmx=%v: the conflict lacks %q", htmx, want)
			}
		}
		if strings.Contains(body, `data-testid="action-form"`) {
			t.Errorf("htmx=%v: the conflict still offers the stale forms", htmx)
		}
	}
}

// A colleague's action that left the state as it was (Check now) is named, with the state it
// left, not reported as a change to the state the row was already in.
func TestActionAfterAColleaguesCheckNowSaysWhatChanged(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.uncertainOverdue
	version, lookupID := b.pageForm(t, b.client, id)
	b.actAsStore(t, b.admin, id, schedule.ActionCheckNow, "Asked Sisu again", testNow.Add(-time.Minute))
	resp, body := b.act(t, b.client, id, schedule.ActionClearFlag, url.Values{"version": {version}, "lookup_id": {lookupID}, "reason": {"Checked"}}, true)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("status = %d, want 409\n%s", resp.StatusCode, body)
	}
	text := html.UnescapeString(body)
	want := "Aino Admin asked for “Check now” at " + views.At(testNow.Add(-time.Minute), testNow) + "; the registration is still “Submission uncertain”. Nothing was saved."
	if !strings.Contains(text, want) {
		t.Errorf("the conflict does not say what changed; want %q in\n%s", want, text)
	}
	if strings.Contains(text, "it is now") || strings.Contains(text, "submission_uncertain)") {
		t.Errorf("the conflict reports the unchanged state as a change:\n%s", text)
	}
}

func TestActionOnANewerLookupIs409(t *testing.T) {
	t.Parallel()
	b := setup(t)
	landed := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: ptr(testNow.Add(-30 * time.Hour)), StateChangedAt: testNow.Add(-30 * time.Hour),
		SubmittedAttainmentID: "hy-kur-1"})
	b.addLookup(t, landed, testNow.Add(-2*time.Hour), b.support, lookupRegisteredOurs)
	version, lookupID := b.pageForm(t, b.client, landed)
	b.addLookup(t, landed, testNow.Add(-time.Hour), b.admin, lookupNotInSisu)
	before := b.written(t, landed)

	resp, body := b.act(t, b.client, landed, schedule.ActionResubmit, url.Values{"version": {version}, "lookup_id": {lookupID}, "reason": {"Found it"},
		"confirm_risk": {string(schedule.RiskPossibleDuplicate)}}, false)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("status = %d, want 409", resp.StatusCode)
	}
	if got := b.written(t, landed); got != before {
		t.Errorf("an action on an old lookup wrote: %+v → %+v", before, got)
	}
	if !strings.Contains(body, "Aino Admin looked it up in Sisu again at "+views.At(testNow.Add(-time.Hour), testNow)+" (Not in Sisu). Nothing was saved.") {
		t.Errorf("the conflict does not say who looked again, when and what they found:\n%s", body)
	}
}

func TestRefusedActionIs409InWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Nothing is allowed on a registered row, so its page has no form: send what one would carry.
	before := b.written(t, b.settled)
	version := strconv.FormatInt(before.version, 10)
	resp, body := b.act(t, b.client, b.settled, schedule.ActionCancel, url.Values{"version": {version}, "reason": {"Cancel it"}}, true)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("status = %d, want 409", resp.StatusCode)
	}
	if strings.Contains(body, "<html") || !strings.Contains(body, `id="actions"`) {
		t.Errorf("the htmx answer is not the panel")
	}
	for _, want := range []string{`data-kind="refused"`, "Cancel is not possible now. Nothing was saved.",
		"Sisu already holds this credit; cancelling would not remove it."} {
		if !strings.Contains(html.UnescapeString(body), want) {
			t.Errorf("the refusal lacks %q", want)
		}
	}
	if got := b.written(t, b.settled); got != before {
		t.Errorf("a refused action wrote: %+v → %+v", before, got)
	}
}

func TestActionRefusesDamagedForms(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := []struct {
		path string
		form url.Values
		want int
	}{
		{"/registrations/" + b.permanent + "/actions/explode", url.Values{"version": {"1"}, "reason": {"x"}}, http.StatusNotFound},
		{"/registrations/" + b.permanent + "/actions/Cancel", url.Values{"version": {"1"}, "reason": {"x"}}, http.StatusNotFound},
		{"/registrations/" + storetest.NewID() + "/actions/cancel", url.Values{"version": {"1"}, "reason": {"x"}}, http.StatusNotFound},
		{"/registrations/not-a-uuid/actions/cancel", url.Values{"version": {"1"}, "reason": {"x"}}, http.StatusNotFound},
		{"/registrations/" + b.permanent + "/actions/cancel", url.Values{"version": {"one"}, "reason": {"x"}}, http.StatusBadRequest},
		{"/registrations/" + b.permanent + "/actions/cancel", url.Values{"reason": {"x"}}, http.StatusBadRequest},
	}
	before := b.written(t, b.permanent)
	for _, tc := range cases {
		resp, body := b.postForm(t, b.client, tc.path, tc.form)
		if resp.StatusCode != tc.want {
			t.Errorf("POST %s %v = %d, want %d", tc.path, tc.form, resp.StatusCode, tc.want)
		}
		if strings.Contains(body, "pgx") || strings.Contains(strings.ToLower(body), "sql") {
			t.Errorf("POST %s leaks internals", tc.path)
		}
	}
	if got := b.written(t, b.permanent); got != before {
		t.Errorf("a damaged form wrote: %+v → %+v", before, got)
	}
}

func TestLookupSwapRefreshesTheActions(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-landed", suotarfake.TransitionRegistered)
	id := b.row(t, "hy-kur-landed")

	body, rec := b.lookupChecked(t, id)
	if !strings.Contains(body, `id="actions" class="panel actions" data-testid="actions" aria-labelledby="actions-title" hx-swap-oob="true"`) {
		t.Fatalf("the lookup's answer does not refresh the action panel out of band:\n%s", body)
	}
	// Sisu holds the credit: Check now lets the pipeline record it; resubmitting is refused.
	if item := actionItem(t, body, schedule.ActionCheckNow); !strings.Contains(item, `data-allowed="true"`) {
		t.Errorf("after a lookup finding the credit, check now is not allowed:\n%s", item)
	}
	if item := actionItem(t, body, schedule.ActionResubmit); strings.Contains(item, `data-allowed="true"`) {
		t.Errorf("after a lookup finding the credit, resubmit is allowed:\n%s", item)
	}
	if !strings.Contains(body, `name="lookup_id" value="`+rec.event.ID+`"`) {
		t.Errorf("the refreshed forms do not carry the new lookup's id %s", rec.event.ID)
	}
}

func TestLookupSwapKeepsTheVersionThePageShowed(t *testing.T) {
	t.Parallel()
	b := setupSubmitted(t, "hy-kur-landed", suotarfake.TransitionRegistered)
	id := b.row(t, "hy-kur-landed")
	tb := &testBundle{store: b.store, server: b.server, client: b.client}
	_, page := tb.get(t, "/registrations/"+id, false)
	v := versionField.FindStringSubmatch(page)
	if v == nil || !strings.Contains(page, `name="version" value="`+v[1]+`"`) {
		t.Fatalf("the page carries no version")
	}
	// The pipeline touches the row while the page is open; the page does not show it. The write is
	// dated by the test's clock, as the pipeline's own clock would date it.
	storetest.LMSExecAsOf(t, b.store, `UPDATE credit_registrations SET verify_attempt_count = verify_attempt_count + 1,
  updated_at = $2 WHERE id = $1`, id, testNow)

	req, err := http.NewRequest(http.MethodPost, b.server.URL+"/registrations/"+id+"/lookup", strings.NewReader(url.Values{"version": {v[1]}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	_, body := do(t, b.client, req)
	if !strings.Contains(body, `hx-swap-oob="true"`) || !strings.Contains(body, `name="version" value="`+v[1]+`"`) {
		t.Fatalf("the refreshed panel does not keep the version the page showed (%s)", v[1])
	}
	lookupID := lookupField.FindStringSubmatch(body)[1]
	before := tb.written(t, id)
	resp, answer := tb.act(t, b.client, id, schedule.ActionCheckNow, url.Values{"version": {v[1]}, "lookup_id": {lookupID}, "reason": {"Found"}}, true)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(answer, `data-kind="stale"`) {
		t.Errorf("acting on a row the page no longer shows = %d, want 409 stale", resp.StatusCode)
	}
	// The write left no history entry: the notice names no author for it.
	if !strings.Contains(html.UnescapeString(answer), "by a change its history does not record; it is “Submission uncertain”. Nothing was saved.") ||
		strings.Contains(answer, "The pipeline worked on") {
		t.Errorf("the notice blames the newest history entry for an unrecorded write:\n%s", answer)
	}
	if got := tb.written(t, id); got != before {
		t.Errorf("the stale action wrote: %+v → %+v", before, got)
	}
}

// A duplicate row is registered, but regdesk cannot tell whether by this submission (it may be
// this very submission's timed-out import that landed): its page says so, and never that Sisu
// held the credit already.
func TestDuplicateSaysRegdeskCannotTellWhose(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "duplicate",
		SubmittedAt: ptr(testNow.Add(-40 * time.Hour)), SubmittedAttainmentID: "hy-kur-9", SisuAttainmentID: "hy-kur-9",
		StateChangedAt: testNow.Add(-2 * time.Hour)})
	_, body := b.get(t, "/registrations/"+id, false)
	text := html.UnescapeString(body)
	if !strings.Contains(text, "regdesk cannot tell whether this submission registered it") {
		t.Errorf("the duplicate row's page does not say regdesk cannot tell whose the credit is:\n%s", text)
	}
	for _, wrong := range []string{"already held this credit", "nothing new was registered", "Already in Sisu"} {
		if strings.Contains(text, wrong) {
			t.Errorf("the duplicate row's page says %q", wrong)
		}
	}
}
