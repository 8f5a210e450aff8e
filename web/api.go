package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"regdesk/store"
	"regdesk/views/i18n"
)

// This file is the read-only JSON API, /api/v1, for scripts and other tools: the queue's list and
// one registration, a course's registrations and the audit, read with a per-account token
// (Authorization: Bearer rdk_…, made on the settings page) and scoped like the token's account.
// It changes nothing; every route is a GET.

// apiPageMax is the most registrations one list page holds; apiPageDefault without a limit.
const (
	apiPageMax     = 200
	apiPageDefault = 50
)

// apiError is every error the API answers with: a stable code for a script to match, and the
// words for the person writing it. The API speaks English whatever the token's account reads
// the pages in (its keys and codes are English identifiers too), so a script's output does not
// change with its owner's language; the pages are where the three languages live.
type apiError struct {
	Code  string `json:"code"`
	Error string `json:"error"`
}

// apiCode is an Error's stable code: its catalogue key without the family ("notFound" for
// error.notFound), or the status's name for words chosen in place.
func apiCode(e *Error) string {
	if e.Key != "" {
		if _, name, ok := strings.Cut(e.Key, "."); ok {
			return name
		}
		return e.Key
	}
	return strings.ReplaceAll(strings.ToLower(http.StatusText(e.Status)), " ", "_")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiHandle runs an API handler and answers its error as JSON, in words that hold no internals.
func (s *Server) apiHandle(h func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		if e, ok := errors.AsType[*Error](err); ok {
			writeJSON(w, e.Status, apiError{Code: apiCode(e), Error: e.text(i18n.With(r.Context(), i18n.For(i18n.EN)))})
			return
		}
		if errors.Is(err, store.ErrNotFound) {
			writeJSON(w, http.StatusNotFound, apiError{Code: "not_found", Error: "not found"})
			return
		}
		s.log.ErrorContext(r.Context(), "api request failed", "path", r.URL.Path, "err", err, "request_id", requestIDFrom(r.Context()))
		writeJSON(w, http.StatusInternalServerError, apiError{Code: "internal", Error: "regdesk could not answer; try again shortly"})
	}
}

// apiAuth lets a request through with a token's account as its person, or answers 401.
func (s *Server) apiAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			// The API only reads; say so before asking who is there.
			w.Header().Set("Allow", "GET, HEAD")
			writeJSON(w, http.StatusMethodNotAllowed, apiError{Code: "method", Error: "the API only reads: use GET"})
			return
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="regdesk"`)
			writeJSON(w, http.StatusUnauthorized, apiError{Code: "no_token", Error: "send a token: Authorization: Bearer rdk_… (make one on the settings page)"})
			return
		}
		acct, err := s.store.APITokenAccount(r.Context(), strings.TrimSpace(token), s.clock())
		if errors.Is(err, store.ErrTokenRefused) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="regdesk", error="invalid_token"`)
			writeJSON(w, http.StatusUnauthorized, apiError{Code: "token_refused", Error: "that token opens nothing: it is unknown or revoked, or its account is disabled"})
			return
		}
		if err != nil {
			s.log.ErrorContext(r.Context(), "api token check failed", "err", err, "request_id", requestIDFrom(r.Context()))
			writeJSON(w, http.StatusServiceUnavailable, apiError{Code: "token_unchecked", Error: "regdesk could not check the token; try again shortly"})
			return
		}
		next.ServeHTTP(w, r.WithContext(withActor(r.Context(), actorOf(acct))))
	})
}

