package schedule_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"regdesk/schedule"
)

// This file checks the lookup half of the promise as a property: whatever Sisu holds and
// whatever Suotar answers, a lookup in which a call failed, or in which Suotar said the
// submission is still pending without saying until when, never unlocks Resubmit. Each random
// sequence looks an uncertain row up again and again; after every lookup the verdict Judge gives
// is turned into the facts the rules read (as the store reads a recorded lookup back) and Decide
// is asked.

// randomLookup returns what one lookup of sub might bring: some attainments, maybe a verify
// answer, and maybe failed calls.
func randomLookup(rnd *rand.Rand, sub schedule.Submission, now time.Time) schedule.Lookup {
	sent := schedule.HelsinkiDate(*sub.AttainedAt)
	day := schedule.DateOf(sub.SubmittedAt.UTC())
	var l schedule.Lookup
	for range rnd.IntN(3) {
		a := schedule.SisuAttainment{ID: fmt.Sprintf("otm-%d", rnd.IntN(1000)), Type: schedule.AttainmentCourseUnit,
			GradeScaleID: sub.GradeScaleID, GradeID: sub.GradeID, AttainmentDate: sent, RegistrationDate: day}
		switch rnd.IntN(5) {
		case 0:
			a.Type = schedule.AttainmentAssessmentItem
		case 1:
			a.GradeID = "1" // a different grade: a conflict
		case 2:
			a.AttainmentDate, a.RegistrationDate = sent.AddDays(-400), day.AddDays(-398) // an old credit
		case 3:
			a.State = schedule.AttainmentStateFailed
		}
		l.Attainments = append(l.Attainments, a)
	}
	if sub.SubmittedAttainmentID != "" {
		switch rnd.IntN(5) {
		case 0:
			l.Verify = &schedule.VerifyEvidence{Code: "notRegistered"}
		case 1:
			l.Verify = &schedule.VerifyEvidence{Code: "submissionPending"} // retryAfter lost
		case 2:
			at := now.Add(time.Duration(rnd.IntN(48)-24) * time.Hour)
			l.Verify = &schedule.VerifyEvidence{Code: "submissionPending", RetryAfter: &at}
		case 3:
			l.Verify = &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-v", AttainmentType: schedule.AttainmentCourseUnit}
		}
	}
	if rnd.IntN(3) == 0 {
		l.Failed = append(l.Failed, schedule.FailedCall{Call: schedule.CallAttainments, Why: "no answer"})
		l.Attainments = nil // a failed call lists nothing
	}
	if sub.SubmittedAttainmentID != "" && rnd.IntN(3) == 0 {
		l.Failed = append(l.Failed, schedule.FailedCall{Call: schedule.CallVerify, Why: "no answer"})
		l.Verify = nil
	}
	return l
}

// factsOf is the lookup as the rules read it back from its record: the verdict, the failed
// calls and Suotar's pending answer.
func factsOf(at time.Time, l schedule.Lookup, v schedule.Verdict) *schedule.LookupFacts {
	lk := &schedule.LookupFacts{At: at, Verdict: v.Kind}
	if v.Match != nil {
		lk.MatchID, lk.MatchType = v.Match.ID, v.Match.Type
	}
	for _, f := range l.Failed {
		lk.Unanswered = append(lk.Unanswered, f.Call)
	}
	if l.Verify != nil && l.Verify.Code == "submissionPending" {
		lk.Pending, lk.PendingUntil = true, l.Verify.RetryAfter
	}
	return lk
}

func TestPropertyAFailedLookupNeverUnlocksResubmit(t *testing.T) {
	t.Parallel()

	var allowed, failedSeen, lostRetryAfter int
	for seed := range uint64(2000) {
		rnd := rand.New(rand.NewPCG(seed, 0x5eed))
		sentAt := t0.Add(-time.Duration(25+rnd.IntN(200)) * time.Hour)
		attained := sentAt.Add(-48 * time.Hour)
		sub := schedule.Submission{GradeScaleID: "sis-0-5", GradeID: "4", AttainedAt: &attained, SubmittedAt: &sentAt}
		if rnd.IntN(2) == 0 {
			sub.SubmittedAttainmentID = "hy-kur-1"
		}
		f := facts(schedule.StateSubmissionUncertain, withRow(func(r *schedule.Row) { r.SubmittedAt = &sentAt }, code(schedule.ErrorSisuTimeout)),
			submittedID(sub.SubmittedAttainmentID))
		now := t0
		for step := range 12 {
			now = now.Add(time.Duration(rnd.IntN(30)) * time.Hour)
			l := randomLookup(rnd, sub, now)
			v := schedule.Judge(sub, l, now)
			if len(l.Failed) > 0 && v.Kind == schedule.VerdictNotInSisu {
				t.Fatalf("seed %d step %d: Judge says not in Sisu although %s failed: %s", seed, step, l.Failed[0].Call, v.Say[0].Key)
			}
			f.Lookup = factsOf(now, l, v)
			later := now.Add(time.Duration(rnd.IntN(72)) * time.Hour)
			for _, at := range []time.Time{now, later} {
				d := schedule.Decide(schedule.ActionResubmit, f, schedule.StrictnessAny, at)
				if len(l.Failed) > 0 {
					failedSeen++
				}
				pendingNoTime := l.Verify != nil && l.Verify.Code == "submissionPending" && l.Verify.RetryAfter == nil
				if pendingNoTime {
					lostRetryAfter++
				}
				if !d.Allowed {
					continue
				}
				allowed++
				switch {
				case len(l.Failed) > 0:
					t.Fatalf("seed %d step %d: Resubmit allowed on a lookup whose %s failed (verdict %s)", seed, step, l.Failed[0].Call, v.Kind)
				case pendingNoTime:
					t.Fatalf("seed %d step %d: Resubmit allowed on a lookup where Suotar held the submission pending without a retryAfter", seed, step)
				case l.Verify != nil && l.Verify.Code == "submissionPending":
					t.Fatalf("seed %d step %d: Resubmit allowed on a lookup made while Suotar held the submission pending until %v", seed, step, l.Verify.RetryAfter)
				}
			}
			// The same lookup recorded before regdesk judged failed calls (its verdict "not in Sisu")
			// still unlocks nothing: the failed calls alone refuse.
			if len(l.Failed) > 0 {
				old := *f.Lookup
				old.Verdict = schedule.VerdictNotInSisu
				g := f
				g.Lookup = &old
				if d := schedule.Decide(schedule.ActionResubmit, g, schedule.StrictnessAny, later); d.Allowed {
					t.Fatalf("seed %d step %d: an old not-in-Sisu record with a failed call allows Resubmit", seed, step)
				}
			}
		}
	}
	// The runs must reach both sides: lookups that unlock and lookups that failed.
	if allowed == 0 || failedSeen == 0 || lostRetryAfter == 0 {
		t.Errorf("the runs missed a case: allowed %d, failed %d, lost retryAfter %d", allowed, failedSeen, lostRetryAfter)
	}
}
