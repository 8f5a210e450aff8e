package schedule_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
)

// clock renders instants the way the tests assert them: fixed, in UTC, with
// the weekday and date so a wrong day shows.
func clock(t time.Time) string { return t.UTC().Format("Mon Jan 2 15:04") }

// nextCodes writes a NextStep as its codes and times, for the tests to pin what happens next: the
// situation, the typical wait (late or not), the pipeline's step and when (a time, "due", or
// none), and whether support is alerted, is waited for, or will be alerted at a time. The words
// are the edge's (web's nextSentence and studentMessage, from the catalogue).
func nextCodes(n schedule.NextStep) string {
	var out []string
	if n.Situation != schedule.SituationNone {
		out = append(out, "situation="+string(n.Situation))
	}
	if n.StudentAction != "" {
		out = append(out, "student="+string(n.StudentAction))
	}
	if n.TypicalWait != schedule.TypicalWaitNone {
		w := "typical=" + string(n.TypicalWait)
		if n.Late {
			w += ",late"
		}
		out = append(out, w)
	}
	p := "pipeline=" + string(n.Pipeline)
	switch {
	case n.Pipeline == schedule.PipelineNone:
		p = "pipeline=none"
	case n.Due:
		p += "@due"
	case n.NextCheckAt != nil:
		p += "@" + clock(*n.NextCheckAt)
	}
	out = append(out, p)
	switch {
	case n.SupportAlerted:
		out = append(out, "support=alerted")
	case n.WaitsForSupport:
		out = append(out, "support=waited_for")
	case n.EscalatesAt != nil:
		out = append(out, "escalates@"+clock(*n.EscalatesAt))
	}
	return strings.Join(out, " ")
}

// summaryOf is a StudentSummary as the codes the copied message is worded from: the status, who
// it waits on, and nextCodes.
func summaryOf(s schedule.StudentSummary) string {
	return string(s.Status) + " waits_on=" + string(s.WaitsOn) + " " + nextCodes(s.Next)
}

// allMet is a pending row's preconditions when nothing holds it.
var allMet = schedule.Preconditions{CompletionEligible: true, HasVerifiedStudentNumber: true, CourseCodeAllowed: true}

func TestStudentStatusDescriptions(t *testing.T) {
	t.Parallel()

	checkDescribed(t, schedule.StudentStatuses(), schedule.ParseStudentStatus)
	checkDescribed(t, schedule.WaitsOns(), schedule.ParseWaitsOn)
	if got := schedule.WaitsOns()[0]; got != schedule.WaitsOnStudent {
		t.Errorf("WaitsOns()[0] = %q, want the student first, since they can act", got)
	}
}

