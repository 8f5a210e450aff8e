package schedule

import (
	"slices"
	"time"
)

// Row holds the facts of one ledger row that classification reads.
type Row struct {
	// State is the row's credit_registration_state.
	State State
	// ErrorCode is "" when the column is NULL.
	ErrorCode ErrorCode
	// NeedsAdminAttention is the pipeline's own flag.
	NeedsAdminAttention bool
	// Superseded is superseded_by_id IS NOT NULL.
	Superseded bool
	// StateEnteredAt is stamped on every transition, same-state ones too.
	StateEnteredAt time.Time
	// StateChangedAt is when the row last entered a different state.
	StateChangedAt time.Time
	// NextAttemptAt is when the row may next be claimed; Never when parked.
	NextAttemptAt time.Time
	// FirstFailedAt anchors the retry window; nil when NULL.
	FirstFailedAt *time.Time
	// SubmittedAt anchors every verify and uncertain window; nil when NULL.
	SubmittedAt *time.Time
	// PartiallyRegisteredAt is the first sighting of a partial
	// registration; nil when NULL.
	PartiallyRegisteredAt *time.Time
	// ResubmitNotBefore is Suotar's retryAfter; nil when NULL. Classify does
	// not read it yet; it is here so the store fills one struct for every
	// rule about a row.
	ResubmitNotBefore *time.Time
	// SubmitRetryCount is submit_retry_count.
	SubmitRetryCount int32
	// VerifyAttemptCount is verify_attempt_count.
	VerifyAttemptCount int32
	// NotRegisteredReimportCount is not_registered_reimport_count.
	NotRegisteredReimportCount int32
	// DismissedReasons are the reasons covered by the row's live attention
	// dismissal; nil if none.
	DismissedReasons []Reason
}

// Status is where a row stands at an instant, as Classify sees it.
type Status struct {
	// Phase is the row's phase; for a state this package does not know yet,
	// the state's raw value, so the row shows as what it is rather than under
	// a wrong phase.
	Phase Phase
	// Reasons holds every reason that applies now, in Reasons() order; nil
	// when none does.
	Reasons []Reason
	// NeedsAdmin is true when a reason that asks a person applies (every
	// escalating reason, and the ones that show an uncertain row at once) and
	// the dismissal does not cover them all: the row is on the queue's
	// needs-a-person list. When an uncertain row escalates is EscalatesAt.
	NeedsAdmin bool
	// Dismissed is true when reasons apply and the live dismissal covers
	// every one of them.
	Dismissed bool
	// NextCheckAt is when the pipeline will next look at the row; nil when
	// it never will. It may be in the past: the row is then due or overdue.
	NextCheckAt *time.Time
	// EscalatesAt is the earliest instant after now at which an escalating
	// reason the row does not have yet will apply if nothing else happens;
	// nil if none will.
	EscalatesAt *time.Time
}

// Classify says where row r stands at now: its phase, the reasons it needs
// attention, whether an admin must act, and when the pipeline will next look
// at it and the row will next escalate. It reads nothing but its arguments.
func Classify(r Row, now time.Time) Status {
	if r.Superseded {
		// A later attempt carries the credit; this row is history.
		return Status{Phase: PhaseSuperseded}
	}
	reasons := reasonsAt(r, now)
	dismissed := len(reasons) > 0 && coveredBy(reasons, r.DismissedReasons)
	return Status{
		Phase:       phaseAt(r, now),
		Reasons:     reasons,
		NeedsAdmin:  slices.ContainsFunc(reasons, Reason.AsksPerson) && !dismissed,
		Dismissed:   dismissed,
		NextCheckAt: nextCheckAt(r),
		EscalatesAt: escalatesAt(r, now, reasons),
	}
}

func phaseAt(r Row, now time.Time) Phase {
	if r.State.InVerification() {
		return VerificationPhaseAt(r.SubmittedAt, now)
	}
	switch r.State {
	case StatePending:
		return PhaseAwaitingPreconditions
	case StateReadyToSubmit, StateResolvingEnrolment:
		return PhaseFindingEnrolment
	case StateNoUsableEnrolment:
		return PhaseWaitingForEnrolment
	case StateCheckingEnrolment:
		return PhaseQueuedForImport
	case StateSubmitting:
		return PhaseSubmitting
	case StateFailedRetryable:
		return PhaseSubmitBackoff
	case StateRegistered, StateDuplicate, StateNotImproved:
		return PhaseSettled
	case StateFailedPermanent:
		return PhaseFailed
	case StateMisregistered:
		return PhaseReversed
	case StateBlocked:
		return PhaseBlocked
	case StateCancelled:
		return PhaseCancelled
	}
	// A state this package does not know yet; its raw value keeps it
	// visible rather than filed under a wrong phase.
	return Phase(r.State)
}

