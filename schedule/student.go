package schedule

import "time"

// StudentStatus is where a registration stands as a student's teacher can
// pass it on (the edge words it): the LMS's student-facing status (domain.md §8.1), plus two
// values the LMS leaves open (Q5).
type StudentStatus string

// The student-facing statuses, in the order a registration passes through
// them.
const (
	// StudentWaitingForCompletion is a pending row whose completion is not
	// eligible for credits yet.
	StudentWaitingForCompletion StudentStatus = "waiting_for_completion"
	// StudentNeedsStudentNumber is a pending row whose student has no
	// verified student number linked.
	StudentNeedsStudentNumber StudentStatus = "needs_student_number"
	// StudentHeldForCourseSetup is a pending row whose module's course code
	// Suotar rejected. regdesk's own value: the LMS's newest mapping is not
	// public (domain.md Q5), and neither of its statuses says who can act.
	StudentHeldForCourseSetup StudentStatus = "held_for_course_setup"
	// StudentLookingForEnrolment is a row whose preconditions hold and whose
	// enrolment is being looked up.
	StudentLookingForEnrolment StudentStatus = "looking_for_enrolment"
	// StudentNeedsEnrolment is a row parked until the student enrols.
	StudentNeedsEnrolment StudentStatus = "needs_enrolment"
	// StudentSending is a row being sent, or retrying after an enrolment
	// was found.
	StudentSending StudentStatus = "sending"
	// StudentWaitingForSisu is a row sent and not yet confirmed.
	StudentWaitingForSisu StudentStatus = "waiting_for_sisu"
	// StudentPartlyRegistered is a partially_registered row: Sisu shows the
	// assessment item attainment, not yet the course unit attainment.
	// regdesk's own value (domain.md Q5): "waiting for Sisu" would hide that
	// something is already visible in Sisu, and "registered" would promise a
	// credit that does not count yet.
	StudentPartlyRegistered StudentStatus = "partly_registered"
	// StudentRegistered is a row whose credit Sisu holds, whether we put it
	// there or it was there already.
	StudentRegistered StudentStatus = "registered"
	// StudentFailed is a row the pipeline will not move again by itself.
	StudentFailed StudentStatus = "failed"
	// StudentNotRegistering is a row written off or no longer eligible.
	StudentNotRegistering StudentStatus = "not_registering"
)

var studentStatuses = newEnumTable("student-facing status",
	StudentWaitingForCompletion,
	StudentNeedsStudentNumber,
	StudentHeldForCourseSetup,
	StudentLookingForEnrolment,
	StudentNeedsEnrolment,
	StudentSending,
	StudentWaitingForSisu,
	StudentPartlyRegistered,
	StudentRegistered,
	StudentFailed,
	StudentNotRegistering,
)

// StudentStatuses lists every student-facing status in the order a
// registration passes through them; the slice is the caller's to keep.
func StudentStatuses() []StudentStatus { return studentStatuses.list() }

// ParseStudentStatus reads a student-facing status from user input, such as
// a URL filter: its value or its label, ignoring case and surrounding space.
// The error is a *ParseError whose message can be shown to that user.
func ParseStudentStatus(s string) (StudentStatus, error) { return studentStatuses.parse(s) }

// Valid reports whether s is one of the student-facing statuses.
func (s StudentStatus) Valid() bool { return studentStatuses.valid(s) }

// Finished reports whether nothing more will happen to a registration with this status: the
// credit is in Sisu, or it will not be registered.
func (s StudentStatus) Finished() bool { return s == StudentRegistered || s == StudentNotRegistering }

// WaitsOn says who or what a registration waits on (domain.md §8.2's
// WaitsOn), so a teacher knows whom to ask.
type WaitsOn string

