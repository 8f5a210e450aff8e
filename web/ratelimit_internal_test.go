package web

import (
	"fmt"
	"testing"
	"time"
)

func TestLimiterBlocksAfterMaxFailuresUntilTheOldestAgesOut(t *testing.T) {
	t.Parallel()
	l := newLimiter(3, 15*time.Minute)
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

	l.fail("a", t0)
	l.fail("a", t0.Add(5*time.Minute))
	if got := l.blockedUntil("a", t0.Add(6*time.Minute)); !got.IsZero() {
		t.Errorf("after 2 of 3 failures blockedUntil = %v, want not blocked", got)
	}
	l.fail("a", t0.Add(10*time.Minute))
	if got, want := l.blockedUntil("a", t0.Add(11*time.Minute)), t0.Add(15*time.Minute); !got.Equal(want) {
		t.Errorf("after 3 failures blockedUntil = %v, want %v (the first failure ages out)", got, want)
	}
	if got := l.blockedUntil("b", t0.Add(11*time.Minute)); !got.IsZero() {
		t.Errorf("another key is blocked until %v", got)
	}
	// Once the first failure ages out, two remain: one more try is allowed.
	if got := l.blockedUntil("a", t0.Add(15*time.Minute+time.Second)); !got.IsZero() {
		t.Errorf("after the first failure aged out blockedUntil = %v, want not blocked", got)
	}
	l.fail("a", t0.Add(16*time.Minute))
	if got, want := l.blockedUntil("a", t0.Add(16*time.Minute)), t0.Add(20*time.Minute); !got.Equal(want) {
		t.Errorf("blockedUntil = %v, want %v (the second failure ages out)", got, want)
	}
	l.reset("a")
	if got := l.blockedUntil("a", t0.Add(16*time.Minute)); !got.IsZero() {
		t.Errorf("after reset blockedUntil = %v, want not blocked", got)
	}
}

func TestLimiterForgetsKeysWhoseFailuresAgedOut(t *testing.T) {
	t.Parallel()
	l := newLimiter(3, time.Minute)
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for i := range limiterSweepAt {
		l.fail(fmt.Sprint("addr-", i), t0)
	}
	l.fail("late", t0.Add(2*time.Minute))
	if got := len(l.fails); got != 1 {
		t.Errorf("after the sweep %d keys remain, want only the fresh one", got)
	}
}
