package schedule

import (
	"time"
)

// This file holds the rules for what a person may do to a row by hand: the
// LMS's refusal rules (domain.md §6.4, ResubmissionFacts in state.rs) and
// regdesk's own, stricter ones for resubmitting an uncertain row after looking
// it up in Sisu. Every action is the LMS's to apply (its admin endpoints take
// a state move to ready_to_submit or cancelled, clearing the flag, check now
// and a dismissal), and its answer is the authority; these rules explain
// before the click what is allowed and why not. The product's one promise is
// that no path leads to a second registration of the same credit, so every
// rule errs towards refusing. A credit a lookup found in Sisu is recorded by
// the pipeline itself, on the pass Check now asks for, never by a person.

// Action is a hand action on one ledger row. The values are form values and
// are recorded in the audit, so they never change.
type Action string

// The hand actions, in the order a page shows them.
const (
	// ActionResubmit sends a row back to ready_to_submit, to be looked up
	// and imported again.
	ActionResubmit Action = "resubmit"
	// ActionCancel writes a row off.
	ActionCancel Action = "cancel"
	// ActionCheckNow makes the pipeline look at a waiting row at once.
	ActionCheckNow Action = "check_now"
	// ActionClearFlag lowers the pipeline's needs_admin_attention flag.
	ActionClearFlag Action = "clear_flag"
	// ActionDismissAttention hides the row's current attention reasons until
	// a different one fires.
	ActionDismissAttention Action = "dismiss_attention"
)

var actions = newEnumTable("hand action",
	ActionResubmit,
	ActionCancel,
	ActionCheckNow,
	ActionClearFlag,
	ActionDismissAttention,
)

// Actions lists every hand action in display order; the slice is the
// caller's to keep.
func Actions() []Action { return actions.list() }

// ParseAction reads an action from a form value or its label. The error is a
// *ParseError whose message can be shown to the person.
func ParseAction(s string) (Action, error) { return actions.parse(s) }

// Valid reports whether a is one of the hand actions.
func (a Action) Valid() bool { return actions.valid(a) }

// Strictness is how careful a caller must be: one row at a time, in bulk, or
// on a teacher's behalf.
type Strictness string

// The strictness levels of the LMS's ResubmissionFacts.
const (
	// StrictnessAny is one row at a time, by a person who has looked at it.
	StrictnessAny Strictness = "any"
	// StrictnessAnyExceptSubmissionUncertain is a bulk action: uncertain
	// rows are always skipped, because settling one needs a look in Sisu.
	StrictnessAnyExceptSubmissionUncertain Strictness = "any_except_submission_uncertain"
	// StrictnessOnlyFailedPermanent is the LMS teacher's retry: only rows
	// that gave up may be resubmitted. regdesk's teachers cannot act; the
	// rule is here so the dashboard can say what the LMS would allow.
	StrictnessOnlyFailedPermanent Strictness = "only_failed_permanent"
)

// RefusalCode says why an action is refused. The LMS's codes keep its
// spelling, so its audit and ours read alike.
type RefusalCode string

