package lms

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind sorts a failed call by whether anything may have been applied and what a person can do.
type Kind string

// The kinds of failed call.
const (
	// KindInvalidInput: regdesk refused to send the call (an empty reason, an id that is not a
	// uuid, more ids than the LMS takes). Nothing was sent.
	KindInvalidInput Kind = "invalidInput"
	// KindNotSent: the LMS could not be reached at all (connection refused, no such host, a dead
	// context before sending). Nothing was applied.
	KindNotSent Kind = "notSent"
	// KindUnauthorized: the LMS refused regdesk's token or the acting user (401). Nothing applied.
	KindUnauthorized Kind = "unauthorized"
	// KindForbidden: the acting user has no credit-registration admin rights in the LMS (403).
	// Nothing applied.
	KindForbidden Kind = "forbidden"
	// KindNotFound: the LMS has no such registration, phase row, or path (404). Nothing applied.
	KindNotFound Kind = "notFound"
	// KindRejected: the LMS answered 400 or another 4xx: a definite no, nothing applied. Rejection
	// says which one where the message is one this package knows.
	KindRejected Kind = "rejected"
	// KindUnknownOutcome: the call may or may not have been applied: a timeout, a connection lost
	// after sending, a 5xx, a proxy's HTML page, a redirect, or a 2xx that cannot be read. Re-read
	// the row before showing or retrying anything.
	KindUnknownOutcome Kind = "unknownOutcome"
)

// Rejection names the LMS's 400 answers by their message, so a caller can show them in the
// person's language. RejectionOther is any message this package does not know.
type Rejection string

// The LMS's 400s (messages quoted in the package documentation).
const (
	RejectionOther Rejection = "other"
	// RejectionReasonRequired: "A reason is required."
	RejectionReasonRequired Rejection = "reasonRequired"
	// RejectionSuperseded: "This attempt has been replaced by a later one. Act on the later one."
	RejectionSuperseded Rejection = "superseded"
	// RejectionMovedOn: another writer moved the row between the LMS's read and its write.
	RejectionMovedOn Rejection = "movedOn"
	// RejectionTooManyIDs: "At most 500 registrations per call."
	RejectionTooManyIDs Rejection = "tooManyIds"
	// RejectionNothingToDismiss: "Nothing puts this registration on the Needs attention queue."
	RejectionNothingToDismiss Rejection = "nothingToDismiss"
	// RejectionUnknownPhase: "Not one of the canonical phase names."
	RejectionUnknownPhase Rejection = "unknownPhase"
	// RejectionNoModuleConfiguration: "This course module has no credit registration
	// configuration."
	RejectionNoModuleConfiguration Rejection = "noModuleConfiguration"
)

var rejectionMessages = []struct {
	prefix string
	r      Rejection
}{
	{"A reason is required.", RejectionReasonRequired},
	{"This attempt has been replaced by a later one.", RejectionSuperseded},
	{"At most ", RejectionTooManyIDs},
	{"Nothing puts this registration on the Needs attention queue.", RejectionNothingToDismiss},
	{"Not one of the canonical phase names.", RejectionUnknownPhase},
	{"This course module has no credit registration configuration.", RejectionNoModuleConfiguration},
}

var movedOnMessage = regexp.MustCompile(`^Credit registration \S+ is in \S+, not the expected \S*: refusing to overwrite it\.$`)

func rejectionOf(message string) Rejection {
	for _, m := range rejectionMessages {
		if strings.HasPrefix(message, m.prefix) {
			return m.r
		}
	}
	if movedOnMessage.MatchString(message) {
		return RejectionMovedOn
	}
	return RejectionOther
}

// Error is a call that failed as a whole. Its fields are for logs and for deciding what to show;
// UserMessage is what a support person sees.
type Error struct {
	Kind Kind
	// Endpoint is the endpoint's path below the admin prefix, with ids as placeholders:
	// "registrations/{id}/transition".
	Endpoint string
	// HTTPStatus is the LMS's status; 0 when there was no answer.
	HTTPStatus int
	// Rejection is set for KindRejected.
	Rejection Rejection
	// Message is the message of the LMS's error body, when it had one. The LMS writes these for
	// the people using its admin pages.
	Message string
	// Sample is the start of an unreadable body, scrubbed of digit runs, e-mail addresses and the
	// token, for logs.
	Sample string
	// Detail says what regdesk found wrong, in its own words.
	Detail string
	// Err is the underlying error, if any.
	Err error
}

// Error describes the failure for logs. It never holds the token.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("lms")
	if e.Endpoint != "" {
		b.WriteString(" " + e.Endpoint)
	}
	b.WriteString(": " + string(e.Kind))
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.HTTPStatus)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// OutcomeUnknown reports whether the call may have been applied although it failed.
func (e *Error) OutcomeUnknown() bool { return e.Kind == KindUnknownOutcome }

// UserMessage says in one sentence what happened and what the reader can do about it.
func (e *Error) UserMessage() string {
	switch e.Kind {
	case KindInvalidInput:
		return "regdesk did not send this to the LMS: " + e.Detail + "."
	case KindNotSent:
		return "regdesk could not reach the LMS, so nothing was changed; try again in a minute."
	case KindUnauthorized:
		return "The LMS did not accept regdesk's credentials or your LMS user: tell an administrator."
	case KindForbidden:
		return "Your LMS user has no credit-registration admin rights in the LMS: ask an LMS administrator for the role."
	case KindNotFound:
		return "The LMS has no such registration: it may have been removed. Nothing was changed."
	case KindRejected:
		if e.Message != "" {
			return "The LMS refused this: " + e.Message
		}
		return "The LMS refused this (HTTP " + strconv.Itoa(e.HTTPStatus) + "). Nothing was changed."
	case KindUnknownOutcome:
		return "The LMS's answer was lost, so it may or may not have done this: look at the row now before trying again."
	}
	return "The LMS call failed."
}

// IsOutcomeUnknown reports whether err is an *Error whose call may have been applied.
func IsOutcomeUnknown(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.OutcomeUnknown()
}

var (
	scrubEmail  = regexp.MustCompile(`[^\s"'<>@,;:]+@[^\s"'<>@,;:]+`)
	scrubBearer = regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._~+/=-]+`)
	scrubDigits = regexp.MustCompile(`[0-9]{5,}`)
)

// sampleLen bounds a logged body sample: enough to tell an HTML page from truncated JSON.
const sampleLen = 120

// scrub returns a short, single-line start of body for logs, without the token, e-mail addresses
// or student-number-like digit runs.
func scrub(body []byte, token string) string {
	s := body
	if len(s) > 4*sampleLen {
		s = s[:4*sampleLen]
	}
	out := strings.ToValidUTF8(string(s), "?")
	if token != "" {
		out = strings.ReplaceAll(out, token, "<token>")
	}
	out = scrubBearer.ReplaceAllString(out, "<token>")
	out = scrubEmail.ReplaceAllString(out, "<email>")
	out = scrubDigits.ReplaceAllString(out, "<digits>")
	out = strings.Join(strings.Fields(out), " ")
	if utf8.RuneCountInString(out) > sampleLen {
		r := []rune(out)
		out = string(r[:sampleLen]) + "…"
	}
	return out
}
