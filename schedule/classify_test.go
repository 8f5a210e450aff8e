package schedule_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"regdesk/schedule"
)

// row builds a quiet row in state at t0: entered and changed a minute ago,
// due in five minutes, nothing wrong. Options change one fact each.
func row(state schedule.State, opts ...func(*schedule.Row)) schedule.Row {
	r := schedule.Row{
		State:          state,
		StateEnteredAt: t0.Add(-time.Minute),
		StateChangedAt: t0.Add(-time.Minute),
		NextAttemptAt:  t0.Add(5 * time.Minute),
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func submittedAgo(d time.Duration) func(*schedule.Row) {
	return func(r *schedule.Row) { r.SubmittedAt = ptr(t0.Add(-d)) }
}

func partialAgo(d time.Duration) func(*schedule.Row) {
	return func(r *schedule.Row) { r.PartiallyRegisteredAt = ptr(t0.Add(-d)) }
}

func firstFailedAgo(d time.Duration) func(*schedule.Row) {
	return func(r *schedule.Row) { r.FirstFailedAt = ptr(t0.Add(-d)) }
}

func enteredAgo(d time.Duration) func(*schedule.Row) {
	return func(r *schedule.Row) { r.StateEnteredAt = t0.Add(-d) }
}

func changedAgo(d time.Duration) func(*schedule.Row) {
	return func(r *schedule.Row) { r.StateChangedAt = t0.Add(-d) }
}

func nextAttempt(at time.Time) func(*schedule.Row) {
	return func(r *schedule.Row) { r.NextAttemptAt = at }
}

func code(c schedule.ErrorCode) func(*schedule.Row) {
	return func(r *schedule.Row) { r.ErrorCode = c }
}

func flagged(r *schedule.Row) { r.NeedsAdminAttention = true }

// terminal stamps terminal_at, as the pipeline does on entering a terminal state.
func terminal(r *schedule.Row) { r.TerminalAt = ptr(r.StateChangedAt) }

// linking sets what student_number_stuck reads: a student awaiting a number pressed pressedAgo
// ago, and the code's latest mailing fetch started fetchedAgo ago.
func linking(pressedAgo, fetchedAgo time.Duration) func(*schedule.Row) {
	return func(r *schedule.Row) {
		r.Linking = schedule.LinkingFacts{AwaitsStudentNumber: true, PressedAt: ptr(t0.Add(-pressedAgo)),
			LastMailingFetchStartedAt: ptr(t0.Add(-fetchedAgo))}
	}
}

func superseded(r *schedule.Row) { r.Superseded = true }

func retries(n int32) func(*schedule.Row) {
	return func(r *schedule.Row) { r.SubmitRetryCount = n }
}

func reimports(n int32) func(*schedule.Row) {
	return func(r *schedule.Row) { r.NotRegisteredReimportCount = n }
}

func dismissed(reasons ...schedule.Reason) func(*schedule.Row) {
	return func(r *schedule.Row) { r.DismissedReasons = reasons }
}

func TestClassifyPhaseOfEveryState(t *testing.T) {
	t.Parallel()

	want := map[schedule.State]schedule.Phase{
		schedule.StatePending:              schedule.PhaseAwaitingPreconditions,
		schedule.StateReadyToSubmit:        schedule.PhaseFindingEnrolment,
		schedule.StateResolvingEnrolment:   schedule.PhaseFindingEnrolment,
		schedule.StateCheckingEnrolment:    schedule.PhaseQueuedForImport,
		schedule.StateNoUsableEnrolment:    schedule.PhaseWaitingForEnrolment,
		schedule.StateSubmitting:           schedule.PhaseSubmitting,
		schedule.StateSubmissionUncertain:  "", // by age, below
		schedule.StateAwaitingVerification: "",
		schedule.StatePartiallyRegistered:  "",
		schedule.StateRegistered:           schedule.PhaseSettled,
		schedule.StateDuplicate:            schedule.PhaseSettled,
		schedule.StateNotImproved:          schedule.PhaseSettled,
		schedule.StateMisregistered:        schedule.PhaseReversed,
		schedule.StateFailedRetryable:      schedule.PhaseSubmitBackoff,
		schedule.StateFailedPermanent:      schedule.PhaseFailed,
		schedule.StateBlocked:              schedule.PhaseBlocked,
		schedule.StateCancelled:            schedule.PhaseCancelled,
	}
	if got, want := len(want), len(schedule.States()); got != want {
		t.Fatalf("table covers %d states, want %d", got, want)
	}
	// For a verification state, the phase the age gives.
	ages := []struct {
		age  time.Duration
		want schedule.Phase
	}{
		{-time.Hour, schedule.PhaseWaiting},
		{0, schedule.PhaseWaiting},
		{5 * time.Hour, schedule.PhaseDenseWindow},
		{12 * time.Hour, schedule.PhaseLateWindow},
		{2 * day, schedule.PhaseBackingOff},
		{20 * day, schedule.PhasePastGiveUpAge},
	}
	for _, state := range schedule.States() {
		t.Run(string(state), func(t *testing.T) {
			t.Parallel()

			for _, a := range ages {
				r := row(state, submittedAgo(a.age), enteredAgo(a.age), changedAgo(a.age))
				wantPhase := want[state]
				if state.InVerification() {
					wantPhase = a.want
				}
				if got := schedule.Classify(r, t0).Phase; got != wantPhase {
					t.Errorf("Classify(%s submitted %v ago).Phase = %q, want %q", state, a.age, got, wantPhase)
				}
				superseded := row(state, submittedAgo(a.age), superseded)
				if got := schedule.Classify(superseded, t0).Phase; got != schedule.PhaseSuperseded {
					t.Errorf("Classify(superseded %s).Phase = %q, want %q", state, got, schedule.PhaseSuperseded)
				}
			}
		})
	}
}

func TestVerificationPhaseAtBoundaries(t *testing.T) {
	t.Parallel()

	const ns = time.Nanosecond
	tests := []struct {
		age  time.Duration
		want schedule.Phase
	}{
		{-day, schedule.PhaseWaiting},
		{0, schedule.PhaseWaiting},
		{270*time.Minute - time.Second, schedule.PhaseWaiting},
		{270*time.Minute - ns, schedule.PhaseWaiting},
		{270 * time.Minute, schedule.PhaseDenseWindow},
		{270*time.Minute + ns, schedule.PhaseDenseWindow},
		{630*time.Minute - ns, schedule.PhaseDenseWindow},
		{630 * time.Minute, schedule.PhaseLateWindow},
		{29*time.Hour - ns, schedule.PhaseLateWindow},
		{29 * time.Hour, schedule.PhaseBackingOff},
		{14*day - time.Second, schedule.PhaseBackingOff},
		{14*day - ns, schedule.PhaseBackingOff},
		{14 * day, schedule.PhasePastGiveUpAge},
		{14*day + ns, schedule.PhasePastGiveUpAge},
		{math.MaxInt64, schedule.PhasePastGiveUpAge},
	}
	for _, tc := range tests {
		for _, now := range []time.Time{t0, t0.Add(500 * time.Millisecond)} {
			if got := schedule.VerificationPhaseAt(ptr(now.Add(-tc.age)), now); got != tc.want {
				t.Errorf("VerificationPhaseAt(now - %v, now=%v) = %q, want %q", tc.age, now, got, tc.want)
			}
		}
	}
	if got, want := schedule.VerificationPhaseAt(nil, t0), schedule.PhaseDenseWindow; got != want {
		t.Errorf("VerificationPhaseAt(nil, now) = %q, want %q", got, want)
	}
}

func TestClassifyReasons(t *testing.T) {
	t.Parallel()

	const ns = time.Nanosecond
	type R = schedule.Reason
	var (
		stuck       = schedule.ReasonStuckInState
		permanent   = schedule.ReasonPermanentError
		retryWindow = schedule.ReasonRetryWindowExpired
		reversed    = schedule.ReasonMisregistered
		attempts    = schedule.ReasonTooManyAttempts
		uncertain   = schedule.ReasonOutcomeUncertain
		partial     = schedule.ReasonPartlyRegisteredOverdue
		gaveUp      = schedule.ReasonVerificationGaveUp
		reimported  = schedule.ReasonRepeatedlyNotRegistered
		number      = schedule.ReasonStudentNumberStuck
		flag        = schedule.ReasonFlaggedByPipeline
	)
	// A sub-second partial sighting, to show the windows still start exactly at reference +
	// window.
	subSecond := t0.Add(-3 * day).Add(500 * time.Millisecond)
	tests := []struct {
		name string
		row  schedule.Row
		now  time.Time
		want []R
	}{
		{"QuietRow", row(schedule.StatePending), t0, nil},

		// Every uncertain row is on the queue from its first moment, whatever its age; the
		// pipeline's escalation a day after sending is a note, not a reason.
		{"UncertainJustSent", row(schedule.StateSubmissionUncertain, submittedAgo(0)), t0, []R{uncertain}},
		{"UncertainADay", row(schedule.StateSubmissionUncertain, submittedAgo(day)), t0, []R{uncertain}},
		{"UncertainWithoutSubmission", row(schedule.StateSubmissionUncertain), t0, []R{uncertain}},
		{"UncertainWithoutSubmissionYearsLater", row(schedule.StateSubmissionUncertain, changedAgo(400*day)), t0, []R{uncertain}},
		// verification_gave_up is for the two states verify polls; an uncertain row has its own.
		{"Uncertain14Days", row(schedule.StateSubmissionUncertain, submittedAgo(14*day)), t0, []R{uncertain}},
		{"UncertainFlagged", row(schedule.StateSubmissionUncertain, submittedAgo(2*day), flagged), t0, []R{uncertain}},
		{"AwaitingIsNotUncertain", row(schedule.StateAwaitingVerification, submittedAgo(2*day)), t0, nil},

		{"PartialJustUnder3Days", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day-ns)), t0, nil},
		{"Partial3Days", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day)), t0, []R{partial}},
		{"Partial3DaysAndASecond", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day+time.Second)), t0, []R{partial}},
		{"PartialSubSecondAtWindowEnd", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), func(r *schedule.Row) { r.PartiallyRegisteredAt = &subSecond }), subSecond.Add(3 * day), []R{partial}},
		{"PartialSubSecondJustBefore", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), func(r *schedule.Row) { r.PartiallyRegisteredAt = &subSecond }), subSecond.Add(3*day - ns), nil},
		{"PartialWithoutSighting", row(schedule.StatePartiallyRegistered, submittedAgo(4*day)), t0, nil},
		{"AwaitingWithOldSightingIsNotPartial", row(schedule.StateAwaitingVerification, submittedAgo(5*day), partialAgo(4*day)), t0, nil},

		{"AwaitingJustUnder14Days", row(schedule.StateAwaitingVerification, submittedAgo(14*day-ns)), t0, nil},
		{"Awaiting14Days", row(schedule.StateAwaitingVerification, submittedAgo(14*day)), t0, []R{gaveUp}},
		{"Partial14Days", row(schedule.StatePartiallyRegistered, submittedAgo(14*day), partialAgo(10*day)), t0, []R{partial, gaveUp}},
		{"AwaitingWithoutSubmission", row(schedule.StateAwaitingVerification, changedAgo(time.Hour)), t0, nil},
		{"RetryableWithOldSubmissionIsNotVerifying", row(schedule.StateFailedRetryable, submittedAgo(20*day)), t0, nil},

		{"TwoReimports", row(schedule.StateFailedRetryable, reimports(2), firstFailedAgo(time.Hour)), t0, nil},
		{"ThreeReimports", row(schedule.StateFailedRetryable, reimports(3), firstFailedAgo(time.Hour)), t0, []R{reimported}},
		{"ThreeReimportsButRegistered", row(schedule.StateRegistered, reimports(3), terminal), t0, nil},
		{"ReimportsOnMisregistered", row(schedule.StateMisregistered, reimports(4)), t0, []R{reversed, reimported}},
		// The LMS reads terminal_at, not the state: a row in a terminal state whose terminal_at
		// is NULL is still counted, and a live state with terminal_at set is not.
		{"ReimportsTerminalStateWithoutTerminalAt", row(schedule.StateRegistered, reimports(3)), t0, []R{reimported}},
		{"ReimportsLiveStateWithTerminalAt", row(schedule.StateFailedRetryable, reimports(3), firstFailedAgo(time.Hour), terminal), t0, nil},

		// The retry window running out is the sweep's to act on; until it has coded the row, no
		// reason applies.
		{"RetryWindowOverIsNoReason", row(schedule.StateFailedRetryable, firstFailedAgo(8*day)), t0, nil},
		{"RetryWindowCodeOnFailedRow", row(schedule.StateFailedPermanent, code(schedule.ErrorRetryWindowExpired), flagged, terminal), t0, []R{retryWindow}},
		{"RetryWindowCodeInAnyState", row(schedule.StateCancelled, code(schedule.ErrorRetryWindowExpired), terminal), t0, []R{retryWindow}},

		{"Misregistered", row(schedule.StateMisregistered), t0, []R{reversed}},
		{"MisregisteredFlagged", row(schedule.StateMisregistered, flagged), t0, []R{reversed}},

		{"PermanentFlagged", row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed), flagged, terminal), t0, []R{permanent}},
		{"PermanentFlaggedWithoutCode", row(schedule.StateFailedPermanent, flagged, terminal), t0, []R{permanent}},
		{"PermanentNotFlagged", row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed), terminal), t0, nil},

		// Past the recovery grace is a note; the threshold of the state is the reason.
		{"SubmittingPastGraceStuck", row(schedule.StateSubmitting, submittedAgo(80*time.Minute), enteredAgo(80*time.Minute), changedAgo(80*time.Minute)), t0, []R{stuck}},
		{"ResolvingPastGraceHasNoThreshold", row(schedule.StateResolvingEnrolment, enteredAgo(31*time.Minute), changedAgo(31*time.Minute)), t0, nil},

		{"FourRetries", row(schedule.StateFailedRetryable, retries(4), firstFailedAgo(time.Hour)), t0, nil},
		{"FiveRetries", row(schedule.StateFailedRetryable, retries(5), firstFailedAgo(time.Hour)), t0, []R{attempts}},
		{"FiveRetriesButFailed", row(schedule.StateFailedPermanent, retries(5), terminal), t0, nil},
		{"FiveRetriesFailedWithoutTerminalAt", row(schedule.StateFailedPermanent, retries(5)), t0, []R{attempts}},
		{"NegativeRetries", row(schedule.StatePending, retries(-7)), t0, nil},

		{"ReadyExactly2Hours", row(schedule.StateReadyToSubmit, changedAgo(2*time.Hour)), t0, nil},
		{"ReadyOver2Hours", row(schedule.StateReadyToSubmit, changedAgo(2*time.Hour+ns)), t0, []R{stuck}},
		{"ReadyOver2HoursWithTerminalAt", row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour), terminal), t0, nil},
		{"SubmittingExactly15Minutes", row(schedule.StateSubmitting, submittedAgo(time.Minute), changedAgo(15*time.Minute)), t0, nil},
		{"SubmittingOver15Minutes", row(schedule.StateSubmitting, submittedAgo(time.Minute), changedAgo(15*time.Minute+ns)), t0, []R{stuck}},
		{"AwaitingExactly24Hours", row(schedule.StateAwaitingVerification, submittedAgo(time.Hour), changedAgo(day)), t0, nil},
		{"AwaitingOver24Hours", row(schedule.StateAwaitingVerification, submittedAgo(time.Hour), changedAgo(day+time.Second)), t0, []R{stuck}},
		{"RetryableExactly3Days", row(schedule.StateFailedRetryable, firstFailedAgo(time.Hour), changedAgo(3*day)), t0, nil},
		{"RetryableOver3Days", row(schedule.StateFailedRetryable, firstFailedAgo(time.Hour), changedAgo(3*day+ns)), t0, []R{stuck}},
		{"PendingHasNoThreshold", row(schedule.StatePending, changedAgo(300*day)), t0, nil},
		{"UncertainHasNoThreshold", row(schedule.StateSubmissionUncertain, submittedAgo(time.Hour), changedAgo(300*day)), t0, []R{uncertain}},

		{"StudentNumberStuck", row(schedule.StatePending, linking(3*time.Hour, time.Hour)), t0, []R{number}},
		{"StudentNumberFetchExactlyAnHourAfterPress", row(schedule.StatePending, linking(2*time.Hour, time.Hour)), t0, []R{number}},
		{"StudentNumberFetchTooSoonAfterPress", row(schedule.StatePending, linking(2*time.Hour, time.Hour+ns)), t0, nil},
		{"StudentNumberEmailSent", row(schedule.StatePending, linking(2*time.Hour, 0), func(r *schedule.Row) { r.Linking.LinkingEmailSincePress = true }), t0, nil},
		{"StudentNumberNotAwaited", row(schedule.StatePending, linking(2*time.Hour, 0), func(r *schedule.Row) { r.Linking.AwaitsStudentNumber = false }), t0, nil},
		{"StudentNumberNeverPressed", row(schedule.StatePending, linking(2*time.Hour, 0), func(r *schedule.Row) { r.Linking.PressedAt = nil }), t0, nil},
		{"StudentNumberNoFetch", row(schedule.StatePending, linking(2*time.Hour, 0), func(r *schedule.Row) { r.Linking.LastMailingFetchStartedAt = nil }), t0, nil},
		{"StudentNumberOnlyPending", row(schedule.StateReadyToSubmit, linking(2*time.Hour, 0)), t0, nil},

		{"Flagged", row(schedule.StatePending, flagged), t0, []R{flag}},
		{"FlaggedTerminal", row(schedule.StateRegistered, flagged, terminal), t0, []R{flag}},
		{"FlagExplainedByAnotherReason", row(schedule.StateFailedRetryable, flagged, retries(6), firstFailedAgo(time.Hour)), t0, []R{attempts}},
		// As the LMS has it (attention.rs only_flag): stuck_in_state too explains the flag, so such
		// a row is only running late.
		{"FlagExplainedByStuckInState", row(schedule.StateAwaitingVerification, flagged, submittedAgo(time.Hour), changedAgo(2*day)), t0, []R{stuck}},

		{"EverythingAtOnce", row(schedule.StatePartiallyRegistered, submittedAgo(15*day), partialAgo(15*day), reimports(3), retries(5), flagged, code(schedule.ErrorRetryWindowExpired)), t0,
			[]R{retryWindow, attempts, partial, gaveUp, reimported}},
		{"SupersededHasNone", row(schedule.StateMisregistered, superseded, flagged, retries(9)), t0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := schedule.Classify(tc.row, tc.now).Reasons.List(); !slices.Equal(got, tc.want) {
				t.Errorf("Classify().Reasons = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClassifyNotes(t *testing.T) {
	t.Parallel()

	const ns = time.Nanosecond
	type N = schedule.Note
	var (
		noTime   = schedule.NoteSubmissionTimeMissing
		overdue  = schedule.NoteUncertainOverdue
		recovery = schedule.NotePastRecoveryGrace
		window   = schedule.NoteRetryWindowOver
	)
	subSecond := t0.Add(-day).Add(500 * time.Millisecond)
	tests := []struct {
		name string
		row  schedule.Row
		now  time.Time
		want []N
	}{
		{"Quiet", row(schedule.StatePending), t0, nil},

		// The pipeline flags an uncertain row a day after sending (UncertainNeedsAdmin).
		{"UncertainJustUnderADay", row(schedule.StateSubmissionUncertain, submittedAgo(day-ns)), t0, nil},
		{"UncertainASecondUnderADay", row(schedule.StateSubmissionUncertain, submittedAgo(day-time.Second)), t0, nil},
		{"UncertainADay", row(schedule.StateSubmissionUncertain, submittedAgo(day)), t0, []N{overdue}},
		{"UncertainSubSecondAtWindowEnd", row(schedule.StateSubmissionUncertain, func(r *schedule.Row) { r.SubmittedAt = &subSecond }), subSecond.Add(day), []N{overdue}},
		{"UncertainSubSecondJustBefore", row(schedule.StateSubmissionUncertain, func(r *schedule.Row) { r.SubmittedAt = &subSecond }), subSecond.Add(day - ns), nil},
		{"UncertainWithoutSubmission", row(schedule.StateSubmissionUncertain), t0, []N{noTime}},
		{"AwaitingWithoutSubmission", row(schedule.StateAwaitingVerification), t0, nil},

		{"SubmittingJustInsideGrace", row(schedule.StateSubmitting, submittedAgo(75*time.Minute-ns)), t0, nil},
		// The recovery graces are strict: exactly at the grace's end the row is not yet past it.
		{"SubmittingExactlyAtGrace", row(schedule.StateSubmitting, submittedAgo(75*time.Minute)), t0, nil},
		{"SubmittingPastGrace", row(schedule.StateSubmitting, submittedAgo(75*time.Minute+ns)), t0, []N{recovery}},
		{"SubmittingEntryExactlyAtGrace", row(schedule.StateSubmitting, enteredAgo(75*time.Minute)), t0, nil},
		{"SubmittingTimedFromEntryWithoutSubmission", row(schedule.StateSubmitting, enteredAgo(75*time.Minute+ns)), t0, []N{recovery}},
		{"SubmittingRestampedSubmissionWins", row(schedule.StateSubmitting, enteredAgo(3*time.Hour), submittedAgo(10*time.Minute)), t0, nil},
		{"ResolvingExactlyAtGrace", row(schedule.StateResolvingEnrolment, enteredAgo(30*time.Minute)), t0, nil},
		{"ResolvingPastGrace", row(schedule.StateResolvingEnrolment, enteredAgo(30*time.Minute+ns)), t0, []N{recovery}},

		{"RetryWindowJustOpen", row(schedule.StateFailedRetryable, firstFailedAgo(7*day-ns)), t0, nil},
		{"RetryWindowOverAt7Days", row(schedule.StateFailedRetryable, firstFailedAgo(7*day)), t0, []N{window}},
		{"RetryWindowWithoutFailure", row(schedule.StateFailedRetryable), t0, nil},
		{"RetryWindowOnlyWhileRetryable", row(schedule.StatePending, firstFailedAgo(8*day)), t0, nil},
		{"Superseded", row(schedule.StateSubmissionUncertain, superseded), t0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := schedule.Classify(tc.row, tc.now).Notes.List(); !slices.Equal(got, tc.want) {
				t.Errorf("Classify().Notes = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClassifyStanding(t *testing.T) {
	t.Parallel()

	attempts, stuck := schedule.ReasonTooManyAttempts, schedule.ReasonStuckInState
	needs, late := schedule.StandingNeedsAttention, schedule.StandingRunningLate
	gone, explained := schedule.StandingDismissed, schedule.StandingExplainedByProblem
	// Too many attempts and stuck in state at once.
	both := []func(*schedule.Row){retries(5), firstFailedAgo(time.Hour), changedAgo(4 * day)}
	tests := []struct {
		name string
		row  schedule.Row
		want schedule.Standing
	}{
		{"NoReasons", row(schedule.StatePending), ""},
		{"NoReasonsNothingToDismiss", row(schedule.StatePending, dismissed(schedule.ReasonFlaggedByPipeline)), ""},
		{"PersonLevelUndismissed", row(schedule.StateFailedRetryable, both...), needs},
		{"PartialCover", row(schedule.StateFailedRetryable, append(both, dismissed(attempts))...), needs},
		{"PartialCoverOfTheStuckOne", row(schedule.StateFailedRetryable, append(both, dismissed(stuck))...), needs},
		{"FullCover", row(schedule.StateFailedRetryable, append(both, dismissed(stuck, attempts))...), gone},
		{"SupersetCover", row(schedule.StateFailedRetryable, append(both, dismissed(schedule.ReasonMisregistered, attempts, stuck))...), gone},
		{"OnlyStuck", row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour)), late},
		{"OnlyStuckDismissed", row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour), dismissed(stuck)), gone},
		{"FlagDismissed", row(schedule.StatePending, flagged, dismissed(schedule.ReasonFlaggedByPipeline)), gone},
		{"DismissedFlagThenANewReason", row(schedule.StatePending, flagged, retries(5), dismissed(schedule.ReasonFlaggedByPipeline)), needs},
		// A dismissal written before regdesk took the LMS's vocabulary names nothing it knows.
		{"OldVocabularyCoversNothing", row(schedule.StateMisregistered, dismissed("running_late", "uncertain_overdue")), needs},
		// Every uncertain row needs a person from its first moment, as before.
		{"UncertainAtOnce", row(schedule.StateSubmissionUncertain, submittedAgo(0)), needs},
		{"UncertainWithoutSubmission", row(schedule.StateSubmissionUncertain), needs},
		{"Superseded", row(schedule.StateMisregistered, superseded), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := schedule.Classify(tc.row, t0)
			if got.Standing != tc.want {
				t.Errorf("Classify().Standing = %q (reasons %v), want %q", got.Standing, got.Reasons, tc.want)
			}
			if got.NeedsAdmin != (tc.want == needs) || got.Dismissed != (tc.want == gone) {
				t.Errorf("Classify() NeedsAdmin, Dismissed = %v, %v with standing %q", got.NeedsAdmin, got.Dismissed, got.Standing)
			}
			if got.Standing == explained {
				t.Error("no blocking problem was given, yet a row is explained by one")
			}
		})
	}
}

// TestClassifyWithBlockingProblems follows attention.rs's blocking_problem: a problem explains a
// row only when it accounts for every reason the row carries, and a dismissal still comes first.
func TestClassifyWithBlockingProblems(t *testing.T) {
	t.Parallel()

	const module, otherModule = "0b5c3f0e-8a7d-4c55-9b1e-2d4f6a8c0e12", "7d1e9a40-3b2c-4f6e-8a1d-5c9b0e2f4a67"
	stopped := func(phase string, owned []schedule.State, linking bool) *schedule.BlockingProblems {
		return &schedule.BlockingProblems{StoppedPhases: []schedule.StoppedPhase{{Phase: phase, OwnedStates: owned, SendsLinkingEmails: linking}}}
	}
	inModule := func(r *schedule.Row) { r.CourseModuleID, r.CourseCode = module, "TKT10002" }
	stuckReady := row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour), inModule)
	numberStuck := row(schedule.StatePending, linking(2*time.Hour, time.Hour), inModule)
	setupFailed := row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed), flagged, terminal, inModule)
	tests := []struct {
		name     string
		row      schedule.Row
		problems *schedule.BlockingProblems
		want     schedule.Standing
		subject  string
	}{
		{"NoProblems", stuckReady, nil, schedule.StandingRunningLate, ""},
		{"PhaseOwningTheState", stuckReady, stopped("resolve_enrolments", []schedule.State{schedule.StateReadyToSubmit}, false), schedule.StandingExplainedByProblem, "resolve_enrolments"},
		{"PhaseOwningAnotherState", stuckReady, stopped("verify", []schedule.State{schedule.StateAwaitingVerification}, false), schedule.StandingRunningLate, ""},
		{"PhaseDoesNotExplainAPersonLevelReason", row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour), retries(5)),
			stopped("resolve_enrolments", []schedule.State{schedule.StateReadyToSubmit}, false), schedule.StandingNeedsAttention, ""},
		{"DismissedBeforeExplained", row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour), dismissed(schedule.ReasonStuckInState)),
			stopped("resolve_enrolments", []schedule.State{schedule.StateReadyToSubmit}, false), schedule.StandingDismissed, "resolve_enrolments"},
		{"LinkingPhaseExplainsStudentNumber", numberStuck, stopped("roster", nil, true), schedule.StandingExplainedByProblem, "roster"},
		{"OtherPhaseDoesNot", numberStuck, stopped("roster", nil, false), schedule.StandingNeedsAttention, ""},
		{"FailingCode", numberStuck, &schedule.BlockingProblems{FailingCourseCodes: []string{"TKT10002"}}, schedule.StandingExplainedByProblem, "TKT10002"},
		{"AnotherCodeFailing", numberStuck, &schedule.BlockingProblems{FailingCourseCodes: []string{"TKT20001"}}, schedule.StandingNeedsAttention, ""},
		{"FailingCodeExplainsOnlyStudentNumber", stuckReady, &schedule.BlockingProblems{FailingCourseCodes: []string{"TKT10002"}}, schedule.StandingRunningLate, ""},
		{"MisconfiguredModule", setupFailed, &schedule.BlockingProblems{MisconfiguredModuleIDs: []string{module}}, schedule.StandingExplainedByProblem, module},
		{"AnotherModuleMisconfigured", setupFailed, &schedule.BlockingProblems{MisconfiguredModuleIDs: []string{otherModule}}, schedule.StandingNeedsAttention, ""},
		{"MisconfiguredModuleButNotASetupCode", row(schedule.StateFailedPermanent, code(schedule.ErrorSisuTimeout), flagged, terminal, inModule),
			&schedule.BlockingProblems{MisconfiguredModuleIDs: []string{module}}, schedule.StandingNeedsAttention, ""},
		{"MisconfiguredModuleExplainsTheFlag", row(schedule.StatePending, code(schedule.ErrorCourseNotAllowed), flagged, inModule),
			&schedule.BlockingProblems{MisconfiguredModuleIDs: []string{module}}, schedule.StandingExplainedByProblem, module},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := schedule.ClassifyWith(tc.row, t0, tc.problems)
			if got.Standing != tc.want {
				t.Errorf("ClassifyWith().Standing = %q (reasons %v), want %q", got.Standing, got.Reasons, tc.want)
			}
			p, ok := tc.problems.Explaining(&tc.row, got.Reasons)
			if ok != (tc.subject != "") || p.Subject != tc.subject {
				t.Errorf("Explaining() = %+v, %v, want subject %q", p, ok, tc.subject)
			}
		})
	}
}

