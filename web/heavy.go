package web

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// gate bounds how many requests of one kind run at once; the others wait their turn. The
// database pool is small (a few connections on a small machine) and shared by every page: a crowd
// asking for the heavy pages (a course's page of 500 rows, the course list, the overview) used to
// take every connection and every core, and the queue's views, which take a couple of
// milliseconds, queued behind them for seconds. With the heavy pages bounded to a share of the
// pool, a heavy page may wait for a slot (which the person sees only as a slower heavy page)
// while the fast views always find a connection.
type gate struct {
	slots chan struct{}
	// run, when set, bounds the request once it has its slot: the deadline middleware gave it
	// heavyWait more to wait in, which the page's own work must not use.
	run time.Duration
}

// heavyWait is how much longer than the request timeout a heavy page may wait for its slot. A
// page that waits is slow; one that gives up is an error page, so the wait is generous.
const heavyWait = 20 * time.Second

// newGate lets n requests through at once, each bounded to run once in (when run > 0).
func newGate(n int, run time.Duration) *gate {
	return &gate{slots: make(chan struct{}, max(n, 1)), run: run}
}

// wrap runs h when a slot is free. A request whose deadline passes while it waits gets the
// ordinary timeout page; one whose client went away is simply dropped.
func (g *gate) wrap(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		select {
		case g.slots <- struct{}{}:
		case <-r.Context().Done():
			return r.Context().Err()
		}
		defer func() { <-g.slots }()
		if g.run > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), g.run)
			defer cancel()
			r = r.WithContext(ctx)
		}
		return h(w, r)
	}
}

// heavySlots is how many heavy pages run at once when Deps.HeavyPages does not say: a quarter of
// the pool, at least one, so three quarters of the connections are always there for the rest.
func heavySlots(poolSize int32) int { return max(int(poolSize)/4, 1) }

// isHeavyPath reports whether path is one of the pages behind Server.heavy: /courses,
// /courses/{id} (not its exports, which have their own gate and timeout) and /overview.
func isHeavyPath(path string) bool {
	if path == "/courses" || path == "/overview" {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/courses/")
	return ok && rest != "" && !strings.Contains(rest, "/")
}
