package schedule

import (
	"math"
	"time"
)

// Row holds the facts of one live ledger row that classification reads. A deleted row is no
// row: the store never reads one.
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
	// TerminalAt is terminal_at; nil when NULL. The LMS's detectors test it, not the state: a row
	// whose terminal_at is NULL is still the pipeline's, whatever its state says.
	TerminalAt *time.Time
	// FirstFailedAt anchors the retry window; nil when NULL.
	FirstFailedAt *time.Time
	// SubmittedAt anchors every verify and uncertain window; nil when NULL.
	SubmittedAt *time.Time
	// PartiallyRegisteredAt is the first sighting of a partial
	// registration; nil when NULL.
	PartiallyRegisteredAt *time.Time
	// ResubmitNotBefore is Suotar's retryAfter; nil when NULL. Classify does
	// not read it; it is here so the store fills one struct for every
	// rule about a row.
	ResubmitNotBefore *time.Time
	// SubmitRetryCount is submit_retry_count.
	SubmitRetryCount int32
	// VerifyAttemptCount is verify_attempt_count.
	VerifyAttemptCount int32
	// NotRegisteredReimportCount is not_registered_reimport_count.
	NotRegisteredReimportCount int32
	// CourseModuleID is the row's course module, and CourseCode its module's course code now,
	// trimmed ("" when it has none): only BlockingProblems reads them, so a caller that passes
	// none may leave them empty.
	CourseModuleID string
	CourseCode     string
	// Linking is what ReasonStudentNumberStuck reads; its zero value is "not stuck".
	Linking LinkingFacts
	// DismissedReasons are the reasons covered by the row's live attention
	// dismissal; nil if none. Names this package does not know cover nothing.
	DismissedReasons []Reason
}

// Status is where a row stands at an instant, as Classify sees it. It holds no pointer and no
// slice, so classifying a row allocates nothing.
type Status struct {
	// Phase is the row's phase; for a state this package does not know yet,
	// the state's raw value, so the row shows as what it is rather than under
	// a wrong phase.
	Phase Phase
	// Reasons holds every reason that applies now, dismissed or not; empty when none does (the row
	// is not on the LMS's Needs attention tab at all). Its List is in Reasons() order.
	Reasons ReasonSet
	// Standing is where the LMS lists the row: the zero Standing when Reasons is empty.
	Standing Standing
	// NeedsAdmin is Standing == StandingNeedsAttention: the row is on the needs-a-person list.
	// Every submission_uncertain row is, from its first moment, unless a person dismissed it.
	NeedsAdmin bool
	// Dismissed is Standing == StandingDismissed: reasons apply and the live dismissal covers
	// every one of them.
	Dismissed bool
	// Notes are what regdesk shows beyond the reasons (Note); they change no standing.
	Notes NoteSet
	// NextCheckAt is when the pipeline will next look at the row; the zero
	// time when it never will. It may be in the past: the row is then due or
	// overdue.
	NextCheckAt time.Time
	// EscalatesAt is the earliest instant after now at which, if nothing else happens, a
	// person-level reason the row lacks starts to apply (partly_registered_overdue,
	// verification_gave_up) or a note that hands it to a person appears (the pipeline flags an
	// uncertain row, the recovery sweep is overdue, the retry window is over); the zero time if
	// none will.
	EscalatesAt time.Time
}

// Classify says where row r stands at now with no blocking problem known: ClassifyWith(r, now,
// nil). It is what every store read passes today: regdesk's copy of the ledger cannot see the
// problems the LMS's alert rules find.
func Classify(r Row, now time.Time) Status { return ClassifyWith(r, now, nil) }

// ClassifyWith says where row r stands at now, given the blocking problems known (nil: none): its
// phase, the LMS's attention reasons and standing, regdesk's notes, and when the pipeline will
// next look at it and the row will next escalate. It reads nothing but its arguments, and
// allocates nothing: every queue row and page pays for it.
func ClassifyWith(r Row, now time.Time, problems *BlockingProblems) Status {
	if r.Superseded {
		// A later attempt carries the credit; this row is history, and outside every detector.
		return Status{Phase: PhaseSuperseded}
	}
	var a ages
	a.fill(&r, now)
	reasons := reasonsAt(&r, &a)
	notes := notesAt(&r, &a)
	standing := standingOf(&r, reasons, problems)
	next, _ := nextCheckAt(&r, a.k)
	return Status{
		Phase:       phaseAt(&r, &a),
		Reasons:     reasons,
		Standing:    standing,
		NeedsAdmin:  standing == StandingNeedsAttention,
		Dismissed:   standing == StandingDismissed,
		Notes:       notes,
		NextCheckAt: next,
		EscalatesAt: escalatesAt(&r, &a, reasons, notes),
	}
}

