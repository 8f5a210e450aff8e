package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"

	"regdesk/handaction"
	"regdesk/partner/lms"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is /system: how the LMS's pipeline stands (each phase's row of
// credit_registration_phase_state, the course modules an admin paused), read from the LMS's own
// tables, and the pipeline's controls: pause, resume and run a phase now, pause and resume a
// module's registrations, and make the retryable rows waiting out a backoff due now. Support reads
// it; admins also act, each control a call to the LMS's admin endpoints as the person
// (handaction.Service.ControlApply), so the LMS's own audit names them.

// The control names of the routes' {control}, and the forms'.
const (
	ctlPause        = "pause"
	ctlResume       = "resume"
	ctlRunNow       = "run-now"
	ctlPauseModule  = "pause-module"
	ctlResumeModule = "resume-module"
	ctlRequeue      = "requeue"
)

// systemEdit changes the page's view model before it is drawn: a notice, a form reopened.
type systemEdit func(*views.SystemVM)

// systemShow is the System page: GET /system. Support and admins.
func (s *Server) systemShow(w http.ResponseWriter, r *http.Request) error {
	vm, err := s.systemVM(r, s.clock(), nil)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, views.SystemPage(vm), nil)
}

// systemVM reads the pipeline as it stands at now and draws the page for the person asking.
func (s *Server) systemVM(r *http.Request, now time.Time, edit systemEdit) (views.SystemVM, error) {
	ctx := r.Context()
	loc := i18n.From(ctx)
	status, err := s.store.PipelineStatusGet(ctx, now)
	if err != nil {
		return views.SystemVM{}, err
	}
	a := actorFrom(ctx)
	controls, why := s.systemControls(loc, a)
	vm := views.SystemVM{Page: s.page(r, loc.T("system.title"))}
	vm.Phases.NoControls, vm.Modules.NoControls = why, why
	for _, p := range status.Phases {
		vm.Phases.Phases = append(vm.Phases.Phases, phaseVM(loc, p, a.LMSUserID, now, controls))
	}
	var choices []views.Option
	for _, m := range status.Modules {
		label := loc.T("system.moduleLabel", "Course", m.CourseName, "Module", moduleLabel(loc, m.ModuleName))
		if !m.Paused() {
			if m.CourseCode != "" {
				label = loc.T("system.moduleChoice", "Module", label, "Code", m.CourseCode)
			}
			choices = append(choices, views.Option{Value: m.ModuleID, Label: label})
			continue
		}
		pm := views.PausedModuleVM{ModuleID: m.ModuleID, Label: label, CourseURL: "/courses/" + m.CourseID, Code: m.CourseCode,
			PausedBy: pausedBy(loc, m.PausedByUserID, m.PausedByName, a.LMSUserID), PausedAt: loc.When(m.PausedAt, now),
			Reason: m.PauseReason, Held: loc.T("system.modules.held", "Count", m.Unfinished)}
		if controls {
			pm.Resume = &views.ControlFormVM{Name: ctlResumeModule, Label: loc.T("system.control.resumeModule"),
				Explain: loc.T("system.control.resumeModule.explain"), URL: "/system/modules/" + ctlResume,
				Target: views.IDSystemModules, Module: m.ModuleID}
		}
		vm.Modules.Paused = append(vm.Modules.Paused, pm)
	}
	if controls && len(choices) > 0 {
		vm.Modules.Pause = &views.ControlFormVM{Name: ctlPauseModule, Label: loc.T("system.control.pauseModule"),
			Explain: loc.T("system.control.pauseModule.explain"), URL: "/system/modules/" + ctlPause, Target: views.IDSystemModules,
			Danger: true, ChoiceName: "module", ChoiceLabel: loc.T("system.col.module"),
			Choices: append([]views.Option{{Value: "", Label: loc.T("system.modules.choose")}}, choices...)}
	}
	vm.Requeue.Waiting = loc.T("system.requeue.waiting", "Count", status.Requeueable)
	if controls {
		vm.Requeue.Form = &views.ControlFormVM{Name: ctlRequeue, Label: loc.T("system.control.requeue"),
			Explain: loc.T("system.control.requeue.explain"), URL: "/system/requeue", Target: views.IDSystemRequeue,
			ChoiceName: "scope", ChoiceLabel: loc.T("system.requeue.scope"), Choices: requeueScopes(loc, status)}
	}
	if edit != nil {
		edit(&vm)
	}
	return vm, nil
}

