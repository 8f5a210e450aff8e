package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store/storetest"
)

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
	reg := func(r storetest.Registration) string {
		r.Student, r.Course = b.anna, b.course
		return storetest.AddRegistration(t, b.store, r)
	}
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
