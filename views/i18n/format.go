package i18n

import (
	"math"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
)

// The ways a page writes a moment, each in Helsinki time and the language's own form:
//
//   - When: in a table, relative ("in 2 h 5 min", "2 t 5 min päästä") and absolute ("Tue 1 Dec
//     20:54", "ti 1.12. klo 20.54", "tis 1 dec. kl. 20.54");
//   - At: in a sentence ("20:54", "20:54 tomorrow", "20:54 on Tue 1 Dec"; "klo 20.54", "huomenna
//     klo 20.54", "ti 1.12. klo 20.54");
//   - AtDated: At with the date always spelled out, for text read later and elsewhere;
//   - Clock ("20:54", "20.54"), Date ("1 Dec 2026", "1.12.2026", "1 dec. 2026");
//   - Stamp ("2026-12-01 20:54" in every language, as Sisu's and Suotar's screens write it) and
//     ISO (RFC 3339 in UTC, for machines).
//
// The words around the numbers ("klo", "tomorrow", "päästä") are in the catalogue (time.*); the
// day's shape is the language's convention, kept here.

var (
	weekdaysEN = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	weekdaysFI = [7]string{"su", "ma", "ti", "ke", "to", "pe", "la"}
	weekdaysSV = [7]string{"sön", "mån", "tis", "ons", "tors", "fre", "lör"}
	monthsEN   = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	monthsSV   = [12]string{"jan.", "feb.", "mars", "apr.", "maj", "juni", "juli", "aug.", "sep.", "okt.", "nov.", "dec."}
)

// When is a moment as a table shows it: relative to now, and absolute in Helsinki.
type When struct {
	Set bool
	// Rel is "in 2 h 5 min", "3 d ago", "now" in the language.
	Rel string
	// Abs is "Tue 1 Dec 20:54" in the language (with the year when it is not this year's).
	Abs string
	// ISO is the instant in RFC 3339, for <time datetime>.
	ISO string
	// Past is true when the moment has passed.
	Past bool
	// Dated is true for a moment DatedAfter or more from now: Rel is then its date ("Mon 23 Aug
	// 2025"), since "476 d 8 h ago" makes a person count; a page shows Abs alone for it, and it
	// does not count down.
	Dated bool
}

// DatedAfter is how far from now a moment is written as a date rather than a span: a week.
const DatedAfter = 7 * 24 * time.Hour

// dated reports whether t is DatedAfter or more from now.
func dated(t, now time.Time) bool { return t.Sub(now).Abs() >= DatedAfter }

// When describes t as seen at now. A nil t gives the zero When (Set false).
func (l *Localizer) When(t *time.Time, now time.Time) When {
	if t == nil {
		return When{}
	}
	return When{Set: true, Rel: l.Relative(*t, now), Abs: l.Abs(*t, now), ISO: ISO(*t), Past: !t.After(now), Dated: dated(*t, now)}
}

// Abs writes t with its day and time, adding the year when it is not now's.
func (l *Localizer) Abs(t, now time.Time) string {
	return l.T("time.abs", "Day", l.day(t, now), "Clock", l.Clock(t))
}

// Clock writes t's Helsinki time of day: "20:54", "20.54".
func (l *Localizer) Clock(t time.Time) string {
	lt := t.In(schedule.Helsinki())
	if l.Lang == EN {
		return lt.Format("15:04")
	}
	return lt.Format("15.04")
}

// Date writes t's Helsinki date: "1 Dec 2026", "1.12.2026", "1 dec. 2026".
func (l *Localizer) Date(t time.Time) string {
	lt := t.In(schedule.Helsinki())
	d, m, y := strconv.Itoa(lt.Day()), lt.Month(), strconv.Itoa(lt.Year())
	switch l.Lang {
	case FI:
		return d + "." + strconv.Itoa(int(m)) + "." + y
	case SV:
		return d + " " + monthsSV[m-1] + " " + y
	}
	return d + " " + monthsEN[m-1] + " " + y
}

// DayMonth writes a calendar day without its year, as a chart's day axis does: "30 Nov",
// "30.11.", "30 nov.".
func (l *Localizer) DayMonth(d schedule.Date) string {
	day, m := strconv.Itoa(d.Day), d.Month
	switch l.Lang {
	case FI:
		return day + "." + strconv.Itoa(int(m)) + "."
	case SV:
		return day + " " + monthsSV[m-1]
	}
	return day + " " + monthsEN[m-1]
}

// DayFull writes a calendar day with its weekday and year, as a chart's table and tooltips do:
// "Mon 30 Nov 2026", "ma 30.11.2026", "mån 30 nov. 2026".
func (l *Localizer) DayFull(d schedule.Date) string {
	wd := time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC).Weekday()
	day, m, y := strconv.Itoa(d.Day), d.Month, strconv.Itoa(d.Year)
	switch l.Lang {
	case FI:
		return weekdaysFI[wd] + " " + day + "." + strconv.Itoa(int(m)) + "." + y
	case SV:
		return weekdaysSV[wd] + " " + day + " " + monthsSV[m-1] + " " + y
	}
	return weekdaysEN[wd] + " " + day + " " + monthsEN[m-1] + " " + y
}

