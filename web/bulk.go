package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

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

// bulkActions are the actions offered in bulk, in the order the select lists them. Marking as
// already in Sisu is left out: it is for uncertain rows only, and bulk actions always skip those.
func bulkActions() []schedule.Action {
	return slices.DeleteFunc(schedule.Actions(), func(a schedule.Action) bool { return a == schedule.ActionMarkInSisu })
}

// defaultBulkAction is preselected: it asks Sisu or ends a backoff, and never sends or writes off.
const defaultBulkAction = schedule.ActionCheckNow

func bulkActionOptions(selected schedule.Action) []views.Option {
	var out []views.Option
	for _, a := range bulkActions() {
		out = append(out, views.Option{Value: string(a), Label: a.Label(), Selected: a == selected})
	}
	return out
}

// parseBulkAction reads the action of a bulk form; empty takes the default.
func parseBulkAction(v string) (schedule.Action, error) {
	if v == "" {
		return defaultBulkAction, nil
	}
	a, err := schedule.ParseAction(v)
	if err != nil || !slices.Contains(bulkActions(), a) {
		return "", badRequest(fmt.Sprintf("%q is not an action that can be taken in bulk.", v))
	}
	return a, nil
}

// bulkBar is the queue's bulk selection for the view p. Counting every match is needed only when
// the list has more than one page; it stops just past the bulk limit.
func (s *Server) bulkBar(r *http.Request, p queueParams, shown int, paged bool, now time.Time, scope []string) (*views.BulkBarVM, error) {
	b := &views.BulkBarVM{URL: "/bulk/preview", Actions: bulkActionOptions(defaultBulkAction), ClaimURL: "/bulk/claim"}
	for k, vals := range p.values() {
		for _, v := range vals {
			b.Filter = append(b.Filter, views.Hidden{Name: k, Value: v})
		}
	}
	slices.SortFunc(b.Filter, func(x, y views.Hidden) int { return strings.Compare(x.Name+"="+x.Value, y.Name+"="+y.Value) })
	n := shown
	if paged {
		var err error
		if n, err = s.store.RegistrationCountCapped(r.Context(), now, s.queueFilter(r, p, scope), store.BulkMaxRows+1); err != nil {
			return nil, err
		}
	}
	if n > store.BulkMaxRows {
		b.TooMany = fmt.Sprintf("More than %d rows match: narrow the filter to act on all of them at once.", store.BulkMaxRows)
	} else {
		b.AllLabel = fmt.Sprintf("Select all %d matching this filter (up to %d)", n, store.BulkMaxRows)
	}
	return b, nil
}

// bulkPreview shows what a bulk action would do to each selected row, and changes nothing:
// POST /bulk/preview. The rows are the ticked ids, or with select=all every row matching the
// queue filter the form carries. Support and admins only (requireRole).
func (s *Server) bulkPreview(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	action, err := parseBulkAction(r.PostForm.Get("action"))
	if err != nil {
		return err
	}
	now := s.clock()
	params := store.BulkPreviewParams{Action: action, Scope: s.courseScope(r)}
	queueURL := "/"
	var selection string
	if r.PostForm.Get("select") == "all" {
		p, err := parseQueueParams(r.PostForm)
		if err != nil {
			return err
		}
		f := s.queueFilter(r, p, s.courseScope(r))
		params.Filter = &f
		queueURL = "/?" + p.values().Encode()
		selection = "Every row matching the queue's filter at " + views.Clock(now) + ": %d rows."
	} else {
		params.IDs = r.PostForm["id"]
		selection = "The rows you ticked: %d."
	}
	preview, err := s.store.RegistrationBulkPreview(r.Context(), now, params)
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		vm := views.BulkPreviewVM{Page: s.page(r, "Bulk action"), Action: string(action), ActionLabel: action.Label(),
			ActionExplanation: action.Explanation(), QueueURL: queueURL, Message: ve.Message}
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
	vm.Selection = fmt.Sprintf(selection, len(preview.Rows)+len(preview.NotFound))
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
	vm := views.BulkPreviewVM{Page: s.page(r, "Bulk action: "+a.Label()), Action: string(a), ActionLabel: a.Label(),
		ActionExplanation: a.Explanation(), Actions: bulkActionOptions(a), NotFound: preview.NotFound}
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
			gv.Title = "Would apply: " + views.Counted(int64(len(g.Rows)), "row", "rows")
			if g.Target != "" && !slices.Contains([]schedule.Action{schedule.ActionCheckNow, schedule.ActionClearFlag, schedule.ActionDismissAttention}, a) {
				gv.Title += " → " + string(g.Target)
			}
			gv.Words = g.Rows[0].Decision.Explanation
			if g.Risk.NeedsConfirmation() {
				gv.Title += " · risk: " + g.Risk.Label()
				gv.Words += " " + g.Risk.Explanation()
				if !slices.ContainsFunc(apply.Risks, func(x views.RiskVM) bool { return x.Value == string(g.Risk) }) {
					apply.Risks = append(apply.Risks, views.RiskVM{Value: string(g.Risk), Label: g.Risk.Label(), Warning: g.Risk.Explanation()})
				}
			}
		} else {
			gv.Key = string(g.Refusal)
			gv.Title = fmt.Sprintf("Skipped: %s (%s)", g.Refusal.Label(), views.Counted(int64(len(g.Rows)), "row", "rows"))
			gv.Words = g.Refusal.Explanation()
		}
		for _, row := range g.Rows {
			rv := names.row(row.ID)
			rv.State = string(row.State)
			if !g.Allowed {
				rv.Words = decisionWords(i18n.For(i18n.EN), row.Decision, now)
			} else {
				apply.Rows = append(apply.Rows, row.ID+":"+strconv.FormatInt(row.Version, 10)+":"+row.LookupID)
			}
			gv.Rows = append(gv.Rows, rv)
		}
		vm.Groups = append(vm.Groups, gv)
	}
	if apply.Count = len(apply.Rows); apply.Count > 0 {
		rows := views.Counted(int64(apply.Count), "row", "rows")
		apply.Title = "Apply to these " + rows
		apply.Button = a.Label() + ": " + rows
		vm.Apply = apply
	}
	return vm, nil
}

