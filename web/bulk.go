package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"regdesk/handaction"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is bulk hand actions: select rows on the queue (ticked, or every row matching the
// filter, up to store.BulkMaxRows), see a preview that groups them by what would happen, and apply
// to exactly the rows the preview said would be acted on, each only if unchanged since. The count,
// the list and the action share one scope: the preview turns a filter into ids once, and from then
// on only those ids travel.

// bulkActions are the actions offered in bulk, in the order the select lists them: every hand
// action.
func bulkActions() []schedule.Action { return schedule.Actions() }

// defaultBulkAction is preselected: it asks Sisu or ends a backoff, and never sends or writes off.
const defaultBulkAction = schedule.ActionCheckNow

func bulkActionOptions(loc *i18n.Localizer, selected schedule.Action) []views.Option {
	var out []views.Option
	for _, a := range bulkActions() {
		out = append(out, views.Option{Value: string(a), Label: loc.Code("action", string(a)), Selected: a == selected})
	}
	return out
}

// parseBulkAction reads the action of a bulk form; empty takes the default.
func parseBulkAction(loc *i18n.Localizer, v string) (schedule.Action, error) {
	if v == "" {
		return defaultBulkAction, nil
	}
	a, err := schedule.ParseAction(v)
	if err != nil || string(a) != v || !slices.Contains(bulkActions(), a) {
		var valid []string
		for _, a := range bulkActions() {
			valid = append(valid, loc.Code("action", string(a)))
		}
		return "", unknownValue("action", v, valid)
	}
	return a, nil
}

// checkRisks refuses a risk a form names that is none of schedule's: field is "risk" (the risks
// the preview showed) or "confirm_risk" (the ones ticked).
func checkRisks(loc *i18n.Localizer, field string, values []string) error {
	for _, v := range values {
		if !schedule.RiskLabel(v).Valid() {
			var valid []string
			for _, r := range schedule.RiskLabels() {
				valid = append(valid, loc.Code("risk", string(r)))
			}
			return unknownValue(field, v, valid)
		}
	}
	return nil
}

// bulkSelections are the values of the bulk bar's buttons: the ticked rows, or every match.
var bulkSelections = []string{"ticked", "all"}

// bulkBar is the queue's bulk selection for the view p, of which total rows match (counted by
// the list up to just past the bulk limit).
func (s *Server) bulkBar(r *http.Request, p queueParams, total int) *views.BulkBarVM {
	loc := i18n.From(r.Context())
	b := &views.BulkBarVM{URL: "/bulk/preview", Actions: bulkActionOptions(loc, defaultBulkAction), ClaimURL: "/bulk/claim"}
	for k, vals := range p.values() {
		for _, v := range vals {
			b.Filter = append(b.Filter, views.Hidden{Name: k, Value: v})
		}
	}
	slices.SortFunc(b.Filter, func(x, y views.Hidden) int { return strings.Compare(x.Name+"="+x.Value, y.Name+"="+y.Value) })
	if total > store.BulkMaxRows {
		b.TooMany = loc.T("bulk.tooMany", "Max", store.BulkMaxRows)
	} else {
		b.AllLabel = loc.T("bulk.selectAll", "Count", total, "Max", store.BulkMaxRows)
	}
	return b
}

// bulkPreview shows what a bulk action would do to each selected row, and changes nothing:
// POST /bulk/preview. The rows are the ticked ids, or with select=all every row matching the
// queue filter the form carries. Support and admins only (requireRole).
func (s *Server) bulkPreview(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	action, err := parseBulkAction(loc, r.PostForm.Get("action"))
	if err != nil {
		return err
	}
	if v := r.PostForm.Get("select"); v != "" && !slices.Contains(bulkSelections, v) {
		return unknownValue("select", v, bulkSelections)
	}
	now := s.clock()
	params := store.BulkPreviewParams{Action: action, Scope: s.courseScope(r)}
	queueURL := "/"
	all := r.PostForm.Get("select") == "all"
	if all {
		p, err := parseQueueParams(r.PostForm)
		if err != nil {
			return err
		}
		f := s.queueFilter(r, p, s.courseScope(r))
		params.Filter = &f
		queueURL = "/?" + p.values().Encode()
	} else {
		params.IDs = r.PostForm["id"]
	}
	preview, err := s.store.RegistrationBulkPreview(r.Context(), now, params)
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		vm := views.BulkPreviewVM{Page: s.page(r, loc.T("bulk.pageTitle")), Action: string(action), ActionLabel: loc.Code("action", string(action)),
			ActionExplanation: loc.CodeExplain("action", string(action)), QueueURL: queueURL, Message: validationWords(loc, ve)}
		return s.renderBulk(w, r, http.StatusUnprocessableEntity, views.BulkPreviewPage(vm))
	}
	if err != nil {
		return err
	}
	vm, err := s.bulkPreviewVM(r, preview, now)
	if err != nil {
		return err
	}
	vm.QueueURL = queueURL
	if n := len(preview.Rows) + len(preview.NotFound); all {
		vm.Selection = loc.T("bulk.selection.all", "At", loc.Clock(now), "Count", n)
	} else {
		vm.Selection = loc.T("bulk.selection.ticked", "Count", n)
	}
	return s.renderBulk(w, r, http.StatusOK, views.BulkPreviewPage(vm))
}

