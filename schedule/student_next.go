package schedule

import (
	"time"
)

// Situation is what stands in a registration's way, or how it ended, for a
// teacher. The edge words it first when it words a NextStep.
type Situation string

// The situations. The empty Situation is a registration moving on with
// nothing to explain.
const (
	// SituationNone is a registration with nothing in its way.
	SituationNone Situation = ""
	// SituationCompletionNotEligible is a pending row whose completion is
	// not eligible for credits.
	SituationCompletionNotEligible Situation = "completion_not_eligible"
	// SituationCompletionDeleted is a pending row whose completion is gone.
	SituationCompletionDeleted Situation = "completion_deleted"
	// SituationNeedsStudentNumber is a pending row without a verified
	// student number.
	SituationNeedsStudentNumber Situation = "needs_student_number"
	// SituationCourseCodeRejected is a pending row held because Suotar
	// rejected the module's course code.
	SituationCourseCodeRejected Situation = "course_code_rejected"
	// SituationEnrolmentUnchecked is a row parked before its first
	// enrolment check, or after a check whose answer named no cause.
	SituationEnrolmentUnchecked Situation = "enrolment_unchecked"
	// SituationNotEnrolled is a row Sisu found no enrolment for.
	SituationNotEnrolled Situation = "not_enrolled"
	// SituationEnrolmentNotAccepted is a row whose enrolment Sisu has not
	// accepted yet.
	SituationEnrolmentNotAccepted Situation = "enrolment_not_accepted"
	// SituationStudyRightNotValid is a row whose student's study right does
	// not cover the credit.
	SituationStudyRightNotValid Situation = "study_right_not_valid"
	// SituationEnrolmentFound is a row queued to be sent.
	SituationEnrolmentFound Situation = "enrolment_found"
	// SituationTemporaryProblem is a failed_retryable row.
	SituationTemporaryProblem Situation = "temporary_problem"
	// SituationAnswerUnclear is a submission_uncertain row.
	SituationAnswerUnclear Situation = "answer_unclear"
	// SituationPartlyRegistered is a partially_registered row.
	SituationPartlyRegistered Situation = "partly_registered"
	// SituationCourseCodeUnknown is a row Sisu rejected for an unknown
	// course code.
	SituationCourseCodeUnknown Situation = "course_code_unknown"
	// SituationCourseCodeMissing is a row whose module has no course code.
	SituationCourseCodeMissing Situation = "course_code_missing"
	// SituationCourseNotAllowed is a row whose course code Suotar does not
	// register for.
	SituationCourseNotAllowed Situation = "course_not_allowed"
	// SituationGradeDoesNotFit is a row whose grade does not fit the
	// course's grade scale in Sisu.
	SituationGradeDoesNotFit Situation = "grade_does_not_fit"
	// SituationCreditsDoNotFit is a row whose credits Sisu does not accept.
	SituationCreditsDoNotFit Situation = "credits_do_not_fit"
	// SituationCreditsMissing is a row whose module has no credits.
	SituationCreditsMissing Situation = "credits_missing"
	// SituationRejectedBySisu is a row Sisu rejected for its content.
	SituationRejectedBySisu Situation = "rejected_by_sisu"
	// SituationRetriedForAWeek is a row that stopped after a week of
	// temporary failures.
	SituationRetriedForAWeek Situation = "retried_for_a_week"
	// SituationGaveUp is any other row the pipeline gave up on.
	SituationGaveUp Situation = "gave_up"
	// SituationReversed is a misregistered row.
	SituationReversed Situation = "reversed"
	// SituationRegistered is a registered row.
	SituationRegistered Situation = "registered"
	// SituationAlreadyInSisu is a duplicate row.
	SituationAlreadyInSisu Situation = "already_in_sisu"
	// SituationBetterGradeInSisu is a not_improved row.
	SituationBetterGradeInSisu Situation = "better_grade_in_sisu"
	// SituationCancelled is a cancelled row.
	SituationCancelled Situation = "cancelled"
	// SituationNoLongerEligible is a blocked row.
	SituationNoLongerEligible Situation = "no_longer_eligible"
	// SituationReplaced is a superseded row.
	SituationReplaced Situation = "replaced"
)

// StudentAction is what the student can do to move a registration on.
type StudentAction string

// The student actions. The empty StudentAction is nothing to do.
const (
	// StudentActionNone is nothing the student needs to do.
	StudentActionNone StudentAction = ""
	// StudentActionCompleteCourse is finishing the course so the completion
	// becomes eligible.
	StudentActionCompleteCourse StudentAction = "complete_course"
	// StudentActionLinkStudentNumber is linking a University of Helsinki
	// student number to the account.
	StudentActionLinkStudentNumber StudentAction = "link_student_number"
	// StudentActionEnrol is enrolling on the course in Sisu.
	StudentActionEnrol StudentAction = "enrol"
	// StudentActionCheckEnrolment is finding out why the enrolment in Sisu
	// is not accepted.
	StudentActionCheckEnrolment StudentAction = "check_enrolment"
	// StudentActionFixStudyRight is sorting out the study right with
	// student services.
	StudentActionFixStudyRight StudentAction = "fix_study_right"
)

