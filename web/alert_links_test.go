package web_test

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views"
	"regdesk/views/i18n"
)

// addAnnas adds a registration of the bundle's student on its course.
func (b *testBundle) addAnnas(t *testing.T, r storetest.Registration) string {
	t.Helper()
	r.Student, r.Course = b.anna, b.course
	return storetest.AddRegistration(t, b.store, r)
}

// queueTotal is how many rows the queue page in body lists in all: the total on top of the list,
// 0 for an empty list.
func queueTotal(t *testing.T, body string) int {
	t.Helper()
	m := regexp.MustCompile(`data-testid="queue-range" data-total="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		if len(rowIDs(body)) != 0 {
			t.Fatalf("a list with rows has no total")
		}
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSuffix(m[1], "+"))
	if err != nil {
		t.Fatalf("total %q: %v", m[1], err)
	}
	return n
}

// Every alert about rows links to exactly the rows it counted, with the same number on top of the
// list (issue 27, defect 4): each rule fires on the fixture, beside rows the same list without
// the rule's conditions would show too, and its link's list is held to its count. The banner, the
// strip and the mails all link to the alert's path (web/alerts.go, views/mail.go).
func TestEveryAlertLinkListsWhatItCounted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	reg := func(r storetest.Registration) string { return b.addAnnas(t, r) }
	// Stuck in two states: ready_to_submit past 2 h, submitting past 15 min; one just inside.
	reg(storetest.Registration{State: "ready_to_submit", StateChangedAt: testNow.Add(-3 * time.Hour)})
	reg(storetest.Registration{State: "ready_to_submit", StateChangedAt: testNow.Add(-90 * time.Minute)})
	reg(storetest.Registration{State: "submitting", StateChangedAt: testNow.Add(-20 * time.Minute)})
	reg(storetest.Registration{State: "submitting", StateChangedAt: testNow.Add(-25 * time.Minute)})
	// Uncertain: setup's row waits for a lookup; this one was looked up after it was sent.
	sent := testNow.Add(-5 * time.Hour)
	looked := reg(storetest.Registration{State: "submission_uncertain", ErrorCode: "sisu_timeout", SubmittedAt: &sent, StateChangedAt: sent})
	b.addLookup(t, looked, sent.Add(time.Hour), b.support, lookupNotInSisu)
	// Rows that will escalate within a day and one that will later: awaiting verification since
	// sent, whose windows run out at their own times.
	for _, h := range []time.Duration{20, 10, 2} {
		at := testNow.Add(-h * time.Hour)
		reg(storetest.Registration{State: "awaiting_verification", SubmittedAt: &at, StateChangedAt: at, NextAttemptAt: testNow.Add(time.Hour),
			SubmittedAttainmentID: "hy-kur-" + strconv.Itoa(int(h))})
	}

	// Failed for good: setup's row and 19 more in the last day, one two days ago.
	for i := range 19 {
		reg(storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", StateChangedAt: testNow.Add(-time.Duration(i+1) * time.Hour)})
	}
	reg(storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", StateChangedAt: testNow.Add(-48 * time.Hour)})
	// Reversed by Sisu: one in the last hour, one that has moved on since, two three days ago.
	mis := reg(storetest.Registration{State: "misregistered", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Hour)})
	storetest.AddEvent(t, b.store, mis, testNow.Add(-time.Hour), "state_changed", "registered", "misregistered", "")
	moved := reg(storetest.Registration{State: "registered", StateChangedAt: testNow.Add(-time.Hour), SisuAttainmentID: "otm-again"})
	storetest.AddEvent(t, b.store, moved, testNow.Add(-3*time.Hour), "state_changed", "registered", "misregistered", "")
	for range 2 {
		old := reg(storetest.Registration{State: "misregistered", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-72 * time.Hour)})
		storetest.AddEvent(t, b.store, old, testNow.Add(-72*time.Hour), "state_changed", "registered", "misregistered", "")
	}

	facts, err := b.store.HealthFactsGet(ctx, testNow)
	if err != nil {
		t.Fatal(err)
	}
	alerts := schedule.Evaluate(facts, testNow)
	rowRules := map[schedule.AlertRule]bool{
		schedule.RuleStuckRegistrations: true, schedule.RuleNeedsPerson: true, schedule.RuleEscalatingSoon: true,
		schedule.RuleUncertainAwaitingLookup: true, schedule.RuleCourseNeedsPerson: true,
		schedule.RulePermanentFailuresAccumulating: true, schedule.RuleMisregistrationsDetected: true,
	}
	seen := map[schedule.AlertRule]bool{}
	for _, a := range alerts {
		if !rowRules[a.Rule] {
			continue
		}
		seen[a.Rule] = true
		if !strings.HasPrefix(a.Path, "/?") {
			t.Errorf("%s links to %s, not to a list of rows", a.Identity(), a.Path)
			continue
		}
		resp, body := b.get(t, a.Path, false)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: GET %s = %d", a.Identity(), a.Path, resp.StatusCode)
			continue
		}
		if got := queueTotal(t, body); got != a.Count {
			t.Errorf("%s counts %d, its link %s lists %d", a.Identity(), a.Count, a.Path, got)
		}
	}
	for r := range rowRules {
		if !seen[r] {
			t.Errorf("%s did not fire on the fixture: %+v", r, alerts)
		}
	}
}

// countedRows are the things the page of what an alert counted lists, and the total on top of it.
func countedRows(t *testing.T, body string) (total string, rows, links []string) {
	t.Helper()
	m := regexp.MustCompile(`data-testid="counted" data-rule="[^"]*" data-total="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no list of what was counted")
	}
	rows = regexp.MustCompile(`data-testid="counted-row"`).FindAllString(body, -1)
	for _, l := range regexp.MustCompile(`<tr data-testid="counted-row"><td><a href="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		links = append(links, strings.ReplaceAll(l[1], "&amp;", "&"))
	}
	return m[1], rows, links
}

// The alerts that count Suotar's calls and answers, completions or a week's time link to the page
// of what they counted (issue 27, defect 4): each fires on this fixture beside things just outside
// its window, and its page lists exactly its count, with the same number on top, each line opening
// its registration or student; the latency alert's page gives its summary's numbers.
func TestEveryCountedAlertLinksToWhatItCounted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	reg := func(r storetest.Registration) string { return b.addAnnas(t, r) }
	id := reg(storetest.Registration{State: "failed_retryable", StateChangedAt: testNow.Add(-time.Hour)})
	// Refused for our credentials: two calls in the hour (one of two items), one before it.
	for _, at := range []time.Duration{59 * time.Minute, 30 * time.Minute, 30 * time.Minute, 62 * time.Minute} {
		storetest.AddCall(t, b.store, id, storetest.Call{Kind: "retry_scheduled", RequestedAt: testNow.Add(-at), Answer: "refused", ErrorCode: "unauthorized"})
	}
	// Twelve items answered in the quarter hour, five failed on Sisu's side; one more before it.
	for i := range 12 {
		code := ""
		if i < 5 {
			code = "sisu_timeout"
		}
		storetest.AddCall(t, b.store, id, storetest.Call{RequestedAt: testNow.Add(-time.Duration(4+i/2) * time.Minute).Add(time.Duration(i) * time.Second), ErrorCode: code})
	}
	storetest.AddCall(t, b.store, id, storetest.Call{RequestedAt: testNow.Add(-16 * time.Minute), ErrorCode: "sisu_timeout"})
	// Then four calls that reached nobody, the newest calls of all.
	for i := 4; i >= 1; i-- {
		storetest.AddCall(t, b.store, id, storetest.Call{Kind: "retry_scheduled", RequestedAt: testNow.Add(-time.Duration(i) * 20 * time.Second),
			Answer: "unanswered", ErrorCode: "transport_error"})
	}
	// Passed completions without a row: two past the six hours' grace, one still inside it.
	for _, age := range []time.Duration{30 * time.Hour, 7 * time.Hour, 2 * time.Hour} {
		who := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Eino", LastName: "Leino"})
		storetest.LMSExecNoSync(t, b.store, `INSERT INTO course_module_completions (id, user_id, course_id, course_module_id, completion_date,
  completion_language, eligible_for_ects, email, grade, passed, prerequisite_modules_completed, register_credits_via_suotar)
VALUES ($1, $2, $3, $4, $5, 'fi-FI', true, $6, 5, true, true, true)`,
			storetest.NewID(), who.ID, b.course.ID, b.course.ModuleID, testNow.Add(-age), who.Email)
	}
	// Sisu confirmed this week's registrations in ten hours, last week's in one.
	for i, week := range []time.Duration{0, 0, 0, 7 * 24 * time.Hour, 7 * 24 * time.Hour} {
		took := 10 * time.Hour
		if week > 0 {
			took = time.Hour
		}
		confirmed := testNow.Add(-week - time.Duration(i+1)*time.Hour)
		sent := confirmed.Add(-took)
		reg(storetest.Registration{State: "registered", StateChangedAt: confirmed, SubmittedAt: &sent, SubmittedAttainmentID: "hy-lat-" + strconv.Itoa(i)})
	}

	facts, err := b.store.HealthFactsGet(ctx, testNow)
	if err != nil {
		t.Fatal(err)
	}
	want := map[schedule.AlertRule]int{schedule.RuleCredentialsRejected: 2, schedule.RuleStudyRegistryUnreachable: 4,
		schedule.RuleSisuUnavailable: 5, schedule.RuleCompletionsNeverEntered: 2}
	seen := map[schedule.AlertRule]bool{}
	for _, a := range schedule.Evaluate(facts, testNow) {
		if a.Path != schedule.CountedPath(a.Rule) {
			continue
		}
		seen[a.Rule] = true
		resp, body := b.get(t, a.Path, false)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: GET %s = %d", a.Rule, a.Path, resp.StatusCode)
			continue
		}
		_, summary, _ := views.AlertText(i18n.For(i18n.EN), a)
		if !strings.Contains(body, html.EscapeString(summary)) {
			t.Errorf("%s: its page does not say %q", a.Rule, summary)
		}
		if a.Rule == schedule.RuleCredentialsRejected && !strings.Contains(body, "importing attainments (import_attainments)") {
			t.Errorf("%s: its calls' endpoint is not named in words, its code after them", a.Rule)
		}
		total, rows, links := countedRows(t, body)
		if n, counted := want[a.Rule]; counted {
			if a.Count != n {
				t.Errorf("%s counts %d on the fixture, want %d", a.Rule, a.Count, n)
			}
			if total != strconv.Itoa(a.Count) || len(rows) != a.Count {
				t.Errorf("%s counts %d; its page says %s on top and lists %d", a.Rule, a.Count, total, len(rows))
			}
		} else if len(rows) != 5-2 {
			t.Errorf("%s: its page lists %d confirmations of this week, want 3", a.Rule, len(rows))
		}
		if len(links) != len(rows) {
			t.Errorf("%s: %d of %d lines open something", a.Rule, len(links), len(rows))
		}
		if len(links) > 0 {
			if resp, _ := b.get(t, links[0], false); resp.StatusCode != http.StatusOK {
				t.Errorf("%s: its first line's link %s = %d", a.Rule, links[0], resp.StatusCode)
			}
		}
	}
	for _, r := range store.CountedRules {
		if !seen[r] {
			t.Errorf("%s did not fire on the fixture, or does not link to what it counted", r)
		}
	}
	// A rule that counts rows has no such page; nor has a made-up one.
	for _, p := range []string{schedule.CountedPath(schedule.RuleNeedsPerson), "/alerts/counted/no_such_rule"} {
		if resp, _ := b.get(t, p, false); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, resp.StatusCode)
		}
	}
}

// A paused phase's alert counts the rows it holds in the states it owns and links to exactly
// those (issue 27, defect 4): the queue's list of them has the same number on top. A superseded
// attempt in such a state is history, held by nothing.
func TestPausedPhaseAlertListsTheRowsItHolds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	reg := func(r storetest.Registration) string { return b.addAnnas(t, r) }
	storetest.LMSExecNoSync(t, b.store, `UPDATE credit_registration_phase_state SET last_heartbeat_at = $1, paused_at = $2, paused_by_user_id = $3,
  pause_reason = 'Suotar maintenance' WHERE phase = 'preconditions'`, testNow.Add(-time.Hour), testNow.Add(-40*time.Minute), b.admin.LMSUserID)
	newer := reg(storetest.Registration{State: "pending", StateChangedAt: testNow.Add(-10 * time.Minute), AttemptNumber: 2})
	reg(storetest.Registration{State: "failed_retryable", StateChangedAt: testNow.Add(-time.Hour), SupersededByID: newer})
	reg(storetest.Registration{State: "failed_retryable", StateChangedAt: testNow.Add(-2 * time.Hour)})
	reg(storetest.Registration{State: "blocked", StateChangedAt: testNow.Add(-3 * time.Hour)})

	facts, err := b.store.HealthFactsGet(ctx, testNow)
	if err != nil {
		t.Fatal(err)
	}
	var paused *schedule.Alert
	for _, a := range schedule.Evaluate(facts, testNow) {
		if a.Rule == schedule.RulePhasePaused && a.Key == "preconditions" {
			paused = &a
		}
	}
	if paused == nil {
		t.Fatal("the paused phase raised no alert")
	}
	// Setup's rows in those states, and the three live ones here.
	var want int
	if err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM regdesk.ledger_mirror WHERE deleted_at IS NULL AND superseded_by_id IS NULL
  AND state IN ('pending', 'failed_retryable', 'blocked')`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if paused.Count != want || want < 3 {
		t.Errorf("phase_paused counts %d, the ledger holds %d live rows in the phase's states", paused.Count, want)
	}
	resp, body := b.get(t, paused.Path, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", paused.Path, resp.StatusCode)
	}
	if got := queueTotal(t, body); got != paused.Count {
		t.Errorf("phase_paused counts %d, its link %s lists %d", paused.Count, paused.Path, got)
	}
}
