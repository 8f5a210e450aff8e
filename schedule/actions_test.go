package schedule_test

import (
	"slices"
	"testing"
	"time"

	"regdesk/schedule"
)

// facts builds the facts of a quiet row in state at t0 (see row), changed by
// options.
func facts(state schedule.State, opts ...func(*schedule.Facts)) schedule.Facts {
	f := schedule.Facts{Row: row(state)}
	for _, o := range opts {
		o(&f)
	}
	return f
}

// with applies row options to the facts' row.
func withRow(opts ...func(*schedule.Row)) func(*schedule.Facts) {
	return func(f *schedule.Facts) {
		for _, o := range opts {
			o(&f.Row)
		}
	}
}

func submittedID(id string) func(*schedule.Facts) {
	return func(f *schedule.Facts) { f.SubmittedAttainmentID = id }
}

func linkedTo(id string) func(*schedule.Facts) {
	return func(f *schedule.Facts) { f.MatchLinkedTo = id }
}

// lookup records a lookup made at, with verdict and, for verdicts that found
// one, a match that is ours or not.
func lookup(at time.Time, v schedule.VerdictKind, ours bool) func(*schedule.Facts) {
	return func(f *schedule.Facts) {
		lk := &schedule.LookupFacts{At: at, Verdict: v}
		if v.FoundMatch() {
			lk.MatchID, lk.MatchOurs = "hy-att-1", ours
			lk.MatchType = "CourseUnitAttainment"
			if v == schedule.VerdictPartlyRegistered {
				lk.MatchType = "AssessmentItemAttainment"
			}
		}
		f.Lookup = lk
	}
}

func lookupNoMatchID(at time.Time, v schedule.VerdictKind) func(*schedule.Facts) {
	return func(f *schedule.Facts) { f.Lookup = &schedule.LookupFacts{At: at, Verdict: v, MatchOurs: true} }
}

// unanswered marks the lookup's call as failed.
func unanswered(c schedule.LookupCall) func(*schedule.Facts) {
	return func(f *schedule.Facts) { f.Lookup.Unanswered = append(f.Lookup.Unanswered, c) }
}

// pending records that Suotar's verify answer said the submission is pending, until `until`
// (nil: Suotar did not say).
func pending(until *time.Time) func(*schedule.Facts) {
	return func(f *schedule.Facts) { f.Lookup.Pending, f.Lookup.PendingUntil = true, until }
}

func resubmitNotBefore(at time.Time) func(*schedule.Row) {
	return func(r *schedule.Row) { r.ResubmitNotBefore = &at }
}

const (
	strictAny     = schedule.StrictnessAny
	strictBulk    = schedule.StrictnessAnyExceptSubmissionUncertain
	strictTeacher = schedule.StrictnessOnlyFailedPermanent
)

// decideCase is one row of the rule tables. A zero want* field is checked
// as zero too, so every case pins the whole decision.
type decideCase struct {
	name        string
	action      schedule.Action
	facts       schedule.Facts
	strictness  schedule.Strictness
	now         time.Time // zero: t0
	refusal     schedule.RefusalCode
	risk        schedule.RiskLabel
	target      schedule.State
	availableAt *time.Time
	check       schedule.CheckTarget
	reasons     []schedule.Reason
}

var (
	pendingWindow = schedule.SuotarPendingWindow
	// Uncertain submissions in these cases went out at sentAt0.
	sentAt0   = t0.Add(-3 * 24 * time.Hour)
	windowEnd = sentAt0.Add(pendingWindow)
)

func uncertainFacts(opts ...func(*schedule.Facts)) schedule.Facts {
	return facts(schedule.StateSubmissionUncertain, append([]func(*schedule.Facts){
		withRow(func(r *schedule.Row) { r.SubmittedAt = ptr(sentAt0) }, code(schedule.ErrorSisuTimeout)),
	}, opts...)...)
}

