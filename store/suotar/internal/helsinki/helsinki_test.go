package helsinki

import (
	"testing"
	"time"
)

// TestRuleMatchesZoneData checks the hand-written fallback against the real zone over years of
// hourly instants, so a machine without tzdata still dates attainments the same way.
func TestRuleMatchesZoneData(t *testing.T) {
	t.Parallel()

	loc, err := time.LoadLocation(zoneName)
	if err != nil {
		t.Skipf("no zone data to compare with: %v", err)
	}
	for u := time.Date(2020, 1, 1, 0, 30, 0, 0, time.UTC); u.Year() < 2031; u = u.Add(time.Hour) {
		want := u.In(loc)
		got := byRule(u)
		if got.Format(time.DateTime) != want.Format(time.DateTime) {
			t.Fatalf("byRule(%s) = %s, want %s", u, got.Format(time.DateTime), want.Format(time.DateTime))
		}
		wall := time.Date(want.Year(), want.Month(), want.Day(), want.Hour(), want.Minute(), 0, 0, time.UTC)
		// In the autumn hour that clocks repeat, either instant is a correct reading of the wall time.
		if back := localByRule(wall); !back.Equal(u) && byRule(back).Format(time.DateTime) != wall.Format(time.DateTime) {
			t.Fatalf("localByRule(%s) = %s, want %s", wall.Format(time.DateTime), back.UTC(), u)
		}
	}
}

func TestDateAndLocal(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		instant time.Time
		want    string
	}{
		{name: "SisuUTCMidnightSummer", instant: time.Date(2026, 5, 22, 0, 0, 0, 0, time.UTC), want: "2026-05-22"},
		{name: "HelsinkiMidnightWinterAsUTC", instant: time.Date(2025, 12, 17, 22, 0, 0, 0, time.UTC), want: "2025-12-18"},
		{name: "LateEveningUTCIsNextDay", instant: time.Date(2026, 7, 1, 21, 30, 0, 0, time.UTC), want: "2026-07-02"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			y, m, d := Date(tc.instant)
			if got := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly); got != tc.want {
				t.Errorf("Date(%s) = %s, want %s", tc.instant, got, tc.want)
			}
			y2, m2, d2 := byRule(tc.instant).Date()
			if y2 != y || m2 != m || d2 != d {
				t.Errorf("byRule(%s) day = %d-%d-%d, want %d-%d-%d", tc.instant, y2, m2, d2, y, m, d)
			}
		})
	}

	got := Local(2026, 9, 2, 11, 15, 0, 0).UTC()
	if want := time.Date(2026, 9, 2, 8, 15, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Local(2026-09-02 11:15) = %s, want %s", got, want)
	}
}
