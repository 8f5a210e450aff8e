package i18n_test

import (
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// TestVerdictReasonsInEveryLanguage judges a lookup down each of schedule.Judge's ways and
// words the reason's phrases in each language: every phrase has its words (no ⟦key⟧), the
// English says what englishSays pins, and the Finnish and Swedish hold none of it.
func TestVerdictReasonsInEveryLanguage(t *testing.T) {
	t.Parallel()
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	day := func(s string) schedule.Date {
		v, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return schedule.DateOf(v)
	}
	att := func(id, typ, grade, date, reg string) schedule.SisuAttainment {
		return schedule.SisuAttainment{ID: id, Type: typ, GradeScaleID: "sis-0-5", GradeID: grade, AttainmentDate: day(date), RegistrationDate: day(reg)}
	}
	cu, ai := schedule.AttainmentCourseUnit, schedule.AttainmentAssessmentItem
	base := schedule.Submission{GradeScaleID: "sis-0-5", GradeID: "4", AttainedAt: at("2026-11-27T10:00:00Z"),
		SubmittedAt: at("2026-11-29T04:00:00Z"), SubmittedAttainmentID: "hy-kur-1"}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	pending := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		sub    schedule.Submission
		lookup schedule.Lookup
		now    time.Time
	}{
		"registered by date":   {base, schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", cu, "4", "2026-11-27", "2026-11-30")}}, now},
		"registered by window": {base, schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", cu, "4", "2026-11-20", "2026-11-30")}}, now},
		"partly, ours":         {base, schedule.Lookup{Attainments: []schedule.SisuAttainment{att("hy-kur-1", ai, "4", "2026-11-27", "2026-11-29")}}, now},
		"conflicting": {base, schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", cu, "3", "2026-11-27", "2026-11-30"),
			att("otm-2", cu, "4", "2026-10-01", "2026-10-02")}}, now},
		"not in Sisu, lagging": {base, schedule.Lookup{}, time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)},
		"not in Sisu":          {base, schedule.Lookup{Attainments: []schedule.SisuAttainment{att("old", cu, "4", "2025-01-01", "2025-01-02")}}, now},
		"verify pending":       {base, schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "submissionPending", RetryAfter: &pending}}, now},
		"verified elsewhere":   {base, schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-9", AttainmentType: cu}}, now},
		"a call failed": {base, schedule.Lookup{Failed: []schedule.FailedCall{{Call: schedule.CallAttainments, Why: "Suotar did not answer within 50 seconds; try again.",
			Kind: "timeout", LimitMS: 50000}, {Call: schedule.CallVerify, Why: "The lookup was cancelled.", Kind: "canceled"}}}, now},
		"no payload":              {schedule.Submission{}, schedule.Lookup{}, now},
		"no such person":          {base, schedule.Lookup{Code: "personNotFound", Verify: &schedule.VerifyEvidence{Code: "notRegistered"}}, now},
		"no such course":          {base, schedule.Lookup{Code: "courseCodeNotFound"}, now},
		"misregistered too":       {base, schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "misregistered"}}, now},
		"sent at an unknown time": {schedule.Submission{GradeScaleID: "sis-0-5", GradeID: "4", AttainedAt: base.AttainedAt}, schedule.Lookup{}, now},
	}
	english := []string{"Sisu holds", "regdesk sent", "attainment", "resubmit", "Suotar's", "failed", "the submission"}
	for name, c := range cases {
		v := schedule.Judge(c.sub, c.lookup, c.now)
		if len(v.Say) == 0 {
			t.Errorf("%s: the verdict has no phrases", name)
			continue
		}
		en := i18n.For(i18n.EN).Sentences(v.Say, c.now)
		for _, c := range v.Conflicts {
			for _, d := range c.Say {
				en += " " + i18n.For(i18n.EN).Say(d, now)
			}
		}
		// schedule holds no English: the catalogue's English is what the support person reads,
		// pinned here case by case.
		for _, w := range englishSays[name] {
			if !strings.Contains(en, w) {
				t.Errorf("%s: the English lacks %q:\n%s", name, w, en)
			}
		}
		for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
			text := i18n.For(lang).Sentences(v.Say, c.now)
			for _, c := range v.Conflicts {
				for _, d := range c.Say {
					text += " " + i18n.For(lang).Say(d, now)
				}
			}
			if strings.Contains(text, "⟦") || strings.Contains(text, "%!") || strings.Contains(text, "<no value>") {
				t.Errorf("%s %s: %s", lang, name, text)
			}
			t.Logf("%s %s: %s", lang, name, text)
			if lang == i18n.EN {
				continue
			}
			for _, e := range english {
				if strings.Contains(text, e) {
					t.Errorf("%s %s still says %q: %s", lang, name, e, text)
				}
			}
		}
	}
}

// englishSays are words each case's English must hold.
var englishSays = map[string][]string{
	"registered by date":      {"Sisu holds course unit attainment otm-cu (grade 4 on sis-0-5, dated 27 Nov 2026, registered 30 Nov 2026), with the grade and the attainment date regdesk sent.", "The credit counts; do not resubmit."},
	"registered by window":    {"with the grade regdesk sent, registered 30 Nov 2026: within 2 days after the submission on 29 Nov 2026.", "Its attainment date 20 Nov 2026 differs from the 27 Nov 2026 sent"},
	"partly, ours":            {"Sisu holds only assessment item attainment hy-kur-1", "which is the assessment item attainment regdesk submitted (hy-kur-1).", "Do not resubmit"},
	"conflicting":             {"Sisu holds 1 attainment like this submission that does not match it: course unit attainment otm-cu has grade 3, regdesk sent 4.", "resubmitting may register the credit twice"},
	"not in Sisu, lagging":    {"Sisu holds no attainment for this student on this course.", "It was sent only 4 h ago", "may not show it before 06:00 on Mon 30 Nov."},
	"not in Sisu":             {"Sisu holds 1 attainment on this course, but none dated 27 Nov 2026 or registered within 2 days after the submission on 29 Nov 2026", "Suotar's pending window for it ended at 06:00 on Mon 30 Nov."},
	"verify pending":          {"Suotar says the submission is still pending and asked not to resend it before 11:00 on Wed 2 Dec."},
	"verified elsewhere":      {"registered as course unit attainment otm-9, but the course's attainment list does not show it"},
	"a call failed":           {"The call for the student's attainments on the course failed (Suotar did not answer within 50 s; try again)", "the verify call for the submitted attainment failed (The lookup was cancelled)", "Do not resubmit on this lookup"},
	"no payload":              {"regdesk's frozen payload has no grade, grade scale and attainment date"},
	"no such person":          {"Sisu knows no person with this student number", "it has no evidence of the submitted attainment hy-kur-1"},
	"no such course":          {"Sisu has no course unit with this course code"},
	"sent at an unknown time": {"When it was sent is not recorded, so nobody can tell when Suotar's pending window ends."},
	"misregistered too":       {"was marked misregistered (reversed) in Sisu", "Suotar's pending window for it ended"},
}
