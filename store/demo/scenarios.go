package demo

import (
	"cmp"
	"math"
	"slices"
	"time"
)

const day = 24 * time.Hour

// scenario is one kind of row history. share is its expected number of ledger rows per 100,000;
// min is how many instances a demo gets at least (when Rows allows), so that a 2,000-row demo
// shows every state, phase, attention reason and the standings a person sees on the queue
// (needing attention, running late, dismissed); rows is how many ledger rows one instance
// writes. when draws the instance's anchor, the moment its story is told from (its submission,
// or its creation when it never got that far); run tells it.
type scenario struct {
	name  string
	share float64
	min   int
	rows  int
	when  func(g *gen) time.Time
	run   func(g *gen, at time.Time)
}

// within anchors an instance uniformly between lo and hi before now.
func within(lo, hi time.Duration) func(g *gen) time.Time {
	return func(g *gen) time.Time { return g.ago(lo, hi) }
}

// settled anchors a settled instance's submission, moved back by extra for stories that need
// room after it (a regrade, a second attempt).
func settled(extra time.Duration) func(g *gen) time.Time {
	return func(g *gen) time.Time { return g.settledSubmit().Add(-extra) }
}

// recentSkew anchors an instance up to span before now, more of them recent.
func recentSkew(floor, span time.Duration) func(g *gen) time.Time {
	return func(g *gen) time.Time {
		u := g.rng.r.Float64()
		return g.now.Add(-floor - time.Duration(u*u*float64(span)))
	}
}

// scenarios: the first is the filler that takes whatever the others leave.
var scenarios = []scenario{
	{"registered", 0, 0, 1, recentlySettled, scRegistered},
	{"registered_after_retry", 1500, 2, 1, settled(0), scRegisteredAfterRetry},
	{"registered_after_uncertain", 250, 1, 1, settled(0), scRegisteredAfterUncertain},
	{"registered_after_not_registered", 120, 1, 1, settled(3 * day), scRegisteredAfterNotRegistered},
	{"duplicate_import", 600, 2, 1, settled(0), scDuplicateImport},
	{"duplicate_found_by_check", 350, 2, 1, settled(0), scDuplicateFoundByCheck},
	{"duplicate_recovered", 150, 1, 1, settled(0), scDuplicateRecovered},
	{"not_improved", 400, 2, 1, settled(0), scNotImproved},
	{"grade_improved", 1100, 2, 2, settled(120 * day), scGradeImproved},
	{"grade_improvement_in_flight", 60, 2, 2, settled(20 * day), scGradeImprovementInFlight},
	{"grade_improvement_stopped", 30, 1, 2, settled(20 * day), scGradeImprovementStopped},
	{"retried_after_failure", 200, 1, 2, settled(60 * day), scRetriedAfterFailure},
	{"retried_after_cancel", 200, 1, 2, settled(60 * day), scRetriedAfterCancel},

	{"pending_no_number", 4000, 8, 1, recentSkew(time.Minute, 200*day), scPendingNoNumber},
	{"pending_no_number_pressed", 80, 2, 1, within(3*time.Hour, 60*day), scPendingNoNumberPressed},
	{"pending_no_number_just_pressed", 70, 1, 1, within(time.Hour, 30*day), scPendingNoNumberJustPressed},
	{"pending_not_eligible", 350, 2, 1, within(time.Hour, 120*day), scPendingNotEligible},
	{"pending_person_not_found", 150, 1, 1, within(2*day, 90*day), scPendingPersonNotFound},
	{"ready_to_submit", 60, 2, 1, within(160*time.Second, 180*time.Second), scReadyToSubmit},
	{"ready_to_submit_late", 20, 1, 1, within(3*time.Hour, 30*time.Hour), scReadyToSubmitLate},
	{"resolving", 30, 2, 1, within(20*time.Second, 2*time.Minute), scResolving},
	{"resolving_stuck", 10, 1, 1, within(45*time.Minute, 6*time.Hour), scResolvingStuck},
	{"checking", 60, 2, 1, within(50*time.Second, 80*time.Second), scChecking},
	{"no_usable_enrolment", 2200, 6, 1, recentSkew(30*time.Minute, 85*day), scNoUsableEnrolment},
	{"no_usable_enrolment_stopped", 400, 2, 1, within(95*day, 400*day), scNoUsableEnrolmentStopped},
	{"submitting", 20, 2, 1, within(70*time.Second, 100*time.Second), scSubmitting},
	{"submitting_stuck", 10, 1, 1, within(80*time.Minute, 8*time.Hour), scSubmittingStuck},
	{"uncertain_recent", 60, 4, 1, uncertainRecentWhen, scUncertainRecent},
	{"uncertain_overdue", 40, 3, 1, within(26*time.Hour, 9*day), scUncertainOverdue},
	{"uncertain_found_since_last_look", 20, 2, 1, within(27*time.Hour+30*time.Minute, 32*time.Hour), scUncertainFoundSinceLastLook},
	{"uncertain_no_submission_time", 5, 1, 1, within(3*time.Hour, 20*day), scUncertainNoSubmissionTime},
	{"awaiting_waiting", 350, 4, 1, within(5*time.Minute, 255*time.Minute), scAwaiting},
	{"awaiting_dense", 350, 4, 1, within(285*time.Minute, 620*time.Minute), scAwaiting},
	{"awaiting_late", 300, 3, 1, within(645*time.Minute, 28*time.Hour+30*time.Minute), scAwaiting},
	{"awaiting_backing_off", 150, 3, 1, within(29*time.Hour+30*time.Minute, 13*day+12*time.Hour), scAwaitingBackingOff},
	{"awaiting_given_up", 20, 2, 1, within(14*day+12*time.Hour, 45*day), scAwaitingGivenUp},
	{"awaiting_duplicate_item", 10, 1, 1, within(30*time.Minute, 4*time.Hour), scAwaitingDuplicateItem},
	{"partial_recent", 80, 2, 1, within(5*time.Hour, 2*day+12*time.Hour), scPartial},
	{"partial_overdue", 30, 2, 1, within(4*day, 13*day), scPartial},
	{"partial_given_up", 10, 1, 1, within(15*day, 40*day), scPartial},
	{"misregistered", 50, 2, 1, within(2*day, 200*day), scMisregistered},
	{"backing_off", 120, 2, 1, within(40*time.Second, 14*time.Minute), scBackingOff},
	{"backing_off_too_many", 20, 2, 1, within(40*time.Minute, 5*time.Hour), scBackingOff},
	{"backing_off_verify", 20, 1, 1, within(300*time.Minute, 600*time.Minute), scBackingOffVerify},
	{"repeatedly_not_registered", 10, 1, 1, within(4*day+6*time.Hour, 5*day), scRepeatedlyNotRegistered},
	{"failed_config", 250, 4, 1, within(2*time.Hour, 300*day), scFailedConfig},
	{"failed_module_unconfigured", 60, 2, 1, within(time.Hour, 200*day), scFailedModuleUnconfigured},
	{"failed_no_grade_mapping", 15, 1, 1, within(time.Hour, 100*day), scFailedNoGradeMapping},
	{"failed_retry_window", 40, 2, 1, within(8*day, 120*day), scFailedRetryWindow},
	{"failed_flag_cleared", 20, 1, 1, within(3*day, 200*day), scFailedFlagCleared},
	{"blocked", 250, 3, 1, within(4*day, 150*day), scBlocked},
	{"cancelled_completion_deleted", 1000, 4, 1, within(time.Hour, 300*day), scCancelledCompletionDeleted},
	{"cancelled_by_admin", 80, 1, 1, within(3*day, 200*day), scCancelledByAdmin},

	{"pending_course_not_allowed", 15, 2, 1, within(time.Hour, rejectedModuleAge-5*day), scPendingCourseNotAllowed},
	{"dismissed_duplicate_item", 5, 1, 1, within(time.Hour, 4*time.Hour), scDismissedDuplicateItem},
	{"dismissed_partial_overdue", 10, 1, 1, within(5*day, 11*day), scDismissedPartialOverdue},
}

