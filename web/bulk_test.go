package web_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views"
	"regdesk/web"
)

var rowField = regexp.MustCompile(`name="row" value="([^"]+)"`)

// previewRows returns the row fields a preview's apply form carries.
func previewRows(body string) []string {
	var out []string
	for _, m := range rowField.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// group returns a preview's group with the key (a refusal code, or "apply").
func group(t *testing.T, body, key string) string {
	t.Helper()
	i := strings.Index(body, `data-key="`+key+`"`)
	if i < 0 {
		t.Fatalf("the preview has no group %s", key)
	}
	rest := body[i:]
	if j := strings.Index(rest, "</section>"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func TestQueueOffersBulkSelectionOnlyToThoseWhoAct(t *testing.T) {
	t.Parallel()
	b := setup(t)

	_, body := b.get(t, "/", false)
	for _, want := range []string{`id="bulk-form"`, `action="/bulk/preview"`, `data-testid="select-row"`, `form="bulk-form"`,
		`value="` + b.permanent + `"`, "Select all 2 matching this filter (up to 500)", `name="show" value="needs_admin"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the support queue lacks %s", want)
		}
	}
	if strings.Contains(body, `<option value="mark_in_sisu"`) {
		t.Errorf("the bulk select offers marking as in Sisu, which bulk always skips")
	}
	// The filter swap carries the bar too, with the new filter in it.
	_, frag := b.get(t, "/?show=all&state=registered", true)
	if !strings.Contains(frag, `name="state" value="registered"`) || !strings.Contains(frag, "Select the 1 row matching") {
		t.Errorf("the swapped list has no bulk bar for its filter")
	}

	_, teacherQueue := b.getWith(t, b.login(t, b.teacher), "/?show=all", false)
	if !strings.Contains(teacherQueue, `data-testid="registration-row"`) {
		t.Fatalf("the teacher's queue lists no rows, so it shows nothing about bulk selection")
	}
	if strings.Contains(teacherQueue, `data-testid="select-row"`) || strings.Contains(teacherQueue, "bulk-form") {
		t.Errorf("a teacher's queue offers bulk selection")
	}
}

func TestQueueCountsEveryMatchWhenItHasMorePages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 52 {
		storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "registered",
			StateChangedAt: testNow.Add(-time.Duration(i+10) * time.Minute)})
	}
	_, body := b.get(t, "/?show=all&state=registered", false)
	if !strings.Contains(body, "Select all 53 matching this filter") {
		t.Errorf("the bar does not count all 53 matches across pages")
	}
}

func TestBulkPreviewGroupsRowsAndApplyActsOnlyOnUnchangedOnes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	second := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-4 * time.Hour)})
	third := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-5 * time.Hour)})
	missing := storetest.NewID()

	resp, body := b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"cancel"}, "select": {"ticked"},
		"id": {b.permanent, second, third, b.uncertainOverdue, b.settled, missing}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("preview = %d\n%s", resp.StatusCode, body)
	}
	text := html.UnescapeString(body)
	if !strings.Contains(text, "Preview: Cancel") || !strings.Contains(text, "The rows you ticked: 6.") {
		t.Errorf("the preview does not say what and which rows")
	}
	apply := group(t, body, "apply")
	if !strings.Contains(apply, `data-count="3"`) || !strings.Contains(apply, "Would apply: 3 rows → cancelled") {
		t.Errorf("the apply group is wrong:\n%s", apply)
	}
	uncertain := group(t, body, string(schedule.RefusalSubmissionUncertain))
	if !strings.Contains(uncertain, `data-id="`+b.uncertainOverdue+`"`) || !strings.Contains(html.UnescapeString(uncertain), "bulk actions skip it") {
		t.Errorf("the uncertain row is not shown as skipped, with why:\n%s", uncertain)
	}
	if settled := group(t, body, string(schedule.RefusalAlreadySucceeded)); !strings.Contains(settled, `data-id="`+b.settled+`"`) {
		t.Errorf("the registered row is not shown as skipped")
	}
	if !strings.Contains(body, `data-testid="bulk-not-found"`) || !strings.Contains(body, missing) {
		t.Errorf("the unknown id is not listed as not found")
	}
	rows := previewRows(body)
	if len(rows) != 3 {
		t.Fatalf("the apply form carries %d rows, want exactly the 3 that would apply: %v", len(rows), rows)
	}
	for _, r := range rows {
		if strings.HasPrefix(r, b.uncertainOverdue) || strings.HasPrefix(r, b.settled) || strings.HasPrefix(r, missing) {
			t.Errorf("the apply form carries a row the preview skipped: %s", r)
		}
	}

	// Someone clears the flag on one of them after the preview: it must be left alone.
	b.actAsStore(t, b.admin, third, schedule.ActionClearFlag, "Config fixed", testNow)
	thirdBefore, uncertainBefore := b.written(t, third), b.written(t, b.uncertainOverdue)

	resp, body = b.postForm(t, b.client, "/bulk/apply", url.Values{"action": {"cancel"}, "row": rows, "reason": {"Course closed"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("apply = %d\n%s", resp.StatusCode, body)
	}
	outcomes := map[string]string{}
	for _, m := range regexp.MustCompile(`data-testid="bulk-row" data-id="([^"]+)" data-outcome="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		outcomes[m[1]] = m[2]
	}
	want := map[string]string{b.permanent: "applied", second: "applied", third: "changed"}
	for id, o := range want {
		if outcomes[id] != o {
			t.Errorf("row %s outcome = %q, want %q (all: %v)", id, outcomes[id], o, outcomes)
		}
	}
	if len(outcomes) != 3 {
		t.Errorf("the result lists %d rows, want the 3 applied to", len(outcomes))
	}
	for _, want := range []string{`data-testid="bulk-count-applied" data-count="2"`, `data-testid="bulk-count-changed" data-count="1"`,
		"Changed since the preview: left alone", `href="/registrations/` + b.permanent + `"`, `data-testid="bulk-audit-link"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the result lacks %s", want)
		}
	}
	for id, st := range map[string]string{b.permanent: "cancelled", second: "cancelled"} {
		if got := b.written(t, id); got.state != st || got.events != 1 {
			t.Errorf("row %s: %+v, want %s with one admin event", id, got, st)
		}
	}
	// (The one bulk audit entry names the first id as its target, so audit counts are compared
	// below, not per row.)
	if got := b.written(t, third); got.version != thirdBefore.version || got.events != thirdBefore.events {
		t.Errorf("the row changed after the preview was acted on: %+v → %+v", thirdBefore, got)
	}
	if got := b.written(t, b.uncertainOverdue); got.version != uncertainBefore.version || got.events != uncertainBefore.events {
		t.Errorf("the uncertain row was touched")
	}
	var audits, affected int
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT count(*), coalesce(max(affected_row_count), 0) FROM credit_registration_admin_actions
WHERE actor_user_id = $1`, b.support.LMSUserID).Scan(&audits, &affected); err != nil {
		t.Fatal(err)
	}
	if audits != 1 || affected != 2 {
		t.Errorf("support's audit rows = %d affecting %d, want one bulk entry affecting 2", audits, affected)
	}
}

func TestBulkPreviewOfEveryRowMatchingTheFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := url.Values{"action": {"clear_flag"}, "select": {"all"}, "show": {"all"}, "state": {"failed_permanent"},
		"id": {b.settled}} // a ticked row is ignored when all matching rows are asked for
	resp, body := b.postForm(t, b.client, "/bulk/preview", form)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("preview = %d\n%s", resp.StatusCode, body)
	}
	if !strings.Contains(body, "Every row matching the queue&#39;s filter at "+views.Clock(testNow)+": 1 row.") {
		t.Errorf("the preview does not say it took the filter's rows")
	}
	if rows := previewRows(body); len(rows) != 1 || !strings.HasPrefix(rows[0], b.permanent+":") {
		t.Errorf("apply rows = %v, want only the one failed_permanent row", rows)
	}
	if !strings.Contains(body, `href="/?show=all&amp;state=failed_permanent"`) {
		t.Errorf("the preview does not lead back to the filtered queue")
	}
	// Another action for the same rows carries the ids the filter gave, not the filter.
	if !strings.Contains(body, `data-testid="bulk-change-action"`) || !strings.Contains(body, `name="id" value="`+b.permanent+`"`) {
		t.Errorf("the preview cannot switch action on the same rows")
	}

	resp, body = b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"cancel"}, "select": {"ticked"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Select at least one row.") {
		t.Errorf("an empty selection = %d, want 422 saying to select a row", resp.StatusCode)
	}
	resp, _ = b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"mark_in_sisu"}, "id": {b.permanent}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("mark in Sisu in bulk = %d, want 422", resp.StatusCode)
	}
	resp, _ = b.postForm(t, b.client, "/bulk/preview", url.Values{"select": {"all"}, "phase": {"soon"}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad filter = %d, want 400", resp.StatusCode)
	}
}

