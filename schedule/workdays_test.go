package schedule_test

import (
	"testing"
	"time"

	"regdesk/schedule"
)

func TestWorkingDaysAfter(t *testing.T) {
	t.Parallel()
	hel := schedule.Helsinki()
	at := func(y int, m time.Month, d, h, mi int) time.Time { return time.Date(y, m, d, h, mi, 0, 0, hel) }
	cases := []struct {
		name        string
		since, want time.Time
	}{
		{"midweek", at(2026, 11, 24, 9, 12), at(2026, 11, 26, 9, 12)},
		{"Thursday over the weekend", at(2026, 11, 26, 9, 12), at(2026, 11, 30, 9, 12)},
		{"Friday over the weekend", at(2026, 11, 27, 16, 0), at(2026, 12, 1, 16, 0)},
		{"Saturday counts from Monday midnight", at(2026, 11, 28, 13, 0), at(2026, 12, 2, 0, 0)},
		{"Sunday late counts from Monday midnight", at(2026, 11, 29, 23, 59), at(2026, 12, 2, 0, 0)},
		// Clocks go back on Sunday 25 October 2026: the target keeps its wall-clock hour, one hour
		// more in absolute time.
		{"across the autumn change", at(2026, 10, 23, 15, 0), at(2026, 10, 27, 15, 0)},
		// Clocks go forward on Sunday 29 March 2026.
		{"across the spring change", at(2026, 3, 27, 15, 0), at(2026, 3, 31, 15, 0)},
	}
	for _, c := range cases {
		got := schedule.WorkingDaysAfter(c.since, 2)
		if !got.Equal(c.want) {
			t.Errorf("%s: WorkingDaysAfter(%v, 2) = %v, want %v", c.name, c.since, got.In(hel), c.want)
		}
	}
	// In absolute time the autumn case is 96 hours plus the hour the clocks gave back.
	if d := schedule.WorkingDaysAfter(at(2026, 10, 23, 15, 0), 2).Sub(at(2026, 10, 23, 15, 0)); d != 97*time.Hour {
		t.Errorf("across the autumn change: %v, want 97h", d)
	}
	if d := schedule.WorkingDaysAfter(at(2026, 3, 27, 15, 0), 2).Sub(at(2026, 3, 27, 15, 0)); d != 95*time.Hour {
		t.Errorf("across the spring change: %v, want 95h", d)
	}
	// A UTC instant is read in Helsinki: Friday 23:30 UTC is already Saturday there.
	if got, want := schedule.WorkingDaysAfter(time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC), 1), at(2026, 12, 1, 0, 0); !got.Equal(want) {
		t.Errorf("Friday night UTC: %v, want %v", got.In(hel), want)
	}
}

func TestPastWaitingTarget(t *testing.T) {
	t.Parallel()
	hel := schedule.Helsinki()
	since := time.Date(2026, 11, 27, 16, 0, 0, 0, hel) // Friday
	for _, c := range []struct {
		now  time.Time
		want bool
	}{
		{time.Date(2026, 11, 30, 16, 0, 0, 0, hel), false}, // Monday: one working day
		{time.Date(2026, 12, 1, 15, 59, 0, 0, hel), false},
		{time.Date(2026, 12, 1, 16, 0, 0, 0, hel), true},
	} {
		if got := schedule.PastWaitingTarget(since, c.now, 2); got != c.want {
			t.Errorf("PastWaitingTarget(Fri 16:00, %v) = %v, want %v", c.now, got, c.want)
		}
	}
}