func TestClassifyNextCheckAt(t *testing.T) {
	t.Parallel()

	due := t0.Add(5 * time.Minute)
	overdue := t0.Add(-3 * time.Hour)
	tests := []struct {
		name string
		row  schedule.Row
		want *time.Time
	}{
		{"Pending", row(schedule.StatePending), &due},
		{"ReadyOverdueKeptAsStored", row(schedule.StateReadyToSubmit, nextAttempt(overdue)), &overdue},
		{"Checking", row(schedule.StateCheckingEnrolment), &due},
		{"NoUsableEnrolment", row(schedule.StateNoUsableEnrolment), &due},
		{"NoUsableEnrolmentParkedForever", row(schedule.StateNoUsableEnrolment, nextAttempt(schedule.Never)), nil},
		{"AfterNever", row(schedule.StateNoUsableEnrolment, nextAttempt(schedule.Never.Add(time.Hour))), nil},
		{"JustBeforeNever", row(schedule.StateNoUsableEnrolment, nextAttempt(schedule.Never.Add(-time.Nanosecond))), ptr(schedule.Never.Add(-time.Nanosecond))},
		{"Uncertain", row(schedule.StateSubmissionUncertain, submittedAgo(time.Hour)), &due},
		{"Awaiting", row(schedule.StateAwaitingVerification, submittedAgo(time.Hour)), &due},
		{"Partial", row(schedule.StatePartiallyRegistered, submittedAgo(time.Hour)), &due},
		{"Retryable", row(schedule.StateFailedRetryable), &due},
		{"Blocked", row(schedule.StateBlocked), &due},
		{"SubmittingFromSubmission", row(schedule.StateSubmitting, submittedAgo(10*time.Minute), enteredAgo(time.Hour)), ptr(t0.Add(65 * time.Minute))},
		{"SubmittingFromEntry", row(schedule.StateSubmitting, enteredAgo(time.Hour)), ptr(t0.Add(15 * time.Minute))},
		{"SubmittingIgnoresNever", row(schedule.StateSubmitting, enteredAgo(time.Hour), nextAttempt(schedule.Never)), ptr(t0.Add(15 * time.Minute))},
		{"SubmittingOverdue", row(schedule.StateSubmitting, submittedAgo(2*time.Hour)), ptr(t0.Add(-45 * time.Minute))},
		{"Resolving", row(schedule.StateResolvingEnrolment, enteredAgo(10*time.Minute)), ptr(t0.Add(20 * time.Minute))},
		{"Registered", row(schedule.StateRegistered), nil},
		{"Duplicate", row(schedule.StateDuplicate), nil},
		{"NotImproved", row(schedule.StateNotImproved), nil},
		{"FailedPermanent", row(schedule.StateFailedPermanent), nil},
		{"Cancelled", row(schedule.StateCancelled), nil},
		{"Misregistered", row(schedule.StateMisregistered), nil},
		{"Superseded", row(schedule.StatePending, superseded), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := orNil(schedule.Classify(tc.row, t0).NextCheckAt); !equalTimePtr(got, tc.want) {
				t.Errorf("Classify().NextCheckAt = %v, want %v", fmtTimePtr(got), fmtTimePtr(tc.want))
			}
		})
	}
}