func TestBulkApplyMistakesAre422AndWriteNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	reversed := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "misregistered",
		NeedsAdminAttention: true, SubmittedAt: ptr(testNow.Add(-10 * 24 * time.Hour)), StateChangedAt: testNow.Add(-time.Hour)})
	_, body := b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"resubmit"}, "id": {reversed, b.permanent}})
	rows := previewRows(body)
	if len(rows) != 2 {
		t.Fatalf("apply rows = %v, want both", rows)
	}
	if !strings.Contains(body, `name="risk" value="replaces_reversed_attainment"`) || !strings.Contains(body, `data-testid="bulk-confirm-risk"`) {
		t.Fatalf("the preview does not ask to confirm the reversed credit's risk")
	}
	before := []written{b.written(t, reversed), b.written(t, b.permanent)}
	risks := []string{"replaces_reversed_attainment", "likely_rejected_again"}
	risks = slices.DeleteFunc(risks, func(r string) bool { return !strings.Contains(body, `name="risk" value="`+r+`"`) })

	cases := []struct {
		name string
		form url.Values
		want string
	}{
		{"NoReason", url.Values{"action": {"resubmit"}, "row": rows, "risk": risks, "confirm_risk": risks, "reason": {" "}}, "Give a reason"},
		{"RiskNotConfirmed", url.Values{"action": {"resubmit"}, "row": rows, "risk": risks, "reason": {"Sisu fixed"}}, "Tick the box to confirm you accept the risk"},
	}
	for _, tc := range cases {
		resp, body := b.postForm(t, b.client, "/bulk/apply", tc.form)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: status = %d, want 422", tc.name, resp.StatusCode)
		}
		if !strings.Contains(body, tc.want) || !strings.Contains(body, "nothing was applied") && !strings.Contains(body, "Nothing was applied") {
			t.Errorf("%s: the page does not say %q and that nothing was applied", tc.name, tc.want)
		}
		if !strings.Contains(body, `data-testid="bulk-apply-form"`) {
			t.Errorf("%s: the preview is not drawn again", tc.name)
		}
	}
	after := []written{b.written(t, reversed), b.written(t, b.permanent)}
	if !slices.Equal(before, after) {
		t.Errorf("a refused bulk apply wrote: %+v → %+v", before, after)
	}
	for _, bad := range []url.Values{
		{"action": {"resubmit"}, "row": {"garbage"}, "reason": {"x"}},
		{"action": {"resubmit"}, "reason": {"x"}},
		{"row": rows, "reason": {"x"}},
	} {
		if resp, _ := b.postForm(t, b.client, "/bulk/apply", bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("apply %v = %d, want 400", bad, resp.StatusCode)
		}
	}
}

