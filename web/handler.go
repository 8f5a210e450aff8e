package web

import (
	"net/http"
	"net/url"

	"regdesk/store"
)

// The helpers every handler shares: the handler signature and its adapter to net/http, and the
// reading of what a request carries (the {id} of the route, the query string, the person's
// course scope).

// handlerFunc is an http.HandlerFunc that reports failure instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts h so every error reaches renderError.
func (s *Server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.renderError(w, r, err)
		}
	}
}

// pathID returns the {id} of the route as a UUID, or the not-found error: an id that cannot
// exist is answered like one that does not.
func pathID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !store.IsUUID(id) {
		return "", errNotFound
	}
	return id, nil
}

// query parses the request's query string strictly: r.URL.Query() silently drops what it cannot
// read (a semicolon, a bad escape), and a filter quietly ignored shows a person the wrong list.
func query(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badRequest("That address has a damaged query string; start again from the queue.")
	}
	return q, nil
}

// courseScope returns the courses this request may see; nil means all. A teacher's reach is the
// courses they teach.
func (s *Server) courseScope(r *http.Request) []string { return actorFrom(r.Context()).Scope() }