// PipelineStep is what the registration pipeline does next with a row.
type PipelineStep string

// The pipeline steps.
const (
	// PipelineNone is nothing the pipeline will do (an unknown state, or a
	// row about to be cancelled).
	PipelineNone PipelineStep = ""
	// PipelineDone is a finished row.
	PipelineDone PipelineStep = "done"
	// PipelineResumesByItself is a row that moves on by itself once what
	// its Situation names is sorted out.
	PipelineResumesByItself PipelineStep = "resumes_by_itself"
	// PipelineLookUpEnrolment is looking up the enrolment at NextCheckAt.
	PipelineLookUpEnrolment PipelineStep = "look_up_enrolment"
	// PipelineLookingUpEnrolment is a lookup in flight now.
	PipelineLookingUpEnrolment PipelineStep = "looking_up_enrolment"
	// PipelineCheckEnrolment is the next scheduled enrolment check of a
	// parked row, at NextCheckAt; nil when the schedule has run out.
	PipelineCheckEnrolment PipelineStep = "check_enrolment"
	// PipelineSend is sending the credit at NextCheckAt.
	PipelineSend PipelineStep = "send"
	// PipelineSending is a send in flight now.
	PipelineSending PipelineStep = "sending"
	// PipelineCheckSisu is asking Sisu for the credit at NextCheckAt.
	PipelineCheckSisu PipelineStep = "check_sisu"
	// PipelineWaitsForSupport is a row the pipeline will not move again.
	PipelineWaitsForSupport PipelineStep = "waits_for_support"
	// PipelineWaitsForSetupFix is a row support can resend once the course
	// setup is fixed.
	PipelineWaitsForSetupFix PipelineStep = "waits_for_setup_fix"
)

// TypicalWait is how long a step usually takes, for a teacher to pass on.
type TypicalWait string

// The typical waits.
const (
	// TypicalWaitNone is a wait with no typical length to quote.
	TypicalWaitNone TypicalWait = ""
	// TypicalWaitSisuConfirms is Sisu showing a sent credit: between about 5
	// and 29 hours after sending (the verify landing window).
	TypicalWaitSisuConfirms TypicalWait = "sisu_confirms_within_a_day"
)

// NextStep is what happens next with a registration and when, in parts a
// page can show separately; the edge puts them into words in a language.
type NextStep struct {
	// Situation is what stands in the way, or how the registration ended.
	Situation Situation
	// StudentAction is what the student can do; "" when nothing.
	StudentAction StudentAction
	// Pipeline is what the registration pipeline does next.
	Pipeline PipelineStep
	// NextCheckAt is when the pipeline takes that step; nil when the step
	// has no time (it happens now, by itself once unblocked, or never).
	NextCheckAt *time.Time
	// Due is true when NextCheckAt is not after now: the step happens as
	// soon as the pipeline gets to it.
	Due bool
	// TypicalWait is how long the current wait usually takes.
	TypicalWait TypicalWait
	// Late is true when the row has waited longer than TypicalWait.
	Late bool
	// SupportAlerted is true when the registration waits on support and is
	// on support's queue (Classify's NeedsAdmin).
	SupportAlerted bool
	// WaitsForSupport is true when the registration waits on support but is
	// not on its queue: an alert a person dismissed, or a state this package
	// does not know.
	WaitsForSupport bool
	// EscalatesAt is when support is alerted if nothing happens first (from
	// Classify); nil when it will not be, or already is.
	EscalatesAt *time.Time
}

func nextStep(r Row, pre Preconditions, s StudentSummary, now time.Time) NextStep {
	n := NextStep{Situation: situationOf(r, pre)}
	n.StudentAction = studentActionOf(n.Situation)
	n.Pipeline = pipelineOf(r, pre)
	switch n.Pipeline {
	case PipelineLookUpEnrolment, PipelineCheckEnrolment, PipelineSend, PipelineCheckSisu:
		n.NextCheckAt = timeOrNil(s.Classified.NextCheckAt)
		n.Due = n.NextCheckAt != nil && !n.NextCheckAt.After(now)
	}
	if r.State == StateAwaitingVerification {
		n.TypicalWait = TypicalWaitSisuConfirms
		n.Late = r.SubmittedAt != nil && now.Sub(*r.SubmittedAt) >= VerifyWindowEnd
	}
	n.SupportAlerted = s.WaitsOn == WaitsOnSupport && s.Classified.NeedsAdmin
	n.WaitsForSupport = s.WaitsOn == WaitsOnSupport && !s.Classified.NeedsAdmin
	if s.WaitsOn != WaitsOnSupport && s.WaitsOn != WaitsOnNobody {
		n.EscalatesAt = timeOrNil(s.Classified.EscalatesAt)
	}
	return n
}

