package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// TestHealthFactsGetCountsEachRule builds a ledger where each rule has something to count just
// inside its window and something just outside, and checks the counts.
func TestHealthFactsGetCountsEachRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := storetest.Now()
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Java", Code: "TKT1"})
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "A", LastName: "B", Email: "a@example.invalid"})
	reg := func(state string, changed time.Time, mod func(*storetest.Registration)) string {
		r := storetest.Registration{Student: student, Course: course, State: state, StateChangedAt: changed}
		if mod != nil {
			mod(&r)
		}
		return storetest.AddRegistration(t, st, r)
	}
	// Calls: an answered one 10 minutes ago, then three unanswered; a credential rejection 59
	// minutes ago and one 61 minutes ago (outside).
	id := reg("failed_retryable", now.Add(-time.Hour), nil)
	storetest.AddCall(t, st, id, storetest.Call{RequestedAt: now.Add(-10 * time.Minute)})
	for i := 3; i >= 1; i-- {
		storetest.AddCall(t, st, id, storetest.Call{Kind: "retry_scheduled", RequestedAt: now.Add(-time.Duration(i) * time.Minute),
			Answer: "unanswered", ErrorCode: "transport_error"})
	}
	storetest.AddCall(t, st, id, storetest.Call{Kind: "retry_scheduled", RequestedAt: now.Add(-59 * time.Minute), Answer: "refused", ErrorCode: "unauthorized"})
	storetest.AddCall(t, st, id, storetest.Call{Kind: "retry_scheduled", RequestedAt: now.Add(-62 * time.Minute), Answer: "refused", ErrorCode: "unauthorized"})
	// Items: 4 answered in the window, 2 of them blamed on Sisu; one blamed 16 minutes ago.
	for i, code := range []string{"", "", "sisu_timeout", "service_temporarily_unavailable"} {
		storetest.AddCall(t, st, id, storetest.Call{RequestedAt: now.Add(-time.Duration(5+i) * time.Minute), ErrorCode: code})
	}
	storetest.AddCall(t, st, id, storetest.Call{RequestedAt: now.Add(-16 * time.Minute), ErrorCode: "sisu_timeout"})

	// Stuck: ready_to_submit past 2 h, and one just inside.
	reg("ready_to_submit", now.Add(-3*time.Hour), nil)
	reg("ready_to_submit", now.Add(-90*time.Minute), nil)
	// Ended within the day: one registered, one failed for good; and one ended two days ago.
	reg("registered", now.Add(-time.Hour), func(r *storetest.Registration) { s := now.Add(-5 * time.Hour); r.SubmittedAt = &s })
	reg("failed_permanent", now.Add(-2*time.Hour), nil)
	reg("failed_permanent", now.Add(-48*time.Hour), nil)
	// A misregistration 3 hours ago.
	mis := reg("misregistered", now.Add(-3*time.Hour), nil)
	storetest.AddEvent(t, st, mis, now.Add(-3*time.Hour), "state_changed", "registered", "misregistered", "")
	// An uncertain row sent 2 hours ago, never looked up: it needs a person (outcome_uncertain).
	sent := now.Add(-2 * time.Hour)
	reg("submission_uncertain", sent, func(r *storetest.Registration) { r.SubmittedAt = &sent })

	f, err := st.HealthFactsGet(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if f.CredentialRejections.Count != 1 {
		t.Errorf("credential rejections = %+v, want 1 (one is outside the hour)", f.CredentialRejections)
	}
	if f.UnreachableRun.Count != 3 || f.UnreachableRun.LastAt == nil || !f.UnreachableRun.LastAt.Equal(now.Add(-time.Minute+time.Second)) {
		t.Errorf("unreachable run = %+v, want the 3 newest calls", f.UnreachableRun)
	}
	if f.SisuItems != 5 || f.SisuBlamed != 2 {
		// 4 items plus the answered call before the run.
		t.Errorf("sisu items = %d, blamed %d; want 5 and 2", f.SisuItems, f.SisuBlamed)
	}
	var stuckReady int
	for _, s := range f.Stuck {
		if s.State == schedule.StateReadyToSubmit {
			stuckReady = s.Count
		}
	}
	if stuckReady != 1 {
		t.Errorf("stuck = %+v, want one ready_to_submit row", f.Stuck)
	}
	if f.Terminal != 2 || f.FailedPermanent != 1 || f.Finished != 2 {
		t.Errorf("terminal %d, failed %d, finished %d; want 2, 1, 2", f.Terminal, f.FailedPermanent, f.Finished)
	}
	if f.Misregistrations.Count != 1 {
		t.Errorf("misregistrations = %+v", f.Misregistrations)
	}
	if f.LatencyThisWeek == nil || *f.LatencyThisWeek != 4*time.Hour || f.LatencyLastWeek != nil {
		t.Errorf("latency = %v, %v; want 4h and none", f.LatencyThisWeek, f.LatencyLastWeek)
	}
	if f.UncertainNotLookedUp.Count != 1 {
		t.Errorf("uncertain not looked up = %+v", f.UncertainNotLookedUp)
	}
	found := map[schedule.Reason]int{}
	for _, rc := range f.NeedsPerson {
		found[rc.Reason] = rc.Count
	}
	if found[schedule.ReasonOutcomeUncertain] != 1 || found[schedule.ReasonMisregistered] != 1 {
		t.Errorf("needs person = %+v", f.NeedsPerson)
	}
	if len(f.Courses) != 1 || f.Courses[0].CourseID != course.ID || f.Courses[0].Count < 2 {
		t.Errorf("courses = %+v", f.Courses)
	}
	// The uncertain row escalates a day after sending: within the next 24 h.
	soon := 0
	for _, at := range f.EscalationsAt {
		if at.Equal(sent.Add(schedule.UncertainAdminAfter)) {
			soon++
		}
	}
	if soon != 0 {
		// It already needs a person (outcome_uncertain), so it is not among the rows that escalate.
		t.Errorf("escalations = %v: the uncertain row already needs a person", f.EscalationsAt)
	}
	alerts := schedule.Evaluate(f, now)
	rules := map[schedule.AlertRule]bool{}
	for _, a := range alerts {
		rules[a.Rule] = true
	}
	for _, r := range []schedule.AlertRule{schedule.RuleCredentialsRejected, schedule.RuleStudyRegistryUnreachable,
		schedule.RuleStuckRegistrations, schedule.RuleMisregistrationsDetected, schedule.RuleNeedsPerson, schedule.RuleUncertainAwaitingLookup} {
		if !rules[r] {
			t.Errorf("%s did not fire on these facts: %+v", r, alerts)
		}
	}
}