func TestClassifyEscalatesAt(t *testing.T) {
	t.Parallel()

	subSecond := t0.Add(-time.Hour).Add(500 * time.Millisecond)
	tests := []struct {
		name string
		row  schedule.Row
		want *time.Time
	}{
		// The pipeline flags an uncertain row a day after sending: it then waits on support.
		{"UncertainADayAfterSubmission", row(schedule.StateSubmissionUncertain, submittedAgo(time.Hour)), ptr(t0.Add(23 * time.Hour))},
		{"UncertainSubSecond", row(schedule.StateSubmissionUncertain, func(r *schedule.Row) { r.SubmittedAt = &subSecond }), ptr(subSecond.Add(day))},
		// An uncertain row does not give up as the two verify states do.
		{"UncertainOverdue", row(schedule.StateSubmissionUncertain, submittedAgo(2*day)), nil},
		{"UncertainWithoutSubmission", row(schedule.StateSubmissionUncertain), nil},
		{"Awaiting", row(schedule.StateAwaitingVerification, submittedAgo(time.Hour)), ptr(t0.Add(14*day - time.Hour))},
		{"AwaitingAtTheInstantItFires", row(schedule.StateAwaitingVerification, submittedAgo(14*day)), nil},
		{"AwaitingWithoutSubmission", row(schedule.StateAwaitingVerification), nil},
		{"PartialFirst", row(schedule.StatePartiallyRegistered, submittedAgo(10*time.Hour), partialAgo(time.Hour)), ptr(t0.Add(3*day - time.Hour))},
		{"PartialOverdueThenGivesUp", row(schedule.StatePartiallyRegistered, submittedAgo(5*day), partialAgo(4*day)), ptr(t0.Add(9 * day))},
		{"PartialGivesUpFirst", row(schedule.StatePartiallyRegistered, submittedAgo(13*day), partialAgo(time.Hour)), ptr(t0.Add(day))},
		// The sweep fails a row retried for a week: then it needs a person.
		{"Retryable", row(schedule.StateFailedRetryable, firstFailedAgo(day)), ptr(t0.Add(6 * day))},
		{"RetryableOver", row(schedule.StateFailedRetryable, firstFailedAgo(8*day)), nil},
		{"RetryableWithoutFailure", row(schedule.StateFailedRetryable), nil},
		// A strict grace first applies an instant after its end.
		{"Submitting", row(schedule.StateSubmitting, submittedAgo(15*time.Minute)), ptr(t0.Add(time.Hour + time.Nanosecond))},
		{"SubmittingFromEntry", row(schedule.StateSubmitting, enteredAgo(5*time.Minute)), ptr(t0.Add(70*time.Minute + time.Nanosecond))},
		{"SubmittingPastGrace", row(schedule.StateSubmitting, submittedAgo(2*time.Hour)), nil},
		{"Resolving", row(schedule.StateResolvingEnrolment, enteredAgo(10*time.Minute)), ptr(t0.Add(20*time.Minute + time.Nanosecond))},
		// Running late asks nobody, so reaching a threshold is no escalation.
		{"Ready", row(schedule.StateReadyToSubmit, changedAgo(time.Hour)), nil},
		{"Pending", row(schedule.StatePending, submittedAgo(time.Hour), firstFailedAgo(time.Hour)), nil},
		{"Checking", row(schedule.StateCheckingEnrolment), nil},
		{"NoUsableEnrolment", row(schedule.StateNoUsableEnrolment), nil},
		{"Blocked", row(schedule.StateBlocked, firstFailedAgo(time.Hour)), nil},
		{"Misregistered", row(schedule.StateMisregistered, submittedAgo(time.Hour)), nil},
		{"Registered", row(schedule.StateRegistered, submittedAgo(time.Hour), terminal), nil},
		{"FailedPermanent", row(schedule.StateFailedPermanent, firstFailedAgo(time.Hour), terminal), nil},
		{"Cancelled", row(schedule.StateCancelled, terminal), nil},
		{"Superseded", row(schedule.StateSubmissionUncertain, submittedAgo(time.Hour), superseded), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := schedule.Classify(tc.row, t0)
			if !equalTimePtr(orNil(got.EscalatesAt), tc.want) {
				t.Fatalf("Classify().EscalatesAt = %v, want %v", fmtTimePtr(orNil(got.EscalatesAt)), fmtTimePtr(tc.want))
			}
			if !got.EscalatesAt.IsZero() {
				checkEscalation(t, tc.row, t0, got)
			}
		})
	}
}