// systemControls says whether a may use the controls and, when an admin may not, why: hand
// actions are off, or their account names no LMS user. Support reads the page without controls.
func (s *Server) systemControls(loc *i18n.Localizer, a *Actor) (bool, string) {
	switch {
	case a.Role != RoleAdmin:
		return false, loc.T("system.readOnly")
	case !s.actions.Enabled():
		return false, loc.T("act.off")
	case a.LMSUserID == "":
		return false, loc.T("act.noLMSUser")
	}
	return true, ""
}

// phaseVM draws one phase as seen at now by the person whose LMS user is viewer.
func phaseVM(loc *i18n.Localizer, p store.PhaseState, viewer string, now time.Time, controls bool) views.PhaseVM {
	vm := views.PhaseVM{Name: p.Phase, Label: loc.Code("lmsPhase", p.Phase), Process: p.ProcessName, Interval: loc.Span(p.ExpectedInterval),
		Heartbeat: loc.When(p.LastHeartbeatAt, now), LastRun: loc.When(p.LastRunFinishedAt, now),
		LastSuccess: loc.When(p.LastSuccessAt, now), NextRun: loc.When(p.NextRunAt, now)}
	switch {
	case p.Paused():
		vm.Status = "paused"
		vm.PausedBy, vm.PausedAt, vm.PauseReason = pausedBy(loc, p.PausedByUserID, p.PausedByName, viewer), loc.When(p.PausedAt, now), p.PauseReason
	case p.Late(now):
		vm.Status = "late"
	case p.LastHeartbeatAt == nil:
		vm.Status = "never_ran"
	default:
		vm.Status = "running"
	}
	vm.StatusLabel = loc.T(phaseStatusKeys[vm.Status])
	if p.ItemsProcessedLastRun != nil {
		vm.LastItems = loc.T("system.items", "Count", int64(*p.ItemsProcessedLastRun), "Failed", int64(store.Deref(p.ItemsFailedLastRun)))
	}
	if p.ConsecutiveFailures > 0 {
		vm.Failing = loc.T("system.failing", "Count", int64(p.ConsecutiveFailures), "Error", p.LastError)
	}
	if !controls {
		return vm
	}
	url := "/system/phases/" + p.Phase + "/"
	if p.Paused() {
		vm.Forms = append(vm.Forms, views.ControlFormVM{Name: ctlResume, Label: loc.T("system.control.resume"),
			Explain: loc.T("system.control.resume.explain"), URL: url + ctlResume, Target: views.IDSystemPhases})
	} else {
		vm.Forms = append(vm.Forms,
			views.ControlFormVM{Name: ctlPause, Label: loc.T("system.control.pause"), Explain: loc.T("system.control.pause.explain"),
				URL: url + ctlPause, Target: views.IDSystemPhases, Danger: true},
			views.ControlFormVM{Name: ctlRunNow, Label: loc.T("system.control.runNow"), Explain: loc.T("system.control.runNow.explain"),
				URL: url + ctlRunNow, Target: views.IDSystemPhases})
	}
	return vm
}

// phaseStatusKeys are the catalogue keys of a phase's status.
var phaseStatusKeys = map[string]string{
	"running": "system.status.running", "paused": "system.status.paused", "late": "system.status.late",
	"never_ran": "system.status.never_ran",
}

// controlDoneKeys are the catalogue keys of what a control did; the requeue's counts its rows.
var controlDoneKeys = map[handaction.Control]string{
	handaction.ControlPausePhase:   "system.done.pause_phase",
	handaction.ControlResumePhase:  "system.done.resume_phase",
	handaction.ControlRunPhaseNow:  "system.done.run_phase_now",
	handaction.ControlPauseModule:  "system.done.pause_course_module",
	handaction.ControlResumeModule: "system.done.resume_course_module",
	handaction.ControlRequeue:      "system.done.requeue",
}

// pausedBy names who paused something: "you" when it was the viewer's own LMS user, their name as
// the LMS has it, or their LMS user id when the LMS knows no name.
func pausedBy(loc *i18n.Localizer, userID, name, viewer string) string {
	switch {
	case userID != "" && userID == viewer:
		return loc.T("system.you")
	case name != "":
		return name
	case userID != "":
		return userID
	}
	return loc.T("system.someone")
}

