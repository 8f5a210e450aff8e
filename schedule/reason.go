package schedule

import (
	"fmt"
	"math/bits"
	"time"
)

// Reason is one reason a row is on the LMS's Needs attention queue: the LMS's own vocabulary
// (enum credit_registration_attention_reason, models/src/credit_registrations/attention.rs,
// stored text 71168911011; its migration is stored text 71065364207). The values are URL filter
// values and are stored in attention dismissals, which the LMS's admin UI writes too, so they are
// the LMS's strings and never change.
type Reason string

// The reasons, in the LMS enum's order, which is the order Classify reports them. The rule of
// each is attention.rs's detector; superseded rows carry none.
const (
	// ReasonStuckInState is a row whose terminal_at is NULL, in a state with a StuckThreshold,
	// and in it (from state_changed_at) strictly longer than the threshold. The only reason that
	// is not person-level: a row carrying nothing else is running late (StandingRunningLate).
	ReasonStuckInState Reason = "stuck_in_state"
	// ReasonPermanentError is a failed_permanent row with the pipeline's flag up, for any error
	// code but retry_window_expired (no code counts as another code).
	ReasonPermanentError Reason = "permanent_error"
	// ReasonRetryWindowExpired is a row whose error code is retry_window_expired, in any state.
	ReasonRetryWindowExpired Reason = "retry_window_expired"
	// ReasonMisregistered is a row Sisu reversed (state misregistered).
	ReasonMisregistered Reason = "misregistered"
	// ReasonTooManyAttempts is a row with terminal_at NULL resent TooManySubmitRetries times.
	ReasonTooManyAttempts Reason = "too_many_attempts"
	// ReasonOutcomeUncertain is every submission_uncertain row, from its first moment: it is
	// never retried automatically. When the pipeline escalates it is a note (NoteUncertainOverdue).
	ReasonOutcomeUncertain Reason = "outcome_uncertain"
	// ReasonPartlyRegisteredOverdue is a partially_registered row first seen partly registered
	// PartialRegistrationAdminAfter ago or more.
	ReasonPartlyRegisteredOverdue Reason = "partly_registered_overdue"
	// ReasonVerificationGaveUp is an awaiting_verification or partially_registered row submitted
	// VerifyMaxAge ago or more. An uncertain row is not: ReasonOutcomeUncertain has it already.
	ReasonVerificationGaveUp Reason = "verification_gave_up"
	// ReasonRepeatedlyNotRegistered is a row with terminal_at NULL that Suotar has lost
	// NotRegisteredReimportAdminThreshold times.
	ReasonRepeatedlyNotRegistered Reason = "repeatedly_not_registered"
	// ReasonStudentNumberStuck is a pending row waiting for a student number whose student pressed
	// "I have enrolled", after which a fetch of the code's enrolment list started
	// StudentNumberStuckAfterPress later, yet no linking email has gone out on the code since the
	// press (Row.Linking holds what it reads).
	ReasonStudentNumberStuck Reason = "student_number_stuck"
	// ReasonFlaggedByPipeline is the pipeline's needs_admin_attention flag when no other reason
	// applies: stuck_in_state too explains it, as in the LMS.
	ReasonFlaggedByPipeline Reason = "flagged_by_pipeline"
)

var reasons = newEnumTable("attention reason",
	ReasonStuckInState,
	ReasonPermanentError,
	ReasonRetryWindowExpired,
	ReasonMisregistered,
	ReasonTooManyAttempts,
	ReasonOutcomeUncertain,
	ReasonPartlyRegisteredOverdue,
	ReasonVerificationGaveUp,
	ReasonRepeatedlyNotRegistered,
	ReasonStudentNumberStuck,
	ReasonFlaggedByPipeline,
)

// Reasons lists every reason in the LMS enum's order, which Classify reports them in; the slice
// is the caller's to keep.
func Reasons() []Reason { return reasons.list() }

// ParseReason reads a reason from user input, such as a URL filter: its value, ignoring case and
// surrounding space. The error is a *ParseError whose message can be shown to that user.
func ParseReason(s string) (Reason, error) { return reasons.parse(s) }

// Valid reports whether r is one of the reasons.
func (r Reason) Valid() bool { return reasons.valid(r) }

// PersonLevel reports whether r puts a row it is not dismissed from on the needs-a-person list
// (StandingNeedsAttention): every reason but ReasonStuckInState (attention.rs is_person_level).
func (r Reason) PersonLevel() bool { return r.Valid() && r != ReasonStuckInState }