func resubmitCases() []decideCase {
	S := schedule.State("")
	var cases []decideCase
	add := func(name string, f schedule.Facts, s schedule.Strictness, refusal schedule.RefusalCode, risk schedule.RiskLabel, at *time.Time) {
		target := S
		if refusal == "" {
			target = schedule.StateReadyToSubmit
		}
		cases = append(cases, decideCase{name: "Resubmit/" + name, action: schedule.ActionResubmit, facts: f, strictness: s,
			refusal: refusal, risk: risk, target: target, availableAt: at})
	}
	// Rule 1 to 7, in the LMS's order.
	add("Superseded", facts(schedule.StateFailedPermanent, withRow(superseded)), strictAny, schedule.RefusalSuperseded, "", nil)
	add("SupersededBeforeSucceeded", facts(schedule.StateRegistered, withRow(superseded)), strictAny, schedule.RefusalSuperseded, "", nil)
	for _, st := range []schedule.State{schedule.StateRegistered, schedule.StateDuplicate, schedule.StateNotImproved} {
		add("Success/"+string(st), facts(st), strictAny, schedule.RefusalAlreadySucceeded, "", nil)
	}
	for _, st := range []schedule.State{schedule.StateSubmitting, schedule.StateAwaitingVerification, schedule.StatePartiallyRegistered} {
		add("Sent/"+string(st), facts(st, withRow(submittedAgo(time.Hour))), strictAny, schedule.RefusalAlreadySubmitted, "", nil)
	}
	add("UncertainInBulk", uncertainFacts(lookup(windowEnd, schedule.VerdictNotInSisu, false)), strictBulk, schedule.RefusalSubmissionUncertain, "", nil)
	add("UncertainForTeacher", uncertainFacts(lookup(windowEnd, schedule.VerdictNotInSisu, false)), strictTeacher, schedule.RefusalSubmissionUncertain, "", nil)
	add("CancelledAfterSending", facts(schedule.StateCancelled, withRow(submittedAgo(72*time.Hour))), strictAny, schedule.RefusalAlreadySubmitted, "", nil)
	add("CancelledNeverSent", facts(schedule.StateCancelled), strictAny, "", schedule.RiskNormal, nil)
	add("TeacherOnRetryable", facts(schedule.StateFailedRetryable), strictTeacher, schedule.RefusalNotFailedPermanent, "", nil)
	add("TeacherOnMisregistered", facts(schedule.StateMisregistered, withRow(submittedAgo(72*time.Hour))), strictTeacher, schedule.RefusalNotFailedPermanent, "", nil)
	add("TeacherOnFailedPermanent", facts(schedule.StateFailedPermanent, withRow(code(schedule.ErrorRetryWindowExpired))), strictTeacher, "", schedule.RiskNormal, nil)
	for _, st := range []schedule.State{schedule.StatePending, schedule.StateBlocked, schedule.StateReadyToSubmit,
		schedule.StateResolvingEnrolment, schedule.StateCheckingEnrolment, schedule.StateNoUsableEnrolment} {
		add("InPipeline/"+string(st), facts(st), strictAny, schedule.RefusalStillInPipeline, "", nil)
	}
	// Rule 8: the pending window of an uncertain submission.
	recent := t0.Add(-pendingWindow + time.Second)
	add("UncertainInsidePendingWindow", facts(schedule.StateSubmissionUncertain, withRow(func(r *schedule.Row) { r.SubmittedAt = ptr(recent) })),
		strictAny, schedule.RefusalSubmissionUncertainTooRecent, "", ptr(recent.Add(pendingWindow)))
	add("UncertainWithoutSubmissionTime", facts(schedule.StateSubmissionUncertain, lookup(t0, schedule.VerdictNotInSisu, false)),
		strictAny, schedule.RefusalSubmissionUncertainTooRecent, "", nil)
	exact := t0.Add(-pendingWindow)
	add("UncertainExactlyAtWindowEnd", facts(schedule.StateSubmissionUncertain, withRow(func(r *schedule.Row) { r.SubmittedAt = ptr(exact) }),
		lookup(t0, schedule.VerdictNotInSisu, false)), strictAny, "", schedule.RiskPossibleDuplicate, nil)
	// Rule 9: Suotar's retryAfter.
	add("UncertainBeforeRetryAfter", uncertainFacts(withRow(resubmitNotBefore(t0.Add(time.Hour))), lookup(windowEnd, schedule.VerdictNotInSisu, false)),
		strictAny, schedule.RefusalSubmissionPending, "", ptr(t0.Add(time.Hour)))
	add("UncertainAtRetryAfter", uncertainFacts(withRow(resubmitNotBefore(t0)), lookup(windowEnd, schedule.VerdictNotInSisu, false)),
		strictAny, "", schedule.RiskPossibleDuplicate, nil)
	// regdesk's rules: a lookup after the pending window that found nothing.
	add("UncertainWithoutLookup", uncertainFacts(), strictAny, schedule.RefusalNeedsLookupAfterPendingWindow, "", nil)
	add("UncertainLookupInsideWindow", uncertainFacts(lookup(windowEnd.Add(-time.Microsecond), schedule.VerdictNotInSisu, false)),
		strictAny, schedule.RefusalNeedsLookupAfterPendingWindow, "", nil)
	add("UncertainLookupFoundCourseUnit", uncertainFacts(lookup(windowEnd, schedule.VerdictRegistered, true)),
		strictAny, schedule.RefusalLookupFoundAttainment, "", nil)
	add("UncertainLookupFoundAssessmentItem", uncertainFacts(lookup(windowEnd, schedule.VerdictPartlyRegistered, false)),
		strictAny, schedule.RefusalLookupFoundAttainment, "", nil)
	add("UncertainVerdictConflicting", uncertainFacts(lookup(windowEnd, schedule.VerdictConflicting, false)),
		strictAny, schedule.RefusalLookupInconclusive, "", nil)
	add("UncertainVerdictCannotTell", uncertainFacts(lookup(windowEnd, schedule.VerdictCannotTell, false)),
		strictAny, schedule.RefusalLookupInconclusive, "", nil)
	add("UncertainLookupUnknownVerdict", uncertainFacts(lookup(windowEnd, "maybe", false)),
		strictAny, schedule.RefusalLookupInconclusive, "", nil)
	add("UncertainLookupFoundNothing", uncertainFacts(lookup(windowEnd, schedule.VerdictNotInSisu, false)),
		strictAny, "", schedule.RiskPossibleDuplicate, nil)
	// A lookup with a failed call shows nothing absent, even under a verdict recorded as "not in
	// Sisu" (as lookups before that rule were), and a lost retryAfter never reads as no wait.
	for _, call := range []schedule.LookupCall{schedule.CallAttainments, schedule.CallVerify} {
		add("UncertainLookupWithFailedCall/"+string(call), uncertainFacts(lookup(windowEnd, schedule.VerdictNotInSisu, false), unanswered(call)),
			strictAny, schedule.RefusalLookupInconclusive, "", nil)
	}
	add("UncertainLookupPendingWithoutRetryAfter", uncertainFacts(lookup(windowEnd, schedule.VerdictNotInSisu, false), pending(nil)),
		strictAny, schedule.RefusalSubmissionPending, "", nil)
	add("UncertainLookupPendingUntilLater", uncertainFacts(lookup(windowEnd, schedule.VerdictNotInSisu, false), pending(ptr(t0.Add(time.Hour)))),
		strictAny, schedule.RefusalSubmissionPending, "", ptr(t0.Add(time.Hour)))
	add("UncertainLookupPendingUntilPast", uncertainFacts(lookup(windowEnd, schedule.VerdictNotInSisu, false), pending(ptr(t0))),
		strictAny, schedule.RefusalNeedsLookupAfterPendingWindow, "", nil)
	// Rule 8 with a retryAfter later than the window's end: the page names the later.
	add("UncertainInsideWindowRetryAfterLater", facts(schedule.StateSubmissionUncertain, withRow(func(r *schedule.Row) { r.SubmittedAt = ptr(recent) },
		resubmitNotBefore(recent.Add(pendingWindow+3*time.Hour)))), strictAny, schedule.RefusalSubmissionUncertainTooRecent, "", ptr(recent.Add(pendingWindow+3*time.Hour)))
	add("UncertainInsideWindowRetryAfterEarlier", facts(schedule.StateSubmissionUncertain, withRow(func(r *schedule.Row) { r.SubmittedAt = ptr(recent) },
		resubmitNotBefore(recent.Add(time.Hour)))), strictAny, schedule.RefusalSubmissionUncertainTooRecent, "", ptr(recent.Add(pendingWindow)))
	// A failed row whose submission Suotar accepted waits and looks like an
	// uncertain one: the LMS would let it through at once.
	accepted := func(ago time.Duration, opts ...func(*schedule.Facts)) func(schedule.State) schedule.Facts {
		return func(st schedule.State) schedule.Facts {
			return facts(st, append([]func(*schedule.Facts){withRow(submittedAgo(ago)), submittedID("hy-kur-1")}, opts...)...)
		}
	}
	for _, st := range []schedule.State{schedule.StateFailedRetryable, schedule.StateFailedPermanent} {
		add("AcceptedInsideWindow/"+string(st), accepted(2*time.Hour)(st), strictAny, schedule.RefusalSubmissionPending, "", ptr(t0.Add(-2*time.Hour+pendingWindow)))
		add("AcceptedNoLookup/"+string(st), accepted(72*time.Hour)(st), strictAny, schedule.RefusalNeedsLookupAfterPendingWindow, "", nil)
		add("AcceptedFoundInSisu/"+string(st), accepted(72*time.Hour, lookup(t0, schedule.VerdictRegistered, true))(st),
			strictAny, schedule.RefusalLookupFoundAttainment, "", nil)
		add("AcceptedLookupFoundNothing/"+string(st), accepted(72*time.Hour, lookup(t0, schedule.VerdictNotInSisu, false))(st),
			strictAny, "", schedule.RiskPossibleDuplicate, nil)
	}
	add("AcceptedRetryAfterPastWindow", accepted(2*time.Hour, withRow(resubmitNotBefore(t0.Add(30*time.Hour))))(schedule.StateFailedRetryable),
		strictAny, schedule.RefusalSubmissionPending, "", ptr(t0.Add(30*time.Hour)))
	add("AcceptedWindowPastRetryAfter", accepted(2*time.Hour, withRow(resubmitNotBefore(t0.Add(time.Hour))))(schedule.StateFailedRetryable),
		strictAny, schedule.RefusalSubmissionPending, "", ptr(t0.Add(-2*time.Hour+pendingWindow)))
	add("AcceptedWithoutSubmissionTime", facts(schedule.StateFailedPermanent, submittedID("hy-kur-1"), lookup(t0, schedule.VerdictNotInSisu, false)),
		strictAny, schedule.RefusalSubmissionPending, "", nil)
	// Risks.
	add("Misregistered", facts(schedule.StateMisregistered, withRow(submittedAgo(72*time.Hour)), submittedID("hy-kur-1")),
		strictAny, "", schedule.RiskReplacesReversedAttainment, nil)
	add("RejectedForConfig", facts(schedule.StateFailedPermanent, withRow(code(schedule.ErrorInvalidCredits))), strictAny, "", schedule.RiskLikelyRejectedAgain, nil)
	add("RejectedBySisu", facts(schedule.StateFailedPermanent, withRow(code(schedule.ErrorSisuValidationFailed))), strictAny, "", schedule.RiskLikelyRejectedAgain, nil)
	add("RejectedForStudent", facts(schedule.StateFailedPermanent, withRow(code(schedule.ErrorStudyRightNotValid))), strictAny, "", schedule.RiskLikelyRejectedAgain, nil)
	add("RetryWindowExpired", facts(schedule.StateFailedPermanent, withRow(code(schedule.ErrorRetryWindowExpired))), strictAny, "", schedule.RiskNormal, nil)
	add("RetryableNeverAccepted", facts(schedule.StateFailedRetryable, withRow(code(schedule.ErrorTransportError), submittedAgo(2*time.Hour))),
		strictAny, "", schedule.RiskNormal, nil)
	add("RetryableInBulk", facts(schedule.StateFailedRetryable), strictBulk, "", schedule.RiskNormal, nil)
	add("UnknownState", facts("limbo"), strictAny, schedule.RefusalUnknownState, "", nil)
	return cases
}

