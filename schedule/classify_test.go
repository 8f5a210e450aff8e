package schedule_test

import (
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
		uncertain   = schedule.ReasonUncertainOverdue
		fresh       = schedule.ReasonOutcomeUncertain
		noTime      = schedule.ReasonSubmissionTimeMissing
		partial     = schedule.ReasonPartialOverdue
		gaveUp      = schedule.ReasonVerificationGaveUp
		reimported  = schedule.ReasonRepeatedlyNotRegistered
		retryWindow = schedule.ReasonRetryWindowExpired
		reversed    = schedule.ReasonMisregistered
		permanent   = schedule.ReasonPermanentError
		stuck       = schedule.ReasonStuckPastRecoveryGrace
		attempts    = schedule.ReasonTooManyAttempts
		late        = schedule.ReasonRunningLate
		flag        = schedule.ReasonFlaggedByPipeline
	)
	// A sub-second submission time, to show the whole-second windows still
	// expire exactly at reference + window.
	subSecond := t0.Add(-day).Add(500 * time.Millisecond)
	tests := []struct {
		name string
		row  schedule.Row
		now  time.Time
		want []R
	}{
		{"QuietRow", row(schedule.StatePending), t0, nil},

		// An uncertain row shows from its first moment, and escalates (uncertain for a day) exactly
		// as the seed has it.
		{"UncertainJustSent", row(schedule.StateSubmissionUncertain, submittedAgo(0)), t0, []R{fresh}},
		{"UncertainJustUnderADay", row(schedule.StateSubmissionUncertain, submittedAgo(day-ns)), t0, []R{fresh}},
		{"UncertainASecondUnderADay", row(schedule.StateSubmissionUncertain, submittedAgo(day-time.Second)), t0, []R{fresh}},
		{"UncertainADay", row(schedule.StateSubmissionUncertain, submittedAgo(day)), t0, []R{uncertain}},
		{"UncertainADayAndASecond", row(schedule.StateSubmissionUncertain, submittedAgo(day+time.Second)), t0, []R{uncertain}},
		{"UncertainSubSecondAtWindowEnd", row(schedule.StateSubmissionUncertain, func(r *schedule.Row) { r.SubmittedAt = &subSecond }), subSecond.Add(day), []R{uncertain}},
		{"UncertainSubSecondJustBefore", row(schedule.StateSubmissionUncertain, func(r *schedule.Row) { r.SubmittedAt = &subSecond }), subSecond.Add(day - ns), []R{fresh}},
		{"UncertainWithoutSubmission", row(schedule.StateSubmissionUncertain), t0, []R{noTime}},
		{"UncertainWithoutSubmissionYearsLater", row(schedule.StateSubmissionUncertain, changedAgo(400*day)), t0, []R{noTime}},
		{"AwaitingIsNotUncertain", row(schedule.StateAwaitingVerification, submittedAgo(2*day)), t0, nil},

		{"PartialJustUnder3Days", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day-ns)), t0, nil},
		{"Partial3Days", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day)), t0, []R{partial}},
		{"Partial3DaysAndASecond", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day+time.Second)), t0, []R{partial}},
		{"PartialWithoutSighting", row(schedule.StatePartiallyRegistered, submittedAgo(4*day)), t0, nil},
		{"AwaitingWithOldSightingIsNotPartial", row(schedule.StateAwaitingVerification, submittedAgo(5*day), partialAgo(4*day)), t0, nil},

		{"AwaitingJustUnder14Days", row(schedule.StateAwaitingVerification, submittedAgo(14*day-ns)), t0, nil},
		{"Awaiting14Days", row(schedule.StateAwaitingVerification, submittedAgo(14*day)), t0, []R{gaveUp}},
		{"Uncertain14Days", row(schedule.StateSubmissionUncertain, submittedAgo(14*day)), t0, []R{uncertain, gaveUp}},
		{"Partial14Days", row(schedule.StatePartiallyRegistered, submittedAgo(14*day), partialAgo(10*day)), t0, []R{partial, gaveUp}},
		{"RetryableWithOldSubmissionIsNotVerifying", row(schedule.StateFailedRetryable, submittedAgo(20*day)), t0, nil},

		{"TwoReimports", row(schedule.StateFailedRetryable, reimports(2), firstFailedAgo(time.Hour)), t0, nil},
		{"ThreeReimports", row(schedule.StateFailedRetryable, reimports(3), firstFailedAgo(time.Hour)), t0, []R{reimported}},
		{"ThreeReimportsButRegistered", row(schedule.StateRegistered, reimports(3)), t0, nil},
		{"ReimportsOnMisregistered", row(schedule.StateMisregistered, reimports(4)), t0, []R{reimported, reversed}},

		{"RetryWindowJustOpen", row(schedule.StateFailedRetryable, firstFailedAgo(7*day-ns)), t0, nil},
		{"RetryWindowExpiresAt7Days", row(schedule.StateFailedRetryable, firstFailedAgo(7*day)), t0, []R{retryWindow}},
		{"RetryWindowWithoutFailure", row(schedule.StateFailedRetryable), t0, nil},
		{"RetryWindowOnlyWhileRetryable", row(schedule.StatePending, firstFailedAgo(8*day)), t0, nil},
		{"RetryWindowCodeOnFailedRow", row(schedule.StateFailedPermanent, code(schedule.ErrorRetryWindowExpired), flagged), t0, []R{retryWindow}},
		{"RetryWindowCodeInAnyState", row(schedule.StateCancelled, code(schedule.ErrorRetryWindowExpired)), t0, []R{retryWindow}},

		{"Misregistered", row(schedule.StateMisregistered), t0, []R{reversed}},
		{"MisregisteredFlagged", row(schedule.StateMisregistered, flagged), t0, []R{reversed}},

		{"PermanentFlagged", row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed), flagged), t0, []R{permanent}},
		{"PermanentFlaggedWithoutCode", row(schedule.StateFailedPermanent, flagged), t0, []R{permanent}},
		{"PermanentNotFlagged", row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed)), t0, nil},

		{"SubmittingJustInsideGrace", row(schedule.StateSubmitting, submittedAgo(75*time.Minute-ns)), t0, nil},
		// The recovery graces are strict: exactly at the grace's end the row is not yet stuck.
		{"SubmittingExactlyAtGrace", row(schedule.StateSubmitting, submittedAgo(75*time.Minute)), t0, nil},
		{"SubmittingPastGrace", row(schedule.StateSubmitting, submittedAgo(75*time.Minute+ns)), t0, []R{stuck}},
		{"SubmittingPastGraceBySecond", row(schedule.StateSubmitting, submittedAgo(75*time.Minute+time.Second)), t0, []R{stuck}},
		{"SubmittingEntryExactlyAtGrace", row(schedule.StateSubmitting, enteredAgo(75*time.Minute)), t0, nil},
		{"SubmittingTimedFromEntryWithoutSubmission", row(schedule.StateSubmitting, enteredAgo(75*time.Minute+ns)), t0, []R{stuck}},
		{"SubmittingEntryJustInsideGrace", row(schedule.StateSubmitting, enteredAgo(75*time.Minute-ns)), t0, nil},
		{"SubmittingRestampedSubmissionWins", row(schedule.StateSubmitting, enteredAgo(3*time.Hour), submittedAgo(10*time.Minute)), t0, nil},
		{"SubmittingAsStored", row(schedule.StateSubmitting, submittedAgo(80*time.Minute), enteredAgo(80*time.Minute), changedAgo(80*time.Minute)), t0, []R{stuck, late}},
		{"ResolvingJustInsideGrace", row(schedule.StateResolvingEnrolment, enteredAgo(30*time.Minute-ns)), t0, nil},
		{"ResolvingExactlyAtGrace", row(schedule.StateResolvingEnrolment, enteredAgo(30*time.Minute)), t0, nil},
		{"ResolvingPastGrace", row(schedule.StateResolvingEnrolment, enteredAgo(30*time.Minute+ns)), t0, []R{stuck}},
		{"ResolvingPastGraceBySecond", row(schedule.StateResolvingEnrolment, enteredAgo(30*time.Minute+time.Second)), t0, []R{stuck}},

		{"FourRetries", row(schedule.StateFailedRetryable, retries(4), firstFailedAgo(time.Hour)), t0, nil},
		{"FiveRetries", row(schedule.StateFailedRetryable, retries(5), firstFailedAgo(time.Hour)), t0, []R{attempts}},
		{"FiveRetriesButFailed", row(schedule.StateFailedPermanent, retries(5)), t0, nil},
		{"NegativeRetries", row(schedule.StatePending, retries(-7)), t0, nil},

		{"ReadyExactly2Hours", row(schedule.StateReadyToSubmit, changedAgo(2*time.Hour)), t0, nil},
		{"ReadyOver2Hours", row(schedule.StateReadyToSubmit, changedAgo(2*time.Hour+ns)), t0, []R{late}},
		{"SubmittingExactly15Minutes", row(schedule.StateSubmitting, submittedAgo(time.Minute), changedAgo(15*time.Minute)), t0, nil},
		{"SubmittingOver15Minutes", row(schedule.StateSubmitting, submittedAgo(time.Minute), changedAgo(15*time.Minute+ns)), t0, []R{late}},
		{"AwaitingExactly24Hours", row(schedule.StateAwaitingVerification, submittedAgo(time.Hour), changedAgo(day)), t0, nil},
		{"AwaitingOver24Hours", row(schedule.StateAwaitingVerification, submittedAgo(time.Hour), changedAgo(day+time.Second)), t0, []R{late}},
		{"RetryableExactly3Days", row(schedule.StateFailedRetryable, firstFailedAgo(time.Hour), changedAgo(3*day)), t0, nil},
		{"RetryableOver3Days", row(schedule.StateFailedRetryable, firstFailedAgo(time.Hour), changedAgo(3*day+ns)), t0, []R{late}},
		{"PendingHasNoThreshold", row(schedule.StatePending, changedAgo(300*day)), t0, nil},
		{"UncertainHasNoThreshold", row(schedule.StateSubmissionUncertain, submittedAgo(time.Hour), changedAgo(300*day)), t0, []R{fresh}},

		{"Flagged", row(schedule.StatePending, flagged), t0, []R{flag}},
		{"FlaggedTerminal", row(schedule.StateRegistered, flagged), t0, []R{flag}},
		{"FlagExplainedByAnotherReason", row(schedule.StateFailedRetryable, flagged, retries(6), firstFailedAgo(time.Hour)), t0, []R{attempts}},
		// As the brief specifies (and the pipeline's own queue does): running
		// late also hides the flag, so such a row needs no admin.
		{"FlagNotExplainedByRunningLate", row(schedule.StateAwaitingVerification, flagged, submittedAgo(time.Hour), changedAgo(2*day)), t0, []R{late, flag}},

		{"EverythingAtOnce", row(schedule.StateSubmissionUncertain, submittedAgo(15*day), reimports(3), retries(5), flagged, code(schedule.ErrorRetryWindowExpired)), t0, []R{uncertain, gaveUp, reimported, retryWindow, attempts}},
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

