package schedule

import (
	"slices"
	"testing"
)

func TestReasonSetBitsFollowReasons(t *testing.T) {
	named := map[Reason]ReasonSet{
		ReasonOutcomeUncertain: bitOutcomeUncertain, ReasonSubmissionTimeMissing: bitSubmissionTimeMissing,
		ReasonUncertainOverdue: bitUncertainOverdue, ReasonPartialOverdue: bitPartialOverdue,
		ReasonVerificationGaveUp: bitVerificationGaveUp, ReasonRepeatedlyNotRegistered: bitRepeatedlyNotRegistered,
		ReasonRetryWindowExpired: bitRetryWindowExpired, ReasonMisregistered: bitMisregistered,
		ReasonPermanentError: bitPermanentError, ReasonStuckPastRecoveryGrace: bitStuckPastRecoveryGrace,
		ReasonTooManyAttempts: bitTooManyAttempts, ReasonRunningLate: bitRunningLate,
		ReasonFlaggedByPipeline: bitFlaggedByPipeline,
	}
	all := Reasons()
	if len(named) != len(all) || bitEnd != 1<<len(all) {
		t.Fatalf("%d reasons, %d named bits, bitEnd %b", len(all), len(named), bitEnd)
	}
	for i, r := range all {
		if reasonBit(r) != 1<<i || named[r] != 1<<i {
			t.Errorf("%s: bit %b, named %b, want %b", r, reasonBit(r), named[r], 1<<i)
		}
		if got := ReasonSetOf(r); got.Escalating().Has(r) != r.Escalates() || got.AsksPerson() != r.AsksPerson() {
			t.Errorf("%s: the set's Escalating/AsksPerson disagree with the reason's", r)
		}
	}
	if got := ReasonSetOf(all...).List(); !slices.Equal(got, all) {
		t.Errorf("List of every reason = %v, want %v", got, all)
	}
	if ReasonSetOf("no_such_reason") != 0 || ReasonSet(0).List() != nil {
		t.Error("an unknown reason or the empty set lists something")
	}
}

func TestKindsAgreeWithStates(t *testing.T) {
	seen := kind(0)
	for _, s := range States() {
		k := kindOf(s)
		if k == 0 || k&(k-1) != 0 || seen&k != 0 {
			t.Errorf("%s: kind %b is not a bit of its own", s, k)
		}
		seen |= k
		if (k&kTerminal != 0) != s.IsTerminal() || (k&kVerification != 0) != s.InVerification() {
			t.Errorf("%s: the kind's terminal/verification sets disagree with the state's", s)
		}
		d1, ok1 := StuckThreshold(s)
		d2, ok2 := stuckThreshold(k)
		if d1 != d2 || ok1 != ok2 {
			t.Errorf("%s: stuckThreshold %v %v, StuckThreshold %v %v", s, d2, ok2, d1, ok1)
		}
	}
	// The kinds are declared in the states' order: each state has the bit of its own place.
	for i, s := range States() {
		if k := kindOf(s); k != 1<<i {
			t.Errorf("%s: kind %b, want %b", s, k, 1<<i)
		}
	}
	// Unknown names, some as long as a known one or differing from one in a letter.
	for _, s := range []State{"from_a_newer_pipeline", "", "pendinf", "Pending", "failed_retryablf", "registere", "registeredx"} {
		if kindOf(s) != 0 {
			t.Errorf("the unknown state %q has a kind", s)
		}
	}
}
