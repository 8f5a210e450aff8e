package demo

import "time"

// The ledger's enums, spelt as the database spells them.
const (
	stPending              = "pending"
	stReadyToSubmit        = "ready_to_submit"
	stResolvingEnrolment   = "resolving_enrolment"
	stCheckingEnrolment    = "checking_enrolment"
	stNoUsableEnrolment    = "no_usable_enrolment"
	stSubmitting           = "submitting"
	stSubmissionUncertain  = "submission_uncertain"
	stAwaitingVerification = "awaiting_verification"
	stPartiallyRegistered  = "partially_registered"
	stRegistered           = "registered"
	stDuplicate            = "duplicate"
	stNotImproved          = "not_improved"
	stMisregistered        = "misregistered"
	stFailedRetryable      = "failed_retryable"
	stFailedPermanent      = "failed_permanent"
	stBlocked              = "blocked"
	stCancelled            = "cancelled"
)

const (
	evCreated        = "created"
	evStateChanged   = "state_changed"
	evSuotarResponse = "suotar_response"
	evRetryScheduled = "retry_scheduled"
	evAdminAction    = "admin_action"
	evStudentAction  = "student_action"
)

const (
	epResolvePersons   = "resolve_persons"
	epResolveEnrolment = "resolve_enrolments"
	epImport           = "import_attainments"
	epVerify           = "verify_attainments"
)

const (
	ansAnswered   = "answered"
	ansUnanswered = "unanswered"
	ansRefused    = "refused"
)

func isTerminal(s string) bool {
	switch s {
	case stRegistered, stDuplicate, stNotImproved, stFailedPermanent, stCancelled:
		return true
	}
	return false
}

// keepsEnrolmentSchedule reports whether a row in state s keeps its enrolment check schedule
// (keeps_enrolment_check_schedule in the LMS): only while it is still looking for an enrolment.
func keepsEnrolmentSchedule(s string) bool {
	switch s {
	case stNoUsableEnrolment, stReadyToSubmit, stResolvingEnrolment, stFailedRetryable:
		return true
	}
	return false
}

// timelinePhase is the admin timeline's phase of a state; phase_started_at moves only when it
// changes. All of pending is one phase.
func timelinePhase(s string) int {
	switch s {
	case stPending:
		return 0
	case stAwaitingVerification, stPartiallyRegistered, stRegistered, stMisregistered:
		return 2
	case stDuplicate, stNotImproved, stCancelled, stBlocked:
		return 3
	}
	return 1
}

// never is next_attempt_at of a row parked for good (never() in the LMS).
var never = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// student is one LMS user taking courses: a users row, its user_details (first and last name NULL
// when noName) and, while a number is linked, a live verified_student_numbers row.
type student struct {
	id        [16]byte
	createdAt time.Time
	first     string // as Sisu knows the person; the LMS's user_details leave them out when noName
	last      string
	noName    bool // the LMS account has no name (an account made before names were asked)
	email     string
	number    string // the linked, verified student number; "" when none is linked
	personID  string // the Sisu person; known to the registry even while no number is linked
	lang      string // attainment language the student's completions are registered in
	openUni   bool   // studies through the Open University: enrolments are open_university
	taken     uint64 // modules with a completion, by catalogue index
	earliest  time.Time

	// linkedAt is when the student proved their number (verified_at); zero: before their first
	// completion, drawn when the batch closes.
	linkedAt time.Time
	linkID   [16]byte // the verified_student_numbers row
	// A link the pipeline dropped (Sisu had no person for the number): kept as a deleted
	// verified_student_numbers row.
	droppedNumber, droppedPerson string
	droppedAt                    time.Time
}

type completion struct {
	id             [16]byte
	createdAt      time.Time
	updatedAt      time.Time
	deletedAt      time.Time
	student        *student
	module         *module
	completionDate time.Time
	grade          int32 // 0 for pass/fail modules (NULL)
	eligible       bool
	prereqs        bool
	needsReview    bool
	// pressedAt is the student's latest "I have enrolled" for the completion, which the LMS keeps
	// as its enrolment route (credit_registration_enrolment_routes.enrolment_confirmed_at); zero:
	// never pressed.
	pressedAt time.Time
	routeID   [16]byte
	routeAt   time.Time // the first press, when the route was recorded
}

// reg is one credit_registrations row with its events.
type reg struct {
	id           [16]byte
	createdAt    time.Time
	updatedAt    time.Time
	c            *completion
	attempt      int32
	supersededBy *reg
	supersededAt time.Time
	pendingSupBy *reg

	state          string
	stateEnteredAt time.Time
	stateChangedAt time.Time
	phaseStartedAt time.Time
	errorCode      string
	errorMessage   string
	needsAdmin     bool
	nextAttemptAt  time.Time
	firstFailedAt  time.Time
	lastAttemptAt  time.Time
	submitRetries  int32
	verifyAttempts int32
	reimports      int32
	terminalAt     time.Time

	submittedAt            time.Time
	registeredAt           time.Time
	enrolmentCheckedAt     time.Time
	partiallyRegisteredAt  time.Time
	resubmitNotBefore      time.Time
	noUsableEnrolmentSince time.Time

	frozen        bool // student_number … attained_at written
	studentNumber string
	personID      string
	courseCode    string
	enrolmentID   string // selected_enrolment_id; cleared by a notRegistered reset
	kind          string
	realisation   *realisation
	lang          string
	gradeScale    string
	gradeID       string // cleared by a notRegistered reset
	credits       float32
	attainedAt    time.Time

	submittedAttainmentID string
	sisuAttainmentID      string
	sisuAttainmentType    string

	// The enrolment check schedule. ecGroup is never empty (the LMS's column is NOT NULL and no
	// transition clears it); the rest is set while the row waits for an enrolment.
	ecGroup         string
	ecAnchor        time.Time
	ecStep          int32
	ecScheduled     bool // ecStep and ecDueAt are set
	ecDueAt         time.Time
	ecBatched       bool
	ecStoppedAt     time.Time
	ecSource        string
	ecRequestedAt   time.Time // the student's last "I have enrolled"
	ecRestartWindow time.Time
	ecRestarts      int32

	events []event
	// actions are the LMS's audit rows (credit_registration_admin_actions) of hands on this row.
	actions []adminAction
	// dismissal takes the row off the Needs attention queue, when a person did so.
	dismissal *dismissal
}

// adminAction is one credit_registration_admin_actions row about a ledger row, as the LMS's admin
// endpoints write it: the actor is an LMS user acting as global_admin.
type adminAction struct {
	id            [16]byte
	at            time.Time
	action        string // transition_item or dismiss_attention
	actor         *staffUser
	reason        string
	before, after string
	details       []byte
}

// dismissal is one credit_registration_attention_dismissals row: the LMS's attention reasons the
// row carried when a person took it off the queue.
type dismissal struct {
	id      [16]byte
	at      time.Time
	reasons []string
	by      *staffUser
	note    string
}

// event is one credit_registration_events row.
type event struct {
	id          [16]byte
	at          time.Time
	actor       *staffUser // a person's hand (admin_action); nil for the pipeline and the student
	kind        string
	from, to    string
	errorCode   string
	message     string
	details     []byte
	itemID      []byte
	endpoint    string
	requestedAt time.Time
	answeredAt  time.Time
	answer      string
}
