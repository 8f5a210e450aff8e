package views

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"regdesk/schedule"
)

// The charts are SVG drawn on the server: no chart script, so the strict Content-Security-Policy
// stands and the pages print. Everything a chart needs (scales, ticks, bars, points) is computed
// here in plain Go from the numbers a handler hands over, and every chart carries a table of the
// same numbers. Colours come from CSS classes (static/css/app.css: .c0–.c7, .band-*), never from
// style attributes, which the policy forbids.

// Chart geometry, in SVG user units; the SVG scales to its container.
const (
	chartWidth  = 720.0
	chartHeight = 240.0
	chartLeft   = 52.0
	chartRight  = 12.0
	chartTop    = 14.0
	chartBottom = 40.0

	sparkWidth  = 100.0
	sparkHeight = 22.0
)

// ChartWords are how a chart writes its days and its value ranges in the page's language
// (ChartWordsFor fills them from a Localizer). A nil field falls back to a neutral form: ISO
// dates, "a–b", "≥ a".
type ChartWords struct {
	// DayTick writes a day on an axis ("30.11.", "30 nov.", "30 Nov"); DayName in a table row and
	// a tooltip, with its weekday and year.
	DayTick, DayName func(schedule.Date) string
	// Range writes a bin [from, to) from its formatted ends; AtLeast the open last bin.
	Range   func(from, to string) string
	AtLeast func(from string) string
}

func (w ChartWords) dayTick(d schedule.Date) string {
	if w.DayTick == nil {
		return strconv.Itoa(d.Day) + "." + strconv.Itoa(int(d.Month)) + "."
	}
	return w.DayTick(d)
}

func (w ChartWords) dayName(d schedule.Date) string {
	if w.DayName == nil {
		return d.String()
	}
	return w.DayName(d)
}

func (w ChartWords) rangeOf(from, to string) string {
	if w.Range == nil {
		return from + "–" + to
	}
	return w.Range(from, to)
}

func (w ChartWords) atLeast(from string) string {
	if w.AtLeast == nil {
		return "≥ " + from
	}
	return w.AtLeast(from)
}

// ChartSeries is one series of a chart: its legend label and its CSS class (c0–c7).
type ChartSeries struct {
	Label string
	Class string
}

// SeriesClass is the CSS class of the i-th series; classes repeat after eight.
func SeriesClass(i int) string { return "c" + strconv.Itoa(i%8) }

// ChartTable is a chart's numbers as a plain table, for screen readers and for copying.
type ChartTable struct {
	Head []string
	Rows [][]string
}

// Tick is a labelled position on an axis.
type Tick struct {
	Pos   float64
	Label string
}

// Rect is one drawn rectangle (a bar, a band) with its tooltip.
type Rect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

// ChartFrame is what every full-size chart shares: size, plot area, axes and their labels.
type ChartFrame struct {
	ID     string
	Title  string
	XLabel string
	YLabel string
	// Note says what the chart counts and how, in a sentence under it.
	Note   string
	Series []ChartSeries
	XTicks []Tick
	YTicks []Tick
	Table  ChartTable
	// Empty says there is nothing to draw; the frame and the table still show.
	Empty bool
}

// Plot area bounds, for the templates.
func (ChartFrame) Width() float64      { return chartWidth }
func (ChartFrame) Height() float64     { return chartHeight }
func (ChartFrame) PlotLeft() float64   { return chartLeft }
func (ChartFrame) PlotRight() float64  { return chartWidth - chartRight }
func (ChartFrame) PlotTop() float64    { return chartTop }
func (ChartFrame) PlotBottom() float64 { return chartHeight - chartBottom }

func plotW() float64 { return chartWidth - chartLeft - chartRight }
func plotH() float64 { return chartHeight - chartTop - chartBottom }

// NiceScale returns the top of a count axis holding max and the step between its ticks: a step of
// 1, 2 or 5 times a power of ten giving about four intervals. An empty axis (max ≤ 0) runs 0–1.
func NiceScale(max float64) (top, step float64) {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1, 1
	}
	raw := max / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	// Counts are whole: no step below one.
	if step < 1 {
		step = 1
	}
	top = math.Ceil(max/step) * step
	return top, step
}