func reasonsAt(r Row, now time.Time) []Reason {
	live := !r.State.IsTerminal()
	var out []Reason
	add := func(reason Reason, applies bool) {
		if applies {
			out = append(out, reason)
		}
	}
	uncertain := r.State == StateSubmissionUncertain
	add(ReasonOutcomeUncertain, uncertain && r.SubmittedAt != nil && !UncertainNeedsAdmin(r.SubmittedAt, now))
	add(ReasonSubmissionTimeMissing, uncertain && r.SubmittedAt == nil)
	add(ReasonUncertainOverdue, uncertain && UncertainNeedsAdmin(r.SubmittedAt, now))
	add(ReasonPartialOverdue, r.State == StatePartiallyRegistered &&
		windowExpired(r.PartiallyRegisteredAt, now, PartialRegistrationAdminAfter))
	add(ReasonVerificationGaveUp, r.State.InVerification() && VerifyWindowExpired(r.SubmittedAt, now))
	add(ReasonRepeatedlyNotRegistered, live && r.NotRegisteredReimportCount >= NotRegisteredReimportAdminThreshold)
	// The dashboard knows a row is past its retry window before the next
	// sweep fails it.
	add(ReasonRetryWindowExpired, r.ErrorCode == ErrorRetryWindowExpired ||
		(r.State == StateFailedRetryable && SubmitWindowExpired(r.FirstFailedAt, now)))
	add(ReasonMisregistered, r.State == StateMisregistered)
	add(ReasonPermanentError, r.State == StateFailedPermanent && r.NeedsAdminAttention && r.ErrorCode != ErrorRetryWindowExpired)
	// The recovery sweep's graces are strict (preconditions.rs: since < now − grace), unlike the
	// whole-second windows: exactly at the grace's end the worker may still answer.
	add(ReasonStuckPastRecoveryGrace,
		(r.State == StateSubmitting && submittingSince(r).Before(now.Add(-SubmittingRecoveryGrace))) ||
			(r.State == StateResolvingEnrolment && r.StateEnteredAt.Before(now.Add(-ResolvingRecoveryGrace))))
	add(ReasonTooManyAttempts, live && r.SubmitRetryCount >= TooManySubmitRetries)
	threshold, hasThreshold := StuckThreshold(r.State)
	add(ReasonRunningLate, live && hasThreshold && now.Sub(r.StateChangedAt) > threshold)
	// The flag is its own reason when nothing that escalates explains it; running late does not,
	// or a flagged row that is also late would drop out of the queue.
	add(ReasonFlaggedByPipeline, r.NeedsAdminAttention && !slices.ContainsFunc(out, Reason.Escalates))
	return out
}

// submittingSince is what the recovery sweep times a submitting row from:
// submitted_at, re-stamped for each resent half of a split batch, else
// state_entered_at.
func submittingSince(r Row) *time.Time {
	if r.SubmittedAt != nil {
		return r.SubmittedAt
	}
	return &r.StateEnteredAt
}

func coveredBy(reasons, dismissed []Reason) bool {
	for _, reason := range reasons {
		if !slices.Contains(dismissed, reason) {
			return false
		}
	}
	return true
}

// nextCheckAt says when the pipeline will next act on r. submitting and
// resolving_enrolment rows are acted on by the recovery sweep, which does not
// look at next_attempt_at, so their time is the end of the recovery grace
// even if next_attempt_at says Never.
func nextCheckAt(r Row) *time.Time {
	var at time.Time
	switch {
	case r.State.IsTerminal() || r.State == StateMisregistered:
		return nil
	case r.State == StateSubmitting:
		at = submittingSince(r).Add(SubmittingRecoveryGrace)
	case r.State == StateResolvingEnrolment:
		at = r.StateEnteredAt.Add(ResolvingRecoveryGrace)
	case !r.NextAttemptAt.Before(Never):
		return nil
	default:
		at = r.NextAttemptAt
	}
	return &at
}

// escalation is an escalating rule that fires at a known instant: the end
// of a whole-second window, which windowExpired reaches exactly at
// reference + window.
type escalation struct {
	reason Reason
	at     time.Time
}

func escalations(r Row) []escalation {
	var out []escalation
	if r.State == StateSubmissionUncertain && r.SubmittedAt != nil {
		out = append(out, escalation{ReasonUncertainOverdue, r.SubmittedAt.Add(UncertainAdminAfter)})
	}
	if r.State == StatePartiallyRegistered && r.PartiallyRegisteredAt != nil {
		out = append(out, escalation{ReasonPartialOverdue, r.PartiallyRegisteredAt.Add(PartialRegistrationAdminAfter)})
	}
	if r.State.InVerification() && r.SubmittedAt != nil {
		out = append(out, escalation{ReasonVerificationGaveUp, r.SubmittedAt.Add(VerifyMaxAge)})
	}
	if r.State == StateFailedRetryable && r.FirstFailedAt != nil {
		out = append(out, escalation{ReasonRetryWindowExpired, r.FirstFailedAt.Add(SubmitMaxRetryAge)})
	}
	// A strict grace first applies an instant after its end.
	if r.State == StateSubmitting {
		out = append(out, escalation{ReasonStuckPastRecoveryGrace, submittingSince(r).Add(SubmittingRecoveryGrace + time.Nanosecond)})
	}
	if r.State == StateResolvingEnrolment {
		out = append(out, escalation{ReasonStuckPastRecoveryGrace, r.StateEnteredAt.Add(ResolvingRecoveryGrace + time.Nanosecond)})
	}
	return out
}

// escalatesAt skips rules whose reason the row already has for another
// cause (a failed_retryable row already coded retry_window_expired), since
// their firing would change nothing a person sees.
func escalatesAt(r Row, now time.Time, current []Reason) *time.Time {
	var earliest *time.Time
	for _, e := range escalations(r) {
		if !e.at.After(now) || slices.Contains(current, e.reason) {
			continue
		}
		if earliest == nil || e.at.Before(*earliest) {
			earliest = &e.at
		}
	}
	return earliest
}
