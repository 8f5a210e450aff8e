package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"regdesk/handaction"
	"regdesk/partner/lms"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is the registration page's hand actions: the panel that shows every action with the
// rules' decision, and the POST that takes one. The rules live in schedule.Decide, and the action
// is asked of the LMS by handaction.Service; here a decision becomes words, and what came of the
// action (regdesk's check, or the LMS's answer) becomes what the person sees.

var errNoAction = errorKey(http.StatusNotFound, "act.noSuchAction")

// actionsVM draws the hand-action panel of the registration from its decisions at now. The forms
// carry the version and the lookup of the same read, so an action rests on what the page shows.
func actionsVM(loc *i18n.Localizer, page store.RegistrationPage, now time.Time) *views.ActionsVM {
	vm := &views.ActionsVM{Version: strconv.FormatInt(page.Version, 10), LookupID: page.LookupID()}
	for _, d := range page.Decisions {
		vm.Items = append(vm.Items, actionVM(loc, page.ID, d, now))
	}
	return vm
}

func actionVM(loc *i18n.Localizer, id string, d schedule.Decision, now time.Time) views.ActionVM {
	a := views.ActionVM{
		Name:    string(d.Action),
		Label:   loc.Code("action", string(d.Action)),
		Summary: loc.CodeExplain("action", string(d.Action)),
		URL:     "/registrations/" + id + "/actions/" + string(d.Action),
		Allowed: d.Allowed,
		Words:   decisionWords(loc, d, now),
		Danger:  d.Action == schedule.ActionResubmit || d.Action == schedule.ActionCancel,
	}
	if !d.Allowed && d.AvailableAt != nil {
		a.AvailableFrom = loc.At(*d.AvailableAt, now)
	}
	if d.Allowed && d.Risk.NeedsConfirmation() {
		a.Risk, a.RiskLabel, a.RiskWarning = string(d.Risk), loc.Code("risk", string(d.Risk)), loc.CodeExplain("risk", string(d.Risk))
	}
	return a
}

