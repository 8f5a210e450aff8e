package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// auditPageSize is how many entries one audit page shows.
const auditPageSize = 50

// auditOwnActions are the audited changes that are not hand actions on a row, by the audit's own
// action name, with their labels; auditOwnActionOrder is the filter's order of them.
var (
	auditOwnActions = map[string]string{
		"claim":                "audit.claim",
		"release":              "audit.release",
		"pause_phase":          "lmsAction.pause_phase",
		"resume_phase":         "lmsAction.resume_phase",
		"run_phase_now":        "lmsAction.run_phase_now",
		"pause_course_module":  "lmsAction.pause_course_module",
		"resume_course_module": "lmsAction.resume_course_module",
		"requeue_batch":        "lmsAction.requeue_batch",
	}
	auditOwnActionOrder = []string{"claim", "release", "pause_phase", "resume_phase", "run_phase_now", "pause_course_module",
		"resume_course_module", "requeue_batch"}
)

// auditParams is the audit page's state, as the URL carries it.
type auditParams struct {
	actor, action, course, registration string
	// from and to are Helsinki days, "2006-01-02"; "" for none.
	from, to string
	after    *store.AuditCursor
}

func parseAuditParams(q url.Values) (auditParams, error) {
	p := auditParams{actor: q.Get("actor"), action: q.Get("action"), course: q.Get("course"), registration: q.Get("registration"),
		from: q.Get("from"), to: q.Get("to")}
	for key, v := range map[string]string{"audit.bad.person": p.actor, "audit.bad.course": p.course, "audit.bad.registration": p.registration} {
		if v != "" && !store.IsUUID(v) {
			return p, badRequestKey(key, "Value", v)
		}
	}
	if _, ok := auditOwnActions[p.action]; ok {
		// Claims are audited under the audit's own action names.
	} else if p.action == store.AuditActionAccounts {
		// Every change to an account.
	} else if change, ok := strings.CutPrefix(p.action, store.AuditActionAccountPrefix); ok {
		if _, known := changeNames[change]; !known {
			return p, badRequestKey("audit.bad.action", "Value", p.action)
		}
	} else if schedule.AdminAction(p.action).Valid() {
		// One of the LMS's own actions, as its audit names it (transition_item, unlink_student_number…).
	} else if p.action != "" {
		a, err := schedule.ParseAction(p.action)
		if err != nil {
			return p, badRequestKey("audit.bad.action", "Value", p.action)
		}
		p.action = string(a)
	}
	for _, d := range []string{p.from, p.to} {
		if d == "" {
			continue
		}
		if _, err := time.ParseInLocation(time.DateOnly, d, schedule.Helsinki()); err != nil {
			return p, badRequestKey("audit.bad.date", "Value", d)
		}
	}
	if p.from != "" && p.to != "" && p.to < p.from {
		return p, badRequestKey("audit.bad.period")
	}
	if a := q.Get("after"); a != "" {
		c, err := parseCursor(a)
		if err != nil {
			return p, badRequestKey("audit.bad.cursor")
		}
		p.after = &store.AuditCursor{CreatedAt: c.UpdatedAt, ID: c.ID}
	}
	return p, nil
}

// filter turns the URL's Helsinki days into the half-open instants the store takes.
func (p auditParams) filter() store.AuditFilter {
	f := store.AuditFilter{ActorID: p.actor, Action: p.action, CourseID: p.course, RegistrationID: p.registration}
	if p.from != "" {
		t, _ := time.ParseInLocation(time.DateOnly, p.from, schedule.Helsinki())
		f.From = &t
	}
	if p.to != "" {
		t, _ := time.ParseInLocation(time.DateOnly, p.to, schedule.Helsinki())
		t = t.AddDate(0, 0, 1)
		f.To = &t
	}
	return f
}

// values renders p back into a query string, without the cursor.
func (p auditParams) values() url.Values {
	v := url.Values{}
	for k, x := range map[string]string{"actor": p.actor, "action": p.action, "course": p.course, "registration": p.registration,
		"from": p.from, "to": p.to} {
		if x != "" {
			v.Set(k, x)
		}
	}
	return v
}

