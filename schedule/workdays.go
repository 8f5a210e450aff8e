package schedule

import "time"

// DefaultWaitingTarget is how many working days a row may wait for a person before the queue
// marks it as overdue for attention.
const DefaultWaitingTarget = 2

// WorkingDaysAfter returns the instant n working days after since, counted in Helsinki wall-clock
// time with Saturdays and Sundays left out: the target by which a row that began waiting for a
// person at since should have had one. A start on a weekend counts from the Monday's midnight, so
// a row that came in on Saturday is not already behind on Monday morning. Days are added on the
// calendar rather than as 24-hour spans, so a target across a change of clocks keeps its hour.
func WorkingDaysAfter(since time.Time, n int) time.Time {
	loc := Helsinki()
	t := since.In(loc)
	for isWeekend(t.Weekday()) {
		y, m, d := t.Date()
		t = time.Date(y, m, d+1, 0, 0, 0, 0, loc)
	}
	for n > 0 {
		y, m, d := t.Date()
		t = time.Date(y, m, d+1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
		if !isWeekend(t.Weekday()) {
			n--
		}
	}
	return t
}

// PastWaitingTarget reports whether a row that began waiting for a person at since has, at now,
// waited longer than target working days (WorkingDaysAfter).
func PastWaitingTarget(since, now time.Time, target int) bool {
	return !now.Before(WorkingDaysAfter(since, target))
}

func isWeekend(d time.Weekday) bool { return d == time.Saturday || d == time.Sunday }