// decisionWords is the decision in the person's words: the sentence schedule names (Say), with
// its time in Helsinki as seen at now and the lookup call it names, if any.
func decisionWords(loc *i18n.Localizer, d schedule.Decision, now time.Time) string {
	key := "decision." + d.Say
	args := []any{}
	if d.SayCall != "" {
		args = append(args, "Call", loc.Code("call", string(d.SayCall)))
	}
	if d.AvailableAt != nil && loc.Has(key+".until") {
		return loc.T(key+".until", append(args, "At", loc.At(*d.AvailableAt, now))...)
	}
	if d.Say == "" || !loc.Has(key) {
		// A sentence this catalogue lacks: the refusal's own words, if any.
		if d.Refusal != "" {
			return loc.CodeExplain("refusal", string(d.Refusal))
		}
		return ""
	}
	return loc.T(key, args...)
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
		return badRequestKey("act.noVersion")
	}
	if v := r.PostForm.Get("confirm_risk"); v != "" {
		if err := checkRisks(i18n.From(ctx), "confirm_risk", []string{v}); err != nil {
			return err
		}
	}
	sent := sentAction{
		action:   action,
		version:  r.PostForm.Get("version"),
		lookupID: strings.TrimSpace(r.PostForm.Get("lookup_id")),
		reason:   r.PostForm.Get("reason"),
	}
	actor := actorFrom(ctx)
	now := s.clock()
	res, err := s.actions.Apply(ctx, now, store.ActionParams{
		RegistrationID: id, Action: action, Version: version, LookupID: sent.lookupID, Reason: sent.reason,
		ConfirmedRisk: schedule.RiskLabel(r.PostForm.Get("confirm_risk")),
		Actor:         actor.actionActor(),
		Scope:         s.courseScope(r),
	})
	if n, status, ok := lmsNotice(i18n.From(ctx), id, action, err); ok {
		return s.renderActionPanel(w, r, id, s.clock(), status, func(vm *views.ActionsVM) { vm.Notice = &n })
	}
	if errors.Is(err, handaction.ErrNoSuchAction) {
		return errNoAction
	}
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		field := ve.Field
		if field != "reason" {
			field = ""
		}
		return s.renderActionPanel(w, r, id, now, http.StatusUnprocessableEntity, sent.retry(field, validationWords(i18n.From(r.Context()), ve)))
	}
	if re, ok := errors.AsType[*store.RiskConfirmationError](err); ok {
		msg := i18n.T(r.Context(), "act.tickRisk", "Risk", i18n.From(r.Context()).Code("risk", string(re.Risk)))
		return s.renderActionPanel(w, r, id, now, http.StatusUnprocessableEntity, sent.retry("confirm_risk", msg))
	}
	if ae, ok := errors.AsType[*store.AlreadyAskedError](err); ok {
		loc := i18n.From(r.Context())
		n := views.ActionNoticeVM{Kind: "stale", Title: loc.T("act.stale.title"), ReloadURL: "/registrations/" + id,
			Message: loc.T("act.alreadyAsked", "Name", ae.ActorName, "At", loc.At(ae.At, now), "Action", loc.Code("action", string(ae.Action)))}
		return s.renderActionPanel(w, r, id, now, http.StatusConflict, func(vm *views.ActionsVM) { vm.Notice = &n })
	}
	if se, ok := errors.AsType[*store.StaleError](err); ok {
		n := staleNotice(i18n.From(r.Context()), se, now)
		return s.renderActionPanel(w, r, id, now, http.StatusConflict, func(vm *views.ActionsVM) { vm.Notice = &n })
	}
	if re, ok := errors.AsType[*store.RefusedError](err); ok {
		n := refusedNotice(i18n.From(r.Context()), re, now)
		return s.renderActionPanel(w, r, id, now, http.StatusConflict, func(vm *views.ActionsVM) { vm.Notice = &n })
	}
	if err != nil {
		return err
	}
	s.setFlash(r, actionDone(i18n.From(r.Context()), res))
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
		loc := i18n.From(r.Context())
		vm := actionsVM(loc, page, now)
		// The same order as the page drew, so the panel does not reshuffle under the person.
		_, recommended := decisionVM(loc, page, s.lookupVM(loc, page, now), true, now)
		orderActions(vm, recommended)
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
func staleNotice(loc *i18n.Localizer, e *store.StaleError, now time.Time) views.ActionNoticeVM {
	n := views.ActionNoticeVM{Kind: "stale", Title: loc.T("act.stale.title"),
		ReloadURL: "/registrations/" + e.RegistrationID}
	if e.SeenVersion == e.Version && e.SeenLookupID != e.LookupID {
		if lk := e.Lookup; lk == nil {
			n.Message = loc.T("act.stale.lookedUp")
		} else {
			n.Message = loc.T("act.stale.lookedUpBy", "Name", firstNonEmpty(lk.ActorName, loc.T("act.someone")),
				"At", loc.At(lk.At, now), "Verdict", loc.Code("verdict", string(lk.Badge())))
		}
		n.Detail = loc.T("act.stale.lookupDetail")
		return n
	}
	c := e.LastChange
	state := loc.Code("state", string(e.State))
	// A write the history does not record (a pipeline bookkeeping update) leaves the newest event
	// older than the row: naming that event's author would blame the wrong change. A minute of
	// slack absorbs the gap between the application's clock, which dates events, and the
	// database's, which dates the row.
	if c == nil || c.At.Before(e.UpdatedAt.Add(-time.Minute)) {
		n.Message = loc.T("act.stale.changed", "At", loc.At(e.UpdatedAt, now), "State", state)
		return n
	}
	name := firstNonEmpty(c.ActorName, loc.T("act.someone"))
	switch {
	case c.ToState != "" && c.ToState != c.FromState && c.ActorName == "":
		n.Message = loc.T("act.stale.pipelineMoved", "At", loc.At(c.At, now), "State", loc.Code("state", string(c.ToState)))
	case c.ToState != "" && c.ToState != c.FromState:
		n.Message = loc.T("act.stale.personMoved", "Name", name, "At", loc.At(c.At, now), "State", loc.Code("state", string(c.ToState)))
	case c.Action != "":
		// A hand action that left the state as it was: say which, since "changed" would send the
		// person looking for a change of state that is not there.
		n.Message = loc.T("act.stale.personAsked", "Name", name, "At", loc.At(c.At, now), "Action", loc.Code("action", string(c.Action)), "State", state)
	case c.ActorName != "" || c.Kind == "admin_action":
		n.Message = loc.T("act.stale.personChanged", "Name", name, "At", loc.At(c.At, now), "State", state)
	case c.Kind == "suotar_response":
		n.Message = loc.T("act.stale.pipelineAskedSuotar", "At", loc.At(c.At, now), "State", state)
	case c.Kind == "retry_scheduled":
		n.Message = loc.T("act.stale.pipelineRetry", "At", loc.At(c.At, now), "State", state)
	default:
		n.Message = loc.T("act.stale.pipelineChanged", "At", loc.At(c.At, now), "State", state)
	}
	if c.Kind == "admin_action" && c.Message != "" {
		n.Detail = loc.T("act.stale.reason", "Name", firstNonEmpty(c.ActorName, loc.T("act.someone")), "Reason", c.Message)
	}
	return n
}

