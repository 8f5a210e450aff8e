package schedule_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"regdesk/schedule"
)

// This file drives random sequences of pipeline events, Sisu's own doings,
// lookups and hand actions through a small model of one ledger row and of
// Sisu, and checks after every step that the promise holds: no hand action
// resubmits an uncertain row inside Suotar's pending window or without a
// lookup after it that found nothing, no hand action moves a row into
// submitting, and Sisu never ends up holding two live credits for the row's
// completion.
//
// The model is faithful where safety depends on it: Suotar's import may land
// in Sisu at any time within the pending window or never, verify answers
// submissionPending inside the window and notRegistered only after it, and
// resolve finds an attainment only once Sisu shows it.

// submission is one import Suotar accepted or may have accepted.
type submission struct {
	id     string
	sentAt time.Time
	// landAt is when its assessment item attainment appears in Sisu, and
	// cuAt when the course unit attainment built from it does.
	landAt, cuAt time.Time
	lost         bool
	reversed     bool
}

func (s *submission) counts() bool { return !s.lost && !s.reversed }

// sisu is the model of what Sisu holds for the completion.
type sisu struct {
	subs []*submission
	// elsewhere is a matching credit another registrar put there before
	// the pipeline started; "" when none.
	elsewhere string
}

// live counts the credits Sisu holds or will hold without anyone acting.
func (w *sisu) live() int {
	n := 0
	if w.elsewhere != "" {
		n++
	}
	for _, s := range w.subs {
		if s.counts() {
			n++
		}
	}
	return n
}

// visible returns the id and kind of a matching live attainment Sisu shows
// at now, preferring a course unit attainment, and the submission it came
// from (nil for elsewhere).
func (w *sisu) visible(now time.Time) (id string, courseUnit bool, from *submission) {
	if w.elsewhere != "" {
		return w.elsewhere, true, nil
	}
	for _, s := range w.subs {
		if s.counts() && !now.Before(s.cuAt) {
			return "cu-" + s.id, true, s
		}
	}
	for _, s := range w.subs {
		if s.counts() && !now.Before(s.landAt) {
			return s.id, false, s
		}
	}
	return "", false, nil
}

func (w *sisu) byID(id string) *submission {
	for _, s := range w.subs {
		if s.id == id {
			return s
		}
	}
	return nil
}

// modelRow is the ledger row as far as the rules and the pipeline read it.
type modelRow struct {
	state                    schedule.State
	code                     schedule.ErrorCode
	flag                     bool
	submittedAt, partialAt   *time.Time
	resubmitNotBefore        *time.Time
	firstFailedAt            *time.Time
	submittedID, sisuID      string
	lookup                   *schedule.LookupFacts
	dismissed                []schedule.Reason
	stateChangedAt, enteredA time.Time
}

func (r *modelRow) facts() schedule.Facts {
	return schedule.Facts{
		Row: schedule.Row{
			State: r.state, ErrorCode: r.code, NeedsAdminAttention: r.flag,
			StateEnteredAt: r.enteredA, StateChangedAt: r.stateChangedAt, NextAttemptAt: r.enteredA,
			FirstFailedAt: r.firstFailedAt, SubmittedAt: r.submittedAt, PartiallyRegisteredAt: r.partialAt,
			ResubmitNotBefore: r.resubmitNotBefore, DismissedReasons: r.dismissed,
		},
		SubmittedAttainmentID: r.submittedID,
		Lookup:                r.lookup,
	}
}

func (r *modelRow) move(to schedule.State, now time.Time) {
	if to != r.state {
		r.stateChangedAt = now
	}
	r.state, r.enteredA = to, now
}

// decider is Decide or a weakened copy of it, for showing the property
// catches weaker rules.
type decider func(schedule.Action, schedule.Facts, schedule.Strictness, time.Time) schedule.Decision

