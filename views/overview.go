package views

import (
	"math"
	"time"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// OverviewVM is /overview.
type OverviewVM struct {
	Tiles    []TileVM
	Latency  HistogramChart
	Weeks    HistogramChart
	Outcomes StackedChart
	Pile     LineChart
	Failures []FailureRowVM
	// FailuresEmpty says there is no failure to group.
	FailuresEmpty string
}

// TileVM is one headline number of the overview, linking to the view behind it.
type TileVM struct {
	Key, Label, Value, Detail, URL string
}

// FailureRowVM is one group of failures: one code, one message shape.
type FailureRowVM struct {
	Code, CodeLabel, Retryability, Shape string
	Hour, Day, Week                      string
	Courses                              []FailureCourseVM
	ExampleURL, QueueURL                 string
}

// FailureCourseVM is a course a failure group hits.
type FailureCourseVM struct {
	Name, URL, N string
}

// OverviewData is the overview's numbers, as the handler read them.
type OverviewData struct {
	// The tiles' numbers and the views they link to.
	NeedsAdmin, NeedsAdminToday, Uncertain, RegisteredToday, RegisteredWeek, FailedWeek int64
	MedianThisWeek, MedianLastWeek                                                      *time.Duration
	NeedsAdminURL, UncertainURL, RegisteredURL, FailedURL                               string
	// Latency holds the counts per LatencyEdges() bin: the last 30 days, this week, last week.
	Latency [3][]int64
	// Days are the charted days; Outcomes holds one series per OutcomeLabels entry.
	Days     []DayRange
	Outcomes [][]int64
	// Pile is the snapshot per day (nil: no snapshot that day), on Days.
	Pile     []*PileDay
	Failures []FailureRowVM
}

// PileDay is one day's snapshot of the needs-a-person pile.
type PileDay struct {
	NeedsAdmin int64
	Reasons    map[schedule.Reason]int64
	Backfilled bool
}

// outcomeKeys name the outcome series, in the order OverviewData.Outcomes holds them.
var outcomeKeys = []string{"overview.outcome.registered", "overview.outcome.partial", "overview.outcome.uncertain", "overview.outcome.failed", "overview.outcome.cancelled"}

// LatencyEdges are the time-to-registration bins' lower edges, in seconds after the submission:
// half hours up to 36 h, then 3, 7 and 14 days (the verify schedule's give-up age), the last bin
// open. The schedule's windows (270 min, 10.5 h, 29 h) fall on half-hour edges.
func LatencyEdges() []float64 {
	var out []float64
	for m := 0; m < 36*60; m += 30 {
		out = append(out, float64(m*60))
	}
	for _, d := range []time.Duration{36 * time.Hour, 3 * 24 * time.Hour, 7 * 24 * time.Hour, schedule.VerifyMaxAge} {
		out = append(out, d.Seconds())
	}
	return out
}

// latencyBands are the verify schedule's windows, from schedule's own constants.
func latencyBands(loc *i18n.Localizer) []BandSpec {
	s := func(d time.Duration) float64 { return d.Seconds() }
	return []BandSpec{
		{From: 0, To: s(schedule.VerifyWindowStart), Label: loc.T("overview.band.waiting"), Class: "band-waiting"},
		{From: s(schedule.VerifyWindowStart), To: s(schedule.VerifyDenseWindowEnd), Label: loc.T("overview.band.dense"), Class: "band-dense"},
		{From: s(schedule.VerifyDenseWindowEnd), To: s(schedule.VerifyWindowEnd), Label: loc.T("overview.band.late"), Class: "band-late"},
		{From: s(schedule.VerifyWindowEnd), To: s(schedule.VerifyMaxAge), Label: loc.T("overview.band.backoff"), Class: "band-backoff"},
		{From: s(schedule.VerifyMaxAge), To: inf, Label: loc.T("overview.band.gaveup"), Class: "band-gaveup"},
	}
}

var inf = math.Inf(1)

// latencyLabel writes seconds after submission as an axis does, in loc's units and decimal
// mark: "4.5 h", "3 d"; "4,5 t", "3 pv".
// Each edge is written once: both histograms ask for every edge several times.
func latencyLabel(loc *i18n.Localizer) func(sec float64) string {
	done := map[float64]string{}
	return func(sec float64) string {
		if s, ok := done[sec]; ok {
			return s
		}
		h := sec / 3600
		s := loc.T("chart.unit.hours", "N", loc.Decimal(h))
		if h >= 48 {
			s = loc.T("chart.unit.days", "N", loc.Decimal(h/24))
		}
		done[sec] = s
		return s
	}
}

// ChartWordsFor are the chart words of loc's language: its days and its ranges.
func ChartWordsFor(loc *i18n.Localizer) ChartWords {
	return ChartWords{
		DayTick: loc.DayMonth, DayName: loc.DayFull,
		Range:   func(from, to string) string { return loc.T("chart.range", "From", from, "To", to) },
		AtLeast: func(from string) string { return loc.T("chart.atLeast", "From", from) },
	}
}

// OverviewCountedAt says when the overview's numbers were counted, as of now.
func OverviewCountedAt(loc *i18n.Localizer, at, now time.Time) string {
	return loc.T("overview.countedAt", "At", loc.AtDated(at, now))
}

// NewOverview builds the overview's body from its numbers, in loc's language. It depends on
// nothing but d and the language, so one drawing serves everyone for as long as d is shared.
func NewOverview(loc *i18n.Localizer, d OverviewData) OverviewVM {
	vm := OverviewVM{Failures: d.Failures}
	median := func(p *time.Duration) string {
		if p == nil {
			return loc.T("overview.none")
		}
		return loc.Span(*p)
	}
	vm.Tiles = []TileVM{
		{Key: "needs_admin", Label: loc.T("overview.tile.needs"), Value: Count(d.NeedsAdmin), Detail: loc.T("overview.tile.needsToday", "N", d.NeedsAdminToday), URL: d.NeedsAdminURL},
		{Key: "uncertain", Label: loc.T("overview.tile.uncertain"), Value: Count(d.Uncertain), Detail: loc.T("overview.tile.uncertainDetail"), URL: d.UncertainURL},
		{Key: "registered_today", Label: loc.T("overview.tile.registeredToday"), Value: Count(d.RegisteredToday), URL: d.RegisteredURL},
		{Key: "registered_week", Label: loc.T("overview.tile.registeredWeek"), Value: Count(d.RegisteredWeek), Detail: loc.T("overview.tile.sinceMonday"), URL: d.RegisteredURL},
		{Key: "failed_week", Label: loc.T("overview.tile.failedWeek"), Value: Count(d.FailedWeek), Detail: loc.T("overview.tile.failedDetail"), URL: d.FailedURL},
		{Key: "median", Label: loc.T("overview.tile.median"), Value: median(d.MedianThisWeek), Detail: loc.T("overview.tile.medianLast", "Span", median(d.MedianLastWeek)), URL: "#latency-weeks"},
	}
	edges := LatencyEdges()
	ticks := []float64{0, schedule.VerifyWindowStart.Seconds(), schedule.VerifyDenseWindowEnd.Seconds(), schedule.VerifyWindowEnd.Seconds(), (36 * time.Hour).Seconds(), schedule.VerifyMaxAge.Seconds()}
	x, y := loc.T("overview.latency.x"), loc.T("overview.latency.y")
	words, label := ChartWordsFor(loc), latencyLabel(loc)
	vm.Latency = Histogram(HistogramSpec{
		ID: "latency", Title: loc.T("overview.latency.title"), XLabel: x, YLabel: y, Note: loc.T("overview.latency.note"),
		Edges: edges, Series: []ChartSeries{{loc.T("overview.last30"), "c0"}}, Counts: [][]int64{d.Latency[0]},
		Bands: latencyBands(loc), Ticks: ticks, Format: label, Words: words,
	})
	vm.Weeks = Histogram(HistogramSpec{
		ID: "latency-weeks", Title: loc.T("overview.weeks.title"), XLabel: x, YLabel: y, Note: loc.T("overview.weeks.note"),
		Edges: edges, Series: []ChartSeries{{loc.T("overview.thisWeek"), "c0"}, {loc.T("overview.lastWeek"), "c1"}}, Counts: [][]int64{d.Latency[1], d.Latency[2]},
		Bands: latencyBands(loc), Ticks: ticks, Format: label, Words: words,
	})
	outcomeClasses := []string{"c5", "c2", "c1", "c3", "c4"}
	var outSeries []ChartSeries
	for i, k := range outcomeKeys {
		outSeries = append(outSeries, ChartSeries{loc.T(k), outcomeClasses[i]})
	}
	vm.Outcomes = Stacked(DaySeriesSpec{ID: "outcomes", Title: loc.T("overview.outcomes.title"), YLabel: y, Note: loc.T("overview.outcomes.note"),
		XLabel: loc.T("chart.dayAxis"), DayHead: loc.T("chart.day"), Days: d.Days, Series: outSeries, Values: d.Outcomes, Words: words})
	vm.Pile = pileChart(loc, d)
	if len(d.Failures) == 0 {
		vm.FailuresEmpty = loc.T("overview.failures.empty")
	}
	return vm
}

// pileShown is how many reasons the pile chart draws as lines of their own; the rest are summed.
const pileShown = 5

// pileChart draws the total and the largest reasons over the days.
func pileChart(loc *i18n.Localizer, d OverviewData) LineChart {
	totals := map[schedule.Reason]int64{}
	backfilled := false
	for _, p := range d.Pile {
		if p == nil {
			continue
		}
		backfilled = backfilled || p.Backfilled
		for r, n := range p.Reasons {
			if r.PersonLevel() {
				totals[r] += n
			}
		}
	}
	var shown []schedule.Reason
	for _, r := range schedule.Reasons() {
		if totals[r] > 0 {
			shown = append(shown, r)
		}
	}
	// The largest first; the order of schedule.Reasons breaks ties.
	for i := 1; i < len(shown); i++ {
		for j := i; j > 0 && totals[shown[j]] > totals[shown[j-1]]; j-- {
			shown[j], shown[j-1] = shown[j-1], shown[j]
		}
	}
	var other []schedule.Reason
	if len(shown) > pileShown {
		shown, other = shown[:pileShown], shown[pileShown:]
	}
	series := []ChartSeries{{loc.T("overview.pile.total"), "c0"}}
	for i, r := range shown {
		series = append(series, ChartSeries{loc.T("reason." + string(r)), SeriesClass(i + 1)})
	}
	if len(other) > 0 {
		series = append(series, ChartSeries{loc.T("overview.pile.other"), SeriesClass(len(shown) + 1)})
	}
	values := make([][]int64, len(series))
	for i := range values {
		values[i] = make([]int64, len(d.Days))
	}
	for day := range d.Days {
		var p *PileDay
		if day < len(d.Pile) {
			p = d.Pile[day]
		}
		for i := range values {
			values[i][day] = -1
		}
		if p == nil {
			continue
		}
		values[0][day] = p.NeedsAdmin
		for i, r := range shown {
			values[i+1][day] = p.Reasons[r]
		}
		if len(other) > 0 {
			var n int64
			for _, r := range other {
				n += p.Reasons[r]
			}
			values[len(values)-1][day] = n
		}
	}
	note := loc.T("overview.pile.note")
	if backfilled {
		note += " " + loc.T("overview.pile.backfilled")
	}
	derived := make([]bool, len(d.Days))
	for day := range d.Days {
		derived[day] = day < len(d.Pile) && d.Pile[day] != nil && d.Pile[day].Backfilled
	}
	c := Line(DaySeriesSpec{ID: "pile", Title: loc.T("overview.pile.title"), YLabel: loc.T("overview.pile.y"), Note: note,
		XLabel: loc.T("chart.dayAxis"), DayHead: loc.T("chart.day"), Days: d.Days, Series: series, Values: values, Words: ChartWordsFor(loc),
		Derived: derived, DerivedLabel: loc.T("overview.pile.derivedBand")})
	if backfilled {
		c.Table.Head = append(c.Table.Head, "")
		for day := range c.Table.Rows {
			mark := ""
			if day < len(d.Pile) && d.Pile[day] != nil && d.Pile[day].Backfilled {
				mark = loc.T("overview.pile.derived")
			}
			c.Table.Rows[day] = append(c.Table.Rows[day], mark)
		}
	}
	return c
}