// day writes t's weekday and date, with the year only when it is not now's: "Tue 1 Dec",
// "ti 1.12.", "tis 1 dec.".
func (l *Localizer) day(t, now time.Time) string {
	lt := t.In(schedule.Helsinki())
	withYear := lt.Year() != now.In(schedule.Helsinki()).Year()
	d, m, y, wd := strconv.Itoa(lt.Day()), lt.Month(), strconv.Itoa(lt.Year()), lt.Weekday()
	switch l.Lang {
	case FI:
		s := weekdaysFI[wd] + " " + d + "." + strconv.Itoa(int(m)) + "."
		if withYear {
			s += y
		}
		return s
	case SV:
		s := weekdaysSV[wd] + " " + d + " " + monthsSV[m-1]
		if withYear {
			s += " " + y
		}
		return s
	}
	s := weekdaysEN[wd] + " " + d + " " + monthsEN[m-1]
	if withYear {
		s += " " + y
	}
	return s
}

// At says when t is, the way a sentence reads it at now: today's time alone, "tomorrow" and
// "yesterday" by name, any other day with its date; it fits the catalogue's {{.At}}.
func (l *Localizer) At(t, now time.Time) string {
	lt, ln := t.In(schedule.Helsinki()), now.In(schedule.Helsinki())
	sameDay := func(a, b time.Time) bool { return a.Year() == b.Year() && a.YearDay() == b.YearDay() }
	switch {
	case sameDay(lt, ln):
		return l.T("time.at.today", "Clock", l.Clock(t))
	case sameDay(lt, ln.AddDate(0, 0, 1)):
		return l.T("time.at.tomorrow", "Clock", l.Clock(t))
	case sameDay(lt, ln.AddDate(0, 0, -1)):
		return l.T("time.at.yesterday", "Clock", l.Clock(t))
	}
	return l.AtDated(t, now)
}

// AtDated is At with the date always spelled out, for text read later and elsewhere (a message a
// teacher passes on to a student), where "tomorrow" would mislead.
func (l *Localizer) AtDated(t, now time.Time) string {
	return l.T("time.at.dated", "Day", l.day(t, now), "Clock", l.Clock(t))
}

// Day writes t's weekday and date, with the year only when it is not now's: "Tue 1 Dec",
// "ti 1.12.", "tis 1 dec.".
func (l *Localizer) Day(t, now time.Time) string { return l.day(t, now) }

// Relative says how far t is from now in the two largest units: "in 2 h 5 min", "3 d 4 h ago";
// a moment DatedAfter or more away is its date instead ("Mon 23 Aug 2025").
func (l *Localizer) Relative(t, now time.Time) string {
	if dated(t, now) {
		return l.day(t, now)
	}
	d := t.Sub(now)
	if d > -30*time.Second && d < 30*time.Second {
		return l.T("time.now")
	}
	if d > 0 {
		return l.T("time.in", "Span", l.Span(d))
	}
	return l.T("time.ago", "Span", l.Span(-d))
}

// Span writes a duration in its two largest units: "2 h 5 min", "14 d", "45 s" ("2 t 5 min",
// "14 pv" in Finnish).
func (l *Localizer) Span(d time.Duration) string {
	d = d.Abs().Round(time.Second)
	days := int64(d / (24 * time.Hour))
	hours := int64(d % (24 * time.Hour) / time.Hour)
	mins := int64(d % time.Hour / time.Minute)
	secs := int64(d % time.Minute / time.Second)
	switch {
	case days > 0 && hours > 0:
		return l.T("span.dh", "D", days, "H", hours)
	case days > 0:
		return l.T("span.d", "D", days)
	case hours > 0 && mins > 0:
		return l.T("span.hm", "H", hours, "M", mins)
	case hours > 0:
		return l.T("span.h", "H", hours)
	case mins > 0:
		return l.T("span.m", "M", mins)
	}
	return l.T("span.s", "S", secs)
}

// Stamp writes t as "2026-12-03 14:32" in Helsinki, in every language: the form of a record a
// person compares with what Sisu's and Suotar's own screens show.
func Stamp(t time.Time) string { return t.In(schedule.Helsinki()).Format("2006-01-02 15:04") }

// ISO writes t in RFC 3339 in UTC, for <time datetime> and the browser's countdowns.
func ISO(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Count writes an integer with narrow no-break spaces between thousands, as all three languages
// may: 1 234 567.
func (l *Localizer) Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/3*3 + 1)
	if neg {
		b.WriteByte('-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Decimal writes a number with the language's decimal mark, at the shortest precision that reads
// back as n: "2.5", "2,5".
func (l *Localizer) Decimal(n float64) string {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return "—"
	}
	return l.decimal(strconv.FormatFloat(n, 'f', -1, 64))
}

func (l *Localizer) decimal(s string) string {
	if l.Lang == EN {
		return s
	}
	return strings.Replace(s, ".", ",", 1)
}

// Credits writes a number of credits as Sisu writes them, "5", "2.5" ("2,5" in Finnish and
// Swedish), at the precision it was stored with (a real column's 2.5 is not 2.5000000001); "—"
// when it is not set.
func Credits[T float32 | float64](l *Localizer, c *T) string {
	if c == nil {
		return "—"
	}
	bits := 64
	if _, single := any(*c).(float32); single {
		bits = 32
	}
	return l.decimal(strconv.FormatFloat(float64(*c), 'f', -1, bits))
}
