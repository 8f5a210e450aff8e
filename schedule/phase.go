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
	enumEntry[Phase]{PhaseAwaitingPreconditions, "Awaiting preconditions", "Waiting for an eligible completion, a verified student number or an allowed course code."},
	enumEntry[Phase]{PhaseFindingEnrolment, "Finding enrolment", "The pipeline is looking up the student's enrolment in Sisu."},
	enumEntry[Phase]{PhaseWaitingForEnrolment, "Waiting for enrolment", "No usable enrolment in Sisu yet; the pipeline re-checks on a schedule until the student enrols."},
	enumEntry[Phase]{PhaseQueuedForImport, "Queued to send", "Ready to go to Sisu with the next batch."},
	enumEntry[Phase]{PhaseSubmitting, "Submitting", "Being sent to Sisu; if the sender dies, the pipeline takes the row back after 75 minutes."},
	enumEntry[Phase]{PhaseSubmitBackoff, "Retrying after a failure", "A temporary failure; retries start a minute apart and double up to 6 hours, for up to 7 days."},
	enumEntry[Phase]{PhaseWaiting, "Waiting for the first check", "Sisu usually shows a registration 5–29 hours after it is sent; the first check is 4.5 hours after sending."},
	enumEntry[Phase]{PhaseDenseWindow, "Checking every 30 minutes", "Sisu usually shows a registration 5–29 hours after it is sent; the pipeline checks every 30 minutes until 10.5 hours."},
	enumEntry[Phase]{PhaseLateWindow, "Checking hourly", "Sisu usually shows a registration 5–29 hours after it is sent; the pipeline checks hourly until 29 hours."},
	enumEntry[Phase]{PhaseBackingOff, "Checking less often", "Later than Sisu usually takes; the pipeline checks every 2 to 6 hours until 14 days after sending."},
	enumEntry[Phase]{PhasePastGiveUpAge, "Past 14 days", "Sisu still does not show it 14 days after sending; the pipeline checks daily and a person must look."},
	enumEntry[Phase]{PhaseSettled, "Settled", "Sisu holds the credit: registered by us, already there, or a better grade was there."},
	enumEntry[Phase]{PhaseFailed, "Failed", "The pipeline gave up on this registration."},
	enumEntry[Phase]{PhaseReversed, "Reversed in Sisu", "Sisu reversed the registration; a person must resubmit or cancel it."},
	enumEntry[Phase]{PhaseBlocked, "Blocked", "The completion is no longer eligible for registration."},
	enumEntry[Phase]{PhaseCancelled, "Cancelled", "Written off; nothing more will happen."},
	enumEntry[Phase]{PhaseSuperseded, "Superseded", "A later attempt replaced this one; look at that one instead."},
)

// Phases lists every phase in display order; the slice is the caller's to
// keep. The verification phases come in the order a row passes through them.
func Phases() []Phase { return phases.values() }

// ParsePhase reads a phase from user input, such as a URL filter: its value
// or its label, ignoring case and surrounding space. The error is a
// *ParseError whose message can be shown to that user.
func ParsePhase(s string) (Phase, error) { return phases.parse(s) }

// Valid reports whether p is one of the phases.
func (p Phase) Valid() bool { return phases.valid(p) }

// Label is the phase's name for people; an unknown phase shows as itself.
func (p Phase) Label() string { return phases.label(p) }

// Explanation is one line for the UI; "" for an unknown phase.
func (p Phase) Explanation() string { return phases.explanation(p) }

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
