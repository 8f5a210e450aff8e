package demo

import (
	"time"
)

// life writes one row's history. Each method is one pipeline transition: it sets the row's
// columns the way the LMS's transition() does and appends the one event that transition writes,
// so the row and its events cannot disagree.
type life struct {
	g    *gen
	r    *reg
	last time.Time // the row's latest event; events are strictly increasing

	enrolmentID string // the student's enrolment for this module, once there is one
	itemID      []byte // request item id of the import in flight
	plan        sisuPlan
}

// sisuPlan is what happens in Sisu to the row's submissions, decided before the row is
// simulated; verify polls read their answers from it.
type sisuPlan struct {
	landed    bool      // the import created an assessment item attainment
	aiAt      time.Time // when Suotar's copy shows the AI attainment
	aiAlone   bool      // verify sees the AI before the CU exists (partial registration)
	cuAt      time.Time // when Sisu builds the course unit attainment; zero: not within the demo
	misregAt  time.Time // when Sisu reversed the attainment; zero: never
	attempted bool      // Suotar's entry is ATTEMPTED (sisuTimeout), not ACCEPTED: pending for 24 h only
	cuID      string
	aiID      string
	// returnedID: the import's answer named aiID, so the row holds it.
	returnedID bool
	// betterGrade is the grade of another registrar's attainment when it beats ours (not_improved).
	betterGrade string
	// noMatch: what landed differs from what we sent, so uncertain recovery never matches it.
	noMatch bool
	// failLastPoll makes the last verify poll before the simulation's limit fail at the request
	// level.
	failLastPoll bool
}

// Messages the pipeline writes. Constant, so millions of events share them.
const (
	msgCreated        = "Created for a new completion."
	msgParked         = "Preconditions met; waiting for the first enrolment check."
	msgReady          = "Preconditions met; looking up the enrolment."
	msgResolving      = "Looking up the student's enrolment in Sisu."
	msgFound          = "Enrolment found; payload frozen for import."
	msgNotFound       = "No usable enrolment yet; checking again on the ladder."
	msgNotAccepted    = "The enrolment is not accepted yet; checking again on the ladder."
	msgStudentPressed = "The student reported having enrolled."
	msgSubmitting     = "Sending to Suotar."
	msgSent           = "Suotar accepted the attainment; verifying."
	msgDupItem        = "Suotar named an earlier item of the same batch; verifying that submission."
	msgDuplicate      = "Sisu already holds this credit."
	msgNotImproved    = "Sisu holds an equal or better grade."
	msgUncertain      = "Sisu timed out; the attainment may or may not exist. Only verification may touch this row."
	msgUnknownCode    = "Suotar answered with a code we do not know; the attainment may exist."
	msgNoAnswer       = "The import request got no answer; it may have reached Sisu."
	msgDeadWorker     = "Found still submitting after a restart; only verification may touch this row."
	msgPending        = "Sisu has not shown the attainment yet."
	msgPartial        = "Sisu shows the assessment item attainment only; waiting for the course unit attainment."
	msgRegistered     = "Course unit attainment confirmed in Sisu."
	msgMisregistered  = "Sisu marked the attainment misregistered."
	msgNotRegistered  = "Suotar has no trace of the submission; sending again."
	msgRecoveryNone   = "No matching attainment in Sisu yet."
	msgRecoveryFound  = "Found the attainment among the student's existing attainments."
	msgRetryWindow    = "Retried for a week without success."
	msgResume         = "Backoff elapsed; resuming."
	msgUnavailable    = "Suotar is temporarily unavailable."
	msgTransport      = "The request did not reach Suotar."
	msgUnauthorized   = "Suotar rejected the credentials."
	msgUnexpected     = "Suotar's answer could not be read."
	msgPersonNotFound = "No Sisu person for the linked student number; the link was dropped."
	msgBlocked        = "The completion is no longer eligible for credits."
	msgCompletionGone = "The completion was deleted."
)