// The refusal codes.
const (
	// RefusalSuperseded: a later attempt carries the credit.
	RefusalSuperseded RefusalCode = "superseded"
	// RefusalAlreadySucceeded: Sisu holds the credit.
	RefusalAlreadySucceeded RefusalCode = "already_succeeded"
	// RefusalAlreadySubmitted: the row is with Sisu, or was sent and may not
	// be resent from where it stands.
	RefusalAlreadySubmitted RefusalCode = "already_submitted"
	// RefusalSubmissionUncertain: an uncertain row in a bulk action.
	RefusalSubmissionUncertain RefusalCode = "submission_uncertain"
	// RefusalNotFailedPermanent: the teacher rule allows only failed rows.
	RefusalNotFailedPermanent RefusalCode = "not_failed_permanent"
	// RefusalStillInPipeline: the pipeline is still working on the row.
	RefusalStillInPipeline RefusalCode = "still_in_pipeline"
	// RefusalSubmissionUncertainTooRecent: an uncertain row inside
	// Suotar's pending window.
	RefusalSubmissionUncertainTooRecent RefusalCode = "submission_uncertain_too_recent"
	// RefusalSubmissionPending: Suotar may still hold the submission as
	// pending (its retryAfter, or the pending window of an accepted one).
	RefusalSubmissionPending RefusalCode = "submission_pending"
	// RefusalNeedsLookupAfterPendingWindow: a resubmit of a row Sisu may
	// hold needs a lookup made after the pending window that found nothing.
	RefusalNeedsLookupAfterPendingWindow RefusalCode = "needs_lookup_after_pending_window"
	// RefusalLookupFoundAttainment: the lookup found a match; resubmitting
	// would register the credit twice.
	RefusalLookupFoundAttainment RefusalCode = "lookup_found_attainment"
	// RefusalLookupInconclusive: the latest lookup could not settle it.
	RefusalLookupInconclusive RefusalCode = "lookup_inconclusive"
	// RefusalAlreadyCancelled: the row is cancelled.
	RefusalAlreadyCancelled RefusalCode = "already_cancelled"
	// RefusalAwaitingConfirmation: Sisu accepted the row; it is being
	// confirmed and cannot be cancelled.
	RefusalAwaitingConfirmation RefusalCode = "awaiting_confirmation"
	// RefusalNothingToCheck: the row waits for nothing a check would ask.
	RefusalNothingToCheck RefusalCode = "nothing_to_check"
	// RefusalNothingToClear: the flag is already down.
	RefusalNothingToClear RefusalCode = "nothing_to_clear"
	// RefusalNothingToDismiss: no reason applies, or every one is dismissed.
	RefusalNothingToDismiss RefusalCode = "nothing_to_dismiss"
	// RefusalUnknownState: the row is in a state this package does not know,
	// so nothing is allowed.
	RefusalUnknownState RefusalCode = "unknown_state"
	// RefusalUnknownAction: no such action.
	RefusalUnknownAction RefusalCode = "unknown_action"
)

var refusals = newEnumTable("refusal",
	RefusalSuperseded,
	RefusalAlreadySucceeded,
	RefusalAlreadySubmitted,
	RefusalSubmissionUncertain,
	RefusalNotFailedPermanent,
	RefusalStillInPipeline,
	RefusalSubmissionUncertainTooRecent,
	RefusalSubmissionPending,
	RefusalNeedsLookupAfterPendingWindow,
	RefusalLookupFoundAttainment,
	RefusalLookupInconclusive,
	RefusalAlreadyCancelled,
	RefusalAwaitingConfirmation,
	RefusalNothingToCheck,
	RefusalNothingToClear,
	RefusalNothingToDismiss,
	RefusalUnknownState,
	RefusalUnknownAction,
)

// RefusalCodes lists every refusal code; the slice is the caller's to keep.
func RefusalCodes() []RefusalCode { return refusals.list() }

// Valid reports whether c is one of the refusal codes.
func (c RefusalCode) Valid() bool { return refusals.valid(c) }

// RiskLabel is what could go wrong when an allowed action is taken.
type RiskLabel string

// The risks of the LMS's resubmission rules.
const (
	// RiskNormal is an action with no known risk.
	RiskNormal RiskLabel = "normal"
	// RiskPossibleDuplicate is a resubmit of a submission Sisu may hold.
	RiskPossibleDuplicate RiskLabel = "possible_duplicate"
	// RiskReplacesReversedAttainment is a resubmit of a reversed credit.
	RiskReplacesReversedAttainment RiskLabel = "replaces_reversed_attainment"
	// RiskLikelyRejectedAgain is a resubmit of a row Sisu will reject again
	// unless its cause was fixed.
	RiskLikelyRejectedAgain RiskLabel = "likely_rejected_again"
)

