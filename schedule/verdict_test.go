package schedule_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
)

func civil(s string) schedule.Date {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return schedule.DateOf(t)
}

func instant(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// att builds an attainment: type "cu" or "ai", grade on sis-0-5 unless scale says otherwise.
func att(id, typ, grade, date, registered string) schedule.SisuAttainment {
	a := schedule.SisuAttainment{ID: id, Type: schedule.AttainmentAssessmentItem, State: "ATTAINED", GradeScaleID: "sis-0-5",
		GradeID: grade, AttainmentDate: civil(date)}
	if typ == "cu" {
		a.Type = schedule.AttainmentCourseUnit
	}
	if registered != "" {
		a.RegistrationDate = civil(registered)
	}
	return a
}

func with(a schedule.SisuAttainment, f func(*schedule.SisuAttainment)) schedule.SisuAttainment {
	f(&a)
	return a
}

func TestJudge(t *testing.T) {
	t.Parallel()

	// Sent grade 4 on sis-0-5, attained on 27 Nov (Helsinki), submitted early on 29 Nov (Helsinki).
	base := schedule.Submission{GradeScaleID: "sis-0-5", GradeID: "4",
		AttainedAt: instant("2026-11-27T10:00:00Z"), SubmittedAt: instant("2026-11-29T04:00:00Z")}
	sub := func(f func(*schedule.Submission)) schedule.Submission {
		s := base
		f(&s)
		return s
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) // past Suotar's pending window

	tests := []struct {
		name      string
		sub       schedule.Submission
		lookup    schedule.Lookup
		now       time.Time
		want      schedule.VerdictKind
		match     string   // id of the matching attainment, "" for none
		matches   []string // ids of every matching attainment, when the case says
		conflicts []string // ids of the conflicting attainments
		reason    []string // phrases the reason must hold
		absent    []string // phrases it must not
	}{
		{
			name:   "CourseUnitWithSameGradeAndDate",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"course unit attainment otm-cu", "the grade and the attainment date regdesk sent", "do not resubmit"},
		},
		{
			name: "CourseUnitPreferredOverAssessmentItemListedFirst",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				att("hy-kur-1", "ai", "4", "2026-11-27", "2026-11-29"), att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30")}},
			want: schedule.VerdictRegistered, match: "otm-cu", matches: []string{"hy-kur-1", "otm-cu"},
		},
		{
			name:   "OnlyTheAssessmentItem",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("hy-kur-1", "ai", "4", "2026-11-27", "2026-11-29")}},
			want:   schedule.VerdictPartlyRegistered, match: "hy-kur-1",
			reason: []string{"only assessment item attainment hy-kur-1", "not there yet", "Do not resubmit"},
		},
		{
			name:   "NothingAtAll",
			lookup: schedule.Lookup{Code: "enrolmentFound"},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"no attainment for this student on this course", "resubmitting is safe"},
		},
		{
			name:   "AnOldUnrelatedAttainmentIsNotThisSubmission",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-old", "cu", "2", "2019-05-02", "2019-05-04")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"1 attainment on this course, but none dated 2026-11-27 or registered within 2 days after the submission on 2026-11-29"},
		},
		{
			name:   "SameGradeOldDateIsNotThisSubmission",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-old", "cu", "4", "2025-05-02", "2025-05-04")}},
			want:   schedule.VerdictNotInSisu,
		},
		{
			name:      "SameDayOtherGradeConflicts",
			lookup:    schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "3", "2026-11-27", "2026-11-30")}},
			want:      schedule.VerdictConflicting,
			conflicts: []string{"otm-cu"},
			reason:    []string{"course unit attainment otm-cu has grade 3, regdesk sent 4", "register the credit twice"},
		},
		{
			name: "FailedStateNeverMatches",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				with(att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30"), func(a *schedule.SisuAttainment) { a.State = "FAILED" })}},
			want: schedule.VerdictConflicting, conflicts: []string{"otm-cu"},
			reason: []string{"state FAILED"},
		},
		{
			name: "OtherScaleConflicts",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				with(att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30"), func(a *schedule.SisuAttainment) { a.GradeScaleID = "sis-hyl-hyv" })}},
			want: schedule.VerdictConflicting, conflicts: []string{"otm-cu"},
			reason: []string{"grade scale sis-hyl-hyv, regdesk sent sis-0-5"},
		},
		{
			name: "PassFailSpellingsAreOneScale",
			sub:  sub(func(s *schedule.Submission) { s.GradeScaleID, s.GradeID = "sis-hyv-hyl", "1" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				with(att("otm-cu", "cu", "1", "2026-11-27", "2026-11-30"), func(a *schedule.SisuAttainment) { a.GradeScaleID = "sis-hyl-hyv" })}},
			want: schedule.VerdictRegistered, match: "otm-cu",
		},
		{
			name:   "MovedDateRecognisedByRegistrationDate",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-11-30")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"registered 2026-11-30: within 2 days after the submission on 2026-11-29", "attainment date 2026-09-01 differs"},
		},
		{
			name:   "MovedDateRegisteredTooLateIsNotThisSubmission",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-12-02")}},
			want:   schedule.VerdictNotInSisu,
		},
		{
			name: "MovedDateWithoutSubmissionTimeCannotMatch",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAt = nil }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				att("otm-cu", "cu", "4", "2026-09-01", "2026-11-30"), att("otm-same", "cu", "3", "2026-11-27", "2026-11-28")}},
			want: schedule.VerdictConflicting, conflicts: []string{"otm-same"},
		},
		{
			name: "SameDateBeatsRegistrationDate",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				att("otm-moved", "cu", "4", "2026-09-01", "2026-11-30"), att("otm-dated", "cu", "4", "2026-11-27", "2026-11-29")}},
			want: schedule.VerdictRegistered, match: "otm-dated",
		},
		{
			name: "MatchingAssessmentItemWithConflictingCourseUnit",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				att("hy-kur-1", "ai", "4", "2026-11-27", "2026-11-29"), att("otm-cu", "cu", "5", "2026-11-27", "2026-11-30")}},
			want: schedule.VerdictPartlyRegistered, match: "hy-kur-1", conflicts: []string{"otm-cu"},
			reason: []string{"1 attainment that looks related but differs"},
		},
		{
			name:   "NoGradeCannotTell",
			sub:    sub(func(s *schedule.Submission) { s.GradeID = "" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30")}},
			want:   schedule.VerdictCannotTell,
			reason: []string{"no grade"},
		},
		{
			name:   "NoAttainmentDateCannotTell",
			sub:    sub(func(s *schedule.Submission) { s.AttainedAt, s.GradeScaleID = nil, "" }),
			want:   schedule.VerdictCannotTell,
			reason: []string{"no grade scale and attainment date"},
		},
		{
			name:   "UnknownPersonCannotTell",
			lookup: schedule.Lookup{Code: "personNotFound"},
			want:   schedule.VerdictCannotTell,
			reason: []string{"no person with this student number"},
		},
		{
			name:   "UnknownCourseCodeCannotTell",
			lookup: schedule.Lookup{Code: "courseCodeNotFound"},
			want:   schedule.VerdictCannotTell,
			reason: []string{"no course unit with this course code"},
		},
		{
			name:   "OurAssessmentItemById",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("hy-kur-ours", "ai", "4", "2026-11-27", "2026-11-29")}},
			want:   schedule.VerdictPartlyRegistered, match: "hy-kur-ours",
			reason: []string{"which is the assessment item attainment regdesk submitted (hy-kur-ours)"},
		},
		{
			name: "OurAssessmentItemThatDiffersConflicts",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			// Its date and registration are far from the submission, yet it is ours by id.
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("hy-kur-ours", "ai", "3", "2026-10-01", "2026-10-02")}},
			want:   schedule.VerdictConflicting, conflicts: []string{"hy-kur-ours"},
			reason: []string{"grade 3, regdesk sent 4", "attainment date 2026-10-01, regdesk sent 2026-11-27"},
		},
		{
			name: "CourseUnitBuiltFromOursBeatsAnotherMatch",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				att("otm-other", "cu", "4", "2026-11-27", "2026-12-01"),
				with(att("otm-ours", "cu", "4", "2026-11-27", "2026-11-30"), func(a *schedule.SisuAttainment) {
					a.AssessmentItemAttainmentIDs = []string{"hy-kur-ours"}
				})}},
			want: schedule.VerdictRegistered, match: "otm-ours",
			reason: []string{"built from the assessment item attainment regdesk submitted (hy-kur-ours)"},
		},
		{
			name: "VerifyNamesTheCourseUnit",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{
				Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-12-01")},
				Verify:      &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-cu", AttainmentType: schedule.AttainmentCourseUnit}},
			want: schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"which Suotar's verify answer names for the submitted attainment hy-kur-ours"},
		},
		{
			name: "VerifiedCourseUnitMissingFromTheList",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-cu", AttainmentType: schedule.AttainmentCourseUnit},
				Attainments: []schedule.SisuAttainment{att("hy-kur-ours", "ai", "4", "2026-11-27", "2026-11-29")}},
			want:   schedule.VerdictRegistered,
			reason: []string{"registered as course unit attainment otm-cu", "does not show it"},
		},
		{
			name: "VerifiedCourseUnitThatDiffersConflicts",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-cu", AttainmentType: schedule.AttainmentCourseUnit},
				Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-10-01", "2026-10-05")}},
			want: schedule.VerdictConflicting, conflicts: []string{"otm-cu"},
		},
		{
			name:   "VerifiedAssessmentItemMissingFromTheList",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "registered", AttainmentID: "hy-kur-ours", AttainmentType: schedule.AttainmentAssessmentItem}},
			want:   schedule.VerdictPartlyRegistered,
			reason: []string{"holds the submitted attainment hy-kur-ours as assessment item attainment"},
		},
		{
			name:   "VerifyMisregistered",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "misregistered"}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"marked misregistered (reversed)"},
		},
		{
			name:   "VerifyPendingSaysWhenToResubmit",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "submissionPending", RetryAfter: instant("2026-12-02T10:00:00Z")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"still pending: do not resubmit before 2026-12-02 12:00"},
		},
		{
			name:   "TooRecentToTrustNotInSisu",
			now:    time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC),
			want:   schedule.VerdictNotInSisu,
			reason: []string{"sent only 3 hours ago", "do not resubmit before 2026-11-30 06:00"},
		},

		// Date edges: the day sent is attained_at's Helsinki date, not its UTC date; the window runs
		// from submitted_at's Helsinki day.
		{
			name:   "AttainedJustAfterHelsinkiMidnightIsThatHelsinkiDay",
			sub:    sub(func(s *schedule.Submission) { s.AttainedAt = instant("2026-11-26T22:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-11-28")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
		},
		{
			name:   "AttainedJustAfterHelsinkiMidnightIsNotTheUTCDay",
			sub:    sub(func(s *schedule.Submission) { s.AttainedAt = instant("2026-11-26T22:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-26", "2026-11-27")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"none dated 2026-11-27"},
		},
		{
			name:   "AttainedLastMinuteOfTheHelsinkiDay",
			sub:    sub(func(s *schedule.Submission) { s.AttainedAt = instant("2026-11-27T21:59:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-11-28")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
		},
		{
			name:   "SummerTimeMidnightIsThreeHoursBeforeUTC",
			sub:    sub(func(s *schedule.Submission) { s.AttainedAt = instant("2026-06-14T21:00:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-06-15", "2026-06-16")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
		},
		{
			name:   "SummerTimeLastMinuteIsStillTheDayBefore",
			sub:    sub(func(s *schedule.Submission) { s.AttainedAt = instant("2026-06-14T20:59:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-06-15", "2026-06-16")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"none dated 2026-06-14"},
		},
		{
			name:   "RegisteredTwoDaysAfterALateEveningSubmission",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T21:59:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-12-01")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
		},
		{
			name:   "RegisteredThreeDaysAfterALateEveningSubmission",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T21:59:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-12-02")}},
			want:   schedule.VerdictNotInSisu,
		},
		{
			name:   "SubmittedAtHelsinkiMidnightCountsFromTheNewDay",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T22:00:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-12-02")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
		},

		// The registration window is read both ways: from submitted_at's Helsinki date and from its
		// UTC date (the pipeline's date_naive()); they differ between Helsinki and UTC midnight, and
		// an attainment in either window matches. Winter time: Helsinki is UTC+2.
		{
			name: "WinterRegisteredOnTheUTCDayBeforeTheHelsinkiSubmissionDay",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T22:30:00Z") }),
			// Helsinki: 30 Nov 00:30. Sisu dates the registration by the UTC day, 29 Nov.
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-11-29")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"registered 2026-11-29: within 2 days after the submission on 2026-11-30 (Helsinki; 2026-11-29 by its UTC date, which the pipeline counts from)"},
		},
		{
			name:   "WinterRegisteredTwoDaysAfterTheHelsinkiDay",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T22:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-12-02")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
		},
		{
			name:   "WinterRegisteredThreeDaysAfterTheHelsinkiDayIsOutside",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T22:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-12-03")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"registered within 2 days after the submission on 2026-11-30 (Helsinki; 2026-11-29 by its UTC date"},
		},
		{
			name:   "WinterRegisteredTheDayBeforeTheUTCDayIsOutside",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T22:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-11-28")}},
			want:   schedule.VerdictNotInSisu,
		},
		{
			name:   "WinterLastMinuteBeforeHelsinkiMidnightHasOneDay",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-11-29T21:59:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-09-01", "2026-11-28")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"after the submission on 2026-11-29, so none"},
		},
		// Summer time: Helsinki is UTC+3.
		{
			name:   "SummerRegisteredOnTheUTCDayBeforeTheHelsinkiSubmissionDay",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-06-14T21:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-03-01", "2026-06-14")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"after the submission on 2026-06-15 (Helsinki; 2026-06-14 by its UTC date, which the pipeline counts from)"},
		},
		{
			name:   "SummerRegisteredTwoDaysAfterTheHelsinkiDay",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-06-14T21:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-03-01", "2026-06-17")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
		},
		{
			name:   "SummerOutsideBothWindows",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-06-14T21:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-03-01", "2026-06-18"), att("otm-old", "cu", "4", "2026-03-01", "2026-06-13")}},
			want:   schedule.VerdictNotInSisu,
		},
		{
			name:   "SummerJustBeforeHelsinkiMidnightBothReadingsAgree",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-06-14T20:59:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-03-01", "2026-06-16")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"within 2 days after the submission on 2026-06-14. Its"},
		},

		// A failed call is not an answer: "not in Sisu" needs every call that could show the credit.
		{
			name:   "AttainmentListFailedCannotTell",
			lookup: schedule.Lookup{Failed: []schedule.FailedCall{{Call: schedule.CallAttainments, Why: "Suotar did not answer in time."}}},
			want:   schedule.VerdictCannotTell,
			reason: []string{"The call for the student's attainments on the course failed (Suotar did not answer in time)", "Do not resubmit"},
		},
		{
			name: "VerifyFailedAndTheListShowsNothingCannotTell",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Code: "enrolmentFound",
				Failed: []schedule.FailedCall{{Call: schedule.CallVerify, Why: "Suotar answered 502"}}},
			want:   schedule.VerdictCannotTell,
			reason: []string{"The verify call for the submitted attainment failed (Suotar answered 502)"},
		},
		{
			name: "VerifyFailedButTheListShowsTheCredit",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30")},
				Failed: []schedule.FailedCall{{Call: schedule.CallVerify, Why: "Suotar answered 502"}}},
			want: schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"do not resubmit", "(The verify call for the submitted attainment failed (Suotar answered 502).)"},
		},
		{
			name: "VerifyFailedAndAnUnrelatedAttainmentCannotTell",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-old", "cu", "2", "2019-05-02", "2019-05-04")},
				Failed: []schedule.FailedCall{{Call: schedule.CallVerify, Why: "the answer left the id out"}}},
			want: schedule.VerdictCannotTell,
		},
		{
			name:   "BothCallsFailedNamesBoth",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Failed: []schedule.FailedCall{{Call: schedule.CallAttainments, Why: "timeout"}, {Call: schedule.CallVerify, Why: "timeout"}}},
			want:   schedule.VerdictCannotTell,
			reason: []string{"attainments on the course failed (timeout) and the verify call for the submitted attainment failed (timeout)"},
		},
		{
			name:   "VerifyPendingWithoutRetryAfterIsNeverSafe",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Code: "enrolmentFound", Verify: &schedule.VerifyEvidence{Code: "submissionPending"}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"did not say until when: do not resubmit"},
			absent: []string{"resubmitting is safe"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			s := tc.sub
			if s == (schedule.Submission{}) {
				s = base
			}
			at := tc.now
			if at.IsZero() {
				at = now
			}
			v := schedule.Judge(s, tc.lookup, at)
			if v.Kind != tc.want {
				t.Errorf("Kind = %s, want %s (reason: %s)", v.Kind, tc.want, v.Reason)
			}
			gotMatch := ""
			if v.Match != nil {
				gotMatch = v.Match.ID
			}
			if gotMatch != tc.match {
				t.Errorf("Match = %q, want %q", gotMatch, tc.match)
			}
			if tc.matches != nil && !slices.Equal(v.Matches, tc.matches) {
				t.Errorf("Matches = %v, want %v", v.Matches, tc.matches)
			}
			if v.Match != nil && !slices.Contains(v.Matches, v.Match.ID) {
				t.Errorf("Matches = %v lacks Match %s", v.Matches, v.Match.ID)
			}
			var gotConflicts []string
			for _, c := range v.Conflicts {
				gotConflicts = append(gotConflicts, c.AttainmentID)
				if len(c.Differences) == 0 {
					t.Errorf("conflict %s says no difference", c.AttainmentID)
				}
			}
			if !slices.Equal(gotConflicts, tc.conflicts) {
				t.Errorf("Conflicts = %v, want %v", gotConflicts, tc.conflicts)
			}
			if v.Reason == "" {
				t.Errorf("no reason given")
			}
			for _, phrase := range tc.reason {
				if !strings.Contains(v.Reason, phrase) {
					t.Errorf("reason lacks %q:\n%s", phrase, v.Reason)
				}
			}
			for _, phrase := range tc.absent {
				if strings.Contains(v.Reason, phrase) {
					t.Errorf("reason says %q:\n%s", phrase, v.Reason)
				}
			}
		})
	}
}

func TestJudgeOursById(t *testing.T) {
	t.Parallel()

	sub := schedule.Submission{GradeScaleID: "sis-0-5", GradeID: "4", AttainedAt: instant("2026-11-27T10:00:00Z"),
		SubmittedAt: instant("2026-11-29T04:00:00Z"), SubmittedAttainmentID: "hy-kur-ours"}
	v := schedule.Judge(sub, schedule.Lookup{
		Attainments: []schedule.SisuAttainment{
			att("hy-kur-ours", "ai", "4", "2026-11-27", "2026-11-29"),
			with(att("otm-built", "cu", "4", "2026-11-27", "2026-11-30"), func(a *schedule.SisuAttainment) {
				a.AssessmentItemAttainmentIDs = []string{"hy-kur-ours"}
			}),
			att("otm-verified", "cu", "4", "2026-11-27", "2026-11-30"),
			att("otm-stranger", "cu", "4", "2026-11-27", "2026-11-30"),
		},
		Verify: &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-verified", AttainmentType: schedule.AttainmentCourseUnit},
	}, time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC))
	if want := []string{"hy-kur-ours", "otm-built", "otm-verified"}; !slices.Equal(v.Ours, want) {
		t.Errorf("Ours = %v, want %v", v.Ours, want)
	}
}

