package lmsfake_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

func lmsErr(t *testing.T, err error) *lms.Error {
	t.Helper()
	var e *lms.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *lms.Error", err)
	}
	return e
}

func TestResubmitAppliesAsTransitionDoes(t *testing.T) {
	t.Parallel()
	b := setup(t)

	other := b.registration("registered", reg{})
	id := b.registration("misregistered", reg{
		"needs_admin_attention": true, "error_code": "misregistered", "submitted_at": b.now.Add(-72 * time.Hour),
		"enrolment_check_step": 2, "enrolment_check_due_at": b.now.Add(time.Hour), "enrolment_check_anchor_at": b.now.Add(-24 * time.Hour),
	})
	b.exec(`UPDATE credit_registrations SET pending_superseded_by_id = $1 WHERE id = $2`, id, other)

	res, err := b.client.Transition(b.ctx, b.admin, id, lms.Resubmit, "  Sisu voided it; send again  ")
	if err != nil {
		t.Fatal(err)
	}
	if want := (lms.TransitionResult{Outcome: lms.OutcomeApplied, State: lms.StateReadyToSubmit}); res != want {
		t.Errorf("answer = %+v, want %+v", res, want)
	}
	r := b.row(id)
	if r.State != "ready_to_submit" || r.NeedsAdminAttention || r.ErrorCode != nil || r.TerminalAt != nil {
		t.Errorf("row = %+v, want ready_to_submit, flag down, no error code, not terminal", r)
	}
	// The LMS's clocks are the fake's: state_entered_at is clock_timestamp() on it.
	if r.StateEnteredAt.Before(b.now) || r.StateEnteredAt.After(b.now.Add(time.Minute)) {
		t.Errorf("state_entered_at = %v, want just after %v", r.StateEnteredAt, b.now)
	}
	if !r.StateChangedAt.Equal(r.StateEnteredAt) || !r.PhaseStartedAt.Equal(r.StateEnteredAt) {
		t.Errorf("state_changed_at %v and phase_started_at %v did not move with the state (entered %v)", r.StateChangedAt, r.PhaseStartedAt, r.StateEnteredAt)
	}
	if !r.NextAttemptAt.Equal(b.now) {
		t.Errorf("next_attempt_at = %v, want now %v", r.NextAttemptAt, b.now)
	}
	// ready_to_submit keeps the enrolment schedule.
	if r.CheckStep == nil || *r.CheckStep != 2 || r.CheckDueAt == nil {
		t.Errorf("the schedule was not kept: step %v due %v", r.CheckStep, r.CheckDueAt)
	}
	// The regrade's old row waiting on this one is live again: ready_to_submit abandons.
	if o := b.row(other); o.PendingSupersededByID != nil || o.SupersededByID != nil {
		t.Errorf("old row: pending %s superseded %s, want both cleared", deref(o.PendingSupersededByID), deref(o.SupersededByID))
	}

	evs := b.events(id)
	if len(evs) != 1 {
		t.Fatalf("%d events, want exactly one", len(evs))
	}
	if e := evs[0]; e.Kind != "admin_action" || deref(e.From) != "misregistered" || deref(e.To) != "ready_to_submit" ||
		deref(e.Message) != "Sisu voided it; send again" || deref(e.Actor) != b.admin {
		t.Errorf("event = %+v %s→%s %q by %s", e, deref(e.From), deref(e.To), deref(e.Message), deref(e.Actor))
	}
	as := b.audits()
	if len(as) != 1 {
		t.Fatalf("%d audit rows, want one", len(as))
	}
	a := as[0]
	if a.Action != "transition_item" || a.TargetKind != "credit_registration" || deref(a.TargetID) != id ||
		a.Actor != b.admin || a.Role != "global_admin" || deref(a.Reason) != "Sisu voided it; send again" ||
		deref(a.Before) != "misregistered" || deref(a.After) != "ready_to_submit" || a.Affected == nil || *a.Affected != 1 ||
		a.Details["outcome"] != "applied" || len(a.Details) != 1 {
		t.Errorf("audit row = %+v (details %v)", a, a.Details)
	}
}

