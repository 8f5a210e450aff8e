package schedule_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
)

func TestStatesInDatabaseOrder(t *testing.T) {
	t.Parallel()

	want := []schedule.State{
		"pending", "ready_to_submit", "resolving_enrolment", "checking_enrolment",
		"no_usable_enrolment", "submitting", "submission_uncertain", "awaiting_verification",
		"partially_registered", "registered", "duplicate", "not_improved", "misregistered",
		"failed_retryable", "failed_permanent", "blocked", "cancelled",
	}
	if got := schedule.States(); !slices.Equal(got, want) {
		t.Errorf("States() = %v, want %v", got, want)
	}
	got := schedule.States()
	got[0] = "changed"
	if again := schedule.States(); again[0] != schedule.StatePending {
		t.Errorf("States()[0] after a caller changed its copy = %q, want %q", again[0], schedule.StatePending)
	}
}

func TestStatePredicates(t *testing.T) {
	t.Parallel()

	tests := []struct {
		state                        schedule.State
		terminal, success, verifying bool
	}{
		{schedule.StatePending, false, false, false},
		{schedule.StateReadyToSubmit, false, false, false},
		{schedule.StateResolvingEnrolment, false, false, false},
		{schedule.StateCheckingEnrolment, false, false, false},
		{schedule.StateNoUsableEnrolment, false, false, false},
		{schedule.StateSubmitting, false, false, false},
		{schedule.StateSubmissionUncertain, false, false, true},
		{schedule.StateAwaitingVerification, false, false, true},
		{schedule.StatePartiallyRegistered, false, false, true},
		{schedule.StateRegistered, true, true, false},
		{schedule.StateDuplicate, true, true, false},
		{schedule.StateNotImproved, true, true, false},
		{schedule.StateMisregistered, false, false, false},
		{schedule.StateFailedRetryable, false, false, false},
		{schedule.StateFailedPermanent, true, false, false},
		{schedule.StateBlocked, false, false, false},
		{schedule.StateCancelled, true, false, false},
		{"no_such_state", false, false, false},
	}
	if got, want := len(tests)-1, len(schedule.States()); got != want {
		t.Fatalf("table covers %d states, want %d", got, want)
	}
	for _, tc := range tests {
		t.Run(string(tc.state), func(t *testing.T) {
			t.Parallel()

			if got := tc.state.IsTerminal(); got != tc.terminal {
				t.Errorf("%q.IsTerminal() = %v, want %v", tc.state, got, tc.terminal)
			}
			if got := tc.state.IsSuccess(); got != tc.success {
				t.Errorf("%q.IsSuccess() = %v, want %v", tc.state, got, tc.success)
			}
			if got := tc.state.InVerification(); got != tc.verifying {
				t.Errorf("%q.InVerification() = %v, want %v", tc.state, got, tc.verifying)
			}
		})
	}
}

// described is what every enumeration in the package offers the edge: its values, which the
// edge's catalogue names and explains (views/i18n's TestEveryCodeHasWords holds it to that).
type described interface {
	~string
	Valid() bool
}

// checkDescribed asserts every value is valid and parses from its value in any case, and that
// anything else is refused with a *ParseError listing the accepted values.
func checkDescribed[T described](t *testing.T, values []T, parse func(string) (T, error)) {
	t.Helper()

	seen := map[string]T{}
	for _, v := range values {
		if !v.Valid() {
			t.Errorf("%q.Valid() = false, want true", v)
		}
		if other, dup := seen[strings.ToLower(string(v))]; dup {
			t.Errorf("%q and %q are the same value", v, other)
		}
		seen[strings.ToLower(string(v))] = v
		for _, in := range []string{string(v), strings.ToUpper(string(v)), "  " + string(v) + " "} {
			if got, err := parse(in); err != nil || got != v {
				t.Errorf("parse(%q) = %q, %v, want %q, nil", in, got, err, v)
			}
		}
	}
	unknown := T("no_such_value")
	if unknown.Valid() {
		t.Errorf("unknown value: Valid() = true, want false")
	}
	for _, in := range []string{"", "   ", "no_such_value", string(values[0]) + "x"} {
		_, err := parse(in)
		var pe *schedule.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("parse(%q) error = %v, want a *schedule.ParseError", in, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, string(values[0])) || !strings.Contains(msg, string(values[len(values)-1])) {
			t.Errorf("parse(%q) error = %q, want it to list the accepted values", in, msg)
		}
		if strings.TrimSpace(in) != "" && !strings.Contains(err.Error(), in) {
			t.Errorf("parse(%q) error = %q, want it to repeat the input", in, err)
		}
	}
}

func TestStateDescriptions(t *testing.T) {
	t.Parallel()

	checkDescribed(t, schedule.States(), schedule.ParseState)
}

func TestParseStateErrorMessage(t *testing.T) {
	t.Parallel()

	tests := []struct {
		in, wantPrefix string
	}{
		{"", "no registration state given; use one of pending, ready_to_submit, "},
		{"done", `"done" is not a known registration state; use one of pending, `},
	}
	for _, tc := range tests {
		_, err := schedule.ParseState(tc.in)
		if err == nil || !strings.HasPrefix(err.Error(), tc.wantPrefix) {
			t.Errorf("ParseState(%q) error = %v, want prefix %q", tc.in, err, tc.wantPrefix)
		}
	}
}