func equalTimePtr(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func fmtTimePtr(p *time.Time) string {
	if p == nil {
		return "nil"
	}
	return p.Format(time.RFC3339Nano)
}

// escalations are what EscalatesAt announces: the person-level reasons and the notes, by name.
func escalations(st schedule.Status) []string {
	var out []string
	for _, r := range st.Reasons.PersonLevel().List() {
		out = append(out, "reason "+string(r))
	}
	for _, n := range st.Notes.List() {
		out = append(out, "note "+string(n))
	}
	return out
}

func subset[T comparable](a, b []T) bool {
	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}
	return true
}

// checkEscalation asserts property (c): at EscalatesAt a person-level reason or a note appears
// that r did not have at now, and one nanosecond earlier none has.
func checkEscalation(t *testing.T, r schedule.Row, now time.Time, st schedule.Status) {
	t.Helper()

	at := st.EscalatesAt
	if !at.After(now) {
		t.Errorf("EscalatesAt = %v, want after now %v", at, now)
	}
	before := escalations(st)
	atFire := escalations(schedule.Classify(r, at))
	if subset(atFire, before) {
		t.Errorf("escalations at EscalatesAt %v = %v, want one not among %v at now", at, atFire, before)
	}
	if justBefore := escalations(schedule.Classify(r, at.Add(-time.Nanosecond))); !subset(justBefore, before) {
		t.Errorf("escalations 1ns before EscalatesAt = %v, want only those at now %v", justBefore, before)
	}
}