// kind is a state as one bit, read once per row: every rule below then tests a set of states
// with one AND instead of comparing strings.
type kind uint32

const (
	kPending kind = 1 << iota
	kReadyToSubmit
	kResolvingEnrolment
	kCheckingEnrolment
	kNoUsableEnrolment
	kSubmitting
	kSubmissionUncertain
	kAwaitingVerification
	kPartiallyRegistered
	kRegistered
	kDuplicate
	kNotImproved
	kMisregistered
	kFailedRetryable
	kFailedPermanent
	kBlocked
	kCancelled
)

const (
	kTerminal     = kRegistered | kDuplicate | kNotImproved | kFailedPermanent | kCancelled
	kVerification = kSubmissionUncertain | kAwaitingVerification | kPartiallyRegistered
)

// kindOf is s's bit; 0 for a state this package does not know. State.IsTerminal and
// State.InVerification say the same as kTerminal and kVerification (TestKindsAgreeWithStates).
func kindOf(s State) kind {
	switch s {
	case StatePending:
		return kPending
	case StateReadyToSubmit:
		return kReadyToSubmit
	case StateResolvingEnrolment:
		return kResolvingEnrolment
	case StateCheckingEnrolment:
		return kCheckingEnrolment
	case StateNoUsableEnrolment:
		return kNoUsableEnrolment
	case StateSubmitting:
		return kSubmitting
	case StateSubmissionUncertain:
		return kSubmissionUncertain
	case StateAwaitingVerification:
		return kAwaitingVerification
	case StatePartiallyRegistered:
		return kPartiallyRegistered
	case StateRegistered:
		return kRegistered
	case StateDuplicate:
		return kDuplicate
	case StateNotImproved:
		return kNotImproved
	case StateMisregistered:
		return kMisregistered
	case StateFailedRetryable:
		return kFailedRetryable
	case StateFailedPermanent:
		return kFailedPermanent
	case StateBlocked:
		return kBlocked
	case StateCancelled:
		return kCancelled
	}
	return 0
}

// stuckThreshold is StuckThreshold by kind.
func stuckThreshold(k kind) (time.Duration, bool) {
	switch k {
	case kReadyToSubmit:
		return 2 * time.Hour, true
	case kSubmitting:
		return 15 * time.Minute, true
	case kAwaitingVerification:
		return 24 * time.Hour, true
	case kFailedRetryable:
		return 3 * 24 * time.Hour, true
	}
	return 0, false
}

// ages holds how long ago each instant a rule reads was, each subtracted once: the rules then
// compare durations, and only the one escalation that is reported needs an instant again.
type ages struct {
	// nowSec and nowNsec are now as Unix seconds and nanoseconds: taking each age from them is a
	// few integer operations, where time.Time.Sub's monotonic and overflow checks cost several
	// times that, once per instant per row.
	nowSec  int64
	nowNsec int64
	k       kind
	// submitted is now − submitted_at; hasSubmitted is false when it is NULL.
	submitted    time.Duration
	hasSubmitted bool
	// partial is now − partially_registered_at, for partially_registered rows.
	partial    time.Duration
	hasPartial bool
	// firstFailed is now − first_failed_at, for failed_retryable rows.
	firstFailed    time.Duration
	hasFirstFailed bool
	// since is how long a submitting or resolving_enrolment row has been so, as the recovery sweep
	// times it.
	since time.Duration
}

// fill computes r's ages at now in place; the struct is large enough that returning it by value
// would cost a copy per row.
func (a *ages) fill(r *Row, now time.Time) {
	a.nowSec, a.nowNsec, a.k = now.Unix(), int64(now.Nanosecond()), kindOf(r.State)
	if r.SubmittedAt != nil && a.k&(kVerification|kSubmitting) != 0 {
		a.submitted, a.hasSubmitted = a.age(*r.SubmittedAt), true
	}
	switch a.k {
	case kPartiallyRegistered:
		if r.PartiallyRegisteredAt != nil {
			a.partial, a.hasPartial = a.age(*r.PartiallyRegisteredAt), true
		}
	case kFailedRetryable:
		if r.FirstFailedAt != nil {
			a.firstFailed, a.hasFirstFailed = a.age(*r.FirstFailedAt), true
		}
	case kSubmitting:
		a.since = a.submitted
		if !a.hasSubmitted {
			a.since = a.age(r.StateEnteredAt)
		}
	case kResolvingEnrolment:
		a.since = a.age(r.StateEnteredAt)
	}
}