// apiRequirePipeline keeps the pipeline's internals (states, codes, history) from teachers, as the
// pages do; they read their courses' registrations in plain words instead.
func (s *Server) apiRequirePipeline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !seesPipeline(actorFrom(r.Context())) {
			writeJSON(w, http.StatusForbidden, apiError{Code: "teacher_scope", Error: "teachers read their courses at /api/v1/courses/{id}/registrations"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

type apiStudent struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Number string `json:"student_number,omitempty"`
	Email  string `json:"email"`
}

type apiCourse struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type apiClaim struct {
	By    string `json:"by"`
	Since string `json:"since"`
}

// apiRegistration is a registration as the API lists it; times are ISO 8601 in Helsinki time.
type apiRegistration struct {
	ID         string     `json:"id"`
	URL        string     `json:"url"`
	Student    apiStudent `json:"student"`
	Course     apiCourse  `json:"course"`
	Module     string     `json:"module"`
	CourseCode string     `json:"course_code,omitempty"`
	Attempt    int32      `json:"attempt"`
	State      string     `json:"state"`
	ErrorCode  string     `json:"error_code,omitempty"`
	Phase      string     `json:"phase"`
	Reasons    []string   `json:"reasons"`
	// Standing is where the LMS lists the row (schedule.Standing); "" when it carries no reason.
	Standing   string `json:"standing,omitempty"`
	NeedsAdmin bool   `json:"needs_admin"`
	// Notes are what regdesk says of the row beyond the LMS's reasons (schedule.Note).
	Notes        []string  `json:"notes,omitempty"`
	NextCheckAt  string    `json:"next_check_at,omitempty"`
	EscalatesAt  string    `json:"escalates_at,omitempty"`
	WaitingSince string    `json:"waiting_since,omitempty"`
	Claim        *apiClaim `json:"claim"`
	UpdatedAt    string    `json:"updated_at"`
}

func (s *Server) apiRegistrationOf(r *http.Request, row store.RegistrationListRow, now time.Time) apiRegistration {
	st := row.Status(now)
	out := apiRegistration{ID: row.ID, URL: origin(r) + "/registrations/" + row.ID,
		Student: apiStudent{ID: row.StudentID, Name: row.StudentName, Number: store.Deref(row.StudentNumber), Email: row.StudentEmail},
		Course:  apiCourse{ID: row.CourseID, Name: row.CourseName}, Module: row.ModuleName, CourseCode: store.Deref(row.UhCourseCode),
		Attempt: row.AttemptNumber, State: string(row.State), ErrorCode: string(row.ErrorCode), Phase: string(st.Phase),
		Reasons: []string{}, NeedsAdmin: st.NeedsAdmin, NextCheckAt: isoTime(instant(st.NextCheckAt)), EscalatesAt: isoTime(instant(st.EscalatesAt)),
		UpdatedAt: isoTime(&row.UpdatedAt)}
	for _, x := range st.Reasons.List() {
		out.Reasons = append(out.Reasons, string(x))
	}
	out.Standing = string(st.Standing)
	for _, x := range st.Notes.List() {
		out.Notes = append(out.Notes, string(x))
	}
	if st.NeedsAdmin {
		since := waitingSince(row.ScheduleColumns)
		out.WaitingSince = isoTime(&since)
	}
	if c := row.ClaimColumns.Claim(now, s.claimLapse); c != nil {
		out.Claim = &apiClaim{By: c.AccountName, Since: isoTime(&c.ClaimedAt)}
	}
	return out
}

// apiRegistrationList is the queue's list: GET /api/v1/registrations, with the queue's filters
// (show, phase, reason, state, course, error, q, claimed, sort), limit (up to 200) and after, the
// cursor the previous page's "next" carries.
func (s *Server) apiRegistrationList(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r)
	if err != nil {
		return err
	}
	limit := apiPageDefault
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > apiPageMax {
			return &Error{Status: http.StatusBadRequest, Message: "limit is a number from 1 to 200"}
		}
		limit = n
	}
	q.Del("limit")
	p, err := parseQueueParams(q)
	if err != nil {
		return err
	}
	now := s.clock()
	rows, next, err := s.store.RegistrationList(r.Context(), now, s.queueFilter(r, p, s.courseScope(r)), p.after, limit)
	if err != nil {
		return err
	}
	out := struct {
		Registrations []apiRegistration `json:"registrations"`
		Next          *string           `json:"next"`
	}{Registrations: []apiRegistration{}}
	for _, row := range rows {
		out.Registrations = append(out.Registrations, s.apiRegistrationOf(r, row, now))
	}
	if next != nil {
		v := p.values()
		v.Set("limit", strconv.Itoa(limit))
		v.Set("after", formatCursor(*next))
		u := "/api/v1/registrations?" + v.Encode()
		out.Next = &u
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type apiEvent struct {
	At        string `json:"at"`
	Kind      string `json:"kind"`
	FromState string `json:"from_state,omitempty"`
	ToState   string `json:"to_state,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	By        string `json:"by,omitempty"`
	Message   string `json:"message,omitempty"`
}

type apiAttempt struct {
	ID      string `json:"id"`
	Attempt int32  `json:"attempt"`
	State   string `json:"state"`
	Created string `json:"created_at"`
}

// apiRegistrationShow is one registration with its history and attempts:
// GET /api/v1/registrations/{id}, read in one statement as its page is.
func (s *Server) apiRegistrationShow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	now := s.clock()
	page, err := s.store.RegistrationPageGet(r.Context(), now, id, s.courseScope(r))
	if err != nil {
		return err
	}
	out := struct {
		apiRegistration
		Version  int64        `json:"version"`
		History  []apiEvent   `json:"history"`
		Attempts []apiAttempt `json:"attempts"`
	}{apiRegistration: s.apiRegistrationOf(r, page.RegistrationListRow, now), Version: page.Version, History: []apiEvent{}, Attempts: []apiAttempt{}}
	for _, e := range page.Events {
		out.History = append(out.History, apiEvent{At: isoTime(&e.CreatedAt), Kind: e.Kind, FromState: store.Deref(e.FromState),
			ToState: store.Deref(e.ToState), ErrorCode: store.Deref(e.ErrorCode), By: store.Deref(e.ActorName), Message: store.Deref(e.Message)})
	}
	for _, a := range page.Attempts {
		out.Attempts = append(out.Attempts, apiAttempt{ID: a.ID, Attempt: a.AttemptNumber, State: string(a.State), Created: isoTime(&a.CreatedAt)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// apiNotFound answers an unknown API path as JSON.
func (s *Server) apiNotFound(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusNotFound, apiError{Code: "no_such_path", Error: "no such API path: see the README's API section"})
}