// move is transition(): it writes the state and the bookkeeping every transition writes, and
// appends the event. Later edits to the returned event (Suotar call fields) are safe until the
// next move.
func (l *life) move(t time.Time, kind, to, code, msg string) *event {
	r := l.r
	if !t.After(l.last) {
		t = l.last.Add(time.Millisecond)
	}
	from := r.state
	r.events = append(r.events, event{id: l.g.rng.uuid7(t), at: t, kind: kind, from: from, to: to, errorCode: code, message: msg})
	l.last = t
	r.updatedAt = t
	r.stateEnteredAt = t
	if to != from {
		r.stateChangedAt = t
		if from == "" || timelinePhase(to) != timelinePhase(from) {
			r.phaseStartedAt = t
		}
	}
	r.state = to
	r.errorCode = code
	r.errorMessage = ""
	if code != "" {
		r.errorMessage = msg
	}
	if isTerminal(to) {
		if r.terminalAt.IsZero() {
			r.terminalAt = t
		}
	} else {
		r.terminalAt = time.Time{}
	}
	switch to {
	case stRegistered:
		if r.registeredAt.IsZero() {
			r.registeredAt = t
		}
	case stFailedRetryable, stFailedPermanent:
		if r.firstFailedAt.IsZero() {
			r.firstFailedAt = t
		}
	case stNoUsableEnrolment:
		if from != stNoUsableEnrolment {
			r.firstFailedAt = time.Time{}
			r.submitRetries = 0
		}
		if r.noUsableEnrolmentSince.IsZero() {
			r.noUsableEnrolmentSince = t
		}
	case stSubmitting:
		r.submittedAt = t
	}
	// Leaving the wait for an enrolment clears the check schedule; the group stays (NOT NULL, and
	// the LMS's transition never writes it).
	if !keepsEnrolmentSchedule(to) {
		r.ecAnchor, r.ecStep, r.ecScheduled, r.ecDueAt, r.ecBatched, r.ecStoppedAt = time.Time{}, 0, false, time.Time{}, false, time.Time{}
		r.ecSource = ecSourceSchedule
		r.noUsableEnrolmentSince = time.Time{}
	}
	// default_attempt_delay: applied in SQL as now() + interval, without jitter.
	switch to {
	case stAwaitingVerification, stPartiallyRegistered:
		r.nextAttemptAt = t.Add(verifyWindowInterval)
	case stSubmissionUncertain:
		r.nextAttemptAt = t.Add(uncertainRecheck)
	case stNoUsableEnrolment:
		r.nextAttemptAt = t.Add(registryLag)
	case stFailedRetryable:
		r.nextAttemptAt = t.Add(submitBaseBackoff)
	default:
		r.nextAttemptAt = t
	}
	return &r.events[len(r.events)-1]
}

// call times one Suotar request made by a worker that claimed the row at claim: it is sent a
// moment after the claim and answered d later. at is when the answer's transition is written.
func (l *life) call(claim time.Time, lo, hi time.Duration) (req, ans, at time.Time) {
	if !claim.After(l.last) {
		claim = l.last.Add(time.Millisecond)
	}
	l.r.lastAttemptAt = claim
	req = claim.Add(l.g.rng.dur(2*time.Millisecond, 40*time.Millisecond))
	ans = req.Add(l.g.rng.dur(lo, hi))
	at = ans.Add(l.g.rng.dur(time.Millisecond, 15*time.Millisecond))
	return req, ans, at
}

func (e *event) suotar(endpoint string, itemID []byte, req, ans time.Time, answer string, details []byte) {
	e.endpoint, e.itemID, e.requestedAt, e.answer, e.details = endpoint, itemID, req, answer, details
	if answer != ansUnanswered {
		e.answeredAt = ans
	}
}

// created inserts the row: materialize's pending row and its created event.
func (l *life) created(t time.Time) {
	l.r.createdAt = t
	l.move(t, evCreated, stPending, "", msgCreated)
}

// park starts the enrolment check ladder for a row never checked: pending → no_usable_enrolment
// until rung 0.
func (l *life) park(t time.Time, group string) {
	l.move(t, evStateChanged, stNoUsableEnrolment, "", msgParked)
	l.startLadder(t, group, t)
}

// startLadder starts the check schedule of group (or of the row's group, when that is further
// along: visited beats completed) from anchor.
func (l *life) startLadder(t time.Time, group string, anchor time.Time) {
	r := l.r
	r.ecAnchor = anchor
	if groupRank(group) > groupRank(r.ecGroup) {
		r.ecGroup = group
	}
	l.scheduleRung(t)
}

