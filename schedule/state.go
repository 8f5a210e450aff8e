package schedule

import "time"

// State is a ledger row's credit_registration_state: what the pipeline will
// do with the row next.
type State string

// The states, in the database enum's order.
const (
	// StatePending waits on a precondition; which one is derived, not stored.
	StatePending State = "pending"
	// StateReadyToSubmit waits for resolve-enrolments; it is also where an
	// admin resubmit sends a row.
	StateReadyToSubmit State = "ready_to_submit"
	// StateResolvingEnrolment has an enrolment lookup in flight, which keeps
	// import from claiming the row.
	StateResolvingEnrolment State = "resolving_enrolment"
	// StateCheckingEnrolment is, despite its name, the import queue: the
	// enrolment is settled and the payload frozen.
	StateCheckingEnrolment State = "checking_enrolment"
	// StateNoUsableEnrolment is parked until the student enrols, re-checked
	// on a ladder schedule.
	StateNoUsableEnrolment State = "no_usable_enrolment"
	// StateSubmitting is committed before the import is sent, so a request
	// may be in flight.
	StateSubmitting State = "submitting"
	// StateSubmissionUncertain may or may not have landed in Sisu; only
	// verify touches it and it is never resubmitted automatically.
	StateSubmissionUncertain State = "submission_uncertain"
	// StateAwaitingVerification was accepted by Suotar and is polled until
	// Sisu shows it.
	StateAwaitingVerification State = "awaiting_verification"
	// StatePartiallyRegistered has only the assessment item attainment in
	// Sisu; polling continues for the course unit attainment.
	StatePartiallyRegistered State = "partially_registered"
	// StateRegistered is confirmed in Sisu.
	StateRegistered State = "registered"
	// StateDuplicate found the credit already in Sisu.
	StateDuplicate State = "duplicate"
	// StateNotImproved found an equal or better grade already in Sisu.
	StateNotImproved State = "not_improved"
	// StateMisregistered was reversed in Sisu. It is not terminal, but the
	// pipeline never moves it: it waits for a person.
	StateMisregistered State = "misregistered"
	// StateFailedRetryable is in a backoff after a transient failure.
	StateFailedRetryable State = "failed_retryable"
	// StateFailedPermanent gave up; a support or configuration case.
	StateFailedPermanent State = "failed_permanent"
	// StateBlocked lost eligibility after the row had moved on.
	StateBlocked State = "blocked"
	// StateCancelled was written off.
	StateCancelled State = "cancelled"
)

var states = newEnumTable("registration state",
	enumEntry[State]{StatePending, "Pending", "Waiting for an eligible completion, a verified student number or an allowed course code."},
	enumEntry[State]{StateReadyToSubmit, "Ready to submit", "Everything needed is in place; the pipeline will next look up the student's enrolment in Sisu."},
	enumEntry[State]{StateResolvingEnrolment, "Resolving enrolment", "The pipeline is asking Sisu for the student's enrolment right now."},
	enumEntry[State]{StateCheckingEnrolment, "Queued to send", "The enrolment is found and the details are fixed; the registration waits its turn to be sent to Sisu."},
	enumEntry[State]{StateNoUsableEnrolment, "No usable enrolment", "The student has no enrolment in Sisu that can take this credit; the pipeline re-checks on a schedule until they enrol."},
	enumEntry[State]{StateSubmitting, "Submitting", "The registration is being sent to Sisu right now."},
	enumEntry[State]{StateSubmissionUncertain, "Submission uncertain", "Nobody knows yet whether Sisu received the registration; it is checked but never resent automatically."},
	enumEntry[State]{StateAwaitingVerification, "Awaiting verification", "Sent to Sisu; the pipeline checks until Sisu shows the credit."},
	enumEntry[State]{StatePartiallyRegistered, "Partially registered", "Sisu shows the assessment item but not yet the course credit; the pipeline keeps checking."},
	enumEntry[State]{StateRegistered, "Registered", "Sisu shows the credit."},
	enumEntry[State]{StateDuplicate, "Already in Sisu", "Sisu already held this credit, so nothing new was registered."},
	enumEntry[State]{StateNotImproved, "Better grade in Sisu", "Sisu already holds an equal or better grade for this course, so nothing was registered."},
	enumEntry[State]{StateMisregistered, "Reversed in Sisu", "Sisu reversed or voided the registration; a person must resubmit or cancel it."},
	enumEntry[State]{StateFailedRetryable, "Failed, retrying", "A temporary failure; the pipeline retries with growing waits for up to 7 days."},
	enumEntry[State]{StateFailedPermanent, "Failed", "The pipeline gave up; a person must fix the cause and resubmit."},
	enumEntry[State]{StateBlocked, "Blocked", "The completion stopped being eligible after the registration had started."},
	enumEntry[State]{StateCancelled, "Cancelled", "Written off: the completion was deleted before sending, or a person cancelled it."},
)

// States lists every state in the database enum's order; the slice is the
// caller's to keep.
func States() []State { return states.values() }

// ParseState reads a state typed or picked by a user: its database value or
// its label, ignoring case and surrounding space. The error is a *ParseError
// whose message can be shown to that user.
func ParseState(s string) (State, error) { return states.parse(s) }

// Valid reports whether s is one of the 17 states.
func (s State) Valid() bool { return states.valid(s) }

// Label is the state's name for people; an unknown state shows as itself.
func (s State) Label() string { return states.label(s) }

// Explanation is one line a support person understands; "" for an unknown
// state.
func (s State) Explanation() string { return states.explanation(s) }

// IsTerminal reports whether the pipeline sets terminal_at on entering s and
// never moves the row again. StateMisregistered is not terminal: it waits for
// a person.
func (s State) IsTerminal() bool {
	switch s {
	case StateRegistered, StateDuplicate, StateNotImproved, StateFailedPermanent, StateCancelled:
		return true
	}
	return false
}

// IsSuccess reports whether Sisu holds the credit, whether we put it there or
// not.
func (s State) IsSuccess() bool {
	switch s {
	case StateRegistered, StateDuplicate, StateNotImproved:
		return true
	}
	return false
}

// InVerification reports whether verify owns the row and times it from
// submitted_at.
func (s State) InVerification() bool {
	switch s {
	case StateAwaitingVerification, StatePartiallyRegistered, StateSubmissionUncertain:
		return true
	}
	return false
}

// Never is the next_attempt_at of a row parked forever (the pipeline's
// never(), 9999-12-31T00:00:00Z). Treat it as read-only.
var Never = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
