package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// queuePageSize is how many rows one queue page shows.
const queuePageSize = 50

// queueParams is the queue's state, as the URL carries it.
type queueParams struct {
	needsAdmin bool
	phases     []schedule.Phase
	reasons    []schedule.Reason
	standings  []schedule.Standing
	states     []schedule.State
	courses    []string
	errorCodes []schedule.ErrorCode
	search     string
	// notLookedUp is lookup=none: rows nobody has looked up in Sisu since they were sent.
	notLookedUp bool
	// escalatesSoon is escalates=1d: rows that need nobody yet and will escalate within a day.
	escalatesSoon bool
	// endedDay is ended=1d: rows that ended within the last day; misregisteredDay is
	// misregistered=1d: rows Sisu reversed within the last day.
	endedDay, misregisteredDay bool
	claimed                    store.ClaimedFilter
	sort                       store.RegistrationSort
	after                      *store.RegistrationCursor
	// trail are the cursors of the pages before this one, oldest first (the first page has none):
	// what the Previous link goes back along, and how far down the list this page starts.
	trail []store.RegistrationCursor
}

// lookupNone is lookup=none's value: rows nobody has looked up in Sisu since they were sent.
const lookupNone = "none"

// escalatesDay is the value of escalates=, ended= and misregistered=: within a day, the window of
// the alert each lists the rows of (escalating_soon, permanent_failures_accumulating,
// misregistrations_detected).
const escalatesDay = "1d"

// within is d when set, else 0 (no filter).
func within(set bool, d time.Duration) time.Duration {
	if set {
		return d
	}
	return 0
}

// maxTrail is how many pages back the Previous link remembers: 200 pages of 50 rows, a link of
// about 10 kB. A longer trail is a damaged or made-up link.
const maxTrail = 200

// filterKeys are the query parameters that narrow the list. "standing" is where the LMS lists a
// row (schedule.Standing): standing=running_late is the rows only stuck in their state, which
// used to be the reason running_late.
var filterKeys = []string{"phase", "reason", "standing", "state", "course", "error", "q", "lookup", "escalates", "ended", "misregistered"}

// parseQueueParams reads the queue's URL. Without "show", the bare queue shows what needs admin
// and any filtered view shows every registration, so a link such as ?state=registered means what
// it says. A value the queue does not know is a 400 naming it.
func parseQueueParams(q url.Values) (queueParams, error) {
	var p queueParams
	switch show := q.Get("show"); show {
	case "needs_admin":
		p.needsAdmin = true
	case "all":
	case "":
		p.needsAdmin = !slices.ContainsFunc(filterKeys, func(k string) bool { return q.Get(k) != "" })
	default:
		return p, badRequestKey("queue.bad.show", "Value", show)
	}
	var err error
	if p.phases, err = parseAll(q["phase"], schedule.ParsePhase); err != nil {
		return p, parseRefused(err)
	}
	if p.reasons, err = parseAll(q["reason"], schedule.ParseReason); err != nil {
		return p, parseRefused(err)
	}
	if p.standings, err = parseAll(q["standing"], schedule.ParseStanding); err != nil {
		return p, parseRefused(err)
	}
	if p.states, err = parseAll(q["state"], schedule.ParseState); err != nil {
		return p, parseRefused(err)
	}
	if p.errorCodes, err = parseAll(q["error"], schedule.ParseErrorCode); err != nil {
		return p, parseRefused(err)
	}
	for _, c := range q["course"] {
		if c == "" {
			continue
		}
		if !store.IsUUID(c) {
			return p, badRequestKey("queue.bad.course", "Value", c)
		}
		p.courses = append(p.courses, c)
	}
	switch l := q.Get("lookup"); l {
	case "":
	case lookupNone:
		p.notLookedUp = true
	default:
		return p, badRequestKey("queue.bad.lookup", "Value", l)
	}
	for _, day := range []struct {
		key string
		set *bool
	}{{"escalates", &p.escalatesSoon}, {"ended", &p.endedDay}, {"misregistered", &p.misregisteredDay}} {
		switch v := q.Get(day.key); v {
		case "":
		case escalatesDay:
			*day.set = true
		default:
			return p, badRequestKey("queue.bad.day", "Key", day.key, "Value", v)
		}
	}
	switch c := store.ClaimedFilter(q.Get("claimed")); c {
	case store.ClaimedAnyone, store.ClaimedMine, store.ClaimedNobody:
		p.claimed = c
	default:
		return p, badRequestKey("queue.bad.claimed", "Value", string(c))
	}
	switch o := q.Get("sort"); o {
	case "", "activity":
	case string(store.SortWaiting):
		p.sort = store.SortWaiting
	default:
		return p, badRequestKey("queue.bad.sort", "Value", o)
	}
	p.search = strings.TrimSpace(q.Get("q"))
	if len(p.search) > 200 {
		return p, badRequestKey("queue.bad.searchLong", "Max", 200)
	}
	if a := q.Get("after"); a != "" {
		c, err := parseCursor(a)
		if err != nil {
			return p, badRequestKey("queue.bad.cursor")
		}
		p.after = c
	}
	if t := q.Get("trail"); t != "" {
		if p.after == nil {
			return p, badRequestKey("queue.bad.cursor")
		}
		parts := strings.Split(t, ",")
		if len(parts) > maxTrail {
			return p, badRequestKey("queue.bad.cursor")
		}
		for _, part := range parts {
			c, err := parseCursor(part)
			if err != nil {
				return p, badRequestKey("queue.bad.cursor")
			}
			p.trail = append(p.trail, *c)
		}
	}
	return p, nil
}