// scheduleRung points the row at the first rung due after t, or parks it for good past the last.
func (l *life) scheduleRung(t time.Time) {
	r := l.r
	r.ecSource = ecSourceSchedule
	step := nextRung(r.ecGroup, r.ecAnchor, t)
	if step < 0 {
		r.ecStoppedAt = t
		r.ecScheduled, r.ecStep, r.ecDueAt, r.ecBatched = false, 0, time.Time{}, false
		r.nextAttemptAt = never
		return
	}
	r.ecScheduled = true
	r.ecStep = int32(step)
	r.ecDueAt = rungDue(r.ecGroup, r.ecAnchor, step)
	r.ecBatched = rungBatched(r.ecGroup, step)
	r.nextAttemptAt = r.ecDueAt
}

// rungClaim is when resolve-enrolments picks up the row's due rung.
func (l *life) rungClaim() time.Time {
	return l.r.nextAttemptAt.Add(l.g.rng.dur(200*time.Millisecond, 10*time.Second))
}

// checkMiss is a scheduled enrolment check that found nothing usable; the row stays parked.
func (l *life) checkMiss(claim time.Time, notAccepted bool) {
	req, ans, at := l.call(claim, 800*time.Millisecond, 6*time.Second)
	code, wire, msg := "enrolment_not_found", "enrolmentNotFound", msgNotFound
	if notAccepted {
		code, wire, msg = "enrolment_not_accepted", "enrolmentNotAccepted", msgNotAccepted
	}
	e := l.move(at, evSuotarResponse, stNoUsableEnrolment, code, msg)
	item := l.g.itemID()
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails(wire))
	l.r.enrolmentCheckedAt = at
	l.scheduleRung(at)
}

// press records the student's "I have enrolled" for c at t, as the LMS keeps it: the
// completion's enrolment route, its confirmation the latest press.
func (c *completion) press(g *gen, t time.Time) {
	if c.pressedAt.IsZero() {
		c.routeID, c.routeAt = g.rng.uuid7(t), t
	}
	c.pressedAt = t
}

// enrolmentRoute is the route the student says they enrolled by.
func (c *completion) enrolmentRoute() string {
	if c.module.def.openUni || c.student.openUni {
		return "open_university"
	}
	return "university_of_helsinki"
}

// pressed is the student's "I have enrolled": the ladder restarts on the check_requested group.
func (l *life) pressed(t time.Time) {
	keep := l.r.errorMessage
	l.move(t, evStudentAction, stNoUsableEnrolment, l.r.errorCode, msgStudentPressed)
	l.r.errorMessage = keep
	l.r.c.press(l.g, l.last)
	r := l.r
	// The request is recorded on the row (one restart of the day's allowance), and the ladder
	// restarts on the check_requested group.
	r.ecRequestedAt = l.last
	if r.ecRestartWindow.IsZero() || l.last.Sub(r.ecRestartWindow) >= 24*time.Hour {
		r.ecRestartWindow, r.ecRestarts = l.last, 0
	}
	r.ecRestarts++
	l.startLadder(l.last, groupCheckRequested, l.last)
}

// checkFound is a scheduled check that found the enrolment: the payload is frozen and the row
// queues for import.
func (l *life) checkFound(claim time.Time) {
	req, ans, at := l.call(claim, 800*time.Millisecond, 6*time.Second)
	l.freeze()
	e := l.move(at, evSuotarResponse, stCheckingEnrolment, "", msgFound)
	item := l.g.itemID()
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails("enrolmentFound"))
	l.r.enrolmentCheckedAt = at
}

// ready: preconditions move the row to ready_to_submit (first rung already due, or a resume).
func (l *life) ready(t time.Time, msg string) { l.move(t, evStateChanged, stReadyToSubmit, "", msg) }

// resolveClaim: resolve-enrolments claims a first-time row; the lookup is out.
func (l *life) resolveClaim(t time.Time) {
	l.move(t, evStateChanged, stResolvingEnrolment, "", msgResolving)
	l.r.lastAttemptAt = l.last
}

// resolveFound: the lookup of a claimed row found the enrolment.
func (l *life) resolveFound(dur time.Duration) {
	req, ans, at := l.call(l.last, dur/2, dur)
	l.r.lastAttemptAt = l.r.stateEnteredAt
	l.freeze()
	e := l.move(at, evSuotarResponse, stCheckingEnrolment, "", msgFound)
	item := l.g.itemID()
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails("enrolmentFound"))
	l.r.enrolmentCheckedAt = at
}

