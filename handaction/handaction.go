// Package handaction takes a person's hand action on a registration: regdesk decides it, records it,
// and asks the LMS's own admin endpoints (package partner/lms) to apply it as that person. The LMS
// is the only writer of a row and its answer is the authority; regdesk's rules (schedule.Decide)
// explain before the click what is allowed and why not, and this package says where the two
// disagreed.
//
// One action goes: store.RegistrationActionPrepare (the row as the LMS has it now, the version
// the person's page showed, regdesk's decision) → store.ActionAttemptInsert (who, why, the lookup it
// rested on, the risk accepted) → the LMS call → store.ActionAnswerInsert (the LMS's answer) →
// regdesk's copy of the row brought up to date. The call is outside any transaction of regdesk's:
// an attempt whose answer never came is recorded as asked and shown as unknown, and a retry reads
// the row again first, so a second click, a second tab or a retry after a timeout meets the
// changed row's version and is stopped as stale rather than applied twice.
package handaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"regdesk/partner/lms"
	"regdesk/schedule"
	"regdesk/store"
)

// LMS is what hand actions and the pipeline's controls ask of the LMS; *lms.Client has it.
type LMS interface {
	Transition(ctx context.Context, actingUserID, registrationID string, action lms.Action, reason string) (lms.TransitionResult, error)
	BulkTransition(ctx context.Context, actingUserID string, ids []string, action lms.Action, reason string) (lms.BulkResult, error)
	DismissAttention(ctx context.Context, actingUserID, registrationID, reason string) (lms.DismissResult, error)
	RequeueRetryable(ctx context.Context, actingUserID string, scope lms.RequeueScope, reason string) (lms.RequeueResult, error)
	PausePhase(ctx context.Context, actingUserID, phase, reason string) (lms.PhaseStatus, error)
	ResumePhase(ctx context.Context, actingUserID, phase, reason string) (lms.PhaseStatus, error)
	RunPhaseNow(ctx context.Context, actingUserID, phase, reason string) (lms.PhaseStatus, error)
	PauseModule(ctx context.Context, actingUserID, courseModuleID, reason string) error
	ResumeModule(ctx context.Context, actingUserID, courseModuleID, reason string) error
}

// Service takes hand actions. A zero LMS turns them off.
type Service struct {
	Store *store.Store
	LMS   LMS
	Log   *slog.Logger
	// Now is the clock answers are dated by; nil is time.Now.
	Now func() time.Time
}

// ErrOff reports that regdesk knows no LMS to ask (LMS_URL is not set): no hand action can be
// taken, and pages say so.
var ErrOff = errors.New("hand actions are off: regdesk has no LMS to ask (LMS_URL)")

// ErrNoLMSUser reports that the person's account names no LMS user, so the LMS could not record
// who acted: they cannot act until an admin links their account to their LMS user.
var ErrNoLMSUser = errors.New("the account is not linked to an LMS user")

// ErrNoSuchAction reports an action the LMS has no endpoint for.
var ErrNoSuchAction = errors.New("the LMS takes no such hand action")

// Enabled reports whether hand actions can be taken at all.
func (s *Service) Enabled() bool { return s != nil && s.LMS != nil }

// Result is a hand action the LMS answered.
type Result struct {
	RegistrationID string
	Action         schedule.Action
	// Decision is regdesk's, made before the call.
	Decision schedule.Decision
	// Outcome is the LMS's: lms.OutcomeApplied or lms.OutcomeNoChange (a refusal is an error).
	Outcome lms.Outcome
	// Before is the row's state before, After as the LMS answered it.
	Before, After schedule.State
	AuditID       string
}

// RefusedError reports that the LMS refused the action (it answered "refused", or turned the
// call down with an error answer): nothing was applied. regdesk's rules had allowed it, so the log
// records where the two differed.
type RefusedError struct {
	RegistrationID string
	Action         schedule.Action
	// Refusal is the LMS's refusal code ("" when the LMS answered with an error instead).
	Refusal lms.RefusalCode
	// Err is the LMS's error answer, when that is how it said no.
	Err *lms.Error
	// State is the row's state as the LMS answered it; "" when it did not say.
	State   schedule.State
	AuditID string
}

func (e *RefusedError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("the LMS turned down %s on %s: %v", e.Action, e.RegistrationID, e.Err)
	}
	return fmt.Sprintf("the LMS refused %s on %s: %s", e.Action, e.RegistrationID, e.Refusal)
}