// TestStudentViewPendingPreconditions maps every combination of the four
// preconditions of a pending row: the first unmet one, in the pipeline's
// order, decides.
func TestStudentViewPendingPreconditions(t *testing.T) {
	t.Parallel()

	type want struct {
		status   schedule.StudentStatus
		waitsOn  schedule.WaitsOn
		action   schedule.StudentAction
		sentence string
	}
	removed := want{schedule.StudentNotRegistering, schedule.WaitsOnNobody, "",
		"situation=completion_deleted pipeline=none"}
	notEligible := want{schedule.StudentWaitingForCompletion, schedule.WaitsOnStudent, schedule.StudentActionCompleteCourse,
		"situation=completion_not_eligible student=complete_course pipeline=resumes_by_itself"}
	noNumber := want{schedule.StudentNeedsStudentNumber, schedule.WaitsOnStudent, schedule.StudentActionLinkStudentNumber,
		"situation=needs_student_number student=link_student_number pipeline=resumes_by_itself"}
	held := want{schedule.StudentHeldForCourseSetup, schedule.WaitsOnCourseSetup, "",
		"situation=course_code_rejected pipeline=resumes_by_itself"}
	ready := want{schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, "",
		"pipeline=look_up_enrolment@Mon Mar 2 09:05"}

	seen := 0
	for _, deleted := range []bool{false, true} {
		for _, eligible := range []bool{false, true} {
			for _, number := range []bool{false, true} {
				for _, allowed := range []bool{false, true} {
					pre := schedule.Preconditions{CompletionDeleted: deleted, CompletionEligible: eligible,
						HasVerifiedStudentNumber: number, CourseCodeAllowed: allowed}
					var w want
					switch {
					case deleted:
						w = removed
					case !eligible:
						w = notEligible
					case !number:
						w = noNumber
					case !allowed:
						w = held
					default:
						w = ready
					}
					seen++
					t.Run(fmt.Sprintf("deleted=%v,eligible=%v,number=%v,allowed=%v", deleted, eligible, number, allowed), func(t *testing.T) {
						t.Parallel()

						s := schedule.StudentView(row(schedule.StatePending), pre, t0)
						if s.Status != w.status || s.WaitsOn != w.waitsOn || s.Next.StudentAction != w.action {
							t.Errorf("StudentView = %q, waits on %q, action %q; want %q, %q, %q",
								s.Status, s.WaitsOn, s.Next.StudentAction, w.status, w.waitsOn, w.action)
						}
						if got := nextCodes(s.Next); got != w.sentence {
							t.Errorf("NextStep:\n got %q\nwant %q", got, w.sentence)
						}
						// The progress facts are not preconditions: they never
						// change a pending row's answer.
						pre.EnrolmentResolved, pre.Submitted = true, true
						again := schedule.StudentView(row(schedule.StatePending), pre, t0)
						if again.Status != s.Status || again.WaitsOn != s.WaitsOn || nextCodes(again.Next) != w.sentence {
							t.Errorf("with progress facts set: %q, %q, %q; want %q, %q, %q",
								again.Status, again.WaitsOn, nextCodes(again.Next), s.Status, s.WaitsOn, w.sentence)
						}
					})
				}
			}
		}
	}
	if seen != 16 {
		t.Fatalf("covered %d combinations, want 16", seen)
	}
}