// resolveMiss: the lookup of a claimed row found no enrolment; it parks on the ladder.
func (l *life) resolveMiss(dur time.Duration, group string) {
	req, ans, at := l.call(l.last, dur/2, dur)
	l.r.lastAttemptAt = l.r.stateEnteredAt
	e := l.move(at, evSuotarResponse, stNoUsableEnrolment, "enrolment_not_found", msgNotFound)
	item := l.g.itemID()
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails("enrolmentNotFound"))
	l.r.enrolmentCheckedAt = at
	if l.r.ecAnchor.IsZero() {
		l.startLadder(at, group, at)
	} else {
		l.scheduleRung(at)
	}
}

// resolveFailed: the lookup failed in transit; the row backs off (retry_or_expire).
func (l *life) resolveFailed(code string) {
	req, ans, at := l.call(l.last, 2*time.Second, 30*time.Second)
	l.r.lastAttemptAt = l.r.stateEnteredAt
	item := l.g.itemID()
	l.failRetryable(at, code, epResolveEnrolment, item, l.resolveRequest(), req, ans, submitBackoff(l.r.submitRetries), true)
}

// resolvePermanent: Suotar answered the lookup with a configuration code.
func (l *life) resolvePermanent(code, wire, msg string) {
	req, ans, at := l.call(l.last, time.Second, 5*time.Second)
	l.r.lastAttemptAt = l.r.stateEnteredAt
	e := l.move(at, evSuotarResponse, stFailedPermanent, code, msg)
	l.r.needsAdmin = true
	item := l.g.itemID()
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails(wire))
	l.r.enrolmentCheckedAt = at
}

// resolveDuplicate: the lookup (first-time or a parked row's check) found the credit already in
// Sisu, put there by another registrar.
func (l *life) resolveDuplicate(claim time.Time, cuID string) {
	req, ans, at := l.call(claim, 800*time.Millisecond, 6*time.Second)
	r := l.r
	r.sisuAttainmentID, r.sisuAttainmentType = cuID, "CourseUnitAttainment"
	e := l.move(at, evSuotarResponse, stDuplicate, "", msgDuplicate)
	item := l.g.itemID()
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails("enrolmentFound"))
	r.enrolmentCheckedAt = at
}

// failRetryable enters failed_retryable after a failed call (retry_or_expire's retry half).
func (l *life) failRetryable(at time.Time, code, endpoint string, item, request []byte, req, ans time.Time, delay time.Duration, counts bool) {
	r := l.r
	msg, answer, status, wire := msgUnavailable, ansRefused, 503, "serviceTemporarilyUnavailable"
	switch code {
	case "transport_error":
		msg, answer, status, wire = msgTransport, ansUnanswered, 0, ""
	case "unauthorized":
		msg, answer, status, wire = msgUnauthorized, ansRefused, 401, "unauthorized"
	case "unexpected_response":
		msg, answer, status, wire = msgUnexpected, ansAnswered, 200, ""
	}
	e := l.move(at, evRetryScheduled, stFailedRetryable, code, msg)
	e.suotar(endpoint, item, req, ans, answer, l.g.failureDetails(request, status, wire, msg))
	if counts {
		r.submitRetries++
	}
	r.nextAttemptAt = l.after(at, delay)
}

// resume: the backoff elapsed; preconditions send the row back where it had got to.
func (l *life) resume() {
	r := l.r
	to := stReadyToSubmit
	switch {
	case r.submittedAttainmentID != "":
		to = stAwaitingVerification
	case r.frozen && r.enrolmentID != "" && r.gradeID != "":
		to = stCheckingEnrolment
	}
	t := r.nextAttemptAt.Add(l.g.rng.dur(100*time.Millisecond, 10*time.Second))
	l.move(t, evStateChanged, to, "", msgResume)
}

// submit: import commits submitting before it sends.
func (l *life) submit(t time.Time) {
	l.move(t, evStateChanged, stSubmitting, "", msgSubmitting)
	l.r.lastAttemptAt = l.last
	l.itemID = l.g.itemID()
}

// importOutcome is one way Suotar can answer an import item.
type importOutcome int

const (
	ioSent importOutcome = iota
	ioDuplicateRequestItem
	ioDuplicateAttainment
	ioNotImproved
	ioSisuTimeout    // uncertain, with the submitted id
	ioUnknownCode    // uncertain, code unknown
	ioNoAnswer       // request-level failure that may have reached Suotar: uncertain, no id
	ioUnavailable    // 503: provably not acted on
	ioTransport      // not delivered
	ioConfig         // a configuration or admin code: failed_permanent + flag
	ioStudyRight     // student-level: back to waiting for an enrolment
	ioPersonNotFound // the number has no Sisu person: back to pending
)