// auditList is the audit of hand actions, newest first, filtered by person, action, course,
// registration and period: GET /audit. It only reads. Support and admins only (requireRole).
func (s *Server) auditList(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r)
	if err != nil {
		return err
	}
	p, err := parseAuditParams(q)
	if err != nil {
		return err
	}
	ctx := r.Context()
	entries, next, err := s.store.AuditList(ctx, p.filter(), p.after, auditPageSize)
	if err != nil {
		return err
	}
	now := s.clock()
	loc := i18n.From(ctx)
	base := p.values()
	results := views.AuditResultsVM{Export: s.exportLinks("/audit", base.Encode()), IsFirst: p.after == nil, FirstURL: "/audit?" + base.Encode(), Empty: loc.T("audit.empty.filtered")}
	if len(base) == 0 {
		results.Empty = loc.T("audit.empty.none")
	}
	if next != nil {
		nv := p.values()
		nv.Set("after", formatCursor(store.RegistrationCursor{UpdatedAt: next.CreatedAt, ID: next.ID}))
		results.NextURL = "/audit?" + nv.Encode()
	}
	for _, e := range entries {
		results.Rows = append(results.Rows, auditRowVM(loc, e, now))
	}
	if wantsFragment(r) {
		return s.render(w, r, http.StatusOK, nil, views.AuditResults(results))
	}
	accounts, err := s.store.AccountList(ctx)
	if err != nil {
		return err
	}
	courses, err := s.store.CourseList(ctx, store.AllCourses())
	if err != nil {
		return err
	}
	f := views.AuditFilterVM{From: p.from, To: p.to, ClearURL: "/audit"}
	for _, a := range accounts {
		if a.Role == store.AccountRoleTeacher {
			continue // teachers cannot act, so they are never in the audit
		}
		f.Actors = append(f.Actors, views.Option{Value: a.ID, Label: loc.T("audit.actorOption", "Name", a.Name, "Role", named(loc, roleNames, a.Role)), Selected: a.ID == p.actor})
	}
	slices.SortStableFunc(f.Actors, func(x, y views.Option) int {
		return strings.Compare(strings.ToLower(x.Label), strings.ToLower(y.Label))
	})
	for _, a := range schedule.Actions() {
		f.Actions = append(f.Actions, views.Option{Value: string(a), Label: loc.Code("action", string(a)), Selected: string(a) == p.action})
	}
	for _, a := range auditOwnActionOrder {
		f.Actions = append(f.Actions, views.Option{Value: a, Label: i18n.T(ctx, auditOwnActions[a]), Selected: a == p.action})
	}
	// The LMS's own actions that regdesk does not take itself, as the LMS's admin UI records them.
	for _, a := range schedule.AdminActions() {
		if _, own := auditOwnActions[string(a)]; own || schedule.Action(a).Valid() {
			continue
		}
		f.Actions = append(f.Actions, views.Option{Value: string(a), Label: loc.T("audit.lmsActionOption", "Action", loc.Code("lmsAction", string(a))),
			Selected: string(a) == p.action})
	}
	// Changes to accounts: all of them, then each kind.
	f.Actions = append(f.Actions, views.Option{Value: store.AuditActionAccounts, Label: loc.T("audit.accountChanges"),
		Selected: p.action == store.AuditActionAccounts})
	for _, c := range accountChangeOrder {
		v := store.AuditActionAccountPrefix + c
		f.Actions = append(f.Actions, views.Option{Value: v, Label: loc.T("audit.accountChange", "Change", loc.T(changeNames[c])), Selected: p.action == v})
	}
	for _, c := range courses {
		f.Courses = append(f.Courses, views.Option{Value: c.ID, Label: c.Name, Selected: c.ID == p.course})
	}
	if p.registration != "" {
		f.Registration = p.registration
		f.RegistrationURL = "/registrations/" + p.registration
		without := p.values()
		without.Del("registration")
		f.ClearRegistrationURL = "/audit?" + without.Encode()
	}
	vm := views.AuditVM{Page: s.page(r, loc.T("audit.pageTitle")), Filter: f, Results: results}
	return s.render(w, r, http.StatusOK, views.AuditPage(vm), views.AuditResults(results))
}