// stats counts what a run exercised, so a run that never reaches the
// interesting cases fails instead of passing vacuously.
type stats struct {
	uncertainResubmits, acceptedResubmits, marks, tooRecent, needLookup, foundRefusals, acceptedPending, submissions int
}

// simulate runs one random sequence and returns the first broken promise,
// or "".
func simulate(seed uint64, steps int, decide decider, st *stats) string {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	now := t0
	w := &sisu{}
	if rnd.IntN(20) == 0 {
		w.elsewhere = "elsewhere-1"
	}
	r := &modelRow{state: schedule.StateReadyToSubmit, stateChangedAt: now, enteredA: now}
	var log []string
	note := func(format string, args ...any) {
		log = append(log, fmt.Sprintf("%s +%v: ", r.state, now.Sub(t0))+fmt.Sprintf(format, args...))
	}
	fail := func(format string, args ...any) string {
		return fmt.Sprintf("seed %d: %s\nhistory:\n  %s", seed, fmt.Sprintf(format, args...), joinLines(log))
	}
	nextID := 0

	for range steps {
		switch k := rnd.IntN(100); {
		case k < 30: // time passes
			if (r.state == schedule.StateReadyToSubmit || r.state == schedule.StateCheckingEnrolment) && rnd.IntN(10) < 7 {
				// The pipeline takes a row that is ready within minutes,
				// long before hours have passed.
				pipelineStep(rnd, w, r, now, &nextID, note, st)
			}
			steps := []time.Duration{time.Minute, 30 * time.Minute, 4 * time.Hour, 12 * time.Hour, 23 * time.Hour, 25 * time.Hour, 72 * time.Hour, 8 * 24 * time.Hour}
			d := steps[rnd.IntN(len(steps))]
			now = now.Add(d)
			note("time passes %v", d)
		case k < 62: // the pipeline or Sisu does something
			if rnd.IntN(10) == 0 {
				// Sisu reverses a credit it shows.
				if _, _, s := w.visible(now); s != nil {
					s.reversed = true
					note("Sisu reverses %s", s.id)
				}
				continue
			}
			pipelineStep(rnd, w, r, now, &nextID, note, st)
		case k < 74: // a person looks the row up in Sisu
			lk := &schedule.LookupFacts{At: now}
			id, cu, from := w.visible(now)
			switch p := rnd.IntN(20); {
			case p == 0:
				lk.Verdict = schedule.VerdictCannotTell
			case p == 1:
				lk.Verdict = schedule.VerdictConflicting
			case id == "":
				lk.Verdict = schedule.VerdictNotInSisu
			default:
				lk.Verdict = schedule.VerdictPartlyRegistered
				lk.MatchType = "AssessmentItemAttainment"
				if cu {
					lk.Verdict, lk.MatchType = schedule.VerdictRegistered, "CourseUnitAttainment"
				}
				lk.MatchID = id
				lk.MatchOurs = from != nil && r.submittedID != "" && from.id == r.submittedID
			}
			r.lookup = lk
			note("lookup: %s %s ours=%v", lk.Verdict, lk.MatchID, lk.MatchOurs)
		default: // a person acts by hand
			actions := schedule.Actions()
			a := actions[rnd.IntN(len(actions))]
			s := schedule.StrictnessAny
			if rnd.IntN(5) == 0 {
				s = schedule.StrictnessAnyExceptSubmissionUncertain
			}
			before := *r
			d := decide(a, r.facts(), s, now)
			if !d.Allowed {
				switch d.Refusal {
				case schedule.RefusalSubmissionUncertainTooRecent:
					st.tooRecent++
				case schedule.RefusalNeedsLookupAfterPendingWindow:
					st.needLookup++
				case schedule.RefusalLookupFoundAttainment:
					st.foundRefusals++
				case schedule.RefusalSubmissionPending:
					if r.state != schedule.StateSubmissionUncertain && r.resubmitNotBefore == nil {
						st.acceptedPending++
					}
				}
				continue
			}
			note("hand %s (%s) → %s", a, s, d.Target)
			if msg := checkHandAction(a, s, d, &before, now); msg != "" {
				return fail("%s", msg)
			}
			applyHand(a, d, r, now)
			if a == schedule.ActionResubmit && before.state == schedule.StateSubmissionUncertain {
				st.uncertainResubmits++
			}
			if a == schedule.ActionResubmit && before.state != schedule.StateSubmissionUncertain && before.submittedID != "" && before.state != schedule.StateMisregistered {
				st.acceptedResubmits++
			}
			if r.state == schedule.StateSubmitting {
				return fail("hand action %s moved the row into submitting", a)
			}
		}
		if n := w.live(); n > 1 {
			return fail("Sisu holds %d live credits for one completion", n)
		}
	}
	return ""
}

