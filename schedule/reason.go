package schedule

import (
	"fmt"
	"math/bits"
	"time"
)

// Reason is one reason a row is on the Needs attention list. The values are
// URL filter values and are stored in attention dismissals, so they never
// change.
type Reason string

// The reasons, in the order Classify reports them.
const (
	// ReasonOutcomeUncertain is an uncertain submission not yet
	// UncertainAdminAfter old: shown at once, as the LMS lists every
	// uncertain row, so a person can look it up; it does not escalate.
	ReasonOutcomeUncertain Reason = "outcome_uncertain"
	// ReasonSubmissionTimeMissing is an uncertain row without submitted_at:
	// no window runs from it, so it never escalates and can never be
	// resubmitted, and only a person can settle it.
	ReasonSubmissionTimeMissing Reason = "submission_time_missing"
	// ReasonUncertainOverdue is an uncertain submission UncertainAdminAfter
	// old.
	ReasonUncertainOverdue Reason = "uncertain_overdue"
	// ReasonPartialOverdue is a partial registration first seen
	// PartialRegistrationAdminAfter ago.
	ReasonPartialOverdue Reason = "partial_overdue"
	// ReasonVerificationGaveUp is a row in verification past VerifyMaxAge.
	ReasonVerificationGaveUp Reason = "verification_gave_up"
	// ReasonRepeatedlyNotRegistered is a live row Suotar has lost
	// NotRegisteredReimportAdminThreshold times.
	ReasonRepeatedlyNotRegistered Reason = "repeatedly_not_registered"
	// ReasonRetryWindowExpired is a row whose retries ran for
	// SubmitMaxRetryAge, or will be failed for it at the next sweep.
	ReasonRetryWindowExpired Reason = "retry_window_expired"
	// ReasonMisregistered is a row Sisu reversed.
	ReasonMisregistered Reason = "misregistered"
	// ReasonPermanentError is a flagged failed_permanent row, other than one
	// that only ran out of retries.
	ReasonPermanentError Reason = "permanent_error"
	// ReasonStuckPastRecoveryGrace is a row the pipeline should have
	// recovered from a dead worker by now.
	ReasonStuckPastRecoveryGrace Reason = "stuck_past_recovery_grace"
	// ReasonTooManyAttempts is a live row that failed TooManySubmitRetries
	// submits.
	ReasonTooManyAttempts Reason = "too_many_attempts"
	// ReasonRunningLate is a row longer in its state than StuckThreshold. It
	// alone never makes a row need an admin.
	ReasonRunningLate Reason = "running_late"
	// ReasonFlaggedByPipeline is the pipeline's needs_admin_attention flag
	// when no other escalating reason explains it.
	ReasonFlaggedByPipeline Reason = "flagged_by_pipeline"
)

var reasons = newEnumTable("attention reason",
	ReasonOutcomeUncertain,
	ReasonSubmissionTimeMissing,
	ReasonUncertainOverdue,
	ReasonPartialOverdue,
	ReasonVerificationGaveUp,
	ReasonRepeatedlyNotRegistered,
	ReasonRetryWindowExpired,
	ReasonMisregistered,
	ReasonPermanentError,
	ReasonStuckPastRecoveryGrace,
	ReasonTooManyAttempts,
	ReasonRunningLate,
	ReasonFlaggedByPipeline,
)

// Reasons lists every reason in the order Classify reports them; the slice is
// the caller's to keep.
func Reasons() []Reason { return reasons.list() }

// ParseReason reads a reason from user input, such as a URL filter: its
// value or its label, ignoring case and surrounding space. The error is a
// *ParseError whose message can be shown to that user.
func ParseReason(s string) (Reason, error) { return reasons.parse(s) }

// Valid reports whether r is one of the reasons.
func (r Reason) Valid() bool { return reasons.valid(r) }

// Escalates reports whether r makes a row need an admin: the pipeline's
// escalation rules. ReasonRunningLate does not (it says a row is slow, not
// that a person must act), nor do the reasons that show an uncertain row at
// once (ReasonOutcomeUncertain, ReasonSubmissionTimeMissing): they ask a
// person to look without escalating, and when the row escalates is
// UncertainNeedsAdmin's, exactly the seed's.
func (r Reason) Escalates() bool {
	return r.AsksPerson() && r != ReasonOutcomeUncertain && r != ReasonSubmissionTimeMissing
}

