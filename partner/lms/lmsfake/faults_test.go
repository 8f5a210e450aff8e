package lmsfake_test

import (
	"net"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

// Each fault reaches the client as the error a person must act on: a fault before the writes
// leaves the row alone, one after them leaves it changed, and the client cannot tell which, so
// every one of them is an unknown outcome.
func TestFaultsSurfaceAsUnknownOutcome(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		fault   lmsfake.Fault
		written bool
	}{
		{"down", lmsfake.Fault{Effect: lmsfake.FaultDown}, false},
		{"500 before", lmsfake.Fault{Effect: lmsfake.FaultServerError}, false},
		{"500 after", lmsfake.Fault{Effect: lmsfake.FaultServerError, AfterWrites: true}, true},
		{"504 after", lmsfake.Fault{Effect: lmsfake.FaultStatus, Status: 504, AfterWrites: true}, true},
		{"html page", lmsfake.Fault{Effect: lmsfake.FaultHTMLPage, AfterWrites: true}, true},
		{"garbage", lmsfake.Fault{Effect: lmsfake.FaultGarbage}, true},
		{"reset after", lmsfake.Fault{Effect: lmsfake.FaultConnectionReset, AfterWrites: true}, true},
		{"hang before", lmsfake.Fault{Effect: lmsfake.FaultHang}, false},
		{"hang after", lmsfake.Fault{Effect: lmsfake.FaultHang, AfterWrites: true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)

			id := b.registration("failed_permanent", reg{})
			tc.fault.Endpoint = lmsfake.EndpointTransition
			tc.fault.Times = 1
			if _, err := b.fake.AddFault(tc.fault); err != nil {
				t.Fatal(err)
			}
			_, err := b.client.WithTimeout(500*time.Millisecond).Transition(b.ctx, b.admin, id, lms.Cancel, "r")
			e := lmsErr(t, err)
			if e.Kind != lms.KindUnknownOutcome || !lms.IsOutcomeUnknown(err) {
				t.Errorf("kind = %s (%v), want unknownOutcome", e.Kind, e)
			}
			// The work of a call the client gave up on runs on, as in a server; wait for it.
			deadline := time.Now().Add(5 * time.Second)
			for tc.written && b.row(id).State != "cancelled" && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if got := b.row(id).State == "cancelled"; got != tc.written {
				t.Errorf("written = %v, want %v", got, tc.written)
			}
			if got := len(b.audits()) == 1; got != tc.written {
				t.Errorf("audit row written = %v, want %v", got, tc.written)
			}
			// Times: 1, so the next call goes through, and refuses: the row is already where the
			// first call put it, or is moved now.
			res, err := b.client.Transition(b.ctx, b.admin, id, lms.Cancel, "again")
			if err != nil {
				t.Fatalf("the call after the fault: %v", err)
			}
			if tc.written && (res.Outcome != lms.OutcomeRefused || res.Refusal != lms.RefusalAlreadyCancelled) {
				t.Errorf("retry after a landed call: %+v, want refused already_cancelled", res)
			}
			if !tc.written && res.Outcome != lms.OutcomeApplied {
				t.Errorf("retry after a call that never landed: %+v, want applied", res)
			}
		})
	}
}

func TestLatencyFaultDelaysButAnswers(t *testing.T) {
	t.Parallel()
	b := setup(t)

	id := b.registration("failed_permanent", reg{"needs_admin_attention": true})
	if _, err := b.fake.AddFault(lmsfake.Fault{Effect: lmsfake.FaultLatency, Delay: 300 * time.Millisecond, Endpoint: lmsfake.EndpointTransition}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := b.client.Transition(b.ctx, b.admin, id, lms.ClearAttention, "r")
	if err != nil || res.Outcome != lms.OutcomeApplied {
		t.Fatalf("%+v %v", res, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("answered in %v despite a 300 ms delay", d)
	}
	// The same delay past the client's limit is a timeout: unknown.
	_, err = b.client.WithTimeout(100*time.Millisecond).Transition(b.ctx, b.admin, id, lms.CheckNow, "r")
	if e := lmsErr(t, err); e.Kind != lms.KindUnknownOutcome {
		t.Errorf("kind = %s", e.Kind)
	}
}

func TestFaultScope(t *testing.T) {
	t.Parallel()
	b := setup(t)

	id := b.registration("failed_permanent", reg{"needs_admin_attention": true})
	fid, err := b.fake.AddFault(lmsfake.Fault{Effect: lmsfake.FaultServerError, Endpoint: lmsfake.EndpointPausePhase, Skip: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Another endpoint is untouched; the first matching call is skipped, the second fails.
	if _, err := b.client.Transition(b.ctx, b.admin, id, lms.ClearAttention, "r"); err != nil {
		t.Errorf("other endpoint: %v", err)
	}
	if _, err := b.client.PausePhase(b.ctx, b.admin, "verify", "r"); err != nil {
		t.Errorf("skipped call: %v", err)
	}
	if _, err := b.client.PausePhase(b.ctx, b.admin, "verify", "r"); !lms.IsOutcomeUnknown(err) {
		t.Errorf("faulted call: %v", err)
	}
	if fs := b.fake.Faults(); len(fs) != 1 || fs[0].Used != 1 {
		t.Errorf("faults = %+v", fs)
	}
	if !b.fake.RemoveFault(fid) || len(b.fake.Faults()) != 0 {
		t.Error("RemoveFault")
	}
	for _, bad := range []lmsfake.Fault{
		{Effect: "explode"}, {Effect: lmsfake.FaultLatency}, {Effect: lmsfake.FaultStatus, Status: 200},
		{Effect: lmsfake.FaultDown, AfterWrites: true}, {Effect: lmsfake.FaultHang, Endpoint: "nope"},
	} {
		if _, err := b.fake.AddFault(bad); err == nil {
			t.Errorf("AddFault(%+v) accepted", bad)
		}
	}
}

// An LMS that is not listening at all refuses the connection: nothing was sent.
func TestStoppedLMSIsNotSent(t *testing.T) {
	t.Parallel()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := lms.New("http://"+addr, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DismissAttention(t.Context(), "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002", "r")
	if e := lmsErr(t, err); e.Kind != lms.KindNotSent {
		t.Errorf("kind = %s", e.Kind)
	}
}