// randomInstant is near now: often exactly on, or a nanosecond or second
// either side of, one of the package's thresholds, and otherwise anywhere
// from 40 days before to 10 days after, with a sub-second part.
func randomInstant(rng *rand.Rand, now time.Time) time.Time {
	thresholds := []time.Duration{
		0, 15 * time.Minute, 30 * time.Minute, 75 * time.Minute, 2 * time.Hour, 270 * time.Minute,
		630 * time.Minute, day, 29 * time.Hour, 3 * day, 7 * day, 14 * day,
	}
	nudges := []time.Duration{-time.Second, -time.Nanosecond, 0, time.Nanosecond, time.Second}
	if rng.IntN(2) == 0 {
		return now.Add(-thresholds[rng.IntN(len(thresholds))] - nudges[rng.IntN(len(nudges))])
	}
	return now.Add(time.Duration(rng.Int64N(int64(50*day))) - 40*day)
}

func randomTimePtr(rng *rand.Rand, now time.Time) *time.Time {
	if rng.IntN(5) == 0 {
		return nil
	}
	return ptr(randomInstant(rng, now))
}

func randomCount(rng *rand.Rand) int32 {
	switch rng.IntN(20) {
	case 0:
		return math.MaxInt32
	case 1:
		return math.MinInt32
	}
	return int32(rng.IntN(9) - 1)
}

