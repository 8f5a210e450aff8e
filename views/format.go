package views

import (
	"fmt"
	"strconv"
	"time"

	"regdesk/schedule"
)

// The time formatters, one for each way a page writes a moment. Every time is shown in Helsinki,
// where regdesk's people are (schedule.Helsinki):
//
//   - NewWhen: a moment in a table or list, relative ("in 2 h 5 min") and absolute ("Mon 29 Nov
//     14:32"), with its ISO form for <time datetime>;
//   - At: a moment in a sentence, "14:30", "14:30 tomorrow", "14:30 on Thu 3 Dec";
//   - AtDated: the same with the date always spelled out, for text read later and elsewhere;
//   - Clock: a time of day, "14:32"; Date: a day, "3 Dec 2026";
//   - Stamp: "2026-12-03 14:32", for records a person compares with another system's;
//   - ISO: RFC 3339 in UTC, for machines.

// When is a moment as a person reads it: relative to now, and absolute in Helsinki.
type When struct {
	Set bool
	// Rel is "in 2 h 5 min", "3 days ago", "now".
	Rel string
	// Abs is "Mon 29 Nov 14:32" (with the year when it is not this year's).
	Abs string
	// ISO is the instant in RFC 3339, for <time datetime>.
	ISO string
	// Past is true when the moment has passed.
	Past bool
}

// NewWhen describes t as seen at now. A nil t gives the zero When (Set false).
func NewWhen(t *time.Time, now time.Time) When {
	if t == nil {
		return When{}
	}
	return When{
		Set:  true,
		Rel:  relative(*t, now),
		Abs:  absolute(*t, now),
		ISO:  ISO(*t),
		Past: !t.After(now),
	}
}

// absolute formats t in Helsinki, adding the year only when it differs from now's.
func absolute(t, now time.Time) string {
	return withYearIfOther(t, now, "Mon 2 Jan 15:04", "Mon 2 Jan 2006 15:04")
}

// withYearIfOther formats t in Helsinki with layout, or with withYear when t falls in another
// Helsinki year than now.
func withYearIfOther(t, now time.Time, layout, withYear string) string {
	lt := t.In(schedule.Helsinki())
	if lt.Year() != now.In(schedule.Helsinki()).Year() {
		return lt.Format(withYear)
	}
	return lt.Format(layout)
}

// Clock formats t as the Helsinki time of day, "14:32".
func Clock(t time.Time) string { return t.In(schedule.Helsinki()).Format("15:04") }

// relative says how far t is from now in the two largest units: "in 2 h 5 min", "3 d 4 h ago".
func relative(t, now time.Time) string {
	d := t.Sub(now)
	if d > -30*time.Second && d < 30*time.Second {
		return "now"
	}
	s := span(d.Abs())
	if d > 0 {
		return "in " + s
	}
	return s + " ago"
}

// span renders a duration in its two largest units: "2 h 5 min", "14 d", "45 s".
func span(d time.Duration) string {
	d = d.Round(time.Second)
	days := int64(d / (24 * time.Hour))
	hours := int64(d % (24 * time.Hour) / time.Hour)
	mins := int64(d % time.Hour / time.Minute)
	secs := int64(d % time.Minute / time.Second)
	switch {
	case days > 0 && hours > 0:
		return fmt.Sprintf("%d d %d h", days, hours)
	case days > 0:
		return fmt.Sprintf("%d d", days)
	case hours > 0 && mins > 0:
		return fmt.Sprintf("%d h %d min", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%d h", hours)
	case mins > 0:
		return fmt.Sprintf("%d min", mins)
	}
	return strconv.FormatInt(secs, 10) + " s"
}

// Count formats n with thin-space thousands groups: 1 234 567.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, "\u202f"...)
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Counted writes a quantity with its noun: "1 registration", "1 234 registrations".
func Counted(n int64, one, many string) string {
	return Count(n) + " " + schedule.Plural(int(n), one, many)
}

// Credits writes a number of credits as Sisu and people write them, "5", "2.5", at the precision it
// was stored with (a real column's 2.5 is not 2.5000000001); "—" when it is not set.
func Credits[T float32 | float64](c *T) string {
	if c == nil {
		return "—"
	}
	bits := 64
	if _, single := any(*c).(float32); single {
		bits = 32
	}
	return strconv.FormatFloat(float64(*c), 'f', -1, bits)
}

// At says when t is, the way a sentence on a page reads it at now: "14:30" today, "14:30
// tomorrow", "14:30 yesterday", otherwise "14:30 on Thu 3 Dec" (with the year when it is not
// now's), all in Helsinki. It fits after "at" or "by".
func At(t, now time.Time) string {
	lt, ln := t.In(schedule.Helsinki()), now.In(schedule.Helsinki())
	sameDay := func(a, b time.Time) bool { return a.Year() == b.Year() && a.YearDay() == b.YearDay() }
	switch {
	case sameDay(lt, ln):
		return lt.Format("15:04")
	case sameDay(lt, ln.AddDate(0, 0, 1)):
		return lt.Format("15:04") + " tomorrow"
	case sameDay(lt, ln.AddDate(0, 0, -1)):
		return lt.Format("15:04") + " yesterday"
	}
	return AtDated(t, now)
}

// AtDated is At with the date always spelled out, "14:30 on Thu 3 Dec": for text read later and
// elsewhere, such as a message a teacher passes on to a student, where "tomorrow" would mislead.
func AtDated(t, now time.Time) string {
	return withYearIfOther(t, now, "15:04 on Mon 2 Jan", "15:04 on Mon 2 Jan 2006")
}

// Date formats t's Helsinki date, "3 Dec 2026".
func Date(t time.Time) string { return t.In(schedule.Helsinki()).Format("2 Jan 2006") }

// Stamp formats t as "2026-12-03 14:32" in Helsinki: the form of a lookup's record, which a person
// compares with what Sisu's and Suotar's own screens show.
func Stamp(t time.Time) string { return t.In(schedule.Helsinki()).Format("2006-01-02 15:04") }

// ISO formats t in RFC 3339 in UTC, for <time datetime> and the browser's countdowns.
func ISO(t time.Time) string { return t.UTC().Format(time.RFC3339) }
