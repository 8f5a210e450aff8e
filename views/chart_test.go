package views

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/views/i18n"
)

func TestNiceScale(t *testing.T) {
	t.Parallel()
	cases := []struct {
		max       float64
		top, step float64
		why       string
	}{
		{0, 1, 1, "empty data still draws an axis"},
		{-3, 1, 1, "nothing negative is counted"},
		{math.NaN(), 1, 1, "no number"},
		{1, 1, 1, "one value: no fractional steps"},
		{3, 3, 1, "small counts step by one"},
		{7, 8, 2, "about four intervals"},
		{40, 40, 10, "a round top"},
		{41, 60, 20, "just past a round number"},
		{12345, 15000, 5000, "large"},
	}
	for _, c := range cases {
		top, step := NiceScale(c.max)
		if top != c.top || step != c.step {
			t.Errorf("NiceScale(%v) = %v, %v; want %v, %v (%s)", c.max, top, step, c.top, c.step, c.why)
		}
		if !(top >= c.max) && c.max > 0 {
			t.Errorf("NiceScale(%v): top %v below the data", c.max, top)
		}
	}
}

func TestHelsinkiDaysAcrossTheClockChange(t *testing.T) {
	t.Parallel()
	// Summer time starts on 29 March 2026 at 03:00 Helsinki time and ends on 25 October.
	spring := HelsinkiDays(time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC), 3)
	want := []struct {
		date  string
		hours float64
	}{{"2026-03-28", 24}, {"2026-03-29", 23}, {"2026-03-30", 24}}
	for i, w := range want {
		d := spring[i]
		if d.Date.String() != w.date || d.End.Sub(d.Start).Hours() != w.hours {
			t.Errorf("day %d = %s, %v h; want %s, %v h", i, d.Date, d.End.Sub(d.Start).Hours(), w.date, w.hours)
		}
		if i > 0 && !spring[i-1].End.Equal(d.Start) {
			t.Errorf("day %d does not start where day %d ends", i, i-1)
		}
	}
	autumn := HelsinkiDays(time.Date(2026, 10, 25, 21, 59, 0, 0, time.UTC), 1) // 23:59 Helsinki
	if a := autumn[0]; a.Date.String() != "2026-10-25" || a.End.Sub(a.Start).Hours() != 25 {
		t.Errorf("autumn day = %s, %v h; want 2026-10-25, 25 h", a.Date, a.End.Sub(a.Start).Hours())
	}
	// Just after Helsinki midnight the UTC date is still yesterday's: the day is Helsinki's.
	late := HelsinkiDays(time.Date(2026, 11, 30, 22, 30, 0, 0, time.UTC), 1)
	if late[0].Date.String() != "2026-12-01" || late[0].Start != time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC) {
		t.Errorf("after Helsinki midnight = %s from %s; want 2026-12-01 from 22:00 UTC", late[0].Date, late[0].Start)
	}
	if got := DayBounds(spring); len(got) != 4 || !got[3].Equal(spring[2].End) {
		t.Errorf("DayBounds = %v", got)
	}
	if HelsinkiDays(time.Date(2026, 11, 30, 22, 30, 0, 0, time.UTC), 0) == nil || len(HelsinkiDays(time.Time{}, 0)) != 0 || DayBounds(nil) != nil {
		t.Error("no days is an empty list")
	}
}

var hourEdges = []float64{0, 1, 2, 3, 24}

func TestHistogramEmpty(t *testing.T) {
	t.Parallel()
	c := Histogram(HistogramSpec{ID: "h", Edges: hourEdges, Series: []ChartSeries{{"Rows", "c0"}}, Counts: [][]int64{{0, 0, 0, 0, 0}}})
	if !c.Empty || len(c.Bars) != 0 || len(c.YTicks) != 2 || len(c.Table.Rows) != 5 {
		t.Errorf("empty histogram: empty %v, %d bars, %d y ticks, %d table rows", c.Empty, len(c.Bars), len(c.YTicks), len(c.Table.Rows))
	}
	if c := Histogram(HistogramSpec{ID: "none"}); !c.Empty || len(c.Bars) != 0 {
		t.Errorf("histogram without bins: %+v", c)
	}
}