// yTicks are the count axis's ticks for a top and a step.
func yTicks(top, step float64) []Tick {
	var out []Tick
	for v := 0.0; v <= top+step/2; v += step {
		out = append(out, Tick{Pos: yPos(v, top), Label: Count(int64(math.Round(v)))})
	}
	return out
}

// yPos maps a count to the plot's y, 0 at the bottom and top at the top.
func yPos(v, top float64) float64 {
	return chartTop + plotH()*(1-v/top)
}

// Num renders a coordinate for an SVG attribute.
func Num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// DayRange is one Helsinki calendar day: [Start, End), 23 or 25 hours long on the days the clocks
// change.
type DayRange struct {
	Start, End time.Time
	Date       schedule.Date
}

// HelsinkiDays returns the n Helsinki days ending with the day of last, oldest first.
func HelsinkiDays(last time.Time, n int) []DayRange {
	loc := schedule.Helsinki()
	t := last.In(loc)
	out := make([]DayRange, 0, max(n, 0))
	for i := n - 1; i >= 0; i-- {
		start := time.Date(t.Year(), t.Month(), t.Day()-i, 0, 0, 0, 0, loc)
		end := time.Date(t.Year(), t.Month(), t.Day()-i+1, 0, 0, 0, 0, loc)
		out = append(out, DayRange{Start: start.UTC(), End: end.UTC(), Date: schedule.HelsinkiDate(start)})
	}
	return out
}

// DayBounds are the instants between days: the starts of every day and the end of the last, the
// thresholds a query sorts instants into days by.
func DayBounds(days []DayRange) []time.Time {
	if len(days) == 0 {
		return nil
	}
	out := make([]time.Time, 0, len(days)+1)
	for _, d := range days {
		out = append(out, d.Start)
	}
	return append(out, days[len(days)-1].End)
}

// dayTicks labels every k-th day so that about eight labels fit, always the last (today).
func dayTicks(days []DayRange, slot float64, w ChartWords) []Tick {
	k := max(1, (len(days)+7)/8)
	var out []Tick
	for i := len(days) - 1; i >= 0; i -= k {
		out = append(out, Tick{Pos: chartLeft + slot*(float64(i)+0.5), Label: w.dayTick(days[i].Date)})
	}
	return out
}

// HistogramSpec is what a histogram is drawn from. Bin i covers [Edges[i], Edges[i+1]); the last
// bin, [Edges[len-1], ∞), holds every larger value (the outliers), so a histogram of n edges has n
// bins. Every bin is drawn equally wide; a note should say so when the bins are not.
type HistogramSpec struct {
	ID, Title, XLabel, YLabel, Note string
	Edges                           []float64
	// Counts holds one count per bin for each series (drawn side by side within a bin).
	Series []ChartSeries
	Counts [][]int64
	// Bands shade spans of the value axis behind the bars (a schedule's windows, say).
	Bands []BandSpec
	// Ticks are the values labelled on the value axis; Format writes them and the bins' ranges.
	Ticks  []float64
	Format func(float64) string
	// Words write the bins' ranges in the page's language.
	Words ChartWords
}

// BandSpec is a shaded span [From, To) of a histogram's value axis; To may be +Inf.
type BandSpec struct {
	From, To float64
	Label    string
	Class    string
}

// HistogramChart is a histogram ready to draw.
type HistogramChart struct {
	ChartFrame
	Bars  []Rect
	Bands []Rect
}