func parseAll[T any](vals []string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, v := range vals {
		if v == "" {
			continue
		}
		t, err := parse(v)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// parseCursor reads "unixmicro.uuid".
func parseCursor(s string) (*store.RegistrationCursor, error) {
	ts, id, ok := strings.Cut(s, ".")
	if !ok || !store.IsUUID(id) {
		return nil, fmt.Errorf("cursor %q", s)
	}
	us, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("cursor %q: %w", s, err)
	}
	// regdesk writes cursors for instants in its own lifetime; anything far outside is a damaged
	// link, and PostgreSQL cannot even hold some of them.
	at := time.UnixMicro(us).UTC()
	if at.Year() < 1970 || at.Year() > 9999 {
		return nil, fmt.Errorf("cursor %q: %v is out of range", s, at)
	}
	return &store.RegistrationCursor{UpdatedAt: at, ID: id}, nil
}

func formatCursor(c store.RegistrationCursor) string {
	return strconv.FormatInt(c.UpdatedAt.UnixMicro(), 10) + "." + c.ID
}

// pageValues is p's query string for the page that starts after cursor after (nil: the first
// page), with the trail of pages before it.
func (p queueParams) pageValues(after *store.RegistrationCursor, trail []store.RegistrationCursor) url.Values {
	v := p.values()
	if after == nil {
		return v
	}
	v.Set("after", formatCursor(*after))
	if len(trail) > 0 {
		parts := make([]string, len(trail))
		for i, c := range trail {
			parts[i] = formatCursor(c)
		}
		v.Set("trail", strings.Join(parts, ","))
	}
	return v
}

// pageIndex is how many pages come before this one.
func (p queueParams) pageIndex() int {
	if p.after == nil {
		return 0
	}
	return len(p.trail) + 1
}

// values renders p back into a query string, without the cursor.
func (p queueParams) values() url.Values {
	v := url.Values{}
	if p.needsAdmin {
		v.Set("show", "needs_admin")
	} else {
		v.Set("show", "all")
	}
	for _, x := range p.phases {
		v.Add("phase", string(x))
	}
	for _, x := range p.reasons {
		v.Add("reason", string(x))
	}
	for _, x := range p.standings {
		v.Add("standing", string(x))
	}
	for _, x := range p.states {
		v.Add("state", string(x))
	}
	for _, x := range p.courses {
		v.Add("course", x)
	}
	for _, x := range p.errorCodes {
		v.Add("error", string(x))
	}
	if p.search != "" {
		v.Set("q", p.search)
	}
	if p.notLookedUp {
		v.Set("lookup", lookupNone)
	}
	if p.escalatesSoon {
		v.Set("escalates", escalatesDay)
	}
	if p.endedDay {
		v.Set("ended", escalatesDay)
	}
	if p.misregisteredDay {
		v.Set("misregistered", escalatesDay)
	}
	if p.claimed != store.ClaimedAnyone {
		v.Set("claimed", string(p.claimed))
	}
	if p.sort != store.SortActivity {
		v.Set("sort", string(p.sort))
	}
	return v
}

// queueFilter is the store's filter for p as this person sees it: "mine" is theirs, and a claim
// counts for the server's lapse.
func (s *Server) queueFilter(r *http.Request, p queueParams, scope store.Scope) store.RegistrationFilter {
	f := p.filter(scope)
	if a := actorFrom(r.Context()); a != nil {
		f.ClaimAccountID = a.ID
	}
	f.ClaimLapse = s.claimLapse
	return f
}

func (p queueParams) filter(scope store.Scope) store.RegistrationFilter {
	return store.RegistrationFilter{
		Claimed:             p.claimed,
		Sort:                p.sort,
		NeedsAdmin:          p.needsAdmin,
		Phases:              p.phases,
		Reasons:             p.reasons,
		Standings:           p.standings,
		States:              p.states,
		ErrorCodes:          p.errorCodes,
		CourseIDs:           p.courses,
		Search:              p.search,
		NotLookedUp:         p.notLookedUp,
		EscalatesWithin:     within(p.escalatesSoon, schedule.EscalatingSoonWindow),
		EndedWithin:         within(p.endedDay, schedule.PermanentFailureWindow),
		MisregisteredWithin: within(p.misregisteredDay, schedule.MisregistrationWindow),
		Scope:               scope,
	}
}

// queueShow is the triage queue: GET /. A teacher opening the bare address (the brand link, or
// after signing in) lands on their courses instead: they ask about students, not the pipeline. A
// link with a filter still shows them the queue, scoped to their courses.
func (s *Server) queueShow(w http.ResponseWriter, r *http.Request) error {
	if a := actorFrom(r.Context()); a.Role == RoleTeacher && r.URL.RawQuery == "" {
		redirect(w, r, "/courses")
		return nil
	}
	q, err := query(r)
	if err != nil {
		return err
	}
	p, err := parseQueueParams(q)
	if err != nil {
		return err
	}
	now := s.clock()
	scope := s.courseScope(r)
	// The whole page's counts are read beside its list: each waits on the database, and when the
	// counts are due for a recount, one after the other they were the page's 21 ms at a million
	// rows. A fragment has no counts.
	var counted chan countsRead
	if !wantsFragment(r) {
		counted = make(chan countsRead, 1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					counted <- countsRead{err: fmt.Errorf("queue counts: panic: %v", v)}
				}
			}()
			vm, err := s.queueCounts(r, now, scope)
			counted <- countsRead{vm: vm, err: err}
		}()
	}
	results, err := s.queueResults(r, p, now, scope)
	if err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	saved := savedViews(loc, p, actorFrom(r.Context()).CanAct())
	if wantsFragment(r) {
		// A filter change, a pager click or the list's own refresh: only the list is swapped, so
		// skip the counts. The address bar gets the canonical link of the view, without the form's
		// empty fields; a refresh leaves it (and the history) as it is.
		if r.Header.Get("HX-Trigger") != views.IDQueueResults {
			w.Header().Set("HX-Push-Url", results.RefreshURL)
		}
		return s.render(w, r, http.StatusOK, nil, views.QueueSwap(results, saved))
	}
	c := <-counted
	if c.err != nil {
		return c.err
	}
	counts := c.vm
	courses, err := s.store.CourseList(r.Context(), scope)
	if err != nil {
		return err
	}
	vm := views.QueueVM{
		Page:    s.page(r, loc.T("queue.title")),
		Views:   saved,
		Alert:   queueAlert(loc, q, p, results, counts, now),
		Counts:  counts,
		Filter:  queueFilterVM(loc, p, courses, actorFrom(r.Context()).CanAct()),
		Results: results,
	}
	return s.render(w, r, http.StatusOK, views.QueuePage(vm), views.QueueSwap(results, saved))
}