func TestNever(t *testing.T) {
	t.Parallel()

	if got, want := schedule.Never.Format(time.RFC3339Nano), "9999-12-31T00:00:00Z"; got != want {
		t.Errorf("Never = %s, want %s", got, want)
	}
}

func TestErrorCodesInTableOrder(t *testing.T) {
	t.Parallel()

	want := []schedule.ErrorCode{
		"service_temporarily_unavailable", "transport_error", "not_registered", "unauthorized",
		"malformed_request", "unexpected_response", "sisu_timeout", "person_not_found",
		"enrolment_not_found", "enrolment_not_accepted", "study_right_not_valid",
		"course_code_not_found", "course_not_allowed", "invalid_grade_for_grade_scale",
		"grade_scale_mismatch", "invalid_credits", "no_grade_scale_mapping",
		"missing_uh_course_code", "missing_ects_credits", "sisu_validation_failed",
		"misregistered", "retry_window_expired", "unknown",
	}
	if got := schedule.ErrorCodes(); !slices.Equal(got, want) {
		t.Errorf("ErrorCodes() = %v, want %v", got, want)
	}
}

func TestErrorCodeClass(t *testing.T) {
	t.Parallel()

	const (
		rt  = schedule.RetryableTransient
		vo  = schedule.VerifyOnly
		stu = schedule.PermanentNeedsStudent
		cfg = schedule.PermanentNeedsConfig
		adm = schedule.PermanentNeedsAdmin
	)
	// Transcribed from domain.md §5.2, not derived from the code under test.
	tests := []struct {
		code       schedule.ErrorCode
		class      schedule.Retryability
		repeatable bool
	}{
		{"service_temporarily_unavailable", rt, false},
		{"transport_error", rt, false},
		{"not_registered", rt, false},
		{"unauthorized", rt, false},
		{"malformed_request", rt, false},
		{"unexpected_response", rt, false},
		{"sisu_timeout", vo, false},
		{"person_not_found", stu, true},
		{"enrolment_not_found", stu, true},
		{"enrolment_not_accepted", stu, true},
		{"study_right_not_valid", stu, true},
		{"course_code_not_found", cfg, true},
		{"course_not_allowed", cfg, true},
		{"invalid_grade_for_grade_scale", cfg, true},
		{"grade_scale_mismatch", cfg, true},
		{"invalid_credits", cfg, true},
		{"no_grade_scale_mapping", cfg, true},
		{"missing_uh_course_code", cfg, true},
		{"missing_ects_credits", cfg, true},
		{"sisu_validation_failed", adm, true},
		{"misregistered", adm, false},
		{"retry_window_expired", adm, false},
		{"unknown", adm, false},
		{"", "", false},
		{"no_such_code", "", false},
	}
	if got, want := len(tests)-2, len(schedule.ErrorCodes()); got != want {
		t.Fatalf("table covers %d codes, want %d", got, want)
	}
	for _, tc := range tests {
		if got := tc.code.Class(); got != tc.class {
			t.Errorf("%q.Class() = %q, want %q", tc.code, got, tc.class)
		}
		if got := tc.code.IsRepeatableRejection(); got != tc.repeatable {
			t.Errorf("%q.IsRepeatableRejection() = %v, want %v", tc.code, got, tc.repeatable)
		}
	}
}

func TestErrorCodeDescriptions(t *testing.T) {
	t.Parallel()

	checkDescribed(t, schedule.ErrorCodes(), schedule.ParseErrorCode)
	if schedule.ErrorCode("").Valid() {
		t.Error(`ErrorCode("").Valid() = true, want false: NULL is not a code`)
	}
}

func TestRetryabilities(t *testing.T) {
	t.Parallel()

	want := []schedule.Retryability{"retryable_transient", "verify_only", "permanent_needs_student", "permanent_needs_config", "permanent_needs_admin"}
	if got := schedule.Retryabilities(); !slices.Equal(got, want) {
		t.Errorf("Retryabilities() = %v, want %v", got, want)
	}
	for _, r := range want {
		if !r.Valid() {
			t.Errorf("%q: Valid() = false, want true", r)
		}
	}
}

func FuzzParseState(f *testing.F) {
	for _, s := range []string{"", "pending", " Awaiting Verification ", "PENDING", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		t.Parallel()

		st, err := schedule.ParseState(s)
		if err != nil {
			if st != "" {
				t.Errorf("ParseState(%q) = %q with an error, want the empty state", s, st)
			}
			return
		}
		if !st.Valid() {
			t.Errorf("ParseState(%q) = %q, not a valid state", s, st)
		}
		if again, err := schedule.ParseState(string(st)); err != nil || again != st {
			t.Errorf("ParseState(%q) = %q, %v, want %q, nil", st, again, err, st)
		}
	})
}
