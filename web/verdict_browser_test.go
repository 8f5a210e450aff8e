package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// walkLookup is a lookup of the verdict walk: the evidence Suotar gave, judged by schedule.Judge
// as a real lookup is, and recorded in the record's shape.
type walkLookup struct {
	name     string
	evidence schedule.Lookup
	// failed is the call that brought no answer; "" for none.
	failed schedule.LookupCall
}

// walkLookups are the lookups of the walk: every verdict, and "not in Sisu" with Suotar holding
// the submission as pending, with and without a retryAfter.
func walkLookups(attained time.Time) []walkLookup {
	day := schedule.HelsinkiDate(attained)
	held := func(typ, grade string) []schedule.SisuAttainment {
		return []schedule.SisuAttainment{{ID: "hy-cu-1", Type: typ, GradeScaleID: "sis-0-5", GradeID: grade, AttainmentDate: day, RegistrationDate: day.AddDays(3)}}
	}
	tomorrow := testNow.Add(24 * time.Hour)
	return []walkLookup{
		{name: "registered", evidence: schedule.Lookup{Code: "enrolmentFound", Attainments: held(schedule.AttainmentCourseUnit, "4")}},
		{name: "partly", evidence: schedule.Lookup{Code: "enrolmentFound", Attainments: held(schedule.AttainmentAssessmentItem, "4")}},
		{name: "not in Sisu", evidence: schedule.Lookup{Code: "enrolmentFound"}},
		{name: "pending until tomorrow", evidence: schedule.Lookup{Code: "enrolmentFound", Verify: &schedule.VerifyEvidence{Code: "submissionPending", RetryAfter: &tomorrow}}},
		{name: "pending", evidence: schedule.Lookup{Code: "enrolmentFound", Verify: &schedule.VerifyEvidence{Code: "submissionPending"}}},
		{name: "conflicting", evidence: schedule.Lookup{Code: "enrolmentFound", Attainments: held(schedule.AttainmentCourseUnit, "2")}},
		{name: "cannot tell, a call failed", failed: schedule.CallAttainments,
			evidence: schedule.Lookup{Failed: []schedule.FailedCall{{Call: schedule.CallAttainments, Kind: "timeout", LimitMS: 50000}}}},
		{name: "cannot tell, no such person", evidence: schedule.Lookup{Code: "personNotFound"}},
	}
}

