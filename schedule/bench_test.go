package schedule_test

import (
	"testing"
	"time"

	"regdesk/schedule"
)

// classifyShape is one kind of row the queue and the pages classify.
type classifyShape struct {
	name string
	row  schedule.Row
}

// classifyShapes covers every path through Classify: each phase's states, every reason, a
// dismissal, the escalation rules and the pipeline's flag.
func classifyShapes(now time.Time) []classifyShape {
	at := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	h := time.Hour
	day := 24 * h
	base := func(s schedule.State, since time.Duration) schedule.Row {
		return schedule.Row{State: s, StateEnteredAt: now.Add(-since), StateChangedAt: now.Add(-since), NextAttemptAt: now.Add(h)}
	}
	with := func(r schedule.Row, f func(*schedule.Row)) schedule.Row { f(&r); return r }
	return []classifyShape{
		{"Superseded", with(base(schedule.StateRegistered, day), func(r *schedule.Row) { r.Superseded = true })},
		{"Pending", base(schedule.StatePending, h)},
		{"Registered", with(base(schedule.StateRegistered, 30*day), func(r *schedule.Row) { r.NextAttemptAt = schedule.Never })},
		{"NoUsableEnrolment", base(schedule.StateNoUsableEnrolment, 3*day)},
		{"ReadyToSubmitLate", base(schedule.StateReadyToSubmit, 3*h)},
		{"SubmittingStuck", with(base(schedule.StateSubmitting, 2*h), func(r *schedule.Row) { r.SubmittedAt = at(2 * h) })},
		{"ResolvingStuck", base(schedule.StateResolvingEnrolment, h)},
		{"UncertainFresh", with(base(schedule.StateSubmissionUncertain, h), func(r *schedule.Row) { r.SubmittedAt = at(h) })},
		{"UncertainNoTime", base(schedule.StateSubmissionUncertain, h)},
		{"UncertainOverdueFlagged", with(base(schedule.StateSubmissionUncertain, 30*h), func(r *schedule.Row) {
			r.ErrorCode, r.NeedsAdminAttention, r.SubmittedAt, r.SubmitRetryCount, r.VerifyAttemptCount = schedule.ErrorSisuTimeout, true, at(30*h), 2, 7
		})},
		{"AwaitingDenseWindow", with(base(schedule.StateAwaitingVerification, 3*h), func(r *schedule.Row) { r.SubmittedAt = at(3 * h) })},
		{"VerificationGaveUp", with(base(schedule.StateAwaitingVerification, 15*day), func(r *schedule.Row) { r.SubmittedAt = at(15 * day) })},
		{"PartialOverdue", with(base(schedule.StatePartiallyRegistered, 4*day), func(r *schedule.Row) {
			r.SubmittedAt, r.PartiallyRegisteredAt = at(4*day), at(4*day)
		})},
		{"RetryWindowOver", with(base(schedule.StateFailedRetryable, 8*day), func(r *schedule.Row) {
			r.FirstFailedAt, r.SubmitRetryCount, r.NotRegisteredReimportCount = at(8*day), 6, 3
		})},
		{"RetryWindowExpired", with(base(schedule.StateFailedPermanent, day), func(r *schedule.Row) {
			r.NeedsAdminAttention, r.ErrorCode, r.TerminalAt, r.FirstFailedAt = true, schedule.ErrorRetryWindowExpired, at(day), at(8*day)
		})},
		{"FailedPermanentFlagged", with(base(schedule.StateFailedPermanent, day), func(r *schedule.Row) {
			r.NeedsAdminAttention, r.ErrorCode, r.NextAttemptAt, r.TerminalAt = true, schedule.ErrorCode("invalid_grade"), schedule.Never, at(day)
		})},
		{"StudentNumberStuck", with(base(schedule.StatePending, 3*day), func(r *schedule.Row) {
			r.Linking = schedule.LinkingFacts{AwaitsStudentNumber: true, PressedAt: at(2 * day), LastMailingFetchStartedAt: at(h)}
		})},
		{"Misregistered", base(schedule.StateMisregistered, day)},
		{"Dismissed", with(base(schedule.StateMisregistered, day), func(r *schedule.Row) {
			r.NeedsAdminAttention = true
			r.DismissedReasons = []schedule.Reason{schedule.ReasonMisregistered}
		})},
		{"UnknownState", base(schedule.State("from_a_newer_pipeline"), h)},
	}
}