// story is one instance of a scenario, anchored in time.
type story struct {
	at int64 // unix nanoseconds
	sc uint8
}

// allocate decides how many instances of each scenario a data set of rows gets, draws their
// anchors, and returns them oldest first. Telling them in time order is how a real ledger
// fills, and it keeps every index's inserts near its hot end.
func (g *gen) allocate(rows int) []story {
	counts := make([]int, len(scenarios))
	left := rows
	for i, sc := range scenarios[1:] {
		if n := sc.min * sc.rows; n <= left {
			counts[i+1] = sc.min
			left -= n
		}
	}
	for i, sc := range scenarios[1:] {
		want := int(math.Round(float64(rows)*sc.share/100_000)) / sc.rows
		if extra := want - counts[i+1]; extra > 0 {
			extra = min(extra, left/sc.rows)
			counts[i+1] += extra
			left -= extra * sc.rows
		}
	}
	counts[0] += left
	seq := make([]story, 0, rows)
	for i, n := range counts {
		for range n {
			seq = append(seq, story{at: scenarios[i].when(g).UnixNano(), sc: uint8(i)})
		}
	}
	slices.SortStableFunc(seq, func(a, b story) int { return cmp.Compare(a.at, b.at) })
	return seq
}

// ago returns now minus a uniform duration in [lo, hi).
func (g *gen) ago(lo, hi time.Duration) time.Time { return g.now.Add(-g.rng.dur(lo, hi)) }

// settledSubmit draws when a settled row was submitted: within the last year and a half, more
// of them recent (the MOOCs grow), and at least four days ago so its verification is over.
func (g *gen) settledSubmit() time.Time {
	u := g.rng.r.Float64()
	return g.now.Add(-4*day - time.Duration(math.Pow(u, 1.4)*float64(settledMaxAge-4*day)))
}

// recentlySettled draws when a plain registered row was submitted: as settledSubmit does, but
// from just past the usual landing (5 h), so registrations keep arriving up to now, as a
// live ledger's do, and the overview's right edge (today) is not empty. A row that lands after
// now stays in verification, as a real one would.
func recentlySettled(g *gen) time.Time {
	const floor = 5 * time.Hour
	u := g.rng.r.Float64()
	return g.now.Add(-floor - time.Duration(math.Pow(u, 1.4)*float64(settledMaxAge-floor)))
}

// landing draws how long after the submission Sisu builds the course unit attainment: between
// about 5 and 29 hours, most of them early (seed/backoff.rs), a few later.
func (g *gen) landing() time.Duration {
	switch g.rng.pick([]int{86, 9, 3, 2}) {
	case 0:
		return g.rng.dur(4*time.Hour+35*time.Minute, 5*time.Hour)
	case 1:
		return g.rng.dur(5*time.Hour, 7*time.Hour)
	case 2:
		return g.rng.dur(7*time.Hour, 14*time.Hour)
	}
	return g.rng.dur(14*time.Hour, 30*time.Hour)
}