// maxAgeSec is the largest age in whole seconds a time.Duration holds; beyond it age saturates,
// as time.Time.Sub does.
const maxAgeSec = int64(math.MaxInt64/time.Second) - 1

// age is now − t, saturated at the durations' range as time.Time.Sub is. Ledger instants carry
// no monotonic reading, so the wall clock is what Sub would use too (TestAgeAgreesWithSub).
func (a *ages) age(t time.Time) time.Duration {
	secs := a.nowSec - t.Unix()
	switch {
	case secs > maxAgeSec:
		return time.Duration(math.MaxInt64)
	case secs < -maxAgeSec:
		return time.Duration(math.MinInt64)
	}
	return time.Duration(secs)*time.Second + time.Duration(a.nowNsec-int64(t.Nanosecond()))
}

// dismissedSet reads a dismissal's reasons; nearly every row has none.
func dismissedSet(dismissed []Reason) ReasonSet {
	var set ReasonSet
	for _, reason := range dismissed {
		set |= reasonBit(reason)
	}
	return set
}

func phaseAt(r *Row, a *ages) Phase {
	k := a.k
	switch {
	case k&kVerification != 0:
		if !a.hasSubmitted {
			return PhaseDenseWindow
		}
		return verificationPhase(a.submitted)
	case k == kPending:
		return PhaseAwaitingPreconditions
	case k&(kReadyToSubmit|kResolvingEnrolment) != 0:
		return PhaseFindingEnrolment
	case k == kNoUsableEnrolment:
		return PhaseWaitingForEnrolment
	case k == kCheckingEnrolment:
		return PhaseQueuedForImport
	case k == kSubmitting:
		return PhaseSubmitting
	case k == kFailedRetryable:
		return PhaseSubmitBackoff
	case k&(kRegistered|kDuplicate|kNotImproved) != 0:
		return PhaseSettled
	case k == kFailedPermanent:
		return PhaseFailed
	case k == kMisregistered:
		return PhaseReversed
	case k == kBlocked:
		return PhaseBlocked
	case k == kCancelled:
		return PhaseCancelled
	}
	// A state this package does not know yet; its raw value keeps it
	// visible rather than filed under a wrong phase.
	return Phase(r.State)
}

// reasonsAt is attention.rs's detectors. Its windows compare the age with the window as the
// LMS's SQL does (submitted_at <= now - 14 days); for a window of whole seconds that is also the
// pipeline's whole-second window_expired, so the row gives up exactly when verify drops to daily
// polls (PhasePastGiveUpAge).
func reasonsAt(r *Row, a *ages) ReasonSet {
	k := a.k
	// The LMS tests terminal_at, not the state (attention.rs: terminal_at IS NULL).
	open := r.TerminalAt == nil
	var out ReasonSet
	add := func(bit ReasonSet, applies bool) {
		if applies {
			out |= bit
		}
	}
	if open {
		if threshold, ok := stuckThreshold(k); ok {
			add(bitStuckInState, a.age(r.StateChangedAt) > threshold)
		}
	}
	add(bitPermanentError, k == kFailedPermanent && r.NeedsAdminAttention && r.ErrorCode != ErrorRetryWindowExpired)
	add(bitRetryWindowExpired, r.ErrorCode == ErrorRetryWindowExpired)
	add(bitMisregistered, k == kMisregistered)
	add(bitTooManyAttempts, open && r.SubmitRetryCount >= TooManySubmitRetries)
	add(bitOutcomeUncertain, k == kSubmissionUncertain)
	add(bitPartlyRegisteredOverdue, a.hasPartial && a.partial >= PartialRegistrationAdminAfter)
	add(bitVerificationGaveUp, k&(kAwaitingVerification|kPartiallyRegistered) != 0 && a.hasSubmitted && a.submitted >= VerifyMaxAge)
	add(bitRepeatedlyNotRegistered, open && r.NotRegisteredReimportCount >= NotRegisteredReimportAdminThreshold)
	add(bitStudentNumberStuck, k == kPending && r.Linking.stuck())
	add(bitFlaggedByPipeline, r.NeedsAdminAttention && out == 0)
	return out
}

