package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"regdesk/partner/lms/lmsfake"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/web"
)

// phaseRow is what the LMS's credit_registration_phase_state holds for one phase.
type phaseRow struct {
	pausedAt          *time.Time
	pausedBy, reason  *string
	nextRunAt         *time.Time
	lastHeartbeatAt   *time.Time
	consecutiveFailed int
}

func (b *testBundle) phase(t *testing.T, name string) phaseRow {
	t.Helper()
	var p phaseRow
	if err := storetest.LMS(t, b.store).QueryRow(context.Background(), `SELECT paused_at, paused_by_user_id::text, pause_reason, next_run_at,
  last_heartbeat_at, consecutive_failures FROM credit_registration_phase_state WHERE phase = $1`, name).Scan(
		&p.pausedAt, &p.pausedBy, &p.reason, &p.nextRunAt, &p.lastHeartbeatAt, &p.consecutiveFailed); err != nil {
		t.Fatalf("phase %s: %v", name, err)
	}
	return p
}

// auditCount counts the LMS's audit rows of action by the LMS user actor.
func (b *testBundle) auditCount(t *testing.T, action, actor string) int {
	t.Helper()
	var n int
	if err := storetest.LMS(t, b.store).QueryRow(context.Background(), `SELECT count(*) FROM credit_registration_admin_actions
WHERE action = $1 AND actor_user_id = $2`, action, actor).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// attr returns the value of attribute name on the element with data-testid="testid" whose
// data-key="value", in page.
func phaseStatus(page, phase string) string {
	m := regexp.MustCompile(`data-testid="phase" data-phase="` + regexp.QuoteMeta(phase) + `" data-status="([a-z_]+)"`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return m[1]
}

// The System page reads each phase as the LMS keeps it: paused (by whom, shown as "you" to that
// person, and why), late as the LMS judges it (past twice its interval), running, or never run;
// and the modules an admin paused, with the registrations the pause holds.
func TestSystemPageShowsThePipelineAsTheLMSKeepsIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	storetest.LMSExecNoSync(t, b.store, `UPDATE credit_registration_phase_state SET last_heartbeat_at = $1, last_run_finished_at = $1,
  items_processed_last_run = 12, items_failed_last_run = 1 WHERE phase = 'import'`, testNow.Add(-5*time.Second))
	// verify runs every 60 s: 120 s without a heartbeat is not yet late, 121 s is.
	storetest.LMSExecNoSync(t, b.store, `UPDATE credit_registration_phase_state SET last_heartbeat_at = $1 WHERE phase = 'verify'`, testNow.Add(-121*time.Second))
	storetest.LMSExecNoSync(t, b.store, `UPDATE credit_registration_phase_state SET last_heartbeat_at = $1 WHERE phase = 'legacy-mirror'`, testNow.Add(-120*time.Second))
	storetest.LMSExecNoSync(t, b.store, `UPDATE credit_registration_phase_state SET last_heartbeat_at = $1, paused_at = $2, paused_by_user_id = $3,
  pause_reason = 'Suotar maintenance until noon' WHERE phase = 'preconditions'`, testNow.Add(-time.Hour), testNow.Add(-40*time.Minute), b.admin.LMSUserID)
	storetest.LMSExecNoSync(t, b.store, `UPDATE credit_registration_phase_state SET consecutive_failures = 6, last_error = 'Suotar answered 503',
  last_heartbeat_at = $1 WHERE phase = 'resolve-enrolments'`, testNow.Add(-3*time.Second))
	storetest.LMSExecNoSync(t, b.store, `INSERT INTO course_module_suotar_configurations (course_module_id, paused_at, paused_by_user_id, pause_reason)
VALUES ($1, $2, $3, 'Wrong course code in Sisu')`, b.course.ModuleID, testNow.Add(-2*time.Hour), b.support.LMSUserID)

	admin := b.login(t, b.admin)
	resp, page := b.getWith(t, admin, "/system", false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /system = %d", resp.StatusCode)
	}
	for phase, want := range map[string]string{"import": "running", "verify": "late", "legacy-mirror": "running",
		"preconditions": "paused", "materialize": "never_ran", "resolve-enrolments": "running"} {
		if got := phaseStatus(page, phase); got != want {
			t.Errorf("%s is shown %q, want %q", phase, got, want)
		}
	}
	for _, want := range []string{"Paused by you", "Suotar maintenance until noon", "12 moved, 1 failed",
		"The last 6 runs failed: Suotar answered 503", `data-testid="paused-module" data-module="` + b.course.ModuleID + `"`,
		"Paused by Sami Support", "Wrong course code in Sisu", "2 unfinished registrations"} {
		if !strings.Contains(page, want) {
			t.Errorf("the admin's System page does not say %q", want)
		}
	}
	// The admin may pause every running phase and resume the paused ones.
	if n := strings.Count(page, `data-testid="control-pause"`); n != 11 {
		t.Errorf("%d pause forms, want one per running phase (11)", n)
	}
	if n := strings.Count(page, `data-testid="control-resume"`); n != 1 {
		t.Errorf("%d resume forms, want 1", n)
	}

	// Support reads the same page, sees who paused, and has no controls.
	_, page = b.getWith(t, b.client, "/system", false)
	if !strings.Contains(page, "Paused by Aino Admin") || !strings.Contains(page, "Paused by you") {
		t.Errorf("support's page does not name who paused the phase (Aino) and the module (support)")
	}
	if strings.Contains(page, `data-testid="control-form"`) || !strings.Contains(page, "Only administrators can") {
		t.Errorf("support's page offers controls, or does not say why it offers none")
	}
	// The nav leads there for those who act.
	if !strings.Contains(page, `href="/system"`) {
		t.Errorf("support's nav has no link to the System page")
	}
}

// An admin pauses, runs and resumes a phase through the LMS's endpoints, as their LMS user: the
// LMS writes the phase's row and its audit row naming them, and the page shows it.
func TestSystemPhaseControlsGoThroughTheLMS(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)

	resp, _ := b.postForm(t, admin, "/system/phases/import/pause", url.Values{"reason": {"Sisu maintenance window"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/system" {
		t.Fatalf("pause = %d → %s, want 303 → /system", resp.StatusCode, resp.Header.Get("Location"))
	}
	p := b.phase(t, "import")
	if p.pausedAt == nil || store.Deref(p.pausedBy) != b.admin.LMSUserID || store.Deref(p.reason) != "Sisu maintenance window" {
		t.Fatalf("the LMS's row after the pause: %+v", p)
	}
	if n := b.auditCount(t, "pause_phase", b.admin.LMSUserID); n != 1 {
		t.Errorf("%d pause_phase audit rows naming the admin, want 1", n)
	}
	_, page := b.getWith(t, admin, "/system", false)
	if phaseStatus(page, "import") != "paused" || !strings.Contains(page, "Sending to Suotar is paused") || !strings.Contains(page, "Paused by you") {
		t.Errorf("after the pause the page does not show import paused by you, with the flash")
	}

	// With htmx the answer is the phases' section alone.
	req, _ := http.NewRequest(http.MethodPost, b.server.URL+"/system/phases/import/resume", strings.NewReader(url.Values{"reason": {"Window over"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, body := do(t, admin, req)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(body), `<section id="system-phases"`) ||
		!strings.Contains(body, `data-kind="done"`) || !strings.Contains(body, "Sending to Suotar runs again.") {
		t.Errorf("htmx resume = %d:\n%.400s", resp.StatusCode, body)
	}
	if p := b.phase(t, "import"); p.pausedAt != nil || p.pausedBy != nil || p.reason != nil {
		t.Errorf("the LMS's row after the resume: %+v", p)
	}

	if resp, _ := b.postForm(t, admin, "/system/phases/verify/run-now", url.Values{"reason": {"Student waiting"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("run now = %d", resp.StatusCode)
	}
	if p := b.phase(t, "verify"); p.nextRunAt == nil || !p.nextRunAt.Equal(testNow) {
		t.Errorf("run now left next_run_at at %v, want the LMS's now %v", p.nextRunAt, testNow)
	}
	for _, a := range []string{"resume_phase", "run_phase_now"} {
		if n := b.auditCount(t, a, b.admin.LMSUserID); n != 1 {
			t.Errorf("%d %s audit rows naming the admin, want 1", n, a)
		}
	}
	// regdesk's audit page lists the LMS's rows: who, what, which phase, why.
	_, page = b.getWith(t, admin, "/audit?action=pause_phase", false)
	if !strings.Contains(page, "Paused a pipeline phase") || !strings.Contains(page, "Aino Admin") ||
		!strings.Contains(page, ">Sending to Suotar</") || !strings.Contains(page, "Sisu maintenance window") {
		t.Errorf("the audit page does not show the pause with who, which phase and why")
	}
}

// A control without a reason, from an account that is no LMS user, or one the LMS did not answer,
// changes nothing the person is not told of.
func TestSystemControlsRefusedSayWhy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)

	resp, page := b.postForm(t, admin, "/system/phases/import/pause", url.Values{"reason": {"  "}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="control-error"`) ||
		!strings.Contains(page, "Give a reason") {
		t.Errorf("a pause without a reason = %d; want 422 with the form open saying so", resp.StatusCode)
	}
	if p := b.phase(t, "import"); p.pausedAt != nil {
		t.Errorf("a pause without a reason paused the phase")
	}

	// An admin whose account names no LMS user is told so, and nothing is asked of the LMS.
	hash, _ := b.store.HashPassword(testPassword)
	acct, err := b.store.AccountCreate(context.Background(), store.AccountCreateParams{Name: "Olga Admin", Email: "olga@example.invalid", Role: "admin", PasswordHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	olga := b.login(t, testAccount{ID: acct.ID, Email: acct.Email, Role: web.RoleAdmin})
	_, page = b.getWith(t, olga, "/system", false)
	if !strings.Contains(page, "not linked to your LMS user") || strings.Contains(page, `data-testid="control-form"`) {
		t.Errorf("an unlinked admin's page offers controls, or does not say why not")
	}
	resp, page = b.postForm(t, olga, "/system/phases/import/pause", url.Values{"reason": {"Trying"}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "not linked to your LMS user") {
		t.Errorf("an unlinked admin's pause = %d; want 403 saying the account is not linked", resp.StatusCode)
	}
	if p := b.phase(t, "import"); p.pausedAt != nil {
		t.Errorf("an unlinked admin's pause paused the phase")
	}

	// The LMS fails after writing: the page says the outcome is unknown and shows the row as it is.
	if _, err := b.lmsFake.AddFault(lmsfake.Fault{Effect: lmsfake.FaultServerError, Endpoint: lmsfake.EndpointPausePhase, AfterWrites: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	resp, page = b.postForm(t, admin, "/system/phases/import/pause", url.Values{"reason": {"Sisu down"}})
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(page, `data-kind="unknown"`) || phaseStatus(page, "import") != "paused" {
		t.Errorf("a pause whose answer was lost = %d; want 502 saying it is unknown and showing import as the LMS has it (paused)", resp.StatusCode)
	}

	// The LMS refuses a module it has no configuration for, in its own words.
	resp, page = b.postForm(t, admin, "/system/modules/pause", url.Values{"module": {b.course.ModuleID}, "reason": {"Wrong code"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, "This course module has no credit registration configuration.") {
		t.Errorf("pausing an unconfigured module = %d; want 409 with the LMS's words", resp.StatusCode)
	}
}

// An admin pauses a course module and resumes it; a requeue makes the module's retryable rows due
// now. Each goes through the LMS as them.
func TestSystemModuleControlsAndRequeue(t *testing.T) {
	t.Parallel()
	b := setup(t)
	storetest.LMSExecNoSync(t, b.store, `INSERT INTO course_module_suotar_configurations (course_module_id) VALUES ($1)`, b.course.ModuleID)
	retry := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "failed_retryable",
		ErrorCode: "service_temporarily_unavailable", StateChangedAt: testNow.Add(-time.Hour), NextAttemptAt: testNow.Add(3 * time.Hour)})
	admin := b.login(t, b.admin)

	_, page := b.getWith(t, admin, "/system", false)
	if !strings.Contains(page, "1 registration is waiting out a backoff") || !strings.Contains(page, `value="`+b.course.ModuleID+`"`) {
		t.Fatalf("the page does not offer the module to pause, or miscounts the retryable rows")
	}
	if resp, _ := b.postForm(t, admin, "/system/modules/pause", url.Values{"module": {b.course.ModuleID}, "reason": {"Course code wrong in Sisu"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("module pause = %d", resp.StatusCode)
	}
	var pausedBy, reason *string
	if err := storetest.LMS(t, b.store).QueryRow(context.Background(), `SELECT paused_by_user_id::text, pause_reason FROM course_module_suotar_configurations
WHERE course_module_id = $1`, b.course.ModuleID).Scan(&pausedBy, &reason); err != nil || store.Deref(pausedBy) != b.admin.LMSUserID {
		t.Fatalf("module pause wrote %v, %v (%v)", pausedBy, reason, err)
	}
	_, page = b.getWith(t, admin, "/system", false)
	if !strings.Contains(page, `data-testid="paused-module" data-module="`+b.course.ModuleID+`"`) || !strings.Contains(page, "Course code wrong in Sisu") {
		t.Errorf("the paused module is not listed with its reason")
	}
	if resp, _ := b.postForm(t, admin, "/system/modules/resume", url.Values{"module": {b.course.ModuleID}, "reason": {"Fixed"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("module resume = %d", resp.StatusCode)
	}
	for _, a := range []string{"pause_course_module", "resume_course_module"} {
		if n := b.auditCount(t, a, b.admin.LMSUserID); n != 1 {
			t.Errorf("%d %s audit rows naming the admin, want 1", n, a)
		}
	}

	// A scope the page never offers is refused in words, and nothing is requeued.
	resp, page := b.postForm(t, admin, "/system/requeue", url.Values{"scope": {"planet:mars"}, "reason": {"Suotar is back"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, "Choose every course, a course or a course module.") {
		t.Errorf("a requeue of an unknown scope = %d", resp.StatusCode)
	}
	resp, page = b.postForm(t, admin, "/system/requeue", url.Values{"scope": {"module:" + b.course.ModuleID}, "reason": {"Suotar is back"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("requeue = %d:\n%s", resp.StatusCode, page)
	}
	var next time.Time
	if err := storetest.LMS(t, b.store).QueryRow(context.Background(), `SELECT next_attempt_at FROM credit_registrations WHERE id = $1`, retry).Scan(&next); err != nil || next.After(testNow) {
		t.Errorf("the retryable row is due at %v after the requeue (%v), want by %v", next, err, testNow)
	}
	_, page = b.getWith(t, admin, "/system", false)
	if !strings.Contains(page, "1 registration is due now.") || !strings.Contains(page, "0 registrations are waiting out a backoff") {
		t.Errorf("after the requeue the page does not say what it did")
	}
}

// A phase an admin paused on the System page fires an alert on the next evaluation: support's and
// admins' banners say so and lead to the rows it holds (TestPausedPhaseAlertListsTheRowsItHolds
// holds the list to the count); a teacher's says nothing.
func TestPausedPhaseAlertsSupportAndAdmins(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.AlertsTTL = time.Nanosecond })
	admin := b.login(t, b.admin)
	if resp, _ := b.postForm(t, admin, "/system/phases/verify/pause", url.Values{"reason": {"Sisu maintenance"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("pause = %d", resp.StatusCode)
	}
	ctx := context.Background()
	facts, err := b.store.HealthFactsGet(ctx, testNow)
	if err != nil {
		t.Fatal(err)
	}
	b.fire(t, testNow, schedule.Evaluate(facts, testNow)...)
	held := url.Values{"alerted_at": {testNow.UTC().Format(time.RFC3339)}, "show": {"all"},
		"state": {"awaiting_verification", "submission_uncertain"}}
	link := `href="` + html.EscapeString("/?"+held.Encode()) + `"`
	for who, c := range map[string]*http.Client{"support": b.client, "admin": admin} {
		_, page := b.getWith(t, c, "/courses", false)
		// verify holds the bundle's uncertain and awaiting rows.
		if !strings.Contains(page, "Pipeline phase paused") || !strings.Contains(page, link) ||
			!strings.Contains(page, "Checking Sisu is paused; 2 registrations wait in the states it moves.") {
			t.Errorf("%s's banner does not say verify is paused, leading to the rows it holds", who)
		}
	}
	_, page := b.getWith(t, b.login(t, b.teacher), "/courses", false)
	if strings.Contains(page, "Pipeline phase paused") {
		t.Errorf("a teacher's banner shows the paused phase")
	}
	// The link leads to the page, which says who paused it and why.
	_, page = b.getWith(t, b.client, "/system?alerted_at="+url.QueryEscape(testNow.UTC().Format(time.RFC3339)), false)
	if phaseStatus(page, "verify") != "paused" || !strings.Contains(page, "Paused by Aino Admin") || !strings.Contains(page, "Sisu maintenance") {
		t.Errorf("the System page behind the alert does not show the pause")
	}
}