// UnknownOutcomeError reports a call whose answer never came (a timeout, a dropped connection, a
// 5xx, an unreadable answer): the LMS may or may not have applied the action. The attempt stays
// recorded without an answer; the person must look at the row before doing anything more.
type UnknownOutcomeError struct {
	RegistrationID string
	Action         schedule.Action
	AuditID        string
	Err            error
}

func (e *UnknownOutcomeError) Error() string {
	return fmt.Sprintf("%s on %s: the LMS's answer never came: %v", e.Action, e.RegistrationID, e.Err)
}

func (e *UnknownOutcomeError) Unwrap() error { return e.Err }

// UnreachableError reports that the LMS could not be asked at all, or would not take the call
// from regdesk (its token, the acting user's rights): nothing was applied.
type UnreachableError struct {
	Action schedule.Action
	Err    *lms.Error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s: the LMS was not asked or would not take the call: %v", e.Action, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// lmsAction is the LMS's action for a hand action; ok is false for one the LMS has no edge for.
func lmsAction(a schedule.Action) (lms.Action, bool) {
	switch a {
	case schedule.ActionResubmit:
		return lms.Resubmit, true
	case schedule.ActionCancel:
		return lms.Cancel, true
	case schedule.ActionCheckNow:
		return lms.CheckNow, true
	case schedule.ActionClearFlag:
		return lms.ClearAttention, true
	}
	return lms.Action{}, false
}

// Takes reports whether the LMS has an endpoint for the action.
func Takes(a schedule.Action) bool {
	_, ok := lmsAction(a)
	return ok || a == schedule.ActionDismissAttention
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Apply takes one person's hand action on one registration at now. Before anything is asked it
// returns a *store.ValidationError, ErrOff, ErrNoLMSUser, or what store.RegistrationActionPrepare
// returns (a row not found, stale, refused by regdesk's rules, a risk not confirmed); after the LMS
// was asked, *RefusedError, *UnknownOutcomeError or *UnreachableError, each saying what is known.
func (s *Service) Apply(ctx context.Context, now time.Time, p store.ActionParams) (Result, error) {
	if err := store.ValidateAction(p.Action, p.Reason, p.Actor); err != nil {
		return Result{}, err
	}
	if !s.Enabled() {
		return Result{}, ErrOff
	}
	if !Takes(p.Action) {
		return Result{}, ErrNoSuchAction
	}
	if p.Actor.LMSUserID == "" {
		return Result{}, ErrNoLMSUser
	}
	var res Result
	var applied bool
	err := s.Store.WithRegistrationsLocked(ctx, []string{p.RegistrationID}, func(q *store.Queries) error {
		var err error
		res, applied, err = s.apply(ctx, q, now, p)
		return err
	})
	// Whatever came of it, regdesk's copy shows the row as the LMS has it now.
	recCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if res.RegistrationID != "" {
		if err := s.Store.LedgerMirrorRows(recCtx, []string{res.RegistrationID}); err != nil {
			s.log().Warn("copying a row after a hand action", "registration", res.RegistrationID, "err", err)
		}
	}
	if applied {
		s.afterApplied(recCtx, now, p, []string{res.RegistrationID})
	}
	return res, err
}

// apply is Apply's locked part: it reads and decides, records the attempt, asks the LMS and
// records its answer, all on q, the connection holding the row's lock. applied is true when the
// LMS applied the action (or found nothing to change).
func (s *Service) apply(ctx context.Context, q *store.Queries, now time.Time, p store.ActionParams) (res Result, applied bool, err error) {
	prep, err := q.RegistrationActionPrepare(ctx, now, p)
	if err != nil {
		return Result{}, false, err
	}
	attempt := store.ActionAttempt{ID: store.NewID(), At: now, Actor: p.Actor, Prepared: prep}
	if err := q.ActionAttemptInsert(ctx, attempt); err != nil {
		return Result{}, false, fmt.Errorf("handaction: record the attempt: %w", err)
	}
	res = Result{RegistrationID: prep.RegistrationID, Action: p.Action, Decision: prep.Decision, Before: prep.Before,
		After: prep.Before, AuditID: attempt.ID}
	var answer any
	var callErr error
	if p.Action == schedule.ActionDismissAttention {
		var d lms.DismissResult
		d, callErr = s.LMS.DismissAttention(ctx, p.Actor.LMSUserID, prep.RegistrationID, prep.Reason)
		answer, res.Outcome = d, lms.OutcomeApplied
	} else {
		act, _ := lmsAction(p.Action)
		var t lms.TransitionResult
		t, callErr = s.LMS.Transition(ctx, p.Actor.LMSUserID, prep.RegistrationID, act, prep.Reason)
		answer, res.Outcome, res.After = t, t.Outcome, schedule.State(t.State)
		if callErr == nil && t.Outcome == lms.OutcomeRefused {
			return res, false, s.refused(ctx, q, p, res, t)
		}
	}
	// The answer is recorded on a context of its own: a person who closes the tab as the LMS
	// answers must not leave the attempt looking unanswered.
	recCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if callErr != nil {
		return res, false, s.failed(recCtx, q, p, res, callErr)
	}
	outcome := store.AuditOutcomeApplied
	if res.Outcome == lms.OutcomeNoChange {
		outcome = store.AuditOutcomeNoChange
	}
	if err := q.ActionAnswerInsert(recCtx, store.ActionAnswer{ActionID: attempt.ID, AnsweredAt: s.now(), Outcome: outcome,
		StateAfter: string(res.After), Answer: answer}); err != nil {
		return res, true, fmt.Errorf("handaction: the LMS applied %s on %s, recording its answer failed: %w", p.Action, prep.RegistrationID, err)
	}
	return res, true, nil
}

// refused records the LMS's refusal and says where it differed from regdesk's rules.
func (s *Service) refused(ctx context.Context, q *store.Queries, p store.ActionParams, res Result, t lms.TransitionResult) error {
	recCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	s.log().Warn("the LMS refused a hand action regdesk's rules allowed",
		"registration", res.RegistrationID, "action", p.Action, "lms_refusal", t.Refusal, "lms_state", t.State,
		"regdesk_said", res.Decision.Say, "regdesk_target", res.Decision.Target)
	if err := q.ActionAnswerInsert(recCtx, store.ActionAnswer{ActionID: res.AuditID, AnsweredAt: s.now(),
		Outcome: store.AuditOutcomeRefused, Refusal: string(t.Refusal), StateAfter: string(t.State), Answer: t}); err != nil {
		return fmt.Errorf("handaction: the LMS refused %s on %s, recording its answer failed: %w", p.Action, res.RegistrationID, err)
	}
	return &RefusedError{RegistrationID: res.RegistrationID, Action: p.Action, Refusal: t.Refusal, State: schedule.State(t.State), AuditID: res.AuditID}
}

// failed sorts a call that did not return an answer: unknown (recorded as asked, no answer),
// turned down (recorded as failed), or never taken (recorded as failed).
func (s *Service) failed(ctx context.Context, q *store.Queries, p store.ActionParams, res Result, callErr error) error {
	le, ok := errors.AsType[*lms.Error](callErr)
	if !ok || le.OutcomeUnknown() {
		s.log().Error("a hand action's outcome is unknown", "registration", res.RegistrationID, "action", p.Action, "err", callErr)
		return &UnknownOutcomeError{RegistrationID: res.RegistrationID, Action: p.Action, AuditID: res.AuditID, Err: callErr}
	}
	if err := q.ActionAnswerInsert(ctx, store.ActionAnswer{ActionID: res.AuditID, AnsweredAt: s.now(),
		Outcome: store.AuditOutcomeFailed, Refusal: le.Message, Answer: map[string]any{"kind": le.Kind, "status": le.HTTPStatus, "message": le.Message}}); err != nil {
		return fmt.Errorf("handaction: recording the LMS's error answer: %w", err)
	}
	switch le.Kind {
	case lms.KindRejected, lms.KindNotFound:
		s.log().Warn("the LMS turned down a hand action regdesk's rules allowed",
			"registration", res.RegistrationID, "action", p.Action, "lms_error", le.Error())
		return &RefusedError{RegistrationID: res.RegistrationID, Action: p.Action, Err: le, AuditID: res.AuditID}
	}
	s.log().Error("the LMS did not take a hand action", "registration", res.RegistrationID, "action", p.Action, "err", le.Error())
	return &UnreachableError{Action: p.Action, Err: le}
}

// afterApplied brings regdesk's copy of the rows up to date (a settling action restarts their
// wait for a person) and ends or keeps the person's claims.
func (s *Service) afterApplied(ctx context.Context, now time.Time, p store.ActionParams, ids []string) {
	var err error
	if p.Action == schedule.ActionCheckNow {
		err = s.Store.LedgerMirrorRows(ctx, ids)
	} else {
		err = s.Store.LedgerMirrorRowsAfterAction(ctx, ids, now)
	}
	if err != nil {
		s.log().Warn("copying rows after a hand action", "err", err)
	}
	for _, id := range ids {
		if err := s.Store.ClaimAfterAction(ctx, now, id, p.Action, p.Actor); err != nil {
			s.log().Warn("ending a claim after a hand action", "registration", id, "err", err)
		}
	}
}

// ApplyBulk takes a bulk hand action: regdesk judges every selected row (store.
// RegistrationBulkPrepare), records the attempt, asks the LMS to act on the rows still allowed and
// unchanged (one bulk transition, or one dismissal per row, since the LMS has no bulk dismissal),
// and records what the LMS did to each. Errors before the call are ErrOff, ErrNoLMSUser or a
// *store.ValidationError; a call whose answer never came leaves the rows asked unknown in the
// result, and a call the LMS would not take is *UnreachableError.
func (s *Service) ApplyBulk(ctx context.Context, now time.Time, p store.BulkApplyParams) (store.BulkResult, error) {
	if err := store.BulkApplyCheck(p); err != nil {
		return store.BulkResult{}, err
	}
	if !s.Enabled() {
		return store.BulkResult{}, ErrOff
	}
	if !Takes(p.Action) {
		return store.BulkResult{}, ErrNoSuchAction
	}
	if p.Actor.LMSUserID == "" {
		return store.BulkResult{}, ErrNoLMSUser
	}
	ids := make([]string, len(p.Rows))
	for i, r := range p.Rows {
		ids[i] = strings.ToLower(strings.TrimSpace(r.ID))
	}
	var res store.BulkResult
	var asked []string
	err := s.Store.WithRegistrationsLocked(ctx, ids, func(q *store.Queries) error {
		var err error
		res, asked, err = s.applyBulk(ctx, q, now, p)
		return err
	})
	recCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if len(asked) > 0 {
		if err := s.Store.LedgerMirrorRows(recCtx, asked); err != nil {
			s.log().Warn("copying rows after a bulk hand action", "err", err)
		}
	}
	if err != nil {
		return res, err
	}
	var applied []string
	for _, r := range res.Rows {
		if r.Outcome == store.BulkApplied {
			applied = append(applied, r.ID)
		}
	}
	s.afterApplied(recCtx, now, store.ActionParams{Action: p.Action, Actor: p.Actor}, applied)
	return res, nil
}

// applyBulk is ApplyBulk's locked part; asked are the rows the LMS was asked to act on.
func (s *Service) applyBulk(ctx context.Context, q *store.Queries, now time.Time, p store.BulkApplyParams) (store.BulkResult, []string, error) {
	plan, err := q.RegistrationBulkPrepare(ctx, now, p)
	if err != nil {
		return store.BulkResult{}, nil, err
	}
	if err := q.BulkAttemptInsert(ctx, now, plan); err != nil {
		return store.BulkResult{}, nil, fmt.Errorf("handaction: record the bulk attempt: %w", err)
	}
	recCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var answer any
	var callErr error
	switch {
	case len(plan.Ask) == 0:
		answer = map[string]any{"asked": 0}
	case p.Action == schedule.ActionDismissAttention:
		var answers []lms.DismissResult
		for _, id := range plan.Ask {
			d, err := s.LMS.DismissAttention(ctx, p.Actor.LMSUserID, id, plan.Reason)
			if err != nil {
				if le, ok := errors.AsType[*lms.Error](err); ok && !le.OutcomeUnknown() && le.Kind == lms.KindRejected {
					continue // the LMS found nothing to dismiss on this row: it stays unchanged
				}
				callErr = err
				break
			}
			answers = append(answers, d)
		}
		answer = answers
	default:
		act, _ := lmsAction(p.Action)
		answer, callErr = s.LMS.BulkTransition(ctx, p.Actor.LMSUserID, plan.Ask, act, plan.Reason)
	}
	if callErr != nil {
		le, ok := errors.AsType[*lms.Error](callErr)
		if ok && !le.OutcomeUnknown() && le.Kind != lms.KindRejected {
			s.log().Error("the LMS did not take a bulk hand action", "action", p.Action, "err", le.Error())
			if _, err := q.RegistrationBulkRecord(recCtx, s.now(), plan, true,
				map[string]any{"kind": le.Kind, "status": le.HTTPStatus, "message": le.Message}); err != nil {
				return store.BulkResult{}, plan.Ask, err
			}
			return store.BulkResult{}, plan.Ask, &UnreachableError{Action: p.Action, Err: le}
		}
		s.log().Error("a bulk hand action's outcome is unknown", "action", p.Action, "rows", len(plan.Ask), "err", callErr)
		res, err := q.RegistrationBulkRecord(recCtx, s.now(), plan, false, nil)
		return res, plan.Ask, err
	}
	res, err := q.RegistrationBulkRecord(recCtx, s.now(), plan, true, answer)
	return res, plan.Ask, err
}