func TestHistogramOneValueAndOutliers(t *testing.T) {
	t.Parallel()
	format := func(v float64) string { return trimFloat(v) + " h" }
	c := Histogram(HistogramSpec{
		ID: "h", Edges: hourEdges, Series: []ChartSeries{{"Rows", "c0"}},
		// One value in the second bin, and two outliers past the last edge, in the open bin.
		Counts: [][]int64{{0, 1, 0, 0, 2}}, Format: format,
		Bands: []BandSpec{{From: 0, To: 1.5, Label: "Early", Class: "band-a"}, {From: 24, To: math.Inf(1), Label: "Late", Class: "band-b"}},
		Ticks: []float64{0, 24},
	})
	if c.Empty || len(c.Bars) != 2 {
		t.Fatalf("bars = %d (empty %v), want 2", len(c.Bars), c.Empty)
	}
	one, out := c.Bars[0], c.Bars[1]
	if one.H <= 0 || out.H <= one.H || math.Abs(out.Y-c.PlotTop()) > 0.01 {
		t.Errorf("the tallest bar reaches the top: %+v, %+v", one, out)
	}
	if !strings.Contains(out.Title, "≥ 24 h: 2") || c.Table.Rows[4][0] != "≥ 24 h" || c.Table.Rows[1][1] != "1" {
		t.Errorf("outlier bin labelled %q, table %v", out.Title, c.Table.Rows)
	}
	slot := (c.PlotRight() - c.PlotLeft()) / 5
	// The first band ends halfway through the second bin; the second covers the open bin.
	if b := c.Bands[0]; math.Abs(b.W-1.5*slot) > 0.01 {
		t.Errorf("band 0 width %v, want %v", b.W, 1.5*slot)
	}
	if b := c.Bands[1]; math.Abs(b.X-(c.PlotLeft()+4*slot)) > 0.01 || math.Abs(b.X+b.W-c.PlotRight()) > 0.01 {
		t.Errorf("band 1 = %+v, want the last slot", b)
	}
	if len(c.XTicks) != 2 || c.XTicks[1].Label != "24 h" {
		t.Errorf("x ticks = %+v", c.XTicks)
	}
	for _, v := range []struct {
		v    float64
		want int
	}{{-1, -1}, {0, 0}, {0.99, 0}, {1, 1}, {23.9, 3}, {24, 4}, {1e9, 4}} {
		if got := BinOf(hourEdges, v.v); got != v.want {
			t.Errorf("BinOf(%v) = %d, want %d", v.v, got, v.want)
		}
	}
}

func TestHistogramSeriesSideBySide(t *testing.T) {
	t.Parallel()
	c := Histogram(HistogramSpec{ID: "h", Edges: hourEdges, Series: []ChartSeries{{"This week", "c0"}, {"Last week", "c1"}},
		Counts: [][]int64{{1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}}})
	if len(c.Bars) != 2 || c.Bars[0].X >= c.Bars[1].X || c.Bars[0].X+c.Bars[0].W > c.Bars[1].X+0.001 || c.Bars[1].Class != "c1" {
		t.Errorf("two series in one bin overlap: %+v", c.Bars)
	}
	if len(c.Table.Head) != 3 {
		t.Errorf("table head = %v", c.Table.Head)
	}
}

func TestStackedOverDays(t *testing.T) {
	t.Parallel()
	days := HelsinkiDays(time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC), 3)
	c := Stacked(DaySeriesSpec{ID: "s", Days: days, Series: []ChartSeries{{"Registered", "c0"}, {"Failed", "c1"}},
		Values: [][]int64{{2, 0, 5}, {1, 0, 0}}})
	if c.Empty || len(c.Bars) != 3 {
		t.Fatalf("bars = %+v", c.Bars)
	}
	// Day one: registered at the bottom, failed on top of it, together reaching 3 of 5.
	reg, failed, five := c.Bars[0], c.Bars[1], c.Bars[2]
	if math.Abs(reg.Y-(failed.Y+failed.H)) > 0.01 || math.Abs(reg.Y+reg.H-c.PlotBottom()) > 0.01 {
		t.Errorf("not stacked: %+v on %+v", failed, reg)
	}
	if math.Abs(five.Y-yPos(5, 6)) > 0.01 || !strings.HasPrefix(five.Title, "2026-03-30") || c.YTicks[len(c.YTicks)-1].Label != "6" {
		t.Errorf("tallest bar = %+v", five)
	}
	if len(c.Table.Rows) != 3 || c.Table.Rows[1][0] != "2026-03-29" || c.Table.Rows[1][1] != "0" {
		t.Errorf("table = %v", c.Table.Rows)
	}
	if last := c.XTicks[len(c.XTicks)-1]; last.Label != "28.3." && c.XTicks[0].Label != "30.3." {
		t.Errorf("day ticks = %+v", c.XTicks)
	}
	if e := Stacked(DaySeriesSpec{ID: "e", Days: days, Series: c.Series}); !e.Empty || len(e.Bars) != 0 {
		t.Errorf("no values: %+v", e)
	}
	if e := Stacked(DaySeriesSpec{ID: "e"}); !e.Empty {
		t.Errorf("no days: %+v", e)
	}
}