// TooManySubmitRetries is the submit_retry_count at which a row with terminal_at NULL has failed
// too often (attention.rs TOO_MANY_SUBMIT_RETRIES). Verify polls do not count.
const TooManySubmitRetries = 5

// StudentNumberStuckAfterPress is how long after an "I have enrolled" press a fetch of the code's
// enrolment list must have started for a missing linking email to mean the student is stuck
// (attention.rs STUDENT_NUMBER_STUCK_AFTER_PRESS).
const StudentNumberStuckAfterPress = 60 * time.Minute

// StuckThreshold is how long a row may stay in state (measured from state_changed_at) before it
// is stuck in it (ReasonStuckInState); ok is false for states without one. The values are the
// LMS's health thresholds (server/src/domain/credit_registration/health.rs STUCK_THRESHOLDS, the
// StuckThresholds of models/src/credit_registrations/metrics.rs).
func StuckThreshold(state State) (threshold time.Duration, ok bool) {
	return stuckThreshold(kindOf(state))
}

// ReasonSet is a set of reasons, one bit each in Reasons() order: what Classify reports, so that
// classifying a row allocates nothing.
type ReasonSet uint32

// The reasons' bits, in Reasons() order; TestReasonSetBitsFollowReasons holds the two together.
const (
	bitStuckInState ReasonSet = 1 << iota
	bitPermanentError
	bitRetryWindowExpired
	bitMisregistered
	bitTooManyAttempts
	bitOutcomeUncertain
	bitPartlyRegisteredOverdue
	bitVerificationGaveUp
	bitRepeatedlyNotRegistered
	bitStudentNumberStuck
	bitFlaggedByPipeline
	bitEnd
)

// allReasons holds every reason's bit; personLevelSet those that ask a person.
const (
	allReasons     = bitEnd - 1
	personLevelSet = allReasons &^ bitStuckInState
)

// reasonBit is r's bit; 0 for a reason this package does not know (a dismissal written before
// the vocabulary was the LMS's). A switch, not the table's map: it is asked for every reason of
// every dismissed row on a page, and hashing the string cost more than the rest of classifying
// the row.
func reasonBit(r Reason) ReasonSet {
	switch r {
	case ReasonStuckInState:
		return bitStuckInState
	case ReasonPermanentError:
		return bitPermanentError
	case ReasonRetryWindowExpired:
		return bitRetryWindowExpired
	case ReasonMisregistered:
		return bitMisregistered
	case ReasonTooManyAttempts:
		return bitTooManyAttempts
	case ReasonOutcomeUncertain:
		return bitOutcomeUncertain
	case ReasonPartlyRegisteredOverdue:
		return bitPartlyRegisteredOverdue
	case ReasonVerificationGaveUp:
		return bitVerificationGaveUp
	case ReasonRepeatedlyNotRegistered:
		return bitRepeatedlyNotRegistered
	case ReasonStudentNumberStuck:
		return bitStudentNumberStuck
	case ReasonFlaggedByPipeline:
		return bitFlaggedByPipeline
	}
	return 0
}

// ReasonSetOf returns the set holding the known reasons among rs.
func ReasonSetOf(rs ...Reason) ReasonSet {
	var set ReasonSet
	for _, r := range rs {
		set |= reasonBit(r)
	}
	return set
}

// Has reports whether r is in the set.
func (s ReasonSet) Has(r Reason) bool {
	b := reasonBit(r)
	return b != 0 && s&b != 0
}

// Len is how many reasons the set holds.
func (s ReasonSet) Len() int { return bits.OnesCount32(uint32(s & allReasons)) }

// Empty reports whether the set holds no reason.
func (s ReasonSet) Empty() bool { return s&allReasons == 0 }

// PersonLevel is the part of the set whose reasons are person-level (Reason.PersonLevel).
func (s ReasonSet) PersonLevel() ReasonSet { return s & personLevelSet }

// Without is the set less the reasons of o.
func (s ReasonSet) Without(o ReasonSet) ReasonSet { return s &^ o }

// List returns the set's reasons in Reasons() order; nil when it is empty. It allocates: the
// classification itself never calls it.
func (s ReasonSet) List() []Reason {
	if s.Empty() {
		return nil
	}
	out := make([]Reason, 0, s.Len())
	for i, r := range reasons.values {
		if s&(1<<i) != 0 {
			out = append(out, r)
		}
	}
	return out
}

// String lists the set's reasons, for messages and tests.
func (s ReasonSet) String() string { return fmt.Sprint(s.List()) }