// refusedNotice says why the rules refuse the action on the row as it is now.
func refusedNotice(loc *i18n.Localizer, e *store.RefusedError, now time.Time) views.ActionNoticeVM {
	d := e.Decision
	n := views.ActionNoticeVM{Kind: "refused", Title: loc.T("act.refused.title", "Action", loc.Code("action", string(d.Action))),
		Message: decisionWords(loc, d, now), ReloadURL: "/registrations/" + e.RegistrationID}
	if d.AvailableAt != nil {
		n.Detail = loc.T("act.availableFrom", "At", loc.At(*d.AvailableAt, now))
	}
	return n
}

// lmsNotice is what the person sees when a hand action was not taken for a reason outside
// regdesk's own rules: hand actions are off, the account names no LMS user, the LMS refused or
// turned it down, could not be asked, or never answered. ok is false for any other error.
func lmsNotice(loc *i18n.Localizer, id string, action schedule.Action, err error) (n views.ActionNoticeVM, status int, ok bool) {
	reload := "/registrations/" + id
	title := loc.T("act.refused.title", "Action", loc.Code("action", string(action)))
	switch {
	case errors.Is(err, handaction.ErrOff):
		return views.ActionNoticeVM{Kind: "refused", Title: title, Message: loc.T("act.off"), ReloadURL: reload},
			http.StatusServiceUnavailable, true
	case errors.Is(err, handaction.ErrNoLMSUser):
		return views.ActionNoticeVM{Kind: "refused", Title: title, Message: loc.T("act.noLMSUser"), ReloadURL: reload},
			http.StatusForbidden, true
	}
	if re, is := errors.AsType[*handaction.RefusedError](err); is {
		n := views.ActionNoticeVM{Kind: "refused", Title: title, ReloadURL: reload, Detail: loc.T("act.lms.differs")}
		if re.Err != nil {
			n.Message = loc.T("act.lms.turnedDown", "Message", re.Err.Message)
		} else {
			n.Message = loc.T("act.lms.refused", "Refusal", loc.Code("refusal", string(re.Refusal)),
				"Why", refusalWords(loc, schedule.RefusalCode(re.Refusal)))
		}
		return n, http.StatusConflict, true
	}
	if _, is := errors.AsType[*handaction.UnknownOutcomeError](err); is {
		return views.ActionNoticeVM{Kind: "stale", Title: loc.T("act.lms.unknown.title"), Message: loc.T("act.lms.unknown"), ReloadURL: reload},
			http.StatusBadGateway, true
	}
	if ue, is := errors.AsType[*handaction.UnreachableError](err); is {
		return views.ActionNoticeVM{Kind: "refused", Title: title, ReloadURL: reload,
			Message: loc.T("act.lms.unreachable", "Why", ue.Err.UserMessage())}, http.StatusServiceUnavailable, true
	}
	return views.ActionNoticeVM{}, 0, false
}

// actionDone is the flash after an action: what happened, in words.
func actionDone(loc *i18n.Localizer, res handaction.Result) string {
	if res.Outcome == lms.OutcomeNoChange {
		return loc.T("act.done.noChange")
	}
	switch res.Action {
	case schedule.ActionResubmit:
		return loc.T("act.done.resubmit")
	case schedule.ActionCancel:
		return loc.T("act.done.cancel")
	case schedule.ActionCheckNow:
		return loc.T("act.done.checkNow")
	case schedule.ActionClearFlag:
		return loc.T("act.done.clearFlag")
	case schedule.ActionDismissAttention:
		return loc.T("act.done.dismiss")
	}
	return loc.T("act.done.other", "State", string(res.After))
}
