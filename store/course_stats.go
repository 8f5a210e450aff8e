package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// settledStates are the states a row never leaves once in them: counted once a week into
// course_module_weeks (migration 0011b), so the support list need not count them again.
var settledStates = []schedule.State{schedule.StateRegistered, schedule.StateDuplicate, schedule.StateNotImproved, schedule.StateCancelled}

var sqlSettled = `cr.state IN (` + quoteList(settledStates...) + `)`

// HelsinkiWeekStart returns the start of t's Helsinki week: Monday, 00:00.
func HelsinkiWeekStart(t time.Time) time.Time {
	loc := schedule.Helsinki()
	lt := t.In(loc)
	back := (int(lt.Weekday()) + 6) % 7
	return time.Date(lt.Year(), lt.Month(), lt.Day()-back, 0, 0, 0, 0, loc)
}

// addWeeks moves a week start by n calendar weeks in Helsinki (a week with a clock change is
// 167 or 169 hours long).
func addWeeks(weekStart time.Time, n int) time.Time {
	lt := weekStart.In(schedule.Helsinki())
	return time.Date(lt.Year(), lt.Month(), lt.Day()+7*n, 0, 0, 0, 0, lt.Location())
}

// CourseWeeksRoll counts the settled rows of every complete Helsinki week before now's that is not
// counted yet, oldest first, each week in its own transaction, and returns how many weeks it
// counted. The weeks counted are always every week from the first settled row's on, with no gap:
// the support list counts from the end of the last one. Servers may run it at once; each week is
// counted by one of them.
func (s *Store) CourseWeeksRoll(ctx context.Context, now time.Time) (int, error) {
	var first *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT min(cr.terminal_at) FROM ledger_mirror cr
WHERE cr.terminal_at IS NOT NULL AND cr.deleted_at IS NULL`).Scan(&first); err != nil {
		return 0, dbError("CourseWeeksRoll first", err)
	}
	if first == nil {
		return 0, nil
	}
	var last *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT max(week)::timestamp FROM course_module_week_rolls`).Scan(&last); err != nil {
		return 0, dbError("CourseWeeksRoll last", err)
	}
	week := HelsinkiWeekStart(*first)
	if last != nil {
		// A date read as a timestamp without zone: its calendar day is the Monday.
		week = addWeeks(time.Date(last.Year(), last.Month(), last.Day(), 0, 0, 0, 0, schedule.Helsinki()), 1)
	}
	current := HelsinkiWeekStart(now)
	n := 0
	for ; week.Before(current); week = addWeeks(week, 1) {
		end := addWeeks(week, 1)
		day := schedule.HelsinkiDate(week).String()
		err := s.InTx(ctx, func(q *Queries) error {
			tag, err := q.db.Exec(ctx, `INSERT INTO course_module_week_rolls (week, rolled_at) VALUES ($1::date, $2)
ON CONFLICT (week) DO NOTHING`, day, now)
			if err != nil {
				return dbError("CourseWeeksRoll claim", err)
			}
			if tag.RowsAffected() == 0 {
				return nil // another server counted it
			}
			n++
			_, err = q.db.Exec(ctx, `INSERT INTO course_module_weeks (course_module_id, week, state, n, last_registered_at)
SELECT cr.course_module_id, $1::date, cr.state, count(*), max(cr.registered_at)
FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND `+sqlSettled+` AND cr.terminal_at >= $2 AND cr.terminal_at < $3
GROUP BY cr.course_module_id, cr.state`, day, week, end)
			if err != nil {
				return dbError("CourseWeeksRoll "+day, err)
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// CourseModuleStats is one course module as the support list shows it.
type CourseModuleStats struct {
	ModuleID, ModuleName, CourseID, CourseName string
	CourseCode                                 *string
	// Total counts every attempt; Registered those registered (or found already in Sisu).
	Total, Registered int64
	// InFlight counts the unfinished current attempts, Failed the current ones failed for good,
	// NeedsAdmin those a person must look at (the queue's count).
	InFlight, Failed, NeedsAdmin int64
	LastRegisteredAt             *time.Time
	// TopError is the most common error code of the current unfinished or failed attempts.
	TopError  schedule.ErrorCode
	TopErrorN int64
	// SetupError is a course-code error some current attempt fails on (course_not_allowed,
	// course_code_not_found): the module's setup, not the students, needs fixing.
	SetupError  schedule.ErrorCode
	SetupErrorN int64
	// Weekly counts registrations per Helsinki week, oldest first, this week last.
	Weekly []int64
}

// setupErrors are the codes that say the course module itself is set up wrong in Sisu.
var setupErrors = map[schedule.ErrorCode]bool{schedule.ErrorCourseNotAllowed: true, schedule.ErrorCourseCodeNotFound: true}

// CourseModuleStatsList returns every live course module with its counts at now and its
// registrations in each of the last weeks Helsinki weeks, in one snapshot. Settled rows come from
// the weekly counts (CourseWeeksRoll) and the rows settled since; everything else is counted live.
func (s *Store) CourseModuleStatsList(ctx context.Context, now time.Time, weeks int) ([]CourseModuleStats, error) {
	weeks = max(weeks, 1)
	current := HelsinkiWeekStart(now)
	bounds := make([]time.Time, 0, weeks+1)
	dates := make([]string, 0, weeks+1)
	for i := weeks - 1; i >= -1; i-- {
		w := addWeeks(current, -i)
		bounds = append(bounds, w)
		dates = append(dates, schedule.HelsinkiDate(w).String())
	}
	var out []CourseModuleStats
	var byID map[string]*CourseModuleStats
	// The unsettled rows' groups are the longest read (every live attempt not settled yet, ~100k
	// index entries at 1M rows): they are read beside the rest, on a second connection that sees
	// the same snapshot (inOneSnapshot).
	var unsettled []unsettledGroup
	helper := func(ctx context.Context, q *Queries) error {
		rows, _ := q.db.Query(ctx, `SELECT cr.course_module_id::text, cr.state::text, coalesce(cr.error_code::text, ''), cr.superseded_by_id IS NOT NULL, count(*)
FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND cr.state NOT IN (`+quoteList(settledStates...)+`)
GROUP BY cr.course_module_id, cr.state, cr.error_code, 4`)
		var g unsettledGroup
		_, err := pgx.ForEachRow(rows, []any{&g.module, &g.state, &g.code, &g.superseded, &g.n}, func() error {
			unsettled = append(unsettled, g)
			return nil
		})
		if err != nil {
			return dbError("CourseModuleStatsList unsettled", err)
		}
		return nil
	}
	main := func(ctx context.Context, q *Queries) error {
		rows, _ := q.db.Query(ctx, `SELECT m.id::text, coalesce(m.name, ''), c.id::text, c.name, m.uh_course_code
FROM course_modules m JOIN courses c ON c.id = m.course_id
WHERE m.deleted_at IS NULL AND c.deleted_at IS NULL
ORDER BY c.name, m.order_number, m.name, m.id`)
		var err error
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (CourseModuleStats, error) {
			var m CourseModuleStats
			err := r.Scan(&m.ModuleID, &m.ModuleName, &m.CourseID, &m.CourseName, &m.CourseCode)
			m.Weekly = make([]int64, weeks)
			return m, err
		})
		if err != nil {
			return dbError("CourseModuleStatsList modules", err)
		}
		byID = make(map[string]*CourseModuleStats, len(out))
		for i := range out {
			byID[out[i].ModuleID] = &out[i]
		}
		var lastRolled *time.Time
		if err := q.db.QueryRow(ctx, `SELECT max(week)::timestamp FROM course_module_week_rolls`).Scan(&lastRolled); err != nil {
			return dbError("CourseModuleStatsList rolls", err)
		}
		// Settled since the counted weeks: all of them when nothing is counted yet.
		since := time.Time{}
		if lastRolled != nil {
			since = addWeeks(time.Date(lastRolled.Year(), lastRolled.Month(), lastRolled.Day(), 0, 0, 0, 0, schedule.Helsinki()), 1)
		}
		settle := func(m *CourseModuleStats, state string, n int64, last *time.Time) {
			m.Total += n
			if state == string(schedule.StateRegistered) || state == string(schedule.StateDuplicate) {
				m.Registered += n
				if last != nil && (m.LastRegisteredAt == nil || last.After(*m.LastRegisteredAt)) {
					m.LastRegisteredAt = last
				}
			}
		}

		rows, _ = q.db.Query(ctx, `SELECT w.course_module_id::text, w.state::text, sum(w.n)::bigint, max(w.last_registered_at),
  coalesce(array_agg(w.n ORDER BY w.week) FILTER (WHERE w.state = 'registered' AND w.week >= $1::date), '{}'),
  coalesce(array_agg(w.week::text ORDER BY w.week) FILTER (WHERE w.state = 'registered' AND w.week >= $1::date), '{}')
FROM course_module_weeks w GROUP BY w.course_module_id, w.state`, dates[0])
		var module, state string
		var n int64
		var last *time.Time
		var wn []int64
		var wd []string
		_, err = pgx.ForEachRow(rows, []any{&module, &state, &n, &last, &wn, &wd}, func() error {
			m := byID[module]
			if m == nil {
				return nil
			}
			settle(m, state, n, last)
			for i, d := range wd {
				for j := range weeks {
					if dates[j] == d {
						m.Weekly[j] += wn[i]
					}
				}
			}
			return nil
		})
		if err != nil {
			return dbError("CourseModuleStatsList weeks", err)
		}

		rows, _ = q.db.Query(ctx, `SELECT cr.course_module_id::text, cr.state::text, width_bucket(cr.terminal_at, $2::timestamptz[]),
  count(*), max(cr.registered_at)
FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND cr.terminal_at IS NOT NULL AND `+sqlSettled+` AND cr.terminal_at >= $1 AND $3::timestamptz IS NOT NULL
GROUP BY cr.course_module_id, cr.state, 3`, since, bounds, now)
		var bucket int
		_, err = pgx.ForEachRow(rows, []any{&module, &state, &bucket, &n, &last}, func() error {
			m := byID[module]
			if m == nil {
				return nil
			}
			settle(m, state, n, last)
			if state == string(schedule.StateRegistered) && bucket >= 1 && bucket <= weeks {
				m.Weekly[bucket-1] += n
			}
			return nil
		})
		if err != nil {
			return dbError("CourseModuleStatsList settled since", err)
		}

		// Needs a person, counted as if nobody had dismissed anything (an index-only scan of the
		// attention candidates, 0021), then the few rows a dismissal covers taken off, classified
		// in Go as RegistrationCountsGet does: the dismissal check written into the count fetched
		// every candidate from the heap.
		rows, _ = q.db.Query(ctx, `SELECT cr.course_module_id::text, count(*) FROM ledger_mirror cr
WHERE `+liveSQL+` AND `+sqlAttentionCandidate+` AND `+sqlPersonLevel+` AND NOT `+sqlExplained+`
GROUP BY cr.course_module_id`, now)
		_, err = pgx.ForEachRow(rows, []any{&module, &n}, func() error {
			if m := byID[module]; m != nil {
				m.NeedsAdmin = n
			}
			return nil
		})
		if err != nil {
			return dbError("CourseModuleStatsList needs admin", err)
		}
		dismissed, err := q.attentionDismissedList(ctx, now, AllCourses())
		if err != nil {
			return fmt.Errorf("needs admin: %w", err)
		}
		for _, d := range dismissed {
			st := schedule.Classify(d.ScheduleRow(), now)
			if m := byID[d.CourseModuleID]; m != nil && st.Dismissed && !d.Explained && !st.Reasons.PersonLevel().Empty() {
				m.NeedsAdmin--
			}
		}
		return nil
	}
	if err := s.inOneSnapshot(ctx, []func(context.Context, *Queries) error{main, helper}); err != nil {
		return nil, fmt.Errorf("CourseModuleStatsList: %w", err)
	}
	type errKey struct {
		module string
		code   schedule.ErrorCode
	}
	errs := map[errKey]int64{}
	for _, g := range unsettled {
		m := byID[g.module]
		if m == nil {
			continue
		}
		m.Total += g.n
		if g.superseded {
			continue
		}
		st := schedule.State(g.state)
		switch {
		case st == schedule.StateFailedPermanent:
			m.Failed += g.n
		case !st.IsTerminal():
			m.InFlight += g.n
		}
		if g.code != "" {
			errs[errKey{g.module, schedule.ErrorCode(g.code)}] += g.n
		}
	}
	for k, n := range errs {
		m := byID[k.module]
		if n > m.TopErrorN || (n == m.TopErrorN && k.code < m.TopError) {
			m.TopError, m.TopErrorN = k.code, n
		}
		if setupErrors[k.code] && (n > m.SetupErrorN || (n == m.SetupErrorN && k.code < m.SetupError)) {
			m.SetupError, m.SetupErrorN = k.code, n
		}
	}
	return out, nil
}

// unsettledGroup is one group of the unsettled rows CourseModuleStatsList counts.
type unsettledGroup struct {
	module, state, code string // code "": none
	superseded          bool
	n                   int64
}