// renderBulk answers a bulk form with a page. A boosted post would put /bulk/… in the address
// bar, which a reload cannot show again, so htmx is told to leave the address alone.
func (s *Server) renderBulk(w http.ResponseWriter, r *http.Request, status int, page templ.Component) error {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Push-Url", "false")
	}
	return s.render(w, r, status, page, nil)
}

// bulkPreviewVM draws a preview: its groups with names, and the apply form for the rows that
// would be acted on.
func (s *Server) bulkPreviewVM(r *http.Request, preview store.BulkPreview, now time.Time) (views.BulkPreviewVM, error) {
	a := preview.Action
	loc := i18n.From(r.Context())
	label := loc.Code("action", string(a))
	vm := views.BulkPreviewVM{Page: s.page(r, loc.T("bulk.pageTitleAction", "Action", label)), Action: string(a), ActionLabel: label,
		ActionExplanation: loc.CodeExplain("action", string(a)), Actions: bulkActionOptions(loc, a), NotFound: preview.NotFound}
	ids := make([]string, 0, len(preview.Rows))
	for _, row := range preview.Rows {
		ids = append(ids, row.ID)
	}
	vm.IDs = append(slices.Clone(ids), preview.NotFound...)
	names, err := s.rowNames(r, ids)
	if err != nil {
		return views.BulkPreviewVM{}, err
	}
	apply := &views.BulkApplyVM{}
	for _, g := range preview.Groups {
		gv := views.BulkGroupVM{Allowed: g.Allowed, Count: len(g.Rows)}
		if g.Allowed {
			gv.Key = "apply"
			// Each combination is one sentence of the catalogue: the target state and the risk
			// are placeholders, never pieces joined on.
			moves := g.Target != "" && !slices.Contains([]schedule.Action{schedule.ActionCheckNow, schedule.ActionClearFlag, schedule.ActionDismissAttention}, a)
			risk := loc.Code("risk", string(g.Risk))
			switch n := len(g.Rows); {
			case moves && g.Risk.NeedsConfirmation():
				gv.Title = loc.T("bulk.group.applyToRisk", "Count", n, "State", string(g.Target), "Risk", risk)
			case moves:
				gv.Title = loc.T("bulk.group.applyTo", "Count", n, "State", string(g.Target))
			case g.Risk.NeedsConfirmation():
				gv.Title = loc.T("bulk.group.applyRisk", "Count", n, "Risk", risk)
			default:
				gv.Title = loc.T("bulk.group.apply", "Count", n)
			}
			gv.Words = decisionWords(loc, g.Rows[0].Decision, now)
			if g.Risk.NeedsConfirmation() {
				gv.Words += " " + loc.CodeExplain("risk", string(g.Risk))
				if !slices.ContainsFunc(apply.Risks, func(x views.RiskVM) bool { return x.Value == string(g.Risk) }) {
					apply.Risks = append(apply.Risks, views.RiskVM{Value: string(g.Risk), Label: risk, Warning: loc.CodeExplain("risk", string(g.Risk))})
				}
			}
		} else {
			gv.Key = string(g.Refusal)
			gv.Title = loc.T("bulk.group.skipped", "Refusal", refusalLabel(loc, g.Refusal), "Count", len(g.Rows))
			gv.Words = refusalWords(loc, g.Refusal)
		}
		for _, row := range g.Rows {
			rv := names.row(loc, row.ID)
			rv.State = stateVM(loc, string(row.State))
			if !g.Allowed {
				rv.Words = decisionWords(loc, row.Decision, now)
			} else {
				apply.Rows = append(apply.Rows, row.ID+":"+strconv.FormatInt(row.Version, 10)+":"+row.LookupID)
			}
			gv.Rows = append(gv.Rows, rv)
		}
		vm.Groups = append(vm.Groups, gv)
	}
	if apply.Count = len(apply.Rows); apply.Count > 0 {
		apply.Title = loc.T("bulk.applyTitle", "Count", apply.Count)
		apply.Button = loc.T("bulk.applyButton", "Action", label, "Count", apply.Count)
		vm.Apply = apply
	}
	return vm, nil
}