// landedPlan: the import landed; Suotar's copy shows the AI attainment soon after (verify then
// answers partial) or, usually, only together with the CU.
func (g *gen) landedPlan(submitted time.Time, cuAt time.Time) sisuPlan {
	p := sisuPlan{landed: true, aiID: g.kurID(), cuID: g.otmID(), cuAt: cuAt}
	if g.rng.chance(0.15) {
		p.aiAlone = true
		p.aiAt = submitted.Add(g.rng.dur(5*time.Minute, 60*time.Minute))
	} else {
		p.aiAt = cuAt
	}
	return p
}

// lostPlan: Suotar accepted or tried the import, but nothing reached Sisu.
func (g *gen) lostPlan(attempted bool) sisuPlan {
	return sisuPlan{aiID: g.kurID(), attempted: attempted}
}

// future returns a time after now, for things the demo's Sisu will do later.
func (g *gen) future(lo, hi time.Duration) time.Time { return g.now.Add(g.rng.dur(lo, hi)) }

// submitted creates a student's completion and its row submitted at about when.
func (g *gen) submitted(when time.Time, n moduleNeed) *life {
	p := g.drawPrefix()
	if p.kind == pkLateNumber {
		g.cur = nil // they had no number before the link: a student of their own
	}
	s, m := g.studentFor(n)
	if p.kind == pkLateNumber {
		g.cur = nil
	}
	return g.toSubmit(s, m, when, p, g.gradeFor(m, n == needImprovable))
}

// fresh creates a completion and a row for a student with a number, created at when.
func (g *gen) fresh(when time.Time, n moduleNeed) *life {
	s, m := g.studentFor(n)
	return g.begin(s, m, when, g.gradeFor(m, n == needImprovable))
}

// --- settled -------------------------------------------------------------------------------

func scRegistered(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.plan = g.landedPlan(l.r.submittedAt, l.r.submittedAt.Add(g.landing()))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	conflict := ""
	if g.rng.chance(0.01) {
		conflict = "grade" // someone corrected the grade in Sisu by hand
	}
	l.emitTruth(conflict)
}

