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

// AddStudent inserts a student and returns it with its id.
func AddStudent(tb testing.TB, st *store.Store, s Student) Student {
	tb.Helper()
	if s.ID == "" {
		s.ID = NewID()
	}
	var number *string
	if s.StudentNumber != "" {
		number = &s.StudentNumber
	}
	exec(tb, st, `INSERT INTO students (id, first_name, last_name, email, student_number) VALUES ($1, $2, $3, $4, $5)`,
		s.ID, s.FirstName, s.LastName, s.Email, number)
	return s
}

// AddCourse inserts a course with one instance and one module carrying Code.
func AddCourse(tb testing.TB, st *store.Store, c Course) Course {
	tb.Helper()
	if c.ID == "" {
		c.ID = NewID()
	}
	c.ModuleID, c.InstanceID = NewID(), NewID()
	if c.ModuleName == "" {
		c.ModuleName = "Default module"
	}
	exec(tb, st, `INSERT INTO courses (id, name, slug) VALUES ($1, $2, $3)`, c.ID, c.Name, "c-"+c.ID[:8])
	exec(tb, st, `INSERT INTO course_instances (id, course_id, name) VALUES ($1, $2, 'Default instance')`, c.InstanceID, c.ID)
	exec(tb, st, `INSERT INTO course_modules (id, course_id, name, uh_course_code, ects_credits) VALUES ($1, $2, $3, $4, 5)`,
		c.ModuleID, c.ID, c.ModuleName, c.Code)
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
		exec(tb, st, `INSERT INTO course_module_completions (id, user_id, course_id, course_module_id, course_instance_id, completion_date, grade, passed)
VALUES ($1, $2, $3, $4, $5, $6, 4, true)`, r.CompletionID, r.Student.ID, r.Course.ID, r.Course.ModuleID, r.Course.InstanceID, r.StateChangedAt.Add(-48*time.Hour))
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
	exec(tb, st, `INSERT INTO credit_registrations (id, created_at, updated_at, course_module_completion_id, user_id, course_id,
  course_module_id, course_instance_id, attempt_number, superseded_by_id, superseded_at, state, state_entered_at,
  state_changed_at, phase_started_at, error_code, error_message, needs_admin_attention, next_attempt_at, first_failed_at,
  submit_retry_count, not_registered_reimport_count, terminal_at, submitted_at, registered_at, partially_registered_at,
  resubmit_not_before, student_number, uh_course_code, grade_scale_id, grade_id, credits, attained_at,
  submitted_attainment_id, submitted_attainment_type, sisu_attainment_id, sisu_person_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
  $25, $26, $27, $28, $29, $30, $31, $32, CASE WHEN $32::text IS NULL THEN NULL ELSE 'AssessmentItemAttainment' END, $33, $34)`,
		r.ID, r.StateChangedAt.Add(-72*time.Hour), r.StateChangedAt, r.CompletionID, r.Student.ID, r.Course.ID,
		r.Course.ModuleID, r.Course.InstanceID, r.AttemptNumber, nullable(r.SupersededByID), supersededAt, r.State,
		r.StateChangedAt, nullable(r.ErrorCode), nullable(r.ErrorMessage), r.NeedsAdminAttention, r.NextAttemptAt,
		r.FirstFailedAt, r.SubmitRetryCount, r.NotRegisteredReimportCount, terminalAt, r.SubmittedAt, registeredAt,
		r.PartiallyRegisteredAt, r.ResubmitNotBefore, nullable(r.StudentNumber), nullable(r.Course.Code),
		nullable(r.GradeScaleID), nullable(r.GradeID), credits, r.AttainedAt, nullable(r.SubmittedAttainmentID),
		nullable(r.SisuAttainmentID), nullable(r.SisuPersonID))
	// The history opens with the row's creation and ends with its current state, as the pipeline writes it.
	exec(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, to_state)
VALUES ($1, $2, $3, 'created', 'pending')`, NewID(), r.StateChangedAt.Add(-72*time.Hour), r.ID)
	if r.State != "pending" {
		exec(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state, error_code)
VALUES ($1, $2, $3, 'state_changed', 'pending', $4, $5)`, NewID(), r.StateChangedAt, r.ID, r.State, nullable(r.ErrorCode))
	}
	return r.ID
}

func exec(tb testing.TB, st *store.Store, sql string, args ...any) {
	tb.Helper()
	if _, err := st.Pool().Exec(context.Background(), sql, args...); err != nil {
		tb.Fatalf("storetest fixture: %v\n%s", err, sql)
	}
}

// AddEvent appends a pipeline event (no actor) to a registration's history.
func AddEvent(tb testing.TB, st *store.Store, registrationID string, at time.Time, kind, fromState, toState, message string) {
	tb.Helper()
	exec(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state, message)
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
	exec(tb, st, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, to_state, error_code,
  suotar_endpoint, suotar_requested_at, suotar_answered_at, suotar_answer)
VALUES ($1, $2, $3, $4::credit_registration_event_kind, $5::credit_registration_state, $6::credit_registration_error_code,
  $7::suotar_endpoint, $8, $2, $9::suotar_answer)`,
		NewID(), at, registrationID, c.Kind, nullable(c.ToState), nullable(c.ErrorCode), c.Endpoint, c.RequestedAt, c.Answer)
}
