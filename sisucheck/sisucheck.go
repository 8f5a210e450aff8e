// Package sisucheck checks a registration against Sisu through Suotar ("Look up in Sisu"): it asks
// for the student's attainments on the course (and verifies the submitted attainment), judges with
// schedule.Judge whether Sisu holds the row's submission, and records the check, as a
// store.LookupRecord, in regdesk's own history of the row. The row itself never changes. It joins
// the store (the row it reads, the record it writes) and the Suotar client (partner/suotar), so it
// is neither: a service of its own beside them.
package sisucheck

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"regdesk/partner/suotar"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views/i18n"
)

// Suotar is what a check needs from Suotar; *suotar.Client provides it.
type Suotar interface {
	Attainments(ctx context.Context, studentNumber, courseCode string) (suotar.StudentAttainments, error)
	VerifyAttainments(ctx context.Context, submittedAttainmentIDs []string) (suotar.Batch[suotar.VerifyAnswer], error)
}

// ErrInterrupted is the cause a caller cancels a lookup's context with when regdesk is shutting
// down: the calls still in flight are recorded as interrupted, and the lookup is recorded all the
// same.
var ErrInterrupted = errors.New("regdesk is shutting down")

// msgInterrupted is an interrupted call's failure, for the person who looked.
const msgInterrupted = "regdesk was restarting and stopped waiting for Suotar's answer; look it up again in a moment."

// ErrNoSuotar reports a lookup asked for while Suotar is not configured.
var ErrNoSuotar = errors.New("lookup: Suotar is not configured")

// Problem is why a row gives nothing to ask Suotar about, as a code: pages word it from their
// catalogue by which one it is, logs and the command line by Sentence.
type Problem string

// The problems QueryFor reports.
const (
	// ProblemNoStudentNumber: the row has no student number, frozen or linked to the student.
	ProblemNoStudentNumber Problem = "no_student_number"
	// ProblemNoCourseCode: the row's module has no course code.
	ProblemNoCourseCode Problem = "no_course_code"
)

// Sentence is the problem in English, for logs and the command line.
func (p Problem) Sentence() string {
	switch p {
	case ProblemNoStudentNumber:
		return "This row has no student number, frozen or linked to the student, so there is nobody to look up in Sisu."
	case ProblemNoCourseCode:
		return "This row's module has no course code, so there is no course to look up in Sisu."
	}
	return string(p)
}

// NothingToAskError reports a row that gives nothing to ask Suotar about, and why. Nothing was
// called or recorded.
type NothingToAskError struct {
	RegistrationID string
	Problem        Problem
}

func (e *NothingToAskError) Error() string {
	return "lookup " + e.RegistrationID + ": " + e.Problem.Sentence()
}

