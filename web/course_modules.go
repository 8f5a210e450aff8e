package web

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// courseSparkWeeks is how many Helsinki weeks a module's sparkline spans.
const courseSparkWeeks = 12

// moduleColumn is one heading of support's module list; sort orders by it (nil: it does not sort).
type moduleColumn struct {
	key, label string
	numeric    bool
	sort       func(a, b store.CourseModuleStats) int
}

func byCount(f func(store.CourseModuleStats) int64) func(a, b store.CourseModuleStats) int {
	return func(a, b store.CourseModuleStats) int { return cmp.Compare(f(b), f(a)) } // largest first
}

var moduleColumns = []moduleColumn{
	{key: "name", label: "courses.col.module", sort: func(a, b store.CourseModuleStats) int {
		return cmp.Or(strings.Compare(a.CourseName, b.CourseName), strings.Compare(a.ModuleName, b.ModuleName))
	}},
	{key: "code", label: "courses.col.code"},
	{key: "total", label: "courses.col.total", numeric: true, sort: byCount(func(m store.CourseModuleStats) int64 { return m.Total })},
	{key: "registered", label: "courses.col.registered", numeric: true, sort: byCount(func(m store.CourseModuleStats) int64 { return m.Registered })},
	{key: "in_flight", label: "courses.col.inFlight", numeric: true, sort: byCount(func(m store.CourseModuleStats) int64 { return m.InFlight })},
	{key: "failed", label: "courses.col.failed", numeric: true, sort: byCount(func(m store.CourseModuleStats) int64 { return m.Failed })},
	{key: "needs_admin", label: "courses.col.needsAdmin", numeric: true, sort: byCount(func(m store.CourseModuleStats) int64 { return m.NeedsAdmin })},
	{key: "last_registered", label: "courses.col.lastRegistered", numeric: true, sort: byCount(func(m store.CourseModuleStats) int64 {
		if m.LastRegisteredAt == nil {
			return 0
		}
		return m.LastRegisteredAt.UnixMicro()
	})},
	{key: "top_error", label: "courses.col.topError"},
	{key: "weekly", label: "courses.col.weekly"},
}

// courseModulesVM fills support's list of every course module into vm, sorted as the query asks
// (?sort=name by default).
func (s *Server) courseModulesVM(r *http.Request, vm *views.CoursesVM) error {
	q, err := query(r)
	if err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	key := cmp.Or(q.Get("sort"), "name")
	var col *moduleColumn
	for i := range moduleColumns {
		if moduleColumns[i].key == key && moduleColumns[i].sort != nil {
			col = &moduleColumns[i]
		}
	}
	if col == nil {
		return badRequestKey("courses.sortUnknown", "Sort", key)
	}
	now := s.clock()
	// Every module's numbers take a pass over the ledger's unsettled rows (27 ms at a million
	// rows); like the overview's, one reading is shared for OverviewTTL, and the page says when
	// it was counted.
	shared, at, err := s.modules.get(r.Context(), "", now, func(ctx context.Context, at time.Time) ([]store.CourseModuleStats, error) {
		return s.store.CourseModuleStatsList(ctx, at, courseSparkWeeks)
	})
	if err != nil {
		return err
	}
	if s.modules.ttl > 0 {
		vm.CountedAt = loc.T("courses.countedAt", "At", loc.AtDated(at, now))
	}
	// The reading is everyone's: sort a copy.
	mods := slices.Clone(shared)
	slices.SortStableFunc(mods, func(a, b store.CourseModuleStats) int {
		return cmp.Or(col.sort(a, b), strings.Compare(a.CourseName, b.CourseName), strings.Compare(a.ModuleName, b.ModuleName))
	})
	for _, c := range moduleColumns {
		h := views.ColumnVM{Key: c.key, Label: loc.T(c.label), Numeric: c.numeric, Active: c.key == key}
		if c.sort != nil {
			h.URL = "/courses?" + url.Values{"sort": {c.key}}.Encode()
		}
		if h.Active {
			vm.SortedBy = h.Label
		}
		vm.Columns = append(vm.Columns, h)
	}
	vm.Modules = []views.CourseModuleRowVM{}
	for _, m := range mods {
		row := views.CourseModuleRowVM{
			ModuleID: m.ModuleID, CourseURL: "/courses/" + m.CourseID, CourseName: m.CourseName, ModuleName: moduleLabel(loc, m.ModuleName),
			Code: store.Deref(m.CourseCode), Total: loc.Count(m.Total), Registered: loc.Count(m.Registered),
			InFlight: loc.Count(m.InFlight), Failed: loc.Count(m.Failed), NeedsAdmin: loc.Count(m.NeedsAdmin),
			QueueURL:       "/?" + url.Values{"show": {"all"}, "course": {m.CourseID}}.Encode(),
			NeedsAdminURL:  "/?" + url.Values{"show": {"needs_admin"}, "course": {m.CourseID}}.Encode(),
			LastRegistered: loc.T("courses.never"),
			Weekly:         views.NewSparkline(loc.T("courses.weeklyTitle", "Weeks", courseSparkWeeks), m.Weekly),
		}
		if m.LastRegisteredAt != nil {
			row.LastRegistered = loc.AtDated(*m.LastRegisteredAt, now)
		}
		if m.TopError != "" {
			row.TopError, row.TopErrorLabel = string(m.TopError), loc.Code("errorCode", string(m.TopError))
			row.TopErrorURL = "/?" + url.Values{"show": {"all"}, "course": {m.CourseID}, "error": {string(m.TopError)}}.Encode()
		}
		if m.SetupError != "" {
			row.Setup, row.SetupLabel = string(m.SetupError), loc.Code("errorCode", string(m.SetupError))
			row.SetupTitle = loc.T("courses.setupTitle", "N", m.SetupErrorN)
		}
		vm.Modules = append(vm.Modules, row)
	}
	return nil
}