// rowLabels names rows for bulk pages.
type rowLabels map[string]store.RegistrationListRow

func (s *Server) rowNames(r *http.Request, ids []string) (rowLabels, error) {
	rows, err := s.store.RegistrationListByIDs(r.Context(), s.clock(), ids, s.courseScope(r))
	if err != nil {
		return nil, err
	}
	out := rowLabels{}
	for _, row := range rows {
		out[row.ID] = row
	}
	return out, nil
}

func (l rowLabels) row(loc *i18n.Localizer, id string) views.BulkRowVM {
	row, ok := l[id]
	if !ok {
		return views.BulkRowVM{ID: id, Student: id}
	}
	course := row.CourseName
	if row.ModuleName != "" {
		course += " · " + row.ModuleName
	}
	return views.BulkRowVM{ID: id, URL: "/registrations/" + id, Student: row.StudentName, Course: course, State: stateVM(loc, string(row.State))}
}

// bulkApply applies a bulk action to the rows the preview said would be acted on, each only if
// unchanged since the preview, and shows what happened to every one: POST /bulk/apply. A missing
// reason or an unconfirmed risk writes nothing and shows the preview again, drawn afresh.
// Support and admins only (requireRole).
func (s *Server) bulkApply(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	form := r.PostForm
	loc := i18n.From(r.Context())
	if form.Get("action") == "" {
		return badRequestKey("bulk.noAction")
	}
	action, err := parseBulkAction(loc, form.Get("action"))
	if err != nil {
		return err
	}
	if err := checkRisks(loc, "risk", form["risk"]); err != nil {
		return err
	}
	if err := checkRisks(loc, "confirm_risk", form["confirm_risk"]); err != nil {
		return err
	}
	var rows []store.BulkRow
	for _, v := range form["row"] {
		row, ok := parseBulkRow(v)
		if !ok {
			return badRequestKey("bulk.damagedRow")
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return badRequestKey("bulk.noRows")
	}
	reason := form.Get("reason")
	var confirmed []schedule.RiskLabel
	for _, v := range form["confirm_risk"] {
		confirmed = append(confirmed, schedule.RiskLabel(v))
	}
	now := s.clock()
	for _, v := range form["risk"] {
		if risk := schedule.RiskLabel(v); risk.NeedsConfirmation() && !slices.Contains(confirmed, risk) {
			return s.bulkApplyAgain(w, r, action, rows, reason, "confirm_risk",
				loc.T("bulk.tickRisk", "Risk", loc.Code("risk", string(risk))), now)
		}
	}
	actor := actorFrom(r.Context())
	p := store.BulkApplyParams{Action: action, Rows: rows, Reason: reason,
		ConfirmedRisks: confirmed, Actor: actor.actionActor(), Scope: s.courseScope(r)}
	if err := s.bulkCanAct(p); err != nil {
		return s.bulkApplyAgain(w, r, action, rows, reason, "", bulkLMSWords(loc, err), now)
	}
	if len(rows) > s.bulkInlineRows {
		// A long apply runs in the background and the person watches it move (bulk_jobs.go); its
		// mistakes are found first, while they still wait for this answer.
		if ve, ok := errors.AsType[*store.ValidationError](store.BulkApplyCheck(p)); ok {
			return s.bulkApplyAgain(w, r, action, rows, reason, ve.Field, loc.T("bulk.nothingApplied", "Problem", validationWords(loc, ve)), now)
		}
		return s.bulkApplyInBackground(w, r, p, now)
	}
	res, err := s.actions.ApplyBulk(r.Context(), now, p)
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		return s.bulkApplyAgain(w, r, action, rows, reason, ve.Field, loc.T("bulk.nothingApplied", "Problem", validationWords(loc, ve)), now)
	}
	if _, ok := errors.AsType[*handaction.UnreachableError](err); ok {
		return s.bulkApplyAgain(w, r, action, rows, reason, "", bulkLMSWords(loc, err), now)
	}
	if err != nil {
		return err
	}
	vm, err := s.bulkResultVM(r, action, reason, res, now)
	if err != nil {
		return err
	}
	return s.renderBulk(w, r, http.StatusOK, views.BulkResultPage(vm))
}