// TestStudentViewEveryState maps every ledger state, and the facts that
// change the answer within a state, to the student-facing status, who it
// waits on and the exact next-step sentence.
func TestStudentViewEveryState(t *testing.T) {
	t.Parallel()

	resolved := schedule.Preconditions{EnrolmentResolved: true}
	submitted := schedule.Preconditions{EnrolmentResolved: true, Submitted: true}
	tests := []struct {
		name     string
		row      schedule.Row
		pre      schedule.Preconditions
		status   schedule.StudentStatus
		waitsOn  schedule.WaitsOn
		pipeline schedule.PipelineStep
		sentence string
	}{
		{"pending, all met", row(schedule.StatePending), allMet,
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookUpEnrolment,
			"pipeline=look_up_enrolment@Mon Mar 2 09:05"},
		{"pending, flagged", row(schedule.StatePending, flagged), schedule.Preconditions{CompletionEligible: true},
			schedule.StudentNeedsStudentNumber, schedule.WaitsOnSupport, schedule.PipelineResumesByItself,
			"situation=needs_student_number student=link_student_number pipeline=resumes_by_itself support=alerted"},
		{"pending, completion removed, setup code", row(schedule.StatePending, code(schedule.ErrorMissingUHCourseCode), flagged), schedule.Preconditions{CompletionDeleted: true},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineNone,
			"situation=completion_deleted pipeline=none"},
		{"pending, setup code", row(schedule.StatePending, code(schedule.ErrorMissingUHCourseCode)), schedule.Preconditions{},
			schedule.StudentWaitingForCompletion, schedule.WaitsOnCourseSetup, schedule.PipelineResumesByItself,
			"situation=course_code_missing pipeline=resumes_by_itself"},
		{"ready_to_submit", row(schedule.StateReadyToSubmit), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookUpEnrolment,
			"pipeline=look_up_enrolment@Mon Mar 2 09:05"},
		{"ready_to_submit, due", row(schedule.StateReadyToSubmit, nextAttempt(t0.Add(-time.Minute))), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookUpEnrolment,
			"pipeline=look_up_enrolment@due"},
		{"resolving_enrolment", row(schedule.StateResolvingEnrolment, enteredAgo(5*time.Minute)), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookingUpEnrolment,
			"pipeline=looking_up_enrolment escalates@Mon Mar 2 09:25"},
		{"checking_enrolment", row(schedule.StateCheckingEnrolment), resolved,
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineSend,
			"situation=enrolment_found pipeline=send@Mon Mar 2 09:05"},
		{"no_usable_enrolment, not checked yet", row(schedule.StateNoUsableEnrolment, nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"situation=enrolment_unchecked student=enrol pipeline=check_enrolment@Tue Mar 3 09:00"},
		{"no_usable_enrolment, not enrolled", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"situation=not_enrolled student=enrol pipeline=check_enrolment@Tue Mar 3 09:00"},
		{"no_usable_enrolment, not accepted", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotAccepted), nextAttempt(t0.Add(-time.Second))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"situation=enrolment_not_accepted student=check_enrolment pipeline=check_enrolment@due"},
		{"no_usable_enrolment, study right", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorStudyRightNotValid), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"situation=study_right_not_valid student=fix_study_right pipeline=check_enrolment@Tue Mar 3 09:00"},
		{"no_usable_enrolment, checks stopped", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(schedule.Never)), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"situation=not_enrolled student=enrol pipeline=check_enrolment"},
		{"no_usable_enrolment, credits do not fit", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorInvalidCredits), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnCourseSetup, schedule.PipelineCheckEnrolment,
			"situation=credits_do_not_fit pipeline=check_enrolment@Tue Mar 3 09:00"},
		{"submitting", row(schedule.StateSubmitting, submittedAgo(10*time.Minute), nextAttempt(schedule.Never)), resolved,
			schedule.StudentSending, schedule.WaitsOnSisu, schedule.PipelineSending,
			"pipeline=sending escalates@Mon Mar 2 10:05"},
		{"submission_uncertain", row(schedule.StateSubmissionUncertain, submittedAgo(2*time.Hour), nextAttempt(t0.Add(15*time.Minute))), resolved,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"situation=answer_unclear pipeline=check_sisu@Mon Mar 2 09:15 escalates@Tue Mar 3 07:00"},
		{"submission_uncertain, a day old", row(schedule.StateSubmissionUncertain, submittedAgo(30*time.Hour), nextAttempt(t0.Add(15*time.Minute))), resolved,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSupport, schedule.PipelineCheckSisu,
			"situation=answer_unclear pipeline=check_sisu@Mon Mar 2 09:15 support=alerted"},
		{"awaiting_verification", row(schedule.StateAwaitingVerification, submittedAgo(6*time.Hour), nextAttempt(t0.Add(30*time.Minute))), submitted,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"typical=sisu_confirms_within_a_day pipeline=check_sisu@Mon Mar 2 09:30 escalates@Mon Mar 16 03:00"},
		{"awaiting_verification, late", row(schedule.StateAwaitingVerification, submittedAgo(2*day), nextAttempt(t0.Add(3*time.Hour))), submitted,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"typical=sisu_confirms_within_a_day,late pipeline=check_sisu@Mon Mar 2 12:00 escalates@Sat Mar 14 09:00"},
		{"awaiting_verification, past 14 days", row(schedule.StateAwaitingVerification, submittedAgo(15*day), nextAttempt(t0.Add(day))), submitted,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSupport, schedule.PipelineCheckSisu,
			"typical=sisu_confirms_within_a_day,late pipeline=check_sisu@Tue Mar 3 09:00 support=alerted"},
		{"partially_registered", row(schedule.StatePartiallyRegistered, submittedAgo(20*time.Hour), partialAgo(time.Hour), nextAttempt(t0.Add(time.Hour))), submitted,
			schedule.StudentPartlyRegistered, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"situation=partly_registered pipeline=check_sisu@Mon Mar 2 10:00 escalates@Thu Mar 5 08:00"},
		{"partially_registered, 3 days", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day), nextAttempt(t0.Add(time.Hour))), submitted,
			schedule.StudentPartlyRegistered, schedule.WaitsOnSupport, schedule.PipelineCheckSisu,
			"situation=partly_registered pipeline=check_sisu@Mon Mar 2 10:00 support=alerted"},
		{"registered", row(schedule.StateRegistered), submitted,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"situation=registered pipeline=done"},
		{"duplicate", row(schedule.StateDuplicate), resolved,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"situation=already_in_sisu pipeline=done"},
		{"not_improved", row(schedule.StateNotImproved), resolved,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"situation=better_grade_in_sisu pipeline=done"},
		{"misregistered", row(schedule.StateMisregistered, code(schedule.ErrorMisregistered), flagged), submitted,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"situation=reversed pipeline=waits_for_support support=alerted"},
		{"misregistered, dismissed", row(schedule.StateMisregistered, code(schedule.ErrorMisregistered), dismissed(schedule.ReasonMisregistered)), submitted,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"situation=reversed pipeline=waits_for_support support=waited_for"},
		{"failed_retryable, no enrolment yet", row(schedule.StateFailedRetryable, code(schedule.ErrorTransportError), firstFailedAgo(time.Hour), nextAttempt(t0.Add(8*time.Minute))), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookUpEnrolment,
			"situation=temporary_problem pipeline=look_up_enrolment@Mon Mar 2 09:08 escalates@Mon Mar 9 08:00"},
		{"failed_retryable, enrolment found", row(schedule.StateFailedRetryable, code(schedule.ErrorServiceTemporarilyUnavailable), firstFailedAgo(time.Hour), nextAttempt(t0.Add(8*time.Minute))), resolved,
			schedule.StudentSending, schedule.WaitsOnSisu, schedule.PipelineSend,
			"situation=temporary_problem pipeline=send@Mon Mar 2 09:08 escalates@Mon Mar 9 08:00"},
		{"failed_retryable, sent", row(schedule.StateFailedRetryable, code(schedule.ErrorUnexpectedResponse), firstFailedAgo(time.Hour), nextAttempt(t0.Add(8*time.Minute))), submitted,
			schedule.StudentSending, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"situation=temporary_problem pipeline=check_sisu@Mon Mar 2 09:08 escalates@Mon Mar 9 08:00"},
		// Past its retry window the row is not on the LMS's queue until the sweep codes it
		// retry_window_expired (a note says so); it waits on the pipeline's next look till then.
		{"failed_retryable, window over", row(schedule.StateFailedRetryable, code(schedule.ErrorTransportError), firstFailedAgo(8*day), nextAttempt(t0.Add(-time.Minute))), resolved,
			schedule.StudentSending, schedule.WaitsOnSisu, schedule.PipelineSend,
			"situation=temporary_problem pipeline=send@due"},
		{"failed_permanent, window expired", row(schedule.StateFailedPermanent, code(schedule.ErrorRetryWindowExpired), flagged, terminal, firstFailedAgo(8*day)), resolved,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"situation=retried_for_a_week pipeline=waits_for_support support=alerted"},
		{"failed_permanent, course setup", row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnCourseSetup, schedule.PipelineWaitsForSetupFix,
			"situation=course_not_allowed pipeline=waits_for_setup_fix"},
		{"failed_permanent, grade", row(schedule.StateFailedPermanent, code(schedule.ErrorNoGradeScaleMapping), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnCourseSetup, schedule.PipelineWaitsForSetupFix,
			"situation=grade_does_not_fit pipeline=waits_for_setup_fix"},
		{"failed_permanent, retried a week", row(schedule.StateFailedPermanent, code(schedule.ErrorRetryWindowExpired), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"situation=retried_for_a_week pipeline=waits_for_support support=alerted"},
		{"failed_permanent, rejected", row(schedule.StateFailedPermanent, code(schedule.ErrorSisuValidationFailed), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"situation=rejected_by_sisu pipeline=waits_for_support support=alerted"},
		{"failed_permanent, unknown", row(schedule.StateFailedPermanent, code(schedule.ErrorUnknown), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"situation=gave_up pipeline=waits_for_support support=alerted"},
		{"blocked", row(schedule.StateBlocked), schedule.Preconditions{},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineResumesByItself,
			"situation=no_longer_eligible pipeline=resumes_by_itself"},
		{"cancelled", row(schedule.StateCancelled), schedule.Preconditions{},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineDone,
			"situation=cancelled pipeline=done"},
		{"cancelled with a stale setup code", row(schedule.StateCancelled, code(schedule.ErrorMissingUHCourseCode)), schedule.Preconditions{},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineDone,
			"situation=cancelled pipeline=done"},
		{"superseded", row(schedule.StateRegistered, superseded), submitted,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"situation=replaced pipeline=done"},
	}
	covered := map[schedule.State]bool{}
	for _, tc := range tests {
		covered[tc.row.State] = true
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			s := schedule.StudentView(tc.row, tc.pre, t0)
			if s.Status != tc.status || s.WaitsOn != tc.waitsOn || s.Next.Pipeline != tc.pipeline {
				t.Errorf("StudentView = %q, waits on %q, pipeline %q; want %q, %q, %q",
					s.Status, s.WaitsOn, s.Next.Pipeline, tc.status, tc.waitsOn, tc.pipeline)
			}
			if got := nextCodes(s.Next); got != tc.sentence {
				t.Errorf("NextStep:\n got %q\nwant %q", got, tc.sentence)
			}
			if got := schedule.StudentStatusOf(tc.row, tc.pre); got != s.Status {
				t.Errorf("StudentStatusOf = %q, StudentView says %q", got, s.Status)
			}
		})
	}
	for _, state := range schedule.States() {
		if !covered[state] {
			t.Errorf("no case for state %q", state)
		}
	}
}