func TestClassifyNeedsAdminAndDismissal(t *testing.T) {
	t.Parallel()

	attempts, late := schedule.ReasonTooManyAttempts, schedule.ReasonRunningLate
	// Too many attempts and running late at once.
	both := []func(*schedule.Row){retries(5), firstFailedAgo(time.Hour), changedAgo(4 * day)}
	tests := []struct {
		name                  string
		row                   schedule.Row
		needsAdmin, dismissed bool
	}{
		{"NoReasons", row(schedule.StatePending), false, false},
		{"NoReasonsNothingToDismiss", row(schedule.StatePending, dismissed(schedule.ReasonFlaggedByPipeline)), false, false},
		{"EscalatingUndismissed", row(schedule.StateFailedRetryable, both...), true, false},
		{"PartialCover", row(schedule.StateFailedRetryable, append(both, dismissed(attempts))...), true, false},
		{"PartialCoverOfTheLateOne", row(schedule.StateFailedRetryable, append(both, dismissed(late))...), true, false},
		{"FullCover", row(schedule.StateFailedRetryable, append(both, dismissed(late, attempts))...), false, true},
		{"SupersetCover", row(schedule.StateFailedRetryable, append(both, dismissed(schedule.ReasonMisregistered, attempts, late))...), false, true},
		{"OnlyRunningLate", row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour)), false, false},
		{"OnlyRunningLateDismissed", row(schedule.StateReadyToSubmit, changedAgo(3*time.Hour), dismissed(late)), false, true},
		{"FlagDismissed", row(schedule.StatePending, flagged, dismissed(schedule.ReasonFlaggedByPipeline)), false, true},
		{"DismissedFlagThenANewReason", row(schedule.StatePending, flagged, retries(5), dismissed(schedule.ReasonFlaggedByPipeline)), true, false},
		{"Superseded", row(schedule.StateMisregistered, superseded), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := schedule.Classify(tc.row, t0)
			if got.NeedsAdmin != tc.needsAdmin || got.Dismissed != tc.dismissed {
				t.Errorf("Classify() NeedsAdmin, Dismissed = %v, %v (reasons %v), want %v, %v", got.NeedsAdmin, got.Dismissed, got.Reasons, tc.needsAdmin, tc.dismissed)
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
		{"UncertainADayAfterSubmission", row(schedule.StateSubmissionUncertain, submittedAgo(time.Hour)), ptr(t0.Add(23 * time.Hour))},
		{"UncertainSubSecond", row(schedule.StateSubmissionUncertain, func(r *schedule.Row) { r.SubmittedAt = &subSecond }), ptr(subSecond.Add(day))},
		{"UncertainOverdueThenGivesUp", row(schedule.StateSubmissionUncertain, submittedAgo(2*day)), ptr(t0.Add(12 * day))},
		{"UncertainPastEverything", row(schedule.StateSubmissionUncertain, submittedAgo(15*day)), nil},
		{"UncertainWithoutSubmission", row(schedule.StateSubmissionUncertain), nil},
		{"Awaiting", row(schedule.StateAwaitingVerification, submittedAgo(time.Hour)), ptr(t0.Add(14*day - time.Hour))},
		{"AwaitingAtTheInstantItFires", row(schedule.StateAwaitingVerification, submittedAgo(14*day)), nil},
		{"AwaitingWithoutSubmission", row(schedule.StateAwaitingVerification), nil},
		{"PartialFirst", row(schedule.StatePartiallyRegistered, submittedAgo(10*time.Hour), partialAgo(time.Hour)), ptr(t0.Add(3*day - time.Hour))},
		{"PartialOverdueThenGivesUp", row(schedule.StatePartiallyRegistered, submittedAgo(5*day), partialAgo(4*day)), ptr(t0.Add(9 * day))},
		{"PartialGivesUpFirst", row(schedule.StatePartiallyRegistered, submittedAgo(13*day), partialAgo(time.Hour)), ptr(t0.Add(day))},
		{"Retryable", row(schedule.StateFailedRetryable, firstFailedAgo(day)), ptr(t0.Add(6 * day))},
		{"RetryableExpired", row(schedule.StateFailedRetryable, firstFailedAgo(8*day)), nil},
		{"RetryableAlreadyCodedExpired", row(schedule.StateFailedRetryable, firstFailedAgo(day), code(schedule.ErrorRetryWindowExpired)), nil},
		{"RetryableWithoutFailure", row(schedule.StateFailedRetryable), nil},
		// A strict grace first applies an instant after its end.
		{"Submitting", row(schedule.StateSubmitting, submittedAgo(15*time.Minute)), ptr(t0.Add(time.Hour + time.Nanosecond))},
		{"SubmittingFromEntry", row(schedule.StateSubmitting, enteredAgo(5*time.Minute)), ptr(t0.Add(70*time.Minute + time.Nanosecond))},
		{"SubmittingStuck", row(schedule.StateSubmitting, submittedAgo(2*time.Hour)), nil},
		{"Resolving", row(schedule.StateResolvingEnrolment, enteredAgo(10*time.Minute)), ptr(t0.Add(20*time.Minute + time.Nanosecond))},
		{"Pending", row(schedule.StatePending, submittedAgo(time.Hour), firstFailedAgo(time.Hour)), nil},
		{"Ready", row(schedule.StateReadyToSubmit, changedAgo(time.Hour)), nil},
		{"Checking", row(schedule.StateCheckingEnrolment), nil},
		{"NoUsableEnrolment", row(schedule.StateNoUsableEnrolment), nil},
		{"Blocked", row(schedule.StateBlocked, firstFailedAgo(time.Hour)), nil},
		{"Misregistered", row(schedule.StateMisregistered, submittedAgo(time.Hour)), nil},
		{"Registered", row(schedule.StateRegistered, submittedAgo(time.Hour)), nil},
		{"FailedPermanent", row(schedule.StateFailedPermanent, firstFailedAgo(time.Hour)), nil},
		{"Cancelled", row(schedule.StateCancelled), nil},
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

func escalating(reasons []schedule.Reason) []schedule.Reason {
	var out []schedule.Reason
	for _, r := range reasons {
		if r.Escalates() {
			out = append(out, r)
		}
	}
	return out
}

func subset(a, b []schedule.Reason) bool {
	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}
	return true
}

// checkEscalation asserts property (c): at EscalatesAt an escalating reason
// appears that r did not have at now, and one nanosecond earlier none has.
func checkEscalation(t *testing.T, r schedule.Row, now time.Time, st schedule.Status) {
	t.Helper()

	at := st.EscalatesAt
	if !at.After(now) {
		t.Errorf("EscalatesAt = %v, want after now %v", at, now)
	}
	before := escalating(st.Reasons.List())
	atFire := escalating(schedule.Classify(r, at).Reasons.List())
	if subset(atFire, before) {
		t.Errorf("escalating reasons at EscalatesAt %v = %v, want one not among %v at now", at, atFire, before)
	}
	if justBefore := escalating(schedule.Classify(r, at.Add(-time.Nanosecond)).Reasons.List()); !subset(justBefore, before) {
		t.Errorf("escalating reasons 1ns before EscalatesAt = %v, want only those at now %v", justBefore, before)
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
	if rng.IntN(2) == 0 {
		for _, reason := range schedule.Reasons() {
			if rng.IntN(3) == 0 {
				r.DismissedReasons = append(r.DismissedReasons, reason)
			}
		}
	}
	return r, now
}

func position(reason schedule.Reason) int {
	return slices.Index(schedule.Reasons(), reason)
}

// checkClassifyProperties asserts what Classify promises for any row.
func checkClassifyProperties(t *testing.T, r schedule.Row, now time.Time) {
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

	// (b) NeedsAdmin and Dismissed agree with the reasons and the dismissal.
	wantDismissed := !st.Reasons.Empty() && subset(st.Reasons.List(), r.DismissedReasons)
	if st.Dismissed != wantDismissed {
		t.Errorf("Dismissed = %v with reasons %v and dismissal %v, want %v", st.Dismissed, st.Reasons, r.DismissedReasons, wantDismissed)
	}
	asking := slices.ContainsFunc(st.Reasons.List(), func(x schedule.Reason) bool { return x != schedule.ReasonRunningLate })
	if want := asking && !st.Dismissed; st.NeedsAdmin != want {
		t.Errorf("NeedsAdmin = %v with reasons %v, Dismissed %v, want %v", st.NeedsAdmin, st.Reasons, st.Dismissed, want)
	}

	// (c) EscalatesAt is exactly when a new escalating reason appears, and
	// when it is nil none ever will.
	if !st.EscalatesAt.IsZero() {
		checkEscalation(t, r, now, st)
	} else if later := escalating(schedule.Classify(r, now.AddDate(100, 0, 0)).Reasons.List()); !subset(later, escalating(st.Reasons.List())) {
		t.Errorf("EscalatesAt = nil, but 100 years later escalating reasons are %v, not only %v", later, escalating(st.Reasons.List()))
	}

	// Reasons other than the pipeline's flag, which others may hide, never
	// go away as time passes; an uncertain row's first reason gives way to
	// uncertain_overdue when it escalates.
	var lasting []schedule.Reason
	for _, reason := range st.Reasons.List() {
		if reason != schedule.ReasonFlaggedByPipeline && reason != schedule.ReasonOutcomeUncertain {
			lasting = append(lasting, reason)
		}
	}
	if later := schedule.Classify(r, now.Add(time.Hour)).Reasons.List(); !subset(lasting, later) {
		t.Errorf("reasons %v at now, but %v an hour later; want none to lapse", st.Reasons, later)
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
		checkClassifyProperties(t, r, now)
		if t.Failed() {
			t.Fatalf("first failing row: %+v at %v", r, now)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64) {
		t.Parallel()

		r, now := randomRow(rand.New(rand.NewPCG(seed1, seed2)))
		checkClassifyProperties(t, r, now)
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
	wantReasons := []schedule.Reason{
		"outcome_uncertain", "submission_time_missing", "uncertain_overdue", "partial_overdue", "verification_gave_up", "repeatedly_not_registered",
		"retry_window_expired", "misregistered", "permanent_error", "stuck_past_recovery_grace",
		"too_many_attempts", "running_late", "flagged_by_pipeline",
	}
	if got := schedule.Reasons(); !slices.Equal(got, wantReasons) {
		t.Errorf("Reasons() = %v, want %v", got, wantReasons)
	}
	for _, r := range wantReasons {
		shownOnly := r == "running_late" || r == "outcome_uncertain" || r == "submission_time_missing"
		if got, want := r.Escalates(), !shownOnly; got != want {
			t.Errorf("%q.Escalates() = %v, want %v", r, got, want)
		}
		if got, want := r.AsksPerson(), r != "running_late"; got != want {
			t.Errorf("%q.AsksPerson() = %v, want %v", r, got, want)
		}
	}
	if schedule.Reason("no_such_reason").Escalates() {
		t.Error(`Reason("no_such_reason").Escalates() = true, want false`)
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