func cancelCases() []decideCase {
	var cases []decideCase
	add := func(name string, f schedule.Facts, s schedule.Strictness, refusal schedule.RefusalCode) {
		c := decideCase{name: "Cancel/" + name, action: schedule.ActionCancel, facts: f, strictness: s, refusal: refusal}
		if refusal == "" {
			c.target, c.risk = schedule.StateCancelled, schedule.RiskNormal
		}
		cases = append(cases, c)
	}
	add("Superseded", facts(schedule.StatePending, withRow(superseded)), strictAny, schedule.RefusalSuperseded)
	for _, st := range []schedule.State{schedule.StateRegistered, schedule.StateDuplicate, schedule.StateNotImproved} {
		add("Success/"+string(st), facts(st), strictAny, schedule.RefusalAlreadySucceeded)
	}
	add("Cancelled", facts(schedule.StateCancelled), strictAny, schedule.RefusalAlreadyCancelled)
	add("Submitting", facts(schedule.StateSubmitting), strictAny, schedule.RefusalAlreadySubmitted)
	add("Awaiting", facts(schedule.StateAwaitingVerification), strictAny, schedule.RefusalAwaitingConfirmation)
	add("Partial", facts(schedule.StatePartiallyRegistered), strictAny, schedule.RefusalAwaitingConfirmation)
	add("UncertainInBulk", uncertainFacts(), strictBulk, schedule.RefusalSubmissionUncertain)
	add("UncertainForTeacher", uncertainFacts(), strictTeacher, schedule.RefusalSubmissionUncertain)
	add("UncertainOneRow", uncertainFacts(), strictAny, "")
	add("UncertainInsideWindow", facts(schedule.StateSubmissionUncertain, withRow(submittedAgo(time.Minute))), strictAny, "")
	for _, st := range []schedule.State{schedule.StatePending, schedule.StateReadyToSubmit, schedule.StateNoUsableEnrolment,
		schedule.StateMisregistered, schedule.StateFailedRetryable, schedule.StateFailedPermanent, schedule.StateBlocked} {
		add("Allowed/"+string(st), facts(st), strictBulk, "")
	}
	add("UnknownState", facts("limbo"), strictAny, schedule.RefusalUnknownState)
	return cases
}

