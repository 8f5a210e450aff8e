// Package web is regdesk's HTTP side: routes, middleware, handlers, and the mapping from ledger
// rows and scheduling verdicts to view models.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"regdesk/static"
	"regdesk/store"
	"regdesk/views"
)

// Deps is what a Server is built from.
type Deps struct {
	Store *store.Store
	Log   *slog.Logger
	// Now is the clock; tests pass a fixed one.
	Now func() time.Time
	// Registry looks students up in Sisu through Suotar; nil when Suotar is not configured, and
	// the lookup button then says so.
	Registry Registry
}

// Server carries what every handler needs. Build it with New.
type Server struct {
	store    *store.Store
	log      *slog.Logger
	now      func() time.Time
	registry Registry
}

// New builds a Server from its dependencies.
func New(d Deps) *Server {
	s := &Server{store: d.Store, log: d.Log, now: d.Now, registry: d.Registry}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// clock returns now in UTC at the database's microsecond precision, so the Go rules and their SQL
// mirror judge the same instant the same way.
func (s *Server) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

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

// Routes returns the complete handler tree.
func (s *Server) Routes() http.Handler {
	r := chi.NewRouter()
	r.Use(requestID, s.accessLog, s.recoverPanic, securityHeaders)
	r.NotFound(s.handle(func(w http.ResponseWriter, r *http.Request) error { return errNotFound }))
	r.MethodNotAllowed(s.handle(func(w http.ResponseWriter, r *http.Request) error { return errMethod }))
	r.Handle("/static/*", static.Handler())
	r.Handle("/favicon.ico", static.Favicon())
	r.Get("/healthz", s.healthz)

	r.Get("/", s.handle(s.queueShow))
	r.Get("/queue/counts", s.handle(s.queueCountsShow))
	r.Get("/registrations/{id}", s.handle(s.registrationShow))
	r.Post("/registrations/{id}/lookup", s.handle(s.registrationLookup))
	return r
}

// healthz answers whether the database answers: GET /healthz.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.store.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "health check failed", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("database unavailable\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// page builds the layout's view model for this request.
func (s *Server) page(r *http.Request, title string) views.Page {
	return views.Page{Title: title, Nav: navFor(r)}
}

func navFor(r *http.Request) []views.NavItem {
	items := []views.NavItem{{Label: "Queue", URL: "/"}}
	for i := range items {
		items[i].Active = items[i].URL == r.URL.Path
	}
	return items
}
