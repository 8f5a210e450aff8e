package web

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"regdesk/store"
)

// countsCache shares the queue's counts between everyone who looks at the same scope. Counting a
// million-row ledger takes a few hundred milliseconds, and every open queue tab asks every 15 s;
// with the cache the database counts at most once per scope per ttl, however many tabs are open.
// A request that arrives while a count is running waits for it instead of starting another.
//
// The shared count runs on a context of its own (the first requester's values, not its
// cancellation, bounded by timeout): when the browser that happened to start it gives up, the
// others waiting on the same count still get it, and a count that is almost done is not thrown away.
type countsCache struct {
	ttl     time.Duration
	timeout time.Duration

	mu      sync.Mutex
	entries map[string]*countsEntry
	// good is each scope's last successful count. Once the ttl has passed it is still served,
	// marked with its instant, while a fresh count runs (up to staleFor): no page waits for a
	// recount, only the first one of a scope does.
	good map[string]*countsEntry
}

// staleFor is how many ttls old a count may be and still be served while a fresh one runs.
// Older than that (no request for a while), the request waits for the fresh count.
const staleFor = 6

type countsEntry struct {
	done   chan struct{} // closed when the count below is set
	at     time.Time     // the instant counted at
	counts store.RegistrationCounts
	err    error
}

// newCountsCache shares counts for ttl; each shared count may take up to timeout, however soon the
// request that started it ends.
func newCountsCache(ttl, timeout time.Duration) *countsCache {
	return &countsCache{ttl: ttl, timeout: timeout, entries: map[string]*countsEntry{}, good: map[string]*countsEntry{}}
}

// scopeKey names a course scope: nil (everything) and each set of courses apart.
func scopeKey(scope []string) string {
	if scope == nil {
		return "*"
	}
	s := slices.Clone(scope)
	slices.Sort(s)
	return "courses:" + strings.Join(s, ",")
}

// get returns the counts of scope as of an instant at most ttl before now, counting with load
// when there are none that fresh. While a count runs, the scope's last good count, if it is at
// most staleFor ttls old, is returned at once with its own instant; otherwise the caller waits
// for the count. A failed count is not kept. ctx bounds only this caller's wait.
func (c *countsCache) get(ctx context.Context, scope []string, now time.Time, load func(ctx context.Context, at time.Time) (store.RegistrationCounts, error)) (store.RegistrationCounts, time.Time, error) {
	if c == nil || c.ttl <= 0 {
		counts, err := load(ctx, now)
		return counts, now, err
	}
	key := scopeKey(scope)
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok {
		select {
		case <-e.done:
			if e.err != nil || now.Sub(e.at) >= c.ttl || now.Before(e.at) {
				ok = false
			}
		default: // a count is running
		}
	}
	if !ok {
		e = &countsEntry{done: make(chan struct{}), at: now}
		c.entries[key] = e
		go func() {
			shared, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
			defer cancel()
			counts, err := load(shared, now)
			c.mu.Lock()
			e.counts, e.err = counts, err
			if err == nil {
				c.good[key] = e
			}
			c.mu.Unlock()
			close(e.done)
		}()
	}
	select {
	case <-e.done:
	default:
		// The count is running: serve the last good one if it is recent enough.
		if g := c.good[key]; g != nil && g != e && !now.Before(g.at) && now.Sub(g.at) < staleFor*c.ttl {
			c.mu.Unlock()
			return g.counts, g.at, nil
		}
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.counts, e.at, e.err
	case <-ctx.Done():
		return store.RegistrationCounts{}, time.Time{}, ctx.Err()
	}
}
