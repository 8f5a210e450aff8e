package schedule

import (
	"fmt"
	"sync"
	"time"
	_ "time/tzdata" // Helsinki must resolve on machines without a zoneinfo database.
)

// Date is a calendar day with no time of day and no zone, as Sisu records attainment and
// registration dates. The zero Date means "not known".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// NewDate returns the date y-m-d, normalised as time.Date normalises it.
func NewDate(y int, m time.Month, d int) Date {
	return DateOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
}

// DateOf returns the calendar day of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// Helsinki returns Europe/Helsinki, where regdesk's people, Suotar and the pipeline reason: the
// one place regdesk loads the zone. It is loaded on first use, so a binary's own embedded tzdata
// has registered by then; the tzdata embedded here makes failure impossible short of a broken
// toolchain.
var Helsinki = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocation("Europe/Helsinki")
	if err != nil {
		panic("schedule: Europe/Helsinki: " + err.Error())
	}
	return loc
})

// HelsinkiDate returns the day t falls on in Helsinki: the day regdesk, Suotar and the pipeline
// reason in. Sisu itself dates by the UTC day, which differs between Helsinki and UTC midnight.
func HelsinkiDate(t time.Time) Date { return DateOf(t.In(Helsinki())) }

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// String returns "YYYY-MM-DD", or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// Compare returns -1, 0 or +1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int {
	switch {
	case d.Year != o.Year:
		return cmpInt(d.Year, o.Year)
	case d.Month != o.Month:
		return cmpInt(int(d.Month), int(o.Month))
	}
	return cmpInt(d.Day, o.Day)
}

// Before reports whether d is an earlier day than o.
func (d Date) Before(o Date) bool { return d.Compare(o) < 0 }

// AddDays returns the day n days after d (before, for negative n).
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 0, 0, 0, 0, time.UTC))
}

// DaysSince returns how many days d is after o (negative when before).
func (d Date) DaysSince(o Date) int {
	a := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
	b := time.Date(o.Year, o.Month, o.Day, 0, 0, 0, 0, time.UTC)
	return int(a.Sub(b) / (24 * time.Hour))
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