// BenchmarkClassify measures the per-row cost every queue row and every page pays, for each shape
// of row (make bench runs it; the goal is 50 ns and no allocation on every one). cpu-ns/op is
// the process's CPU time per row, which waiting for a core on a shared machine does not inflate.
func BenchmarkClassify(b *testing.B) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, sh := range classifyShapes(now) {
		b.Run(sh.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink schedule.Status
			cpu := cpuTime()
			for b.Loop() {
				sink = schedule.Classify(sh.row, now)
			}
			if used := cpuTime() - cpu; used > 0 {
				b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			_ = sink
		})
	}
}

// Classification runs for every row of every page, so it must not allocate: a count of
// allocations, not a time, so it cannot flake. With blocking problems known neither.
func TestClassifyAllocatesNothing(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	problems := &schedule.BlockingProblems{
		StoppedPhases:          []schedule.StoppedPhase{{Phase: "import", OwnedStates: []schedule.State{schedule.StateReadyToSubmit}}},
		FailingCourseCodes:     []string{"TKT10002"},
		MisconfiguredModuleIDs: []string{"5bf1b2a1-0d6e-4d55-9d0b-1a6a3f2c9e11"},
	}
	for _, sh := range classifyShapes(now) {
		var st schedule.Status
		if n := testing.AllocsPerRun(100, func() { st = schedule.Classify(sh.row, now) }); n != 0 {
			t.Errorf("%s: Classify allocates %v times per row, want 0 (%+v)", sh.name, n, st)
		}
		if n := testing.AllocsPerRun(100, func() { st = schedule.ClassifyWith(sh.row, now, problems) }); n != 0 {
			t.Errorf("%s: ClassifyWith allocates %v times per row, want 0 (%+v)", sh.name, n, st)
		}
	}
}

// The shapes are what they say: each reaches what it is named for.
func TestClassifyShapesReachTheirReasons(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	want := map[string]schedule.Reason{
		"ReadyToSubmitLate": schedule.ReasonStuckInState, "SubmittingStuck": schedule.ReasonStuckInState,
		"UncertainFresh": schedule.ReasonOutcomeUncertain, "UncertainNoTime": schedule.ReasonOutcomeUncertain,
		"UncertainOverdueFlagged": schedule.ReasonOutcomeUncertain, "VerificationGaveUp": schedule.ReasonVerificationGaveUp,
		"PartialOverdue": schedule.ReasonPartlyRegisteredOverdue, "RetryWindowOver": schedule.ReasonTooManyAttempts,
		"RetryWindowExpired": schedule.ReasonRetryWindowExpired, "FailedPermanentFlagged": schedule.ReasonPermanentError,
		"Misregistered": schedule.ReasonMisregistered, "StudentNumberStuck": schedule.ReasonStudentNumberStuck,
	}
	wantNote := map[string]schedule.Note{
		"SubmittingStuck": schedule.NotePastRecoveryGrace, "ResolvingStuck": schedule.NotePastRecoveryGrace,
		"UncertainNoTime": schedule.NoteSubmissionTimeMissing, "UncertainOverdueFlagged": schedule.NoteUncertainOverdue,
		"RetryWindowOver": schedule.NoteRetryWindowOver,
	}
	seen := map[schedule.Reason]bool{}
	for _, sh := range classifyShapes(now) {
		st := schedule.Classify(sh.row, now)
		for _, r := range st.Reasons.List() {
			seen[r] = true
		}
		if r, ok := want[sh.name]; ok && !st.Reasons.Has(r) {
			t.Errorf("%s: reasons %v lack %s", sh.name, st.Reasons, r)
		}
		if n, ok := wantNote[sh.name]; ok && !st.Notes.Has(n) {
			t.Errorf("%s: notes %v lack %s", sh.name, st.Notes, n)
		}
		if sh.name == "Dismissed" && (!st.Dismissed || st.NeedsAdmin) {
			t.Errorf("Dismissed: %+v, want dismissed and not needing admin", st)
		}
	}
	for _, r := range schedule.Reasons() {
		if r != schedule.ReasonFlaggedByPipeline && !seen[r] {
			t.Errorf("no shape reaches %s", r)
		}
	}
}
