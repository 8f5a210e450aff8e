package web

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"regdesk/store"
)

// shared shares readings of something expensive between every request that asks for the same
// key: the queue's counts per course scope, the overview and the modules' numbers, the every-page
// banners. One reading runs at a time per key; whoever asks while it runs waits for it, or is
// served the last good reading when that is recent enough (stale). Counting a million-row ledger
// takes a few hundred milliseconds and every open queue tab asks every 15 s: shared, the database
// counts at most once per scope per ttl, however many tabs are open.
//
// The reading runs on a context of its own (the first requester's values, not its cancellation,
// bounded by timeout): when the browser that happened to start it gives up, the others waiting on
// it still get it, and a reading almost done is not thrown away. A caller stops waiting when its
// own context ends.
type shared[T any] struct {
	// ttl is how long a reading is served as fresh; with none (0) every caller reads for itself.
	ttl time.Duration
	// timeout bounds a reading, however soon the request that started it ends.
	timeout time.Duration
	// stale is how old the last good reading may be and still be served, with its own instant,
	// while a fresh one runs; 0: callers wait for the fresh one.
	stale time.Duration
	// noWait: a caller that did not start the running reading, with no good reading within stale,
	// gets the zero value at once rather than wait (a banner: no page waits on one).
	noWait bool
	// holdFailures: a failed reading stands until its ttl passes, the last good value served with
	// its error, so a database in trouble is not asked again by every page.
	holdFailures bool

	mu      sync.Mutex
	current map[string]*reading[T]
	// good is each key's last successful reading.
	good map[string]*reading[T]
}

type reading[T any] struct {
	done chan struct{} // closed when val and err are set
	at   time.Time     // the instant read at
	val  T
	err  error
}

// scopeKey names a course scope: every course and each set of courses (none included) apart.
func scopeKey(scope store.Scope) string {
	if scope.All() {
		return "*"
	}
	s := scope.Courses()
	slices.Sort(s)
	return "courses:" + strings.Join(s, ",")
}

// get returns key's reading as of an instant at most ttl before now, reading with load when there
// is none that fresh (see shared for who waits). A failed reading is not kept, unless
// holdFailures. ctx bounds only this caller's wait.
func (c *shared[T]) get(ctx context.Context, key string, now time.Time, load func(ctx context.Context, at time.Time) (T, error)) (T, time.Time, error) {
	var zero T
	if c == nil || c.ttl <= 0 {
		v, err := load(ctx, now)
		return v, now, err
	}
	c.mu.Lock()
	if c.current == nil {
		c.current, c.good = map[string]*reading[T]{}, map[string]*reading[T]{}
	}
	e, started := c.current[key], false
	if e != nil {
		select {
		case <-e.done:
			fresh := now.Sub(e.at) < c.ttl && !now.Before(e.at)
			if e.err != nil && c.holdFailures && fresh {
				g := c.good[key]
				c.mu.Unlock()
				if g == nil {
					return zero, e.at, e.err
				}
				return g.val, g.at, e.err
			}
			if e.err != nil || !fresh {
				e = nil
			}
		default: // a reading is under way
		}
	}
	if e == nil {
		e, started = &reading[T]{done: make(chan struct{}), at: now}, true
		c.current[key] = e
		go func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
			defer cancel()
			v, err := load(rctx, e.at)
			c.mu.Lock()
			e.val, e.err = v, err
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
		// The reading runs: serve the last good one if it is recent enough.
		if g := c.good[key]; g != nil && g != e && !now.Before(g.at) && now.Sub(g.at) < c.stale {
			c.mu.Unlock()
			return g.val, g.at, nil
		}
		if c.noWait && !started {
			c.mu.Unlock()
			return zero, time.Time{}, nil
		}
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		if e.err != nil && c.holdFailures {
			c.mu.Lock()
			g := c.good[key]
			c.mu.Unlock()
			if g != nil {
				return g.val, g.at, e.err
			}
		}
		return e.val, e.at, e.err
	case <-ctx.Done():
		return zero, time.Time{}, ctx.Err()
	}
}

// expire makes the next get of key read again and wait for it: what was read is known to be out
// of date (a person just acknowledged an alert the banner shows).
func (c *shared[T]) expire(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.good, key)
	if e := c.current[key]; e != nil {
		select {
		case <-e.done:
			delete(c.current, key)
		default: // the running reading already reads what changed
		}
	}
}

// countsStaleFor is how many ttls old the queue's last count may be and still be served while a
// fresh one runs. Older than that (no request for a while), the request waits for the fresh count.
const countsStaleFor = 6

// newCountsShare shares the queue's counts for ttl, each count taking up to timeout; a page is
// served the last count while a fresh one runs, up to countsStaleFor ttls old.
func newCountsShare(ttl, timeout time.Duration) *shared[store.RegistrationCounts] {
	return &shared[store.RegistrationCounts]{ttl: ttl, timeout: timeout, stale: countsStaleFor * ttl}
}

// newBannerShare shares an every-page banner's reading for ttl. The banners add a statement to
// every page, and no page waits on one: while one reads, every other page shows what was read
// last, however old, or no banner; a failed read stands until ttl passes.
func newBannerShare[T any](ttl, timeout time.Duration) *shared[T] {
	return &shared[T]{ttl: ttl, timeout: timeout, stale: 1 << 62, noWait: true, holdFailures: true}
}