func joinLines(lines []string) string {
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}

// checkHandAction checks an allowed action against the promise directly,
// from the facts before it, without trusting Decide's reasoning.
func checkHandAction(a schedule.Action, s schedule.Strictness, d schedule.Decision, before *modelRow, now time.Time) string {
	if d.Target == schedule.StateSubmitting && before.state != schedule.StateSubmitting {
		return fmt.Sprintf("%s would move the row into submitting", a)
	}
	if before.state != schedule.StateSubmissionUncertain {
		return ""
	}
	if s != schedule.StrictnessAny {
		return fmt.Sprintf("%s acted on an uncertain row in strictBulk", a)
	}
	if a != schedule.ActionResubmit {
		return ""
	}
	if before.submittedAt == nil {
		return "resubmitted an uncertain row without a submission time"
	}
	end := before.submittedAt.Add(schedule.SuotarPendingWindow)
	if now.Before(end) {
		return fmt.Sprintf("resubmitted an uncertain row %v before its pending window ended", end.Sub(now))
	}
	lk := before.lookup
	if lk == nil || lk.At.Before(end) || lk.Verdict != schedule.VerdictNotInSisu {
		return fmt.Sprintf("resubmitted an uncertain row without a no-match lookup after the pending window (lookup %+v)", lk)
	}
	return ""
}

// applyHand writes an allowed action's effect as the store does.
func applyHand(a schedule.Action, d schedule.Decision, r *modelRow, now time.Time) {
	switch a {
	case schedule.ActionResubmit:
		r.move(d.Target, now)
		r.flag, r.code, r.partialAt, r.resubmitNotBefore = false, "", nil, nil
	case schedule.ActionCancel:
		r.move(d.Target, now)
		r.flag, r.code = false, ""
	case schedule.ActionClearFlag:
		r.flag = false
	case schedule.ActionDismissAttention:
		r.dismissed = d.Reasons
	case schedule.ActionCheckNow:
		// Only makes the row due; the next pipeline step is what happens.
	}
}