// Service checks registrations against Sisu. Suotar may be nil: every lookup is then ErrNoSuotar.
type Service struct {
	Store  *store.Store
	Suotar Suotar
	// Now is the clock every recorded instant derives from.
	Now func() time.Time
	Log *slog.Logger
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Result is a lookup made and recorded.
type Result struct {
	Registration store.Registration
	EventID      string
	Record       store.LookupRecord
	// Claim is what the lookup did to the row's claim (store.EventInsertLookupClaiming).
	Claim store.LookupClaimOutcome
}

// By is the person looking and how long their claims count: a lookup is work on the row, so it
// keeps their claim from lapsing, or starts one on a row nobody is on.
type By struct {
	Actor      store.ActionActor
	ClaimLapse time.Duration
}

// LookUp looks the registration up and records the lookup for by (nil: nobody signed in), with
// what that does to the row's claim.
// A registration that does not exist, or lies outside scope, is
// store.ErrNotFound; without Suotar it is ErrNoSuotar; a row with nothing to ask is a
// *NothingToAskError. A failed Suotar call is no error: it is part of the record. The record is
// written even when ctx is cancelled after the calls, since the lookup happened all the same.
func (s *Service) LookUp(ctx context.Context, id string, scope store.Scope, by *By) (Result, error) {
	reg, err := s.Store.RegistrationGet(ctx, s.Now(), id, scope)
	if err != nil {
		return Result{}, err
	}
	if s.Suotar == nil {
		return Result{}, ErrNoSuotar
	}
	q, problem := QueryFor(reg)
	if problem != "" {
		return Result{}, &NothingToAskError{RegistrationID: reg.ID, Problem: problem}
	}
	rec := s.lookUp(ctx, reg, q)
	call := rec.AttainmentsCall
	e := store.LookupEvent{RegistrationID: reg.ID, Scope: scope,
		CreatedAt: call.RequestedAt.Add(time.Duration(rec.DurationMS) * time.Millisecond), Record: rec}
	e.Message = Message(rec, e.CreatedAt)
	var actor store.ActionActor
	var lapse time.Duration
	if by != nil && by.Actor.ID != "" {
		e.ActorID, actor, lapse = &by.Actor.ID, by.Actor, by.ClaimLapse
	}
	eventID, claim, err := s.Store.EventInsertLookupClaiming(context.WithoutCancel(ctx), e, actor, lapse)
	if err != nil {
		return Result{}, fmt.Errorf("lookup %s: %w", reg.ID, err)
	}
	return Result{Registration: reg, EventID: eventID, Record: rec, Claim: claim}, nil
}

// Query is what a lookup asks Suotar, and where each part came from.
type Query struct {
	StudentNumber string
	NumberSource  string // frozen or linked
	CourseCode    string
	CodeSource    string // frozen or module
	SubmittedID   string
}

// QueryFor picks what to ask: the frozen payload where the row has one, since that is what
// was sent, else the student's linked number and the module's course code. The second result
// says why nothing can be asked ("" when something can).
func QueryFor(reg store.Registration) (Query, Problem) {
	q := Query{SubmittedID: strings.TrimSpace(store.Deref(reg.SubmittedAttempt))}
	if n := strings.TrimSpace(store.Deref(reg.FrozenStudentNumber)); n != "" {
		q.StudentNumber, q.NumberSource = n, "frozen"
	} else if n := strings.TrimSpace(store.Deref(reg.LinkedStudentNumber)); n != "" {
		q.StudentNumber, q.NumberSource = n, "linked"
	}
	if c := strings.TrimSpace(store.Deref(reg.FrozenCourseCode)); c != "" {
		q.CourseCode, q.CodeSource = c, "frozen"
	} else if c := strings.TrimSpace(store.Deref(reg.UhCourseCode)); c != "" {
		q.CourseCode, q.CodeSource = c, "module"
	}
	switch {
	case q.StudentNumber == "":
		return q, ProblemNoStudentNumber
	case q.CourseCode == "":
		return q, ProblemNoCourseCode
	}
	return q, ""
}

// lookUp makes the calls, concurrently, and judges the answer. It never fails: a failed call is
// part of the record.
func (s *Service) lookUp(ctx context.Context, reg store.Registration, q Query) store.LookupRecord {
	at := s.Now()
	start := time.Now() // a stopwatch only; every recorded instant derives from the clock
	rec := store.LookupRecord{V: store.LookupRecordVersion, StudentNumber: q.StudentNumber, StudentNumberSource: q.NumberSource,
		CourseCode: q.CourseCode, CourseCodeSource: q.CodeSource, Sent: sentOf(reg)}

	var (
		wg         sync.WaitGroup
		held       suotar.StudentAttainments
		heldErr    error
		verify     suotar.Batch[suotar.VerifyAnswer]
		verifyErr  error
		heldCall   store.LookupCall
		verifyCall store.LookupCall
	)
	timed := func(endpoint string, call func() error) store.LookupCall {
		from := time.Since(start)
		err := call()
		return callRecord(endpoint, at.Add(from), time.Since(start)-from, err)
	}
	wg.Go(func() {
		heldCall = timed(store.EndpointResolveEnrolments, func() error {
			held, heldErr = s.Suotar.Attainments(ctx, q.StudentNumber, q.CourseCode)
			return heldErr
		})
	})
	if q.SubmittedID != "" {
		wg.Go(func() {
			verifyCall = timed(store.EndpointVerifyAttainments, func() error {
				verify, verifyErr = s.Suotar.VerifyAttainments(ctx, []string{q.SubmittedID})
				return verifyErr
			})
		})
	}
	wg.Wait()
	rec.DurationMS = time.Since(start).Milliseconds()
	if errors.Is(context.Cause(ctx), ErrInterrupted) {
		// regdesk stopped waiting, not Suotar failing: say so, so nobody reads it as an outage.
		for _, c := range []*store.LookupCall{&heldCall, &verifyCall} {
			if c.Failure != nil {
				c.Failure = &store.LookupCallFailure{Kind: "interrupted", Message: msgInterrupted}
			}
		}
	}

	heldCall.CorrelationID = held.CorrelationID
	rec.AttainmentsCall = &heldCall
	var evidence schedule.Lookup
	if q.SubmittedID != "" {
		verifyCall.CorrelationID = verify.CorrelationID
		if verifyErr == nil {
			evidence.Verify = verifyEvidence(verify, &verifyCall)
		}
		if verifyCall.Failure != nil {
			evidence.Failed = append(evidence.Failed, failedCall(schedule.CallVerify, verifyCall.Failure))
			s.log().WarnContext(ctx, "sisu lookup: verify failed", "registration", reg.ID, "err", verifyErr, "correlation_id", verify.CorrelationID)
		}
		rec.VerifyCall = &verifyCall
	}
	if heldErr != nil {
		// The verdict is still given: it says which call failed, and a verify answer may still
		// show the credit. It is never "not in Sisu".
		evidence.Failed = append([]schedule.FailedCall{failedCall(schedule.CallAttainments, heldCall.Failure)}, evidence.Failed...)
		s.log().WarnContext(ctx, "sisu lookup failed", "registration", reg.ID, "err", heldErr, "correlation_id", held.CorrelationID,
			"duration_ms", rec.DurationMS)
	} else {
		rec.AttainmentsCall.Code = held.RawCode
		rec.Skipped = len(held.Skipped)
		evidence.Code = held.RawCode
	}
	seen := map[string]bool{}
	for _, a := range held.Attainments {
		rec.Attainments = append(rec.Attainments, store.LookupAttainment{ID: a.ID, Type: a.Type, State: a.State, AttainmentDate: a.AttainmentDate.String(),
			RegistrationDate: a.RegistrationDate.String(), GradeScaleID: a.GradeScaleID, GradeID: a.GradeID, Credits: a.Credits})
		evidence.Attainments = append(evidence.Attainments, schedule.SisuAttainment{ID: a.ID, Type: a.Type, State: a.State,
			AttainmentDate: civil(a.AttainmentDate), RegistrationDate: civil(a.RegistrationDate), GradeScaleID: a.GradeScaleID,
			GradeID: a.GradeID, Credits: a.Credits})
		if a.PersonID != "" {
			seen[a.PersonID] = true
		}
	}
	rec.Person, rec.PersonID = personCheck(store.Deref(reg.SisuPersonID), seen)

	v := schedule.Judge(submissionOf(reg), evidence, at)
	rec.Verdict = &store.LookupVerdict{Kind: v.Kind, Say: v.Say, Matches: v.Matches, Ours: v.Ours}
	if !v.Window.IsZero() {
		rec.Verdict.Window = &store.LookupWindow{HelsinkiDay: v.Window.HelsinkiDay.String(), UTCDay: v.Window.UTCDay.String()}
	}
	if v.Match != nil {
		rec.Verdict.MatchID = v.Match.ID
	}
	for _, c := range v.Conflicts {
		rec.Verdict.Conflicts = append(rec.Verdict.Conflicts, store.LookupConflict{ID: c.AttainmentID, Say: c.Say})
	}
	s.log().InfoContext(ctx, "sisu lookup", "registration", reg.ID, "verdict", v.Kind, "correlation_id", held.CorrelationID,
		"duration_ms", rec.DurationMS)
	return rec
}

// callRecord describes a finished call. Suotar refused a call when it answered with a
// request-level error that says nothing was acted on (4xx, 503, 429); a call is unanswered when
// no usable answer came (5xx, timeouts, dropped connections, unreadable answers).
func callRecord(endpoint string, requested time.Time, took time.Duration, err error) store.LookupCall {
	c := store.LookupCall{Endpoint: endpoint, RequestedAt: requested, DurationMS: took.Milliseconds(), Answer: store.AnswerAnswered}
	answered := requested.Add(took)
	if err == nil {
		c.AnsweredAt = &answered
		return c
	}
	c.Answer = store.AnswerUnanswered
	e, ok := errors.AsType[*suotar.Error](err)
	if !ok {
		c.Failure = &store.LookupCallFailure{Kind: "other", Message: "The Suotar lookup failed; try again."}
		return c
	}
	c.Failure = &store.LookupCallFailure{Kind: string(e.Kind), HTTPStatus: e.HTTPStatus, LimitMS: e.Limit.Milliseconds(), Message: e.UserMessage()}
	if e.HTTPStatus != 0 {
		c.AnsweredAt = &answered
	}
	if s := e.HTTPStatus; s >= 400 && s < 500 || s == http.StatusServiceUnavailable || e.Kind == suotar.KindInvalidInput {
		c.Answer = store.AnswerRefused
	}
	return c
}

// verifyEvidence reads the one verify answer into call and returns it as the verdict's evidence;
// nil when Suotar left the item out or it could not be read.
func verifyEvidence(b suotar.Batch[suotar.VerifyAnswer], call *store.LookupCall) *schedule.VerifyEvidence {
	if len(b.Items) == 0 {
		return nil
	}
	a := b.Items[0]
	if a.Missing || a.Unreadable != "" {
		call.Answer = store.AnswerUnanswered
		call.Failure = &store.LookupCallFailure{Kind: string(suotar.KindBadAnswer), Message: "Suotar's answer left the submitted id out or could not be read; try again."}
		return nil
	}
	call.Code = a.RawCode
	ev := &schedule.VerifyEvidence{Code: a.RawCode}
	if a.Attainment != nil {
		call.AttainmentID, call.AttainmentType = a.Attainment.ID, a.Attainment.Type
		ev.AttainmentID, ev.AttainmentType = a.Attainment.ID, a.Attainment.Type
	}
	if !a.RetryAfter.IsZero() {
		ra := a.RetryAfter.UTC()
		call.RetryAfter, ev.RetryAfter = &ra, &ra
	}
	return ev
}

// personCheck compares the Sisu persons on the attainments with the row's; the id is kept only
// when it is the row's own.
func personCheck(rowPersonID string, seen map[string]bool) (string, string) {
	switch {
	case len(seen) == 0:
		return store.LookupPersonNotSeen, ""
	case rowPersonID == "":
		return store.LookupPersonRowHasNone, ""
	case len(seen) == 1 && seen[rowPersonID]:
		return store.LookupPersonSame, rowPersonID
	}
	return store.LookupPersonDifferent, ""
}

func civil(d suotar.Date) schedule.Date {
	return schedule.Date{Year: d.Year, Month: d.Month, Day: d.Day}
}

func sentOf(reg store.Registration) store.LookupSent {
	s := store.LookupSent{GradeScaleID: store.Deref(reg.GradeScaleID), GradeID: store.Deref(reg.GradeID), SubmittedAt: reg.SubmittedAt,
		SubmittedAttainmentID: store.Deref(reg.SubmittedAttempt)}
	if reg.AttainedAt != nil {
		s.AttainmentDate = schedule.HelsinkiDate(*reg.AttainedAt).String()
	}
	if reg.Credits != nil {
		c, _ := strconv.ParseFloat(strconv.FormatFloat(float64(*reg.Credits), 'f', -1, 32), 64)
		s.Credits = &c
	}
	return s
}

func submissionOf(reg store.Registration) schedule.Submission {
	return schedule.Submission{GradeScaleID: strings.TrimSpace(store.Deref(reg.GradeScaleID)), GradeID: strings.TrimSpace(store.Deref(reg.GradeID)),
		AttainedAt: reg.AttainedAt, SubmittedAt: reg.SubmittedAt, SubmittedAttainmentID: strings.TrimSpace(store.Deref(reg.SubmittedAttempt))}
}

// failedCall is a failed call as the verdict names it: its English words and its code.
func failedCall(call schedule.LookupCall, f *store.LookupCallFailure) schedule.FailedCall {
	return schedule.FailedCall{Call: call, Why: f.Message, Kind: f.Kind, HTTPStatus: f.HTTPStatus, LimitMS: f.LimitMS}
}

// Message is the lookup in English for the history's message column, which the command line and
// readers of the table see: the verdict and its reason, worded by the English catalogue (the page
// words the record itself, in its reader's language). now writes the moments it names.
func Message(rec store.LookupRecord, now time.Time) string {
	en := i18n.For(i18n.EN)
	if rec.Verdict == nil {
		return en.T("lookup.message.failed", "Error", rec.Error)
	}
	return en.T("lookup.message", "Verdict", en.Code("verdict", string(rec.Details().Badge())), "Why", en.Sentences(rec.Verdict.Say, now))
}