// importAnswer writes Suotar's answer to the import in flight. wire and code name the
// configuration error for ioConfig.
func (l *life) importAnswer(o importOutcome, code, wire, msg string) {
	r := l.r
	dur := [2]time.Duration{3 * time.Second, 50 * time.Second}
	if o == ioNoAnswer {
		dur = [2]time.Duration{60 * time.Minute, 60*time.Minute + 5*time.Second} // the import timeout
	}
	req, ans, at := l.call(r.stateEnteredAt, dur[0], dur[1])
	r.lastAttemptAt = r.stateEnteredAt
	item := l.itemID
	var e *event
	switch o {
	case ioSent, ioDuplicateRequestItem:
		l.plan.returnedID = true
		r.submittedAttainmentID = l.plan.aiID
		if o == ioSent {
			e = l.move(at, evSuotarResponse, stAwaitingVerification, "", msgSent)
			e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("ok", "sent", r.submittedAttainmentID, ""))
		} else {
			e = l.move(at, evSuotarResponse, stAwaitingVerification, "", msgDupItem)
			r.needsAdmin = true
			e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("error", "duplicateRequestItem", r.submittedAttainmentID, ""))
		}
		r.nextAttemptAt = l.after(at, verifyDelay(r.submittedAt, at))
	case ioDuplicateAttainment:
		r.sisuAttainmentID, r.sisuAttainmentType = l.plan.cuID, "CourseUnitAttainment"
		e = l.move(at, evSuotarResponse, stDuplicate, "", msgDuplicate)
		e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("ok", "duplicateAttainment", "", l.plan.cuID))
	case ioNotImproved:
		r.sisuAttainmentID, r.sisuAttainmentType = l.plan.cuID, "CourseUnitAttainment"
		e = l.move(at, evSuotarResponse, stNotImproved, "", msgNotImproved)
		e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("ok", "notImprovedAttainment", "", l.plan.cuID))
	case ioSisuTimeout:
		l.plan.returnedID = true
		r.submittedAttainmentID = l.plan.aiID
		e = l.move(at, evSuotarResponse, stSubmissionUncertain, "sisu_timeout", msgUncertain)
		e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("error", "sisuTimeout", r.submittedAttainmentID, ""))
	case ioUnknownCode:
		e = l.move(at, evSuotarResponse, stSubmissionUncertain, "unknown", msgUnknownCode)
		e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("error", "attainmentQueued", "", ""))
	case ioNoAnswer:
		e = l.move(at, evSuotarResponse, stSubmissionUncertain, "sisu_timeout", msgNoAnswer)
		e.suotar(epImport, item, req, ans, ansUnanswered, l.importDetails("", "", "", ""))
	case ioUnavailable:
		l.failRetryable(at, "service_temporarily_unavailable", epImport, item, l.importRequest(), req, ans, submitBackoff(r.submitRetries), true)
	case ioTransport:
		l.failRetryable(at, "transport_error", epImport, item, l.importRequest(), req, ans, submitBackoff(r.submitRetries), true)
	case ioConfig:
		e = l.move(at, evSuotarResponse, stFailedPermanent, code, msg)
		r.needsAdmin = true
		e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("error", wire, "", ""))
	case ioStudyRight:
		e = l.move(at, evSuotarResponse, stNoUsableEnrolment, "study_right_not_valid", "The student's study right does not cover the attainment date.")
		e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("error", "studyRightNotValid", "", ""))
		l.startLadder(at, groupCompleted, at)
	case ioPersonNotFound:
		e = l.move(at, evSuotarResponse, stPending, "person_not_found", msgPersonNotFound)
		e.suotar(epImport, item, req, ans, ansAnswered, l.importDetails("error", "personNotFound", "", ""))
	}
}

// deadWorker: preconditions find the row still submitting past the grace.
func (l *life) deadWorker(t time.Time) {
	l.move(t, evStateChanged, stSubmissionUncertain, "sisu_timeout", msgDeadWorker)
}

// verifyAnswer is what Suotar's verify says at t, read from the plan.
type verifyAnswer int

