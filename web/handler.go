package web

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"regdesk/store"
	"regdesk/views/i18n"
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
// The values are bounded as checkInput says.
func query(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badRequestKey("error.queryDamaged")
	}
	if err := checkInput(q); err != nil {
		return nil, err
	}
	return q, nil
}

// maxFormBytes bounds a form's body: the largest regdesk sends (a bulk selection of 500 rows)
// is a few tens of kilobytes.
const maxFormBytes = 1 << 20

// parseForm reads a POST's form into r.PostForm, bounded as checkInput says.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		if _, tooBig := errors.AsType[*http.MaxBytesError](err); tooBig {
			return &Error{Status: http.StatusRequestEntityTooLarge, Key: "error.formTooLarge", Err: err}
		}
		return badRequestKey("error.formUnreadable")
	}
	return checkInput(r.PostForm)
}

// The bounds of one input value and of a key's repeats. A reason or a search is a sentence, not
// an essay; a filter has a few alternatives; a bulk selection names up to store's limit of rows.
const (
	maxInputValue  = 2000
	maxInputRepeat = 50
)

// inputRepeats are the keys that may repeat more than maxInputRepeat times: a bulk selection's
// ticked rows (id) and its apply form's rows (row), each up to the bulk limit.
var inputRepeats = map[string]int{"id": store.BulkMaxRows, "row": store.BulkMaxRows}

// lenientInputs are the keys whose unreadable values do not refuse the request: an alert link's
// time that cannot be read must not keep the person from the page (the banner says so).
var lenientInputs = map[string]bool{"alerted_at": true}

// fieldName is how an answer names an input field: the catalogue's field.<key> where it has one
// (the key is not always a word), else the key itself.
func fieldName(key string) i18n.Name { return i18n.Name{Key: "field." + key, Fallback: key} }

// checkInput is the one place that bounds what a request carries, before any handler reads it:
// each value is valid UTF-8 without NUL or other control characters (a line break or a tab may
// stand in a reason), at most maxInputValue bytes long; repeated values of a key are
// deduplicated, in order, and there may be at most maxInputRepeat distinct ones. Anything else is
// a 422 naming the field, and nothing is done.
func checkInput(vals url.Values) error {
	for key, vs := range vals {
		if !utf8.ValidString(key) || strings.ContainsFunc(key, unicode.IsControl) {
			return errorKey(http.StatusUnprocessableEntity, "error.fieldName")
		}
		name := fieldName(key)
		if lenientInputs[key] {
			// Read leniently: what cannot be read becomes a value nobody can parse, so the
			// handler says so in its own words instead of refusing the page.
			for i, v := range vs {
				if !utf8.ValidString(v) || strings.ContainsFunc(v, badControl) || len(v) > maxInputValue {
					vs[i] = "\uFFFD"
				}
			}
		}
		seen := make(map[string]bool, len(vs))
		kept := vs[:0]
		for _, v := range vs {
			if !utf8.ValidString(v) || strings.ContainsFunc(v, badControl) {
				return &Error{Status: http.StatusUnprocessableEntity, Field: key, Key: "error.fieldChars", Args: []any{"Field", name}}
			}
			if len(v) > maxInputValue {
				return &Error{Status: http.StatusUnprocessableEntity, Field: key, Key: "error.fieldLong", Args: []any{"Field", name, "Max", maxInputValue}}
			}
			if !seen[v] {
				seen[v] = true
				kept = append(kept, v)
			}
		}
		if limit := cmp.Or(inputRepeats[key], maxInputRepeat); len(kept) > limit && inputRepeats[key] > 0 {
			// A selection too large is said in rows, the way the person chose them.
			return &Error{Status: http.StatusUnprocessableEntity, Field: key, Key: "error.rowsTooMany", Args: []any{"Given", len(kept), "Max", limit}}
		} else if len(kept) > limit {
			return &Error{Status: http.StatusUnprocessableEntity, Field: key, Key: "error.fieldRepeats",
				Args: []any{"Field", name, "Given", len(kept), "Max", limit}}
		}
		vals[key] = kept
	}
	return nil
}

// badControl reports the control characters no field may hold: all but tab and line breaks.
func badControl(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }

// courseScope returns the courses this request may see (Actor.Scope): every course only for
// support and admins, a teacher's own courses, and nothing for anyone else.
func (s *Server) courseScope(r *http.Request) store.Scope { return actorFrom(r.Context()).Scope() }