func alertOf(rule schedule.AlertRule, sev schedule.Severity, n int) schedule.Alert {
	return schedule.Alert{Rule: rule, Severity: sev, Count: n, Path: "/"}
}

// alertApply applies found at at as the alerting service does: Begin, AlertApply, the mails
// mails returns for the changes written to the outbox in the same transaction, Commit.
func alertApply(ctx context.Context, st *store.Store, at time.Time, found []schedule.Alert, mails func([]store.AlertChange) []store.OutboxMail) ([]store.AlertChange, error) {
	tx, err := st.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	changes, err := tx.AlertApply(ctx, at, found)
	if err != nil {
		return nil, err
	}
	if mails != nil {
		for _, m := range mails(changes) {
			if _, err := tx.OutboxInsert(ctx, m, at); err != nil {
				return nil, err
			}
		}
	}
	return changes, tx.Commit(ctx)
}

// TestAlertApplyFiresUpdatesClears: an alert fires once, stays one row while it keeps firing
// (taking the new numbers and its peak), reminds after a day, and clears; the mails written in the
// same transaction reach the outbox once per key.
func TestAlertApplyFiresUpdatesClears(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := storetest.Now()
	var kinds []string
	mails := func(ch []store.AlertChange) []store.OutboxMail {
		var out []store.OutboxMail
		for _, c := range ch {
			kinds = append(kinds, string(c.Kind)+":"+c.Alert.Rule)
			out = append(out, store.OutboxMail{DedupeKey: string(c.Kind) + "/" + c.Alert.ID, Kind: store.MailAlertFired, To: "x@example.invalid",
				AlertID: c.Alert.ID, MessageID: "<" + string(c.Kind) + c.Alert.ID + "@t>", Subject: "s", Text: "t", HTML: "h"})
		}
		return out
	}
	sync := func(at time.Time, found ...schedule.Alert) {
		t.Helper()
		if _, err := alertApply(ctx, st, at, found, mails); err != nil {
			t.Fatal(err)
		}
	}
	sync(now, alertOf(schedule.RulePipelineIdle, schedule.SeverityWarning, 30))
	sync(now.Add(time.Minute), alertOf(schedule.RulePipelineIdle, schedule.SeverityWarning, 40))
	sync(now.Add(2*time.Minute), alertOf(schedule.RulePipelineIdle, schedule.SeverityWarning, 35))
	firing, err := st.AlertListFiring(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(firing) != 1 || firing[0].Count != 35 || firing[0].PeakCount != 40 || !firing[0].FiredAt.Equal(now) ||
		!firing[0].LastSeenAt.Equal(now.Add(2*time.Minute)) {
		t.Fatalf("firing = %+v", firing)
	}
	sync(now.Add(24*time.Hour), alertOf(schedule.RulePipelineIdle, schedule.SeverityWarning, 35))
	sync(now.Add(24*time.Hour+time.Minute), alertOf(schedule.RulePipelineIdle, schedule.SeverityWarning, 35))
	sync(now.Add(25 * time.Hour))
	sync(now.Add(26 * time.Hour))
	want := []string{"fired:pipeline_idle", "reminder:pipeline_idle", "cleared:pipeline_idle"}
	if len(kinds) != len(want) || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
		t.Fatalf("changes = %q, want %q", kinds, want)
	}
	hist, err := st.AlertListSince(ctx, now.Add(-time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].ClearedAt == nil || !hist[0].ClearedAt.Equal(now.Add(25*time.Hour)) {
		t.Fatalf("history = %+v", hist)
	}
	stats, err := st.OutboxStatsGet(ctx)
	if err != nil || stats.Waiting != 3 {
		t.Fatalf("outbox = %+v, %v; want 3 waiting", stats, err)
	}
}

// TestAlertApplyOneInstanceAtATime: evaluations racing on one database apply once each; one that
// finds the lock held writes nothing and says so.
func TestAlertApplyOneInstanceAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := storetest.Now()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = alertApply(ctx, st, now, []schedule.Alert{alertOf(schedule.RulePipelineIdle, schedule.SeverityWarning, 30)}, nil)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, store.ErrBusy) {
			t.Fatal(err)
		}
	}
	hist, err := st.AlertListSince(ctx, now.Add(-time.Hour), 10)
	if err != nil || len(hist) != 1 {
		t.Fatalf("alerts = %+v, %v; want exactly one", hist, err)
	}
}

