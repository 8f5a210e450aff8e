package schedule

// ErrorCode is a ledger row's credit_registration_error_code: why the row is
// where it is. A row with no error (NULL) has the empty ErrorCode.
type ErrorCode string

// The error codes, in the order of domain.md §5.2: by retryability, then as
// listed there. Values through ErrorNotRegistered come from Suotar.
const (
	// ErrorServiceTemporarilyUnavailable is an outage of Suotar or Sisu.
	ErrorServiceTemporarilyUnavailable ErrorCode = "service_temporarily_unavailable"
	// ErrorTransportError is a request that did not arrive or an answer lost.
	ErrorTransportError ErrorCode = "transport_error"
	// ErrorNotRegistered is Suotar having no trace of a submission; the row
	// is resent.
	ErrorNotRegistered ErrorCode = "not_registered"
	// ErrorUnauthorized is Suotar rejecting our credentials.
	ErrorUnauthorized ErrorCode = "unauthorized"
	// ErrorMalformedRequest is Suotar unable to read our request.
	ErrorMalformedRequest ErrorCode = "malformed_request"
	// ErrorUnexpectedResponse is an answer we could not make sense of.
	ErrorUnexpectedResponse ErrorCode = "unexpected_response"
	// ErrorSisuTimeout is a submission that may or may not exist.
	ErrorSisuTimeout ErrorCode = "sisu_timeout"
	// ErrorPersonNotFound is a student number Sisu does not know.
	ErrorPersonNotFound ErrorCode = "person_not_found"
	// ErrorEnrolmentNotFound is a student not enrolled on the course.
	ErrorEnrolmentNotFound ErrorCode = "enrolment_not_found"
	// ErrorEnrolmentNotAccepted is an enrolment not yet accepted.
	ErrorEnrolmentNotAccepted ErrorCode = "enrolment_not_accepted"
	// ErrorStudyRightNotValid is a study right that does not cover the credit.
	ErrorStudyRightNotValid ErrorCode = "study_right_not_valid"
	// ErrorCourseCodeNotFound is a course code Sisu does not know.
	ErrorCourseCodeNotFound ErrorCode = "course_code_not_found"
	// ErrorCourseNotAllowed is a course code Suotar does not register for.
	ErrorCourseNotAllowed ErrorCode = "course_not_allowed"
	// ErrorInvalidGradeForGradeScale is a grade not on the course's scale.
	ErrorInvalidGradeForGradeScale ErrorCode = "invalid_grade_for_grade_scale"
	// ErrorGradeScaleMismatch is our grade scale differing from Sisu's.
	ErrorGradeScaleMismatch ErrorCode = "grade_scale_mismatch"
	// ErrorInvalidCredits is credits Sisu does not accept for the course.
	ErrorInvalidCredits ErrorCode = "invalid_credits"
	// ErrorNoGradeScaleMapping is a grade we cannot translate for Sisu.
	ErrorNoGradeScaleMapping ErrorCode = "no_grade_scale_mapping"
	// ErrorMissingUHCourseCode is a module without a course code.
	ErrorMissingUHCourseCode ErrorCode = "missing_uh_course_code"
	// ErrorMissingECTSCredits is a module without credits.
	ErrorMissingECTSCredits ErrorCode = "missing_ects_credits"
	// ErrorSisuValidationFailed is Sisu rejecting the content.
	ErrorSisuValidationFailed ErrorCode = "sisu_validation_failed"
	// ErrorMisregistered is Sisu having reversed the attainment.
	ErrorMisregistered ErrorCode = "misregistered"
	// ErrorRetryWindowExpired is a row that failed for SubmitMaxRetryAge.
	ErrorRetryWindowExpired ErrorCode = "retry_window_expired"
	// ErrorUnknown is an answer code we cannot classify.
	ErrorUnknown ErrorCode = "unknown"
)

