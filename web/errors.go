package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// Error is a failure with an HTTP status and a message that is safe to show a person.
type Error struct {
	Status int
	// Key is the catalogue key of the words for the person, Args its placeholders as name–value
	// pairs; renderError says them in the person's language.
	Key  string
	Args []any
	// Message is words already chosen, for an Error without a Key; never holds internals.
	Message string
	Err     error // for the log; never shown
	// Field is the input field the message is about, when checkInput refused one; a form that
	// shows its own problems in place reads it.
	Field string
	// RetryAfter, when set, is the answer's Retry-After: when trying again is worth it.
	RetryAfter string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %v", e.Status, cmp.Or(e.Key, e.Message), e.Err)
}

// text is the Error's words in the language of ctx.
func (e *Error) text(ctx context.Context) string {
	if e.Key != "" {
		return i18n.T(ctx, e.Key, e.Args...)
	}
	return e.Message
}

// errorKey is an Error with the catalogue's words for status.
func errorKey(status int, key string, args ...any) *Error {
	return &Error{Status: status, Key: key, Args: args}
}
func (e *Error) Unwrap() error { return e.Err }

// badRequest reports a person's mistake in words already chosen; prefer badRequestKey, whose
// words come in the person's language.
func badRequest(msg string) error { return &Error{Status: http.StatusBadRequest, Message: msg} }

// validationWords is a store.ValidationError in the person's language: its catalogue sentence,
// or its English message when it names none.
func validationWords(loc *i18n.Localizer, ve *store.ValidationError) string {
	if ve.Key != "" && loc.Has(ve.Key) {
		return loc.T(ve.Key, ve.Args...)
	}
	return ve.Message
}

// validationName is a store.ValidationError as an argument of another sentence, said in the
// language that sentence is rendered in.
func validationName(ve *store.ValidationError) i18n.Name {
	return i18n.Name{Key: ve.Key, Args: ve.Args, Fallback: ve.Message}
}

// badRequestKey reports a person's mistake in words they can act on: the catalogue's key.
func badRequestKey(key string, args ...any) error {
	return errorKey(http.StatusBadRequest, key, args...)
}

// unknownValue answers a value that is none of the choices regdesk offers for field (an option of
// a list, a button's value): like every other bad input, a 422 naming the field, with the value
// and the choices there are (valid, in the person's words), and nothing is done.
func unknownValue(field, value string, valid []string) error {
	if r := []rune(value); len(r) > maxShownValue {
		value = string(r[:maxShownValue]) + "…"
	}
	return &Error{Status: http.StatusUnprocessableEntity, Field: field, Key: "error.fieldUnknown",
		Args: []any{"Field", fieldName(field), "Value", value, "Valid", strings.Join(valid, ", ")}}
}

// maxShownValue bounds how much of a refused value its message repeats.
const maxShownValue = 60

var (
	errNotFound = errorKey(http.StatusNotFound, "error.notFound")
	errMethod   = errorKey(http.StatusMethodNotAllowed, "error.method")
)

// renderError is the only place an error becomes a response. It picks the status and the words,
// logs what the person cannot see, and answers with a page or, for an htmx swap, a flash.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the client went away; there is no one to answer
	}
	loc := i18n.From(r.Context())
	status, msg := http.StatusInternalServerError, loc.T("error.internal")
	dbTrouble := false
	if e, ok := errors.AsType[*Error](err); ok {
		status, msg = e.Status, e.text(r.Context())
		if e.RetryAfter != "" {
			w.Header().Set("Retry-After", e.RetryAfter)
		}
	} else if errors.Is(err, store.ErrNotFound) {
		status, msg = errNotFound.Status, errNotFound.text(r.Context())
	} else if errors.Is(err, store.ErrRefused) {
		// The action paths answer a refusal in their panel; one that escapes them is still the
		// rules refusing what was asked, not a fault.
		status, msg = http.StatusUnprocessableEntity, loc.T("error.refused")
	} else if errors.Is(err, store.ErrConflict) {
		status, msg = http.StatusConflict, loc.T("error.conflict")
	} else if errors.Is(err, store.ErrTimeout) {
		status, msg = http.StatusServiceUnavailable, loc.T("error.timeout")
	} else if store.Unreachable(err) {
		// A person can only wait, so the words say how long and that nothing they did was lost.
		status, msg = http.StatusServiceUnavailable, loc.T("error.databaseDown")
		w.Header().Set("Retry-After", "5")
		dbTrouble = true
	} else if errors.Is(err, context.DeadlineExceeded) {
		status, msg = http.StatusServiceUnavailable, loc.T("error.databaseSlow")
		w.Header().Set("Retry-After", "30")
		dbTrouble = true
	}
	// The request's own time may be spent (that may be the error); the answer still goes out, and
	// templ refuses to render on a done context.
	r = r.WithContext(context.WithoutCancel(r.Context()))
	id := requestIDFrom(r.Context())
	if dbTrouble {
		// Once per interval with a count: a database that is down fails every request.
		s.dbTrouble.note(r.Context(), s, "database trouble", err)
	} else if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "err", err, "method", r.Method, "path", r.URL.Path, "request_id", id, "status", status)
	} else {
		s.log.DebugContext(r.Context(), "request refused", "err", err, "path", r.URL.Path, "request_id", id, "status", status)
	}
	if wantsFragment(r) {
		// A swap failed: put the message where the person looks, not into the swap's target.
		w.Header().Set("HX-Retarget", "#"+views.IDFlash)
		w.Header().Set("HX-Reswap", "innerHTML")
		_ = s.render(w, r, status, nil, views.ErrorFlash(status, msg, id))
		return
	}
	_ = s.render(w, r, status, views.ErrorPage(s.page(r, loc.T("error.title")), status, msg, id), nil)
}

// parseRefused is the answer to a filter value schedule does not know: what was asked for, the
// value, and the values it knows, in the person's language.
func parseRefused(err error) error {
	pe, ok := errors.AsType[*schedule.ParseError](err)
	if !ok {
		return err
	}
	kind := i18n.Name{Key: "kind." + strings.ReplaceAll(pe.Kind, " ", "_"), Fallback: pe.Kind}
	if strings.TrimSpace(pe.Input) == "" {
		return badRequestKey("error.parse.empty", "Kind", kind, "Valid", strings.Join(pe.Valid, ", "))
	}
	return badRequestKey("error.parse.unknown", "Kind", kind, "Value", pe.Input, "Valid", strings.Join(pe.Valid, ", "))
}
