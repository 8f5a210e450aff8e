package lmsfake

import "time"

// The LMS's ledger rules the admin endpoints use, written for the fake from the facts of the
// LMS's models/src/credit_registrations/state.rs [71594867055] and the backoff constants of
// models/src/library/credit_registration/backoff.rs. They are the LMS's, not regdesk's: regdesk's
// own rules (schedule.Decide) are tested against these through the fake.

// suotarPendingWindow is SUOTAR_PENDING_WINDOW: how long Suotar may hold an uncertain submission
// as pending.
const suotarPendingWindow = 24 * time.Hour

// Attention thresholds (backoff.rs, attention.rs, and the stuck thresholds of the health rules).
const (
	partialRegistrationAdminAfter       = 3 * 24 * time.Hour  // PARTIAL_REGISTRATION_ADMIN_AFTER
	verifyMaxAge                        = 14 * 24 * time.Hour // VERIFY_MAX_AGE
	notRegisteredReimportAdminThreshold = 3                   // NOT_REGISTERED_REIMPORT_ADMIN_THRESHOLD
	tooManySubmitRetries                = 5                   // TOO_MANY_SUBMIT_RETRIES
	studentNumberStuckAfterPress        = 60 * time.Minute    // STUDENT_NUMBER_STUCK_AFTER_PRESS
)

// stuckThresholds are StuckThresholds::CURRENT, per state.
var stuckThresholds = map[string]time.Duration{
	"ready_to_submit":       2 * time.Hour,
	"submitting":            15 * time.Minute,
	"awaiting_verification": 24 * time.Hour,
	"failed_retryable":      3 * 24 * time.Hour,
}

// strictness is ResubmissionStrictness: how far outside a failure a row may be moved by hand.
type strictness int

const (
	onlyFailedPermanent strictness = iota
	anyExceptSubmissionUncertain
	anyStrictness
)

// facts is ResubmissionFacts plus the flag, read off one row.
type facts struct {
	state             string
	superseded        bool
	resubmitNotBefore *time.Time
	submittedAt       *time.Time
	needsAttention    bool
}

func isTerminal(state string) bool {
	switch state {
	case "registered", "duplicate", "not_improved", "failed_permanent", "cancelled":
		return true
	}
	return false
}

func isSuccess(state string) bool {
	return state == "registered" || state == "duplicate" || state == "not_improved"
}

func isFailedState(state string) bool {
	return state == "failed_retryable" || state == "failed_permanent"
}

// mayResendAfterSending is may_resend_after_sending.
func mayResendAfterSending(state string, s strictness) bool {
	switch state {
	case "pending", "ready_to_submit", "resolving_enrolment", "checking_enrolment",
		"no_usable_enrolment", "failed_retryable", "failed_permanent", "blocked", "misregistered":
		return true
	case "submission_uncertain":
		return s == anyStrictness
	}
	return false
}

// keepsEnrolmentCheckSchedule is keeps_enrolment_check_schedule.
func keepsEnrolmentCheckSchedule(state string) bool {
	switch state {
	case "no_usable_enrolment", "ready_to_submit", "resolving_enrolment", "failed_retryable":
		return true
	}
	return false
}

// supersession is pending_supersession_effect: what a row entering state does to the rows
// waiting to be replaced by it.
type supersession int

const (
	keepPending supersession = iota
	completePending
	abandonPending
)

func pendingSupersessionEffect(state string) supersession {
	switch state {
	case "registered", "duplicate":
		return completePending
	case "checking_enrolment", "submitting", "submission_uncertain", "awaiting_verification",
		"partially_registered", "failed_retryable", "not_improved":
		return keepPending
	}
	return abandonPending
}

// timelinePhase is the phase phase_started_at measures, as the migration that added the column
// groups the states [71065364207].
func timelinePhase(state string) string {
	switch state {
	case "pending":
		return "pending"
	case "ready_to_submit", "resolving_enrolment", "checking_enrolment", "no_usable_enrolment",
		"submitting", "submission_uncertain", "failed_retryable", "failed_permanent":
		return "registering"
	case "awaiting_verification", "partially_registered", "registered", "misregistered":
		return "confirmation"
	}
	return "ended"
}

// resubmissionRefusal is resubmission_refusal, in its order, at the LMS's application clock now.
func (f facts) resubmissionRefusal(s strictness, now time.Time) string {
	switch {
	case f.superseded:
		return "superseded"
	case isSuccess(f.state):
		return "already_succeeded"
	case f.state == "submitting" || f.state == "awaiting_verification" || f.state == "partially_registered":
		return "already_submitted"
	case s != anyStrictness && f.state == "submission_uncertain":
		return "submission_uncertain"
	case f.submittedAt != nil && !mayResendAfterSending(f.state, s):
		return "already_submitted"
	case s == onlyFailedPermanent && f.state != "failed_permanent":
		return "not_failed_permanent"
	}
	switch f.state {
	case "pending", "blocked", "ready_to_submit", "resolving_enrolment", "checking_enrolment", "no_usable_enrolment":
		return "still_in_pipeline"
	}
	if f.state == "submission_uncertain" && f.submittedAt != nil && now.Before(f.submittedAt.Add(suotarPendingWindow)) {
		return "submission_uncertain_too_recent"
	}
	if f.resubmitNotBefore != nil && now.Before(*f.resubmitNotBefore) {
		return "submission_pending"
	}
	return ""
}

// cancelRefusal is cancel_refusal.
func (f facts) cancelRefusal(s strictness) string {
	switch {
	case f.superseded:
		return "superseded"
	case isSuccess(f.state):
		return "already_succeeded"
	}
	switch f.state {
	case "cancelled":
		return "already_cancelled"
	case "submitting":
		return "already_submitted"
	case "awaiting_verification", "partially_registered":
		return "awaiting_confirmation"
	case "submission_uncertain":
		if s != anyStrictness {
			return "submission_uncertain"
		}
	}
	return ""
}

// checkNowRefusal is check_now_refusal: only the states a phase looks at sooner for being due.
func (f facts) checkNowRefusal() string {
	if f.superseded {
		return "superseded"
	}
	switch f.state {
	case "awaiting_verification", "partially_registered", "submission_uncertain", "no_usable_enrolment", "failed_retryable":
		return ""
	}
	return "nothing_to_check"
}

// refusal is AdminCreditRegistrationAction::refusal: why the action is refused on the row, or "".
func (a action) refusal(f facts, s strictness, now time.Time) string {
	switch a.kind {
	case "state_move":
		switch a.toState {
		case "ready_to_submit":
			return f.resubmissionRefusal(s, now)
		case "cancelled":
			return f.cancelRefusal(s)
		}
		if f.superseded {
			return "superseded"
		}
		if isSuccess(f.state) {
			return "already_succeeded"
		}
		return ""
	case "check_now":
		return f.checkNowRefusal()
	}
	if f.superseded {
		return "superseded"
	}
	return ""
}

// refusalOrder is ResubmissionRefusal's declaration order, which breaks ties between equal skip
// counts so a bulk answer is deterministic.
var refusalOrder = map[string]int{
	"superseded": 0, "already_succeeded": 1, "submission_uncertain": 2,
	"submission_uncertain_too_recent": 3, "not_failed_permanent": 4, "still_in_pipeline": 5,
	"submission_pending": 6, "already_submitted": 7, "awaiting_confirmation": 8,
	"already_cancelled": 9, "nothing_to_check": 10,
}
