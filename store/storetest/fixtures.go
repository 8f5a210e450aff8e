package storetest

import (
	"context"
	"testing"
	"time"

	"regdesk/store"
)

// NewID returns a random version 4 UUID.
func NewID() string { return store.NewID() }

// Student is a student fixture.
type Student struct {
	ID            string
	FirstName     string
	LastName      string
	Email         string
	StudentNumber string // "" leaves the number unlinked
}

// Course is a course fixture with one module.
type Course struct {
	ID         string
	Name       string
	ModuleID   string
	ModuleName string
	Code       string
	InstanceID string
}

// AddStudent inserts a student as the LMS keeps one (users, user_details and, with a number, a
// live verified_student_numbers row) and returns it with its id.
func AddStudent(tb testing.TB, st *store.Store, s Student) Student {
	tb.Helper()
	if s.ID == "" {
		s.ID = NewID()
	}
	if s.Email == "" {
		s.Email = "student-" + s.ID[:8] + "@example.org"
	}
	LMSExecNoSync(tb, st, `INSERT INTO users (id) VALUES ($1)`, s.ID)
	LMSExecNoSync(tb, st, `INSERT INTO user_details (user_id, first_name, last_name, email) VALUES ($1, $2, $3, $4)`,
		s.ID, nullable(s.FirstName), nullable(s.LastName), s.Email)
	if s.StudentNumber != "" {
		LMSExecNoSync(tb, st, `INSERT INTO verified_student_numbers (user_id, student_number, sisu_person_id, verified_via_email)
VALUES ($1, $2, $3, $4)`, s.ID, s.StudentNumber, "hy-hlo-"+s.StudentNumber, s.Email)
	}
	// Findable at once, as the sweep of regdesk's copy would make them within minutes.
	if err := st.PersonSearchCopy(context.Background(), []string{s.ID}); err != nil {
		tb.Fatalf("storetest: copy the student's search columns: %v", err)
	}
	return s
}

// AddCourse inserts a course with its default instance and one module carrying Code: the
// course's default module (no name) unless ModuleName is set.
func AddCourse(tb testing.TB, st *store.Store, c Course) Course {
	tb.Helper()
	if c.ID == "" {
		c.ID = NewID()
	}
	c.ModuleID, c.InstanceID = NewID(), NewID()
	LMSExecNoSync(tb, st, `INSERT INTO courses (id, name, slug, organization_id, language_code, course_language_group_id)
VALUES ($1, $2, $3, $4, 'en-US', $5)`, c.ID, c.Name, "c-"+c.ID[:8], NewID(), NewID())
	LMSExecNoSync(tb, st, `INSERT INTO course_instances (id, course_id, teacher_in_charge_name, teacher_in_charge_email)
VALUES ($1, $2, 'Teacher', 'teacher@example.org')`, c.InstanceID, c.ID)
	order := 0
	if c.ModuleName != "" {
		order = 1
	}
	LMSExecNoSync(tb, st, `INSERT INTO course_modules (id, course_id, name, order_number, uh_course_code, ects_credits,
  enable_credit_registration_via_suotar)
VALUES ($1, $2, $3, $4, $5, 5, true)`, c.ModuleID, c.ID, nullable(c.ModuleName), order, nullable(c.Code))
	return c
}