// bulkCanAct is why the bulk action cannot be asked of the LMS at all (hand actions are off, the
// account names no LMS user), before any row is judged; nil when it can.
func (s *Server) bulkCanAct(p store.BulkApplyParams) error {
	switch {
	case !s.actions.Enabled():
		return handaction.ErrOff
	case !handaction.Takes(p.Action):
		return handaction.ErrNoSuchAction
	case p.Actor.LMSUserID == "":
		return handaction.ErrNoLMSUser
	}
	return nil
}

// bulkLMSWords says why a bulk action was not asked of the LMS, or not taken by it.
func bulkLMSWords(loc *i18n.Localizer, err error) string {
	switch {
	case errors.Is(err, handaction.ErrOff):
		return loc.T("act.off")
	case errors.Is(err, handaction.ErrNoLMSUser):
		return loc.T("act.noLMSUser")
	}
	if ue, ok := errors.AsType[*handaction.UnreachableError](err); ok {
		return loc.T("act.lms.unreachable", "Why", ue.Err.UserMessage())
	}
	return loc.T("act.lms.unknown")
}

// parseBulkRow reads "id:version:lookup_id" (lookup_id may be empty).
func parseBulkRow(v string) (store.BulkRow, bool) {
	parts := strings.Split(v, ":")
	if len(parts) != 3 || !store.IsUUID(parts[0]) || (parts[2] != "" && !store.IsUUID(parts[2])) {
		return store.BulkRow{}, false
	}
	version, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return store.BulkRow{}, false
	}
	return store.BulkRow{ID: parts[0], Version: version, LookupID: parts[2]}, true
}

// bulkApplyAgain answers a bulk apply that had a mistake (422): nothing was written, and the
// preview of the same rows is drawn again, from the rows as they are now, with the message.
func (s *Server) bulkApplyAgain(w http.ResponseWriter, r *http.Request, action schedule.Action, rows []store.BulkRow, reason, field, msg string, now time.Time) error {
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
	}
	preview, err := s.store.RegistrationBulkPreview(r.Context(), now, store.BulkPreviewParams{Action: action, IDs: ids, Scope: s.courseScope(r)})
	if err != nil {
		return err
	}
	vm, err := s.bulkPreviewVM(r, preview, now)
	if err != nil {
		return err
	}
	vm.QueueURL = "/"
	loc := i18n.From(r.Context())
	vm.Selection = loc.T("bulk.selection.again", "Count", len(ids), "At", loc.Clock(now))
	if vm.Apply != nil {
		vm.Apply.Reason, vm.Apply.Error, vm.Apply.ErrorField = reason, msg, field
	} else {
		vm.Message = msg
	}
	return s.renderBulk(w, r, http.StatusUnprocessableEntity, views.BulkPreviewPage(vm))
}