// pipelineStep lets the pipeline take the step the row's state calls for.
func pipelineStep(rnd *rand.Rand, w *sisu, r *modelRow, now time.Time, nextID *int, note func(string, ...any), st *stats) {
	window := schedule.SuotarPendingWindow
	switch r.state {
	case schedule.StateReadyToSubmit:
		// resolve: an attainment Sisu already shows ends the attempt.
		if id, _, _ := w.visible(now); id != "" {
			r.move(schedule.StateDuplicate, now)
			r.sisuID, r.flag, r.code = id, false, ""
			note("resolve finds %s", id)
			return
		}
		r.move(schedule.StateCheckingEnrolment, now)
		note("resolve finds the enrolment")
	case schedule.StateCheckingEnrolment:
		// import: commits submitting, then sends.
		r.move(schedule.StateSubmitting, now)
		r.submittedAt = &now
		newSub := func(lostChance int) *submission {
			*nextID++
			s := &submission{id: fmt.Sprintf("hy-kur-%d", *nextID), sentAt: now, lost: rnd.IntN(100) < lostChance}
			s.landAt = now.Add(time.Duration(rnd.Int64N(int64(window))))
			s.cuAt = s.landAt.Add(time.Duration(rnd.Int64N(int64(5 * 24 * time.Hour))))
			w.subs = append(w.subs, s)
			st.submissions++
			return s
		}
		switch p := rnd.IntN(100); {
		case p < 40:
			s := newSub(20)
			r.move(schedule.StateAwaitingVerification, now)
			r.submittedID, r.code = s.id, ""
			note("import sent %s (lost=%v, lands +%v)", s.id, s.lost, s.landAt.Sub(now))
		case p < 55:
			s := newSub(50)
			r.move(schedule.StateSubmissionUncertain, now)
			r.submittedID, r.code = s.id, schedule.ErrorSisuTimeout
			note("import sisuTimeout %s (lost=%v, lands +%v)", s.id, s.lost, s.landAt.Sub(now))
		case p < 75:
			// No answer: the request may or may not have reached Sisu.
			r.move(schedule.StateSubmissionUncertain, now)
			r.submittedID, r.code = "", schedule.ErrorSisuTimeout
			if rnd.IntN(2) == 0 {
				s := newSub(0)
				note("import unanswered, but %s lands +%v", s.id, s.landAt.Sub(now))
			} else {
				note("import unanswered, nothing created")
			}
		case p < 88:
			r.move(schedule.StateFailedPermanent, now)
			r.code, r.flag = schedule.ErrorInvalidCredits, true
			note("import rejected")
		default:
			r.move(schedule.StateFailedRetryable, now)
			r.code = schedule.ErrorTransportError
			if r.firstFailedAt == nil {
				r.firstFailedAt = &now
			}
			note("import did not reach Suotar")
		}
	case schedule.StateAwaitingVerification, schedule.StatePartiallyRegistered, schedule.StateSubmissionUncertain:
		if r.submittedID == "" {
			// Uncertain recovery: look for a matching attainment.
			if id, _, _ := w.visible(now); id != "" {
				r.move(schedule.StateDuplicate, now)
				r.sisuID, r.flag, r.code = id, false, ""
				note("recovery finds %s", id)
			} else if r.submittedAt != nil && !now.Before(r.submittedAt.Add(schedule.UncertainAdminAfter)) {
				r.flag = true
			}
			return
		}
		if r.state != schedule.StateSubmissionUncertain && rnd.IntN(8) == 0 {
			r.move(schedule.StateFailedRetryable, now)
			r.code = schedule.ErrorServiceTemporarilyUnavailable
			if r.firstFailedAt == nil {
				r.firstFailedAt = &now
			}
			note("verify request failed")
			return
		}
		s := w.byID(r.submittedID)
		switch {
		case s.reversed:
			r.move(schedule.StateMisregistered, now)
			r.flag, r.code = true, schedule.ErrorMisregistered
			note("verify: misregistered")
		case !s.lost && !now.Before(s.cuAt):
			r.move(schedule.StateRegistered, now)
			r.sisuID, r.flag, r.code = "cu-"+s.id, false, ""
			note("verify: registered")
		case !s.lost && !now.Before(s.landAt):
			r.move(schedule.StatePartiallyRegistered, now)
			if r.partialAt == nil {
				r.partialAt = &now
			}
			note("verify: partly registered")
		case now.Before(s.sentAt.Add(window)):
			// Suotar holds it as pending and names when a resend is safe.
			at := s.sentAt.Add(window)
			r.resubmitNotBefore = &at
			r.move(r.state, now)
			note("verify: submissionPending, retryAfter +%v", at.Sub(now))
		default:
			// notRegistered: only a lost submission is gone after the window.
			r.move(schedule.StateFailedRetryable, now)
			r.code = schedule.ErrorNotRegistered
			r.submittedID, r.partialAt, r.resubmitNotBefore, r.firstFailedAt = "", nil, nil, nil
			note("verify: notRegistered")
		}
	case schedule.StateFailedRetryable:
		switch {
		case r.firstFailedAt != nil && !now.Before(r.firstFailedAt.Add(schedule.SubmitMaxRetryAge)):
			r.move(schedule.StateFailedPermanent, now)
			r.code, r.flag = schedule.ErrorRetryWindowExpired, true
			note("retry window expired")
		case r.submittedID != "":
			r.move(schedule.StateAwaitingVerification, now)
			note("resume verification")
		default:
			r.move(schedule.StateReadyToSubmit, now)
			note("resume from the start")
		}
	}
}