// The parties a registration can wait on, in the order a course page lists
// them: the student first, because the student can act.
const (
	// WaitsOnStudent is a registration the student can move on.
	WaitsOnStudent WaitsOn = "student"
	// WaitsOnCourseSetup is a registration held by the course's Sisu setup.
	WaitsOnCourseSetup WaitsOn = "course_setup"
	// WaitsOnSupport is a registration a support person must look at.
	WaitsOnSupport WaitsOn = "support"
	// WaitsOnSisu is a registration the pipeline and Sisu are moving on.
	WaitsOnSisu WaitsOn = "sisu"
	// WaitsOnNobody is a registration that is finished.
	WaitsOnNobody WaitsOn = "nobody"
)

var waitsOns = newEnumTable("waits on",
	WaitsOnStudent,
	WaitsOnCourseSetup,
	WaitsOnSupport,
	WaitsOnSisu,
	WaitsOnNobody,
)

// WaitsOns lists every party, the student first; the slice is the caller's
// to keep.
func WaitsOns() []WaitsOn { return waitsOns.list() }

// ParseWaitsOn reads a party from user input: its value or its label,
// ignoring case and surrounding space. The error is a *ParseError whose
// message can be shown to that user.
func ParseWaitsOn(s string) (WaitsOn, error) { return waitsOns.parse(s) }

// Valid reports whether w is one of the parties.
func (w WaitsOn) Valid() bool { return waitsOns.valid(w) }

// Preconditions are the facts about a row that the ledger row itself does not
// hold: the credit_registration_preconditions view's columns (domain.md
// §3.2), read for pending rows, and how far a failed_retryable row had got
// before its failure, read for that state. The zero value is a row whose
// completion is not eligible.
type Preconditions struct {
	// CompletionDeleted is the view's completion_deleted: the next sweep
	// cancels a pending row whose completion is gone.
	CompletionDeleted bool
	// CompletionEligible is the view's completion_eligible: the completion
	// is live, passed, eligible for ECTS, has its prerequisites and needs no
	// review.
	CompletionEligible bool
	// HasVerifiedStudentNumber is the view's has_verified_student_number.
	HasVerifiedStudentNumber bool
	// CourseCodeAllowed is the view's course_code_allowed: false only while
	// the module's configuration says Suotar rejected its current code.
	CourseCodeAllowed bool
	// EnrolmentResolved is selected_enrolment_id IS NOT NULL: an enrolment
	// was found, so a failed_retryable row resumes by sending (the LMS's
	// "resolved" row, shown as sending rather than looking for enrolment).
	EnrolmentResolved bool
	// Submitted is submitted_attainment_id IS NOT NULL: Suotar accepted the
	// submission, so a failed_retryable row resumes by checking Sisu.
	Submitted bool
}

// StudentStatusOf maps a row to its student-facing status (domain.md §8.1):
// a pending row by its first unmet precondition, in the pipeline's order
// (completion, student number, course code); a failed_retryable row by how
// far it had got; every other state by its state alone. A superseded row
// keeps the status of its state: it was the live credit until replaced. A
// state this package does not know shows as its raw value.
func StudentStatusOf(r Row, pre Preconditions) StudentStatus {
	switch r.State {
	case StatePending:
		switch {
		case pre.CompletionDeleted:
			// The next preconditions sweep cancels it; saying "waiting for
			// completion" would promise something that will not come.
			return StudentNotRegistering
		case !pre.CompletionEligible:
			return StudentWaitingForCompletion
		case !pre.HasVerifiedStudentNumber:
			return StudentNeedsStudentNumber
		case !pre.CourseCodeAllowed:
			return StudentHeldForCourseSetup
		}
		return StudentLookingForEnrolment
	case StateReadyToSubmit, StateResolvingEnrolment, StateCheckingEnrolment:
		// checking_enrolment is the import queue, but the LMS shows it as
		// looking for enrolment, and teachers see the LMS's status too.
		return StudentLookingForEnrolment
	case StateNoUsableEnrolment:
		return StudentNeedsEnrolment
	case StateSubmitting:
		return StudentSending
	case StateFailedRetryable:
		if pre.EnrolmentResolved || pre.Submitted {
			return StudentSending
		}
		return StudentLookingForEnrolment
	case StateSubmissionUncertain, StateAwaitingVerification:
		return StudentWaitingForSisu
	case StatePartiallyRegistered:
		return StudentPartlyRegistered
	case StateRegistered, StateDuplicate, StateNotImproved:
		return StudentRegistered
	case StateMisregistered, StateFailedPermanent:
		return StudentFailed
	case StateBlocked, StateCancelled:
		return StudentNotRegistering
	}
	return StudentStatus(r.State)
}

