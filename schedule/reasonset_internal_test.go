package schedule

import (
	"slices"
	"testing"
)

func TestReasonSetBitsFollowReasons(t *testing.T) {
	named := map[Reason]ReasonSet{
		ReasonStuckInState: bitStuckInState, ReasonPermanentError: bitPermanentError,
		ReasonRetryWindowExpired: bitRetryWindowExpired, ReasonMisregistered: bitMisregistered,
		ReasonTooManyAttempts: bitTooManyAttempts, ReasonOutcomeUncertain: bitOutcomeUncertain,
		ReasonPartlyRegisteredOverdue: bitPartlyRegisteredOverdue, ReasonVerificationGaveUp: bitVerificationGaveUp,
		ReasonRepeatedlyNotRegistered: bitRepeatedlyNotRegistered, ReasonStudentNumberStuck: bitStudentNumberStuck,
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
		if got := ReasonSetOf(r); got.PersonLevel().Has(r) != r.PersonLevel() {
			t.Errorf("%s: the set's PersonLevel disagrees with the reason's", r)
		}
	}
	if got := ReasonSetOf(all...).List(); !slices.Equal(got, all) {
		t.Errorf("List of every reason = %v, want %v", got, all)
	}
	if ReasonSetOf("no_such_reason") != 0 || ReasonSet(0).List() != nil {
		t.Error("an unknown reason or the empty set lists something")
	}
	// The reasons regdesk had before it took the LMS's: a dismissal that still names one covers
	// nothing.
	if ReasonSetOf("uncertain_overdue", "partial_overdue", "running_late", "stuck_past_recovery_grace", "submission_time_missing") != 0 {
		t.Error("a reason the LMS does not have has a bit")
	}
}

func TestNoteSetBitsFollowNotes(t *testing.T) {
	named := map[Note]NoteSet{
		NoteSubmissionTimeMissing: noteSubmissionTimeMissing, NoteUncertainOverdue: noteUncertainOverdue,
		NotePastRecoveryGrace: notePastRecoveryGrace, NoteRetryWindowOver: noteRetryWindowOver,
	}
	all := Notes()
	if len(named) != len(all) || noteEnd != 1<<len(all) {
		t.Fatalf("%d notes, %d named bits, noteEnd %b", len(all), len(named), noteEnd)
	}
	var every NoteSet
	for i, n := range all {
		if noteBit(n) != 1<<i || named[n] != 1<<i {
			t.Errorf("%s: bit %b, named %b, want %b", n, noteBit(n), named[n], 1<<i)
		}
		every |= noteBit(n)
		if !every.Has(n) {
			t.Errorf("%s: Has is false for a set holding it", n)
		}
	}
	if got := every.List(); !slices.Equal(got, all) {
		t.Errorf("List of every note = %v, want %v", got, all)
	}
	if noteBit("no_such_note") != 0 || NoteSet(0).List() != nil || every.Has("no_such_note") {
		t.Error("an unknown note or the empty set lists something")
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