var risks = newEnumTable("risk",
	RiskNormal,
	RiskPossibleDuplicate,
	RiskReplacesReversedAttainment,
	RiskLikelyRejectedAgain,
)

// RiskLabels lists every risk; the slice is the caller's to keep.
func RiskLabels() []RiskLabel { return risks.list() }

// Valid reports whether r is one of the risks.
func (r RiskLabel) Valid() bool { return risks.valid(r) }

// NeedsConfirmation reports whether a person must confirm the risk by name
// before the action is taken.
func (r RiskLabel) NeedsConfirmation() bool { return r != "" && r != RiskNormal }

// FoundMatch reports whether the verdict says Sisu holds a matching
// attainment.
func (k VerdictKind) FoundMatch() bool {
	return k == VerdictRegistered || k == VerdictPartlyRegistered
}

// LookupFacts summarise a person's latest lookup of a row in Sisu.
type LookupFacts struct {
	// At is when the lookup was made.
	At time.Time
	// Verdict is what it concluded.
	Verdict VerdictKind
	// MatchID and MatchType name the matching attainment when Verdict found
	// one ("" otherwise).
	MatchID, MatchType string
	// MatchOurs is true when the match is the attainment this submission
	// created (its id is the submitted attainment id) or the course unit
	// attainment built from it.
	MatchOurs bool
	// Unanswered are the lookup's calls that brought no usable answer. Such
	// a lookup shows nothing absent, whatever its verdict says, so it never
	// permits a resubmit.
	Unanswered []LookupCall
	// Pending is true when Suotar's verify answer said it still holds the
	// submission as pending; PendingUntil is its retryAfter, nil when Suotar
	// did not say or it could not be read (never read as "no wait").
	Pending      bool
	PendingUntil *time.Time
}

// Facts are what the rules read about a row.
type Facts struct {
	// Row is the row as Classify reads it: state, superseded, submitted_at,
	// resubmit_not_before, partially_registered_at, error code, flag and
	// live dismissal.
	Row Row
	// SubmittedAttainmentID is the id Suotar returned for the last
	// submission; "" when NULL (never sent, or Suotar said notRegistered).
	SubmittedAttainmentID string
	// Lookup is the row's latest lookup in Sisu; nil when there is none.
	Lookup *LookupFacts
	// MatchLinkedTo is the id of another ledger row that already holds the
	// lookup's matched attainment as its Sisu attainment; "" when none.
	MatchLinkedTo string
}

// CheckTarget is what Check now asks about.
type CheckTarget string

// The check targets.
const (
	// CheckAttainment asks Sisu whether the attainment is there; it never
	// sends anything.
	CheckAttainment CheckTarget = "attainment"
	// CheckEnrolment asks Sisu for the student's enrolment.
	CheckEnrolment CheckTarget = "enrolment"
	// CheckNextAttempt ends the row's backoff, so it resumes at once.
	CheckNextAttempt CheckTarget = "next_attempt"
)

// Decision is whether an action is allowed on a row now, and why not.
type Decision struct {
	// Action is the action decided on.
	Action Action
	// Allowed is true when the action may be taken.
	Allowed bool
	// Refusal says why not; "" when allowed.
	Refusal RefusalCode
	// AvailableAt is when waiting alone lifts the refusal; nil when waiting
	// will not (or the action is allowed).
	AvailableAt *time.Time
	// Risk is what could go wrong; set only when allowed.
	Risk RiskLabel
	// Target is the state the row would be in after the action (its current
	// state for actions that do not move it); "" when refused.
	Target State
	// Check is what Check now would ask about; "" for other actions.
	Check CheckTarget
	// Reasons are the attention reasons Dismiss attention would dismiss.
	Reasons []Reason
	// Say names the decision's sentence for the edge's catalogue, which words it in each
	// language: "refusal.<code>" for a refusal's own words, else the case that decided it (with
	// ".until" for the sentence naming AvailableAt). It never changes for a case.
	Say string
	// SayCall is the lookup call a refusal names; "" when it names none.
	SayCall LookupCall
}