func checkNowCases() []decideCase {
	var cases []decideCase
	add := func(name string, f schedule.Facts, s schedule.Strictness, refusal schedule.RefusalCode, check schedule.CheckTarget) {
		c := decideCase{name: "CheckNow/" + name, action: schedule.ActionCheckNow, facts: f, strictness: s, refusal: refusal, check: check}
		if refusal == "" {
			c.target, c.risk = f.Row.State, schedule.RiskNormal
		}
		cases = append(cases, c)
	}
	add("Superseded", facts(schedule.StateAwaitingVerification, withRow(superseded)), strictAny, schedule.RefusalSuperseded, "")
	add("Awaiting", facts(schedule.StateAwaitingVerification), strictBulk, "", schedule.CheckAttainment)
	add("Partial", facts(schedule.StatePartiallyRegistered), strictBulk, "", schedule.CheckAttainment)
	add("Uncertain", uncertainFacts(), strictAny, "", schedule.CheckAttainment)
	add("UncertainInBulk", uncertainFacts(), strictBulk, schedule.RefusalSubmissionUncertain, "")
	add("NoUsableEnrolment", facts(schedule.StateNoUsableEnrolment), strictAny, "", schedule.CheckEnrolment)
	add("FailedRetryable", facts(schedule.StateFailedRetryable), strictAny, "", schedule.CheckNextAttempt)
	for _, st := range []schedule.State{schedule.StatePending, schedule.StateReadyToSubmit, schedule.StateSubmitting,
		schedule.StateRegistered, schedule.StateMisregistered, schedule.StateFailedPermanent, schedule.StateCancelled} {
		add("Nothing/"+string(st), facts(st), strictAny, schedule.RefusalNothingToCheck, "")
	}
	return cases
}