// countsRead is what queueShow's counts, read beside its list, came to.
type countsRead struct {
	vm  views.CountsVM
	err error
}

// queueCountsShow is the counts panel alone, for its refresh: GET /queue/counts.
func (s *Server) queueCountsShow(w http.ResponseWriter, r *http.Request) error {
	counts, err := s.queueCounts(r, s.clock(), s.courseScope(r))
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, nil, views.QueueCounts(counts))
}

func (s *Server) queueResults(r *http.Request, p queueParams, now time.Time, scope store.Scope) (views.QueueResultsVM, error) {
	f := s.queueFilter(r, p, scope)
	rows, next, err := s.store.RegistrationList(r.Context(), now, f, p.after, queuePageSize)
	if err != nil {
		return views.QueueResultsVM{}, err
	}
	base := p.values()
	vm := views.QueueResultsVM{
		Export:     s.exportLinks("/queue", base.Encode()),
		IsFirst:    p.after == nil,
		FirstURL:   "/?" + base.Encode(),
		PageLimit:  queuePageSize,
		RefreshURL: "/?" + p.pageValues(p.after, p.trail).Encode(),
	}
	if next != nil {
		trail := p.trail
		if p.after != nil {
			trail = append(slices.Clone(p.trail), *p.after)
		}
		vm.NextURL = "/?" + p.pageValues(next, trail).Encode()
	}
	if p.after != nil {
		if n := len(p.trail); n == 0 {
			vm.PrevURL = vm.FirstURL
		} else {
			vm.PrevURL = "/?" + p.pageValues(&p.trail[n-1], p.trail[:n-1]).Encode()
		}
	}
	canAct := actorFrom(r.Context()).CanAct()
	loc := i18n.From(r.Context())
	for _, row := range rows {
		st := row.Status(now)
		rv := queueRowVM(loc, row, st, now)
		rv.Selectable = canAct
		rv.Claim = s.claimVM(r, row.ClaimColumns, now)
		rv.Waiting = s.waitingVM(loc, st, row.ScheduleColumns, now)
		vm.Rows = append(vm.Rows, rv)
	}
	// How many rows the view holds: the page itself when it is the only one, else counted up to
	// just past the bulk limit, one bounded count that the bulk bar's "select all" shares.
	total := len(rows)
	paged := next != nil || p.after != nil
	if paged && len(rows) > 0 {
		if total, err = s.store.RegistrationCountCapped(r.Context(), now, f, queueTotalCap+1); err != nil {
			return views.QueueResultsVM{}, err
		}
	}
	if canAct && len(rows) > 0 {
		vm.Bulk = s.bulkBar(r, p, total)
	}
	if len(rows) > 0 {
		from := p.pageIndex()*queuePageSize + 1
		vm.Total = loc.Count(int64(total))
		if total > queueTotalCap {
			vm.Total = loc.Count(queueTotalCap) + "+"
		}
		vm.Range = loc.T("queue.range", "From", loc.Count(int64(from)), "To", loc.Count(int64(from+len(rows)-1)), "Total", vm.Total)
	}
	switch {
	case len(rows) == 0 && p.needsAdmin && len(base) == 1:
		vm.Empty = loc.T("queue.empty.needsAdmin")
	case len(rows) == 0:
		vm.Empty = loc.T("queue.empty.filtered")
	default:
		key := "queue.summary.all"
		if p.needsAdmin {
			key = "queue.summary.needsAdmin"
		}
		if p.sort == store.SortWaiting {
			key += ".waiting"
		} else {
			key += ".activity"
		}
		if next != nil {
			key += ".more"
		}
		vm.Summary = loc.T(key, "Count", len(rows))
	}
	return vm, nil
}