const (
	propertyRuns  = 3000
	propertySteps = 80
)

// TestPropertyNoSecondRegistration is the promise as a property: whatever
// the pipeline, Sisu and people do, in any order, the rules never let a
// hand action cause a second registration.
func TestPropertyNoSecondRegistration(t *testing.T) {
	t.Parallel()

	var st stats
	for seed := range uint64(propertyRuns) {
		if msg := simulate(seed, propertySteps, schedule.Decide, &st); msg != "" {
			t.Fatal(msg)
		}
	}
	// A property that never reached its interesting cases proves nothing.
	if st.uncertainResubmits == 0 || st.acceptedResubmits == 0 || st.tooRecent == 0 ||
		st.needLookup == 0 || st.foundRefusals == 0 {
		t.Errorf("the runs missed a case: %+v", st)
	}
	t.Logf("%+v", st)
}

// weakened returns Decide with some of regdesk's refusals of resubmit turned
// into permissions, as if only the LMS's rules held.
func weakened(drop func(schedule.Decision, schedule.Facts, time.Time) bool) decider {
	return func(a schedule.Action, f schedule.Facts, s schedule.Strictness, now time.Time) schedule.Decision {
		d := schedule.Decide(a, f, s, now)
		if a == schedule.ActionResubmit && !d.Allowed && drop(d, f, now) {
			return schedule.Decision{Action: a, Allowed: true, Target: schedule.StateReadyToSubmit, Risk: schedule.RiskPossibleDuplicate}
		}
		return d
	}
}

var lookupRefusals = []schedule.RefusalCode{schedule.RefusalNeedsLookupAfterPendingWindow,
	schedule.RefusalLookupFoundAttainment, schedule.RefusalLookupInconclusive}

// TestPropertyCatchesWeakerRules shows the property can fail: with the rules
// regdesk adds to the LMS's removed, it finds a sequence that breaks the
// promise.
func TestPropertyCatchesWeakerRules(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		drop func(schedule.Decision, schedule.Facts, time.Time) bool
	}{
		{
			// Without the lookup rule an uncertain row is resubmitted on
			// the strength of waiting alone.
			name: "NoLookupRule",
			drop: func(d schedule.Decision, _ schedule.Facts, _ time.Time) bool {
				return slices.Contains(lookupRefusals, d.Refusal)
			},
		},
		{
			// Without the pending window for a failed row Suotar had
			// accepted, the LMS resubmits it while its import may land.
			name: "NoWindowForAcceptedRows",
			drop: func(d schedule.Decision, f schedule.Facts, now time.Time) bool {
				if f.Row.State == schedule.StateSubmissionUncertain {
					return false
				}
				retryAfter := f.Row.ResubmitNotBefore
				return slices.Contains(lookupRefusals, d.Refusal) ||
					(d.Refusal == schedule.RefusalSubmissionPending && (retryAfter == nil || !now.Before(*retryAfter)))
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			var st stats
			for seed := range uint64(propertyRuns) {
				if msg := simulate(seed, propertySteps, weakened(tc.drop), &st); msg != "" {
					t.Logf("caught as expected: %.300s", msg)
					return
				}
			}
			t.Errorf("%d runs found no broken promise with the %s", propertyRuns, tc.name)
		})
	}
}