func flagAndDismissCases() []decideCase {
	var cases []decideCase
	clear := func(name string, f schedule.Facts, s schedule.Strictness, refusal schedule.RefusalCode) {
		c := decideCase{name: "ClearFlag/" + name, action: schedule.ActionClearFlag, facts: f, strictness: s, refusal: refusal}
		if refusal == "" {
			c.target, c.risk = f.Row.State, schedule.RiskNormal
		}
		cases = append(cases, c)
	}
	clear("Superseded", facts(schedule.StateFailedPermanent, withRow(superseded, flagged)), strictAny, schedule.RefusalSuperseded)
	clear("FlagDown", facts(schedule.StateFailedPermanent), strictAny, schedule.RefusalNothingToClear)
	clear("FlagUp", facts(schedule.StateFailedPermanent, withRow(flagged)), strictBulk, "")
	clear("UncertainInBulk", uncertainFacts(withRow(flagged)), strictBulk, schedule.RefusalSubmissionUncertain)
	clear("UncertainOneRow", uncertainFacts(withRow(flagged)), strictAny, "")

	dismiss := func(name string, f schedule.Facts, s schedule.Strictness, refusal schedule.RefusalCode, reasons ...schedule.Reason) {
		c := decideCase{name: "Dismiss/" + name, action: schedule.ActionDismissAttention, facts: f, strictness: s, refusal: refusal, reasons: reasons}
		if refusal == "" {
			c.target, c.risk = f.Row.State, schedule.RiskNormal
		}
		cases = append(cases, c)
	}
	dismiss("Superseded", facts(schedule.StateMisregistered, withRow(superseded)), strictAny, schedule.RefusalSuperseded)
	dismiss("NoReason", facts(schedule.StatePending), strictAny, schedule.RefusalNothingToDismiss)
	dismiss("Misregistered", facts(schedule.StateMisregistered, withRow(flagged)), strictAny, "", schedule.ReasonMisregistered)
	dismiss("AlreadyDismissed", facts(schedule.StateMisregistered, withRow(dismissed(schedule.ReasonMisregistered))), strictAny, schedule.RefusalNothingToDismiss)
	dismiss("NewReasonSinceDismissal", facts(schedule.StateMisregistered, withRow(retries(6), dismissed(schedule.ReasonMisregistered))), strictBulk, "",
		schedule.ReasonMisregistered, schedule.ReasonTooManyAttempts)
	dismiss("PartialOverdue", facts(schedule.StatePartiallyRegistered, withRow(submittedAgo(5*24*time.Hour), partialAgo(4*24*time.Hour))), strictAny, "",
		schedule.ReasonPartlyRegisteredOverdue)
	dismiss("UncertainInBulk", uncertainFacts(), strictBulk, schedule.RefusalSubmissionUncertain)
	dismiss("UncertainOneRow", uncertainFacts(), strictAny, "", schedule.ReasonOutcomeUncertain)
	cases = append(cases, decideCase{name: "Unknown/Action", action: "launder", facts: facts(schedule.StateFailedPermanent),
		strictness: strictAny, refusal: schedule.RefusalUnknownAction})
	return cases
}

