package views

import (
	"math"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
)

// The overview's words, in one place.
const (
	ovTitle           = "Overview"
	ovLatencyTitle    = "Time from submission to registration, last 30 days"
	ovLatencyX        = "Time after submission"
	ovLatencyY        = "Registrations"
	ovLatencyNote     = "Registered rows by how long Sisu took to confirm them, over the verify schedule's windows. Half-hour bars up to 36 h; the last four bars are wider: 36 h–3 d, 3–7 d, 7–14 d and 14 d or more."
	ovWeeksTitle      = "Time to registration: this week beside last week"
	ovWeeksNote       = "The same bars for the registrations of this Helsinki week (since Monday) and of the whole of last week."
	ovThisWeek        = "This week"
	ovLastWeek        = "Last week"
	ovLast30          = "Last 30 days"
	ovOutcomesTitle   = "Outcomes per day, last 60 days"
	ovOutcomesY       = "Registrations"
	ovOutcomesNote    = "Each row counts once, under the state it is in now, on the Helsinki day it got there (registered rows by their registration time)."
	ovPileTitle       = "The needs-a-person pile, last 60 days"
	ovPileY           = "Registrations needing a person"
	ovPileNote        = "From the daily snapshot regdesk takes on the first server start of each Helsinki day. A row with two reasons counts under both; the total counts it once."
	ovPileBackfilled  = " Days marked as derived were not counted on the day: they were worked out later from the rows' history."
	ovPileTotal       = "Needs a person (total)"
	ovPileOther       = "Other reasons"
	ovBandWaiting     = "Before the first poll"
	ovBandDense       = "Dense window (every 30 min)"
	ovBandLate        = "Late window (hourly)"
	ovBandBackoff     = "Backing off (2–6 h)"
	ovBandGaveUp      = "Past the give-up age"
	ovCountedAt       = "Counted at %s; counted again at most once a minute."
	ovFailuresEmpty   = "No registration failed in the last week."
	ovMedianNone      = "none yet"
	ovTileNeeds       = "Needs a person"
	ovTileUncertain   = "Uncertain, waiting for a lookup"
	ovTileRegToday    = "Registered today"
	ovTileRegWeek     = "Registered this week"
	ovTileFailedWeek  = "Failed this week"
	ovTileMedian      = "Median time to registration this week"
	ovTileNewToday    = "%s of them reached their state today"
	ovTileUncertainD  = "Look each up in Sisu before anything else"
	ovTileMedianLast  = "last week %s"
	ovTileFailedDesc  = "permanently, needing a person or a fix"
	ovTileRegWeekDesc = "since Monday"
)

