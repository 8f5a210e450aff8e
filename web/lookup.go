package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/suotar"
	"regdesk/views"
)

// Registry is what a Sisu lookup needs from Suotar; *suotar.Client provides it.
type Registry interface {
	Attainments(ctx context.Context, studentNumber, courseCode string) (suotar.StudentAttainments, error)
	VerifyAttainments(ctx context.Context, submittedAttainmentIDs []string) (suotar.Batch[suotar.VerifyAnswer], error)
}

const msgLookupNotYours = "Only support staff and administrators look registrations up in Sisu."

const msgNoSuotar = "Suotar is not configured, so regdesk cannot look anything up in Sisu (an administrator sets SUOTAR_URL and SUOTAR_TOKEN)."

// registrationLookup asks Suotar what Sisu holds for the row's student on its course, judges
// whether that is the row's submission, and records the lookup in the row's history; the row
// itself never changes: POST /registrations/{id}/lookup. A Suotar failure is an answer too: it is
// shown in the lookup region and recorded, never an error page.
// Only support staff and administrators reach it (requireRole); the lookup records who looked.
func (s *Server) registrationLookup(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	reg, err := s.store.RegistrationGet(r.Context(), id, s.courseScope(r))
	if err != nil {
		return err
	}
	if s.registry == nil {
		return &Error{Status: http.StatusServiceUnavailable, Message: msgNoSuotar}
	}
	q, problem := lookupQueryFor(reg)
	if problem != "" {
		return &Error{Status: http.StatusUnprocessableEntity, Message: problem}
	}

	rec := s.lookUp(r.Context(), reg, q)
	details, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("registrationLookup %s: encode details: %w", id, err)
	}
	actor := actorFrom(r.Context())
	var actorID *string
	if actor != nil && actor.ID != "" {
		actorID = &actor.ID
	}
	call := rec.AttainmentsCall
	// The person may have given up waiting; the lookup happened all the same and is recorded.
	_, err = s.store.EventInsertLookup(context.WithoutCancel(r.Context()), store.LookupEvent{
		RegistrationID: reg.ID, ActorID: actorID, CreatedAt: call.RequestedAt.Add(time.Duration(rec.DurationMS) * time.Millisecond),
		Message: rec.Message(), Details: details, Endpoint: call.Endpoint, RequestedAt: call.RequestedAt,
		AnsweredAt: call.AnsweredAt, Answer: call.Answer,
	})
	if err != nil {
		return fmt.Errorf("registrationLookup %s: %w", id, err)
	}

	if !wantsFragment(r) {
		redirect(w, r, "/registrations/"+reg.ID+"#"+views.IDLookup)
		return nil
	}
	// The swap shows the lookup as the page will: read back from the history, which the swap
	// refreshes too.
	events, err := s.store.EventListByRegistration(r.Context(), reg.ID)
	if err != nil {
		return err
	}
	now := s.clock()
	// A new lookup changes what may be done (marking rests on it), so the action panel comes too,
	// its forms carrying the new lookup but the version the page was drawn with: the rest of the
	// page is not redrawn, and an action must rest on the row as the person sees it.
	var actions *views.ActionsVM
	if actor.CanAct() {
		if actions, err = s.actionsVM(r.Context(), reg.ID, now); err != nil {
			return err
		}
		if v := r.PostFormValue("version"); v != "" {
			actions.Version = v
		}
		actions.LookupID = latestLookupID(events)
	}
	return s.render(w, r, http.StatusOK, nil, views.RegistrationLookupSwap(s.lookupVM(reg, events, now), eventVMs(reg.ID, events, now), actions))
}

// lookupQuery is what a lookup asks Suotar, and where each part came from.
type lookupQuery struct {
	StudentNumber string
	NumberSource  string // frozen or linked
	CourseCode    string
	CodeSource    string // frozen or module
	SubmittedID   string
}

// lookupQueryFor picks what to ask: the frozen payload where the row has one, since that is what
// was sent, else the student's linked number and the module's course code. The second result
// says why nothing can be asked.
func lookupQueryFor(reg store.Registration) (lookupQuery, string) {
	q := lookupQuery{SubmittedID: strings.TrimSpace(store.Deref(reg.SubmittedAttempt))}
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
		return q, "This row has no student number, frozen or linked to the student, so there is nobody to look up in Sisu."
	case q.CourseCode == "":
		return q, "This row's module has no course code, so there is no course to look up in Sisu."
	}
	return q, ""
}