// Decide says whether a person may take action on the row described by f at
// now, under strictness s. It is the only place these rules live: the page
// draws buttons from it and the store recomputes it on the locked row before
// writing.
func Decide(action Action, f Facts, s Strictness, now time.Time) Decision {
	var d Decision
	switch {
	case !action.Valid():
		d = refuse(RefusalUnknownAction, "")
	case !f.Row.State.Valid():
		d = refuse(RefusalUnknownState, "")
	case f.Row.Superseded:
		d = refuse(RefusalSuperseded, "")
	default:
		switch action {
		case ActionResubmit:
			d = decideResubmit(f, s, now)
		case ActionCancel:
			d = decideCancel(f, s)
		case ActionCheckNow:
			d = decideCheckNow(f, s)
		case ActionClearFlag:
			d = decideClearFlag(f, s)
		case ActionDismissAttention:
			d = decideDismiss(f, s, now)
		}
	}
	d.Action = action
	if d.Allowed && d.Risk == "" {
		d.Risk = RiskNormal
	}
	return d
}

// DecideAll decides every action of Actions(), in that order: what a page
// needs to draw a row's buttons.
func DecideAll(f Facts, s Strictness, now time.Time) []Decision {
	out := make([]Decision, 0, len(actions.values))
	for _, a := range Actions() {
		out = append(out, Decide(a, f, s, now))
	}
	return out
}

// refuse builds a refusal; say "" takes the code's own sentence.
func refuse(code RefusalCode, say string) Decision {
	if say == "" {
		say = "refusal." + string(code)
	}
	return Decision{Refusal: code, Say: say}
}

// refuseCall builds a refusal whose words name the lookup call that failed.
func refuseCall(code RefusalCode, say string, call LookupCall) Decision {
	d := refuse(code, say)
	d.SayCall = call
	return d
}

// refuseUntil builds a refusal that waiting until at lifts; its sentence names at.
func refuseUntil(code RefusalCode, at time.Time, say string) Decision {
	d := refuse(code, say)
	d.AvailableAt = &at
	return d
}

func allow(target State, say string) Decision {
	return Decision{Allowed: true, Target: target, Say: say}
}

// sent reports whether Sisu has, or is confirming, what was sent: the
// states in which a resend or a cancel could leave two credits or lose one.
func sent(s State) bool {
	return s == StateSubmitting || s == StateAwaitingVerification || s == StatePartiallyRegistered
}

// permitsResend is the LMS's rule 5: the states a row that was ever sent may
// be resubmitted from. It blocks laundering a sent row through cancel and
// resubmit.
func permitsResend(st State, s Strictness) bool {
	switch {
	case sent(st), st.IsSuccess(), st == StateCancelled:
		return false
	case st == StateSubmissionUncertain:
		return s == StrictnessAny
	}
	return true
}

// inPipeline lists the states the pipeline is still working through.
func inPipeline(st State) bool {
	switch st {
	case StatePending, StateBlocked, StateReadyToSubmit, StateResolvingEnrolment,
		StateCheckingEnrolment, StateNoUsableEnrolment:
		return true
	}
	return false
}

// mayHoldSubmission reports whether Sisu may hold the row's last submission:
// it is uncertain, or Suotar accepted it (an id is kept) and nothing since
// showed it lost. A reversed credit does not count; its risk is its own.
func mayHoldSubmission(f Facts) bool {
	switch f.Row.State {
	case StateSubmissionUncertain:
		return true
	case StateMisregistered:
		return false
	}
	return f.SubmittedAttainmentID != ""
}

func laterOf(a *time.Time, b time.Time) time.Time {
	if a != nil && a.After(b) {
		return *a
	}
	return b
}