// A bulk apply of more rows than answer at once runs in the background: the person is sent to a
// page that shows how far it has got (reloading itself without JavaScript, polled by htmx with
// it), and that same page shows the result once the action is done. Nobody else sees the job.
func TestBulkApplyOfManyRowsShowsItsProgress(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.BulkInlineRows = 2 })
	ctx := t.Context()
	ids := []string{b.permanent}
	for i := range 2 {
		ids = append(ids, storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
			ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Duration(4+i) * time.Hour)}))
	}
	_, body := b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"clear_flag"}, "select": {"ticked"}, "id": ids})
	rows := previewRows(body)
	if len(rows) != 3 {
		t.Fatalf("the preview would apply to %d rows, want 3", len(rows))
	}
	// Someone else holds one of the rows: the apply waits at its first statement, so the page can
	// be looked at while it runs.
	hold, err := b.store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(ctx))
	// The lock a hand action on the row holds (store.WithRegistrationsLocked).
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_xact_lock(29284, hashtext($1))`, b.permanent); err != nil {
		t.Fatal(err)
	}
	resp, _ := b.postForm(t, b.client, "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": rows, "reason": {"Config fixed"}})
	page := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(page, "/bulk/jobs/") {
		t.Fatalf("a long apply = %d to %q, want 303 to its progress page", resp.StatusCode, page)
	}
	resp, body = b.get(t, page, false)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="bulk-progress-page"`) ||
		!strings.Contains(body, `data-done="0" data-total="3"`) || !strings.Contains(body, `<noscript><meta http-equiv="refresh" content="2"></noscript>`) ||
		!strings.Contains(body, `hx-get="`+page+`" hx-trigger="every 1s"`) || !strings.Contains(body, "0 of 3 rows gone through") {
		t.Fatalf("the progress page while the apply waits (%d):\n%s", resp.StatusCode, body)
	}
	if resp, part := b.get(t, page, true); resp.StatusCode != http.StatusOK || strings.Contains(part, "<html") || !strings.Contains(part, `data-testid="bulk-progress"`) {
		t.Errorf("htmx's poll = %d:\n%s", resp.StatusCode, part)
	}
	if resp, _ := b.getWith(t, b.login(t, b.admin), page, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another person's job = %d, want 404", resp.StatusCode)
	}
	flagged := func(id string) bool {
		t.Helper()
		var f bool
		if err := b.store.Pool().QueryRow(ctx, `SELECT needs_admin_attention FROM credit_registrations WHERE id = $1`, id).Scan(&f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	if !flagged(ids[1]) {
		t.Errorf("a row changed before the apply committed")
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// The same address turns into the result once the apply is done.
	for !strings.Contains(body, `data-testid="bulk-result"`) {
		if ctx.Err() != nil {
			t.Fatalf("the apply never finished:\n%s", body)
		}
		time.Sleep(20 * time.Millisecond)
		resp, body = b.get(t, page, false)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("progress page = %d:\n%s", resp.StatusCode, body)
		}
	}
	if !strings.Contains(body, `data-testid="bulk-count-applied" data-count="3"`) {
		t.Errorf("the result does not count 3 applied:\n%s", body)
	}
	for _, id := range ids {
		if flagged(id) {
			t.Errorf("row %s still flagged after the apply", id)
		}
	}
	if resp, _ := b.get(t, page, true); resp.Header.Get("HX-Redirect") != page {
		t.Errorf("htmx's poll of a finished job: %d, HX-Redirect %q, want the page", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
}

// restart stands a new server up over the bundle's database, as a restarted regdesk would be, and
// signs support in to it.
func (b *testBundle) restart(t *testing.T, deps web.Deps) {
	t.Helper()
	b.server.Close()
	srv := web.New(deps)
	t.Cleanup(srv.Close)
	b.server = httptest.NewServer(srv.Routes())
	t.Cleanup(b.server.Close)
	b.client = b.login(t, b.support)
}

// A background bulk apply is kept in the database: its result is at the same address after a
// restart; an apply that failed says nothing was changed; and a job whose server stopped while it
// ran (its heartbeat stopped) says, once the heartbeat is long past, that the LMS may have been
// asked about some rows, and points to the audit log's record of the attempt, which names them.
func TestBulkJobsOutliveARestart(t *testing.T) {
	t.Parallel()
	var deps web.Deps
	b := setupWith(t, func(d *web.Deps) { d.BulkInlineRows = 2; deps = *d })
	ctx := t.Context()
	ids := []string{b.permanent}
	for i := range 2 {
		ids = append(ids, storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_permanent",
			ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Duration(4+i) * time.Hour)}))
	}
	flagged := func(id string) bool {
		t.Helper()
		var f bool
		if err := b.store.Pool().QueryRow(ctx, `SELECT needs_admin_attention FROM credit_registrations WHERE id = $1`, id).Scan(&f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	apply := func() string {
		t.Helper()
		_, body := b.postForm(t, b.client, "/bulk/preview", url.Values{"action": {"clear_flag"}, "select": {"ticked"}, "id": ids})
		rows := previewRows(body)
		resp, _ := b.postForm(t, b.client, "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": rows, "reason": {"Config fixed"}})
		page := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(page, "/bulk/jobs/") {
			t.Fatalf("a long apply = %d to %q, want 303 to its progress page", resp.StatusCode, page)
		}
		return page
	}
	waitFor := func(page, testid string) string {
		t.Helper()
		for {
			resp, body := b.get(t, page, false)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s = %d:\n%s", page, resp.StatusCode, body)
			}
			if strings.Contains(body, `data-testid="`+testid+`"`) {
				return body
			}
			if ctx.Err() != nil {
				t.Fatalf("%s never showed %s:\n%s", page, testid, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// An apply that fails (its connection is cut while it waits for a row someone holds) rolls
	// back, and its page says so.
	hold, err := b.store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(ctx))
	// The lock a hand action on the row holds (store.WithRegistrationsLocked).
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_xact_lock(29284, hashtext($1))`, b.permanent); err != nil {
		t.Fatal(err)
	}
	failing := apply()
	for {
		var n int
		if err := storetest.LMS(t, b.store).QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_lock%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the apply never waited for the held row")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	body := waitFor(failing, "bulk-ended")
	if !strings.Contains(body, `data-outcome="failed"`) || !strings.Contains(body, "no row was changed (3 selected)") {
		t.Errorf("a failed apply's page:\n%s", body)
	}
	for _, id := range ids {
		if !flagged(id) {
			t.Errorf("row %s changed by an apply that failed", id)
		}
	}

	// One that succeeds is found at its address after a restart, with its result.
	done := apply()
	waitFor(done, "bulk-result")
	b.restart(t, deps)
	body = waitFor(done, "bulk-result")
	if !strings.Contains(body, `data-testid="bulk-count-applied" data-count="3"`) {
		t.Errorf("the result after a restart does not count 3 applied:\n%s", body)
	}
	if resp, _ := b.getWith(t, b.login(t, b.admin), done, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another person's job after a restart = %d, want 404", resp.StatusCode)
	}

	// A job whose server stopped while it ran: claimed and beating as the server left it, never
	// ended. (Written as a stopped instance leaves it: no instance of this test would run it.)
	cut := storetest.NewID()
	if _, err := b.store.Pool().Exec(ctx, `INSERT INTO bulk_jobs (id, owner_id, action, reason, total, started_at, heartbeat_at, claimed_at, params)
VALUES ($1, $2, 'clear_flag', 'Config fixed', 3, $3, $3, $3, '{}')`, cut, b.support.ID, b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := b.store.BulkJobBeat(ctx, cut, 2, b.clock.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(5 * time.Second)
	if _, body := b.get(t, "/bulk/jobs/"+cut, false); !strings.Contains(body, `data-done="2" data-total="3"`) {
		t.Errorf("a job beating a moment ago is not shown running at 2 of 3:\n%s", body)
	}
	b.clock.Advance(time.Minute)
	_, body = b.get(t, "/bulk/jobs/"+cut, false)
	if !strings.Contains(body, `data-outcome="interrupted"`) || !strings.Contains(body, "The LMS may have been asked about some of them already") ||
		!strings.Contains(body, `data-testid="bulk-audit-link"`) {
		t.Errorf("a job cut short does not say the LMS may have acted, and where to see on which rows:\n%s", body)
	}
	if resp, _ := b.get(t, "/bulk/jobs/"+cut, true); resp.Header.Get("HX-Redirect") != "/bulk/jobs/"+cut {
		t.Errorf("htmx's poll of a job cut short: HX-Redirect %q", resp.Header.Get("HX-Redirect"))
	}
}

// A form carrying more rows than one bulk action takes is refused in words about rows, and
// nothing is done; up to the limit the apply form's rows are read (a selection of more than the
// fifty values any other field may repeat is the bulk form's everyday case).
func TestBulkApplyBoundIsSaidInRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rows := make([]string, store.BulkMaxRows+1)
	for i := range rows {
		rows[i] = storetest.NewID() + ":1:"
	}
	resp, body := b.postForm(t, b.client, "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": rows, "reason": {"x"}})
	if text := html.UnescapeString(body); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(text, "501 rows were sent to act on; at most 500 are acted on at once.") {
		t.Errorf("501 rows = %d, want 422 saying so in rows:\n%s", resp.StatusCode, text)
	}
	// Fifty-one rows (none of them found) pass the input bound and run as a background job.
	resp, body = b.postForm(t, b.client, "/bulk/apply", url.Values{"action": {"clear_flag"}, "row": rows[:51], "reason": {"x"}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/bulk/jobs/") {
		t.Errorf("51 rows = %d, want 303 to the job's page:\n%s", resp.StatusCode, html.UnescapeString(body))
	}
	// Another field's repeats name the field in words.
	states := make([]string, 51)
	for i := range states {
		states[i] = strconv.Itoa(i)
	}
	resp, body = b.get(t, "/?"+url.Values{"state": states}.Encode(), false)
	if text := html.UnescapeString(body); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text, "The state is given 51 times") {
		t.Errorf("51 states = %d:\n%s", resp.StatusCode, text)
	}
}
