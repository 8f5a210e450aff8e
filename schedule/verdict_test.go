package schedule_test

import (
	"fmt"
	"os"
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
			reason: []string{"why.holds.byDate(Attainment=[why.attainmentRegistered(Date=2026-11-27, Grade=4, ID=otm-cu,", "Type=[why.type.courseUnit]", "why.creditCounts"},
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
			reason: []string{"why.holdsOnly.byDate(Attainment=[why.attainmentRegistered(Date=2026-11-27, Grade=4, ID=hy-kur-1,", "Type=[why.type.assessmentItem]", "why.partlyNext"},
		},
		{
			name:   "NothingAtAll",
			lookup: schedule.Lookup{Code: "enrolmentFound"},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"why.nothingHeld", "why.pendingEnded("},
		},
		{
			// Without a submission time nobody knows when Suotar's pending window ends: the verdict
			// says so, and never that the window has passed.
			name:   "NothingAtAllSentAtAnUnknownTime",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = nil }),
			lookup: schedule.Lookup{Code: "enrolmentFound"},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"why.nothingHeld", "why.sentUnknown"},
			absent: []string{"why.pendingEnded", "why.lagging"},
		},
		{
			name:   "AnOldUnrelatedAttainmentIsNotThisSubmission",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-old", "cu", "2", "2019-05-02", "2019-05-04")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"why.noneDatedOrWindow(Days=2, Sent=2026-11-27, Window=[why.window.same(Day=2026-11-29)], n=1)"},
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
			reason:    []string{"why.conflicts(Diffs=[why.diff.grade(Got=3, Sent=4)], ID=otm-cu, Type=[why.type.courseUnit], n=1)", "why.checkFirst"},
		},
		{
			name: "FailedStateNeverMatches",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				with(att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30"), func(a *schedule.SisuAttainment) { a.State = "FAILED" })}},
			want: schedule.VerdictConflicting, conflicts: []string{"otm-cu"},
			reason: []string{"Diffs=[why.diff.failed]"},
		},
		{
			name: "OtherScaleConflicts",
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{
				with(att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30"), func(a *schedule.SisuAttainment) { a.GradeScaleID = "sis-hyl-hyv" })}},
			want: schedule.VerdictConflicting, conflicts: []string{"otm-cu"},
			reason: []string{"why.diff.scale(Got=sis-hyl-hyv, Sent=sis-0-5)"},
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
			reason: []string{"why.holds.byReg(", "Registered=2026-11-30, Submitted=, Window=[why.window.same(Day=2026-11-29)], n=2)", "why.dateMoved(Date=2026-09-01, Sent=2026-11-27)"},
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
			reason: []string{"why.alsoConflicts(n=1)"},
		},
		{
			name:   "NoGradeCannotTell",
			sub:    sub(func(s *schedule.Submission) { s.GradeID = "" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30")}},
			want:   schedule.VerdictCannotTell,
			reason: []string{"why.noPayload(Missing=[why.field.grade])"},
		},
		{
			name:   "NoAttainmentDateCannotTell",
			sub:    sub(func(s *schedule.Submission) { s.AttainedAt, s.GradeScaleID = nil, "" }),
			want:   schedule.VerdictCannotTell,
			reason: []string{"why.noPayload(Missing=[why.field.scale; why.field.date])"},
		},
		{
			name:   "UnknownPersonCannotTell",
			lookup: schedule.Lookup{Code: "personNotFound"},
			want:   schedule.VerdictCannotTell,
			reason: []string{"why.personNotFound"},
		},
		{
			name:   "UnknownCourseCodeCannotTell",
			lookup: schedule.Lookup{Code: "courseCodeNotFound"},
			want:   schedule.VerdictCannotTell,
			reason: []string{"why.courseNotFound"},
		},
		{
			name:   "OurAssessmentItemById",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("hy-kur-ours", "ai", "4", "2026-11-27", "2026-11-29")}},
			want:   schedule.VerdictPartlyRegistered, match: "hy-kur-ours",
			reason: []string{"why.holdsOnly.submitted(", "Submitted=hy-kur-ours)"},
		},
		{
			name: "OurAssessmentItemThatDiffersConflicts",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			// Its date and registration are far from the submission, yet it is ours by id.
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("hy-kur-ours", "ai", "3", "2026-10-01", "2026-10-02")}},
			want:   schedule.VerdictConflicting, conflicts: []string{"hy-kur-ours"},
			reason: []string{"why.diff.grade(Got=3, Sent=4)", "why.diff.dateWindow(Got=2026-10-01, Registered=2026-10-02, Sent=2026-11-27,"},
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
			reason: []string{"why.holds.builtFrom(", "Submitted=hy-kur-ours)"},
		},
		{
			name: "VerifyNamesTheCourseUnit",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{
				Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-12-01")},
				Verify:      &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-cu", AttainmentType: schedule.AttainmentCourseUnit}},
			want: schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"why.holds.verified(", "Submitted=hy-kur-ours)"},
		},
		{
			name: "VerifiedCourseUnitMissingFromTheList",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "registered", AttainmentID: "otm-cu", AttainmentType: schedule.AttainmentCourseUnit},
				Attainments: []schedule.SisuAttainment{att("hy-kur-ours", "ai", "4", "2026-11-27", "2026-11-29")}},
			want:   schedule.VerdictRegistered,
			reason: []string{"why.verifiedCourseUnit(ID=otm-cu, Submitted=hy-kur-ours)"},
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
			reason: []string{"why.verifiedItem(Submitted=hy-kur-ours, Type=[why.type.assessmentItem])"},
		},
		{
			name:   "VerifyMisregistered",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "misregistered"}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"why.verify.misregistered(Submitted=hy-kur-ours)"},
		},
		{
			name:   "VerifyPendingSaysWhenToResubmit",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Verify: &schedule.VerifyEvidence{Code: "submissionPending", RetryAfter: instant("2026-12-02T10:00:00Z")}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"why.verify.pendingUntil(Until=2026-12-02 12:00)"},
		},
		{
			name:   "TooRecentToTrustNotInSisu",
			now:    time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC),
			want:   schedule.VerdictNotInSisu,
			reason: []string{"why.lagging(Ago=3h0m0s, Until=2026-11-30 06:00)"},
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
			reason: []string{"why.noneDatedOrWindow(Days=2, Sent=2026-11-27,"},
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
			reason: []string{"why.noneDatedOrWindow(Days=2, Sent=2026-06-14,"},
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
			reason: []string{"why.holds.byReg(", "Registered=2026-11-29, Submitted=, Window=[why.window.split(Helsinki=2026-11-30, UTC=2026-11-29)], n=2)"},
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
			reason: []string{"why.noneDatedOrWindow(Days=2, Sent=2026-11-27, Window=[why.window.split(Helsinki=2026-11-30, UTC=2026-11-29)], n=1)"},
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
			reason: []string{"Window=[why.window.same(Day=2026-11-29)]"},
		},
		// Summer time: Helsinki is UTC+3.
		{
			name:   "SummerRegisteredOnTheUTCDayBeforeTheHelsinkiSubmissionDay",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAt = instant("2026-06-14T21:30:00Z") }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-03-01", "2026-06-14")}},
			want:   schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"Window=[why.window.split(Helsinki=2026-06-15, UTC=2026-06-14)], n=2)"},
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
			reason: []string{"why.holds.byReg(", "Window=[why.window.same(Day=2026-06-14)], n=2)", "why.dateMoved(Date=2026-03-01,"},
		},

		// A failed call is not an answer: "not in Sisu" needs every call that could show the credit.
		{
			name:   "AttainmentListFailedCannotTell",
			lookup: schedule.Lookup{Failed: []schedule.FailedCall{{Call: schedule.CallAttainments, Why: "Suotar did not answer in time."}}},
			want:   schedule.VerdictCannotTell,
			reason: []string{"why.cannotTellFailed(Failed=[why.failedCall(Call=[call.attainments], Why=[why.failure(x=Suotar did not answer in time.)])])"},
		},
		{
			name: "VerifyFailedAndTheListShowsNothingCannotTell",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Code: "enrolmentFound",
				Failed: []schedule.FailedCall{{Call: schedule.CallVerify, Why: "Suotar answered 502"}}},
			want:   schedule.VerdictCannotTell,
			reason: []string{"why.cannotTellFailed(Failed=[why.failedCall(Call=[call.verify], Why=[why.failure(x=Suotar answered 502)])])"},
		},
		{
			name: "VerifyFailedButTheListShowsTheCredit",
			sub:  sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Attainments: []schedule.SisuAttainment{att("otm-cu", "cu", "4", "2026-11-27", "2026-11-30")},
				Failed: []schedule.FailedCall{{Call: schedule.CallVerify, Why: "Suotar answered 502"}}},
			want: schedule.VerdictRegistered, match: "otm-cu",
			reason: []string{"why.creditCounts", "why.alsoFailed(Failed=[why.failedCall(Call=[call.verify], Why=[why.failure(x=Suotar answered 502)])])"},
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
			reason: []string{"why.cannotTellFailed(Failed=[why.failedCall(Call=[call.attainments], Why=[why.failure(x=timeout)]); why.failedCall(Call=[call.verify], Why=[why.failure(x=timeout)])])"},
		},
		{
			name:   "VerifyPendingWithoutRetryAfterIsNeverSafe",
			sub:    sub(func(s *schedule.Submission) { s.SubmittedAttainmentID = "hy-kur-ours" }),
			lookup: schedule.Lookup{Code: "enrolmentFound", Verify: &schedule.VerifyEvidence{Code: "submissionPending"}},
			want:   schedule.VerdictNotInSisu,
			reason: []string{"why.verify.pending"},
			absent: []string{"why.pendingEnded", "why.verify.pendingUntil"},
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
				t.Errorf("Kind = %s, want %s (says: %s)", v.Kind, tc.want, sayCodes(v.Say))
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
				if len(c.Say) == 0 {
					t.Errorf("conflict %s says no difference", c.AttainmentID)
				}
			}
			if !slices.Equal(gotConflicts, tc.conflicts) {
				t.Errorf("Conflicts = %v, want %v", gotConflicts, tc.conflicts)
			}
			said := sayCodes(v.Say)
			if len(v.Say) == 0 {
				t.Errorf("no reason given")
			}
			if os.Getenv("DUMP_SAY") != "" {
				fmt.Printf("CASE %s\n%s\n", tc.name, said)
			}
			for _, phrase := range tc.reason {
				if !strings.Contains(said, phrase) {
					t.Errorf("reason lacks %q:\n%s", phrase, said)
				}
			}
			for _, phrase := range tc.absent {
				if strings.Contains(said, phrase) {
					t.Errorf("reason says %q:\n%s", phrase, said)
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

func TestVerdictKinds(t *testing.T) {
	t.Parallel()

	want := []schedule.VerdictKind{schedule.VerdictRegistered, schedule.VerdictPartlyRegistered, schedule.VerdictNotInSisu,
		schedule.VerdictConflicting, schedule.VerdictCannotTell}
	if got := schedule.VerdictKinds(); !slices.Equal(got, want) {
		t.Errorf("VerdictKinds() = %v, want %v", got, want)
	}
	if schedule.VerdictKind("maybe").Valid() {
		t.Errorf("an unknown verdict is valid")
	}
}

// sayCodes writes phrases as their keys and values, one sentence a line, for the tests to pin
// what a verdict says without wording it: key(Name=value, …, Part=[phrase; phrase]). Instants are
// Helsinki time, spans Go durations.
func sayCodes(ps []schedule.Phrase) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = phraseCodes(p)
	}
	return strings.Join(out, "\n")
}

func phraseCodes(p schedule.Phrase) string {
	var vals []string
	for k, v := range p.Args {
		vals = append(vals, k+"="+v)
	}
	for k, v := range p.Dates {
		vals = append(vals, k+"="+v)
	}
	if p.Count != nil {
		vals = append(vals, fmt.Sprintf("n=%d", *p.Count))
	}
	for k, v := range p.Times {
		vals = append(vals, k+"="+v.In(schedule.Helsinki()).Format("2006-01-02 15:04"))
	}
	for k, v := range p.Spans {
		vals = append(vals, k+"="+(time.Duration(v)*time.Second).String())
	}
	for k, parts := range p.Parts {
		sub := make([]string, len(parts))
		for i, q := range parts {
			sub[i] = phraseCodes(q)
		}
		vals = append(vals, k+"=["+strings.Join(sub, "; ")+"]")
	}
	if p.Text != "" {
		vals = append(vals, "x="+p.Text)
	}
	slices.Sort(vals)
	if len(vals) == 0 {
		return p.Key
	}
	return p.Key + "(" + strings.Join(vals, ", ") + ")"
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
