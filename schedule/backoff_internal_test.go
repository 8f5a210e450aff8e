package schedule

import (
	"math"
	"testing"
	"time"
)

// TestExponentialBackoffSecs pins the LMS helper's edge cases (domain.md
// §4.1) that the exported doublings, with their fixed constants, cannot reach.
func TestExponentialBackoffSecs(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name          string
		base, maxSecs int64
		attempt       int32
		want          int64
	}{
		{"NegativeAttemptCountsAsZero", 60, 3600, -5, 60},
		{"BaseAboveMaxReturnsMax", 100, 10, 0, 10},
		{"NegativeBaseHasNoLowerClamp", -60, 3600, 2, -240},
		{"ShiftClampedAt62NotAt32", 1, math.MaxInt64, 40, 1 << 40},
		{"Shift62", 1, math.MaxInt64, 62, 1 << 62},
		{"Shift63ClampedTo62", 1, math.MaxInt64, 63, 1 << 62},
		{"SaturatesUpward", 2, math.MaxInt64, 62, math.MaxInt64},
		{"SaturatesUpwardAtMaxAttempt", 3, math.MaxInt64, math.MaxInt32, math.MaxInt64},
		{"SaturatesDownward", -3, math.MaxInt64, 62, math.MinInt64},
		{"ExactlyMinInt64", -2, math.MaxInt64, 62, math.MinInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := exponentialBackoffSecs(tc.base, tc.maxSecs, tc.attempt); got != tc.want {
				t.Errorf("exponentialBackoffSecs(%d, %d, %d) = %d, want %d", tc.base, tc.maxSecs, tc.attempt, got, tc.want)
			}
		})
	}
}

// TestWindowExpiredTruncatesTowardZero shows the num_seconds truncation on a
// negative age, which only a zero-length window can expose.
func TestWindowExpiredTruncatesTowardZero(t *testing.T) {
	t.Parallel()

	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		ref  time.Time
		want bool
	}{
		{"HalfASecondAheadTruncatesToZero", now.Add(500 * time.Millisecond), true},
		{"JustUnderASecondAhead", now.Add(time.Second - time.Nanosecond), true},
		{"OneSecondAhead", now.Add(time.Second), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := windowExpired(&tc.ref, now, 0); got != tc.want {
				t.Errorf("windowExpired(%v, %v, 0) = %v, want %v", tc.ref, now, got, tc.want)
			}
		})
	}
}

func TestSaturatingSub(t *testing.T) {
	t.Parallel()

	tests := []struct {
		a, b, want time.Duration
	}{
		{5, 3, 2},
		{0, math.MinInt64, math.MaxInt64},
		{math.MaxInt64, -1, math.MaxInt64},
		{math.MinInt64, 1, math.MinInt64},
		{-1, math.MaxInt64, math.MinInt64},
		{math.MaxInt64, math.MaxInt64, 0},
	}
	for _, tc := range tests {
		if got := saturatingSub(tc.a, tc.b); got != tc.want {
			t.Errorf("saturatingSub(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