func allDecideCases() []decideCase {
	return slices.Concat(resubmitCases(), cancelCases(), checkNowCases(), flagAndDismissCases())
}

// TestDecide pins every refusal rule and risk label, one row per rule and
// the boundaries either side of each time rule.
func TestDecide(t *testing.T) {
	t.Parallel()

	for _, tc := range allDecideCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			now := tc.now
			if now.IsZero() {
				now = t0
			}
			d := schedule.Decide(tc.action, tc.facts, tc.strictness, now)
			if d.Action != tc.action {
				t.Errorf("Action = %q, want %q", d.Action, tc.action)
			}
			if d.Refusal != tc.refusal || d.Allowed != (tc.refusal == "") {
				t.Errorf("Allowed, Refusal = %v, %q, want %v, %q (%s)", d.Allowed, d.Refusal, tc.refusal == "", tc.refusal, d.Say)
			}
			if d.Risk != tc.risk {
				t.Errorf("Risk = %q, want %q", d.Risk, tc.risk)
			}
			if d.Target != tc.target {
				t.Errorf("Target = %q, want %q", d.Target, tc.target)
			}
			if !equalTimes(d.AvailableAt, tc.availableAt) {
				t.Errorf("AvailableAt = %v, want %v", d.AvailableAt, tc.availableAt)
			}
			if d.Check != tc.check {
				t.Errorf("Check = %q, want %q", d.Check, tc.check)
			}
			if !slices.Equal(d.Reasons, tc.reasons) {
				t.Errorf("Reasons = %v, want %v", d.Reasons, tc.reasons)
			}
			if d.Say == "" {
				t.Error("Say is empty: the edge has no sentence to word")
			}
		})
	}
}