func TestCancelClearsTheLeaseAndTheSchedule(t *testing.T) {
	t.Parallel()
	b := setup(t)

	id := b.registration("no_usable_enrolment", reg{
		"enrolment_check_claimed_until": b.now.Add(5 * time.Minute), "no_usable_enrolment_since": b.now.Add(-10 * 24 * time.Hour),
		"enrolment_check_step": 1, "enrolment_check_due_at": b.now.Add(time.Hour), "enrolment_check_anchor_at": b.now.Add(-24 * time.Hour),
		"enrolment_check_source": "student_request",
	})
	res, err := b.client.Transition(b.ctx, b.admin, id, lms.Cancel, "student withdrew")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != lms.OutcomeApplied || res.State != lms.StateCancelled {
		t.Fatalf("answer = %+v", res)
	}
	r := b.row(id)
	if r.ClaimedUntil != nil {
		t.Errorf("lease %v was not cleared", r.ClaimedUntil)
	}
	if r.CheckStep != nil || r.CheckDueAt != nil || r.CheckAnchorAt != nil || r.NoUsableSince != nil || r.CheckSource != "schedule" {
		t.Errorf("schedule not cleared: %+v", r)
	}
	if r.TerminalAt == nil || !r.TerminalAt.Equal(b.now) {
		t.Errorf("terminal_at = %v, want %v", r.TerminalAt, b.now)
	}
	// cancelled is terminal: not made due, but transition() leaves next_attempt_at at now.
	if !r.NextAttemptAt.Equal(b.now) {
		t.Errorf("next_attempt_at = %v", r.NextAttemptAt)
	}
	if n := len(b.events(id)); n != 1 {
		t.Errorf("%d events, want 1", n)
	}
}

func TestCheckNowMakesAParkedRowDueByAdminRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)

	id := b.registration("no_usable_enrolment", reg{"needs_admin_attention": true, "next_attempt_at": b.now.Add(6 * time.Hour)})
	res, err := b.client.Transition(b.ctx, b.admin, id, lms.CheckNow, "student says they enrolled")
	if err != nil {
		t.Fatal(err)
	}
	if want := (lms.TransitionResult{Outcome: lms.OutcomeApplied, State: lms.StateNoUsableEnrolment, NeedsAdminAttention: true}); res != want {
		t.Errorf("answer = %+v, want %+v", res, want)
	}
	r := b.row(id)
	if !r.NextAttemptAt.Equal(b.now) || r.CheckSource != "admin_request" {
		t.Errorf("next_attempt_at %v source %s, want now and admin_request", r.NextAttemptAt, r.CheckSource)
	}
	if r.State != "no_usable_enrolment" || !r.StateEnteredAt.Equal(b.now.Add(-time.Hour)) {
		t.Errorf("check now moved the state: %+v", r)
	}
	evs := b.events(id)
	if len(evs) != 1 || evs[0].From != nil || evs[0].To != nil || deref(evs[0].Actor) != b.admin {
		t.Errorf("events = %+v", evs)
	}
	if as := b.audits(); len(as) != 1 || deref(as[0].Before) != "no_usable_enrolment" || deref(as[0].After) != "no_usable_enrolment" {
		t.Errorf("audit = %+v", as)
	}
}