var errorCodes = newEnumTable("error code",
	ErrorServiceTemporarilyUnavailable,
	ErrorTransportError,
	ErrorNotRegistered,
	ErrorUnauthorized,
	ErrorMalformedRequest,
	ErrorUnexpectedResponse,
	ErrorSisuTimeout,
	ErrorPersonNotFound,
	ErrorEnrolmentNotFound,
	ErrorEnrolmentNotAccepted,
	ErrorStudyRightNotValid,
	ErrorCourseCodeNotFound,
	ErrorCourseNotAllowed,
	ErrorInvalidGradeForGradeScale,
	ErrorGradeScaleMismatch,
	ErrorInvalidCredits,
	ErrorNoGradeScaleMapping,
	ErrorMissingUHCourseCode,
	ErrorMissingECTSCredits,
	ErrorSisuValidationFailed,
	ErrorMisregistered,
	ErrorRetryWindowExpired,
	ErrorUnknown,
)

// ErrorCodes lists every error code in the order of domain.md §5.2; the slice
// is the caller's to keep.
func ErrorCodes() []ErrorCode { return errorCodes.list() }

// ParseErrorCode reads an error code typed or picked by a user: its database
// value or its label, ignoring case and surrounding space. The error is a
// *ParseError whose message can be shown to that user.
func ParseErrorCode(s string) (ErrorCode, error) { return errorCodes.parse(s) }

// Valid reports whether c is one of the 23 codes; the empty code (NULL) is
// not.
func (c ErrorCode) Valid() bool { return errorCodes.valid(c) }

// Class is the pipeline's retryability of c (L/classification.rs); "" for the
// empty or an unknown code, which the pipeline never stores.
func (c ErrorCode) Class() Retryability {
	switch c {
	case ErrorServiceTemporarilyUnavailable, ErrorTransportError, ErrorNotRegistered,
		ErrorUnauthorized, ErrorMalformedRequest, ErrorUnexpectedResponse:
		return RetryableTransient
	case ErrorSisuTimeout:
		return VerifyOnly
	case ErrorPersonNotFound, ErrorEnrolmentNotFound, ErrorEnrolmentNotAccepted, ErrorStudyRightNotValid:
		return PermanentNeedsStudent
	case ErrorCourseCodeNotFound, ErrorCourseNotAllowed, ErrorInvalidGradeForGradeScale,
		ErrorGradeScaleMismatch, ErrorInvalidCredits, ErrorNoGradeScaleMapping,
		ErrorMissingUHCourseCode, ErrorMissingECTSCredits:
		return PermanentNeedsConfig
	case ErrorSisuValidationFailed, ErrorMisregistered, ErrorRetryWindowExpired, ErrorUnknown:
		return PermanentNeedsAdmin
	}
	return ""
}

// IsRepeatableRejection reports whether resending unchanged would be rejected
// again, which is why the dashboard asks for extra confirmation before a bulk
// resubmit of such rows.
func (c ErrorCode) IsRepeatableRejection() bool {
	switch c.Class() {
	case PermanentNeedsStudent, PermanentNeedsConfig:
		return true
	}
	return c == ErrorSisuValidationFailed
}

// Retryability is how the pipeline treats an error code: whether it retries,
// only verifies, or waits for a student, the course setup or an admin.
type Retryability string

// The retryability classes of L/classification.rs.
const (
	// RetryableTransient codes are retried with backoff.
	RetryableTransient Retryability = "retryable_transient"
	// VerifyOnly codes may have created an attainment, so they are only
	// ever verified, never resent.
	VerifyOnly Retryability = "verify_only"
	// PermanentNeedsStudent codes wait for the student to act.
	PermanentNeedsStudent Retryability = "permanent_needs_student"
	// PermanentNeedsConfig codes wait for the course setup to be fixed.
	PermanentNeedsConfig Retryability = "permanent_needs_config"
	// PermanentNeedsAdmin codes wait for an admin.
	PermanentNeedsAdmin Retryability = "permanent_needs_admin"
)

var retryabilities = newEnumTable("retryability",
	RetryableTransient,
	VerifyOnly,
	PermanentNeedsStudent,
	PermanentNeedsConfig,
	PermanentNeedsAdmin,
)

// Retryabilities lists the classes from the most to the least automatic.
func Retryabilities() []Retryability { return retryabilities.list() }

// Valid reports whether r is one of the five classes.
func (r Retryability) Valid() bool { return retryabilities.valid(r) }