// randomRow makes a row with any combination of facts, including ones the
// pipeline would never write, since Classify must hold its promises for all.
func randomRow(rng *rand.Rand) (schedule.Row, time.Time) {
	now := t0.Add(time.Duration(rng.Int64N(int64(time.Second))))
	states := schedule.States()
	codes := append(schedule.ErrorCodes(), "")
	r := schedule.Row{
		State:                      states[rng.IntN(len(states))],
		ErrorCode:                  codes[rng.IntN(len(codes))],
		NeedsAdminAttention:        rng.IntN(2) == 0,
		Superseded:                 rng.IntN(10) == 0,
		StateEnteredAt:             randomInstant(rng, now),
		StateChangedAt:             randomInstant(rng, now),
		NextAttemptAt:              randomInstant(rng, now),
		FirstFailedAt:              randomTimePtr(rng, now),
		SubmittedAt:                randomTimePtr(rng, now),
		PartiallyRegisteredAt:      randomTimePtr(rng, now),
		ResubmitNotBefore:          randomTimePtr(rng, now),
		SubmitRetryCount:           randomCount(rng),
		VerifyAttemptCount:         randomCount(rng),
		NotRegisteredReimportCount: randomCount(rng),
	}
	if rng.IntN(10) == 0 {
		r.NextAttemptAt = schedule.Never
	}
	// terminal_at as the pipeline writes it (set exactly in the terminal states), and now and
	// then not, since the rules read the column and not the state.
	if r.State.IsTerminal() != (rng.IntN(8) == 0) {
		r.TerminalAt = ptr(randomInstant(rng, now))
	}
	if rng.IntN(3) == 0 {
		r.Linking = schedule.LinkingFacts{AwaitsStudentNumber: rng.IntN(4) != 0, PressedAt: randomTimePtr(rng, now),
			LastMailingFetchStartedAt: randomTimePtr(rng, now), LinkingEmailSincePress: rng.IntN(3) == 0}
		if rng.IntN(2) == 0 && r.Linking.PressedAt != nil {
			// Often exactly, or a nanosecond either side of, an hour after the press.
			at := r.Linking.PressedAt.Add(schedule.StudentNumberStuckAfterPress + time.Duration(rng.IntN(3)-1))
			r.Linking.LastMailingFetchStartedAt = &at
		}
	}
	modules, codes2 := []string{"m1", "m2"}, []string{"", "TKT10002", "TKT20001"}
	r.CourseModuleID, r.CourseCode = modules[rng.IntN(len(modules))], codes2[rng.IntN(len(codes2))]
	if rng.IntN(2) == 0 {
		// Now and then a name regdesk used before it took the LMS's vocabulary.
		all := append(schedule.Reasons(), "running_late", "uncertain_overdue")
		for _, reason := range all {
			if rng.IntN(3) == 0 {
				r.DismissedReasons = append(r.DismissedReasons, reason)
			}
		}
	}
	return r, now
}

