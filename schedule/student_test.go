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

// allMet is a pending row's preconditions when nothing holds it.
var allMet = schedule.Preconditions{CompletionEligible: true, HasVerifiedStudentNumber: true, CourseCodeAllowed: true}

func TestStudentStatusDescriptions(t *testing.T) {
	t.Parallel()

	checkDescribed(t, schedule.StudentStatuses(), schedule.ParseStudentStatus)
	checkDescribed(t, schedule.WaitsOns(), schedule.ParseWaitsOn)
	if got, want := schedule.StudentPartlyRegistered.Explanation(), "Sisu shows the course's part; the final credit is on its way."; got != want {
		t.Errorf("StudentPartlyRegistered.Explanation() = %q, want %q", got, want)
	}
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
		"The completion was removed, so this registration will be cancelled."}
	notEligible := want{schedule.StudentWaitingForCompletion, schedule.WaitsOnStudent, schedule.StudentActionCompleteCourse,
		"The completion is not eligible for credits yet (the course may be unfinished, a prerequisite missing or the completion waiting for review); once that is sorted out, the registration continues by itself."}
	noNumber := want{schedule.StudentNeedsStudentNumber, schedule.WaitsOnStudent, schedule.StudentActionLinkStudentNumber,
		"The student needs to link their University of Helsinki student number to their account; once that is sorted out, the registration continues by itself."}
	held := want{schedule.StudentHeldForCourseSetup, schedule.WaitsOnCourseSetup, "",
		"Sisu does not accept the module's course code, so the registration is on hold; once that is sorted out, the registration continues by itself."}
	ready := want{schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, "",
		"The registration pipeline looks up the student's enrolment in Sisu at Mon Mar 2 09:05."}

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
						if got := s.Next.Sentence(clock); got != w.sentence {
							t.Errorf("Sentence:\n got %q\nwant %q", got, w.sentence)
						}
						// The progress facts are not preconditions: they never
						// change a pending row's answer.
						pre.EnrolmentResolved, pre.Submitted = true, true
						again := schedule.StudentView(row(schedule.StatePending), pre, t0)
						if again.Status != s.Status || again.WaitsOn != s.WaitsOn || again.Next.Sentence(clock) != w.sentence {
							t.Errorf("with progress facts set: %q, %q, %q; want %q, %q, %q",
								again.Status, again.WaitsOn, again.Next.Sentence(clock), s.Status, s.WaitsOn, w.sentence)
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
			"The registration pipeline looks up the student's enrolment in Sisu at Mon Mar 2 09:05."},
		{"pending, flagged", row(schedule.StatePending, flagged), schedule.Preconditions{CompletionEligible: true},
			schedule.StudentNeedsStudentNumber, schedule.WaitsOnSupport, schedule.PipelineResumesByItself,
			"The student needs to link their University of Helsinki student number to their account; once that is sorted out, the registration continues by itself; support has been alerted."},
		{"pending, completion removed, setup code", row(schedule.StatePending, code(schedule.ErrorMissingUHCourseCode), flagged), schedule.Preconditions{CompletionDeleted: true},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineNone,
			"The completion was removed, so this registration will be cancelled."},
		{"pending, setup code", row(schedule.StatePending, code(schedule.ErrorMissingUHCourseCode)), schedule.Preconditions{},
			schedule.StudentWaitingForCompletion, schedule.WaitsOnCourseSetup, schedule.PipelineResumesByItself,
			"The module has no course code set; once that is sorted out, the registration continues by itself."},
		{"ready_to_submit", row(schedule.StateReadyToSubmit), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookUpEnrolment,
			"The registration pipeline looks up the student's enrolment in Sisu at Mon Mar 2 09:05."},
		{"ready_to_submit, due", row(schedule.StateReadyToSubmit, nextAttempt(t0.Add(-time.Minute))), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookUpEnrolment,
			"The registration pipeline looks up the student's enrolment in Sisu shortly."},
		{"resolving_enrolment", row(schedule.StateResolvingEnrolment, enteredAgo(5*time.Minute)), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookingUpEnrolment,
			"The registration pipeline is looking up the student's enrolment in Sisu right now; if nothing has happened by Mon Mar 2 09:25, support is alerted."},
		{"checking_enrolment", row(schedule.StateCheckingEnrolment), resolved,
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineSend,
			"The student's enrolment has been found; the registration pipeline sends the credit to Sisu at Mon Mar 2 09:05."},
		{"no_usable_enrolment, not checked yet", row(schedule.StateNoUsableEnrolment, nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"If the student has not enrolled on the course in Sisu yet, they need to; the registration pipeline checks Sisu for an enrolment at Tue Mar 3 09:00."},
		{"no_usable_enrolment, not enrolled", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"Sisu has no enrolment of the student on the course, so they need to enrol; the registration pipeline checks Sisu for an enrolment at Tue Mar 3 09:00."},
		{"no_usable_enrolment, not accepted", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotAccepted), nextAttempt(t0.Add(-time.Second))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"The student's enrolment in Sisu has not been accepted yet; the registration pipeline checks Sisu for an enrolment shortly."},
		{"no_usable_enrolment, study right", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorStudyRightNotValid), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"Sisu says the student's study right does not cover this credit, so they need to sort it out with student services; the registration pipeline checks Sisu for an enrolment at Tue Mar 3 09:00."},
		{"no_usable_enrolment, checks stopped", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(schedule.Never)), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnStudent, schedule.PipelineCheckEnrolment,
			"Sisu has no enrolment of the student on the course, so they need to enrol; the registration pipeline no longer checks on a schedule, but checks again when the student says they have enrolled."},
		{"no_usable_enrolment, credits do not fit", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorInvalidCredits), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			schedule.StudentNeedsEnrolment, schedule.WaitsOnCourseSetup, schedule.PipelineCheckEnrolment,
			"Sisu does not accept the module's credits for this course or enrolment; the registration pipeline checks Sisu for an enrolment at Tue Mar 3 09:00."},
		{"submitting", row(schedule.StateSubmitting, submittedAgo(10*time.Minute), nextAttempt(schedule.Never)), resolved,
			schedule.StudentSending, schedule.WaitsOnSisu, schedule.PipelineSending,
			"The registration pipeline is sending the credit to Sisu right now; if nothing has happened by Mon Mar 2 10:05, support is alerted."},
		{"submission_uncertain", row(schedule.StateSubmissionUncertain, submittedAgo(2*time.Hour), nextAttempt(t0.Add(15*time.Minute))), resolved,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"It is not yet clear whether Sisu received the credit; the registration pipeline checks Sisu again at Mon Mar 2 09:15; if nothing has happened by Tue Mar 3 07:00, support is alerted."},
		{"submission_uncertain, a day old", row(schedule.StateSubmissionUncertain, submittedAgo(30*time.Hour), nextAttempt(t0.Add(15*time.Minute))), resolved,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSupport, schedule.PipelineCheckSisu,
			"It is not yet clear whether Sisu received the credit; the registration pipeline checks Sisu again at Mon Mar 2 09:15; support has been alerted."},
		{"awaiting_verification", row(schedule.StateAwaitingVerification, submittedAgo(6*time.Hour), nextAttempt(t0.Add(30*time.Minute))), submitted,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"Sisu usually confirms within a day; the registration pipeline checks Sisu again at Mon Mar 2 09:30; if nothing has happened by Mon Mar 16 03:00, support is alerted."},
		{"awaiting_verification, late", row(schedule.StateAwaitingVerification, submittedAgo(2*day), nextAttempt(t0.Add(3*time.Hour))), submitted,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"Sisu usually confirms within a day, but this one is taking longer; the registration pipeline checks Sisu again at Mon Mar 2 12:00; if nothing has happened by Sat Mar 14 09:00, support is alerted."},
		{"awaiting_verification, past 14 days", row(schedule.StateAwaitingVerification, submittedAgo(15*day), nextAttempt(t0.Add(day))), submitted,
			schedule.StudentWaitingForSisu, schedule.WaitsOnSupport, schedule.PipelineCheckSisu,
			"Sisu usually confirms within a day, but this one is taking longer; the registration pipeline checks Sisu again at Tue Mar 3 09:00; support has been alerted."},
		{"partially_registered", row(schedule.StatePartiallyRegistered, submittedAgo(20*time.Hour), partialAgo(time.Hour), nextAttempt(t0.Add(time.Hour))), submitted,
			schedule.StudentPartlyRegistered, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"Sisu shows the course's part; the final credit is on its way; the registration pipeline checks Sisu again at Mon Mar 2 10:00; if nothing has happened by Thu Mar 5 08:00, support is alerted."},
		{"partially_registered, 3 days", row(schedule.StatePartiallyRegistered, submittedAgo(4*day), partialAgo(3*day), nextAttempt(t0.Add(time.Hour))), submitted,
			schedule.StudentPartlyRegistered, schedule.WaitsOnSupport, schedule.PipelineCheckSisu,
			"Sisu shows the course's part; the final credit is on its way; the registration pipeline checks Sisu again at Mon Mar 2 10:00; support has been alerted."},
		{"registered", row(schedule.StateRegistered), submitted,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"The credit is in Sisu; nothing more needs to happen."},
		{"duplicate", row(schedule.StateDuplicate), resolved,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"Sisu already had this credit; nothing more needs to happen."},
		{"not_improved", row(schedule.StateNotImproved), resolved,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"Sisu already holds an equal or better grade for this course, so this grade was not registered; nothing more needs to happen."},
		{"misregistered", row(schedule.StateMisregistered, code(schedule.ErrorMisregistered), flagged), submitted,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"Sisu reversed the registration; the registration pipeline will not try again by itself; support has been alerted."},
		{"misregistered, dismissed", row(schedule.StateMisregistered, code(schedule.ErrorMisregistered), dismissed(schedule.ReasonMisregistered)), submitted,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"Sisu reversed the registration; the registration pipeline will not try again by itself; it waits for support."},
		{"failed_retryable, no enrolment yet", row(schedule.StateFailedRetryable, code(schedule.ErrorTransportError), firstFailedAgo(time.Hour), nextAttempt(t0.Add(8*time.Minute))), schedule.Preconditions{},
			schedule.StudentLookingForEnrolment, schedule.WaitsOnSisu, schedule.PipelineLookUpEnrolment,
			"A temporary problem interrupted the registration; the registration pipeline looks up the student's enrolment in Sisu at Mon Mar 2 09:08; if nothing has happened by Mon Mar 9 08:00, support is alerted."},
		{"failed_retryable, enrolment found", row(schedule.StateFailedRetryable, code(schedule.ErrorServiceTemporarilyUnavailable), firstFailedAgo(time.Hour), nextAttempt(t0.Add(8*time.Minute))), resolved,
			schedule.StudentSending, schedule.WaitsOnSisu, schedule.PipelineSend,
			"A temporary problem interrupted the registration; the registration pipeline sends the credit to Sisu at Mon Mar 2 09:08; if nothing has happened by Mon Mar 9 08:00, support is alerted."},
		{"failed_retryable, sent", row(schedule.StateFailedRetryable, code(schedule.ErrorUnexpectedResponse), firstFailedAgo(time.Hour), nextAttempt(t0.Add(8*time.Minute))), submitted,
			schedule.StudentSending, schedule.WaitsOnSisu, schedule.PipelineCheckSisu,
			"A temporary problem interrupted the registration; the registration pipeline checks Sisu again at Mon Mar 2 09:08; if nothing has happened by Mon Mar 9 08:00, support is alerted."},
		{"failed_retryable, window over", row(schedule.StateFailedRetryable, code(schedule.ErrorTransportError), firstFailedAgo(8*day), nextAttempt(t0.Add(-time.Minute))), resolved,
			schedule.StudentSending, schedule.WaitsOnSupport, schedule.PipelineSend,
			"A temporary problem interrupted the registration; the registration pipeline sends the credit to Sisu shortly; support has been alerted."},
		{"failed_permanent, course setup", row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnCourseSetup, schedule.PipelineWaitsForSetupFix,
			"Sisu does not accept registrations for the module's course code; once the course setup is fixed, support can send the registration again."},
		{"failed_permanent, grade", row(schedule.StateFailedPermanent, code(schedule.ErrorNoGradeScaleMapping), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnCourseSetup, schedule.PipelineWaitsForSetupFix,
			"The grade does not fit the course's grade scale in Sisu; once the course setup is fixed, support can send the registration again."},
		{"failed_permanent, retried a week", row(schedule.StateFailedPermanent, code(schedule.ErrorRetryWindowExpired), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"Temporary problems went on for a week, so retrying stopped; the registration pipeline will not try again by itself; support has been alerted."},
		{"failed_permanent, rejected", row(schedule.StateFailedPermanent, code(schedule.ErrorSisuValidationFailed), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"Sisu rejected the registration; the registration pipeline will not try again by itself; support has been alerted."},
		{"failed_permanent, unknown", row(schedule.StateFailedPermanent, code(schedule.ErrorUnknown), flagged), resolved,
			schedule.StudentFailed, schedule.WaitsOnSupport, schedule.PipelineWaitsForSupport,
			"The registration stopped after an error; the registration pipeline will not try again by itself; support has been alerted."},
		{"blocked", row(schedule.StateBlocked), schedule.Preconditions{},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineResumesByItself,
			"The completion is no longer eligible for credits, so the registration stopped; once that is sorted out, the registration continues by itself."},
		{"cancelled", row(schedule.StateCancelled), schedule.Preconditions{},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineDone,
			"This registration was cancelled; nothing more needs to happen."},
		{"cancelled with a stale setup code", row(schedule.StateCancelled, code(schedule.ErrorMissingUHCourseCode)), schedule.Preconditions{},
			schedule.StudentNotRegistering, schedule.WaitsOnNobody, schedule.PipelineDone,
			"This registration was cancelled; nothing more needs to happen."},
		{"superseded", row(schedule.StateRegistered, superseded), submitted,
			schedule.StudentRegistered, schedule.WaitsOnNobody, schedule.PipelineDone,
			"A later attempt with a newer grade replaced this registration; nothing more needs to happen."},
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
			if got := s.Next.Sentence(clock); got != tc.sentence {
				t.Errorf("Sentence:\n got %q\nwant %q", got, tc.sentence)
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
	if got := s.Next.Sentence(clock); got != "It waits for support." {
		t.Errorf("Sentence = %q", got)
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
			"To register your credits for Ohjelmoinnin perusteet in Sisu, please link your University of Helsinki student number to your account. The registration then continues by itself."},
		{"waiting for completion", row(schedule.StatePending), schedule.Preconditions{},
			"Your completion of Ohjelmoinnin perusteet is not eligible for credits yet: the course may be unfinished, a prerequisite missing or your completion waiting for review. Once it is eligible, your credits go to Sisu by themselves."},
		{"held for course setup", row(schedule.StatePending), schedule.Preconditions{CompletionEligible: true, HasVerifiedStudentNumber: true},
			"The registration of your credits for Ohjelmoinnin perusteet is on hold until the course's setup in Sisu is fixed. Nothing is needed from you for now."},
		{"looking for enrolment", row(schedule.StateReadyToSubmit), schedule.Preconditions{},
			"Your credits for Ohjelmoinnin perusteet are on their way to Sisu. Nothing is needed from you for now."},
		{"not enrolled", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(t0.Add(day))), schedule.Preconditions{},
			"Sisu does not show you as enrolled on Ohjelmoinnin perusteet. Please enrol on the course in Sisu; your credits then go to Sisu by themselves. We check again at Tue Mar 3 09:00."},
		{"not checked yet, due", row(schedule.StateNoUsableEnrolment, nextAttempt(t0)), schedule.Preconditions{},
			"To register your credits for Ohjelmoinnin perusteet, you need to be enrolled on the course in Sisu. If you have not enrolled yet, please do. We check again shortly."},
		{"checks stopped", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), nextAttempt(schedule.Never)), schedule.Preconditions{},
			"Sisu does not show you as enrolled on Ohjelmoinnin perusteet. Please enrol on the course in Sisu; your credits then go to Sisu by themselves. Once you have done so, let us know and we will check again."},
		{"waiting for Sisu", row(schedule.StateAwaitingVerification, submittedAgo(6*time.Hour)), schedule.Preconditions{Submitted: true},
			"Your credits for Ohjelmoinnin perusteet have been sent to Sisu, which usually confirms them within a day. Nothing is needed from you for now."},
		{"waiting for Sisu, past 14 days", row(schedule.StateAwaitingVerification, submittedAgo(15*day)), schedule.Preconditions{Submitted: true},
			"Your credits for Ohjelmoinnin perusteet have been sent to Sisu, which is taking longer than usual to confirm them. Our support staff have been asked to look into it. Nothing is needed from you for now."},
		{"partly registered", row(schedule.StatePartiallyRegistered, submittedAgo(20*time.Hour), partialAgo(time.Hour)), schedule.Preconditions{Submitted: true},
			"Sisu already shows part of your credits for Ohjelmoinnin perusteet; the final credit is on its way. Nothing is needed from you for now."},
		{"registered", row(schedule.StateRegistered), schedule.Preconditions{},
			"Your credits for Ohjelmoinnin perusteet are registered in Sisu."},
		{"better grade", row(schedule.StateNotImproved), schedule.Preconditions{},
			"Sisu already holds an equal or better grade of yours for Ohjelmoinnin perusteet, so nothing new was registered."},
		{"failed", row(schedule.StateFailedPermanent, code(schedule.ErrorUnknown), flagged), schedule.Preconditions{},
			"The registration of your credits for Ohjelmoinnin perusteet ran into a problem that our support staff need to look at. Nothing is needed from you for now."},
		{"course setup", row(schedule.StateFailedPermanent, code(schedule.ErrorMissingECTSCredits), flagged), schedule.Preconditions{},
			"The registration of your credits for Ohjelmoinnin perusteet is waiting for a fix to the course's setup in Sisu. Nothing is needed from you for now."},
		{"not registering", row(schedule.StateBlocked), schedule.Preconditions{},
			"Your completion of Ohjelmoinnin perusteet is no longer eligible for credits, so they are not being registered for now."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := schedule.StudentView(tc.row, tc.pre, t0).Message("Ohjelmoinnin perusteet", clock)
			if got != tc.want {
				t.Errorf("Message:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	if got := schedule.StudentView(row(schedule.StateRegistered), allMet, t0).Message("  ", clock); got != "Your credits for the course are registered in Sisu." {
		t.Errorf("Message with no course name = %q", got)
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
		sentence, message := s.Next.Sentence(clock), s.Message("Kurssi", clock)
		if !s.Status.Valid() || !s.WaitsOn.Valid() || sentence == "" || message == "" {
			t.Fatalf("row %d %+v %+v: status %q, waits on %q, sentence %q, message %q", i, r, pre, s.Status, s.WaitsOn, sentence, message)
		}
		for _, text := range []string{sentence, message} {
			if strings.Contains(text, "_") || !strings.HasSuffix(text, ".") {
				t.Fatalf("row %d %+v: text %q has an internal name or no full stop", i, r, text)
			}
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
		freshUncertain := slices.Equal(s.Classified.Reasons.List(), []schedule.Reason{schedule.ReasonOutcomeUncertain})
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
