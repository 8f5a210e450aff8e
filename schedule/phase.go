package schedule

import "time"

// Phase is where a row stands in the pipeline at an instant, finer than its
// state where the wait matters (the verify landing window) and coarser where
// it does not. The values are URL filter values and data-phase attributes, so
// they never change.
type Phase string

// The phases, in display order: roughly the order a row passes through them.
const (
	// PhaseAwaitingPreconditions is a pending row.
	PhaseAwaitingPreconditions Phase = "awaiting_preconditions"
	// PhaseFindingEnrolment is a row ready to submit or resolving its
	// enrolment.
	PhaseFindingEnrolment Phase = "finding_enrolment"
	// PhaseWaitingForEnrolment is a row parked in no_usable_enrolment.
	PhaseWaitingForEnrolment Phase = "waiting_for_enrolment"
	// PhaseQueuedForImport is a checking_enrolment row.
	PhaseQueuedForImport Phase = "queued_for_import"
	// PhaseSubmitting is a submitting row.
	PhaseSubmitting Phase = "submitting"
	// PhaseSubmitBackoff is a failed_retryable row.
	PhaseSubmitBackoff Phase = "submit_backoff"
	// PhaseWaiting is a row in verification younger than VerifyWindowStart,
	// before its first poll.
	PhaseWaiting Phase = "waiting"
	// PhaseDenseWindow is a row in verification younger than
	// VerifyDenseWindowEnd, polled every VerifyWindowInterval.
	PhaseDenseWindow Phase = "dense_window"
	// PhaseLateWindow is a row in verification younger than VerifyWindowEnd,
	// polled every VerifyLateWindowInterval.
	PhaseLateWindow Phase = "late_window"
	// PhaseBackingOff is a row in verification past VerifyWindowEnd whose
	// verify window has not expired, polled 2 to 6 hours apart.
	PhaseBackingOff Phase = "backing_off"
	// PhasePastGiveUpAge is a row in verification whose verify window has
	// expired: polled daily, and a person must look.
	PhasePastGiveUpAge Phase = "past_give_up_age"
	// PhaseSettled is a row in a success state.
	PhaseSettled Phase = "settled"
	// PhaseFailed is a failed_permanent row.
	PhaseFailed Phase = "failed"
	// PhaseReversed is a misregistered row.
	PhaseReversed Phase = "reversed"
	// PhaseBlocked is a blocked row.
	PhaseBlocked Phase = "blocked"
	// PhaseCancelled is a cancelled row.
	PhaseCancelled Phase = "cancelled"
	// PhaseSuperseded is a row a later attempt replaced, whatever its state.
	PhaseSuperseded Phase = "superseded"
)

var phases = newEnumTable("phase",
	PhaseAwaitingPreconditions,
	PhaseFindingEnrolment,
	PhaseWaitingForEnrolment,
	PhaseQueuedForImport,
	PhaseSubmitting,
	PhaseSubmitBackoff,
	PhaseWaiting,
	PhaseDenseWindow,
	PhaseLateWindow,
	PhaseBackingOff,
	PhasePastGiveUpAge,
	PhaseSettled,
	PhaseFailed,
	PhaseReversed,
	PhaseBlocked,
	PhaseCancelled,
	PhaseSuperseded,
)

// Phases lists every phase in display order; the slice is the caller's to
// keep. The verification phases come in the order a row passes through them.
func Phases() []Phase { return phases.list() }

// ParsePhase reads a phase from user input, such as a URL filter: its value
// or its label, ignoring case and surrounding space. The error is a
// *ParseError whose message can be shown to that user.
func ParsePhase(s string) (Phase, error) { return phases.parse(s) }

// Valid reports whether p is one of the phases.
func (p Phase) Valid() bool { return phases.valid(p) }

// VerificationPhaseAt is the phase of a row in verification submitted at
// submittedAt, by its age now - submittedAt at full precision, as VerifyDelay
// measures it. A nil submittedAt is PhaseDenseWindow, because the pipeline
// then polls every VerifyWindowInterval; a submission time in the future is
// PhaseWaiting.
//
// The SQL layer mirrors it; with now as a parameter and hour intervals (a
// '14 days' interval would follow the session time zone's DST):
//
//	CASE
//	  WHEN submitted_at IS NULL                           THEN 'dense_window'
//	  WHEN submitted_at > $now - interval '270 minutes'   THEN 'waiting'
//	  WHEN submitted_at > $now - interval '630 minutes'   THEN 'dense_window'
//	  WHEN submitted_at > $now - interval '29 hours'      THEN 'late_window'
//	  WHEN submitted_at > $now - interval '336 hours'     THEN 'backing_off'
//	  ELSE 'past_give_up_age'
//	END
//
// The last boundary is VerifyWindowExpired's whole-second rule, which for a
// whole-second window is exactly submitted_at + 336 h <= now.
func VerificationPhaseAt(submittedAt *time.Time, now time.Time) Phase {
	if submittedAt == nil {
		return PhaseDenseWindow
	}
	return verificationPhase(now.Sub(*submittedAt))
}

// verificationPhase is VerificationPhaseAt for a row submitted age ago.
func verificationPhase(age time.Duration) Phase {
	switch {
	case age < VerifyWindowStart:
		return PhaseWaiting
	case age < VerifyDenseWindowEnd:
		return PhaseDenseWindow
	case age < VerifyWindowEnd:
		return PhaseLateWindow
	case !expiredAfter(age, VerifyMaxAge):
		return PhaseBackingOff
	default:
		return PhasePastGiveUpAge
	}
}