// bulkOutcomes are the result's outcomes in the order the counts show them; their words are
// the catalogue's bulk.outcome.<outcome>.
var bulkOutcomes = []store.BulkOutcome{store.BulkApplied, store.BulkRefusedByLMS, store.BulkUnknown, store.BulkSkipped, store.BulkChanged,
	store.BulkRiskNotConfirmed, store.BulkNotFound}

// refusalLabel is a refusal's short name in the language; a code the catalogue lacks shows as
// itself.
func refusalLabel(loc *i18n.Localizer, c schedule.RefusalCode) string {
	return loc.Code("refusal", string(c))
}

// refusalWords is a refusal in one line, without times.
func refusalWords(loc *i18n.Localizer, c schedule.RefusalCode) string {
	if k := "decision.refusal." + string(c); loc.Has(k) {
		return loc.T(k)
	}
	return string(c)
}

func (s *Server) bulkResultVM(r *http.Request, action schedule.Action, reason string, res store.BulkResult, now time.Time) (views.BulkResultVM, error) {
	loc := i18n.From(r.Context())
	label := loc.Code("action", string(action))
	vm := views.BulkResultVM{Page: s.page(r, loc.T("bulk.pageTitleDone", "Action", label)), ActionLabel: label,
		Reason: strings.TrimSpace(reason), QueueURL: "/", AuditURL: "/audit?actor=" + url.QueryEscape(actorFrom(r.Context()).ID) + "#audit-" + res.AuditID}
	ids := make([]string, len(res.Rows))
	counts := map[store.BulkOutcome]int{}
	for i, row := range res.Rows {
		ids[i] = row.ID
		counts[row.Outcome]++
	}
	names, err := s.rowNames(r, ids)
	if err != nil {
		return views.BulkResultVM{}, err
	}
	for _, o := range bulkOutcomes {
		n := counts[o]
		vm.Counts = append(vm.Counts, views.CountItem{Key: string(o), Label: loc.Code("bulk.outcome", string(o)), N: loc.Count(int64(n)), Zero: n == 0})
	}
	for _, row := range res.Rows {
		rv := names.row(loc, row.ID)
		rv.Outcome, rv.OutcomeLabel = string(row.Outcome), loc.Code("bulk.outcome", string(row.Outcome))
		rv.Before, rv.After = stateVM(loc, string(row.Before)), stateVM(loc, string(row.After))
		switch row.Outcome {
		case store.BulkApplied:
			rv.Words = decisionWords(loc, row.Decision, now)
		case store.BulkSkipped:
			rv.OutcomeLabel = loc.T("bulk.outcome.skippedBecause", "Refusal", refusalLabel(loc, row.Decision.Refusal))
			rv.Words = decisionWords(loc, row.Decision, now)
		case store.BulkChanged:
			rv.Words = loc.T("bulk.words.changed")
		case store.BulkRiskNotConfirmed:
			risk := string(row.Decision.Risk)
			rv.Words = loc.T("bulk.words.risk", "Risk", loc.Code("risk", risk), "Warning", loc.CodeExplain("risk", risk))
		case store.BulkNotFound:
			rv.URL, rv.Words = "", loc.T("bulk.words.notFound")
		case store.BulkRefusedByLMS:
			rv.Words = loc.T("bulk.words.refusedByLMS")
		case store.BulkUnknown:
			rv.Words = loc.T("bulk.words.unknown")
		}
		vm.Rows = append(vm.Rows, rv)
	}
	return vm, nil
}
