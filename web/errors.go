package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"regdesk/store"
	"regdesk/views"
)

// Error is a failure with an HTTP status and a message that is safe to show a person.
type Error struct {
	Status  int
	Message string // for the person; never holds internals
	Err     error  // for the log; never shown
	// Field is the input field the message is about, when checkInput refused one; a form that
	// shows its own problems in place reads it.
	Field string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %v", e.Status, e.Message, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// badRequest reports a person's mistake in words they can act on.
func badRequest(msg string) error { return &Error{Status: http.StatusBadRequest, Message: msg} }

// The answers when the database cannot be used: a person can only wait, so the words say how
// long and that nothing they did was lost.
const (
	msgDatabaseDown = "regdesk cannot reach its database just now. Try again in a few seconds; nothing you had saved is lost."
	msgDatabaseSlow = "The database is not answering, so regdesk cannot show this now. Try again in a minute; nothing you had saved is lost."
)

var (
	errNotFound = &Error{Status: http.StatusNotFound, Message: "That page does not exist, or it is not yours to see."}
	errMethod   = &Error{Status: http.StatusMethodNotAllowed, Message: "That address does not take this kind of request."}
)

// renderError is the only place an error becomes a response. It picks the status and the words,
// logs what the person cannot see, and answers with a page or, for an htmx swap, a flash.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the client went away; there is no one to answer
	}
	status, msg := http.StatusInternalServerError, "Something went wrong on our side. It has been logged."
	dbTrouble := false
	if e, ok := errors.AsType[*Error](err); ok {
		status, msg = e.Status, e.Message
	} else if errors.Is(err, store.ErrNotFound) {
		status, msg = errNotFound.Status, errNotFound.Message
	} else if errors.Is(err, store.ErrRefused) {
		// The action paths answer a refusal in their panel; one that escapes them is still the
		// rules refusing what was asked, not a fault.
		status, msg = http.StatusUnprocessableEntity, "The rules do not allow that on this registration now. Reload the page to see what may be done."
	} else if errors.Is(err, store.ErrConflict) {
		status, msg = http.StatusConflict, "Someone changed this while you were looking at it. Reload the page and try again."
	} else if errors.Is(err, store.ErrTimeout) {
		status, msg = http.StatusServiceUnavailable, "That took too long. Narrow the filter or try again in a moment."
	} else if store.Unreachable(err) {
		status, msg = http.StatusServiceUnavailable, msgDatabaseDown
		w.Header().Set("Retry-After", "5")
		dbTrouble = true
	} else if errors.Is(err, context.DeadlineExceeded) {
		status, msg = http.StatusServiceUnavailable, msgDatabaseSlow
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
	_ = s.render(w, r, status, views.ErrorPage(s.page(r, "Error"), status, msg, id), nil)
}
