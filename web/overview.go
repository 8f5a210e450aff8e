package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// overviewDays is how many Helsinki days the overview's day charts span.
const overviewDays = 60

// overviewRead is what one reading of the overview holds: the store's numbers and the days and
// weeks they were counted over.
type overviewRead struct {
	data store.Overview
	days []views.DayRange
	// thisWeek is how many of days belong to this Helsinki week (Monday to today).
	thisWeek int
	// drawn is the body drawn from this reading.
	drawn *drawnOverview
}

// overviewShow is the pipeline at a glance: GET /overview (support and admin).
func (s *Server) overviewShow(w http.ResponseWriter, r *http.Request) error {
	read, at, err := s.overview.get(r.Context(), "", s.clock(), s.readOverview)
	if err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	body, err := read.drawn.body(r.Context(), loc.Lang, func() templ.Component { return views.OverviewBody(overviewVM(loc, read)) })
	if err != nil {
		return err
	}
	page := views.OverviewPage(s.page(r, loc.T("overview.title")), views.OverviewCountedAt(loc, at, s.clock()), body)
	return s.render(w, r, http.StatusOK, page, nil)
}

// drawnOverview keeps one reading's overview body drawn, per language. A reading is shared for
// OverviewTTL, and drawing its charts and tables costs several times what the page around them
// does, so everyone who asks while the reading is shared gets the same drawing. It lives in the
// reading, and goes with it.
type drawnOverview struct {
	mu     sync.Mutex
	byLang map[i18n.Lang]string
}

// body returns the body drawn in lang, drawing it if it is not kept yet.
func (d *drawnOverview) body(ctx context.Context, lang i18n.Lang, draw func() templ.Component) (templ.Component, error) {
	d.mu.Lock()
	html, ok := d.byLang[lang]
	d.mu.Unlock()
	if ok {
		return templ.Raw(html), nil
	}
	var b strings.Builder
	if err := draw().Render(ctx, &b); err != nil {
		return nil, fmt.Errorf("draw the overview: %w", err)
	}
	html = b.String()
	d.mu.Lock()
	if d.byLang == nil {
		d.byLang = map[i18n.Lang]string{}
	}
	d.byLang[lang] = html
	d.mu.Unlock()
	return templ.Raw(html), nil
}

// readOverview counts the overview as of now.
func (s *Server) readOverview(ctx context.Context, now time.Time) (overviewRead, error) {
	days := views.HelsinkiDays(now, overviewDays)
	today := days[len(days)-1]
	// Helsinki weeks start on Monday.
	back := (int(today.Start.In(schedule.Helsinki()).Weekday()) + 6) % 7
	thisWeek := days[len(days)-1-back]
	lastWeek := days[len(days)-1-back-7]
	p := store.OverviewParams{
		Now: now, DayBounds: views.DayBounds(days), LatencyEdges: views.LatencyEdges(),
		LatencyFrom: days[len(days)-30].Start, LastWeek: lastWeek.Start, ThisWeek: thisWeek.Start, Today: today.Start,
		SnapshotsFrom: days[0].Date,
	}
	data, err := s.store.OverviewGet(ctx, p)
	if err != nil {
		return overviewRead{}, err
	}
	return overviewRead{data: data, days: days, thisWeek: back + 1, drawn: &drawnOverview{}}, nil
}

// uncertainNotLookedUpPath is the queue of the uncertain rows nobody has looked up in Sisu since
// they were sent.
var uncertainNotLookedUpPath = "/?" + url.Values{"show": {"all"}, "state": {string(schedule.StateSubmissionUncertain)}, "lookup": {lookupNone}}.Encode()

func overviewVM(loc *i18n.Localizer, read overviewRead) views.OverviewVM {
	o := read.data
	d := views.OverviewData{
		NeedsAdmin: o.Attention.NeedsAdmin, NeedsAdminToday: o.NeedsAdminToday,
		MedianThisWeek: o.MedianThisWeek, MedianLastWeek: o.MedianLastWeek,
		NeedsAdminURL: "/?show=needs_admin",
		RegisteredURL: "/?" + url.Values{"show": {"all"}, "state": {"registered"}}.Encode(),
		FailedURL:     "/?" + url.Values{"show": {"all"}, "state": {"failed_permanent"}}.Encode(),
		Latency:       o.Latency, Days: read.days,
	}
	// The uncertain rows nobody has looked up since sending, as the alert uncertain_awaiting_lookup
	// counts them; the link lists exactly those.
	d.Uncertain = o.UncertainNotLookedUp
	d.UncertainURL = uncertainNotLookedUpPath
	n := len(read.days)
	for _, oc := range store.Outcomes() {
		series := o.Outcomes[oc]
		d.Outcomes = append(d.Outcomes, series)
		for i := n - read.thisWeek; i < n && i < len(series); i++ {
			switch oc {
			case store.OutcomeRegistered:
				d.RegisteredWeek += series[i]
			case store.OutcomeFailed:
				d.FailedWeek += series[i]
			}
		}
	}
	if reg := o.Outcomes[store.OutcomeRegistered]; len(reg) == n && n > 0 {
		d.RegisteredToday = reg[n-1]
	}
	byDay := map[schedule.Date]store.AttentionSnapshot{}
	for _, sn := range o.Snapshots {
		byDay[sn.Day] = sn
	}
	for _, day := range read.days {
		sn, ok := byDay[day.Date]
		if !ok {
			d.Pile = append(d.Pile, nil)
			continue
		}
		d.Pile = append(d.Pile, &views.PileDay{NeedsAdmin: sn.NeedsAdmin, Reasons: sn.Reasons, Backfilled: sn.Backfilled})
	}
	for _, g := range o.Failures {
		f := views.FailureRowVM{
			Code: string(g.Code), CodeLabel: loc.T("errorCode." + string(g.Code)), Retryability: loc.T("retryability." + string(g.Code.Class())), Shape: g.Shape,
			Hour: views.Count(g.Hour), Day: views.Count(g.Day), Week: views.Count(g.Week),
			ExampleURL: "/registrations/" + g.ExampleID,
			QueueURL:   "/?" + url.Values{"show": {"all"}, "error": {string(g.Code)}}.Encode(),
		}
		if f.Shape == "" {
			f.Shape = loc.T("overview.failures.noMessage")
		}
		for _, c := range g.Courses {
			f.Courses = append(f.Courses, views.FailureCourseVM{Name: c.Name, N: views.Count(c.N),
				URL: "/?" + url.Values{"show": {"all"}, "error": {string(g.Code)}, "course": {c.ID}}.Encode()})
		}
		d.Failures = append(d.Failures, f)
	}
	return views.NewOverview(loc, d)
}
