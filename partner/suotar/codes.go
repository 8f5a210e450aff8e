package suotar

// Code is a wire code: the code of one answer item, or the code of a request-level error body.
// Suotar adds codes over time, so a code this package does not know is kept as CodeUnknown with
// the raw string beside it (Answer.RawCode, Error.RawCode) rather than being guessed at.
type Code string

// Per-item codes of registry-api.md §2.4, request-level codes of §2.1, and the legacy codes older
// Suotar versions still send. Each is spelt exactly as on the wire.
const (
	CodePersonFound                   Code = "personFound"
	CodePersonNotFound                Code = "personNotFound"
	CodeEnrolmentFound                Code = "enrolmentFound"
	CodeCourseCodeNotFound            Code = "courseCodeNotFound"
	CodeEnrolmentNotFound             Code = "enrolmentNotFound"
	CodeEnrolmentNotAccepted          Code = "enrolmentNotAccepted"
	CodeSent                          Code = "sent"
	CodeDuplicateAttainment           Code = "duplicateAttainment"
	CodeNotImprovedAttainment         Code = "notImprovedAttainment"
	CodeDuplicateRequestItem          Code = "duplicateRequestItem"
	CodeCourseNotAllowed              Code = "courseNotAllowed"
	CodeInvalidCredits                Code = "invalidCredits"
	CodeInvalidGradeForGradeScale     Code = "invalidGradeForGradeScale"
	CodeGradeScaleMismatch            Code = "gradeScaleMismatch"
	CodeStudyRightNotValid            Code = "studyRightNotValid"
	CodeAcceptorNotFound              Code = "acceptorNotFound"
	CodeSisuValidationFailed          Code = "sisuValidationFailed"
	CodeSisuTimeout                   Code = "sisuTimeout"
	CodeSubmissionPending             Code = "submissionPending"
	CodeRegistered                    Code = "registered"
	CodeNotRegistered                 Code = "notRegistered"
	CodeMisregistered                 Code = "misregistered"
	CodeEnrolmentsListed              Code = "enrolmentsListed"
	CodeCourseAllowed                 Code = "courseAllowed"
	CodeServiceTemporarilyUnavailable Code = "serviceTemporarilyUnavailable"
	CodeUnauthorized                  Code = "unauthorized"
	CodeMalformedRequest              Code = "malformedRequest"
	CodeRequestTooLarge               Code = "requestTooLarge"
	CodeInternalError                 Code = "internalError"
	CodeSisuTemporarilyUnavailable    Code = "sisuTemporarilyUnavailable"
	CodeFound                         Code = "found"
	CodeProductAccessTokenNotFound    Code = "productAccessTokenNotFound"

	// CodeUnknown stands for any code not listed above; the raw string travels beside it.
	CodeUnknown Code = "unknown"
)

var knownCodes = map[Code]bool{
	CodePersonFound: true, CodePersonNotFound: true, CodeEnrolmentFound: true,
	CodeCourseCodeNotFound: true, CodeEnrolmentNotFound: true, CodeEnrolmentNotAccepted: true,
	CodeSent: true, CodeDuplicateAttainment: true, CodeNotImprovedAttainment: true,
	CodeDuplicateRequestItem: true, CodeCourseNotAllowed: true, CodeInvalidCredits: true,
	CodeInvalidGradeForGradeScale: true, CodeGradeScaleMismatch: true, CodeStudyRightNotValid: true,
	CodeAcceptorNotFound: true, CodeSisuValidationFailed: true, CodeSisuTimeout: true,
	CodeSubmissionPending: true, CodeRegistered: true, CodeNotRegistered: true,
	CodeMisregistered: true, CodeEnrolmentsListed: true, CodeCourseAllowed: true,
	CodeServiceTemporarilyUnavailable: true, CodeUnauthorized: true, CodeMalformedRequest: true,
	CodeRequestTooLarge: true, CodeInternalError: true, CodeSisuTemporarilyUnavailable: true,
	CodeFound: true, CodeProductAccessTokenNotFound: true,
}

// ParseCode returns the Code for a wire string, or CodeUnknown when this package does not know
// it, so a new Suotar code is never taken for a known one.
func ParseCode(raw string) Code {
	if c := Code(raw); knownCodes[c] {
		return c
	}
	return CodeUnknown
}

// Known reports whether c is one of the listed wire codes.
func (c Code) Known() bool { return knownCodes[c] }

// String returns the wire spelling.
func (c Code) String() string { return string(c) }
