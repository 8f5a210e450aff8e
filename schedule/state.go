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
	StatePending,
	StateReadyToSubmit,
	StateResolvingEnrolment,
	StateCheckingEnrolment,
	StateNoUsableEnrolment,
	StateSubmitting,
	StateSubmissionUncertain,
	StateAwaitingVerification,
	StatePartiallyRegistered,
	StateRegistered,
	StateDuplicate,
	StateNotImproved,
	StateMisregistered,
	StateFailedRetryable,
	StateFailedPermanent,
	StateBlocked,
	StateCancelled,
)

// States lists every state in the database enum's order; the slice is the
// caller's to keep.
func States() []State { return states.list() }

// ParseState reads a state typed or picked by a user: its database value or
// its label, ignoring case and surrounding space. The error is a *ParseError
// whose message can be shown to that user.
func ParseState(s string) (State, error) { return states.parse(s) }

// Valid reports whether s is one of the 17 states.
func (s State) Valid() bool { return states.valid(s) }

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
