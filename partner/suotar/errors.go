package suotar

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind sorts a failed call by what a person can do about it.
type Kind string

// The kinds of failed call. A call fails as a whole only for these; an answer about one item is
// never a failed call (see Answer).
const (
	// KindInvalidInput: regdesk refused to send the call (an empty student number, say).
	KindInvalidInput Kind = "invalidInput"
	// KindTooLarge: too many items or too many bytes, refused by regdesk or by Suotar (413).
	KindTooLarge Kind = "tooLarge"
	// KindUnauthorized: Suotar refused regdesk's token (401 with a coded body).
	KindUnauthorized Kind = "unauthorized"
	// KindWrongBaseURL: the address answers, but not as Suotar's batch API: the legacy bare
	// {"error":"Unauthorized access"} 401 of an unknown path, a 404 or 405, or a redirect.
	KindWrongBaseURL Kind = "wrongBaseURL"
	// KindMalformed: Suotar refused the request as malformed (400); nothing was acted on.
	KindMalformed Kind = "malformed"
	// KindRejected: any other 4xx.
	KindRejected Kind = "rejected"
	// KindUnavailable: Suotar could not read Sisu's data (503) or asked us to slow down (429).
	KindUnavailable Kind = "unavailable"
	// KindServerError: 500, any other 5xx, or a proxy's HTML error page.
	KindServerError Kind = "serverError"
	// KindTimeout: no complete answer within the client's time limit or the caller's deadline.
	KindTimeout Kind = "timeout"
	// KindTransport: no answer at all: connection refused, reset or closed.
	KindTransport Kind = "transport"
	// KindBadAnswer: a 200 that cannot be read as this call's answer.
	KindBadAnswer Kind = "badAnswer"
	// KindCanceled: the caller gave up (its context was cancelled).
	KindCanceled Kind = "canceled"
)

// Error is a call that failed as a whole. Its fields are for logs; UserMessage is what a support
// person sees. Nothing from Suotar's body reaches UserMessage: bodies may echo student numbers, names
// or, from a misconfigured proxy, anything at all.
type Error struct {
	Kind     Kind
	Endpoint Endpoint
	// CorrelationID is the X-Correlation-Id the call was sent with; empty when it was never sent.
	CorrelationID string
	// HTTPStatus is the status Suotar answered with; 0 when there was no answer.
	HTTPStatus int
	// Code and RawCode are the request-level code of Suotar's error body, when it had one.
	Code    Code
	RawCode string
	// ServerMessage is the message of Suotar's error body. Suotar writes these for clients, but they
	// may name the offending input, so they belong in logs, not on screen.
	ServerMessage string
	// Sample is the start of an unreadable body, scrubbed of digit runs, e-mail addresses and
	// tokens, so a log can show what came back without holding personal data.
	Sample string
	// Detail says what regdesk found wrong, in its own words.
	Detail string
	// Limit is the time limit that ran out, for KindTimeout caused by the client's own limit.
	Limit time.Duration
	// Err is the underlying error, if any.
	Err error
}

// Error describes the failure for logs.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("suotar")
	if e.Endpoint != "" {
		b.WriteString(" " + string(e.Endpoint))
	}
	b.WriteString(": " + string(e.Kind))
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.HTTPStatus)
		if e.RawCode != "" {
			b.WriteString(" " + e.RawCode)
		}
		b.WriteString(")")
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

// Retryable reports whether sending the same call again later may succeed. Every endpoint this
// client calls only reads, so even a 500 that "may have landed" is safe to repeat.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindUnavailable, KindServerError, KindTimeout, KindTransport, KindBadAnswer:
		return true
	}
	return false
}

// UserMessage says in one sentence what happened and what the reader can do about it.
func (e *Error) UserMessage() string {
	switch e.Kind {
	case KindInvalidInput:
		return "regdesk did not send the lookup to Suotar: " + e.Detail + "."
	case KindTooLarge:
		return "The lookup is too large for one Suotar call; look up fewer at a time."
	case KindUnauthorized:
		return "regdesk's Suotar token was refused: tell an administrator."
	case KindWrongBaseURL:
		return "regdesk is calling the wrong Suotar address: tell an administrator."
	case KindMalformed:
		return "Suotar refused the lookup as malformed: tell an administrator."
	case KindRejected:
		return "Suotar refused the lookup (HTTP " + strconv.Itoa(e.HTTPStatus) + "): tell an administrator."
	case KindUnavailable:
		return "Suotar is unavailable, try again in a minute."
	case KindServerError:
		return "Suotar failed while answering; try again in a minute."
	case KindTimeout:
		if e.Limit > 0 {
			return "Suotar did not answer within " + spell(e.Limit) + "; try again."
		}
		return "Suotar did not answer in time; try again."
	case KindTransport:
		return "regdesk could not reach Suotar; try again in a minute."
	case KindBadAnswer:
		return "Suotar's answer could not be read; try again, and tell an administrator if it happens again."
	case KindCanceled:
		return "The lookup was cancelled."
	}
	return "The Suotar lookup failed; try again."
}

// spell writes a time limit the way a person says it: "50 seconds", "2 minutes", "1.5 seconds".
func spell(d time.Duration) string {
	unit := func(n int64, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + many
	}
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute", "minutes")
	case d >= time.Second && d%time.Second == 0:
		return unit(int64(d/time.Second), "second", "seconds")
	default:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " seconds"
	}
}

var (
	scrubEmail  = regexp.MustCompile(`[^\s"'<>@,;:]+@[^\s"'<>@,;:]+`)
	scrubToken  = regexp.MustCompile(`(?i)(bearer\s+|suotar_)[A-Za-z0-9._~+/=-]+`)
	scrubDigits = regexp.MustCompile(`[0-9]{5,}`)
)

// sampleLen bounds a logged body sample: enough to tell an HTML page from truncated JSON.
const sampleLen = 120

// scrub returns a short, single-line, personal-data-free start of body for logs. Student numbers
// and person ids are digit runs, so every run of five or more digits goes; dates survive.
func scrub(body []byte, token string) string {
	s := body
	if len(s) > 4*sampleLen {
		s = s[:4*sampleLen]
	}
	out := strings.ToValidUTF8(string(s), "?")
	if token != "" {
		out = strings.ReplaceAll(out, token, "<token>")
	}
	out = scrubToken.ReplaceAllString(out, "<token>")
	out = scrubEmail.ReplaceAllString(out, "<email>")
	out = scrubDigits.ReplaceAllString(out, "<digits>")
	out = strings.Join(strings.Fields(out), " ")
	if utf8.RuneCountInString(out) > sampleLen {
		r := []rune(out)
		out = string(r[:sampleLen]) + "…"
	}
	return out
}