// scRegisteredAfterRetry: a transient failure on the way (Suotar down during import or a
// lookup), retried, then registered. first_failed_at stays as the anchor of the window.
func scRegisteredAfterRetry(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	for range g.between(1, 3) {
		l.importAnswer(ioUnavailable, "", "", "")
		l.resume()
		l.submit(l.importTick())
	}
	l.plan = g.landedPlan(l.r.submittedAt, l.r.submittedAt.Add(g.landing()))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

func scRegisteredAfterUncertain(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.plan = g.landedPlan(l.r.submittedAt, l.r.submittedAt.Add(g.landing()))
	l.plan.attempted = true
	l.plan.returnedID = true
	l.importAnswer(ioSisuTimeout, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scRegisteredAfterNotRegistered: Sisu lost the first submission; after a day Suotar says
// notRegistered, the row is reset, looked up again and resent, and the second one lands.
func scRegisteredAfterNotRegistered(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.plan = g.lostPlan(true)
	l.plan.returnedID = true
	l.importAnswer(ioSisuTimeout, "", "", "")
	l.verifyUntil(g.now)
	l.resend()
	l.plan = g.landedPlan(l.r.submittedAt, l.r.submittedAt.Add(g.landing()))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// resend takes a row reset by notRegistered (or a failed lookup) back through resolve to
// submitting.
func (l *life) resend() {
	l.resume()
	l.resolveClaim(l.last.Add(l.g.rng.dur(200*time.Millisecond, 10*time.Second)))
	l.resolveFound(l.g.rng.dur(time.Second, 20*time.Second))
	l.submit(l.importTick())
}

func scDuplicateImport(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.plan = sisuPlan{cuID: g.otmID(), cuAt: l.r.c.completionDate.Add(g.rng.dur(time.Hour, 20*time.Hour))}
	l.importAnswer(ioDuplicateAttainment, "", "", "")
	l.emitTruth("")
}

func scDuplicateFoundByCheck(g *gen, at time.Time) {
	l := g.fresh(at.Add(-30*time.Hour), needConfigured)
	l.plan = sisuPlan{cuID: g.otmID(), cuAt: l.r.c.completionDate.Add(g.rng.dur(time.Hour, 20*time.Hour))}
	l.park(l.preconditionsTick(l.last), groupCompleted)
	l.resolveDuplicate(l.rungClaim(), l.plan.cuID)
	l.emitTruth("")
}

func scDuplicateRecovered(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	s := l.r.submittedAt
	l.plan = g.landedPlan(s, s.Add(g.landing()))
	l.plan.aiAlone = true
	l.plan.aiAt = s.Add(g.rng.dur(70*time.Minute, 3*time.Hour))
	l.importAnswer(ioNoAnswer, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

func scNotImproved(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.plan = sisuPlan{cuID: g.otmID(), cuAt: l.r.c.completionDate.Add(-g.rng.dur(30*day, 400*day)), betterGrade: "5"}
	if l.r.gradeScale == "sis-hyl-hyv" {
		l.plan.betterGrade = "1"
	}
	l.importAnswer(ioNotImproved, "", "", "")
	l.emitTruth("")
}

// regrade raises the completion's grade at t, as a teacher's regrading does.
func (g *gen) regrade(c *completion, t time.Time) {
	c.grade = int32(g.between(int(c.grade)+1, 5))
	c.updatedAt = t
}

// improvement starts attempt 2 for an improved grade of l's completion at t, and takes it to
// checking_enrolment; the first attempt is marked as pending supersession from then on.
func (g *gen) improvement(l *life, t time.Time) *life {
	c := l.r.c
	g.regrade(c, t)
	l2 := g.attempt(c, 2, t.Add(g.rng.dur(10*time.Second, 2*time.Minute)))
	l2.enrolmentID = l.enrolmentID
	l2.runPrefix(prefix{kind: pkViaResolve})
	l.r.pendingSupBy = l2.r
	l.r.updatedAt = l2.last
	return l2
}

func scGradeImproved(g *gen, at time.Time) {
	l := g.submitted(at, needImprovable)
	l.plan = g.landedPlan(l.r.submittedAt, l.r.submittedAt.Add(g.landing()))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
	l2 := g.improvement(l, l.last.Add(g.rng.dur(5*day, 100*day)))
	l2.submit(l2.importTick())
	l2.plan = g.landedPlan(l2.r.submittedAt, l2.r.submittedAt.Add(g.landing()))
	l2.importAnswer(ioSent, "", "", "")
	l2.verifyUntil(g.now)
	l.r.pendingSupBy = nil
	l.r.supersededBy, l.r.supersededAt = l2.r, l2.last
	l.r.updatedAt = l2.last
	l2.emitTruth("")
}

func scGradeImprovementInFlight(g *gen, at time.Time) {
	l := g.submitted(at, needImprovable)
	l.plan = g.landedPlan(l.r.submittedAt, l.r.submittedAt.Add(g.landing()))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
	submit := g.ago(30*time.Minute, 20*time.Hour)
	l2 := g.improvement(l, submit.Add(-3*time.Minute))
	l2.submit(l2.importTick())
	l2.plan = g.landedPlan(l2.r.submittedAt, g.future(time.Hour, 20*time.Hour))
	l2.plan.aiAlone = false
	l2.plan.aiAt = l2.plan.cuAt
	l2.importAnswer(ioSent, "", "", "")
	l2.verifyUntil(g.now)
	l2.emitTruth("")
}

// scGradeImprovementStopped: the new attempt found no enrolment to register the better grade
// on, so the old row is the live credit again (no pending mark).
func scGradeImprovementStopped(g *gen, at time.Time) {
	l := g.submitted(at, needImprovable)
	l.plan = g.landedPlan(l.r.submittedAt, l.r.submittedAt.Add(g.landing()))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
	c := l.r.c
	t := g.ago(2*day, 15*day)
	g.regrade(c, t)
	l2 := g.attempt(c, 2, t.Add(g.rng.dur(10*time.Second, 2*time.Minute)))
	l2.ready(l2.preconditionsTick(l2.last), msgReady)
	l2.resolveClaim(l2.last.Add(g.rng.dur(200*time.Millisecond, 10*time.Second)))
	l2.resolveMiss(g.rng.dur(time.Second, 20*time.Second), groupCompleted)
	l2.missUntil(g.now)
}

// missUntil runs the row's scheduled enrolment checks, all finding nothing, up to limit.
func (l *life) missUntil(limit time.Time) {
	for l.r.state == stNoUsableEnrolment && !l.r.nextAttemptAt.Equal(never) {
		claim := l.rungClaim()
		if claim.Add(10 * time.Second).After(limit) {
			return
		}
		l.checkMiss(claim, l.g.rng.chance(0.15))
	}
}

// scRetriedAfterFailure: the first attempt failed for good on a grade the enrolment's scale
// did not accept; once the course was fixed a second attempt was made and registered.
func scRetriedAfterFailure(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.importAnswer(ioConfig, "invalid_grade_for_grade_scale", "invalidGradeForGradeScale", "The grade is not on the enrolment's grade scale.")
	g.replaceWithRegisteredAttempt(l, g.rng.dur(2*day, 50*day), true)
}

// scRetriedAfterCancel: a person cancelled the first attempt while it waited for an enrolment;
// a later attempt went through.
func scRetriedAfterCancel(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.park(l.preconditionsTick(l.last), groupCompleted)
	l.checkMiss(l.rungClaim(), false)
	l.admin(l.last.Add(g.rng.dur(time.Hour, 40*time.Hour)), stCancelled, "The student asked us to wait for their new study right.")
	g.replaceWithRegisteredAttempt(l, g.rng.dur(5*day, 50*day), false)
}

// replaceWithRegisteredAttempt makes attempt 2 of l's completion, gap after l's last event, which
// supersedes l and goes through to registered. keepEnrolment reuses the enrolment l resolved.
func (g *gen) replaceWithRegisteredAttempt(l *life, gap time.Duration, keepEnrolment bool) {
	l2 := g.attempt(l.r.c, 2, l.last.Add(gap))
	l.r.supersededBy, l.r.supersededAt, l.r.updatedAt = l2.r, l2.last, l2.last
	if keepEnrolment {
		l2.enrolmentID = l.enrolmentID
	}
	l2.runPrefix(prefix{kind: pkViaResolve})
	l2.submit(l2.importTick())
	l2.plan = g.landedPlan(l2.r.submittedAt, l2.r.submittedAt.Add(g.landing()))
	l2.importAnswer(ioSent, "", "", "")
	l2.verifyUntil(g.now)
	l2.emitTruth("")
}

// --- before submission ---------------------------------------------------------------------

func scPendingNoNumber(g *gen, at time.Time) {
	s, m := g.numberless()
	g.begin(s, m, at, g.gradeFor(m, false))
}

// scPendingNoNumberPressed: no linked number, and the student pressed "I have enrolled" hours or
// days ago. The enrolment lists of the course code are fetched all the time, but the student is on
// none that sent them a linking mail: a fetch an hour past the press has run, so the LMS asks a
// person (student_number_stuck).
func scPendingNoNumberPressed(g *gen, at time.Time) {
	s, m := g.numberless()
	l := g.begin(s, m, at, g.gradeFor(m, false))
	l.r.c.press(g, at.Add(g.rng.dur(10*time.Minute, g.now.Sub(at)-2*time.Hour)))
}

// scPendingNoNumberJustPressed: as scPendingNoNumberPressed, pressed within the last half hour:
// no fetch an hour past the press has run yet, so nobody is asked yet.
func scPendingNoNumberJustPressed(g *gen, at time.Time) {
	s, m := g.numberless()
	l := g.begin(s, m, at, g.gradeFor(m, false))
	l.r.c.press(g, g.ago(5*time.Minute, 30*time.Minute))
}

// scPendingNotEligible: the completion waits for its prerequisite modules or a teacher's
// review, so the row waits in pending.
func scPendingNotEligible(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	if g.rng.chance(0.5) {
		l.r.c.prereqs = false
	} else {
		l.r.c.needsReview = true
	}
}

func scPendingPersonNotFound(g *gen, at time.Time) {
	g.cur = nil // a student of their own: the dropped link must not strand their other rows
	var l *life
	if g.rng.chance(0.4) {
		// Found out only when the import was answered.
		l = g.submitted(at, needConfigured)
		l.importAnswer(ioPersonNotFound, "", "", "")
	} else {
		l = g.fresh(at, needConfigured)
		l.ready(l.preconditionsTick(l.last), msgReady)
		l.resolveClaim(l.last.Add(g.rng.dur(200*time.Millisecond, 10*time.Second)))
		l.resolvePersonNotFound(g.rng.dur(time.Second, 20*time.Second))
	}
	g.cur = nil
	// The pipeline drops the link: its verified_student_numbers row is deleted.
	s := l.r.c.student
	s.droppedNumber, s.droppedPerson, s.droppedAt = s.number, s.personID, l.last
	s.number, s.personID = "", ""
}

// resolvePersonNotFound: Suotar has no person for the number; the verified link is dropped.
func (l *life) resolvePersonNotFound(dur time.Duration) {
	req, ans, at := l.call(l.last, dur/2, dur)
	l.r.lastAttemptAt = l.r.stateEnteredAt
	e := l.move(at, evSuotarResponse, stPending, "person_not_found", msgPersonNotFound)
	item := l.g.itemID()
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails("personNotFound"))
}

// scReadyToSubmit: a lookup failed in transit, the backoff has just run out, and the row waits
// for resolve-enrolments' next pass.
func scReadyToSubmit(g *gen, at time.Time) {
	// Creation to resume takes 62–152 s: ready and claim ≤ 10 s each, the failed call ≤ 30 s, a
	// backoff of 60–90 s, the resume tick ≤ 10 s.
	l := g.fresh(at, needConfigured)
	l.ready(l.preconditionsTick(l.last), msgReady)
	l.resolveClaim(l.last.Add(g.rng.dur(200*time.Millisecond, 10*time.Second)))
	l.resolveFailed(pick2(g.rng.chance(0.5), "service_temporarily_unavailable", "transport_error"))
	l.resume()
}

// scReadyToSubmitLate: ready for hours: resolve-enrolments is not keeping up.
func scReadyToSubmitLate(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.ready(l.preconditionsTick(l.last), msgReady)
}

func scResolving(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.ready(l.preconditionsTick(l.last), msgReady)
	l.resolveClaim(l.last.Add(g.rng.dur(200*time.Millisecond, 5*time.Second)))
}

// scResolvingStuck: claimed, and the worker died with the lookup out; the recovery that would
// send it back to ready_to_submit after 30 minutes has not run.
func scResolvingStuck(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.ready(l.preconditionsTick(l.last), msgReady)
	l.resolveClaim(l.last.Add(g.rng.dur(200*time.Millisecond, 5*time.Second)))
}

func scChecking(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.runPrefix(prefix{kind: pkViaResolve})
}

func scNoUsableEnrolment(g *gen, at time.Time) {
	if g.now.Sub(at) > 4*day && g.rng.chance(0.1) {
		// Sent, and refused: the study right does not cover the attainment date. The row waits
		// on the ladder for the student to sort it out.
		l := g.submitted(at.Add(2*day), needConfigured)
		l.importAnswer(ioStudyRight, "", "", "")
		l.missUntil(g.now)
		return
	}
	l := g.fresh(at, needConfigured)
	group := groupCompleted
	if g.rng.chance(0.2) {
		group = groupVisited
	}
	l.park(l.preconditionsTick(l.last), group)
	pressed := g.rng.chance(0.15)
	for l.r.state == stNoUsableEnrolment && !l.r.nextAttemptAt.Equal(never) {
		claim := l.rungClaim()
		if claim.Add(10 * time.Second).After(g.now) {
			break
		}
		l.checkMiss(claim, g.rng.chance(0.15))
		if pressed && l.r.ecGroup != groupCheckRequested {
			press := l.last.Add(g.rng.dur(time.Hour, 3*day))
			if press.Before(l.r.nextAttemptAt) && press.Before(g.now) {
				l.pressed(press)
			}
		}
	}
}

// scNoUsableEnrolmentStopped: the ladder ran out; the row is parked until something wakes it.
func scNoUsableEnrolmentStopped(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.park(l.preconditionsTick(l.last), groupCompleted)
	l.missUntil(g.now)
}

func scSubmitting(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.runPrefix(prefix{kind: pkViaResolve})
	l.submit(l.importTick())
}

func scSubmittingStuck(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.runPrefix(prefix{kind: pkViaResolve})
	l.submit(l.importTick())
}

// --- in verification -----------------------------------------------------------------------

// uncertainRecentWhen anchors half the recent uncertain rows within the hour (their import
// landed, and Suotar's copy of Sisu has not caught up yet) and half up to a day back (nothing
// landed; a landed one would have been found by now).
func uncertainRecentWhen(g *gen) time.Time {
	if g.rng.chance(0.5) {
		return g.ago(22*time.Minute, 52*time.Minute)
	}
	return g.ago(90*time.Minute, 20*time.Hour)
}

// scUncertainRecent: the import's answer was lost or unclear within the last day.
func scUncertainRecent(g *gen, at time.Time) {
	landed := g.now.Sub(at) < time.Hour
	o := []importOutcome{ioSisuTimeout, ioNoAnswer, ioUnknownCode}[g.rng.pick([]int{55, 25, 20})]
	if o == ioNoAnswer {
		// The request waited out the 60-minute import timeout before it was given up on.
		at = at.Add(-62 * time.Minute)
	}
	when := at
	l := g.submitted(when, needConfigured)
	s := l.r.submittedAt
	if landed {
		l.plan = g.landedPlan(s, g.future(time.Hour, 12*time.Hour))
		l.plan.aiAlone, l.plan.aiAt = true, g.future(5*time.Minute, 40*time.Minute)
	} else {
		l.plan = g.lostPlan(true)
	}
	if o == ioSisuTimeout {
		l.plan.attempted, l.plan.returnedID = true, true
	}
	l.importAnswer(o, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scUncertainOverdue: a day or more without an answer and no submitted id to poll by: a person
// must look in Sisu. Half landed, but with a grade that differs from ours, so recovery cannot
// match it.
func scUncertainOverdue(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	s := l.r.submittedAt
	landed := g.rng.chance(0.5)
	if landed {
		l.plan = g.landedPlan(s, s.Add(g.landing()))
		l.plan.aiAlone, l.plan.aiAt = true, s.Add(g.rng.dur(70*time.Minute, 2*time.Hour))
		l.plan.noMatch = true
	} else {
		l.plan = g.lostPlan(true)
	}
	if g.rng.chance(0.4) {
		l.deadWorker(s.Add(75*time.Minute + g.rng.dur(200*time.Millisecond, 10*time.Second)))
	} else {
		l.importAnswer(ioNoAnswer, "", "", "")
	}
	l.verifyUntil(g.now)
	if landed {
		l.emitTruth("grade")
	} else {
		l.emitTruth("")
	}
}

// scUncertainNoSubmissionTime: a worker died mid-import, and the row reached
// submission_uncertain without submitted_at (a pipeline version that stamped it only after the
// call). No window runs from it: the pipeline never escalates it and it can never be
// resubmitted; only a person who looks in Sisu can settle it. Half of them landed.
func scUncertainNoSubmissionTime(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	s := l.r.submittedAt
	if g.rng.chance(0.5) {
		l.plan = g.landedPlan(s, s.Add(g.landing()))
		l.plan.aiAlone, l.plan.aiAt = true, s.Add(g.rng.dur(70*time.Minute, 2*time.Hour))
		l.plan.noMatch = true
		l.deadWorker(s.Add(75*time.Minute + g.rng.dur(200*time.Millisecond, 10*time.Second)))
		l.r.submittedAt = time.Time{}
		l.verifyUntil(g.now)
		l.emitTruth("grade")
		return
	}
	l.plan = g.lostPlan(true)
	l.deadWorker(s.Add(75*time.Minute + g.rng.dur(200*time.Millisecond, 10*time.Second)))
	l.r.submittedAt = time.Time{}
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scUncertainFoundSinceLastLook: the import landed, late, and Suotar's copy of Sisu has shown it
// only for a few minutes, since the pipeline's last recovery look; the next look is hours away
// (6 h apart by now). A person who looks it up now finds it in Sisu: the case "Mark as already in
// Sisu" exists for.
func scUncertainFoundSinceLastLook(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	visible := g.now.Add(-g.rng.dur(2*time.Minute, 6*time.Minute))
	l.plan = g.landedPlan(l.r.submittedAt, visible)
	l.plan.aiAlone, l.plan.aiAt = false, visible
	l.importAnswer(ioNoAnswer, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// awaiting creates a row accepted by Suotar at about when, whose CU lands after now.
func (g *gen) awaiting(when time.Time, lands bool) *life {
	l := g.submitted(when, needConfigured)
	if lands {
		l.plan = g.landedPlan(l.r.submittedAt, g.future(10*time.Minute, 30*time.Hour))
		l.plan.aiAlone, l.plan.aiAt = false, l.plan.cuAt
	} else {
		l.plan = g.lostPlan(false)
	}
	l.importAnswer(ioSent, "", "", "")
	return l
}

// scAwaiting: accepted by Suotar at about at; Sisu will show it after now.
func scAwaiting(g *gen, at time.Time) {
	l := g.awaiting(at, true)
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scAwaitingBackingOff: late; half will still land, half Sisu lost.
func scAwaitingBackingOff(g *gen, at time.Time) {
	l := g.awaiting(at, g.rng.chance(0.5))
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scAwaitingGivenUp: accepted by Suotar more than 14 days ago and never seen in Sisu; polled
// daily, flagged for a person.
func scAwaitingGivenUp(g *gen, at time.Time) {
	l := g.awaiting(at, false)
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scAwaitingDuplicateItem: the batch carried the completion twice; Suotar named the earlier
// submission, and the pipeline flags the row though nothing else is wrong.
func scAwaitingDuplicateItem(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.plan = g.landedPlan(l.r.submittedAt, g.future(time.Hour, 20*time.Hour))
	l.plan.aiAlone, l.plan.aiAt = false, l.plan.cuAt
	l.importAnswer(ioDuplicateRequestItem, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scPartial: Sisu shows the AI attainment an hour or less after submission, and no CU yet.
func scPartial(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	s := l.r.submittedAt
	l.plan = g.landedPlan(s, time.Time{})
	l.plan.aiAlone, l.plan.aiAt = true, s.Add(g.rng.dur(5*time.Minute, 60*time.Minute))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

func scMisregistered(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	s := l.r.submittedAt
	l.plan = g.landedPlan(s, time.Time{})
	l.plan.aiAlone = g.rng.chance(0.5)
	l.plan.aiAt = s.Add(g.rng.dur(5*time.Minute, 60*time.Minute))
	l.plan.misregAt = s.Add(g.rng.dur(5*time.Hour, 40*time.Hour))
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// --- failures ------------------------------------------------------------------------------

// failImportsUntil sends and fails the row's import again each time its backoff runs out, until
// the next retry would come after now.
func (l *life) failImportsUntil(limit time.Time) {
	for {
		l.importAnswer([]importOutcome{ioUnavailable, ioTransport}[l.g.rng.pick([]int{80, 20})], "", "", "")
		// Stop unless the whole next round (resume, send, Suotar's answer of up to 50 s) ends
		// before limit: no event may come after now.
		if l.r.nextAttemptAt.Add(75 * time.Second).After(limit) {
			return
		}
		l.resume()
		l.submit(l.importTick())
	}
}

// scBackingOff: Suotar has been unavailable since at; the row waits out its backoff. An outage
// of 40 minutes or more means five or more failed sends (too many attempts).
func scBackingOff(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.failImportsUntil(g.now)
}

// scBackingOffVerify: the last verify poll failed at the request level; the row backs off on
// the verify schedule and resumes polling after.
func scBackingOffVerify(g *gen, at time.Time) {
	l := g.awaiting(at, true)
	l.plan.failLastPoll = true
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scRepeatedlyNotRegistered: three submissions lost (Sisu timed out and nothing landed, each
// time noticed a day later); the fourth is out, and the row is flagged.
func scRepeatedlyNotRegistered(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	for i := range 3 {
		if i > 0 {
			l.resend()
		}
		l.plan = g.lostPlan(true)
		l.plan.returnedID = true
		l.importAnswer(ioSisuTimeout, "", "", "")
		l.verifyUntil(g.now)
	}
	l.resend()
	l.plan = g.landedPlan(l.r.submittedAt, g.future(time.Hour, 20*time.Hour))
	l.plan.aiAlone, l.plan.aiAt = false, l.plan.cuAt
	l.importAnswer(ioSent, "", "", "")
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// configFailures are the import answers that mean the course or the data is set up wrong.
var configFailures = []struct{ code, wire, msg string }{
	{"course_code_not_found", "courseCodeNotFound", "No course unit was found for the course code."},
	{"course_not_allowed", "courseNotAllowed", "The course cannot be registered through this API yet."},
	{"invalid_grade_for_grade_scale", "invalidGradeForGradeScale", "The grade is not on the enrolment's grade scale."},
	{"grade_scale_mismatch", "gradeScaleMismatch", "Grade scale sis-hyl-hyv was sent, but the enrolment is graded on sis-0-5."},
	{"invalid_credits", "invalidCredits", "Credits are outside the course unit's range."},
	{"sisu_validation_failed", "sisuValidationFailed", "Sisu rejected the attainment: the realisation has no teachers."},
	{"malformed_request", "malformedRequest", "Suotar could not read the item, even alone in its batch."},
}

func scFailedConfig(g *gen, at time.Time) {
	if g.rng.chance(0.3) {
		// Caught before sending: looking up the enrolment already fails on the course code.
		l := g.fresh(at, needConfigured)
		l.ready(l.preconditionsTick(l.last), msgReady)
		l.resolveClaim(l.last.Add(g.rng.dur(200*time.Millisecond, 10*time.Second)))
		if g.rng.chance(0.7) {
			l.resolvePermanent("course_code_not_found", "courseCodeNotFound", "No course unit was found for the course code.")
		} else {
			l.resolvePermanent("unknown", "enrolmentListUnavailable", "Suotar answered the lookup with a code we do not know.")
		}
		return
	}
	f := configFailures[g.rng.intn(len(configFailures))]
	l := g.submitted(at, needConfigured)
	l.importAnswer(ioConfig, f.code, f.wire, f.msg)
}

// scFailedModuleUnconfigured: the module has no course code or no credits; preconditions give
// up on the row as soon as it is ready.
func scFailedModuleUnconfigured(g *gen, at time.Time) {
	n, code, msg := needMissingCode, "missing_uh_course_code", "The module has no Sisu course code."
	if g.rng.chance(0.5) {
		n, code, msg = needMissingCredits, "missing_ects_credits", "The module has no credits set."
	}
	l := g.fresh(at, n)
	l.ready(l.preconditionsTick(l.last), msgReady)
	l.move(l.preconditionsTick(l.last), evStateChanged, stFailedPermanent, code, msg)
	l.r.needsAdmin = true
}

func scFailedNoGradeMapping(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.runPrefix(prefix{kind: pkViaResolve})
	l.move(l.importTick(), evStateChanged, stFailedPermanent, "no_grade_scale_mapping", "Sisu does not accept the frozen grade on the enrolment's scale.")
	l.r.needsAdmin = true
}

// scFailedRetryWindow: a week of failed lookups (Suotar answering something unreadable), then
// the preconditions sweep gives up.
func scFailedRetryWindow(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.ready(l.preconditionsTick(l.last), msgReady)
	for {
		l.resolveClaim(l.last.Add(g.rng.dur(200*time.Millisecond, 10*time.Second)))
		l.resolveFailed("unexpected_response")
		expires := l.r.firstFailedAt.Add(submitMaxRetryAge)
		if !l.r.nextAttemptAt.Before(expires) {
			l.move(expires.Add(g.rng.dur(200*time.Millisecond, 10*time.Second)), evStateChanged, stFailedPermanent, "retry_window_expired", msgRetryWindow)
			l.r.needsAdmin = true
			return
		}
		l.resume()
	}
}

// scFailedFlagCleared: a configuration failure a person has looked at and cleared the flag of,
// leaving the row failed but off the attention queue.
func scFailedFlagCleared(g *gen, at time.Time) {
	f := configFailures[g.rng.intn(len(configFailures)-1)]
	l := g.submitted(at, needConfigured)
	l.importAnswer(ioConfig, f.code, f.wire, f.msg)
	l.clearFlag(l.last.Add(g.rng.dur(time.Hour, 2*day)), "Course code fixed in Sisu; the teacher will resubmit.")
}

func scBlocked(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.park(l.preconditionsTick(l.last), groupCompleted)
	t := l.r.nextAttemptAt.Add(-g.rng.dur(time.Hour, 20*time.Hour))
	if g.rng.chance(0.5) {
		l.checkMiss(l.rungClaim(), false)
		t = l.last.Add(g.rng.dur(time.Hour, 40*time.Hour))
	}
	c := l.r.c
	if g.rng.chance(0.5) {
		c.eligible = false
	} else {
		c.needsReview = true
	}
	c.updatedAt = t
	l.move(l.preconditionsTick(t), evStateChanged, stBlocked, "", msgBlocked)
}

func scCancelledCompletionDeleted(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	t := l.last.Add(g.rng.dur(time.Minute, 20*time.Hour))
	if g.rng.chance(0.6) {
		l.park(l.preconditionsTick(l.last), groupCompleted)
		t = l.r.nextAttemptAt.Add(-g.rng.dur(time.Minute, 20*time.Hour))
	}
	if t.After(g.now.Add(-20 * time.Second)) {
		t = g.now.Add(-20 * time.Second)
	}
	c := l.r.c
	c.deletedAt, c.updatedAt = t, t
	l.move(l.preconditionsTick(t), evStateChanged, stCancelled, "", msgCompletionGone)
}

func scCancelledByAdmin(g *gen, at time.Time) {
	l := g.fresh(at, needConfigured)
	l.park(l.preconditionsTick(l.last), groupCompleted)
	l.checkMiss(l.rungClaim(), false)
	l.admin(l.last.Add(g.rng.dur(time.Hour, 40*time.Hour)), stCancelled, "Duplicate account; the credit is registered on the student's other account.")
}

// scPendingCourseNotAllowed: a completion of the module whose code Suotar's configuration check
// does not accept. The preconditions hold the row in pending until someone fixes the module.
func scPendingCourseNotAllowed(g *gen, at time.Time) {
	g.fresh(at, needCodeRejected)
}

// scDismissedDuplicateItem: as awaiting_duplicate_item, and a person who checked the batch took
// the row off the Needs attention queue: the flag alone put it there.
func scDismissedDuplicateItem(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	l.plan = g.landedPlan(l.r.submittedAt, g.future(time.Hour, 20*time.Hour))
	l.plan.aiAlone, l.plan.aiAt = false, l.plan.cuAt
	l.importAnswer(ioDuplicateRequestItem, "", "", "")
	look := l.last.Add(g.rng.dur(5*time.Minute, 40*time.Minute))
	if look.Before(g.now.Add(-time.Minute)) {
		l.verifyUntil(look)
		l.dismiss(look, []string{reasonFlaggedByPipeline}, "Checked the batch: both items are the same completion, sent once.")
	}
	l.verifyUntil(g.now)
	l.emitTruth("")
}

// scDismissedPartialOverdue: partly registered for days; a person asked the teacher, who builds
// the course unit attainments at the end of the term, and dismissed the overdue reason. Verify
// keeps polling; the row comes back on the queue when verification gives up.
func scDismissedPartialOverdue(g *gen, at time.Time) {
	l := g.submitted(at, needConfigured)
	s := l.r.submittedAt
	l.plan = g.landedPlan(s, time.Time{})
	l.plan.aiAlone, l.plan.aiAt = true, s.Add(g.rng.dur(5*time.Minute, 60*time.Minute))
	l.importAnswer(ioSent, "", "", "")
	look := s.Add(2*time.Hour + partialAdminAfter + g.rng.dur(time.Hour, 36*time.Hour))
	if look.Before(g.now.Add(-time.Minute)) {
		l.verifyUntil(look)
		if r := l.r; r.state == stPartiallyRegistered && r.needsAdmin {
			l.dismiss(look, []string{reasonPartlyRegisteredOverdue}, "The teacher builds the course unit attainments at the end of the term.")
		}
	}
	l.verifyUntil(g.now)
	l.emitTruth("")
}