// TestAlertApplyHoldsTheLockUntilCommit: the evaluation lock AlertApply takes is held by the
// caller's transaction while it composes and writes the mails, not only while AlertApply runs: a
// second instance meanwhile is ErrBusy and writes nothing; after the commit it evaluates.
func TestAlertApplyHoldsTheLockUntilCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := storetest.Now()
	first, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Rollback(ctx) }()
	if _, err := first.AlertApply(ctx, now, []schedule.Alert{alertOf(schedule.RulePipelineIdle, schedule.SeverityWarning, 30)}); err != nil {
		t.Fatal(err)
	}
	if _, err := alertApply(ctx, st, now, []schedule.Alert{alertOf(schedule.RuleMisregistrationsDetected, schedule.SeverityWarning, 1)}, nil); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("a second evaluation while the first's transaction is open = %v, want ErrBusy", err)
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	changes, err := alertApply(ctx, st, now.Add(time.Minute), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Kind != schedule.AlertCleared || changes[0].Alert.Rule != string(schedule.RulePipelineIdle) {
		t.Fatalf("after the commit: changes = %+v, want pipeline_idle cleared (and nothing of the busy one's)", changes)
	}
}

// TestOutboxClaimBacksOffAndRecordsAttempts: a failed mail waits the submit backoff, each attempt
// is recorded, and a claimed mail is not claimed again until its lease passes.
func TestOutboxClaimBacksOffAndRecordsAttempts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := storetest.Now()
	if _, err := st.OutboxInsert(ctx, store.OutboxMail{DedupeKey: "k", Kind: store.MailDigest, To: "a@example.invalid", MessageID: "<m@t>",
		Subject: "s", Text: "t", HTML: "h"}, now); err != nil {
		t.Fatal(err)
	}
	again, err := st.OutboxInsert(ctx, store.OutboxMail{DedupeKey: "k", Kind: store.MailDigest, To: "a@example.invalid", MessageID: "<m2@t>"}, now)
	if err != nil || again {
		t.Fatalf("second insert of one key = %v, %v", again, err)
	}
	item, err := st.OutboxClaim(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.OutboxClaim(ctx, now); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second claim = %v, want ErrNotFound while the lease holds", err)
	}
	if err := st.OutboxFailed(ctx, item, now, "connection refused"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.OutboxClaim(ctx, now.Add(schedule.SubmitBaseBackoff-time.Second)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("claim before the backoff = %v", err)
	}
	item, err = st.OutboxClaim(ctx, now.Add(schedule.SubmitBaseBackoff))
	if err != nil || item.AttemptCount != 2 {
		t.Fatalf("claim after the backoff = %+v, %v", item, err)
	}
	if err := st.OutboxSent(ctx, item, now.Add(schedule.SubmitBaseBackoff)); err != nil {
		t.Fatal(err)
	}
	var attempts, ok int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE ok) FROM mail_attempts`).Scan(&attempts, &ok); err != nil {
		t.Fatal(err)
	}
	if attempts != 2 || ok != 1 {
		t.Errorf("attempts = %d (%d ok), want 2 (1 ok)", attempts, ok)
	}
}

// TestAlertApplySeverityRise: an alert whose severity rises past the worst it reached is a "rose"
// change (those who mail at that severity now hear of it); falling back and rising again to the
// same peak is not.
func TestAlertApplySeverityRise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := storetest.Now()
	var kinds []schedule.AlertChange
	for i, sev := range []schedule.Severity{schedule.SeverityWarning, schedule.SeverityCritical, schedule.SeverityWarning, schedule.SeverityCritical} {
		changes, err := alertApply(ctx, st, now.Add(time.Duration(i)*time.Minute), []schedule.Alert{alertOf(schedule.RuleStuckRegistrations, sev, 10)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			kinds = append(kinds, c.Kind)
		}
	}
	if len(kinds) != 2 || kinds[0] != schedule.AlertFired || kinds[1] != schedule.AlertRose {
		t.Fatalf("changes = %q, want fired then one rose", kinds)
	}
	firing, err := st.AlertListFiring(ctx)
	if err != nil || len(firing) != 1 || firing[0].PeakSeverity != "critical" || firing[0].Severity != "critical" {
		t.Fatalf("firing = %+v, %v", firing, err)
	}
}