// TestStudentViewUnknownState keeps a state added to the database before
// this package learns it visible as itself, with support to ask.
func TestStudentViewUnknownState(t *testing.T) {
	t.Parallel()

	s := schedule.StudentView(row("frozen"), allMet, t0)
	if s.Status != "frozen" || s.WaitsOn != schedule.WaitsOnSupport || s.Next.Pipeline != schedule.PipelineNone {
		t.Errorf("StudentView(frozen) = %q, %q, %q; want frozen, support, none", s.Status, s.WaitsOn, s.Next.Pipeline)
	}
	if got := nextCodes(s.Next); got != "pipeline=none support=waited_for" {
		t.Errorf("NextStep:\n got %q\nwant %q", got, "pipeline=none support=waited_for")
	}
}

func TestStudentMessage(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		row  schedule.Row
		pre  schedule.Preconditions
		want string
	}{
		{"needs student number", row(schedule.StatePending), schedule.Preconditions{CompletionEligible: true},
			"needs_student_number waits_on=student situation=needs_student_number student=link_student_number pipeline=resumes_by_itself"},
		{"waiting for completion", row(schedule.StatePending), schedule.Preconditions{},
			"waiting_for_completion waits_on=student situation=completion_not_eligible student=complete_course pipeline=resumes_by_itself"},
		{"held for course setup", row(schedule.StatePending), schedule.Preconditions{CompletionEligible: true, HasVerifiedStudentNumber: true},
			"held_for_course_setup waits_on=course_setup situation=course_code_rejected pipeline=resumes_by_itself"},
		{"looking for enrolment", row(schedule.StateReadyToSubmit), schedule.Preconditions{},
			"looking_for_enrolment waits_on=sisu pipeline=look_up_enrolment@Mon Mar 2 09:05"},
		{"not enrolled", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			"needs_enrolment waits_on=student situation=not_enrolled student=enrol pipeline=check_enrolment@Tue Mar 3 09:00"},
		{"not checked yet, due", row(schedule.StateNoUsableEnrolment, nextAttempt(t0)), schedule.Preconditions{},
			"needs_enrolment waits_on=student situation=enrolment_unchecked student=enrol pipeline=check_enrolment@due"},
		{"checks stopped", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(schedule.Never)), schedule.Preconditions{},
			"needs_enrolment waits_on=student situation=not_enrolled student=enrol pipeline=check_enrolment"},
		{"waiting for Sisu", row(schedule.StateAwaitingVerification, submittedAgo(6*time.Hour)), schedule.Preconditions{Submitted: true},
			"waiting_for_sisu waits_on=sisu typical=sisu_confirms_within_a_day pipeline=check_sisu@Mon Mar 2 09:05 escalates@Mon Mar 16 03:00"},
		{"waiting for Sisu, past 14 days", row(schedule.StateAwaitingVerification, submittedAgo(15*day)), schedule.Preconditions{Submitted: true},
			"waiting_for_sisu waits_on=support typical=sisu_confirms_within_a_day,late pipeline=check_sisu@Mon Mar 2 09:05 support=alerted"},
		{"partly registered", row(schedule.StatePartiallyRegistered, submittedAgo(20*time.Hour), partialAgo(time.Hour)), schedule.Preconditions{Submitted: true},
			"partly_registered waits_on=sisu situation=partly_registered pipeline=check_sisu@Mon Mar 2 09:05 escalates@Thu Mar 5 08:00"},
		{"registered", row(schedule.StateRegistered), schedule.Preconditions{},
			"registered waits_on=nobody situation=registered pipeline=done"},
		{"better grade", row(schedule.StateNotImproved), schedule.Preconditions{},
			"registered waits_on=nobody situation=better_grade_in_sisu pipeline=done"},
		{"failed", row(schedule.StateFailedPermanent, code(schedule.ErrorUnknown), flagged), schedule.Preconditions{},
			"failed waits_on=support situation=gave_up pipeline=waits_for_support support=alerted"},
		{"course setup", row(schedule.StateFailedPermanent, code(schedule.ErrorMissingECTSCredits), flagged), schedule.Preconditions{},
			"failed waits_on=course_setup situation=credits_missing pipeline=waits_for_setup_fix"},
		{"not registering", row(schedule.StateBlocked), schedule.Preconditions{},
			"not_registering waits_on=nobody situation=no_longer_eligible pipeline=resumes_by_itself"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := summaryOf(schedule.StudentView(tc.row, tc.pre, t0))
			if got != tc.want {
				t.Errorf("Message:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestStudentViewWords holds for any row at all: the answer is one of the
// known values, the texts are never empty, and no internal name (they all
// have an underscore, or are plain words such as "registered") leaks into
// words meant for a teacher or a student.
func TestStudentViewWords(t *testing.T) {
	t.Parallel()

	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 20000 {
		r, now := randomRow(rng)
		pre := schedule.Preconditions{
			CompletionDeleted: rng.IntN(4) == 0, CompletionEligible: rng.IntN(2) == 0,
			HasVerifiedStudentNumber: rng.IntN(2) == 0, CourseCodeAllowed: rng.IntN(2) == 0,
			EnrolmentResolved: rng.IntN(2) == 0, Submitted: rng.IntN(2) == 0,
		}
		s := schedule.StudentView(r, pre, now)
		if !s.Status.Valid() || !s.WaitsOn.Valid() || s.Next.Situation == schedule.SituationNone && s.Next.Pipeline == schedule.PipelineNone {
			t.Fatalf("row %d %+v %+v: status %q, waits on %q, next %s: nothing for the edge to say", i, r, pre, s.Status, s.WaitsOn, nextCodes(s.Next))
		}
		if (s.Next.SupportAlerted || s.Next.WaitsForSupport) && s.Next.EscalatesAt != nil {
			t.Fatalf("row %d %+v: waits for support and escalates at %v", i, r, s.Next.EscalatesAt)
		}
		if s.Next.SupportAlerted != (s.WaitsOn == schedule.WaitsOnSupport && s.Classified.NeedsAdmin) {
			t.Fatalf("row %d %+v: SupportAlerted = %v with waits on %q, NeedsAdmin %v", i, r, s.Next.SupportAlerted, s.WaitsOn, s.Classified.NeedsAdmin)
		}
		if s.Next.EscalatesAt != nil && !s.Next.EscalatesAt.After(now) {
			t.Fatalf("row %d %+v: escalates at %v, not after now %v", i, r, s.Next.EscalatesAt, now)
		}
		// An uncertain row on the queue before it escalates waits on Sisu: the pipeline's checks
		// usually settle it first.
		freshUncertain := slices.Equal(s.Classified.Reasons.List(), []schedule.Reason{schedule.ReasonOutcomeUncertain}) &&
			!s.Classified.Notes.Has(schedule.NoteUncertainOverdue) && !s.Classified.Notes.Has(schedule.NoteSubmissionTimeMissing)
		if freshUncertain && s.WaitsOn == schedule.WaitsOnSupport {
			t.Fatalf("row %d %+v: an uncertain row the pipeline has not escalated waits on support", i, r)
		}
		if s.Classified.NeedsAdmin && !r.Superseded && !freshUncertain && s.WaitsOn != schedule.WaitsOnSupport &&
			s.WaitsOn != schedule.WaitsOnCourseSetup && s.WaitsOn != schedule.WaitsOnNobody {
			t.Fatalf("row %d %+v: needs an admin but waits on %q", i, r, s.WaitsOn)
		}
	}
}

func TestOnlyRegisteredAndNotRegisteringAreFinished(t *testing.T) {
	t.Parallel()
	for _, s := range schedule.StudentStatuses() {
		want := s == schedule.StudentRegistered || s == schedule.StudentNotRegistering
		if got := s.Finished(); got != want {
			t.Errorf("%s.Finished() = %v, want %v", s, got, want)
		}
	}
}