// StudentSummary is what a teacher needs to know about one registration:
// where it stands, who it waits on and what happens next.
type StudentSummary struct {
	// Status is the student-facing status.
	Status StudentStatus
	// WaitsOn is who or what the registration waits on.
	WaitsOn WaitsOn
	// Next is what happens next and when.
	Next NextStep
	// Classified is Classify's verdict at the same instant, for support
	// staff and for SinceAlert.
	Classified Status
}

// StudentView says where row r stands at now in a teacher's terms: its
// student-facing status, who it waits on, and the next step. pre is read for
// pending and failed_retryable rows. It reads nothing but its arguments.
func StudentView(r Row, pre Preconditions, now time.Time) StudentSummary {
	return StudentViewWith(r, pre, now, nil)
}

// StudentViewWith is StudentView given the blocking problems known (ClassifyWith): a row a
// problem explains waits on what the problem holds up, not on support.
func StudentViewWith(r Row, pre Preconditions, now time.Time, problems *BlockingProblems) StudentSummary {
	st := ClassifyWith(r, now, problems)
	s := StudentSummary{Status: StudentStatusOf(r, pre), Classified: st}
	s.WaitsOn = waitsOn(r, s.Status, st)
	s.Next = nextStep(r, pre, s, now)
	return s
}

// waitsOn follows domain.md §8.2: a configuration error code waits on the
// course setup; a row that needs an admin waits on support; anything else by
// where it stands. Two departures, both so the answer names someone who can
// act: a finished, written-off or superseded row (registered or not
// registering) waits on nobody whatever its code, and a
// submission_uncertain row waits on Sisu until the pipeline escalates it
// (NoteUncertainOverdue, UncertainAdminAfter after sending): support's queue
// shows it at once, but the pipeline's own checks usually settle it first,
// and support may not resubmit it anyway (SuotarPendingWindow).
func waitsOn(r Row, status StudentStatus, st Status) WaitsOn {
	if r.Superseded || status == StudentRegistered || status == StudentNotRegistering {
		return WaitsOnNobody
	}
	if r.ErrorCode.Class() == PermanentNeedsConfig {
		return WaitsOnCourseSetup
	}
	if st.NeedsAdmin && !freshUncertain(st) {
		return WaitsOnSupport
	}
	switch status {
	case StudentWaitingForCompletion, StudentNeedsStudentNumber, StudentNeedsEnrolment:
		return WaitsOnStudent
	case StudentHeldForCourseSetup:
		return WaitsOnCourseSetup
	case StudentLookingForEnrolment, StudentSending, StudentWaitingForSisu, StudentPartlyRegistered:
		return WaitsOnSisu
	case StudentFailed:
		return WaitsOnSupport
	}
	// A state this package does not know: support can find out what it is.
	return WaitsOnSupport
}

// freshUncertain reports whether the only person-level reason is ReasonOutcomeUncertain on a row
// sent less than UncertainAdminAfter ago: an uncertain row shown on the queue before the pipeline
// escalates it. Without a submission time no window runs, so it never escalates and only a
// person can settle it: it is not fresh.
func freshUncertain(st Status) bool {
	return st.Reasons.PersonLevel() == bitOutcomeUncertain && st.Notes&(noteUncertainOverdue|noteSubmissionTimeMissing) == 0
}
