package suotarfake

import (
	"sync"
	"testing"
	"time"
)

func TestClockScaleAndAdvance(t *testing.T) {
	t.Parallel()

	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		scale   float64
		real    time.Duration
		advance time.Duration
		want    time.Duration
	}{
		{name: "RealTime", scale: 1, real: 3 * time.Second, want: 3 * time.Second},
		{name: "AnHourASecond", scale: 3600, real: time.Second, want: time.Hour},
		{name: "Stopped", scale: 0, real: time.Hour, want: 0},
		{name: "NegativeIsStopped", scale: -5, real: time.Hour, want: 0},
		{name: "AdvanceAddsToScaledTime", scale: 60, real: 2 * time.Second, advance: 24 * time.Hour, want: 24*time.Hour + 2*time.Minute},
		{name: "AdvanceNeverGoesBack", scale: 0, advance: -time.Hour, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			var mu sync.Mutex
			real := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			c := newClock(start, tc.scale, func() time.Time { mu.Lock(); defer mu.Unlock(); return real })
			mu.Lock()
			real = real.Add(tc.real)
			mu.Unlock()
			c.Advance(tc.advance)
			if got := c.Now().Sub(start); got != tc.want {
				t.Errorf("fake time elapsed = %v, want %v", got, tc.want)
			}
		})
	}
}
