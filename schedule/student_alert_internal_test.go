package schedule

import "testing"

// TestChangeCodeMentionsOnlyWhatATeacherCaresAbout pins which changes SinceAlert keeps, by their
// codes: every act of a person, the student's own, and a pipeline move into a state that says
// something; not a poll that rewrote the same state, nor a pass through an in-flight state the
// next move explains.
func TestChangeCodeMentionsOnlyWhatATeacherCaresAbout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    AlertEvent
		want string
	}{
		{AlertEvent{ByPerson: true, Action: "transition_item", FromState: StateSubmissionUncertain, ToState: StateReadyToSubmit}, "person.resubmitted"},
		{AlertEvent{ByPerson: true, Action: "transition_item", FromState: StateFailedPermanent, ToState: StateCancelled}, "person.cancelled"},
		{AlertEvent{ByPerson: true, Action: "transition_item", FromState: StateSubmissionUncertain, ToState: StateDuplicate}, "person.marked_registered"},
		{AlertEvent{ByPerson: true, Action: "transition_item", FromState: StateMisregistered, ToState: StateFailedPermanent}, "person.moved"},
		{AlertEvent{ByPerson: true, Action: "retry_item"}, "person.recheck"},
		{AlertEvent{ByPerson: true, Action: "mark_resolved"}, "person.resolved"},
		{AlertEvent{ByPerson: true, Action: "dismiss_attention"}, "person.dismissed"},
		{AlertEvent{ByPerson: true, Action: "sisu_lookup"}, "person.looked_up"},
		{AlertEvent{ByPerson: true, Action: "state_changed", FromState: StatePending, ToState: StatePending}, "person.updated"},
		{AlertEvent{Action: "state_changed", FromState: StateSubmitting, ToState: StateAwaitingVerification}, "pipeline.awaiting_verification"},
		{AlertEvent{Action: "state_changed", FromState: StateReadyToSubmit, ToState: StateCheckingEnrolment}, "pipeline.checking_enrolment"},
		{AlertEvent{Action: "state_changed", FromState: StateAwaitingVerification, ToState: StateAwaitingVerification}, ""},
		{AlertEvent{Action: "state_changed", FromState: StateCheckingEnrolment, ToState: StateSubmitting}, ""},
		{AlertEvent{Action: "state_changed", FromState: StateReadyToSubmit, ToState: StateResolvingEnrolment}, ""},
		{AlertEvent{Action: "student_action"}, "student_action"},
		{AlertEvent{Action: "sisu_lookup"}, ""},
	} {
		if got := tc.e.ChangeCode(); got != tc.want {
			t.Errorf("%+v: ChangeCode() = %q, want %q", tc.e, got, tc.want)
		}
	}
	// Every state but the in-flight ones is worth a mention when the pipeline moves a row into it.
	for _, s := range States() {
		inFlight := s == StateSubmitting || s == StateResolvingEnrolment
		if got := (AlertEvent{ToState: s, FromState: StatePending}).ChangeCode() != "" || s == StatePending; got == inFlight {
			t.Errorf("a pipeline move into %s: mentioned %v, want %v", s, got, !inFlight)
		}
	}
}