// rowLabels names rows for bulk pages.
type rowLabels map[string]store.RegistrationListRow

func (s *Server) rowNames(r *http.Request, ids []string) (rowLabels, error) {
	rows, err := s.store.RegistrationListByIDs(r.Context(), ids, s.courseScope(r))
	if err != nil {
		return nil, err
	}
	out := rowLabels{}
	for _, row := range rows {
		out[row.ID] = row
	}
	return out, nil
}

func (l rowLabels) row(id string) views.BulkRowVM {
	row, ok := l[id]
	if !ok {
		return views.BulkRowVM{ID: id, Student: id}
	}
	course := row.CourseName
	if row.ModuleName != "" {
		course += " · " + row.ModuleName
	}
	return views.BulkRowVM{ID: id, URL: "/registrations/" + id, Student: row.StudentName, Course: course, State: string(row.State)}
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
	action, err := parseBulkAction(form.Get("action"))
	if err != nil || form.Get("action") == "" {
		return badRequest("The form does not say which action to apply. Go back to the queue and preview it again.")
	}
	var rows []store.BulkRow
	for _, v := range form["row"] {
		row, ok := parseBulkRow(v)
		if !ok {
			return badRequest("The form is damaged: a row it carries cannot be read. Go back to the queue and preview it again.")
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return badRequest("The form carries no rows to act on. Go back to the queue and preview it again.")
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
				"Tick the box to confirm you accept the risk ("+risk.Label()+"); nothing was applied.", now)
		}
	}
	actor := actorFrom(r.Context())
	res, err := s.store.RegistrationBulkApply(r.Context(), now, store.BulkApplyParams{Action: action, Rows: rows, Reason: reason,
		ConfirmedRisks: confirmed, Actor: store.ActionActor{ID: actor.ID, Role: string(actor.Role)}, Scope: s.courseScope(r)})
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		return s.bulkApplyAgain(w, r, action, rows, reason, ve.Field, ve.Message+" Nothing was applied.", now)
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
	vm.Selection = fmt.Sprintf("The %d rows of your preview, drawn again at %s: check them before applying.", len(ids), views.Clock(now))
	if vm.Apply != nil {
		vm.Apply.Reason, vm.Apply.Error, vm.Apply.ErrorField = reason, msg, field
	} else {
		vm.Message = msg
	}
	return s.renderBulk(w, r, http.StatusUnprocessableEntity, views.BulkPreviewPage(vm))
}

// bulkOutcomes are the result's outcomes in the order the counts show them, with their words.
var bulkOutcomes = []struct {
	outcome store.BulkOutcome
	label   string
}{
	{store.BulkApplied, "Applied"},
	{store.BulkSkipped, "Skipped"},
	{store.BulkChanged, "Changed since the preview: left alone"},
	{store.BulkRiskNotConfirmed, "Risk not confirmed: left alone"},
	{store.BulkNotFound, "Not found"},
}

func outcomeLabel(o store.BulkOutcome) string {
	for _, x := range bulkOutcomes {
		if x.outcome == o {
			return x.label
		}
	}
	return string(o)
}

func (s *Server) bulkResultVM(r *http.Request, action schedule.Action, reason string, res store.BulkResult, now time.Time) (views.BulkResultVM, error) {
	vm := views.BulkResultVM{Page: s.page(r, "Bulk action done: "+action.Label()), ActionLabel: action.Label(),
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
	for _, x := range bulkOutcomes {
		n := counts[x.outcome]
		vm.Counts = append(vm.Counts, views.CountItem{Key: string(x.outcome), Label: x.label, N: strconv.Itoa(n), Zero: n == 0})
	}
	for _, row := range res.Rows {
		rv := names.row(row.ID)
		rv.Outcome, rv.OutcomeLabel = string(row.Outcome), outcomeLabel(row.Outcome)
		rv.Before, rv.After = string(row.Before), string(row.After)
		switch row.Outcome {
		case store.BulkApplied:
			rv.Words = row.Decision.Explanation
		case store.BulkSkipped:
			rv.OutcomeLabel += ": " + row.Decision.Refusal.Label()
			rv.Words = decisionWords(i18n.For(i18n.EN), row.Decision, now)
		case store.BulkChanged:
			rv.Words = "Someone or the pipeline changed this row after the preview; preview it again to act on it."
		case store.BulkRiskNotConfirmed:
			rv.Words = row.Decision.Risk.Label() + ": " + row.Decision.Risk.Explanation()
		case store.BulkNotFound:
			rv.URL, rv.Words = "", "No registration you may act on has this id."
		}
		vm.Rows = append(vm.Rows, rv)
	}
	return vm, nil
}