// queueTotalCap is where the queue's total stops counting ("500+"): the bulk limit, so the one
// count serves both the total and the bulk bar's "select all".
const queueTotalCap = store.BulkMaxRows

// savedViews are the queue's one-click views for this person, the one p shows marked. "Mine" is
// only for people who can be on a row.
func savedViews(loc *i18n.Localizer, p queueParams, canClaim bool) []views.SavedViewVM {
	type def struct {
		key  string
		vals url.Values
	}
	defs := []def{
		{"needs_admin", url.Values{"show": {"needs_admin"}}},
		{"waiting", url.Values{"show": {"needs_admin"}, "sort": {string(store.SortWaiting)}}},
	}
	if canClaim {
		defs = append(defs, def{"mine", url.Values{"show": {"all"}, "claimed": {string(store.ClaimedMine)}}})
	}
	// The two lists support is asked about most, which the alerts of the same names open too.
	defs = append(defs,
		def{"uncertain", url.Values{"show": {"all"}, "state": {string(schedule.StateSubmissionUncertain)}, "lookup": {"none"}}},
		def{"escalating", url.Values{"show": {"all"}, "escalates": {"1d"}}},
		def{"all", url.Values{"show": {"all"}}})
	current := p.values().Encode()
	out := make([]views.SavedViewVM, 0, len(defs))
	for _, d := range defs {
		enc, label := d.vals.Encode(), "queue.view."+d.key
		out = append(out, views.SavedViewVM{Key: d.key, Label: loc.T(label), Title: loc.T(label + ".title"), URL: "/?" + enc, Current: enc == current})
	}
	return out
}