const (
	vaPending verifyAnswer = iota
	vaPartial
	vaRegistered
	vaMisregistered
	vaNotRegistered
)

func (p *sisuPlan) answer(t, submittedAt time.Time) verifyAnswer {
	switch {
	case !p.misregAt.IsZero() && !t.Before(p.misregAt):
		return vaMisregistered
	case !p.cuAt.IsZero() && !t.Before(p.cuAt):
		return vaRegistered
	case p.aiAlone && !p.aiAt.IsZero() && !t.Before(p.aiAt):
		return vaPartial
	case p.attempted && (!p.landed) && t.Sub(submittedAt) >= suotarPendingWindow:
		return vaNotRegistered
	}
	return vaPending
}

// poll is one verify call for a row with a submitted id (awaiting, partial, or uncertain with id).
func (l *life) poll(claim time.Time) {
	r := l.r
	req, ans, at := l.call(claim, 300*time.Millisecond, 4*time.Second)
	item := l.g.itemID()
	age := at.Sub(r.submittedAt)
	a := l.plan.answer(ans, r.submittedAt)
	switch a {
	case vaPending:
		retryAfter := ans.Add(suotarPendingWindow)
		if l.plan.attempted {
			retryAfter = r.submittedAt.Add(suotarPendingWindow)
		}
		e := l.move(at, evSuotarResponse, r.state, r.errorCode, msgPending)
		e.suotar(epVerify, item, req, ans, ansAnswered, l.verifyDetails("submissionPending", retryAfter))
		r.resubmitNotBefore = retryAfter
	case vaPartial:
		e := l.move(at, evSuotarResponse, stPartiallyRegistered, "", msgPartial)
		e.suotar(epVerify, item, req, ans, ansAnswered, l.verifyDetails("registered", time.Time{}))
		if r.partiallyRegisteredAt.IsZero() {
			r.partiallyRegisteredAt = at
		}
	case vaRegistered:
		r.sisuAttainmentID, r.sisuAttainmentType = l.plan.cuID, "CourseUnitAttainment"
		e := l.move(at, evSuotarResponse, stRegistered, "", msgRegistered)
		e.suotar(epVerify, item, req, ans, ansAnswered, l.verifyDetails("registered", time.Time{}))
		r.verifyAttempts++
		r.needsAdmin = false
		return
	case vaMisregistered:
		e := l.move(at, evSuotarResponse, stMisregistered, "misregistered", msgMisregistered)
		e.suotar(epVerify, item, req, ans, ansAnswered, l.verifyDetails("misregistered", time.Time{}))
		r.verifyAttempts++
		r.needsAdmin = true
		return
	case vaNotRegistered:
		l.notRegistered(at, req, ans, item)
		return
	}
	r.verifyAttempts++
	// A row with a submitted id is polled on the verify schedule, uncertain or not (domain.md
	// §7.1: "verify polls it like any awaiting_verification row"); only recovery without an id
	// doubles its wait.
	if r.state == stSubmissionUncertain && age >= uncertainAdminAfter {
		r.needsAdmin = true
	}
	var delay time.Duration
	switch {
	case age >= verifyMaxAge:
		delay = verifyGiveUpPoll
		r.needsAdmin = true
	default:
		delay = verifyDelay(r.submittedAt, at)
	}
	if r.state == stPartiallyRegistered && at.Sub(r.partiallyRegisteredAt) >= partialAdminAfter {
		r.needsAdmin = true
	}
	r.nextAttemptAt = l.after(at, delay)
}

// verifyFailed: the verify request failed (Suotar unavailable); the row backs off on the verify
// schedule and resumes polling where it was.
func (l *life) verifyFailed(claim time.Time) {
	r := l.r
	req, ans, at := l.call(claim, 200*time.Millisecond, 2*time.Second)
	item := l.g.itemID()
	rq := newObj(l.g.reqBuf[:0])
	rq.str("submittedAttainmentId", r.submittedAttainmentID)
	l.failRetryable(at, "service_temporarily_unavailable", epVerify, item, rq.end(), req, ans, verifyDelay(r.submittedAt, at), false)
}