// randomProblems makes blocking problems that sometimes concern a randomRow's state, module or
// code; nil a third of the time.
func randomProblems(rng *rand.Rand) *schedule.BlockingProblems {
	if rng.IntN(3) == 0 {
		return nil
	}
	var p schedule.BlockingProblems
	states := schedule.States()
	for range rng.IntN(3) {
		var owned []schedule.State
		for range rng.IntN(4) {
			owned = append(owned, states[rng.IntN(len(states))])
		}
		p.StoppedPhases = append(p.StoppedPhases, schedule.StoppedPhase{Phase: fmt.Sprint("phase", rng.IntN(9)), OwnedStates: owned, SendsLinkingEmails: rng.IntN(2) == 0})
	}
	if rng.IntN(2) == 0 {
		p.FailingCourseCodes = []string{"TKT10002"}
	}
	if rng.IntN(2) == 0 {
		p.MisconfiguredModuleIDs = []string{"m1"}
	}
	return &p
}

func position(reason schedule.Reason) int {
	return slices.Index(schedule.Reasons(), reason)
}

// checkClassifyProperties asserts what Classify promises for any row.
func checkClassifyProperties(t *testing.T, r schedule.Row, now time.Time, problems *schedule.BlockingProblems) {
	t.Helper()

	st := schedule.Classify(r, now)
	if !st.Phase.Valid() {
		t.Errorf("Classify(%+v).Phase = %q, not a valid phase", r, st.Phase)
	}
	if r.Superseded {
		if st.Phase != schedule.PhaseSuperseded || !st.Reasons.Empty() || st.NeedsAdmin || st.Dismissed || !st.NextCheckAt.IsZero() || !st.EscalatesAt.IsZero() {
			t.Errorf("Classify(superseded %+v) = %+v, want only PhaseSuperseded", r, st)
		}
		return
	}

	// (a) Reasons in Reasons() order, without repeats.
	for i, reason := range st.Reasons.List() {
		if !reason.Valid() {
			t.Errorf("Reasons[%d] = %q, not a valid reason", i, reason)
		}
		if i > 0 && position(st.Reasons.List()[i-1]) >= position(reason) {
			t.Errorf("Reasons = %v, want strictly in Reasons() order", st.Reasons)
		}
	}

	// (b) The standing is attention.rs's: none without a reason, else dismissed when the live
	// dismissal covers every reason, else needs attention when one is person-level, else running
	// late; NeedsAdmin and Dismissed say the same.
	var want schedule.Standing
	switch {
	case st.Reasons.Empty():
	case subset(st.Reasons.List(), r.DismissedReasons):
		want = schedule.StandingDismissed
	case !st.Reasons.PersonLevel().Empty():
		want = schedule.StandingNeedsAttention
	default:
		want = schedule.StandingRunningLate
	}
	if st.Standing != want {
		t.Errorf("Standing = %q with reasons %v and dismissal %v, want %q", st.Standing, st.Reasons, r.DismissedReasons, want)
	}
	if st.NeedsAdmin != (st.Standing == schedule.StandingNeedsAttention) || st.Dismissed != (st.Standing == schedule.StandingDismissed) {
		t.Errorf("NeedsAdmin, Dismissed = %v, %v with standing %q", st.NeedsAdmin, st.Dismissed, st.Standing)
	}
	// Picked is the flag or any detector, and the flag shows as its own reason only alone.
	if r.NeedsAdminAttention && st.Reasons.Empty() {
		t.Errorf("a flagged row carries no reason")
	}
	if st.Reasons.Has(schedule.ReasonFlaggedByPipeline) && (!r.NeedsAdminAttention || st.Reasons.Len() != 1) {
		t.Errorf("flagged_by_pipeline with the flag %v beside %v", r.NeedsAdminAttention, st.Reasons)
	}
	// Every uncertain row is on the queue from its first moment unless a person dismissed it.
	if r.State == schedule.StateSubmissionUncertain && !st.NeedsAdmin && !st.Dismissed {
		t.Errorf("an uncertain row stands %q", st.Standing)
	}

	// With blocking problems, a row is explained exactly when it would otherwise need attention or
	// run late and a problem accounts for all its reasons; nothing else moves.
	withProblems := schedule.ClassifyWith(r, now, problems)
	_, explained := problems.Explaining(&r, st.Reasons)
	switch {
	case st.Standing == "" || st.Standing == schedule.StandingDismissed || !explained:
		if withProblems != st {
			t.Errorf("ClassifyWith(%+v) = %+v, want %+v", problems, withProblems, st)
		}
	case withProblems.Standing != schedule.StandingExplainedByProblem || withProblems.NeedsAdmin || withProblems.Reasons != st.Reasons:
		t.Errorf("ClassifyWith(%+v) = %+v, want explained by a problem", problems, withProblems)
	}

	// (c) EscalatesAt is exactly when a person-level reason or a note appears, and when it is nil
	// none ever will.
	if !st.EscalatesAt.IsZero() {
		checkEscalation(t, r, now, st)
	} else if later := escalations(schedule.Classify(r, now.AddDate(100, 0, 0))); !subset(later, escalations(st)) {
		t.Errorf("EscalatesAt = nil, but 100 years later the row has %v, not only %v", later, escalations(st))
	}

	// Reasons other than the pipeline's flag, which others hide, never go away as time passes,
	// and neither do notes.
	later := schedule.Classify(r, now.Add(time.Hour))
	if lasting := st.Reasons.Without(schedule.ReasonSetOf(schedule.ReasonFlaggedByPipeline)).List(); !subset(lasting, later.Reasons.List()) {
		t.Errorf("reasons %v at now, but %v an hour later; want none to lapse", st.Reasons, later.Reasons)
	}
	if !subset(st.Notes.List(), later.Notes.List()) {
		t.Errorf("notes %v at now, but %v an hour later; want none to lapse", st.Notes, later.Notes)
	}

	// (d) A verification row's phase never moves backwards as now grows.
	if r.State.InVerification() {
		prev, at := -1, now
		for _, step := range []time.Duration{0, time.Nanosecond, time.Second, time.Minute, time.Hour, 4 * time.Hour, 6 * time.Hour, 19 * time.Hour, 13 * day, day, 100 * day} {
			at = at.Add(step)
			phase := schedule.Classify(r, at).Phase
			i := slices.Index(schedule.Phases(), phase)
			if i < prev {
				t.Errorf("phase moved back to %q at %v", phase, at)
			}
			prev = i
		}
	}

	// NextCheckAt: never for rows nothing will move, else as stored.
	switch {
	case r.State.IsTerminal() || r.State == schedule.StateMisregistered:
		if !st.NextCheckAt.IsZero() {
			t.Errorf("NextCheckAt = %v for %s, want nil", st.NextCheckAt, r.State)
		}
	case r.State == schedule.StateSubmitting || r.State == schedule.StateResolvingEnrolment:
		if st.NextCheckAt.IsZero() {
			t.Errorf("NextCheckAt = nil for %s, want the end of its recovery grace", r.State)
		}
	case !r.NextAttemptAt.Before(schedule.Never):
		if !st.NextCheckAt.IsZero() {
			t.Errorf("NextCheckAt = %v for a row parked forever, want nil", st.NextCheckAt)
		}
	default:
		if st.NextCheckAt.IsZero() || !st.NextCheckAt.Equal(r.NextAttemptAt) {
			t.Errorf("NextCheckAt = %v, want next_attempt_at %v", st.NextCheckAt, r.NextAttemptAt)
		}
	}

}