// notesAt is what regdesk shows of the row beyond the LMS's reasons (Note). The uncertain and
// retry windows are the pipeline's whole-second ones (UncertainNeedsAdmin, SubmitWindowExpired);
// the recovery sweep's graces are strict (preconditions.rs: since < now − grace): exactly at the
// grace's end the worker may still answer.
func notesAt(r *Row, a *ages) NoteSet {
	k := a.k
	var out NoteSet
	add := func(bit NoteSet, applies bool) {
		if applies {
			out |= bit
		}
	}
	if k == kSubmissionUncertain {
		add(noteSubmissionTimeMissing, !a.hasSubmitted)
		add(noteUncertainOverdue, a.hasSubmitted && expiredAfter(a.submitted, UncertainAdminAfter))
	}
	add(notePastRecoveryGrace,
		(k == kSubmitting && a.since > SubmittingRecoveryGrace) ||
			(k == kResolvingEnrolment && a.since > ResolvingRecoveryGrace))
	add(noteRetryWindowOver, a.hasFirstFailed && expiredAfter(a.firstFailed, SubmitMaxRetryAge))
	return out
}

// submittingSince is what the recovery sweep times a submitting row from:
// submitted_at, re-stamped for each resent half of a split batch, else
// state_entered_at.
func submittingSince(r *Row) time.Time {
	if r.SubmittedAt != nil {
		return *r.SubmittedAt
	}
	return r.StateEnteredAt
}

// neverUnix is Never in Unix seconds; Never is a whole second, so comparing seconds is Before.
var neverUnix = Never.Unix()

// nextCheckAt says when the pipeline will next act on r; ok is false when it
// never will. submitting and resolving_enrolment rows are acted on by the
// recovery sweep, which does not look at next_attempt_at, so their time is
// the end of the recovery grace even if next_attempt_at says Never.
func nextCheckAt(r *Row, k kind) (at time.Time, ok bool) {
	switch {
	case k&(kTerminal|kMisregistered) != 0:
		return time.Time{}, false
	case k == kSubmitting:
		return submittingSince(r).Add(SubmittingRecoveryGrace), true
	case k == kResolvingEnrolment:
		return r.StateEnteredAt.Add(ResolvingRecoveryGrace), true
	case r.NextAttemptAt.Unix() >= neverUnix:
		return time.Time{}, false
	}
	return r.NextAttemptAt, true
}

// escalatesAt is the earliest instant after now at which a person-level reason or a note that
// hands the row to a person starts (Status.EscalatesAt): the end of a window, which the
// comparisons reach exactly at reference + window, or an instant after a strict grace's end. It
// skips what the row has already. The zero time is none. A rule is still ahead exactly when its
// reference's age is short of the window, so only the rule reported costs an addition.
func escalatesAt(r *Row, a *ages, reasons ReasonSet, notes NoteSet) time.Time {
	// The rules are compared by how long is left until each fires, a subtraction of durations
	// already taken; only the winner becomes an instant, from its own reference.
	var (
		found  bool
		left   time.Duration
		from   time.Time
		window time.Duration
	)
	consider := func(age, win time.Duration, ahead bool, ref time.Time) {
		if !ahead {
			return
		}
		if l := win - age; !found || l < left {
			found, left, from, window = true, l, ref, win
		}
	}
	switch a.k {
	case kSubmissionUncertain:
		if a.hasSubmitted && notes&noteUncertainOverdue == 0 {
			consider(a.submitted, UncertainAdminAfter, a.submitted < UncertainAdminAfter, *r.SubmittedAt)
		}
	case kPartiallyRegistered:
		if a.hasPartial && reasons&bitPartlyRegisteredOverdue == 0 {
			consider(a.partial, PartialRegistrationAdminAfter, a.partial < PartialRegistrationAdminAfter, *r.PartiallyRegisteredAt)
		}
	case kFailedRetryable:
		if a.hasFirstFailed && notes&noteRetryWindowOver == 0 {
			consider(a.firstFailed, SubmitMaxRetryAge, a.firstFailed < SubmitMaxRetryAge, *r.FirstFailedAt)
		}
	case kSubmitting:
		consider(a.since, SubmittingRecoveryGrace+time.Nanosecond, a.since <= SubmittingRecoveryGrace, submittingSince(r))
	case kResolvingEnrolment:
		consider(a.since, ResolvingRecoveryGrace+time.Nanosecond, a.since <= ResolvingRecoveryGrace, r.StateEnteredAt)
	}
	if a.k&(kAwaitingVerification|kPartiallyRegistered) != 0 && a.hasSubmitted && reasons&bitVerificationGaveUp == 0 {
		consider(a.submitted, VerifyMaxAge, a.submitted < VerifyMaxAge, *r.SubmittedAt)
	}
	if !found {
		return time.Time{}
	}
	return from.Add(window)
}