// lookUp makes the calls, concurrently, and judges the answer. It never fails: a failed call is
// part of the record.
func (s *Server) lookUp(ctx context.Context, reg store.Registration, q lookupQuery) store.LookupRecord {
	at := s.clock()
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
			held, heldErr = s.registry.Attainments(ctx, q.StudentNumber, q.CourseCode)
			return heldErr
		})
	})
	if q.SubmittedID != "" {
		wg.Go(func() {
			verifyCall = timed(store.EndpointVerifyAttainments, func() error {
				verify, verifyErr = s.registry.VerifyAttainments(ctx, []string{q.SubmittedID})
				return verifyErr
			})
		})
	}
	wg.Wait()
	rec.DurationMS = time.Since(start).Milliseconds()

	heldCall.CorrelationID = held.CorrelationID
	rec.AttainmentsCall = &heldCall
	var lookup schedule.Lookup
	if q.SubmittedID != "" {
		verifyCall.CorrelationID = verify.CorrelationID
		if verifyErr == nil {
			lookup.Verify = verifyEvidence(verify, &verifyCall)
		}
		if verifyCall.Failure != nil {
			lookup.Failed = append(lookup.Failed, schedule.FailedCall{Call: schedule.CallVerify, Why: verifyCall.Failure.Message})
			s.log.WarnContext(ctx, "sisu lookup: verify failed", "registration", reg.ID, "err", verifyErr, "correlation_id", verify.CorrelationID)
		}
		rec.VerifyCall = &verifyCall
	}
	if heldErr != nil {
		// The verdict is still given: it says which call failed, and a verify answer may still
		// show the credit. It is never "not in Sisu".
		lookup.Failed = append([]schedule.FailedCall{{Call: schedule.CallAttainments, Why: heldCall.Failure.Message}}, lookup.Failed...)
		s.log.WarnContext(ctx, "sisu lookup failed", "registration", reg.ID, "err", heldErr, "correlation_id", held.CorrelationID,
			"duration_ms", rec.DurationMS)
	} else {
		rec.AttainmentsCall.Code = held.RawCode
		rec.Skipped = len(held.Skipped)
		lookup.Code = held.RawCode
	}
	seen := map[string]bool{}
	for _, a := range held.Attainments {
		rec.Attainments = append(rec.Attainments, store.LookupAttainment{ID: a.ID, Type: a.Type, State: a.State, AttainmentDate: a.AttainmentDate.String(),
			RegistrationDate: a.RegistrationDate.String(), GradeScaleID: a.GradeScaleID, GradeID: a.GradeID, Credits: a.Credits})
		lookup.Attainments = append(lookup.Attainments, schedule.SisuAttainment{ID: a.ID, Type: a.Type, State: a.State,
			AttainmentDate: civil(a.AttainmentDate), RegistrationDate: civil(a.RegistrationDate), GradeScaleID: a.GradeScaleID,
			GradeID: a.GradeID, Credits: a.Credits})
		if a.PersonID != "" {
			seen[a.PersonID] = true
		}
	}
	rec.Person, rec.PersonID = personCheck(store.Deref(reg.SisuPersonID), seen)

	v := schedule.Judge(submissionOf(reg), lookup, at)
	rec.Verdict = &store.LookupVerdict{Kind: v.Kind, Reason: v.Reason, Matches: v.Matches, Ours: v.Ours}
	if !v.Window.IsZero() {
		rec.Verdict.Window = &store.LookupWindow{HelsinkiDay: v.Window.HelsinkiDay.String(), UTCDay: v.Window.UTCDay.String()}
	}
	if v.Match != nil {
		rec.Verdict.MatchID = v.Match.ID
	}
	for _, c := range v.Conflicts {
		rec.Verdict.Conflicts = append(rec.Verdict.Conflicts, store.LookupConflict{ID: c.AttainmentID, Differences: c.Differences})
	}
	s.log.InfoContext(ctx, "sisu lookup", "registration", reg.ID, "verdict", v.Kind, "correlation_id", held.CorrelationID,
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
	c.Failure = &store.LookupCallFailure{Kind: string(e.Kind), HTTPStatus: e.HTTPStatus, Message: e.UserMessage()}
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

// lookupVM builds the lookup region from the latest lookup in the row's history (events newest
// first), so a swap and a page always show the same thing.
func (s *Server) lookupVM(reg store.Registration, events []store.Event, now time.Time) views.LookupVM {
	vm := views.LookupVM{ActionURL: "/registrations/" + reg.ID + "/lookup", Version: strconv.FormatInt(reg.Version, 10)}
	if s.registry == nil {
		vm.Unavailable = msgNoSuotar
	} else if _, problem := lookupQueryFor(reg); problem != "" {
		vm.Unavailable = problem
	}
	i := slices.IndexFunc(events, func(e store.Event) bool { return e.Kind == "sisu_lookup" })
	if i < 0 {
		return vm
	}
	e := events[i]
	res := &views.LookupResultVM{When: views.NewWhen(&e.CreatedAt, now), By: store.Deref(e.ActorName)}
	vm.Last = res
	rec, ok := store.ReadLookupRecord(e.Details)
	if !ok || rec.V != store.LookupRecordVersion {
		res.Error = "This lookup was recorded in a form this version of regdesk cannot show; its history entry has the details."
		return vm
	}
	if rec.AttainmentsCall == nil {
		// Every lookup makes this call; a record without it shows the call as empty.
		rec.AttainmentsCall = &store.LookupCall{}
	}
	res.Took = took(rec.DurationMS)
	switch {
	case reg.SubmittedAt != nil && reg.SubmittedAt.After(e.CreatedAt):
		res.Stale = "The row was sent to Suotar again after this lookup: look again before acting on it."
	case reg.StateChangedAt.After(e.CreatedAt):
		res.Stale = "The row has moved to " + string(reg.State) + " since this lookup: look again before acting on it."
	}
	res.Sent = sentProperties(rec)
	res.Person = personProperties(rec)
	res.Calls = callProperties(rec)
	if rec.VerifyCall != nil {
		res.Verify = verifyVM(rec.Sent.SubmittedAttainmentID, *rec.VerifyCall)
	}
	if rec.Verdict == nil {
		res.Error = rec.Error
		return vm
	}
	k := rec.Verdict.Kind
	res.Verdict = views.LookupVerdictVM{Kind: string(k), Label: k.Label(), Explanation: k.Explanation(), Reason: rec.Verdict.Reason}
	res.Failed, res.HeldUnknown = failedWords(rec)
	conflicts := map[string]string{}
	for _, c := range rec.Verdict.Conflicts {
		conflicts[c.ID] = strings.Join(c.Differences, "; ")
	}
	for _, a := range rec.Attainments {
		row := views.LookupAttainmentVM{
			ID: a.ID, Type: typeLabel(a.Type), TypeTitle: a.Type, AttainmentDate: dash(a.AttainmentDate),
			RegistrationDate: dash(a.RegistrationDate), Grade: gradeLabel(a.GradeScaleID, a.GradeID), Scale: dash(a.GradeScaleID),
			State: dash(a.State), Credits: creditsLabel(a.Credits),
			Match: a.ID == rec.Verdict.MatchID, AlsoMatches: a.ID != rec.Verdict.MatchID && slices.Contains(rec.Verdict.Matches, a.ID),
			Ours: slices.Contains(rec.Verdict.Ours, a.ID), Conflict: conflicts[a.ID],
		}
		// Differences are marked only where they matter: on attainments that are, or look like,
		// the submission. An old attainment differs in everything and says nothing.
		if row.Status() != "other" {
			row.GradeDiffers = a.GradeID != rec.Sent.GradeID
			row.ScaleDiffers = schedule.ScaleFamily(a.GradeScaleID) != schedule.ScaleFamily(rec.Sent.GradeScaleID)
			row.DateDiffers = a.AttainmentDate != rec.Sent.AttainmentDate
		}
		res.Attainments = append(res.Attainments, row)
	}
	// Newest registration first: what Sisu did last is what a person looks for.
	slices.SortStableFunc(res.Attainments, func(x, y views.LookupAttainmentVM) int {
		if c := strings.Compare(y.RegistrationDate, x.RegistrationDate); c != 0 {
			return c
		}
		return strings.Compare(y.AttainmentDate, x.AttainmentDate)
	})
	res.AttainmentsNote = attainmentsNote(rec)
	return vm
}

// failedWords says which of the lookup's calls brought no answer, and whether what Sisu holds is
// therefore unknown.
func failedWords(rec store.LookupRecord) (string, bool) {
	var parts []string
	held := rec.AttainmentsCall.Failure != nil
	if held {
		parts = append(parts, "Suotar gave no list of the student's attainments: "+rec.AttainmentsCall.Failure.Message)
	}
	if rec.VerifyCall != nil && rec.VerifyCall.Failure != nil {
		parts = append(parts, "Suotar's verify call for the submitted attainment failed: "+rec.VerifyCall.Failure.Message)
	}
	return strings.Join(parts, " "), held
}

func sentProperties(rec store.LookupRecord) []views.Property {
	s := rec.Sent
	facts := []views.Property{
		{Label: "Student number", Value: rec.StudentNumber, Mono: true, Title: sourceWords(rec.StudentNumberSource)},
		{Label: "Course code", Value: rec.CourseCode, Mono: true, Title: sourceWords(rec.CourseCodeSource)},
		{Label: "Grade", Value: gradeLabel(s.GradeScaleID, s.GradeID)},
		{Label: "Grade scale", Value: dash(s.GradeScaleID), Mono: true},
		{Label: "Attainment date", Value: dash(s.AttainmentDate), Title: "The Helsinki date of attained_at"},
		{Label: "Credits", Value: creditsLabel(s.Credits)},
		{Label: "Submitted attainment", Value: dash(s.SubmittedAttainmentID), Mono: true},
	}
	submitted := views.Property{Label: "Submitted", Value: "—"}
	if s.SubmittedAt != nil {
		submitted.Value = s.SubmittedAt.In(views.Helsinki).Format("2006-01-02 15:04")
		submitted.Title = "Registrations 0–2 days after this day count as this submission, counted from its Helsinki date or its UTC date (the pipeline's)"
	}
	return append(facts, submitted)
}

func sourceWords(source string) string {
	switch source {
	case "frozen":
		return "From the row's frozen payload: what was sent"
	case "linked":
		return "The row has no frozen number; this is the student's linked number"
	case "module":
		return "The row has no frozen code; this is the module's course code"
	}
	return ""
}

func personProperties(rec store.LookupRecord) []views.Property {
	number := views.Property{Label: "Looked up", Value: rec.StudentNumber + " on " + rec.CourseCode, Mono: true}
	answer := views.Property{Label: "Suotar said", Value: dash(rec.AttainmentsCall.Code), Mono: true}
	switch rec.AttainmentsCall.Code {
	case "enrolmentFound":
		answer.Title = "The student is enrolled on the course"
	case "enrolmentNotFound", "enrolmentNotAccepted":
		answer.Title = "The student has no usable enrolment; Sisu's attainments are listed all the same"
	case "personNotFound":
		answer.Title = "Sisu knows no person with this student number"
	case "courseCodeNotFound":
		answer.Title = "Sisu has no course unit with this code"
	}
	person := views.Property{Label: "Sisu person"}
	switch rec.Person {
	case store.LookupPersonSame:
		person.Value, person.Mono, person.Title = rec.PersonID, true, "The attainments are the row's Sisu person's"
	case store.LookupPersonDifferent:
		person.Value = "Not the row's Sisu person: check the student number"
	case store.LookupPersonRowHasNone:
		person.Value = "The row names no Sisu person to compare with"
	default:
		person.Value = "—"
	}
	return []views.Property{number, answer, person}
}

func callProperties(rec store.LookupRecord) []views.Property {
	facts := []views.Property{callProperty("Attainments (enrolments/resolve)", *rec.AttainmentsCall)}
	if rec.VerifyCall != nil {
		facts = append(facts, callProperty("Verify (attainments/verify)", *rec.VerifyCall))
	}
	return facts
}

func callProperty(label string, c store.LookupCall) views.Property {
	v := c.Answer + " in " + took(c.DurationMS)
	if c.Failure != nil && c.Failure.HTTPStatus != 0 {
		v += " (HTTP " + strconv.Itoa(c.Failure.HTTPStatus) + ")"
	}
	if c.CorrelationID != "" {
		v += " · X-Correlation-Id " + c.CorrelationID
	}
	return views.Property{Label: label, Value: v, Title: "Quote the correlation id when asking about this call in Suotar's logs"}
}

func verifyVM(submittedID string, c store.LookupCall) *views.LookupVerifyVM {
	vm := &views.LookupVerifyVM{SubmittedID: submittedID, Code: c.Code}
	if c.Failure != nil {
		vm.Error = c.Failure.Message
		return vm
	}
	switch c.Code {
	case "registered":
		if c.AttainmentType == schedule.AttainmentCourseUnit {
			vm.Says = "Sisu holds course unit attainment " + c.AttainmentID + " for it: registered."
		} else {
			vm.Says = "Sisu holds the assessment item attainment " + c.AttainmentID + ", not yet the course unit attainment: partly registered."
		}
	case "notRegistered":
		vm.Says = "Suotar has no evidence of it in Sisu."
	case "submissionPending":
		vm.Says = "Submitted recently; Sisu does not show it to Suotar yet."
		if c.RetryAfter != nil {
			vm.Says += " Do not resubmit before " + c.RetryAfter.In(views.Helsinki).Format("2006-01-02 15:04") + "."
		}
	case "misregistered":
		vm.Says = "Sisu marked it misregistered: the attainment was reversed."
	default:
		vm.Says = "An answer regdesk does not know."
	}
	return vm
}

func attainmentsNote(rec store.LookupRecord) string {
	var notes []string
	switch rec.AttainmentsCall.Code {
	case "enrolmentNotFound", "enrolmentNotAccepted":
		notes = append(notes, "The student has no usable enrolment on the course ("+rec.AttainmentsCall.Code+"); Sisu's attainments are listed all the same.")
	}
	if rec.Skipped > 0 {
		notes = append(notes, fmt.Sprintf("Suotar sent %d entries regdesk could not read; they are left out.", rec.Skipped))
	}
	notes = append(notes, "Suotar lists attainments that are not misregistered and no older than ten years.")
	return strings.Join(notes, " ")
}

func typeLabel(t string) string {
	switch t {
	case schedule.AttainmentCourseUnit:
		return "Course unit"
	case schedule.AttainmentAssessmentItem:
		return "Assessment item"
	}
	return dash(t)
}

// gradeLabel shows a grade as a person reads it: the pass/fail scale's ids mean nothing alone.
func gradeLabel(scale, grade string) string {
	if grade == "" {
		return "—"
	}
	if schedule.ScaleFamily(scale) == "sis-hyl-hyv" {
		switch grade {
		case "0":
			return "0 · fail"
		case "1":
			return "1 · pass"
		}
	}
	return grade
}

func creditsLabel(c *float64) string {
	if c == nil {
		return "—"
	}
	return strconv.FormatFloat(*c, 'f', -1, 64)
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// took says how long a call took: "340 ms", "1.2 s".
func took(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + " ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

// latestLookupID is the id of the newest lookup in the history (events newest first); "" for
// none. The action forms carry the lookup the page shows, not one made since.
func latestLookupID(events []store.Event) string {
	if i := slices.IndexFunc(events, func(e store.Event) bool { return e.Kind == "sisu_lookup" }); i >= 0 {
		return events[i].ID
	}
	return ""
}

// lookupTitle names a lookup in the history: its verdict, or that it failed.
func lookupTitle(e store.Event) string {
	rec, ok := store.ReadLookupRecord(e.Details)
	if !ok || rec.V != store.LookupRecordVersion {
		return "Looked up in Sisu"
	}
	if rec.Verdict == nil {
		return "Looked up in Sisu · failed after " + took(rec.DurationMS)
	}
	return "Looked up in Sisu · " + rec.Verdict.Kind.Label() + " · " + took(rec.DurationMS)
}