func TestClassifyProperties(t *testing.T) {
	t.Parallel()

	rng := rand.New(rand.NewPCG(2026, 3))
	for range 20000 {
		r, now := randomRow(rng)
		problems := randomProblems(rng)
		checkClassifyProperties(t, r, now, problems)
		if t.Failed() {
			t.Fatalf("first failing row: %+v at %v with %+v", r, now, problems)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64) {
		t.Parallel()

		rng := rand.New(rand.NewPCG(seed1, seed2))
		r, now := randomRow(rng)
		checkClassifyProperties(t, r, now, randomProblems(rng))
	})
}

func TestPhaseAndReasonDescriptions(t *testing.T) {
	t.Parallel()

	checkDescribed(t, schedule.Phases(), schedule.ParsePhase)
	checkDescribed(t, schedule.Reasons(), schedule.ParseReason)

	wantPhases := []schedule.Phase{
		"awaiting_preconditions", "finding_enrolment", "waiting_for_enrolment", "queued_for_import",
		"submitting", "submit_backoff", "waiting", "dense_window", "late_window", "backing_off",
		"past_give_up_age", "settled", "failed", "reversed", "blocked", "cancelled", "superseded",
	}
	if got := schedule.Phases(); !slices.Equal(got, wantPhases) {
		t.Errorf("Phases() = %v, want %v", got, wantPhases)
	}
	// The LMS's enum, in its order (attention.rs; migration 71065364207).
	wantReasons := []schedule.Reason{
		"stuck_in_state", "permanent_error", "retry_window_expired", "misregistered", "too_many_attempts",
		"outcome_uncertain", "partly_registered_overdue", "verification_gave_up", "repeatedly_not_registered",
		"student_number_stuck", "flagged_by_pipeline",
	}
	if got := schedule.Reasons(); !slices.Equal(got, wantReasons) {
		t.Errorf("Reasons() = %v, want %v", got, wantReasons)
	}
	for _, r := range wantReasons {
		if got, want := r.PersonLevel(), r != "stuck_in_state"; got != want {
			t.Errorf("%q.PersonLevel() = %v, want %v", r, got, want)
		}
	}
	for _, old := range []string{"uncertain_overdue", "partial_overdue", "submission_time_missing", "stuck_past_recovery_grace", "running_late"} {
		if _, err := schedule.ParseReason(old); err == nil {
			t.Errorf("ParseReason(%q) accepts a reason the LMS does not have", old)
		}
		if schedule.Reason(old).PersonLevel() {
			t.Errorf("Reason(%q).PersonLevel() = true, want false", old)
		}
	}
	checkDescribed(t, schedule.Standings(), schedule.ParseStanding)
	wantStandings := []schedule.Standing{"needs_attention", "running_late", "dismissed", "explained_by_problem"}
	if got := schedule.Standings(); !slices.Equal(got, wantStandings) {
		t.Errorf("Standings() = %v, want %v", got, wantStandings)
	}
	if schedule.Standing("").Valid() {
		t.Error("the zero Standing is valid")
	}
	wantNotes := []schedule.Note{"submission_time_missing", "uncertain_overdue", "past_recovery_grace", "retry_window_over"}
	if got := schedule.Notes(); !slices.Equal(got, wantNotes) {
		t.Errorf("Notes() = %v, want %v", got, wantNotes)
	}
}

func TestStuckThreshold(t *testing.T) {
	t.Parallel()

	want := map[schedule.State]time.Duration{
		schedule.StateReadyToSubmit:        2 * time.Hour,
		schedule.StateSubmitting:           15 * time.Minute,
		schedule.StateAwaitingVerification: day,
		schedule.StateFailedRetryable:      3 * day,
	}
	for _, s := range schedule.States() {
		got, ok := schedule.StuckThreshold(s)
		w, wantOK := want[s]
		if got != w || ok != wantOK {
			t.Errorf("StuckThreshold(%s) = %v, %v, want %v, %v", s, got, ok, w, wantOK)
		}
	}
}

// orNil is a Status instant as an optional one: nil for the zero time, Status's "never".
func orNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
