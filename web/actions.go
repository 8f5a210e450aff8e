package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
)

// This file is the registration page's hand actions: the panel that shows every action with the
// rules' decision, and the POST that applies one. The rules live in schedule.Decide and the safe
// write in store.RegistrationActionApply; here a decision becomes words and a store error becomes
// what the person sees.

var errNoAction = &Error{Status: http.StatusNotFound, Message: "There is no such action. Go back to the registration and pick one there."}

// actionsVM draws the hand-action panel of the registration from its decisions at now. The forms
// carry the version and the lookup of the same read, so an action rests on what the page shows.
func actionsVM(page store.RegistrationPage, now time.Time) *views.ActionsVM {
	vm := &views.ActionsVM{Version: strconv.FormatInt(page.Version, 10), LookupID: page.LookupID()}
	for _, d := range page.Decisions {
		vm.Items = append(vm.Items, actionVM(page.ID, d, now))
	}
	return vm
}

func actionVM(id string, d schedule.Decision, now time.Time) views.ActionVM {
	a := views.ActionVM{
		Name:    string(d.Action),
		Label:   d.Action.Label(),
		Summary: d.Action.Explanation(),
		URL:     "/registrations/" + id + "/actions/" + string(d.Action),
		Allowed: d.Allowed,
		Words:   decisionWords(d, now),
		Danger:  d.Action == schedule.ActionResubmit || d.Action == schedule.ActionCancel,
	}
	if !d.Allowed && d.AvailableAt != nil {
		a.AvailableFrom = views.At(*d.AvailableAt, now)
	}
	if d.Allowed && d.Risk.NeedsConfirmation() {
		a.Risk, a.RiskLabel, a.RiskWarning = string(d.Risk), d.Risk.Label(), d.Risk.Explanation()
	}
	return a
}

// decisionWords is the decision in words, with its time in Helsinki as seen at now.
func decisionWords(d schedule.Decision, now time.Time) string {
	return d.Words(func(t time.Time) string { return views.At(t, now) })
}

// registrationActionApply applies one hand action to one registration:
// POST /registrations/{id}/actions/{action}. The form carries the version and the lookup the page
// showed, a reason, and for a risky action the risk ticked by name. A mistake (422), a row changed
// meanwhile or an action the rules refuse now (409) writes nothing and says so in the panel; a
// success leaves a flash and goes back to the page. Support and admins only (requireRole).
func (s *Server) registrationActionApply(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	action, err := schedule.ParseAction(r.PathValue("action"))
	if err != nil || string(action) != r.PathValue("action") {
		return errNoAction
	}
	ctx := r.Context()
	if err := parseForm(w, r); err != nil {
		return err
	}
	version, err := strconv.ParseInt(r.PostForm.Get("version"), 10, 64)
	if err != nil {
		return badRequest("The form is damaged or out of date: it does not say which version of the registration you saw. Reload the page and try again.")
	}
	sent := sentAction{
		action:   action,
		version:  r.PostForm.Get("version"),
		lookupID: strings.TrimSpace(r.PostForm.Get("lookup_id")),
		reason:   r.PostForm.Get("reason"),
	}
	actor := actorFrom(ctx)
	now := s.clock()
	res, err := s.store.RegistrationActionApply(ctx, now, store.ActionParams{
		RegistrationID: id, Action: action, Version: version, LookupID: sent.lookupID, Reason: sent.reason,
		ConfirmedRisk: schedule.RiskLabel(r.PostForm.Get("confirm_risk")),
		Actor:         store.ActionActor{ID: actor.ID, Role: string(actor.Role)},
		Scope:         s.courseScope(r),
	})
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		field := ve.Field
		if field != "reason" {
			field = ""
		}
		return s.renderActionPanel(w, r, id, now, http.StatusUnprocessableEntity, sent.retry(field, ve.Message))
	}
	if re, ok := errors.AsType[*store.RiskConfirmationError](err); ok {
		msg := "Tick the box to confirm you accept the risk (" + re.Risk.Label() + "); nothing was done."
		return s.renderActionPanel(w, r, id, now, http.StatusUnprocessableEntity, sent.retry("confirm_risk", msg))
	}
	if se, ok := errors.AsType[*store.StaleError](err); ok {
		n := staleNotice(se, now)
		return s.renderActionPanel(w, r, id, now, http.StatusConflict, func(vm *views.ActionsVM) { vm.Notice = &n })
	}
	if re, ok := errors.AsType[*store.RefusedError](err); ok {
		n := refusedNotice(re, now)
		return s.renderActionPanel(w, r, id, now, http.StatusConflict, func(vm *views.ActionsVM) { vm.Notice = &n })
	}
	if err != nil {
		return err
	}
	s.setFlash(r, actionDone(res))
	redirect(w, r, "/registrations/"+id)
	return nil
}

// sentAction is what a person's action form sent, kept to show the form again after a mistake.
type sentAction struct {
	action                    schedule.Action
	version, lookupID, reason string
}

