package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/sisucheck"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// problemKey is the catalogue's key for a problem sisucheck.QueryFor reports; "" for one it lacks.
func problemKey(problem sisucheck.Problem) string {
	switch problem {
	case sisucheck.ProblemNoStudentNumber:
		return "lookup.nothing.noNumber"
	case sisucheck.ProblemNoCourseCode:
		return "lookup.nothing.noCode"
	}
	return ""
}

// registrationLookup asks Suotar what Sisu holds for the row's student on its course, judges
// whether that is the row's submission, and records the lookup in the row's history; the row
// itself never changes: POST /registrations/{id}/lookup. The lookup service (sisucheck) does
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
	var by *sisucheck.By
	if actor != nil && actor.ID != "" {
		by = &sisucheck.By{Actor: store.ActionActor{ID: actor.ID, Role: string(actor.Role)}, ClaimLapse: s.claimLapse}
	}
	// A shutdown stops the wait on Suotar; the lookup is recorded as interrupted and answered.
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	defer context.AfterFunc(s.stopping, func() { cancel(context.Cause(s.stopping)) })()
	res, err := s.lookups.LookUp(ctx, id, s.courseScope(r), by)
	if errors.Is(err, sisucheck.ErrNoSuotar) {
		return &Error{Status: http.StatusServiceUnavailable, Key: "lookup.noSuotar", Err: err}
	}
	if e, ok := errors.AsType[*sisucheck.NothingToAskError](err); ok {
		return &Error{Status: http.StatusUnprocessableEntity, Message: e.Problem.Sentence(), Key: problemKey(e.Problem), Err: err}
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
	loc := i18n.From(r.Context())
	var actions *views.ActionsVM
	if actor.CanAct() {
		actions = actionsVM(i18n.From(r.Context()), page, now)
		if v := r.PostFormValue("version"); v != "" {
			actions.Version = v
		}
	}
	// A lookup that claimed or touched the row redraws its claim panel too.
	var claim *views.ClaimPanelVM
	if res.Claim != store.LookupClaimNone {
		claim = s.claimPanelVM(r, reg.ID, page.Registration.ClaimColumns, now)
		claim.OOB = true
	}
	lookupVM := s.lookupVM(loc, page, now)
	decision, recommended := decisionVM(loc, page, lookupVM, actor.CanAct(), now)
	orderActions(actions, recommended)
	return s.render(w, r, http.StatusOK, nil, views.RegistrationLookupSwap(lookupVM,
		eventVMs(loc, reg.ID, page.Events, now), actions, claim, &decision))
}