// requeueScopes are the requeue's choices: every course, each course, each module.
func requeueScopes(loc *i18n.Localizer, status store.PipelineStatus) []views.Option {
	out := []views.Option{{Value: "", Label: loc.T("system.requeue.everyCourse")}}
	seen := map[string]bool{}
	for _, m := range status.Modules {
		if !seen[m.CourseID] {
			seen[m.CourseID] = true
			out = append(out, views.Option{Value: "course:" + m.CourseID, Label: loc.T("system.requeue.course", "Course", m.CourseName)})
		}
		out = append(out, views.Option{Value: "module:" + m.ModuleID,
			Label: loc.T("system.moduleLabel", "Course", m.CourseName, "Module", moduleLabel(loc, m.ModuleName))})
	}
	return out
}

// systemPhaseControl pauses, resumes or runs a phase now:
// POST /system/phases/{phase}/{control}. Admins only.
func (s *Server) systemPhaseControl(w http.ResponseWriter, r *http.Request) error {
	var c handaction.Control
	switch r.PathValue("control") {
	case ctlPause:
		c = handaction.ControlPausePhase
	case ctlResume:
		c = handaction.ControlResumePhase
	case ctlRunNow:
		c = handaction.ControlRunPhaseNow
	default:
		return errNotFound
	}
	phase := r.PathValue("phase")
	if !schedule.PipelinePhaseKnown(phase) {
		return errNotFound
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	return s.systemControl(w, r, views.IDSystemPhases, r.PathValue("control"), handaction.ControlParams{Control: c, Phase: phase})
}

// systemModuleControl pauses or resumes a course module's registrations:
// POST /system/modules/{control}, the module in the form. Admins only.
func (s *Server) systemModuleControl(w http.ResponseWriter, r *http.Request) error {
	var c handaction.Control
	var name string
	switch r.PathValue("control") {
	case ctlPause:
		c, name = handaction.ControlPauseModule, ctlPauseModule
	case ctlResume:
		c, name = handaction.ControlResumeModule, ctlResumeModule
	default:
		return errNotFound
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	return s.systemControl(w, r, views.IDSystemModules, name, handaction.ControlParams{Control: c, ModuleID: strings.TrimSpace(r.PostForm.Get("module"))})
}

// systemRequeue makes the retryable rows waiting out a backoff due now, in every course, one
// course or one module: POST /system/requeue. Admins only.
func (s *Server) systemRequeue(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	p := handaction.ControlParams{Control: handaction.ControlRequeue}
	scope := strings.TrimSpace(r.PostForm.Get("scope"))
	if scope != "" {
		status, err := s.store.PipelineStatusGet(r.Context(), s.clock())
		if err != nil {
			return err
		}
		kind, id, _ := strings.Cut(scope, ":")
		m, isModule := status.Module(id)
		switch {
		case kind == "module" && isModule:
			p.Scope = lms.RequeueScope{CourseID: m.CourseID, CourseModuleID: m.ModuleID}
		case kind == "course" && store.IsUUID(id):
			p.Scope = lms.RequeueScope{CourseID: id}
		default:
			// Not a choice the page offers: the control refuses it with the words for its field.
			p.Scope = lms.RequeueScope{CourseID: "-"}
		}
	}
	return s.systemControl(w, r, views.IDSystemRequeue, ctlRequeue, p)
}

// systemControl asks the LMS for the control as the person and answers: on an htmx post the
// control's section, with what came of it; on a plain post the page again after a mistake or a
// refusal, and after success a flash and /system.
func (s *Server) systemControl(w http.ResponseWriter, r *http.Request, section, form string, p handaction.ControlParams) error {
	ctx := r.Context()
	loc := i18n.From(ctx)
	p.Reason = r.PostForm.Get("reason")
	p.Actor = actorFrom(ctx).actionActor()
	res, err := s.actions.ControlApply(ctx, p)
	status, notice, fieldMsg := http.StatusOK, controlNotice(loc, p, res, err), ""
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		status, notice, fieldMsg = http.StatusUnprocessableEntity, nil, validationWords(loc, ve)
	} else if err != nil {
		status = controlStatus(err)
		if notice == nil {
			return err
		}
	}
	if err == nil && !wantsFragment(r) {
		s.setFlash(r, notice.Message)
		redirect(w, r, "/system")
		return nil
	}
	vm, verr := s.systemVM(r, s.clock(), func(vm *views.SystemVM) {
		switch section {
		case views.IDSystemPhases:
			vm.Phases.Notice = notice
		case views.IDSystemModules:
			vm.Modules.Notice = notice
		default:
			vm.Requeue.Notice = notice
		}
		if fieldMsg != "" {
			reopen(vm, form, p, r.PostForm.Get("reason"), fieldMsg)
		}
	})
	if verr != nil {
		return verr
	}
	var part templ.Component
	switch section {
	case views.IDSystemPhases:
		part = views.SystemPhases(vm.Phases)
	case views.IDSystemModules:
		part = views.SystemModules(vm.Modules)
	default:
		part = views.SystemRequeue(vm.Requeue)
	}
	return s.render(w, r, status, views.SystemPage(vm), part)
}

// reopen unfolds the form the person sent, with what they typed and the message at its reason.
func reopen(vm *views.SystemVM, form string, p handaction.ControlParams, reason, msg string) {
	mark := func(f *views.ControlFormVM) {
		f.Open, f.Reason, f.Error = true, reason, msg
	}
	switch {
	case p.Control.OnPhase():
		for i := range vm.Phases.Phases {
			ph := &vm.Phases.Phases[i]
			for j := range ph.Forms {
				if ph.Name == p.Phase && ph.Forms[j].Name == form {
					mark(&ph.Forms[j])
					return
				}
			}
		}
		vm.Phases.Notice = &views.SystemNoticeVM{Kind: "refused", Message: msg}
	case p.Control == handaction.ControlResumeModule:
		for i := range vm.Modules.Paused {
			if f := vm.Modules.Paused[i].Resume; f != nil && vm.Modules.Paused[i].ModuleID == p.ModuleID {
				mark(f)
				return
			}
		}
		vm.Modules.Notice = &views.SystemNoticeVM{Kind: "refused", Message: msg}
	case p.Control == handaction.ControlPauseModule:
		if f := vm.Modules.Pause; f != nil {
			mark(f)
			for i := range f.Choices {
				f.Choices[i].Selected = f.Choices[i].Value == p.ModuleID
			}
			return
		}
		vm.Modules.Notice = &views.SystemNoticeVM{Kind: "refused", Message: msg}
	default:
		if f := vm.Requeue.Form; f != nil {
			mark(f)
			return
		}
		vm.Requeue.Notice = &views.SystemNoticeVM{Kind: "refused", Message: msg}
	}
}

// controlNotice is what came of a control in the person's words: done, refused, or unknown (the
// LMS's answer never came). nil for an error it has no words for.
func controlNotice(loc *i18n.Localizer, p handaction.ControlParams, res handaction.ControlResult, err error) *views.SystemNoticeVM {
	refused := func(msg string) *views.SystemNoticeVM { return &views.SystemNoticeVM{Kind: "refused", Message: msg} }
	switch {
	case err == nil:
		var msg string
		switch key := controlDoneKeys[p.Control]; {
		case p.Control == handaction.ControlRequeue:
			msg = loc.T(key, "Count", res.Requeued)
		case p.Control.OnModule():
			msg = loc.T(key)
		default:
			msg = loc.T(key, "Phase", loc.Code("lmsPhase", p.Phase))
		}
		return &views.SystemNoticeVM{Kind: "done", Message: msg}
	case errors.Is(err, handaction.ErrOff):
		return refused(loc.T("act.off"))
	case errors.Is(err, handaction.ErrNoLMSUser):
		return refused(loc.T("act.noLMSUser"))
	}
	if ce, ok := errors.AsType[*handaction.ControlError](err); ok {
		switch le := ce.Err; {
		case le.OutcomeUnknown():
			return &views.SystemNoticeVM{Kind: "unknown", Message: loc.T("system.unknown")}
		case le.Kind == lms.KindRejected || le.Kind == lms.KindNotFound:
			if le.Message != "" {
				return refused(loc.T("act.lms.turnedDown", "Message", le.Message))
			}
			return refused(loc.T("act.lms.unreachable", "Why", le.UserMessage()))
		default:
			return refused(loc.T("act.lms.unreachable", "Why", le.UserMessage()))
		}
	}
	return nil
}

// controlStatus is the status of a control that was not taken.
func controlStatus(err error) int {
	switch {
	case errors.Is(err, handaction.ErrOff):
		return http.StatusServiceUnavailable
	case errors.Is(err, handaction.ErrNoLMSUser):
		return http.StatusForbidden
	}
	if ce, ok := errors.AsType[*handaction.ControlError](err); ok {
		switch ce.Err.Kind {
		case lms.KindUnknownOutcome:
			return http.StatusBadGateway
		case lms.KindRejected, lms.KindNotFound:
			return http.StatusConflict
		}
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
