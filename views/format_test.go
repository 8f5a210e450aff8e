package views

import (
	"testing"
	"time"
)

func TestRelativeAndAbsoluteTimes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) // 12:00 in Helsinki (EET, UTC+2)
	tests := []struct {
		name   string
		t      time.Time
		rel    string
		abs    string
		isPast bool
	}{
		{"JustNow", now.Add(10 * time.Second), "now", "Mon 30 Nov 12:00", false},
		{"SoonWithMinutes", now.Add(2*time.Hour + 5*time.Minute), "in 2 h 5 min", "Mon 30 Nov 14:05", false},
		{"DaysAgo", now.Add(-(3*24 + 4) * time.Hour), "3 d 4 h ago", "Fri 27 Nov 08:00", true},
		{"SixDays", now.Add(-(6*24 + 23) * time.Hour), "6 d 23 h ago", "Mon 23 Nov 13:00", true},
		// A week or more away is a date: "152 d 1 h ago" makes a person count (issue 27, defect 7).
		{"SummerTime", time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC), "Wed 1 Jul", "Wed 1 Jul 12:00", true},
		{"OtherYear", time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC), "Sat 2 Jan 2027", "Sat 2 Jan 2027 02:00", false},
		{"LongAgo", now.Add(-(476*24 + 8) * time.Hour), "Mon 11 Aug 2025", "Mon 11 Aug 2025 05:00", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWhen(&tc.t, now)
			if w.Rel != tc.rel || w.Abs != tc.abs || w.Past != tc.isPast || !w.Set {
				t.Errorf("NewWhen(%v) = %+v, want rel %q abs %q past %v", tc.t, w, tc.rel, tc.abs, tc.isPast)
			}
		})
	}
	if w := NewWhen(nil, now); w.Set {
		t.Errorf("NewWhen(nil) = %+v, want unset", w)
	}
}

func TestCountGroupsThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1\u202f000", 1234567: "1\u202f234\u202f567", -4200: "-4\u202f200"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAtReadsInASentence(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) // Mon 30 Nov 12:00 in Helsinki
	tests := []struct {
		name      string
		t         time.Time
		at, dated string
	}{
		{"Today", now.Add(2*time.Hour + 30*time.Minute), "14:30", "14:30 on Mon 30 Nov"},
		{"LateTonightInHelsinki", time.Date(2026, 11, 30, 21, 30, 0, 0, time.UTC), "23:30", "23:30 on Mon 30 Nov"},
		{"AfterMidnightInHelsinki", time.Date(2026, 11, 30, 22, 30, 0, 0, time.UTC), "00:30 tomorrow", "00:30 on Tue 1 Dec"},
		{"Yesterday", now.Add(-24 * time.Hour), "12:00 yesterday", "12:00 on Sun 29 Nov"},
		{"LaterThisWeek", now.Add(72 * time.Hour), "12:00 on Thu 3 Dec", "12:00 on Thu 3 Dec"},
		{"NextYear", time.Date(2027, 1, 5, 8, 0, 0, 0, time.UTC), "10:00 on Tue 5 Jan 2027", "10:00 on Tue 5 Jan 2027"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := At(tc.t, now); got != tc.at {
				t.Errorf("At = %q, want %q", got, tc.at)
			}
			if got := AtDated(tc.t, now); got != tc.dated {
				t.Errorf("AtDated = %q, want %q", got, tc.dated)
			}
		})
	}
}

func TestStampAndISO(t *testing.T) {
	t.Parallel()
	winter := time.Date(2026, 11, 30, 22, 30, 0, 0, time.UTC) // 00:30 on 1 Dec in Helsinki
	summer := time.Date(2026, 7, 1, 9, 5, 0, 0, time.FixedZone("x", 3600))
	if got := Stamp(winter); got != "2026-12-01 00:30" {
		t.Errorf("Stamp(winter) = %q", got)
	}
	if got := Stamp(summer); got != "2026-07-01 11:05" {
		t.Errorf("Stamp(summer) = %q", got)
	}
	if got := ISO(summer); got != "2026-07-01T08:05:00Z" {
		t.Errorf("ISO = %q", got)
	}
}

func TestCountAndCredits(t *testing.T) {
	t.Parallel()
	if got := Count(1234); got != "1\u202f234" {
		t.Errorf("Count(1234) = %q", got)
	}
	half, five, tenth := float32(2.5), float64(5), float32(0.1)
	for _, tc := range []struct{ got, want string }{
		{Credits(&half), "2.5"}, {Credits(&five), "5"}, {Credits(&tenth), "0.1"},
		{Credits[float32](nil), "—"}, {Credits[float64](nil), "—"},
	} {
		if tc.got != tc.want {
			t.Errorf("Credits = %q, want %q", tc.got, tc.want)
		}
	}
}