// record judges the lookup of reg made at, and returns its details as regdesk records them.
func (l walkLookup) record(reg storetest.Registration, at time.Time) string {
	sub := schedule.Submission{GradeScaleID: reg.GradeScaleID, GradeID: reg.GradeID, AttainedAt: reg.AttainedAt, SubmittedAt: reg.SubmittedAt,
		SubmittedAttainmentID: reg.SubmittedAttainmentID}
	v := schedule.Judge(sub, l.evidence, at)
	call := store.LookupCall{Endpoint: store.EndpointResolveEnrolments, Answer: store.AnswerAnswered, Code: l.evidence.Code, RequestedAt: at}
	if l.failed == schedule.CallAttainments {
		call = store.LookupCall{Endpoint: store.EndpointResolveEnrolments, Answer: store.AnswerUnanswered, RequestedAt: at,
			Failure: &store.LookupCallFailure{Kind: "timeout", LimitMS: 50000, Message: "Suotar did not answer in time; try again."}}
	}
	rec := store.LookupRecord{V: store.LookupRecordVersion, StudentNumber: reg.StudentNumber, CourseCode: reg.Course.Code,
		Sent:            store.LookupSent{GradeScaleID: reg.GradeScaleID, GradeID: reg.GradeID, SubmittedAt: reg.SubmittedAt, SubmittedAttainmentID: reg.SubmittedAttainmentID},
		AttainmentsCall: &call, Person: store.LookupPersonNotSeen,
		Verdict: &store.LookupVerdict{Kind: v.Kind, Say: v.Say, Matches: v.Matches, Ours: v.Ours}}
	if v.Match != nil {
		rec.Verdict.MatchID = v.Match.ID
	}
	for _, a := range l.evidence.Attainments {
		rec.Attainments = append(rec.Attainments, store.LookupAttainment{ID: a.ID, Type: a.Type, GradeScaleID: a.GradeScaleID, GradeID: a.GradeID,
			AttainmentDate: a.AttainmentDate.String(), RegistrationDate: a.RegistrationDate.String()})
	}
	if vf := l.evidence.Verify; vf != nil {
		rec.VerifyCall = &store.LookupCall{Endpoint: store.EndpointVerifyAttainments, Answer: store.AnswerAnswered, Code: vf.Code, RequestedAt: at, RetryAfter: vf.RetryAfter}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// The verdict walk: every verdict (and a pending verify answer) looked up on every shape of row
// a lookup meets, each page opened in Chromium, and no page contradicts itself. Where the verdict
// region says resubmitting is safe or allowed, the action panel offers Resubmit; where it warns
// against resubmitting (do not resubmit, not allowed, found in Sisu, conflicting), the panel does
// not offer it; the badge never says "Not in Sisu" of a submission Suotar holds as pending; and
// the verdict's advice is the panel's Resubmit decision, in its words.
func TestBrowserVerdictNeverContradictsTheActions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	attained := testNow.Add(-5 * 24 * time.Hour)
	payload := func(r storetest.Registration) storetest.Registration {
		r.Student, r.Course, r.StudentNumber, r.GradeScaleID, r.GradeID, r.Credits, r.AttainedAt = b.anna, b.course, "014979622", "sis-0-5", "4", 5, &attained
		if r.NextAttemptAt.IsZero() {
			r.NextAttemptAt = testNow.Add(time.Hour)
		}
		return r
	}
	shapes := []struct {
		name string
		reg  storetest.Registration
	}{
		{"uncertain, sent 30 h ago", storetest.Registration{State: "submission_uncertain", ErrorCode: "sisu_timeout",
			SubmittedAt: ptr(testNow.Add(-30 * time.Hour)), StateChangedAt: testNow.Add(-30 * time.Hour)}},
		{"uncertain, sent at an unknown time", storetest.Registration{State: "submission_uncertain", ErrorCode: "sisu_timeout",
			StateChangedAt: testNow.Add(-30 * time.Hour)}},
		{"uncertain, sent 2 h ago", storetest.Registration{State: "submission_uncertain", ErrorCode: "sisu_timeout",
			SubmittedAt: ptr(testNow.Add(-2 * time.Hour)), StateChangedAt: testNow.Add(-2 * time.Hour)}},
		{"given up, never accepted", storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true,
			SubmittedAt: ptr(testNow.Add(-10 * 24 * time.Hour)), StateChangedAt: testNow.Add(-3 * time.Hour)}},
		{"given up, accepted 10 d ago", storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true,
			SubmittedAt: ptr(testNow.Add(-10 * 24 * time.Hour)), SubmittedAttainmentID: "hy-kur-1", StateChangedAt: testNow.Add(-3 * time.Hour)}},
		{"reversed", storetest.Registration{State: "misregistered", NeedsAdminAttention: true,
			SubmittedAt: ptr(testNow.Add(-10 * 24 * time.Hour)), SubmittedAttainmentID: "hy-kur-1", StateChangedAt: testNow.Add(-3 * time.Hour)}},
		{"being confirmed", storetest.Registration{State: "awaiting_verification",
			SubmittedAt: ptr(testNow.Add(-6 * time.Hour)), SubmittedAttainmentID: "hy-kur-1", StateChangedAt: testNow.Add(-6 * time.Hour)}},
		{"cancelled, never sent", storetest.Registration{State: "cancelled", StateChangedAt: testNow.Add(-3 * time.Hour)}},
	}
	type page struct{ shape, lookup, id string }
	var pages []page
	lookedAt := testNow.Add(-time.Minute)
	for _, sh := range shapes {
		for _, lk := range walkLookups(attained) {
			reg := payload(sh.reg)
			if lk.evidence.Verify != nil && reg.SubmittedAttainmentID == "" {
				continue // the verify call is made only for a submitted attainment id
			}
			id := storetest.AddRegistration(t, b.store, reg)
			b.addLookup(t, id, lookedAt, b.support, lk.record(reg, lookedAt))
			pages = append(pages, page{sh.name, lk.name, id})
		}
	}
	// A tab for each shape: each has a budget of its own.
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			bt := newTab(t)
			bt.do(t, login(b.server.URL, b.support.Email, testPassword))
			for _, p := range pages {
				if p.shape != sh.name {
					continue
				}
				bt.do(t,
					chromedp.Navigate(b.server.URL+"/registrations/"+p.id),
					chromedp.WaitVisible(chromedp.CSS(`[data-testid="verdict"]`)),
					chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-resubmit"]`)),
				)
				var got struct {
					Badge, Label, Explain, Reason, Advice, AdviceAllowed, Resubmit, ResubmitWhy string
				}
				if err := json.Unmarshal([]byte(bt.eval(t, `(() => {
  const q = s => document.querySelector(s);
  const advice = q('[data-testid="verdict-advice"]');
  const resubmit = q('[data-testid="action-resubmit"]');
  return JSON.stringify({
    Badge: q('[data-testid="verdict"]').dataset.badge || "",
    Label: q('[data-testid="verdict-label"]').textContent.trim(),
    Explain: q('[data-testid="verdict-label"]').title,
    Reason: q('[data-testid="verdict-reason"]').textContent.trim(),
    Advice: advice ? advice.textContent.trim() : "",
    AdviceAllowed: advice ? advice.dataset.allowed : "(no advice)",
    Resubmit: resubmit.dataset.allowed,
    ResubmitWhy: resubmit.textContent.replace(/\s+/g, " ").trim(),
  });
})()`)), &got); err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("%s, looked up: %s", p.shape, p.lookup)
				offered := got.Resubmit == "true"
				says := strings.ToLower(got.Explain + " " + got.Reason + " " + got.Advice)
				if got.AdviceAllowed != got.Resubmit {
					t.Errorf("%s: the verdict's advice (allowed=%s: %q) is not the panel's Resubmit (allowed=%s: %q)", where, got.AdviceAllowed, got.Advice, got.Resubmit, got.ResubmitWhy)
				}
				if !offered && (strings.Contains(says, "safe") || strings.Contains(says, "resubmit is allowed")) {
					t.Errorf("%s: the verdict says resubmitting is safe, but the panel refuses it (%q):\n%s", where, got.ResubmitWhy, says)
				}
				if offered {
					for _, warn := range []string{"do not resubmit", "not allowed", "would register it twice", "may register the credit twice"} {
						if strings.Contains(says, warn) {
							t.Errorf("%s: the panel offers Resubmit, but the verdict says %q:\n%s", where, warn, says)
						}
					}
					if got.Label == "Registered in Sisu" || got.Label == "Only the assessment item" || got.Label == "Conflicts" {
						t.Errorf("%s: the panel offers Resubmit under the badge %q", where, got.Label)
					}
				}
				if strings.HasPrefix(p.lookup, "pending") && got.Label == "Not in Sisu" {
					t.Errorf("%s: Suotar holds the submission as pending, but the badge says %q", where, got.Label)
				}
				if strings.HasPrefix(p.lookup, "pending") && got.Label != "Pending at Suotar" && got.Badge == "not_in_sisu" {
					t.Errorf("%s: badge %q, want Pending at Suotar", where, got.Label)
				}
			}
		})
	}
}