// AsksPerson reports whether r puts a row on the needs-a-person list: every
// reason but ReasonRunningLate.
func (r Reason) AsksPerson() bool { return r.Valid() && r != ReasonRunningLate }

// TooManySubmitRetries is the submit_retry_count at which a live row counts
// as having failed too often (TOO_MANY_SUBMIT_RETRIES).
const TooManySubmitRetries = 5

// StuckThreshold is how long a row may stay in state (measured from
// state_changed_at) before it is running late; ok is false for states without
// one. The values are the pipeline's health thresholds (health.rs).
func StuckThreshold(state State) (threshold time.Duration, ok bool) {
	switch state {
	case StateReadyToSubmit:
		return 2 * time.Hour, true
	case StateSubmitting:
		return 15 * time.Minute, true
	case StateAwaitingVerification:
		return 24 * time.Hour, true
	case StateFailedRetryable:
		return 3 * 24 * time.Hour, true
	}
	return 0, false
}

// ReasonSet is a set of reasons, one bit each in Reasons() order: what
// Classify reports, so that classifying a row allocates nothing.
type ReasonSet uint32

// The reasons' bits, in Reasons() order; TestReasonSetBitsFollowReasons holds
// the two together.
const (
	bitOutcomeUncertain ReasonSet = 1 << iota
	bitSubmissionTimeMissing
	bitUncertainOverdue
	bitPartialOverdue
	bitVerificationGaveUp
	bitRepeatedlyNotRegistered
	bitRetryWindowExpired
	bitMisregistered
	bitPermanentError
	bitStuckPastRecoveryGrace
	bitTooManyAttempts
	bitRunningLate
	bitFlaggedByPipeline
	bitEnd
)

// allReasons holds every reason's bit.
const allReasons = bitEnd - 1

// askingSet holds the reasons that put a row on the needs-a-person list;
// escalatingSet those of them that escalate (Reason.Escalates).
const (
	askingSet     = allReasons &^ bitRunningLate
	escalatingSet = askingSet &^ (bitOutcomeUncertain | bitSubmissionTimeMissing)
)

// reasonBit is r's bit; 0 for a reason this package does not know. A switch, not the table's
// map: it is asked for every reason of every dismissed row on a page, and hashing the string
// cost more than the rest of classifying the row.
func reasonBit(r Reason) ReasonSet {
	switch r {
	case ReasonOutcomeUncertain:
		return bitOutcomeUncertain
	case ReasonSubmissionTimeMissing:
		return bitSubmissionTimeMissing
	case ReasonUncertainOverdue:
		return bitUncertainOverdue
	case ReasonPartialOverdue:
		return bitPartialOverdue
	case ReasonVerificationGaveUp:
		return bitVerificationGaveUp
	case ReasonRepeatedlyNotRegistered:
		return bitRepeatedlyNotRegistered
	case ReasonRetryWindowExpired:
		return bitRetryWindowExpired
	case ReasonMisregistered:
		return bitMisregistered
	case ReasonPermanentError:
		return bitPermanentError
	case ReasonStuckPastRecoveryGrace:
		return bitStuckPastRecoveryGrace
	case ReasonTooManyAttempts:
		return bitTooManyAttempts
	case ReasonRunningLate:
		return bitRunningLate
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

// AsksPerson reports whether a reason in the set asks a person (Reason.AsksPerson).
func (s ReasonSet) AsksPerson() bool { return s&askingSet != 0 }

// Escalating is the part of the set whose reasons escalate (Reason.Escalates).
func (s ReasonSet) Escalating() ReasonSet { return s & escalatingSet }

// Without is the set less the reasons of o.
func (s ReasonSet) Without(o ReasonSet) ReasonSet { return s &^ o }

// List returns the set's reasons in Reasons() order; nil when it is empty.
// It allocates: the classification itself never calls it.
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
