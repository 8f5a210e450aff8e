package storetest

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// DefaultNow is the suite's instant when TEST_NOW is not set: a Monday in winter time, 12:00 in
// Helsinki.
var DefaultNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

var testNow = sync.OnceValues(func() (time.Time, error) {
	v := os.Getenv("TEST_NOW")
	if v == "" {
		return DefaultNow, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("TEST_NOW=%q is not an RFC 3339 instant (2031-03-14T02:30:00Z): %w", v, err)
	}
	return t.UTC(), nil
})

// Now returns the suite's fixed instant: TEST_NOW (RFC 3339) when set, else DefaultNow. Every
// instant a test writes is derived from it, never from the wall clock, so moving TEST_NOW a year
// away (as .ci/run does, once in summer and once in winter time) shows a test that only passes
// near one date. A TEST_NOW that cannot be read stops the run at once.
func Now() time.Time {
	t, err := testNow()
	if err != nil {
		panic(err)
	}
	return t
}