// OverviewVM is /overview.
type OverviewVM struct {
	Page      Page
	CountedAt string
	Tiles     []TileVM
	Latency   HistogramChart
	Weeks     HistogramChart
	Outcomes  StackedChart
	Pile      LineChart
	Failures  []FailureRowVM
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
	Now, CountedAt time.Time
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

// OutcomeLabels names the outcome series, in the order OverviewData.Outcomes holds them.
var OutcomeLabels = []string{"Registered", "Partly registered", "Uncertain", "Failed", "Cancelled"}

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
func latencyBands() []BandSpec {
	s := func(d time.Duration) float64 { return d.Seconds() }
	return []BandSpec{
		{From: 0, To: s(schedule.VerifyWindowStart), Label: ovBandWaiting, Class: "band-waiting"},
		{From: s(schedule.VerifyWindowStart), To: s(schedule.VerifyDenseWindowEnd), Label: ovBandDense, Class: "band-dense"},
		{From: s(schedule.VerifyDenseWindowEnd), To: s(schedule.VerifyWindowEnd), Label: ovBandLate, Class: "band-late"},
		{From: s(schedule.VerifyWindowEnd), To: s(schedule.VerifyMaxAge), Label: ovBandBackoff, Class: "band-backoff"},
		{From: s(schedule.VerifyMaxAge), To: inf, Label: ovBandGaveUp, Class: "band-gaveup"},
	}
}

var inf = math.Inf(1)

// latencyLabel writes seconds after submission as an axis does: "4.5 h", "3 d".
func latencyLabel(sec float64) string {
	h := sec / 3600
	if h >= 48 {
		return strconv.FormatFloat(h/24, 'f', -1, 64) + " d"
	}
	return strconv.FormatFloat(h, 'f', -1, 64) + " h"
}

// NewOverview builds the overview's page from its numbers.
func NewOverview(page Page, d OverviewData) OverviewVM {
	vm := OverviewVM{Page: page, CountedAt: strings.Replace(ovCountedAt, "%s", AtDated(d.CountedAt, d.Now), 1), Failures: d.Failures}
	if page.Title == "" {
		vm.Page.Title = ovTitle
	}
	median := func(p *time.Duration) string {
		if p == nil {
			return ovMedianNone
		}
		return english.Span(*p)
	}
	vm.Tiles = []TileVM{
		{Key: "needs_admin", Label: ovTileNeeds, Value: Count(d.NeedsAdmin), Detail: strings.Replace(ovTileNewToday, "%s", Count(d.NeedsAdminToday), 1), URL: d.NeedsAdminURL},
		{Key: "uncertain", Label: ovTileUncertain, Value: Count(d.Uncertain), Detail: ovTileUncertainD, URL: d.UncertainURL},
		{Key: "registered_today", Label: ovTileRegToday, Value: Count(d.RegisteredToday), URL: d.RegisteredURL},
		{Key: "registered_week", Label: ovTileRegWeek, Value: Count(d.RegisteredWeek), Detail: ovTileRegWeekDesc, URL: d.RegisteredURL},
		{Key: "failed_week", Label: ovTileFailedWeek, Value: Count(d.FailedWeek), Detail: ovTileFailedDesc, URL: d.FailedURL},
		{Key: "median", Label: ovTileMedian, Value: median(d.MedianThisWeek), Detail: strings.Replace(ovTileMedianLast, "%s", median(d.MedianLastWeek), 1), URL: "#latency-weeks"},
	}
	edges := LatencyEdges()
	ticks := []float64{0, schedule.VerifyWindowStart.Seconds(), schedule.VerifyDenseWindowEnd.Seconds(), schedule.VerifyWindowEnd.Seconds(), (36 * time.Hour).Seconds(), schedule.VerifyMaxAge.Seconds()}
	vm.Latency = Histogram(HistogramSpec{
		ID: "latency", Title: ovLatencyTitle, XLabel: ovLatencyX, YLabel: ovLatencyY, Note: ovLatencyNote,
		Edges: edges, Series: []ChartSeries{{ovLast30, "c0"}}, Counts: [][]int64{d.Latency[0]},
		Bands: latencyBands(), Ticks: ticks, Format: latencyLabel,
	})
	vm.Weeks = Histogram(HistogramSpec{
		ID: "latency-weeks", Title: ovWeeksTitle, XLabel: ovLatencyX, YLabel: ovLatencyY, Note: ovWeeksNote,
		Edges: edges, Series: []ChartSeries{{ovThisWeek, "c0"}, {ovLastWeek, "c1"}}, Counts: [][]int64{d.Latency[1], d.Latency[2]},
		Bands: latencyBands(), Ticks: ticks, Format: latencyLabel,
	})
	outcomeClasses := []string{"c5", "c2", "c1", "c3", "c4"}
	var outSeries []ChartSeries
	for i, l := range OutcomeLabels {
		outSeries = append(outSeries, ChartSeries{l, outcomeClasses[i]})
	}
	vm.Outcomes = Stacked(DaySeriesSpec{ID: "outcomes", Title: ovOutcomesTitle, YLabel: ovOutcomesY, Note: ovOutcomesNote,
		Days: d.Days, Series: outSeries, Values: d.Outcomes})
	vm.Pile = pileChart(d)
	if len(d.Failures) == 0 {
		vm.FailuresEmpty = ovFailuresEmpty
	}
	return vm
}

// pileShown is how many reasons the pile chart draws as lines of their own; the rest are summed.
const pileShown = 5

// pileChart draws the total and the largest reasons over the days.
func pileChart(d OverviewData) LineChart {
	totals := map[schedule.Reason]int64{}
	backfilled := false
	for _, p := range d.Pile {
		if p == nil {
			continue
		}
		backfilled = backfilled || p.Backfilled
		for r, n := range p.Reasons {
			if r.AsksPerson() {
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
	series := []ChartSeries{{ovPileTotal, "c0"}}
	for i, r := range shown {
		series = append(series, ChartSeries{r.Label(), SeriesClass(i + 1)})
	}
	if len(other) > 0 {
		series = append(series, ChartSeries{ovPileOther, SeriesClass(len(shown) + 1)})
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
	note := ovPileNote
	if backfilled {
		note += ovPileBackfilled
	}
	c := Line(DaySeriesSpec{ID: "pile", Title: ovPileTitle, YLabel: ovPileY, Note: note, Days: d.Days, Series: series, Values: values})
	if backfilled {
		c.Table.Head = append(c.Table.Head, "")
		for day := range c.Table.Rows {
			mark := ""
			if day < len(d.Pile) && d.Pile[day] != nil && d.Pile[day].Backfilled {
				mark = "derived"
			}
			c.Table.Rows[day] = append(c.Table.Rows[day], mark)
		}
	}
	return c
}
