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
