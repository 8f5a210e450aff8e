package handaction

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"regdesk/partner/lms"
	"regdesk/schedule"
	"regdesk/store"
)

// This file is the pipeline's controls, for the System page: pausing, resuming and running a
// phase at once, pausing and resuming a course module's registrations, and making every retryable
// row waiting out a backoff due now. Each is one call to the LMS's admin endpoints as the person,
// so the LMS writes its own row and its audit row naming them; regdesk keeps no copy. Unlike a
// hand action on a row, none of them needs a guard against a second click: pausing what is paused
// or resuming what runs leaves it as it was, and a second requeue finds what the first left.

// Control is one of the pipeline's controls.
type Control string

// The controls, named as the LMS's audit names them where it has a name.
const (
	ControlPausePhase   Control = "pause_phase"
	ControlResumePhase  Control = "resume_phase"
	ControlRunPhaseNow  Control = "run_phase_now"
	ControlPauseModule  Control = "pause_course_module"
	ControlResumeModule Control = "resume_course_module"
	ControlRequeue      Control = "requeue_batch"
)

// Controls lists every control.
func Controls() []Control {
	return []Control{ControlPausePhase, ControlResumePhase, ControlRunPhaseNow, ControlPauseModule, ControlResumeModule, ControlRequeue}
}

// ParseControl reads a control's name; false for anything else.
func ParseControl(s string) (Control, bool) {
	for _, c := range Controls() {
		if string(c) == s {
			return c, true
		}
	}
	return "", false
}

// OnPhase reports whether the control acts on one phase.
func (c Control) OnPhase() bool {
	return c == ControlPausePhase || c == ControlResumePhase || c == ControlRunPhaseNow
}

// OnModule reports whether the control acts on one course module.
func (c Control) OnModule() bool { return c == ControlPauseModule || c == ControlResumeModule }

// ControlParams is one person's use of a control.
type ControlParams struct {
	Control Control
	// Phase names the phase of a phase control (a canonical name, schedule.PipelinePhases).
	Phase string
	// ModuleID names the course module of a module control.
	ModuleID string
	// Scope narrows a requeue; its zero value is every course.
	Scope lms.RequeueScope
	// Reason is required for every control, although the LMS takes resume's and run-now's as
	// optional: the LMS's audit and regdesk's pages say why, whoever acted.
	Reason string
	Actor  store.ActionActor
}

// ControlResult is what the LMS answered.
type ControlResult struct {
	Control Control
	// Phase is the phase's status after a phase control.
	Phase lms.PhaseStatus
	// Requeued counts the rows a requeue made due.
	Requeued int64
}

// ControlError reports that the LMS did not take the control, or may not have: Err says which
// (Err.OutcomeUnknown when its answer never came).
type ControlError struct {
	Control Control
	Err     *lms.Error
}

func (e *ControlError) Error() string {
	return fmt.Sprintf("%s: %v", e.Control, e.Err)
}

func (e *ControlError) Unwrap() error { return e.Err }

// validControl checks what the person sent, before anything is asked.
func validControl(p ControlParams) (ControlParams, error) {
	if _, ok := ParseControl(string(p.Control)); !ok {
		return p, &store.ValidationError{Field: "control", Message: fmt.Sprintf("%q is not a control of the pipeline", string(p.Control)),
			Key: "invalid.control", Args: []any{"Control", string(p.Control)}}
	}
	if p.Control.OnPhase() && !schedule.PipelinePhaseKnown(p.Phase) {
		return p, &store.ValidationError{Field: "phase", Message: fmt.Sprintf("%q is not one of the LMS's phases", p.Phase),
			Key: "invalid.phase", Args: []any{"Phase", p.Phase}}
	}
	if p.Control.OnModule() && !store.IsUUID(p.ModuleID) {
		return p, &store.ValidationError{Field: "module", Message: "Choose a course module.", Key: "invalid.module"}
	}
	if p.Control == ControlRequeue && (p.Scope.CourseID != "" && !store.IsUUID(p.Scope.CourseID) ||
		p.Scope.CourseModuleID != "" && !store.IsUUID(p.Scope.CourseModuleID)) {
		return p, &store.ValidationError{Field: "scope", Message: "Choose every course, a course or a course module.", Key: "invalid.scope"}
	}
	p.Reason = strings.TrimSpace(p.Reason)
	if p.Reason == "" {
		return p, &store.ValidationError{Field: "reason", Message: "Give a reason: it is recorded with the action.", Key: "invalid.actionReason"}
	}
	if n := utf8.RuneCountInString(p.Reason); n > store.ActionReasonMaxLength {
		return p, &store.ValidationError{Field: "reason", Message: fmt.Sprintf("The reason is %d characters long; keep it under %d.", n, store.ActionReasonMaxLength),
			Key: "invalid.actionReasonLong", Args: []any{"Count", n, "Max", store.ActionReasonMaxLength}}
	}
	return p, nil
}

// ControlApply uses one of the pipeline's controls as the person. Before anything is asked it
// returns a *store.ValidationError, ErrOff or ErrNoLMSUser; after, a *ControlError when the LMS
// did not take it or its answer never came.
func (s *Service) ControlApply(ctx context.Context, p ControlParams) (ControlResult, error) {
	p, err := validControl(p)
	if err != nil {
		return ControlResult{}, err
	}
	if !s.Enabled() {
		return ControlResult{}, ErrOff
	}
	if p.Actor.LMSUserID == "" {
		return ControlResult{}, ErrNoLMSUser
	}
	user := p.Actor.LMSUserID
	res := ControlResult{Control: p.Control}
	switch p.Control {
	case ControlPausePhase:
		res.Phase, err = s.LMS.PausePhase(ctx, user, p.Phase, p.Reason)
	case ControlResumePhase:
		res.Phase, err = s.LMS.ResumePhase(ctx, user, p.Phase, p.Reason)
	case ControlRunPhaseNow:
		res.Phase, err = s.LMS.RunPhaseNow(ctx, user, p.Phase, p.Reason)
	case ControlPauseModule:
		err = s.LMS.PauseModule(ctx, user, p.ModuleID, p.Reason)
	case ControlResumeModule:
		err = s.LMS.ResumeModule(ctx, user, p.ModuleID, p.Reason)
	case ControlRequeue:
		var rq lms.RequeueResult
		rq, err = s.LMS.RequeueRetryable(ctx, user, p.Scope, p.Reason)
		res.Requeued = rq.RequeuedCount
	}
	if err != nil {
		le, ok := errors.AsType[*lms.Error](err)
		if !ok {
			le = &lms.Error{Kind: lms.KindUnknownOutcome, Detail: "no answer", Err: err}
		}
		if le.OutcomeUnknown() {
			s.log().Error("a pipeline control's outcome is unknown", "control", p.Control, "phase", p.Phase, "module", p.ModuleID, "err", le.Error())
		} else {
			s.log().Warn("the LMS did not take a pipeline control", "control", p.Control, "phase", p.Phase, "module", p.ModuleID, "err", le.Error())
		}
		return ControlResult{}, &ControlError{Control: p.Control, Err: le}
	}
	s.log().Info("pipeline control", "control", p.Control, "phase", p.Phase, "module", p.ModuleID,
		"course", p.Scope.CourseID, "scope_module", p.Scope.CourseModuleID, "requeued", res.Requeued, "account", p.Actor.ID)
	return res, nil
}