func decideResubmit(f Facts, s Strictness, now time.Time) Decision {
	r := f.Row
	st := r.State
	switch {
	case st.IsSuccess():
		return refuse(RefusalAlreadySucceeded, "")
	case sent(st):
		return refuse(RefusalAlreadySubmitted, "resubmit.1")
	case s != StrictnessAny && st == StateSubmissionUncertain:
		return refuse(RefusalSubmissionUncertain, "")
	case r.SubmittedAt != nil && !permitsResend(st, s):
		return refuse(RefusalAlreadySubmitted, "resubmit.2")
	case s == StrictnessOnlyFailedPermanent && st != StateFailedPermanent:
		return refuse(RefusalNotFailedPermanent, "")
	case inPipeline(st):
		return refuse(RefusalStillInPipeline, "")
	}

	// A latest lookup that found the credit in Sisu, or something there that looks like it but
	// differs, refuses a resend whatever the row's state: its verdict tells the person not to
	// resubmit, and a page never offers what its verdict warns against. Only a newer lookup that
	// finds neither lifts it. This comes before the pending-window waits, whose "until" would read
	// as if waiting made a resend safe.
	if lk := f.Lookup; lk != nil {
		switch {
		case lk.Verdict.FoundMatch() && st == StateSubmissionUncertain:
			return refuse(RefusalLookupFoundAttainment, "resubmit.4")
		case lk.Verdict.FoundMatch():
			return refuse(RefusalLookupFoundAttainment, "")
		case lk.Verdict == VerdictConflicting:
			return refuse(RefusalLookupInconclusive, "resubmit.conflict")
		}
	}

	uncertain := st == StateSubmissionUncertain
	mayHold := mayHoldSubmission(f)
	if mayHold && r.SubmittedAt == nil {
		// Without a submission time nobody can tell when Suotar's pending
		// window ends, so no wait and no lookup can make a resend safe.
		code := RefusalSubmissionPending
		if uncertain {
			code = RefusalSubmissionUncertainTooRecent
		}
		return refuse(code, "resubmit.3")
	}
	var windowEnd time.Time
	if mayHold {
		windowEnd = r.SubmittedAt.Add(SuotarPendingWindow)
	}
	if uncertain && now.Before(windowEnd) {
		// Waiting lifts the refusal only once both the window and Suotar's retryAfter have
		// passed: name the later, as the LMS's resubmission_availability does.
		return refuseUntil(RefusalSubmissionUncertainTooRecent, laterOf(r.ResubmitNotBefore, windowEnd), "resubmit.7")
	}
	if r.ResubmitNotBefore != nil && now.Before(*r.ResubmitNotBefore) {
		at := *r.ResubmitNotBefore
		if mayHold && !uncertain {
			at = laterOf(r.ResubmitNotBefore, windowEnd)
		}
		return refuseUntil(RefusalSubmissionPending, at, "resubmit.8")
	}
	if mayHold && !uncertain && now.Before(windowEnd) {
		// The LMS lets a failed row that Suotar had accepted be resubmitted
		// at once; inside the pending window that second import can slip
		// past Suotar's duplicate check, so regdesk waits as for an
		// uncertain row.
		return refuseUntil(RefusalSubmissionPending, windowEnd, "resubmit.9")
	}
	if mayHold {
		lk := f.Lookup
		switch {
		case lk == nil || lk.At.Before(windowEnd):
			return refuse(RefusalNeedsLookupAfterPendingWindow, "")
		case len(lk.Unanswered) > 0:
			return refuseCall(RefusalLookupInconclusive, "resubmit.call", lk.Unanswered[0])
		case lk.Pending && lk.PendingUntil == nil:
			return refuse(RefusalSubmissionPending, "resubmit.5")
		case lk.Pending && now.Before(*lk.PendingUntil):
			return refuseUntil(RefusalSubmissionPending, *lk.PendingUntil, "resubmit.10")
		case lk.Pending:
			// Suotar's answer was about the moment of the lookup: only a lookup after its
			// retryAfter can show the submission has left the pending set.
			return refuse(RefusalNeedsLookupAfterPendingWindow, "resubmit.6")
		case lk.Verdict != VerdictNotInSisu:
			return refuse(RefusalLookupInconclusive, "")
		}
	} else if lk := f.Lookup; lk != nil {
		// Sisu should not hold a row Suotar never accepted, but a lookup that says it cannot
		// tell, or that Suotar still holds a submission as pending, is read the same way: its
		// verdict tells the person not to resend, so the panel does not offer it.
		switch {
		case len(lk.Unanswered) > 0:
			return refuseCall(RefusalLookupInconclusive, "resubmit.call", lk.Unanswered[0])
		case lk.Pending && lk.PendingUntil == nil:
			return refuse(RefusalSubmissionPending, "resubmit.5")
		case lk.Pending && now.Before(*lk.PendingUntil):
			return refuseUntil(RefusalSubmissionPending, *lk.PendingUntil, "resubmit.10")
		}
	}

	d := allow(StateReadyToSubmit, "resubmit.allow")
	switch {
	case mayHold:
		d.Risk = RiskPossibleDuplicate
	case st == StateMisregistered:
		d.Risk = RiskReplacesReversedAttainment
	case st == StateFailedPermanent && r.ErrorCode.IsRepeatableRejection():
		d.Risk = RiskLikelyRejectedAgain
	}
	return d
}

