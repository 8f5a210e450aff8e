package web

import (
	"net/http"
)

// gate bounds how many requests of one kind run at once; the others wait their turn, as long as
// their deadline allows. The database pool is small (a few connections on a small machine) and
// shared by every page: a crowd asking for the heavy pages (a course's page of 500 rows, the
// course list, the overview) used to take every connection and every core, and the queue's
// views, which take a couple of milliseconds, queued behind them for seconds. With the heavy
// pages bounded to a share of the pool, a heavy page may wait for a slot (which the person sees
// only as a slower heavy page) while the fast views always find a connection.
type gate chan struct{}

// newGate lets n requests through at once.
func newGate(n int) gate { return make(gate, max(n, 1)) }

// wrap runs h when a slot is free. A request whose deadline passes while it waits gets the
// ordinary timeout page; one whose client went away is simply dropped.
func (g gate) wrap(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		select {
		case g <- struct{}{}:
		case <-r.Context().Done():
			return r.Context().Err()
		}
		defer func() { <-g }()
		return h(w, r)
	}
}

// heavySlots is how many heavy pages run at once when Deps.HeavyPages does not say: a quarter of
// the pool, at least one, so three quarters of the connections are always there for the rest.
func heavySlots(poolSize int32) int { return max(int(poolSize)/4, 1) }