// Registration is a ledger row fixture. Zero fields take the column defaults; State defaults to
// pending.
type Registration struct {
	ID                         string
	Student                    Student
	Course                     Course
	CompletionID               string // "" makes a new completion
	AttemptNumber              int
	State                      string
	ErrorCode                  string
	ErrorMessage               string
	NeedsAdminAttention        bool
	SupersededByID             string
	StateChangedAt             time.Time // also used for state_entered_at and updated_at; zero is an hour before Now()
	NextAttemptAt              time.Time
	SubmittedAt                *time.Time
	PartiallyRegisteredAt      *time.Time
	FirstFailedAt              *time.Time
	ResubmitNotBefore          *time.Time
	SubmitRetryCount           int
	NotRegisteredReimportCount int
	// Frozen payload; set for rows past checking_enrolment.
	StudentNumber         string
	SisuPersonID          string
	GradeScaleID, GradeID string
	Credits               float32
	AttainedAt            *time.Time
	SubmittedAttainmentID string
	SisuAttainmentID      string
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// AddRegistration inserts a ledger row (and its completion) and returns its id.
func AddRegistration(tb testing.TB, st *store.Store, r Registration) string {
	tb.Helper()
	if r.ID == "" {
		r.ID = NewID()
	}
	if r.State == "" {
		r.State = "pending"
	}
	if r.AttemptNumber == 0 {
		r.AttemptNumber = 1
	}
	if r.StateChangedAt.IsZero() {
		r.StateChangedAt = Now().Add(-time.Hour)
	}
	if r.NextAttemptAt.IsZero() {
		r.NextAttemptAt = r.StateChangedAt
	}
	if r.CompletionID == "" {
		r.CompletionID = NewID()
		email := r.Student.Email
		if email == "" {
			email = "student@example.org"
		}
		// Granted by hand (completion_granter_user_id): the LMS allows one automatic completion per
		// student and module, and fixtures give a student several.
		LMSExecNoSync(tb, st, `INSERT INTO course_module_completions (id, user_id, course_id, course_module_id, completion_date,
  completion_language, eligible_for_ects, email, grade, passed, prerequisite_modules_completed, register_credits_via_suotar,
  completion_granter_user_id)
VALUES ($1, $2, $3, $4, $5, 'en-US', true, $6, 4, true, true, true, $2)`,
			r.CompletionID, r.Student.ID, r.Course.ID, r.Course.ModuleID, r.StateChangedAt.Add(-48*time.Hour), email)
	}
	var registeredAt, terminalAt, supersededAt *time.Time
	switch r.State {
	case "registered":
		registeredAt, terminalAt = &r.StateChangedAt, &r.StateChangedAt
	case "duplicate", "not_improved", "failed_permanent", "cancelled":
		terminalAt = &r.StateChangedAt
	}
	if r.SupersededByID != "" {
		supersededAt = &r.StateChangedAt
	}
	var credits *float32
	if r.Credits != 0 {
		credits = &r.Credits
	}
	LMSExecNoSync(tb, st, `INSERT INTO credit_registrations (id, created_at, updated_at, course_module_completion_id, user_id, course_id,
  course_module_id, course_instance_id, attempt_number, superseded_by_id, superseded_at, state, state_entered_at,
  state_changed_at, phase_started_at, error_code, error_message, needs_admin_attention, next_attempt_at, first_failed_at,
  submit_retry_count, not_registered_reimport_count, terminal_at, submitted_at, registered_at, partially_registered_at,
  resubmit_not_before, student_number, uh_course_code, grade_scale_id, grade_id, credits, attained_at,
  submitted_attainment_id, submitted_attainment_type, sisu_attainment_id, sisu_person_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
  $25, $26, $27, $28, $29, $30, $31, $32, CASE WHEN $32::varchar IS NULL THEN NULL ELSE 'AssessmentItemAttainment' END, $33, $34)`,
		r.ID, r.StateChangedAt.Add(-72*time.Hour), r.StateChangedAt, r.CompletionID, r.Student.ID, r.Course.ID,
		r.Course.ModuleID, r.Course.InstanceID, r.AttemptNumber, nullable(r.SupersededByID), supersededAt, r.State,
		r.StateChangedAt, nullable(r.ErrorCode), nullable(r.ErrorMessage), r.NeedsAdminAttention, r.NextAttemptAt,
		r.FirstFailedAt, r.SubmitRetryCount, r.NotRegisteredReimportCount, terminalAt, r.SubmittedAt, registeredAt,
		r.PartiallyRegisteredAt, r.ResubmitNotBefore, nullable(r.StudentNumber), nullable(r.Course.Code),
		nullable(r.GradeScaleID), nullable(r.GradeID), credits, r.AttainedAt, nullable(r.SubmittedAttainmentID),
		nullable(r.SisuAttainmentID), nullable(r.SisuPersonID))
	// The history opens with the row's creation and ends with its current state, as the pipeline writes it.
	LMSExecNoSync(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, to_state)
VALUES ($1, $2, $3, 'created', 'pending')`, NewID(), r.StateChangedAt.Add(-72*time.Hour), r.ID)
	if r.State != "pending" {
		LMSExecNoSync(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state, error_code)
VALUES ($1, $2, $3, 'state_changed', 'pending', $4, $5)`, NewID(), r.StateChangedAt, r.ID, r.State, nullable(r.ErrorCode))
	}
	SyncMirror(tb, st, r.ID)
	return r.ID
}

// AddEvent appends a pipeline event (no actor) to a registration's history.
func AddEvent(tb testing.TB, st *store.Store, registrationID string, at time.Time, kind, fromState, toState, message string) {
	tb.Helper()
	LMSExecNoSync(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state, message)
VALUES ($1, $2, $3, $4::credit_registration_event_kind, $5::credit_registration_state, $6::credit_registration_state, $7)`,
		NewID(), at, registrationID, kind, nullable(fromState), nullable(toState), nullable(message))
}

// Call is one pipeline call to Suotar as a registration's history records it.
type Call struct {
	Kind        string // suotar_response (default) or retry_scheduled
	Endpoint    string // default import_attainments
	RequestedAt time.Time
	// Answer is answered (default), unanswered or refused.
	Answer    string
	ErrorCode string
	ToState   string
}

// AddCall appends a pipeline Suotar call's event to a registration's history, dated a second after
// its request.
func AddCall(tb testing.TB, st *store.Store, registrationID string, c Call) {
	tb.Helper()
	if c.Kind == "" {
		c.Kind = "suotar_response"
	}
	if c.Endpoint == "" {
		c.Endpoint = "import_attainments"
	}
	if c.Answer == "" {
		c.Answer = "answered"
	}
	at := c.RequestedAt.Add(time.Second)
	LMSExecNoSync(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, to_state, error_code,
  suotar_endpoint, suotar_requested_at, suotar_answered_at, suotar_answer)
VALUES ($1, $2, $3, $4::credit_registration_event_kind, $5::credit_registration_state, $6::credit_registration_error_code,
  $7::suotar_endpoint, $8, $2, $9::suotar_answer)`,
		NewID(), at, registrationID, c.Kind, nullable(c.ToState), nullable(c.ErrorCode), c.Endpoint, c.RequestedAt, c.Answer)
}

// Staff is a person who acts: an LMS user with the LMS's global credit-registration admin role, and
// the regdesk account that is that user.
type Staff struct {
	AccountID, LMSUserID string
	Name, Email          string
}

// AddStaff inserts an LMS user allowed to administer credit registrations (users, user_details,
// a global roles row) and a regdesk account of role ("admin", "support" or "teacher") that is that
// user. name is "First Last".
func AddStaff(tb testing.TB, st *store.Store, name, email, role string) Staff {
	tb.Helper()
	s := Staff{AccountID: NewID(), LMSUserID: AddLMSAdmin(tb, st, name, email), Name: name, Email: email}
	LMSExecNoSync(tb, st, `INSERT INTO regdesk.accounts (id, name, email, role, lms_user_id) VALUES ($1, $2, $3, $4, $5)`,
		s.AccountID, name, email, role, s.LMSUserID)
	return s
}