func queueRowVM(loc *i18n.Localizer, row store.RegistrationListRow, st schedule.Status, now time.Time) views.QueueRowVM {
	vm := views.QueueRowVM{
		ID:               row.ID,
		URL:              "/registrations/" + row.ID,
		State:            string(row.State),
		StateLabel:       loc.Code("state", string(row.State)),
		Phase:            string(st.Phase),
		PhaseLabel:       loc.Code("phase", string(st.Phase)),
		PhaseExplanation: loc.CodeExplain("phase", string(st.Phase)),
		StudentName:      row.StudentName,
		StudentNumber:    store.Deref(row.StudentNumber),
		StudentEmail:     row.StudentEmail,
		Course:           row.CourseName,
		Module:           moduleLabel(loc, row.ModuleName),
		CourseCode:       store.Deref(row.UhCourseCode),
		ErrorCode:        string(row.ErrorCode),
		NextCheck:        loc.When(instant(st.NextCheckAt), now),
		Escalates:        loc.When(instant(st.EscalatesAt), now),
		LastActivity:     loc.When(&row.UpdatedAt, now),
		NeedsAdmin:       st.NeedsAdmin,
		Reasons:          reasonVMs(loc, st, row.ScheduleRow().DismissedReasons),
	}
	if row.AttemptNumber > 1 {
		vm.Attempt = loc.T("queue.attempt", "N", row.AttemptNumber)
	}
	return vm
}