func auditRowVM(loc *i18n.Localizer, e store.AuditEntry, now time.Time) views.AuditRowVM {
	vm := views.AuditRowVM{ID: e.ID, DOMID: "audit-" + e.ID, When: loc.When(&e.CreatedAt, now), Who: firstNonEmpty(e.ActorName, "—"),
		Role: auditRole(loc, e.ActorRole), Action: e.Action, ActionKey: e.Action, Reason: e.Reason,
		Before: stateVM(loc, store.Deref(e.BeforeState)), After: stateVM(loc, store.Deref(e.AfterState))}
	if a := schedule.Action(e.HandAction); a.Valid() && e.TargetKind != store.AuditTargetAccount {
		vm.Action, vm.ActionKey = loc.Code("action", string(a)), string(a)
	} else if key, ok := auditOwnActions[e.Action]; ok {
		vm.Action, vm.ActionKey = loc.T(key), e.Action
	} else if schedule.AdminAction(e.Action).Valid() {
		vm.Action = loc.Code("lmsAction", e.Action)
	}
	if e.Source == store.AuditSourceLMS {
		// The LMS's own row: its action's code beside the words, as the LMS's admin UI names it.
		vm.ActionCode = e.Action
	}
	if e.TargetKind == store.AuditTargetAccount {
		return auditAccountRowVM(loc, e, vm)
	}
	d := store.ReadAuditDetails(e.Details)
	if words := claimReasonWords(loc, store.ReadClaimReason(e.Reason, d.Claim), d.Claim); words != "" {
		vm.Reason = words
	}
	if d.Rows != nil {
		b := &views.AuditBulkVM{}
		for _, row := range d.Rows {
			br := views.AuditBulkRowVM{Label: row.ID, Outcome: loc.Code("bulk.outcome", string(row.Outcome))}
			if store.IsUUID(row.ID) {
				br.URL = "/registrations/" + row.ID
			}
			if row.Refusal != "" {
				br.Outcome = loc.T("bulk.outcome.skippedBecause", "Refusal", refusalLabel(loc, row.Refusal))
			}
			b.Rows = append(b.Rows, br)
		}
		b.Summary = loc.T("audit.bulkSummary", "Affected", e.Affected, "Count", len(d.Rows))
		vm.Bulk = b
		vm.TargetLabel = loc.T("audit.registrations", "Count", len(d.Rows))
		return vm
	}
	if e.TargetID != nil && e.TargetKind == "credit_registration" {
		vm.TargetURL = "/registrations/" + *e.TargetID
		vm.TargetLabel = firstNonEmpty(e.TargetLabel, *e.TargetID)
	} else if e.TargetKind == "phase" {
		// A pipeline control's phase, on the System page, named in words.
		vm.TargetURL, vm.TargetLabel = "/system", loc.Code("lmsPhase", e.TargetLabel)
	} else if e.TargetKind == "course_module" {
		vm.TargetURL, vm.TargetLabel = "/system", firstNonEmpty(e.TargetLabel, loc.Code("lmsTarget", e.TargetKind))
	} else if e.TargetLabel == "" {
		// Another of the LMS's targets (a course, a student-number link…): what kind of thing it is.
		vm.TargetLabel = loc.Code("lmsTarget", e.TargetKind)
	}
	if d.Decision != nil && d.Decision.Risk.NeedsConfirmation() {
		vm.Notes = append(vm.Notes, actionNote(loc, d.Decision.Risk, nil))
	}
	if d.Lookup != nil && d.Lookup.Verdict != "" {
		verdict := loc.Code("verdict", string(d.Lookup.Verdict))
		if d.Lookup.Match.ID != "" {
			vm.Notes = append(vm.Notes, loc.T("audit.restedOnMatch", "Verdict", verdict, "ID", d.Lookup.Match.ID))
		} else {
			vm.Notes = append(vm.Notes, loc.T("audit.restedOn", "Verdict", verdict))
		}
	}
	if d.Decision != nil && e.HandAction == string(schedule.ActionDismissAttention) && len(d.Decision.Reasons) > 0 {
		vm.Notes = append(vm.Notes, actionNote(loc, "", d.Decision.Reasons))
	}
	return vm
}

// auditRole names the role an audit entry's actor acted in: one of regdesk's, or the LMS's
// (global_admin, course_teacher) on the LMS's own rows.
func auditRole(loc *i18n.Localizer, role string) string {
	if slices.Contains(schedule.AdminRoles(), role) {
		return loc.T("lmsRole." + role)
	}
	return named(loc, roleNames, role)
}

// accountChangeOrder is the audit filter's order of the changes to an account.
var accountChangeOrder = []string{store.AccountChangeCreated, store.AccountChangeRoleChanged, store.AccountChangeCoursesChanged,
	store.AccountChangeDisabled, store.AccountChangeEnabled, store.AccountChangePasswordLinkIssued, store.AccountChangePasswordSet,
	store.AccountChangeAPITokenCreated, store.AccountChangeAPITokenRevoked}

// auditAccountRowVM draws a change to an account as the audit lists it: the change in the reader's
// language, regdesk's own reasons too (as the accounts page words them), the command line named as
// such, and the account as the target, linked to its page (which only admins may open).
func auditAccountRowVM(loc *i18n.Localizer, e store.AuditEntry, vm views.AuditRowVM) views.AuditRowVM {
	change := strings.TrimPrefix(e.Action, store.AuditActionAccountPrefix)
	vm.Action = loc.T("audit.accountChange", "Change", named(loc, changeNames, change))
	c := store.AccountChange{ID: e.ID, CreatedAt: e.CreatedAt, Change: change, Reason: e.Reason, Details: e.Details}
	if e.ActorID != "" {
		c.ActorID = &e.ActorID
	} else {
		vm.Who, vm.Role = loc.T("accounts.commandLine"), ""
	}
	vm.Reason = accountChangeReason(loc, c)
	if e.TargetID != nil {
		c.AccountID = *e.TargetID
		vm.TargetURL = "/admin/accounts/" + *e.TargetID
		vm.TargetLabel = firstNonEmpty(e.TargetLabel, *e.TargetID)
	}
	return vm
}

// claimReasonWords says a claim's or release's reason that regdesk worded itself (its code, see
// store.ReadClaimReason) in the reader's language; "" for a reason a person typed.
func claimReasonWords(loc *i18n.Localizer, code string, c *store.AuditClaim) string {
	switch code {
	case store.ClaimReasonClaimed:
		return loc.T("audit.claimReason.claimed")
	case store.ClaimReasonReleased:
		return loc.T("audit.claimReason.released")
	case store.ClaimReasonLookup:
		return loc.T("audit.claimReason.lookup")
	case store.ClaimReasonEnded:
		return loc.T("audit.claimReason.ended_by_action", "Action", loc.Code("action", c.EndedBy))
	}
	return ""
}