func TestLineBreaksAtMissingDays(t *testing.T) {
	t.Parallel()
	days := HelsinkiDays(time.Date(2026, 10, 26, 12, 0, 0, 0, time.UTC), 5)
	c := Line(DaySeriesSpec{ID: "l", Days: days, Series: []ChartSeries{{"Needs a person", "c0"}},
		Values: [][]int64{{4, 6, -1, 3, 0}}})
	if c.Empty || len(c.Lines) != 2 {
		t.Fatalf("lines = %+v", c.Lines)
	}
	if len(c.Lines[0].Dots) != 2 || len(c.Lines[1].Dots) != 2 || strings.Count(c.Lines[0].Points, ",") != 2 {
		t.Errorf("runs = %+v", c.Lines)
	}
	if c.Table.Rows[2][1] != "–" || c.Table.Rows[4][1] != "0" {
		t.Errorf("a missing day is a dash, a zero a zero: %v", c.Table.Rows)
	}
	if e := Line(DaySeriesSpec{ID: "l", Days: days, Series: c.Series, Values: [][]int64{{-1, -1, -1, -1, -1}}}); !e.Empty || len(e.Lines) != 0 {
		t.Errorf("no data at all: %+v", e)
	}
}

func TestSparkline(t *testing.T) {
	t.Parallel()
	if s := NewSparkline("Per week", nil); !s.Empty || s.Points != "" || s.Title != "Per week" {
		t.Errorf("empty = %+v", s)
	}
	one := NewSparkline("Per week", []int64{3})
	if one.Empty || strings.Count(one.Points, ",") != 2 || one.Title != "Per week: 3" {
		t.Errorf("one value = %+v", one)
	}
	s := NewSparkline("Per week", []int64{0, 10, 5})
	pts := strings.Fields(s.Points)
	if len(pts) != 3 || pts[1] != "50.0,1.0" || pts[0] != "1.0,21.0" || s.Title != "Per week: 0, 10, 5" {
		t.Errorf("sparkline = %+v", s)
	}
}

func trimFloat(v float64) string {
	s := Num(v)
	return strings.TrimSuffix(s, ".0")
}

// Every word and number of the overview's charts is the page's language: units, decimal marks,
// bin ranges, days on the axis, in the tables and the tooltips, across the autumn clock change.
func TestOverviewChartsInEachLanguage(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 27, 10, 0, 0, 0, time.UTC)
	days := HelsinkiDays(now, 60)
	n := len(LatencyEdges())
	counts := make([]int64, n)
	counts[9], counts[n-1] = 3, 1 // 4.5–5 h, and 14 days or more
	outcomes := make([][]int64, len(outcomeKeys))
	for i := range outcomes {
		outcomes[i] = make([]int64, len(days))
	}
	outcomes[0][len(days)-3] = 2 // Sunday 25 October, the 25-hour day
	d := OverviewData{Days: days, Latency: [3][]int64{counts, counts, counts}, Outcomes: outcomes}
	for _, c := range []struct {
		lang                       i18n.Lang
		bin, open, tick, day, axis string
	}{
		{i18n.FI, "4,5 t–5 t", "vähintään 14 pv", "4,5 t", "su 25.10.2026", "25.10."},
		{i18n.SV, "4,5 h–5 h", "14 d eller mer", "4,5 h", "sön 25 okt. 2026", "25 okt."},
		{i18n.EN, "4.5 h–5 h", "14 d or more", "4.5 h", "Sun 25 Oct 2026", "25 Oct"},
	} {
		vm := NewOverview(i18n.For(c.lang), d)
		rows := vm.Latency.Table.Rows
		if rows[9][0] != c.bin || rows[n-1][0] != c.open {
			t.Errorf("%s: bins %q and %q, want %q and %q", c.lang, rows[9][0], rows[n-1][0], c.bin, c.open)
		}
		if !slices.ContainsFunc(vm.Latency.XTicks, func(tk Tick) bool { return tk.Label == c.tick }) {
			t.Errorf("%s: no tick %q in %+v", c.lang, c.tick, vm.Latency.XTicks)
		}
		if !slices.ContainsFunc(vm.Latency.Bars, func(b Rect) bool { return strings.Contains(b.Title, c.open) }) {
			t.Errorf("%s: no bar's tooltip says %q", c.lang, c.open)
		}
		out := vm.Outcomes
		if got := out.Table.Rows[len(days)-3][0]; got != c.day {
			t.Errorf("%s: the table's day = %q, want %q", c.lang, got, c.day)
		}
		if len(out.Bars) != 1 || !strings.HasPrefix(out.Bars[0].Title, c.day+" ") {
			t.Errorf("%s: bars %+v, want one titled with %q", c.lang, out.Bars, c.day)
		}
		// The axis labels today first (dayTicks walks back from it).
		if last := out.XTicks[0].Label; last != strings.Replace(c.axis, "25", "27", 1) {
			t.Errorf("%s: today on the axis = %q", c.lang, last)
		}
		if pile := vm.Pile.Table.Rows[len(days)-3][0]; pile != c.day {
			t.Errorf("%s: the pile's day = %q", c.lang, pile)
		}
	}
}