func situationOf(r Row, pre Preconditions) Situation {
	if r.Superseded {
		return SituationReplaced
	}
	switch r.State {
	case StateRegistered:
		return SituationRegistered
	case StateDuplicate:
		return SituationAlreadyInSisu
	case StateNotImproved:
		return SituationBetterGradeInSisu
	case StateCancelled:
		return SituationCancelled
	case StateBlocked:
		return SituationNoLongerEligible
	case StatePending:
		if pre.CompletionDeleted {
			return SituationCompletionDeleted
		}
	}
	// A configuration code explains the row whatever its state, as it
	// decides WaitsOn first.
	if s := setupSituation(r.ErrorCode); s != SituationNone {
		return s
	}
	switch r.State {
	case StatePending:
		switch {
		case !pre.CompletionEligible:
			return SituationCompletionNotEligible
		case !pre.HasVerifiedStudentNumber:
			return SituationNeedsStudentNumber
		case !pre.CourseCodeAllowed:
			return SituationCourseCodeRejected
		}
	case StateCheckingEnrolment:
		return SituationEnrolmentFound
	case StateNoUsableEnrolment:
		switch r.ErrorCode {
		case ErrorEnrolmentNotFound:
			return SituationNotEnrolled
		case ErrorEnrolmentNotAccepted:
			return SituationEnrolmentNotAccepted
		case ErrorStudyRightNotValid:
			return SituationStudyRightNotValid
		}
		// Never checked yet (the row parks until its first rung), or a code
		// that names no cause: the student may well be enrolled already.
		return SituationEnrolmentUnchecked
	case StateFailedRetryable:
		return SituationTemporaryProblem
	case StateSubmissionUncertain:
		return SituationAnswerUnclear
	case StatePartiallyRegistered:
		return SituationPartlyRegistered
	case StateMisregistered:
		return SituationReversed
	case StateFailedPermanent:
		switch r.ErrorCode {
		case ErrorRetryWindowExpired:
			return SituationRetriedForAWeek
		case ErrorSisuValidationFailed:
			return SituationRejectedBySisu
		}
		return SituationGaveUp
	}
	return SituationNone
}

func setupSituation(c ErrorCode) Situation {
	switch c {
	case ErrorCourseCodeNotFound:
		return SituationCourseCodeUnknown
	case ErrorMissingUHCourseCode:
		return SituationCourseCodeMissing
	case ErrorCourseNotAllowed:
		return SituationCourseNotAllowed
	case ErrorInvalidGradeForGradeScale, ErrorGradeScaleMismatch, ErrorNoGradeScaleMapping:
		return SituationGradeDoesNotFit
	case ErrorInvalidCredits:
		return SituationCreditsDoNotFit
	case ErrorMissingECTSCredits:
		return SituationCreditsMissing
	}
	return SituationNone
}

func studentActionOf(s Situation) StudentAction {
	switch s {
	case SituationCompletionNotEligible:
		return StudentActionCompleteCourse
	case SituationNeedsStudentNumber:
		return StudentActionLinkStudentNumber
	case SituationEnrolmentUnchecked, SituationNotEnrolled:
		return StudentActionEnrol
	case SituationEnrolmentNotAccepted:
		return StudentActionCheckEnrolment
	case SituationStudyRightNotValid:
		return StudentActionFixStudyRight
	}
	return StudentActionNone
}

func pipelineOf(r Row, pre Preconditions) PipelineStep {
	if r.Superseded {
		return PipelineDone
	}
	switch r.State {
	case StatePending:
		switch {
		case pre.CompletionDeleted:
			return PipelineNone
		case !pre.CompletionEligible || !pre.HasVerifiedStudentNumber || !pre.CourseCodeAllowed:
			return PipelineResumesByItself
		}
		return PipelineLookUpEnrolment
	case StateReadyToSubmit:
		return PipelineLookUpEnrolment
	case StateResolvingEnrolment:
		return PipelineLookingUpEnrolment
	case StateCheckingEnrolment:
		return PipelineSend
	case StateNoUsableEnrolment:
		return PipelineCheckEnrolment
	case StateSubmitting:
		return PipelineSending
	case StateFailedRetryable:
		switch {
		case pre.Submitted:
			return PipelineCheckSisu
		case pre.EnrolmentResolved:
			return PipelineSend
		}
		return PipelineLookUpEnrolment
	case StateSubmissionUncertain, StateAwaitingVerification, StatePartiallyRegistered:
		return PipelineCheckSisu
	case StateRegistered, StateDuplicate, StateNotImproved, StateCancelled:
		return PipelineDone
	case StateBlocked:
		return PipelineResumesByItself
	case StateMisregistered:
		return PipelineWaitsForSupport
	case StateFailedPermanent:
		if r.ErrorCode.Class() == PermanentNeedsConfig {
			return PipelineWaitsForSetupFix
		}
		return PipelineWaitsForSupport
	}
	return PipelineNone
}

// timeOrNil is t as the optional instant NextStep carries: nil for the zero time, which Status
// uses for "never".
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
