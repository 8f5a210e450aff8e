package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/lookup"
	"regdesk/views"
)

const msgLookupNotYours = "Only support staff and administrators look registrations up in Sisu."

const msgNoSuotar = "Suotar is not configured, so regdesk cannot look anything up in Sisu (an administrator sets SUOTAR_URL and SUOTAR_TOKEN)."

// registrationLookup asks Suotar what Sisu holds for the row's student on its course, judges
// whether that is the row's submission, and records the lookup in the row's history; the row
// itself never changes: POST /registrations/{id}/lookup. The lookup service (store/lookup) does
// all that; a Suotar failure is an answer too, shown in the lookup region and recorded, never an
// error page. Only support staff and administrators reach it (requireRole); the lookup records who
// looked.
func (s *Server) registrationLookup(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	actor := actorFrom(r.Context())
	var actorID *string
	if actor != nil && actor.ID != "" {
		actorID = &actor.ID
	}
	// A shutdown stops the wait on Suotar; the lookup is recorded as interrupted and answered.
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	defer context.AfterFunc(s.stopping, func() { cancel(context.Cause(s.stopping)) })()
	res, err := s.lookups.LookUp(ctx, id, s.courseScope(r), actorID)
	if errors.Is(err, lookup.ErrNoRegistry) {
		return &Error{Status: http.StatusServiceUnavailable, Message: msgNoSuotar, Err: err}
	}
	if e, ok := errors.AsType[*lookup.NothingToAskError](err); ok {
		return &Error{Status: http.StatusUnprocessableEntity, Message: e.Message, Err: err}
	}
	if err != nil {
		return err
	}
	reg := res.Registration

	if !wantsFragment(r) {
		redirect(w, r, "/registrations/"+reg.ID+"#"+views.IDLookup)
		return nil
	}
	// The swap shows the lookup as the page will: read back from the history, which the swap
	// refreshes too.
	now := s.clock()
	page, err := s.store.RegistrationPageGet(r.Context(), now, reg.ID, s.courseScope(r))
	if err != nil {
		return err
	}
	// A new lookup changes what may be done (marking rests on it), so the action panel comes too,
	// its forms carrying the new lookup but the version the page was drawn with: the rest of the
	// page is not redrawn, and an action must rest on the row as the person sees it.
	var actions *views.ActionsVM
	if actor.CanAct() {
		actions = actionsVM(page, now)
		if v := r.PostFormValue("version"); v != "" {
			actions.Version = v
		}
	}
	return s.render(w, r, http.StatusOK, nil, views.RegistrationLookupSwap(s.lookupVM(page.Registration, page.Events, now),
		eventVMs(reg.ID, page.Events, now), actions))
}

// lookupVM builds the lookup region from the latest lookup in the row's history (events newest
// first), so a swap and a page always show the same thing.
func (s *Server) lookupVM(reg store.Registration, events []store.Event, now time.Time) views.LookupVM {
	vm := views.LookupVM{ActionURL: "/registrations/" + reg.ID + "/lookup", Version: strconv.FormatInt(reg.Version, 10)}
	if s.lookups.Registry == nil {
		vm.Unavailable = msgNoSuotar
	} else if _, problem := lookup.QueryFor(reg); problem != "" {
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
			State: dash(a.State), Credits: views.Credits(a.Credits),
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
		{Label: "Credits", Value: views.Credits(s.Credits)},
		{Label: "Submitted attainment", Value: dash(s.SubmittedAttainmentID), Mono: true},
	}
	submitted := views.Property{Label: "Submitted", Value: "—"}
	if s.SubmittedAt != nil {
		submitted.Value = views.Stamp(*s.SubmittedAt)
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
			vm.Says += " Do not resubmit before " + views.Stamp(*c.RetryAfter) + "."
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