// reasonVMs are the row's reasons, then its notes (schedule.Note), each worded: a reason that is
// not person-level (stuck_in_state) is marked late, since nobody needs to act on it yet.
func reasonVMs(loc *i18n.Localizer, st schedule.Status, dismissed []schedule.Reason) []views.ReasonVM {
	out := make([]views.ReasonVM, 0, st.Reasons.Len()+st.Notes.Len())
	for _, r := range st.Reasons.List() {
		out = append(out, views.ReasonVM{
			Key:         string(r),
			Label:       loc.Code("reason", string(r)),
			Explanation: loc.CodeExplain("reason", string(r)),
			Late:        !r.PersonLevel(),
			Dismissed:   slices.Contains(dismissed, r),
		})
	}
	for _, n := range st.Notes.List() {
		out = append(out, views.ReasonVM{
			Key:         string(n),
			Label:       loc.Code("note", string(n)),
			Explanation: loc.CodeExplain("note", string(n)),
			Note:        true,
		})
	}
	return out
}

func (s *Server) queueCounts(r *http.Request, now time.Time, scope store.Scope) (views.CountsVM, error) {
	c, now, err := s.counts.get(r.Context(), scopeKey(scope), now, func(ctx context.Context, at time.Time) (store.RegistrationCounts, error) {
		return s.store.RegistrationCountsGet(ctx, at, scope)
	})
	if err != nil {
		return views.CountsVM{}, err
	}
	link := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return "/?" + v.Encode()
	}
	loc := i18n.From(r.Context())
	phaseCapped := false
	// A phase's count at its cap is "that many or more" (store.PhaseCountCap), and says so; the
	// reasons and needs-admin are exact.
	countText := loc.Count
	phaseText := func(n int64) string {
		if n >= store.PhaseCountCap {
			phaseCapped = true
			return loc.Count(n) + "+"
		}
		return loc.Count(n)
	}
	vm := views.CountsVM{
		NeedsAdmin: views.CountItem{
			Key: "needs_admin", Label: loc.T("queue.needsAdmin"), N: countText(c.NeedsAdmin), Value: c.NeedsAdmin, Zero: c.NeedsAdmin == 0,
			URL:         link("show", "needs_admin"),
			Explanation: loc.T("queue.needsAdmin.explain"),
		},
		Dismissed:  views.CountItem{Key: "dismissed", N: countText(c.Dismissed), Zero: c.Dismissed == 0},
		DismissedN: c.Dismissed,
		RefreshURL: "/queue/counts",
		AsOf:       loc.Clock(now),
	}
	vm.FreshnessNote = loc.T("queue.countedAt", "Clock", vm.AsOf)
	vm.RunningLate = views.CountItem{Key: "running_late", N: countText(c.RunningLate), Value: c.RunningLate, Zero: c.RunningLate == 0,
		URL: link("show", "all", "standing", string(schedule.StandingRunningLate)), Tone: "late",
		Label: loc.Code("standing", string(schedule.StandingRunningLate)), Explanation: loc.CodeExplain("standing", string(schedule.StandingRunningLate))}
	for _, reason := range schedule.Reasons() {
		n := c.Reasons[reason]
		// A person-level reason's rows need admin; stuck_in_state's may be only running late.
		show, tone := "needs_admin", "bad"
		if !reason.PersonLevel() {
			show, tone = "all", "late"
		}
		vm.Reasons = append(vm.Reasons, views.CountItem{
			Key: string(reason), Label: loc.Code("reason", string(reason)), Explanation: loc.CodeExplain("reason", string(reason)),
			N: countText(n), Zero: n == 0, URL: link("show", show, "reason", string(reason)), Tone: tone,
		})
	}
	for _, phase := range schedule.Phases() {
		n := c.Phases[phase]
		vm.Phases = append(vm.Phases, views.CountItem{
			Key: string(phase), Label: loc.Code("phase", string(phase)), Explanation: loc.CodeExplain("phase", string(phase)),
			N: phaseText(n), Zero: n == 0, URL: link("show", "all", "phase", string(phase)),
		})
	}
	if phaseCapped {
		vm.CapNote = loc.T("queue.phaseCountsCapped", "Cap", loc.Count(store.PhaseCountCap))
		vm.FreshnessNote += " " + vm.CapNote
	}
	if !scope.All() {
		vm.ScopeNote = loc.T("queue.scopeNote")
	}
	return vm, nil
}

