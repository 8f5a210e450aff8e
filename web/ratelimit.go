package web

import (
	"sync"
	"time"
)

// limiter counts recent failures per key (an address, an account) and refuses a key that has
// failed max times within window, until the oldest of those failures ages out. It keeps no clock
// of its own: every call says what time it is, so tests move time by hand.
type limiter struct {
	max    int
	window time.Duration

	mu    sync.Mutex
	fails map[string][]time.Time // per key, oldest first, only within window
}

// limiterSweepAt is the number of keys above which a failure also drops every key whose failures
// have all aged out, so a guesser spraying addresses or names cannot grow the map without bound.
const limiterSweepAt = 10_000

func newLimiter(max int, window time.Duration) *limiter {
	return &limiter{max: max, window: window, fails: map[string][]time.Time{}}
}

// recent returns key's failures within the window ending at now, dropping older ones.
func (l *limiter) recent(key string, now time.Time) []time.Time {
	ts := l.fails[key]
	i := 0
	for i < len(ts) && !ts[i].After(now.Add(-l.window)) {
		i++
	}
	if i == len(ts) {
		delete(l.fails, key)
		return nil
	}
	ts = ts[i:]
	l.fails[key] = ts
	return ts
}

// blockedUntil returns when key may try again, or the zero time when it may now.
func (l *limiter) blockedUntil(key string, now time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.recent(key, now)
	if len(ts) < l.max {
		return time.Time{}
	}
	return ts[len(ts)-l.max].Add(l.window)
}

// fail records a failure for key at now.
func (l *limiter) fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fails) >= limiterSweepAt {
		for k := range l.fails {
			l.recent(k, now)
		}
	}
	ts := append(l.recent(key, now), now)
	if len(ts) > l.max {
		ts = ts[len(ts)-l.max:] // only the last max failures decide when the key may try again
	}
	l.fails[key] = ts
}

// reset forgets key's failures: a correct password clears its account's count.
func (l *limiter) reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.fails, key)
}