func equalTimes(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// TestDecideTablesCoverEveryCodeAndRisk keeps the tables honest: a refusal
// code or risk added without a case fails here.
func TestDecideTablesCoverEveryCodeAndRisk(t *testing.T) {
	t.Parallel()

	refusals := map[schedule.RefusalCode]bool{}
	risks := map[schedule.RiskLabel]bool{}
	actions := map[schedule.Action]bool{}
	for _, tc := range allDecideCases() {
		refusals[tc.refusal] = true
		risks[tc.risk] = true
		actions[tc.action] = true
	}
	for _, c := range schedule.RefusalCodes() {
		if !refusals[c] {
			t.Errorf("no table case refuses with %q", c)
		}
	}
	for _, r := range schedule.RiskLabels() {
		if !risks[r] {
			t.Errorf("no table case is allowed with risk %q", r)
		}
	}
	for _, a := range schedule.Actions() {
		if !actions[a] {
			t.Errorf("no table case decides %q", a)
		}
	}
}

// lookupVariants are the lookups the exhaustive test combines with rows.
func lookupVariants(at time.Time) []*schedule.LookupFacts {
	out := []*schedule.LookupFacts{nil}
	for _, v := range append(schedule.VerdictKinds(), "") {
		for _, ours := range []bool{false, true} {
			for _, id := range []string{"", "hy-att-1"} {
				out = append(out, &schedule.LookupFacts{At: at, Verdict: v, MatchID: id, MatchOurs: ours})
			}
		}
	}
	return out
}

// TestDecideInvariants runs every action over every state, strictness,
// lookup and flag and checks what must hold whatever the rule: no action
// ever moves a row into submitting (only import may enter it), a refusal has a known
// code and no target, an allowed action has a risk, and AvailableAt lies in
// the future.
func TestDecideInvariants(t *testing.T) {
	t.Parallel()

	now := t0
	var n int
	for _, st := range schedule.States() {
		for _, s := range []schedule.Strictness{strictAny, strictBulk, strictTeacher} {
			for _, submitted := range []*time.Time{nil, ptr(now.Add(-time.Hour)), ptr(now.Add(-72 * time.Hour))} {
				for _, lk := range lookupVariants(now.Add(-time.Minute)) {
					for _, id := range []string{"", "hy-kur-1"} {
						f := schedule.Facts{Row: row(st, func(r *schedule.Row) { r.SubmittedAt = submitted; r.NeedsAdminAttention = id != "" }),
							SubmittedAttainmentID: id, Lookup: lk}
						for _, d := range schedule.DecideAll(f, s, now) {
							n++
							if d.Target == schedule.StateSubmitting && st != schedule.StateSubmitting {
								t.Fatalf("%s on %s moves the row into submitting", d.Action, st)
							}
							if d.Allowed {
								if d.Refusal != "" || !d.Risk.Valid() || !d.Target.Valid() || d.AvailableAt != nil {
									t.Fatalf("%s on %s: allowed with refusal %q, risk %q, target %q, available %v", d.Action, st, d.Refusal, d.Risk, d.Target, d.AvailableAt)
								}
								continue
							}
							if !d.Refusal.Valid() || d.Target != "" || d.Risk != "" || d.Say == "" {
								t.Fatalf("%s on %s: refused with code %q, target %q, risk %q, say %q", d.Action, st, d.Refusal, d.Target, d.Risk, d.Say)
							}
							if d.AvailableAt != nil && !d.AvailableAt.After(now) {
								t.Fatalf("%s on %s: available at %v, not after now", d.Action, st, d.AvailableAt)
							}
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no decisions made")
	}
}

// TestDecisionSays shows how a decision leaves its words to the edge: it names its sentence
// (Say) and the instant that sentence needs, and schedule formats nothing.
func TestDecisionSays(t *testing.T) {
	t.Parallel()

	f := facts(schedule.StateSubmissionUncertain, withRow(submittedAgo(time.Hour)))
	d := schedule.Decide(schedule.ActionResubmit, f, strictAny, t0)
	if d.Refusal != schedule.RefusalSubmissionUncertainTooRecent || d.Say != "resubmit.7" || d.AvailableAt == nil || !d.AvailableAt.Equal(t0.Add(23*time.Hour)) {
		t.Errorf("resubmit an hour after sending: refusal %q, say %q, available %v; want %q, %q, %v",
			d.Refusal, d.Say, d.AvailableAt, schedule.RefusalSubmissionUncertainTooRecent, "resubmit.7", t0.Add(23*time.Hour))
	}
	// A refusal that waiting does not lift names no instant.
	d = schedule.Decide(schedule.ActionCancel, facts(schedule.StateRegistered), strictAny, t0)
	if d.Allowed || d.AvailableAt != nil || d.Say != "cancel.1" {
		t.Errorf("cancel a registered row: say %q, available %v", d.Say, d.AvailableAt)
	}
}

// TestActionEnums checks the exported lists the UI draws from: every value
// has a label and an explanation, and actions parse from their form values.
func TestActionEnums(t *testing.T) {
	t.Parallel()

	for _, a := range schedule.Actions() {
		if got, err := schedule.ParseAction(string(a)); err != nil || got != a {
			t.Errorf("ParseAction(%q) = %q, %v", a, got, err)
		}
	}
	if _, err := schedule.ParseAction("resubmit twice"); err == nil {
		t.Error("ParseAction accepted an unknown action")
	}
	for _, r := range schedule.RiskLabels() {
		if r.NeedsConfirmation() != (r != schedule.RiskNormal) {
			t.Errorf("%q.NeedsConfirmation() = %v", r, r.NeedsConfirmation())
		}
	}
	for _, v := range schedule.VerdictKinds() {
		if v.FoundMatch() != (v == schedule.VerdictRegistered || v == schedule.VerdictPartlyRegistered) {
			t.Errorf("%q.FoundMatch() = %v", v, v.FoundMatch())
		}
	}
}