// Histogram lays out a histogram.
func Histogram(s HistogramSpec) HistogramChart {
	c := HistogramChart{ChartFrame: ChartFrame{ID: s.ID, Title: s.Title, XLabel: s.XLabel, YLabel: s.YLabel, Note: s.Note, Series: s.Series}}
	bins := len(s.Edges)
	if bins == 0 {
		c.Empty = true
		c.YTicks = yTicks(NiceScale(0))
		return c
	}
	format := s.Format
	if format == nil {
		format = func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	}
	slot := plotW() / float64(bins)
	var most, total int64
	for _, series := range s.Counts {
		for _, n := range series {
			most = max(most, n)
			total += n
		}
	}
	top, step := NiceScale(float64(most))
	c.YTicks = yTicks(top, step)
	c.Empty = total == 0
	per := max(1, len(s.Series))
	c.Table.Head = []string{s.XLabel}
	for _, se := range s.Series {
		c.Table.Head = append(c.Table.Head, se.Label)
	}
	for i := range bins {
		label := binLabel(s.Edges, i, format, s.Words)
		row := []string{label}
		for j := range per {
			var n int64
			if j < len(s.Counts) && i < len(s.Counts[j]) {
				n = s.Counts[j][i]
			}
			row = append(row, Count(n))
			if n == 0 {
				continue
			}
			w := slot * 0.9 / float64(per)
			x := chartLeft + slot*float64(i) + slot*0.05 + w*float64(j)
			y := yPos(float64(n), top)
			class := SeriesClass(j)
			name := ""
			if j < len(s.Series) {
				class, name = s.Series[j].Class, s.Series[j].Label+": "
			}
			c.Bars = append(c.Bars, Rect{X: x, Y: y, W: w, H: c.PlotBottom() - y, Class: class, Title: name + label + ": " + Count(n)})
		}
		c.Table.Rows = append(c.Table.Rows, row)
	}
	for _, b := range s.Bands {
		x0, x1 := slotPos(s.Edges, b.From, slot), slotPos(s.Edges, b.To, slot)
		if x1 <= x0 {
			continue
		}
		c.Bands = append(c.Bands, Rect{X: x0, Y: chartTop, W: x1 - x0, H: plotH(), Class: b.Class, Title: b.Label})
	}
	for _, v := range s.Ticks {
		c.XTicks = append(c.XTicks, Tick{Pos: slotPos(s.Edges, v, slot), Label: format(v)})
	}
	return c
}

// binLabel writes bin i's range: "4.5 h–5 h", or "≥ 14 d" for the open last bin (in the words'
// language).
func binLabel(edges []float64, i int, format func(float64) string, w ChartWords) string {
	if i == len(edges)-1 {
		return w.atLeast(format(edges[i]))
	}
	return w.rangeOf(format(edges[i]), format(edges[i+1]))
}

// slotPos maps a value to the histogram's x: bins are equal slots and a value sits within its bin
// in proportion. Values below the first edge sit at the left; the open last bin's values (and
// +Inf) at the right end of it.
func slotPos(edges []float64, v, slot float64) float64 {
	n := len(edges)
	switch {
	case n == 0 || v <= edges[0]:
		return chartLeft
	case v >= edges[n-1]:
		if math.IsInf(v, 1) {
			return chartLeft + slot*float64(n)
		}
		return chartLeft + slot*float64(n-1)
	}
	for i := 0; i < n-1; i++ {
		if v < edges[i+1] {
			frac := (v - edges[i]) / (edges[i+1] - edges[i])
			return chartLeft + slot*(float64(i)+frac)
		}
	}
	return chartLeft + slot*float64(n-1)
}

// BinOf returns the bin a value falls in for edges as HistogramSpec has them (what a query's
// width_bucket computes, less one), or -1 below the first edge.
func BinOf(edges []float64, v float64) int {
	i := -1
	for j, e := range edges {
		if v >= e {
			i = j
		}
	}
	return i
}

// DaySeriesSpec is what a chart over days is drawn from: one value per series per day.
type DaySeriesSpec struct {
	ID, Title, YLabel, Note string
	// XLabel names the day axis and DayHead the table's day column, in the page's language.
	XLabel, DayHead string
	Days            []DayRange
	Series          []ChartSeries
	// Values holds, per series, one value per day; a negative value is "no data" (a gap).
	Values [][]int64
	// Words write the days in the page's language.
	Words ChartWords
	// Derived marks the days whose values were not counted on the day but worked out later (a
	// line chart shades them, labelled DerivedLabel, and draws their lines dashed).
	Derived      []bool
	DerivedLabel string
}

// StackedChart is a bar per day with its series stacked.
type StackedChart struct {
	ChartFrame
	Bars []Rect
}