func queueFilterVM(loc *i18n.Localizer, p queueParams, courses []store.Course, canClaim bool) views.QueueFilterVM {
	vm := views.QueueFilterVM{Action: "/", NeedsAdmin: p.needsAdmin, Search: p.search, ClearURL: "/?show=all",
		MoreOpen: len(p.standings)+len(p.states)+len(p.errorCodes) > 0 || p.claimed != store.ClaimedAnyone || p.sort != store.SortActivity}
	if canClaim {
		for _, o := range []struct {
			v     store.ClaimedFilter
			label string
		}{{store.ClaimedAnyone, loc.T("queue.claimed.anyone")}, {store.ClaimedMine, loc.T("queue.claimed.mine")}, {store.ClaimedNobody, loc.T("queue.claimed.nobody")}} {
			vm.Claimed = append(vm.Claimed, views.Option{Value: string(o.v), Label: o.label, Selected: p.claimed == o.v})
		}
		vm.Sorts = []views.Option{
			{Value: "activity", Label: loc.T("queue.sort.activity"), Selected: p.sort == store.SortActivity},
			{Value: string(store.SortWaiting), Label: loc.T("queue.sort.waiting"), Selected: p.sort == store.SortWaiting},
		}
	}
	for _, x := range schedule.Phases() {
		vm.Phases = append(vm.Phases, views.Option{Value: string(x), Label: loc.Code("phase", string(x)), Selected: slices.Contains(p.phases, x)})
	}
	for _, x := range schedule.Reasons() {
		vm.Reasons = append(vm.Reasons, views.Option{Value: string(x), Label: loc.Code("reason", string(x)), Selected: slices.Contains(p.reasons, x)})
	}
	for _, x := range schedule.Standings() {
		vm.Standings = append(vm.Standings, views.Option{Value: string(x), Label: loc.Code("standing", string(x)), Selected: slices.Contains(p.standings, x)})
	}
	for _, x := range schedule.States() {
		vm.States = append(vm.States, views.Option{Value: string(x), Label: loc.Code("state", string(x)), Selected: slices.Contains(p.states, x)})
	}
	for _, c := range courses {
		vm.Courses = append(vm.Courses, views.Option{Value: c.ID, Label: c.Name, Selected: slices.Contains(p.courses, c.ID)})
	}
	for _, x := range schedule.ErrorCodes() {
		vm.ErrorCodes = append(vm.ErrorCodes, views.Option{Value: string(x), Label: loc.Code("errorCode", string(x)), Selected: slices.Contains(p.errorCodes, x)})
	}
	// The one-day and lookup filters are flags: each chip removes its own.
	for _, c := range []struct {
		on          bool
		clear       func(*queueParams)
		name, value string
		label       string
	}{
		{p.notLookedUp, func(q *queueParams) { q.notLookedUp = false }, "lookup", lookupNone, "queue.chip.notLookedUp"},
		{p.escalatesSoon, func(q *queueParams) { q.escalatesSoon = false }, "escalates", escalatesDay, "queue.chip.escalatesDay"},
		{p.endedDay, func(q *queueParams) { q.endedDay = false }, "ended", escalatesDay, "queue.chip.endedDay"},
		{p.misregisteredDay, func(q *queueParams) { q.misregisteredDay = false }, "misregistered", escalatesDay, "queue.chip.misregisteredDay"},
	} {
		if !c.on {
			continue
		}
		without := p
		c.clear(&without)
		vm.Chips = append(vm.Chips, views.FilterChip{Name: c.name, Value: c.value, Label: loc.T(c.label), RemoveURL: "/?" + without.values().Encode()})
	}
	return vm
}

// instant is a Status instant as the formatters take it: nil for the zero time, Status's "never".
func instant(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
