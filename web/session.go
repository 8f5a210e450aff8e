package web

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
)

// Sessions are loaded and saved here rather than by scs's LoadAndSave, for three reasons:
//   - the session is read with the request's context, so a database that hangs holds the request
//     only until its deadline (loadSession runs inside s.deadline);
//   - a session that cannot be saved after the handler has done its work (an action committed)
//     is logged, and the answer the handler wrote still goes out: it reflects what was written;
//   - an unchanged session is not written on every request. scs writes every session on every
//     request once an idle timeout is set, to move its expiry; regdesk keeps the idle clock in
//     the session itself ("seen") and writes it at most once every sessionRefreshEvery.

const (
	// sessionSeenKey is the session value holding when the person was last seen (Unix seconds),
	// for the idle timeout.
	sessionSeenKey = "seen"
	// sessionRefreshEvery is how stale "seen" may get before a request writes it again: the idle
	// timeout is hours, so a minute's imprecision is nobody's concern.
	sessionRefreshEvery = time.Minute
	// sessionSaveTimeout bounds writing the session after the handler, whose own deadline may
	// be nearly spent.
	sessionSaveTimeout = time.Second
)

// loadSession loads the request's session for next and saves it when next changed it.
func (s *Server) loadSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Cookie")
		var token string
		if c, err := r.Cookie(s.sessions.Cookie.Name); err == nil {
			token = c.Value
		}
		ctx, err := s.sessions.Load(r.Context(), token)
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		r = r.WithContext(ctx)
		if err := s.keepAlive(r); err != nil {
			s.renderError(w, r, err)
			return
		}
		sw := &sessionWriter{ResponseWriter: w, s: s, r: r}
		next.ServeHTTP(sw, r)
		sw.saveBefore(http.StatusOK)
	})
}

// keepAlive ends a signed-in session nobody used for the idle timeout, and otherwise notes that
// its person was seen, when the last note is older than sessionRefreshEvery.
func (s *Server) keepAlive(r *http.Request) error {
	ctx := r.Context()
	if s.sessions.GetString(ctx, sessionAccountKey) == "" {
		return nil // nobody signed in: nothing to keep alive, and no session to write
	}
	now := s.clock()
	seen := time.Unix(s.sessions.GetInt64(ctx, sessionSeenKey), 0)
	if s.sessions.Exists(ctx, sessionSeenKey) && now.Sub(seen) >= s.idleTimeout {
		s.log.InfoContext(ctx, "idle session ended", "idle", now.Sub(seen).Round(time.Second), "request_id", requestIDFrom(ctx))
		return s.sessions.Destroy(ctx)
	}
	if !s.sessions.Exists(ctx, sessionSeenKey) || now.Sub(seen) >= sessionRefreshEvery || now.Before(seen) {
		s.sessions.Put(ctx, sessionSeenKey, now.Unix())
	}
	return nil
}

// sessionWriter saves the session before the first byte of the answer, as its cookie must go
// out with the headers.
type sessionWriter struct {
	http.ResponseWriter
	s     *Server
	r     *http.Request
	saved bool
}

func (w *sessionWriter) WriteHeader(code int) {
	w.saveBefore(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	w.saveBefore(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// saveBefore saves the session before an answer of status code goes out. When it cannot, and the
// answer sends the person on with a flash that was to confirm what they did, the address says so
// instead (noticeUnsaved), so the next page still tells them their change was recorded.
func (w *sessionWriter) saveBefore(code int) {
	if w.saved {
		return
	}
	flash := w.s.sessions.Exists(w.r.Context(), flashKey)
	if w.save() || !flash {
		return
	}
	h := w.Header()
	for _, key := range []string{"Location", "HX-Redirect"} {
		if loc := h.Get(key); loc != "" && (code == http.StatusNoContent || code >= 300 && code < 400) {
			h.Set(key, withNotice(loc))
		}
	}
}

// noticeUnsaved is the notice= value that stands in for a confirmation the session could not keep.
const noticeUnsaved = "unsaved"

// withNotice adds notice=unsaved to a same-site address.
func withNotice(loc string) string {
	sep := "?"
	if strings.Contains(loc, "?") {
		sep = "&"
	}
	if i := strings.Index(loc, "#"); i >= 0 {
		return loc[:i] + sep + "notice=" + noticeUnsaved + loc[i:]
	}
	return loc + sep + "notice=" + noticeUnsaved
}

func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// save writes a changed session and its cookie, and reports whether nothing was lost.
func (w *sessionWriter) save() bool {
	if w.saved {
		return true
	}
	w.saved = true
	ctx := w.r.Context()
	switch w.s.sessions.Status(ctx) {
	case scs.Modified:
		if ctx.Err() != nil {
			// The request ran out of time, most likely on a database that does not answer:
			// waiting again to save the session would only hold the answer back.
			w.s.dbTrouble.note(ctx, w.s, "session not saved: the request ran out of time", ctx.Err())
			return false
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionSaveTimeout)
		defer cancel()
		token, expiry, err := w.s.sessions.Commit(sctx)
		if err != nil {
			// What the handler did is done and its answer says so; only the session (a flash, the
			// idle clock) is lost.
			w.s.dbTrouble.note(ctx, w.s, "session not saved", err)
			return false
		}
		w.s.sessions.WriteSessionCookie(ctx, w.ResponseWriter, token, expiry)
	case scs.Destroyed:
		w.s.sessions.WriteSessionCookie(ctx, w.ResponseWriter, "", time.Time{})
	}
	return true
}

// troubleLog logs database trouble once per interval with how many times it happened, instead
// of once per request: a stopped database under a crowd made thousands of lines a second.
type troubleLog struct {
	every time.Duration

	mu     sync.Mutex
	last   time.Time
	missed int
}

func (t *troubleLog) note(ctx context.Context, s *Server, what string, err error) {
	t.mu.Lock()
	now := time.Now() // a rate of log lines is about the wall clock, not the product's clock
	if !t.last.IsZero() && now.Sub(t.last) < t.every {
		t.missed++
		t.mu.Unlock()
		return
	}
	missed := t.missed
	t.last, t.missed = now, 0
	t.mu.Unlock()
	s.log.ErrorContext(ctx, what, "err", err, "request_id", requestIDFrom(ctx), "more_since_last_line", missed)
}

// deadline bounds the whole request (session, account, queries, session save) so nothing waits
// on a database that does not answer for longer than the statement timeout and a little. A
// lookup waits on Suotar too, so it gets Suotar's timeout on top.
func (s *Server) deadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := s.requestTimeout
		if r.Method == http.MethodPost && isLookupPath(r.URL.Path) {
			d += s.lookupTimeout
		}
		if isExportPath(r.URL.Path) {
			d = exportTimeout
		}
		if isHeavyPath(r.URL.Path) {
			d += s.heavyWait // to wait for a slot in; the page itself still has requestTimeout (gate)
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// isLookupPath reports whether path is a registration's lookup, POST /registrations/{id}/lookup.
func isLookupPath(path string) bool {
	const prefix, suffix = "/registrations/", "/lookup"
	return len(path) > len(prefix)+len(suffix) && path[:len(prefix)] == prefix && path[len(path)-len(suffix):] == suffix
}