// retry shows the form again, unfolded, with what was typed and the message at field ("" for a
// message about the form as a whole). The form keeps the version and lookup the person saw, so a
// row that changed meanwhile is still caught on the next try.
func (a sentAction) retry(field, msg string) func(*views.ActionsVM) {
	return func(vm *views.ActionsVM) {
		vm.Version, vm.LookupID = a.version, a.lookupID
		for i := range vm.Items {
			it := &vm.Items[i]
			if it.Name != string(a.action) {
				continue
			}
			if !it.Allowed {
				// The rules refuse it now: no form to show the message in, so the panel says it.
				vm.Message = msg
				return
			}
			it.Open, it.Reason, it.Error, it.ErrorField = true, a.reason, msg, field
			return
		}
		vm.Message = msg
	}
}

// renderActionPanel answers an action that changed nothing: the panel alone for htmx, which swaps
// it in place, or the whole page around it for a plain form post.
func (s *Server) renderActionPanel(w http.ResponseWriter, r *http.Request, id string, now time.Time, status int, edit func(*views.ActionsVM)) error {
	if wantsFragment(r) {
		page, err := s.store.RegistrationPageGet(r.Context(), now, id, s.courseScope(r))
		if err != nil {
			return err
		}
		vm := actionsVM(page, now)
		edit(vm)
		return s.render(w, r, status, nil, views.RegistrationActions(*vm, false))
	}
	page, err := s.registrationVM(r, id, now)
	if err != nil {
		return err
	}
	if page.Actions != nil {
		edit(page.Actions)
	}
	return s.render(w, r, status, views.RegistrationPage(page), nil)
}

// staleNotice says who changed the row since the person's page was drawn, when and to what.
func staleNotice(e *store.StaleError, now time.Time) views.ActionNoticeVM {
	n := views.ActionNoticeVM{Kind: "stale", Title: "This registration changed while you were looking at it.",
		ReloadURL: "/registrations/" + e.RegistrationID}
	if e.SeenVersion == e.Version && e.SeenLookupID != e.LookupID {
		if lk := e.Lookup; lk == nil {
			n.Message = "It was looked up in Sisu again since your page was drawn. Nothing was saved."
		} else {
			n.Message = fmt.Sprintf("%s looked it up in Sisu again at %s (%s). Nothing was saved.",
				firstNonEmpty(lk.ActorName, "Someone"), views.At(lk.At, now), lk.Verdict.Label())
		}
		n.Detail = "Your action rested on the lookup your page showed. Reload and read the new one before acting."
		return n
	}
	c := e.LastChange
	// A write the history does not record (a pipeline bookkeeping update) leaves the newest event
	// older than the row: naming that event's author would blame the wrong change. A minute of
	// slack absorbs the gap between the application's clock, which dates events, and the
	// database's, which dates the row.
	if c == nil || c.At.Before(e.UpdatedAt.Add(-time.Minute)) {
		n.Message = fmt.Sprintf("It changed at %s (it is now %s). Nothing was saved.", views.At(e.UpdatedAt, now), e.State)
		return n
	}
	who := firstNonEmpty(c.ActorName, "The pipeline")
	what := "it is now " + string(e.State)
	if c.ToState != "" && c.ToState != c.FromState {
		what = "to " + string(c.ToState)
	}
	n.Message = fmt.Sprintf("%s changed this registration at %s (%s). Nothing was saved.", who, views.At(c.At, now), what)
	if c.Kind == "admin_action" && c.Message != "" {
		n.Detail = who + "’s reason: “" + c.Message + "”"
	}
	return n
}

// refusedNotice says why the rules refuse the action on the row as it is now.
func refusedNotice(e *store.RefusedError, now time.Time) views.ActionNoticeVM {
	d := e.Decision
	n := views.ActionNoticeVM{Kind: "refused", Title: d.Action.Label() + " is not possible now. Nothing was saved.",
		Message: decisionWords(d, now), ReloadURL: "/registrations/" + e.RegistrationID}
	if d.AvailableAt != nil {
		n.Detail = "Available from " + views.At(*d.AvailableAt, now) + "."
	}
	return n
}

// actionDone is the flash after an action: what happened, in words.
func actionDone(res store.ActionResult) string {
	switch res.Decision.Action {
	case schedule.ActionMarkInSisu, schedule.ActionMarkRegistered:
		switch res.After {
		case schedule.StateRegistered:
			return "Marked as registered in Sisu."
		case schedule.StateDuplicate:
			return "Marked as already in Sisu."
		case schedule.StatePartiallyRegistered:
			return "Marked as partly registered in Sisu; the pipeline keeps checking for the course credit."
		}
	case schedule.ActionResubmit:
		return "Sent back to the pipeline, which will submit it to Sisu again."
	case schedule.ActionCancel:
		return "Cancelled: the pipeline will not touch this registration again."
	case schedule.ActionCheckNow:
		return "The pipeline will check this registration at once."
	case schedule.ActionClearFlag:
		return "The attention flag is cleared."
	case schedule.ActionDismissAttention:
		return "Attention dismissed until a different reason applies."
	}
	return "Done: the registration is now " + string(res.After) + "."
}