// Stacked lays out stacked bars over days, the first series at the bottom.
func Stacked(s DaySeriesSpec) StackedChart {
	c := StackedChart{ChartFrame: dayFrame(s)}
	if len(s.Days) == 0 {
		c.YTicks = yTicks(NiceScale(0))
		return c
	}
	slot := plotW() / float64(len(s.Days))
	var most int64
	for d := range s.Days {
		var sum int64
		for j := range s.Values {
			sum += max(0, at(s.Values[j], d))
		}
		most = max(most, sum)
	}
	top, step := NiceScale(float64(most))
	c.YTicks = yTicks(top, step)
	c.Empty = most == 0
	for d, day := range s.Days {
		var base int64
		for j, se := range s.Series {
			n := max(0, at(valuesOf(s.Values, j), d))
			if n == 0 {
				continue
			}
			y0, y1 := yPos(float64(base), top), yPos(float64(base+n), top)
			c.Bars = append(c.Bars, Rect{X: chartLeft + slot*float64(d) + slot*0.1, Y: y1, W: slot * 0.8, H: y0 - y1,
				Class: se.Class, Title: s.Words.dayName(day.Date) + " " + se.Label + ": " + Count(n)})
			base += n
		}
	}
	return c
}

// LineChart is a line per series over days; a day without data breaks the line.
type LineChart struct {
	ChartFrame
	Lines []Polyline
	// Bands shade the derived days.
	Bands []Rect
}

// Polyline is one connected run of a series' points.
type Polyline struct {
	Points string
	Class  string
	Label  string
	// Dots are the points themselves, so a run of one day still shows.
	Dots []Point
	// Derived says the run's days were worked out later, not counted on the day.
	Derived bool
}

// Point is a point of a line.
type Point struct {
	X, Y  float64
	Title string
}

// Line lays out one line per series over days.
func Line(s DaySeriesSpec) LineChart {
	c := LineChart{ChartFrame: dayFrame(s)}
	if len(s.Days) == 0 {
		c.YTicks = yTicks(NiceScale(0))
		return c
	}
	slot := plotW() / float64(len(s.Days))
	var most int64
	any := false
	for _, vals := range s.Values {
		for _, v := range vals {
			if v >= 0 {
				any = true
				most = max(most, v)
			}
		}
	}
	top, step := NiceScale(float64(most))
	c.YTicks = yTicks(top, step)
	c.Empty = !any
	derived := func(d int) bool { return d < len(s.Derived) && s.Derived[d] }
	for j, se := range s.Series {
		var run Polyline
		flush := func() {
			if len(run.Dots) > 0 {
				c.Lines = append(c.Lines, run)
			}
			run = Polyline{Class: se.Class, Label: se.Label}
		}
		flush()
		var prev Point
		for d, day := range s.Days {
			v := at(valuesOf(s.Values, j), d)
			if v < 0 {
				flush()
				continue
			}
			p := Point{X: chartLeft + slot*(float64(d)+0.5), Y: yPos(float64(v), top), Title: s.Words.dayName(day.Date) + " " + se.Label + ": " + Count(v)}
			if len(run.Dots) > 0 && run.Derived != derived(d) {
				// Where derived days meet counted ones the line goes on, in the new run's dash.
				flush()
				run.Points = Num(prev.X) + "," + Num(prev.Y)
			}
			run.Derived = derived(d)
			if run.Points != "" {
				run.Points += " "
			}
			run.Points += Num(p.X) + "," + Num(p.Y)
			run.Dots = append(run.Dots, p)
			prev = p
		}
		flush()
	}
	for d := 0; d < len(s.Days); d++ {
		if !derived(d) {
			continue
		}
		e := d
		for e+1 < len(s.Days) && derived(e+1) {
			e++
		}
		c.Bands = append(c.Bands, Rect{X: chartLeft + slot*float64(d), Y: chartTop, W: slot * float64(e-d+1), H: plotH(), Class: "band-derived", Title: s.DerivedLabel})
		d = e
	}
	return c
}

// dayFrame is the frame of a chart over days, with its table: a row per day, a column per series.
func dayFrame(s DaySeriesSpec) ChartFrame {
	f := ChartFrame{ID: s.ID, Title: s.Title, XLabel: s.XLabel, YLabel: s.YLabel, Note: s.Note, Series: s.Series, Empty: true}
	if len(s.Days) > 0 {
		f.XTicks = dayTicks(s.Days, plotW()/float64(len(s.Days)), s.Words)
	}
	f.Table.Head = []string{s.DayHead}
	for _, se := range s.Series {
		f.Table.Head = append(f.Table.Head, se.Label)
	}
	for d, day := range s.Days {
		row := []string{s.Words.dayName(day.Date)}
		for j := range s.Series {
			v := at(valuesOf(s.Values, j), d)
			if v < 0 {
				row = append(row, "–")
			} else {
				row = append(row, Count(v))
			}
		}
		f.Table.Rows = append(f.Table.Rows, row)
	}
	return f
}