func TestVerdictKindsHaveLabels(t *testing.T) {
	t.Parallel()

	want := map[schedule.VerdictKind]string{
		schedule.VerdictRegistered:       "Registered in Sisu",
		schedule.VerdictPartlyRegistered: "Only the assessment item",
		schedule.VerdictNotInSisu:        "Not in Sisu",
		schedule.VerdictConflicting:      "Conflicts",
		schedule.VerdictCannotTell:       "Cannot tell",
	}
	if got := len(schedule.VerdictKinds()); got != len(want) {
		t.Errorf("%d verdicts, want %d", got, len(want))
	}
	for k, label := range want {
		if got := k.Label(); got != label {
			t.Errorf("%s.Label() = %q, want %q", k, got, label)
		}
		if k.Explanation() == "" {
			t.Errorf("%s has no explanation", k)
		}
	}
	if schedule.VerdictKind("maybe").Valid() {
		t.Errorf("an unknown verdict is valid")
	}
}

func TestDates(t *testing.T) {
	t.Parallel()

	if got := civil("2026-12-31").AddDays(1); got != civil("2027-01-01") {
		t.Errorf("AddDays across the year = %s", got)
	}
	if got := civil("2028-03-01").AddDays(-1); got != civil("2028-02-29") {
		t.Errorf("AddDays back into a leap day = %s", got)
	}
	if got := civil("2026-03-30").DaysSince(civil("2026-03-28")); got != 2 {
		t.Errorf("DaysSince across the spring clock change = %d, want 2", got)
	}
	if got := schedule.HelsinkiDate(*instant("2026-03-28T22:00:00Z")); got != civil("2026-03-29") {
		t.Errorf("HelsinkiDate of winter midnight = %s, want 2026-03-29", got)
	}
	if got := schedule.HelsinkiDate(*instant("2026-10-24T20:59:59Z")); got != civil("2026-10-24") {
		t.Errorf("HelsinkiDate before summer midnight = %s, want 2026-10-24", got)
	}
	if !(schedule.Date{}).IsZero() || (schedule.Date{}).String() != "" {
		t.Errorf("the zero Date is not empty")
	}
	if got := schedule.NewDate(2026, 2, 30).String(); got != "2026-03-02" {
		t.Errorf("NewDate(2026, 2, 30) = %s, want it normalised to 2026-03-02", got)
	}
}