// lookupVM builds the lookup region from the latest lookup in the row's history (events newest
// first), so a swap and a page always show the same thing. Its badge and its advice on resubmitting
// are the page's schedule.Advice, the rule the action panel's Resubmit is drawn from too.
func (s *Server) lookupVM(loc *i18n.Localizer, page store.RegistrationPage, now time.Time) views.LookupVM {
	reg, events := page.Registration, page.Events
	vm := views.LookupVM{ActionURL: "/registrations/" + reg.ID + "/lookup", Version: strconv.FormatInt(reg.Version, 10)}
	if s.lookups.Suotar == nil {
		vm.Unavailable = loc.T("lookup.noSuotar")
	} else if _, problem := sisucheck.QueryFor(reg); problem != "" {
		vm.Unavailable = problem.Sentence()
		if k := problemKey(problem); k != "" {
			vm.Unavailable = loc.T(k)
		}
	}
	i := slices.IndexFunc(events, func(e store.Event) bool { return e.Kind == "sisu_lookup" })
	if i < 0 {
		return vm
	}
	e := events[i]
	res := &views.LookupResultVM{When: loc.When(&e.CreatedAt, now), By: store.Deref(e.ActorName)}
	vm.Last = res
	rec, ok := store.ReadLookupRecord(e.Details)
	if !ok || rec.V != store.LookupRecordVersion {
		res.Error = loc.T("lookup.oldForm")
		return vm
	}
	if rec.AttainmentsCall == nil {
		// Every lookup makes this call; a record without it shows the call as empty.
		rec.AttainmentsCall = &store.LookupCall{}
	}
	res.Took = took(loc, rec.DurationMS)
	switch {
	case reg.SubmittedAt != nil && reg.SubmittedAt.After(e.CreatedAt):
		res.Stale = loc.T("lookup.staleSent")
	case reg.StateChangedAt.After(e.CreatedAt):
		res.Stale = loc.T("lookup.staleMoved", "State", string(reg.State))
	}
	res.Sent = sentProperties(loc, rec, now)
	res.Person = personProperties(loc, rec)
	res.Calls = callProperties(loc, rec)
	if rec.VerifyCall != nil {
		res.Verify = verifyVM(loc, rec.Sent.SubmittedAttainmentID, *rec.VerifyCall, now)
	}
	if rec.Verdict == nil {
		res.Error = rec.Error
		return vm
	}
	k := rec.Verdict.Kind
	badge := rec.Details().Badge()
	res.Verdict = views.LookupVerdictVM{Kind: string(k), Badge: string(badge), Label: loc.Code("verdict", string(badge)),
		Explanation: loc.CodeExplain("verdict", string(badge)), Reason: rec.Verdict.Reason}
	// A record written since verdicts kept their phrases reads in the reader's language; an older
	// one has only the English sentences, shown as they were written.
	if len(rec.Verdict.Say) > 0 {
		res.Verdict.Reason = loc.Sentences(withoutLegacyAdvice(rec.Verdict.Say), now)
	}
	if page.Lookup != nil && page.Lookup.EventID == e.ID {
		res.Verdict.Advice = adviceVM(loc, page.Advice.Resubmit, now)
	}
	res.Failed, res.HeldUnknown = failedWords(loc, rec)
	conflicts := map[string]string{}
	for _, c := range rec.Verdict.Conflicts {
		conflicts[c.ID] = strings.Join(c.Differences, "; ")
		if len(c.Say) > 0 {
			diffs := make([]string, len(c.Say))
			for i, d := range c.Say {
				diffs[i] = loc.Say(d, now)
			}
			conflicts[c.ID] = strings.Join(diffs, "; ")
		}
	}
	for _, a := range rec.Attainments {
		row := views.LookupAttainmentVM{
			ID: a.ID, Type: typeLabel(loc, a.Type), TypeTitle: a.Type, AttainmentDate: dash(a.AttainmentDate),
			RegistrationDate: dash(a.RegistrationDate), Grade: gradeLabel(loc, a.GradeScaleID, a.GradeID), Scale: dash(a.GradeScaleID),
			State: dash(a.State), Credits: i18n.Credits(loc, a.Credits),
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
	res.AttainmentsNote = attainmentsNote(loc, rec)
	return vm
}

// legacyAdviceKeys are phrases older verdicts carried about resubmitting ("so resubmitting is
// safe"), judged when the lookup was made and blind to the row's own refusals. The advice is
// Decide's now (adviceVM), so they are not shown.
var legacyAdviceKeys = []string{"why.pendingPassed"}

func withoutLegacyAdvice(say []schedule.Phrase) []schedule.Phrase {
	return slices.DeleteFunc(slices.Clone(say), func(p schedule.Phrase) bool { return slices.Contains(legacyAdviceKeys, p.Key) })
}

// adviceVM words the resubmit decision as the verdict's advice: the same decision, and the same
// words, as the action panel's Resubmit.
func adviceVM(loc *i18n.Localizer, d schedule.Decision, now time.Time) *views.AdviceVM {
	a := &views.AdviceVM{Allowed: d.Allowed}
	switch {
	case d.Allowed && d.Risk.NeedsConfirmation():
		a.Words = loc.T("advice.resubmit.allowedRisk", "Risk", loc.Code("risk", string(d.Risk)), "Warning", loc.CodeExplain("risk", string(d.Risk)))
	case d.Allowed:
		a.Words = loc.T("advice.resubmit.allowed", "Why", decisionWords(loc, d, now))
	default:
		a.Words = loc.T("advice.resubmit.refused", "Why", decisionWords(loc, d, now))
	}
	return a
}

// failedWords says which of the lookup's calls brought no answer, and whether what Sisu holds is
// therefore unknown.
func failedWords(loc *i18n.Localizer, rec store.LookupRecord) (string, bool) {
	var parts []string
	held := rec.AttainmentsCall.Failure != nil
	if held {
		parts = append(parts, loc.T("lookup.noList", "Why", failureWords(loc, rec.AttainmentsCall.Failure)))
	}
	if rec.VerifyCall != nil && rec.VerifyCall.Failure != nil {
		parts = append(parts, loc.T("lookup.verifyFailed", "Why", failureWords(loc, rec.VerifyCall.Failure)))
	}
	return strings.Join(parts, " "), held
}

// failureWords says why a Suotar call failed, in the reader's language, from the failure's kind.
// A kind the catalogue cannot word (an invalid question, whose detail is the client's English,
// or one added later) shows the message the lookup recorded.
func failureWords(loc *i18n.Localizer, f *store.LookupCallFailure) string {
	key := "suotarFailure." + f.Kind
	switch {
	case f.Kind == "timeout" && f.LimitMS > 0:
		return loc.T("suotarFailure.timeoutWithin", "Limit", loc.Span(time.Duration(f.LimitMS)*time.Millisecond))
	case f.Kind == "rejected":
		return loc.T(key, "Status", strconv.Itoa(f.HTTPStatus))
	case f.Kind != "" && loc.Has(key):
		return loc.T(key)
	}
	// A kind this catalogue does not know yet: the general words, not the recorded English.
	return loc.T("suotarFailure.other")
}

// sentProperties are what the row sent, its instant written as every other on the page (loc.Abs).
func sentProperties(loc *i18n.Localizer, rec store.LookupRecord, now time.Time) []views.Property {
	s := rec.Sent
	facts := []views.Property{
		{Label: loc.T("reg.prop.student_number"), Value: rec.StudentNumber, Mono: true, Title: sourceWords(loc, rec.StudentNumberSource)},
		{Label: loc.T("reg.prop.course_code"), Value: rec.CourseCode, Mono: true, Title: sourceWords(loc, rec.CourseCodeSource)},
		{Label: loc.T("reg.prop.grade"), Value: gradeLabel(loc, s.GradeScaleID, s.GradeID)},
		{Label: loc.T("reg.prop.grade_scale"), Value: dash(s.GradeScaleID), Mono: true},
		{Label: loc.T("reg.prop.attainment_date"), Value: dash(s.AttainmentDate), Title: loc.T("lookup.attainedAtTitle")},
		{Label: loc.T("reg.prop.credits"), Value: i18n.Credits(loc, s.Credits)},
		{Label: loc.T("reg.prop.submitted_attainment"), Value: dash(s.SubmittedAttainmentID), Mono: true},
	}
	submitted := views.Property{Label: loc.T("reg.prop.submitted"), Value: "—"}
	if s.SubmittedAt != nil {
		submitted.Value = loc.Abs(*s.SubmittedAt, now)
		submitted.Title = loc.T("lookup.windowTitle")
	}
	return append(facts, submitted)
}

func sourceWords(loc *i18n.Localizer, source string) string {
	switch source {
	case "frozen":
		return loc.T("lookup.source.frozen")
	case "linked":
		return loc.T("lookup.source.linked")
	case "module":
		return loc.T("lookup.source.module")
	}
	return ""
}

func personProperties(loc *i18n.Localizer, rec store.LookupRecord) []views.Property {
	number := views.Property{Label: loc.T("lookup.lookedUp"), Value: loc.T("lookup.numberOnCode", "Number", rec.StudentNumber, "Code", rec.CourseCode), Mono: true}
	answer := views.Property{Label: loc.T("lookup.suotarSaid"), Value: dash(rec.AttainmentsCall.Code), Mono: true}
	switch rec.AttainmentsCall.Code {
	case "enrolmentFound":
		answer.Title = loc.T("lookup.answer.enrolled")
	case "enrolmentNotFound", "enrolmentNotAccepted":
		answer.Title = loc.T("lookup.answer.noEnrolment")
	case "personNotFound":
		answer.Title = loc.T("lookup.answer.noPerson")
	case "courseCodeNotFound":
		answer.Title = loc.T("lookup.answer.noCourse")
	}
	person := views.Property{Label: loc.T("reg.prop.sisu_person")}
	switch rec.Person {
	case store.LookupPersonSame:
		person.Value, person.Mono, person.Title = rec.PersonID, true, loc.T("lookup.person.same")
	case store.LookupPersonDifferent:
		person.Value = loc.T("lookup.person.different")
	case store.LookupPersonRowHasNone:
		person.Value = loc.T("lookup.person.none")
	default:
		person.Value = "—"
	}
	return []views.Property{number, answer, person}
}

func callProperties(loc *i18n.Localizer, rec store.LookupRecord) []views.Property {
	facts := []views.Property{callProperty(loc, loc.T("lookup.call.attainments"), *rec.AttainmentsCall)}
	if rec.VerifyCall != nil {
		facts = append(facts, callProperty(loc, loc.T("lookup.call.verify"), *rec.VerifyCall))
	}
	return facts
}

func callProperty(loc *i18n.Localizer, label string, c store.LookupCall) views.Property {
	v := loc.T("lookup.answerIn", "Answer", c.Answer, "Took", took(loc, c.DurationMS))
	if c.Failure != nil && c.Failure.HTTPStatus != 0 {
		v += " (HTTP " + strconv.Itoa(c.Failure.HTTPStatus) + ")"
	}
	if c.CorrelationID != "" {
		v += " · X-Correlation-Id " + c.CorrelationID
	}
	return views.Property{Label: label, Value: v, Title: loc.T("lookup.correlationTitle")}
}

func verifyVM(loc *i18n.Localizer, submittedID string, c store.LookupCall, now time.Time) *views.LookupVerifyVM {
	vm := &views.LookupVerifyVM{SubmittedID: submittedID, Code: c.Code}
	if c.Failure != nil {
		vm.Error = failureWords(loc, c.Failure)
		return vm
	}
	switch c.Code {
	case "registered":
		if c.AttainmentType == schedule.AttainmentCourseUnit {
			vm.Says = loc.T("lookup.verify.courseUnit", "ID", c.AttainmentID)
		} else {
			vm.Says = loc.T("lookup.verify.item", "ID", c.AttainmentID)
		}
	case "notRegistered":
		vm.Says = loc.T("lookup.verify.notRegistered")
	case "submissionPending":
		vm.Says = loc.T("lookup.verify.pending")
		if c.RetryAfter != nil {
			vm.Says = loc.T("lookup.verify.pendingUntil", "At", loc.At(*c.RetryAfter, now))
		}
	case "misregistered":
		vm.Says = loc.T("lookup.verify.misregistered")
	default:
		vm.Says = loc.T("lookup.verify.unknown")
	}
	return vm
}

func attainmentsNote(loc *i18n.Localizer, rec store.LookupRecord) string {
	var notes []string
	switch rec.AttainmentsCall.Code {
	case "enrolmentNotFound", "enrolmentNotAccepted":
		notes = append(notes, loc.T("lookup.note.noEnrolment", "Code", rec.AttainmentsCall.Code))
	}
	if rec.Skipped > 0 {
		notes = append(notes, loc.T("lookup.note.skipped", "Count", rec.Skipped))
	}
	notes = append(notes, loc.T("lookup.note.tenYears"))
	return strings.Join(notes, " ")
}

func typeLabel(loc *i18n.Localizer, t string) string {
	switch t {
	case schedule.AttainmentCourseUnit:
		return loc.T("lookup.type.courseUnit")
	case schedule.AttainmentAssessmentItem:
		return loc.T("lookup.type.assessmentItem")
	}
	return dash(t)
}

// gradeLabel shows a grade as a person reads it: the pass/fail scale's ids mean nothing alone.
func gradeLabel(loc *i18n.Localizer, scale, grade string) string {
	if grade == "" {
		return "—"
	}
	if schedule.ScaleFamily(scale) == "sis-hyl-hyv" {
		switch grade {
		case "0":
			return loc.T("lookup.grade.fail")
		case "1":
			return loc.T("lookup.grade.pass")
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
func took(loc *i18n.Localizer, ms int64) string {
	if ms < 1000 {
		return loc.T("lookup.ms", "N", ms)
	}
	return loc.T("lookup.s", "N", strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64))
}

// lookupTitle names a lookup in the history: its verdict, or that it failed.
func lookupTitle(loc *i18n.Localizer, e store.Event) string {
	rec, ok := store.ReadLookupRecord(e.Details)
	if !ok || rec.V != store.LookupRecordVersion {
		return loc.T("lookup.title")
	}
	if rec.Verdict == nil {
		return loc.T("lookup.title.failed", "Took", took(loc, rec.DurationMS))
	}
	return loc.T("lookup.title.verdict", "Verdict", loc.Code("verdict", string(rec.Details().Badge())), "Took", took(loc, rec.DurationMS))
}
