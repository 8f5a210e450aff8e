package demo

import "time"

// The enrolment check ladders (enrolment_check_schedule.rs): offsets from the anchor at which a
// row waiting for an enrolment asks Suotar again.
var (
	ladderCompleted      = days(1, 3, 7, 14, 30, 60, 90)
	ladderVisited        = append(minutes(60, 75, 120, 240, 480), append(dayRange(1, 14, 1), dayRange(21, 77, 7)...)...)
	ladderCheckRequested = append(minutes(15, 50, 60, 75, 120, 180, 360, 720, 1440), append(dayRange(2, 28, 1), dayRange(35, 175, 7)...)...)
)

const (
	groupCompleted      = "completed"
	groupVisited        = "visited"
	groupCheckRequested = "check_requested"
)

// ecSourceSchedule is enrolment_check_source while the row's checks follow its ladder.
const ecSourceSchedule = "schedule"

// groupRank orders the groups as the LMS's enum does: a row only ever moves up.
func groupRank(group string) int {
	switch group {
	case groupVisited:
		return 1
	case groupCheckRequested:
		return 2
	}
	return 0
}

func ladderOf(group string) []time.Duration {
	switch group {
	case groupVisited:
		return ladderVisited
	case groupCheckRequested:
		return ladderCheckRequested
	}
	return ladderCompleted
}

// rungDue returns when rung step of the ladder is due for an anchor. Rungs a day or more after
// the previous one are batched: released on the next 5-minute boundary.
func rungDue(group string, anchor time.Time, step int) time.Time {
	l := ladderOf(group)
	due := anchor.Add(l[step])
	prev := time.Duration(0)
	if step > 0 {
		prev = l[step-1]
	}
	if l[step]-prev >= 24*time.Hour {
		if r := due.Truncate(5 * time.Minute); r.Before(due) {
			due = r.Add(5 * time.Minute)
		}
	}
	return due
}

// rungBatched reports whether rung step is released in a batch (rungDue's rounding).
func rungBatched(group string, step int) bool {
	l := ladderOf(group)
	prev := time.Duration(0)
	if step > 0 {
		prev = l[step-1]
	}
	return l[step]-prev >= 24*time.Hour
}

// nextRung returns the first rung due strictly after t, or -1 past the last rung: missed rungs
// collapse into one catch-up check.
func nextRung(group string, anchor, t time.Time) int {
	l := ladderOf(group)
	for i := range l {
		if rungDue(group, anchor, i).After(t) {
			return i
		}
	}
	return -1
}

func days(ds ...int) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = time.Duration(d) * 24 * time.Hour
	}
	return out
}

func minutes(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Minute
	}
	return out
}

func dayRange(from, to, step int) []time.Duration {
	var out []time.Duration
	for d := from; d <= to; d += step {
		out = append(out, time.Duration(d)*24*time.Hour)
	}
	return out
}