// notRegistered: Suotar lost the submission; the row is reset and sent back toward import.
func (l *life) notRegistered(at, req, ans time.Time, item []byte) {
	r := l.r
	prev := r.submitRetries
	r.submittedAttainmentID = ""
	r.partiallyRegisteredAt = time.Time{}
	r.resubmitNotBefore = time.Time{}
	r.enrolmentID = ""
	r.gradeID = ""
	r.firstFailedAt = time.Time{}
	r.verifyAttempts = 0
	r.reimports++
	e := l.move(at, evRetryScheduled, stFailedRetryable, "not_registered", msgNotRegistered)
	e.suotar(epVerify, item, req, ans, ansAnswered, l.verifyDetails("notRegistered", time.Time{}))
	r.submitRetries++
	r.nextAttemptAt = l.after(at, submitBackoff(prev))
	if r.reimports >= reimportAdminAt {
		r.needsAdmin = true
	}
}

// look is uncertain recovery for a row without a submitted id: resolve the enrolments and look
// for an attainment matching what was sent.
func (l *life) look(claim time.Time) {
	r := l.r
	req, ans, at := l.call(claim, 800*time.Millisecond, 6*time.Second)
	item := l.g.itemID()
	found := l.plan.landed && !l.plan.noMatch && !l.plan.aiAt.IsZero() && !ans.Before(l.plan.aiAt)
	if found {
		id := l.plan.aiID
		if !l.plan.cuAt.IsZero() && !ans.Before(l.plan.cuAt) {
			id = l.plan.cuID
			r.sisuAttainmentType = "CourseUnitAttainment"
		} else {
			r.sisuAttainmentType = "AssessmentItemAttainment"
		}
		r.sisuAttainmentID = id
		e := l.move(at, evSuotarResponse, stDuplicate, "", msgRecoveryFound)
		e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails("enrolmentFound"))
		r.needsAdmin = false
		r.verifyAttempts++
		return
	}
	e := l.move(at, evSuotarResponse, stSubmissionUncertain, r.errorCode, msgRecoveryNone)
	e.suotar(epResolveEnrolment, item, req, ans, ansAnswered, l.resolveDetails("enrolmentFound"))
	r.verifyAttempts++
	r.nextAttemptAt = l.after(at, uncertainRecheckDelay(r.verifyAttempts))
	// Without submitted_at no day runs out: the pipeline never raises the flag.
	if !r.submittedAt.IsZero() && at.Sub(r.submittedAt) >= uncertainAdminAfter {
		r.needsAdmin = true
	}
}

// verifyUntil runs the verify phase over the row until it leaves verification or the next poll
// would come after limit.
func (l *life) verifyUntil(limit time.Time) {
	r := l.r
	for {
		switch r.state {
		case stAwaitingVerification, stPartiallyRegistered:
		case stSubmissionUncertain:
		default:
			return
		}
		claim := r.nextAttemptAt.Add(l.g.rng.dur(500*time.Millisecond, 60*time.Second))
		if claim.Add(10 * time.Second).After(limit) {
			return
		}
		switch {
		case r.state == stSubmissionUncertain && r.submittedAttainmentID == "":
			l.look(claim)
		case l.plan.failLastPoll && claim.Add(verifyDelay(r.submittedAt, claim)).After(limit):
			l.verifyFailed(claim)
			return
		default:
			l.poll(claim)
		}
	}
}

// preconditionsTick is when the preconditions phase (every 10 s) next sees the row.
func (l *life) preconditionsTick(t time.Time) time.Time {
	return t.Add(l.g.rng.dur(200*time.Millisecond, 10*time.Second))
}

// freeze writes the frozen payload: what import will send, fixed before the row leaves
// checking_enrolment.
func (l *life) freeze() {
	r, c := l.r, l.r.c
	s, m := c.student, c.module
	if l.enrolmentID == "" {
		l.enrolmentID = l.g.otmID()
	}
	r.frozen = true
	r.studentNumber = s.number
	r.personID = s.personID
	r.courseCode = m.def.code
	r.enrolmentID = l.enrolmentID
	r.kind = "degree"
	if m.def.openUni || s.openUni {
		r.kind = "open_university"
	}
	r.realisation = m.realisationAt(c.completionDate)
	r.lang = s.lang
	if m.def.passFail {
		r.gradeScale, r.gradeID = "sis-hyl-hyv", "1"
	} else {
		r.gradeScale, r.gradeID = "sis-0-5", gradeIDs[c.grade]
	}
	r.credits = m.def.credits
	r.attainedAt = c.completionDate
}

var gradeIDs = [6]string{"0", "1", "2", "3", "4", "5"}
