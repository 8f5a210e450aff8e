package web

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// gate bounds how many requests of one kind run at once; the others wait their turn. The
// database pool is small (a few connections on a small machine) and shared by every page: a crowd
// asking for the heavy pages (a course's page of 200 rows, the course list, the overview) used to
// take every connection and every core, and the queue's views, which take a couple of
// milliseconds, queued behind them for seconds. With the heavy pages bounded to a share of the
// pool, a heavy page may wait for a slot while the fast views always find a connection.
type gate struct {
	slots chan struct{}
	// run, when set, bounds the request once it has its slot: the deadline middleware gave it
	// wait more to wait in, which the page's own work must not use.
	run time.Duration
	// wait, when set, is the longest a request waits for its slot; then it is told the page is
	// busy (errPageBusy), with the wait over, rather than waiting on.
	wait time.Duration
}

// DefaultHeavyWait is how long a heavy page may wait for its slot before its own
// RequestTimeout, when Deps.HeavyWait does not say: a few people opening the course pages at once
// are served one after another within it, and a person who would wait longer is told the page is
// busy and to try again, not left watching a page that does not come.
const DefaultHeavyWait = 4 * time.Second

// errPageBusy answers a heavy page whose slot did not come within the gate's wait.
var errPageBusy = &Error{Status: http.StatusServiceUnavailable, Key: "error.pageBusy", RetryAfter: "5"}

// newGate lets n requests through at once, each bounded to run once in (when run > 0), waiting for
// its turn at most wait (when wait > 0; else as long as its request may).
func newGate(n int, run, wait time.Duration) *gate {
	return &gate{slots: make(chan struct{}, max(n, 1)), run: run, wait: wait}
}

// wrap runs h when a slot is free. A request whose wait ends first is told the page is busy; one
// whose deadline passes while it waits gets the ordinary timeout page; one whose client went away
// is simply dropped.
func (g *gate) wrap(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var timeout <-chan time.Time
		if g.wait > 0 {
			t := time.NewTimer(g.wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case g.slots <- struct{}{}:
		case <-timeout:
			return errPageBusy
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
