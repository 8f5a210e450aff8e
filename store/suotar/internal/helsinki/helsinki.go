// Package helsinki reads instants as Helsinki wall-clock time, the day Suotar and regdesk's users
// reason in, while Sisu dates by the UTC day.
//
// The zone is loaded on first use rather than at package initialisation: a binary that embeds
// time/tzdata registers it in its own init, which may run after ours (packages initialise in import
// path order, and "regdesk/…" sorts before "time/…"). If no zone data can be found at all, the EU
// summer-time rule Finland follows is applied by hand, so a date is never off by a day for a
// missing file.
package helsinki

import (
	"sync"
	"time"
)

const zoneName = "Europe/Helsinki"

var location = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocation(zoneName)
	if err != nil {
		return nil
	}
	return loc
})

// In returns t as Helsinki wall-clock time.
func In(t time.Time) time.Time {
	if loc := location(); loc != nil {
		return t.In(loc)
	}
	return byRule(t)
}

// Local returns the instant at which Helsinki clocks show the given wall-clock time.
func Local(year int, month time.Month, day, hour, min, sec, nsec int) time.Time {
	if loc := location(); loc != nil {
		return time.Date(year, month, day, hour, min, sec, nsec, loc)
	}
	return localByRule(time.Date(year, month, day, hour, min, sec, nsec, time.UTC))
}

// localByRule reads the UTC fields of wall as Helsinki wall-clock time under the EU rule.
func localByRule(wall time.Time) time.Time {
	// The offset in force two hours before the wall time read as UTC is the offset in force at
	// the wall time itself, except inside the hour a clock change skips or repeats.
	_, off := byRule(wall.Add(-2 * time.Hour)).Zone()
	return byRule(wall.Add(-time.Duration(off) * time.Second))
}

// Date returns the Helsinki calendar day of t.
func Date(t time.Time) (year int, month time.Month, day int) {
	return In(t).Date()
}

// byRule applies the EU rule: summer time (UTC+3) from 01:00 UTC on the last Sunday of March to
// 01:00 UTC on the last Sunday of October, standard time (UTC+2) otherwise.
func byRule(t time.Time) time.Time {
	u := t.UTC()
	start := lastSunday(u.Year(), time.March).Add(time.Hour)
	end := lastSunday(u.Year(), time.October).Add(time.Hour)
	if !u.Before(start) && u.Before(end) {
		return u.In(time.FixedZone("EEST", 3*60*60))
	}
	return u.In(time.FixedZone("EET", 2*60*60))
}

func lastSunday(year int, month time.Month) time.Time {
	last := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC)
	return last.AddDate(0, 0, -int(last.Weekday()))
}
