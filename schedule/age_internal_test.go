package schedule

import (
	"testing"
	"time"
)

// TestAgeAgreesWithSub: Classify takes each age from Unix seconds and nanoseconds rather than
// time.Time.Sub; it must say what Sub says, across zones and a clock change, at a nanosecond's
// difference, and saturated at the ends of the durations' range. (Ledger instants carry no
// monotonic reading, so Sub reads the wall clock for them too; this package may not read
// time.Now to make one.)
func TestAgeAgreesWithSub(t *testing.T) {
	helsinki, err := time.LoadLocation("Europe/Helsinki")
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Date(2026, 3, 29, 0, 59, 59, 999_999_999, time.UTC)
	for _, now := range []time.Time{wall, wall.In(helsinki), wall.Add(200 * 365 * 24 * time.Hour)} {
		for _, t0 := range []time.Time{
			now,
			now.Add(-time.Nanosecond),
			now.Add(-270 * time.Minute),
			now.Add(3 * time.Hour).Round(0),
			now.Add(-15 * 24 * time.Hour).Round(0).In(helsinki),
			time.Date(2026, 3, 29, 1, 0, 0, 1, helsinki),
			time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
			Never,
		} {
			var a ages
			a.fill(&Row{}, now)
			if got, want := a.age(t0), now.Sub(t0); got != want {
				t.Errorf("age(%v) at %v = %v, Sub says %v", t0, now, got, want)
			}
		}
	}
}