func valuesOf(v [][]int64, j int) []int64 {
	if j < len(v) {
		return v[j]
	}
	return nil
}

// at is vals[i], or 0 past its end.
func at(vals []int64, i int) int64 {
	if i < len(vals) {
		return vals[i]
	}
	return 0
}

// Sparkline is a small line of counts, such as registrations per week, with no axes: its Title
// says what it shows and its numbers.
type Sparkline struct {
	Points string
	Title  string
	Empty  bool
}

// SparkWidth and SparkHeight are a sparkline's size.
func (Sparkline) Width() float64  { return sparkWidth }
func (Sparkline) Height() float64 { return sparkHeight }

// NewSparkline draws vals (oldest first) scaled to its own largest value; title says what they
// are, and the numbers follow it.
func NewSparkline(title string, vals []int64) Sparkline {
	s := Sparkline{Title: title, Empty: true}
	var most int64
	for _, v := range vals {
		most = max(most, v)
	}
	top := float64(max(most, 1))
	step := 0.0
	if len(vals) > 1 {
		step = (sparkWidth - 2) / float64(len(vals)-1)
	}
	y := func(v int64) float64 { return 1 + (sparkHeight-2)*(1-float64(max(v, 0))/top) }
	nums := ""
	for i, v := range vals {
		if i > 0 {
			s.Points += " "
			nums += ", "
		}
		s.Points += Num(1+step*float64(i)) + "," + Num(y(v))
		nums += Count(v)
		if v > 0 {
			s.Empty = false
		}
	}
	// A single point is drawn as a short flat line, so it shows.
	if len(vals) == 1 {
		s.Points = "1," + Num(y(vals[0])) + " " + Num(sparkWidth-1) + "," + Num(y(vals[0]))
	}
	if nums != "" {
		s.Title += ": " + nums
	}
	return s
}

// BandLabel is a band's name written inside the plot, at the top of its band.
type BandLabel struct {
	X, Y float64
	Text string
}

// Band labels are 9-unit text (.band-label in app.css). A label's width is not known on the
// server, so it is estimated on the wide side: bandLabelEm of the font size per character, which
// no glyph of the three languages' labels reaches in the sans fonts pages use. Labels are set in
// up to bandLabelLanes rows, each label in the first row where it starts inside its band and
// clears the label before it by bandLabelGap; one that fits no row is left out (the legend and the
// band's tooltip name it).
const (
	bandLabelSize  = 9.0
	bandLabelEm    = 0.68
	bandLabelGap   = 6.0
	bandLabelLanes = 3
	bandLabelLead  = 11.0
)

// bandLabelWidth is label's estimated width in SVG units.
func bandLabelWidth(label string) float64 {
	return float64(utf8.RuneCountInString(label)) * bandLabelSize * bandLabelEm
}

// BandLabels places the bands' names so that no two overlap, in any language: the zone labels of
// the overview's charts ran into each other where a band was narrower than its name (defect 11).
func BandLabels(bands []Rect) []BandLabel {
	var out []BandLabel
	ends := make([]float64, bandLabelLanes)
	for i := range ends {
		ends[i] = math.Inf(-1)
	}
	for _, b := range bands {
		if b.Title == "" || b.W < 8 {
			continue
		}
		x := b.X + 3
		w := bandLabelWidth(b.Title)
		if x+w > chartWidth-chartRight {
			// Near the right edge the label ends at the plot's edge, if it still starts inside
			// its band.
			x = chartWidth - chartRight - w
			if x < b.X {
				continue
			}
		}
		for lane := range ends {
			if x >= ends[lane]+bandLabelGap {
				ends[lane] = x + w
				out = append(out, BandLabel{X: x, Y: b.Y + 10 + float64(lane)*bandLabelLead, Text: b.Title})
				break
			}
		}
	}
	return out
}