func TestClearAttention(t *testing.T) {
	t.Parallel()
	b := setup(t)

	up := b.registration("failed_permanent", reg{"needs_admin_attention": true})
	down := b.registration("failed_permanent", reg{})

	res, err := b.client.Transition(b.ctx, b.admin, up, lms.ClearAttention, "looked at it")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != lms.OutcomeApplied || res.NeedsAdminAttention || b.row(up).NeedsAdminAttention {
		t.Errorf("clearing a raised flag: %+v, row flag %v", res, b.row(up).NeedsAdminAttention)
	}
	if n := len(b.events(up)); n != 1 {
		t.Errorf("%d events, want 1", n)
	}

	res, err = b.client.Transition(b.ctx, b.admin, down, lms.ClearAttention, "looked at it")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != lms.OutcomeNoChange {
		t.Errorf("clearing a lowered flag: %+v, want no_change", res)
	}
	// no_change writes no event, but the LMS still records the action.
	if n := len(b.events(down)); n != 0 {
		t.Errorf("%d events for no_change, want 0", n)
	}
	as := b.audits()
	if len(as) != 2 || as[1].Details["outcome"] != "no_change" {
		t.Errorf("audit rows = %+v", as)
	}
}

func TestSingleRowRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)

	sent := b.now.Add(-2 * time.Hour)
	tests := []struct {
		name    string
		state   string
		cols    reg
		action  lms.Action
		refusal lms.RefusalCode
	}{
		{"registered", "registered", reg{}, lms.Resubmit, lms.RefusalAlreadySucceeded},
		{"duplicate cancel", "duplicate", reg{}, lms.Cancel, lms.RefusalAlreadySucceeded},
		{"awaiting verification", "awaiting_verification", reg{"submitted_at": sent}, lms.Resubmit, lms.RefusalAlreadySubmitted},
		{"cancelled after sending", "cancelled", reg{"submitted_at": sent}, lms.Resubmit, lms.RefusalAlreadySubmitted},
		{"uncertain too recent", "submission_uncertain", reg{"submitted_at": b.now.Add(-23 * time.Hour)}, lms.Resubmit, lms.RefusalSubmissionUncertainTooRecent},
		{"pending at Suotar", "failed_permanent", reg{"resubmit_not_before": b.now.Add(time.Hour)}, lms.Resubmit, lms.RefusalSubmissionPending},
		{"still in pipeline", "pending", reg{}, lms.Resubmit, lms.RefusalStillInPipeline},
		{"parked", "no_usable_enrolment", reg{}, lms.Resubmit, lms.RefusalStillInPipeline},
		{"cancel submitting", "submitting", reg{"submitted_at": sent}, lms.Cancel, lms.RefusalAlreadySubmitted},
		{"cancel awaiting", "partially_registered", reg{"submitted_at": sent}, lms.Cancel, lms.RefusalAwaitingConfirmation},
		{"cancel cancelled", "cancelled", reg{}, lms.Cancel, lms.RefusalAlreadyCancelled},
		{"check pending", "pending", reg{}, lms.CheckNow, lms.RefusalNothingToCheck},
		{"check registered", "registered", reg{}, lms.CheckNow, lms.RefusalNothingToCheck},
	}
	for _, tc := range tests {
		id := b.registration(tc.state, tc.cols)
		before := b.row(id)
		res, err := b.client.Transition(b.ctx, b.admin, id, tc.action, "try")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if res.Outcome != lms.OutcomeRefused || res.Refusal != tc.refusal || string(res.State) != tc.state {
			t.Errorf("%s: answer %+v, want refused %s in %s", tc.name, res, tc.refusal, tc.state)
		}
		if after := b.row(id); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: a refusal changed the row", tc.name)
		}
	}
	if w := b.writes(); w != [3]int{} {
		t.Errorf("refusals wrote events, audit rows or dismissals: %v", w)
	}
}

// A person looking at one row may resubmit or cancel an uncertain one once Suotar no longer holds
// it as pending: the single-row strictness is Any.
func TestSingleRowTakesUncertainRows(t *testing.T) {
	t.Parallel()
	b := setup(t)

	old := b.registration("submission_uncertain", reg{"submitted_at": b.now.Add(-25 * time.Hour), "needs_admin_attention": true})
	res, err := b.client.Transition(b.ctx, b.admin, old, lms.Resubmit, "nothing in Sisu")
	if err != nil || res.Outcome != lms.OutcomeApplied {
		t.Errorf("resubmit an old uncertain row: %+v %v", res, err)
	}
	fresh := b.registration("submission_uncertain", reg{"submitted_at": b.now.Add(-time.Hour)})
	res, err = b.client.Transition(b.ctx, b.admin, fresh, lms.Cancel, "duplicate enrolment")
	if err != nil || res.Outcome != lms.OutcomeApplied || res.State != lms.StateCancelled {
		t.Errorf("cancel a fresh uncertain row: %+v %v", res, err)
	}
}

func TestTransitionErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)

	later := b.registration("ready_to_submit", reg{})
	superseded := b.registration("registered", reg{"superseded_by_id": later, "superseded_at": b.now.Add(-time.Hour)})
	live := b.registration("failed_permanent", reg{})

	_, err := b.client.Transition(b.ctx, b.admin, superseded, lms.Resubmit, "r")
	if e := lmsErr(t, err); e.Kind != lms.KindRejected || e.Rejection != lms.RejectionSuperseded || e.HTTPStatus != 400 {
		t.Errorf("superseded: %v", e)
	}
	_, err = b.client.Transition(b.ctx, b.admin, "00000000-0000-4000-8000-000000000001", lms.Cancel, "r")
	if e := lmsErr(t, err); e.Kind != lms.KindNotFound || e.Message == "" {
		t.Errorf("missing row: %v", e)
	}
	// A blank reason is the LMS's to refuse too: sent past the client's own check.
	status, body := b.post("registrations/"+live+"/transition", b.admin, `{"action":{"kind":"state_move","to_state":"cancelled"},"reason":"   "}`)
	if status != 400 || body["message"] != "A reason is required." {
		t.Errorf("blank reason: %d %v", status, body)
	}
	// A path id that is not a uuid is actix's 404.
	if status, _ := b.post("registrations/not-a-uuid/transition", b.admin, `{"action":{"kind":"check_now"},"reason":"r"}`); status != 404 {
		t.Errorf("bad path id: %d, want 404", status)
	}
	for _, body := range []string{
		`{"action":{"kind":"state_move","to_state":"registered"},"reason":"r"}`,
		`{"action":{"kind":"mark_registered"},"reason":"r"}`,
		`{"action":{"kind":"state_move"},"reason":"r"}`,
		`{"reason":"r"}`,
		`{"action":{"kind":"check_now"}}`,
		`{"action":{"kind":"check_now"},"reason":null}`,
		`[1]`,
	} {
		if status, _ := b.post("registrations/"+live+"/transition", b.admin, body); status != 400 {
			t.Errorf("body %s: %d, want 400", body, status)
		}
	}
	if w := b.writes(); w != [3]int{} {
		t.Errorf("refused calls wrote %v", w)
	}
	if r := b.row(live); r.State != "failed_permanent" {
		t.Errorf("row moved: %s", r.State)
	}
}

// The LMS reads the row unlocked, judges it, and only then locks it: a row another writer moved
// in between is refused by transition()'s expected_from_state, and nothing is written.
func TestTransitionRefusesARowThatMovedOn(t *testing.T) {
	t.Parallel()
	b := setup(t)

	id := b.registration("submission_uncertain", reg{"submitted_at": b.now.Add(-30 * time.Hour)})
	lmsfake.SetBeforeWrite(b.fake, func(ctx context.Context, reg string) {
		b.exec(`UPDATE credit_registrations SET state = 'awaiting_verification' WHERE id = $1`, reg)
	})
	_, err := b.client.Transition(b.ctx, b.admin, id, lms.Resubmit, "nothing in Sisu")
	e := lmsErr(t, err)
	if e.Kind != lms.KindRejected || e.Rejection != lms.RejectionMovedOn {
		t.Errorf("moved on: %v (rejection %s)", e, e.Rejection)
	}
	if w := b.writes(); w != [3]int{} {
		t.Errorf("a refused move wrote %v", w)
	}
	if r := b.row(id); r.State != "awaiting_verification" {
		t.Errorf("state = %s", r.State)
	}
}
