package demo

import "time"

// prefixKind is a way a row gets from its creation to the import queue (checking_enrolment).
type prefixKind int

const (
	// pkPark: preconditions park the row until rung 0 of the completed ladder (a day), checks
	// miss `misses` times, then one finds the enrolment. The common path.
	pkPark prefixKind = iota
	// pkVisited: the student had visited the course page; rungs start at an hour.
	pkVisited
	// pkPressed: checks miss, then the student enrols and presses "I have enrolled"; the
	// check_requested ladder's first rung (15 min) finds it.
	pkPressed
	// pkViaResolve: the first rung was already due: pending → ready → resolving → checking.
	pkViaResolve
	// pkLateNumber: the student had no linked number; they link one after `wait`, then pkPark.
	pkLateNumber
)

type prefix struct {
	kind   prefixKind
	misses int
	wait   time.Duration
}

// maxLen bounds the time from creation to checking_enrolment, so a caller can start a row early
// enough that it reaches a planned submission time and never passes it.
func (p prefix) maxLen() time.Duration {
	slack := time.Duration(p.misses+3) * (5*time.Minute + 30*time.Second)
	switch p.kind {
	case pkVisited:
		return ladderVisited[p.misses] + slack
	case pkPressed:
		return ladderCompleted[p.misses-1] + p.wait + 15*time.Minute + slack
	case pkViaResolve:
		return time.Minute
	case pkLateNumber:
		return p.wait + ladderCompleted[p.misses] + slack
	}
	return ladderCompleted[p.misses] + slack
}

// drawPrefix picks how a row that reaches Sisu got there.
func (g *gen) drawPrefix() prefix {
	switch g.rng.pick([]int{58, 10, 10, 9, 8, 5}) {
	case 0:
		return prefix{kind: pkPark}
	case 1:
		return prefix{kind: pkPark, misses: g.between(1, 3)}
	case 2:
		return prefix{kind: pkVisited, misses: g.rng.pick([]int{70, 20, 10})}
	case 3:
		p := prefix{kind: pkPressed, misses: g.between(1, 3)}
		gap := ladderCompleted[p.misses] - ladderCompleted[p.misses-1]
		p.wait = g.rng.dur(time.Hour, gap-2*time.Hour)
		return p
	case 4:
		return prefix{kind: pkViaResolve}
	}
	return prefix{kind: pkLateNumber, wait: g.rng.dur(2*time.Hour, 40*24*time.Hour)}
}

// runPrefix takes a freshly created row to checking_enrolment along p.
func (l *life) runPrefix(p prefix) {
	switch p.kind {
	case pkViaResolve:
		l.ready(l.preconditionsTick(l.last), msgReady)
		l.resolveClaim(l.last.Add(l.g.rng.dur(200*time.Millisecond, 10*time.Second)))
		l.resolveFound(l.g.rng.dur(time.Second, 20*time.Second))
		return
	case pkLateNumber:
		// The student proves their number only now: the link is made then.
		link := l.last.Add(p.wait)
		l.r.c.student.linkedAt = link
		l.park(l.preconditionsTick(link), groupCompleted)
	case pkVisited:
		l.park(l.preconditionsTick(l.last), groupVisited)
	default:
		l.park(l.preconditionsTick(l.last), groupCompleted)
	}
	for range p.misses {
		l.checkMiss(l.rungClaim(), l.g.rng.chance(0.15))
	}
	if p.kind == pkPressed {
		l.pressed(l.last.Add(p.wait))
	}
	l.checkFound(l.rungClaim())
}

// importTick is when import (every 10 s) next claims a queued row.
func (l *life) importTick() time.Time {
	return l.last.Add(l.g.rng.dur(200*time.Millisecond, 10*time.Second))
}

// toSubmit creates a completion and its row, and takes the row along p to submitting at about
// submit, never later.
func (g *gen) toSubmit(s *student, m *module, submit time.Time, p prefix, grade int32) *life {
	l := g.begin(s, m, submit.Add(-p.maxLen()-12*time.Second), grade)
	l.runPrefix(p)
	l.submit(l.importTick())
	return l
}
