package store

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// The overview's registered rows come from registered_days (migration 0017) for every finished
// Helsinki day the server has counted, and live for the rows that became registered since.

// slotSeconds is the width of a registered_days slot: half an hour, which every bin edge of the
// time-to-registration histogram is a whole number of.
const slotSeconds = 1800

// maxSlot is the last slot (14 days after the submission and later); noSlot marks a row without a
// submission time, which counts per day but in no bin.
const (
	maxSlot = 672
	noSlot  = -2
)

// sqlHelsinkiDay is the Helsinki calendar day of an instant, as registered_days keys it.
func sqlHelsinkiDay(col string) string {
	return `(` + col + ` AT TIME ZONE '` + schedule.Helsinki().String() + `')::date`
}

// sqlSlot is a registered row's time to registration in whole half hours, clamped as
// registered_days keeps it. extract returns numeric, so the floor is exact at every edge.
const sqlSlot = `CASE WHEN cr.submitted_at IS NULL THEN -2
  ELSE least(greatest(floor(extract(epoch FROM cr.registered_at - cr.submitted_at) / 1800), -1), 672)::int END`

// RegisteredDaysRoll counts the rows that became registered on every finished Helsinki day before
// now's that is not counted yet, and returns how many days it counted. The days counted are always
// every day from the first registered row's on, with no gap: the overview counts live from the end
// of the last one. Servers may run it at once; the claim of a day is its mark's primary key, so
// each day is counted by one of them.
func (s *Store) RegisteredDaysRoll(ctx context.Context, now time.Time) (int, error) {
	loc := schedule.Helsinki()
	var first *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT min(cr.state_entered_at) FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND cr.state = 'registered'`).Scan(&first); err != nil {
		return 0, dbError("RegisteredDaysRoll first", err)
	}
	if first == nil {
		return 0, nil
	}
	var last *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT max(day)::timestamp FROM registered_day_rolls`).Scan(&last); err != nil {
		return 0, dbError("RegisteredDaysRoll last", err)
	}
	day := helsinkiDayStart(*first)
	if last != nil {
		// A date read as a timestamp without zone: its calendar day is the last counted day.
		day = time.Date(last.Year(), last.Month(), last.Day()+1, 0, 0, 0, 0, loc)
	}
	today := helsinkiDayStart(now)
	var days []string
	for d := day; d.Before(today); d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc) {
		days = append(days, schedule.HelsinkiDate(d).String())
	}
	if len(days) == 0 {
		return 0, nil
	}
	n := 0
	err := s.InTx(ctx, func(q *Queries) error {
		rows, _ := q.db.Query(ctx, `INSERT INTO registered_day_rolls (day, rolled_at)
SELECT d, $2 FROM unnest($1::date[]) AS d ON CONFLICT (day) DO NOTHING RETURNING day::text`, days, now)
		claimed, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return dbError("RegisteredDaysRoll claim", err)
		}
		n = len(claimed)
		if n == 0 {
			return nil // another server counted them
		}
		// Only the claimed days: another server may hold some of the range.
		_, err = q.db.Exec(ctx, `INSERT INTO registered_days (entered_day, day, slot, n)
SELECT `+sqlHelsinkiDay("cr.state_entered_at")+`, `+sqlHelsinkiDay("cr.registered_at")+`, `+sqlSlot+`, count(*)
FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND cr.state = 'registered' AND cr.registered_at IS NOT NULL
  AND cr.state_entered_at >= $2 AND cr.state_entered_at < $3
  AND `+sqlHelsinkiDay("cr.state_entered_at")+` = ANY ($1::date[])
GROUP BY 1, 2, 3`, claimed, day, today)
		if err != nil {
			return dbError("RegisteredDaysRoll count", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// helsinkiDayStart is the start of t's Helsinki day.
func helsinkiDayStart(t time.Time) time.Time {
	lt := t.In(schedule.Helsinki())
	return time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, lt.Location())
}

// slotBins maps each slot (-1 … maxSlot) to its histogram bin for edges, or fails when an edge is
// not a whole number of half hours within the slots' range, which the counted days cannot bin.
func slotBins(edges []float64) ([]int, error) {
	for _, e := range edges {
		if e < 0 || e > maxSlot*slotSeconds || math.Mod(e, slotSeconds) != 0 {
			return nil, fmt.Errorf("latency edge %v s is not a whole half hour within 14 days", e)
		}
	}
	bins := make([]int, maxSlot+2) // index slot+1
	for slot := -1; slot <= maxSlot; slot++ {
		v := float64(slot * slotSeconds)
		i := -1
		for j, e := range edges {
			if v >= e {
				i = j
			}
		}
		// Below the first edge (a registration dated before its submission): the first bin holds
		// it rather than losing it, as the histogram always has.
		bins[slot+1] = max(i, 0)
	}
	return bins, nil
}

// overviewRegistered fills the time-to-registration bins and the registrations per day from the
// counted days and the rows registered since, in one statement, and reads the medians live.
func (q *Queries) overviewRegistered(ctx context.Context, p OverviewParams, out *Overview) error {
	nBins := len(p.LatencyEdges)
	for k := range out.Latency {
		out.Latency[k] = make([]int64, nBins)
	}
	days := len(p.DayBounds) - 1
	registered := make([]int64, max(days, 0))
	if out.Outcomes == nil {
		out.Outcomes = map[Outcome][]int64{}
	}
	out.Outcomes[OutcomeRegistered] = registered
	bins, err := slotBins(p.LatencyEdges)
	if err != nil {
		return fmt.Errorf("OverviewGet: %w", err)
	}
	// The days both charts need, by Helsinki date: the registration charts' 60 days and the
	// histogram's 30 days and two weeks.
	from := p.LatencyFrom
	if p.LastWeek.Before(from) {
		from = p.LastWeek
	}
	if days > 0 && p.DayBounds[0].Before(from) {
		from = p.DayBounds[0]
	}
	dayIndex := map[schedule.Date]int{}
	for i := range days {
		dayIndex[schedule.HelsinkiDate(p.DayBounds[i])] = i
	}
	fromDay := schedule.HelsinkiDate(from)
	// Rows that entered registered from liveFrom on are counted live; the counted days end there.
	today := helsinkiDayStart(p.Now)
	var last *string
	if err := q.db.QueryRow(ctx, `SELECT max(day)::text FROM registered_day_rolls WHERE day < $1::date`,
		schedule.HelsinkiDate(today).String()).Scan(&last); err != nil {
		return dbError("OverviewGet counted days", err)
	}
	// Nothing counted yet (a new ledger before its first roll): every row is counted live.
	liveFrom, lastDay := time.Time{}, "-infinity"
	if last != nil {
		t, err := time.Parse(time.DateOnly, *last)
		if err != nil {
			return fmt.Errorf("OverviewGet: counted day %q: %w", *last, err)
		}
		liveFrom = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, schedule.Helsinki())
		lastDay = *last
	}
	// Planned for these values every time (an unnamed statement, not the cached prepared one):
	// a generic plan cannot tell that state_entered_at ≥ liveFrom is a day's rows and 60 days of
	// registered_at millions, and after five runs on a connection picked the registered_at index
	// and a heap visit per row (114 ms, against 14 ms planned for the values).
	rows, _ := q.db.Query(ctx, `SELECT rd.day::text, rd.slot, sum(rd.n)::bigint
FROM registered_days rd
WHERE rd.day >= $1::date AND rd.entered_day <= $4::date
GROUP BY rd.day, rd.slot
UNION ALL
SELECT `+sqlHelsinkiDay("cr.registered_at")+`::text, `+sqlSlot+`, count(*)
FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND cr.state = 'registered'
  AND cr.state_entered_at >= $5
  AND cr.registered_at >= $2 AND cr.registered_at <= $3
GROUP BY 1, 2`, pgx.QueryExecModeExec, fromDay.String(), from, p.Now, lastDay, liveFrom)
	type daySlot struct {
		Day  string
		Slot int
		N    int64
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[daySlot])
	if err != nil {
		return dbError("OverviewGet registered", err)
	}
	spanFrom, lastWeek, thisWeek := schedule.HelsinkiDate(p.LatencyFrom), schedule.HelsinkiDate(p.LastWeek), schedule.HelsinkiDate(p.ThisWeek)
	for _, c := range list {
		t, err := time.Parse(time.DateOnly, c.Day)
		if err != nil {
			return fmt.Errorf("OverviewGet registered: day %q: %w", c.Day, err)
		}
		d := schedule.DateOf(t)
		if i, ok := dayIndex[d]; ok {
			registered[i] += c.N
		}
		if c.Slot == noSlot || nBins == 0 || c.Slot < -1 || c.Slot > maxSlot {
			continue
		}
		bin := bins[c.Slot+1]
		if !d.Before(spanFrom) {
			out.Latency[0][bin] += c.N
		}
		if !d.Before(thisWeek) {
			out.Latency[1][bin] += c.N
		} else if !d.Before(lastWeek) {
			out.Latency[2][bin] += c.N
		}
	}
	return q.overviewMedians(ctx, p, out)
}

// overviewMedians reads the median times to registration of this week and last, live from the
// registered_at index: a median needs every value, which the counted days do not keep.
func (q *Queries) overviewMedians(ctx context.Context, p OverviewParams, out *Overview) error {
	const latency = `date_part('epoch', cr.registered_at - cr.submitted_at)`
	var this, last *float64
	if err := q.db.QueryRow(ctx, `SELECT
  percentile_cont(0.5) WITHIN GROUP (ORDER BY `+latency+`) FILTER (WHERE cr.registered_at >= $3),
  percentile_cont(0.5) WITHIN GROUP (ORDER BY `+latency+`) FILTER (WHERE cr.registered_at < $3)
FROM ledger_mirror cr
WHERE cr.deleted_at IS NULL AND cr.state = 'registered' AND cr.submitted_at IS NOT NULL
  AND cr.registered_at >= $2 AND cr.registered_at <= $1`, p.Now, p.LastWeek, p.ThisWeek).Scan(&this, &last); err != nil {
		return dbError("OverviewGet medians", err)
	}
	secs := func(f *float64) *time.Duration {
		if f == nil {
			return nil
		}
		d := time.Duration(*f * float64(time.Second)).Round(time.Minute)
		return &d
	}
	out.MedianThisWeek, out.MedianLastWeek = secs(this), secs(last)
	return nil
}