func decideCancel(f Facts, s Strictness) Decision {
	st := f.Row.State
	switch {
	case st.IsSuccess():
		return refuse(RefusalAlreadySucceeded, "cancel.1")
	case st == StateCancelled:
		return refuse(RefusalAlreadyCancelled, "")
	case st == StateSubmitting:
		return refuse(RefusalAlreadySubmitted, "cancel.2")
	case st == StateAwaitingVerification || st == StatePartiallyRegistered:
		return refuse(RefusalAwaitingConfirmation, "")
	case st == StateSubmissionUncertain && s != StrictnessAny:
		return refuse(RefusalSubmissionUncertain, "")
	}
	return allow(StateCancelled, "cancel.allow")
}

func decideCheckNow(f Facts, s Strictness) Decision {
	st := f.Row.State
	if st == StateSubmissionUncertain && s != StrictnessAny {
		return refuse(RefusalSubmissionUncertain, "")
	}
	var d Decision
	switch st {
	case StateAwaitingVerification, StatePartiallyRegistered, StateSubmissionUncertain:
		d = allow(st, "check_now.verify")
		d.Check = CheckAttainment
	case StateNoUsableEnrolment:
		d = allow(st, "check_now.enrolment")
		d.Check = CheckEnrolment
	case StateFailedRetryable:
		d = allow(st, "check_now.backoff")
		d.Check = CheckNextAttempt
	default:
		return refuse(RefusalNothingToCheck, "")
	}
	return d
}

func decideClearFlag(f Facts, s Strictness) Decision {
	switch {
	case f.Row.State == StateSubmissionUncertain && s != StrictnessAny:
		return refuse(RefusalSubmissionUncertain, "")
	case !f.Row.NeedsAdminAttention:
		return refuse(RefusalNothingToClear, "")
	}
	return allow(f.Row.State, "clear_flag.allow")
}

func decideDismiss(f Facts, s Strictness, now time.Time) Decision {
	if f.Row.State == StateSubmissionUncertain && s != StrictnessAny {
		return refuse(RefusalSubmissionUncertain, "")
	}
	st := Classify(f.Row, now)
	switch {
	case st.Reasons.Empty():
		return refuse(RefusalNothingToDismiss, "dismiss.1")
	case st.Dismissed:
		return refuse(RefusalNothingToDismiss, "dismiss.2")
	}
	d := allow(f.Row.State, "dismiss.allow")
	d.Reasons = st.Reasons.List()
	return d
}