// Derived days (worked out afterwards, not counted on the day) are shaded and their lines drawn
// apart, and the line still runs on unbroken into the counted days.
func TestLineMarksDerivedDays(t *testing.T) {
	t.Parallel()
	days := HelsinkiDays(time.Date(2026, 10, 27, 10, 0, 0, 0, time.UTC), 5)
	c := Line(DaySeriesSpec{ID: "l", Days: days, Series: []ChartSeries{{"Needs a person", "c0"}},
		Values: [][]int64{{1, 2, 3, 4, 5}}, Derived: []bool{true, true, true, false, false}, DerivedLabel: "Derived"})
	if len(c.Lines) != 2 || !c.Lines[0].Derived || c.Lines[1].Derived {
		t.Fatalf("runs = %+v, want a derived one and a counted one", c.Lines)
	}
	if len(c.Lines[0].Dots) != 3 || len(c.Lines[1].Dots) != 2 {
		t.Errorf("dots = %d and %d, want 3 and 2", len(c.Lines[0].Dots), len(c.Lines[1].Dots))
	}
	last := c.Lines[0].Dots[2]
	if pts := strings.Fields(c.Lines[1].Points); len(pts) != 3 || pts[0] != Num(last.X)+","+Num(last.Y) {
		t.Errorf("the counted run %q does not start where the derived one ends (%v)", c.Lines[1].Points, last)
	}
	slot := (c.PlotRight() - c.PlotLeft()) / 5
	if len(c.Bands) != 1 || math.Abs(c.Bands[0].W-3*slot) > 0.01 || c.Bands[0].X != c.PlotLeft() || c.Bands[0].Title != "Derived" {
		t.Errorf("bands = %+v, want one over the first three days", c.Bands)
	}
	if plain := Line(DaySeriesSpec{ID: "l", Days: days, Series: c.Series, Values: [][]int64{{1, 2, 3, 4, 5}}}); len(plain.Lines) != 1 || len(plain.Bands) != 0 {
		t.Errorf("without derived days: %+v", plain)
	}
}

// TestBandLabelsNeverOverlap sets narrow adjacent bands whose names are longer than the bands,
// as the overview's zones are in Finnish, and checks that no two labels share space, each starts
// inside its band and none runs past the plot.
func TestBandLabelsNeverOverlap(t *testing.T) {
	t.Parallel()
	names := []string{"Tiheä tarkistusikkuna", "Myöhäinen ikkuna", "Uudelleenyritysten välit", "Luovutusikä ohitettu", "x"}
	var bands []Rect
	x := chartLeft
	for i := range 12 {
		w := 12.0 + float64(i%4)*18
		bands = append(bands, Rect{X: x, Y: chartTop, W: w, H: plotH(), Title: names[i%len(names)]})
		x += w
	}
	// One last band at the right edge, narrower than its name.
	bands = append(bands, Rect{X: chartWidth - chartRight - 30, Y: chartTop, W: 30, H: plotH(), Title: names[0]})
	labels := BandLabels(bands)
	if len(labels) < 3 {
		t.Fatalf("only %d labels placed of %d bands", len(labels), len(bands))
	}
	for i, a := range labels {
		wa := bandLabelWidth(a.Text)
		if a.X+wa > chartWidth-chartRight+0.01 {
			t.Errorf("label %q ends at %.1f, past the plot's right edge", a.Text, a.X+wa)
		}
		inside := slices.ContainsFunc(bands, func(b Rect) bool { return b.Title == a.Text && a.X >= b.X && a.X < b.X+b.W })
		if !inside {
			t.Errorf("label %q at %.1f starts inside none of its bands", a.Text, a.X)
		}
		for _, b := range labels[i+1:] {
			wb := bandLabelWidth(b.Text)
			if a.Y == b.Y && a.X < b.X+wb && b.X < a.X+wa {
				t.Errorf("labels %q (%.1f–%.1f) and %q (%.1f–%.1f) overlap on one line", a.Text, a.X, a.X+wa, b.Text, b.X, b.X+wb)
			}
		}
	}
}
