package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// registrationShow is a registration's page: GET /registrations/{id}. It shows the pipeline's
// internals (states, codes, Suotar's requests and answers), which are support's; a teacher is
// sent to the registration on its student's page, in plain words, with the alert time the link
// carried.
func (s *Server) registrationShow(w http.ResponseWriter, r *http.Request) error {
	if !seesPipeline(actorFrom(r.Context())) {
		id, err := pathID(r)
		if err != nil {
			return err
		}
		q, err := query(r)
		if err != nil {
			return err
		}
		reg, err := s.store.RegistrationGet(r.Context(), s.clock(), id, s.courseScope(r))
		if err != nil {
			return err
		}
		to := "/students/" + reg.StudentID
		if at := q.Get("alerted_at"); at != "" {
			to += "?" + url.Values{"alerted_at": {at}}.Encode()
		}
		http.Redirect(w, r, to+"#reg-"+reg.ID, http.StatusSeeOther)
		return nil
	}
	vm, err := s.registrationVM(r, r.PathValue("id"), s.clock())
	if err != nil {
		return err
	}
	// The queue's side panel asks for the top of the page alone (keys.js, with Enter): the same
	// read as the page, drawn smaller.
	var panel templ.Component
	if r.Header.Get("HX-Target") == views.IDQueuePanel {
		// The panel has no lookup region for a lookup's answer to land in: the step says to
		// look it up, and the whole page does it.
		vm.Decision.LookupURL = ""
		panel = views.RegistrationPanel(vm)
	}
	return s.render(w, r, http.StatusOK, views.RegistrationPage(vm), panel)
}

// registrationVM builds the registration page as this person may see it at now, from one read of
// the row: the hand-action panel only for people who may act (hidden, not disabled, for the
// others), its forms carrying the version and lookup the page shows.
func (s *Server) registrationVM(r *http.Request, id string, now time.Time) (views.RegistrationVM, error) {
	if !store.IsUUID(id) {
		return views.RegistrationVM{}, errNotFound
	}
	ctx := r.Context()
	q, err := query(r)
	if err != nil {
		return views.RegistrationVM{}, err
	}
	page, err := s.store.RegistrationPageGet(ctx, now, id, s.courseScope(r))
	if err != nil {
		return views.RegistrationVM{}, err
	}
	reg := page.Registration
	loc := i18n.From(ctx)
	vm := views.RegistrationVM{
		Page:       s.page(r, reg.StudentName+" · "+reg.CourseName),
		ID:         reg.ID,
		Header:     registrationHeaderVM(loc, reg, now),
		Lookup:     s.lookupVM(loc, page, now),
		Properties: registrationProperties(loc, reg, now),
		Events:     eventVMs(loc, reg.ID, page.Events, now),
	}
	if vm.Alert, err = s.registrationAlert(r, q, page, now); err != nil {
		return views.RegistrationVM{}, err
	}
	canAct := actorFrom(ctx).CanAct()
	if canAct {
		vm.Claim = s.claimPanelVM(r, reg.ID, reg.ClaimColumns, now)
		vm.Actions = actionsVM(loc, page, now)
	} else {
		// Teachers read; the route refuses their lookups, so the page does not offer one, nor
		// advice on an action they cannot take.
		vm.Lookup.Unavailable = loc.T("lookup.notYours")
		if vm.Lookup.Last != nil {
			vm.Lookup.Last.Verdict.Advice = nil
		}
	}
	var recommended schedule.Action
	vm.Decision, recommended = decisionVM(loc, page, vm.Lookup, canAct, now)
	orderActions(vm.Actions, recommended)
	for _, a := range page.Attempts {
		vm.Attempts = append(vm.Attempts, views.AttemptVM{
			Label:   loc.T("reg.attemptN", "N", a.AttemptNumber),
			URL:     "/registrations/" + a.ID,
			State:   stateVM(loc, string(a.State)),
			When:    loc.When(&a.CreatedAt, now),
			Current: a.ID == reg.ID,
		})
	}
	return vm, nil
}

func registrationHeaderVM(loc *i18n.Localizer, reg store.Registration, now time.Time) views.RegistrationHeaderVM {
	facts := reg.ScheduleRow()
	st := reg.Status(now)
	h := views.RegistrationHeaderVM{
		StudentName:      reg.StudentName,
		StudentURL:       "/students/" + reg.StudentID,
		StudentNumber:    store.Deref(reg.StudentNumber),
		StudentEmail:     reg.StudentEmail,
		Course:           reg.CourseName,
		Module:           moduleLabel(loc, reg.ModuleName),
		CourseCode:       store.Deref(reg.UhCourseCode),
		State:            string(reg.State),
		StateLabel:       loc.Code("state", string(reg.State)),
		StateExplanation: loc.CodeExplain("state", string(reg.State)),
		Phase:            string(st.Phase),
		PhaseLabel:       loc.Code("phase", string(st.Phase)),
		PhaseExplanation: loc.CodeExplain("phase", string(st.Phase)),
		NeedsAdmin:       st.NeedsAdmin,
		Dismissed:        st.Dismissed,
		RunningLate:      st.Standing == schedule.StandingRunningLate,
		Reasons:          reasonVMs(loc, st, facts.DismissedReasons),
		ErrorCode:        string(reg.ErrorCode),
		ErrorMessage:     store.Deref(reg.ErrorMessage),
	}
	if reg.ErrorCode != "" {
		h.ErrorLabel = loc.CodeExplain("errorCode", string(reg.ErrorCode))
	}
	if p, ok := reg.BlockingProblem(now); ok {
		h.Explained = loc.T(explainedKey(p.Kind), "Subject", problemSubject(loc, p, reg))
	}
	if reg.SupersededByID != nil {
		h.Superseded = loc.T("reg.superseded")
	}
	return h
}

func timeProperty(loc *i18n.Localizer, label string, t *time.Time, now time.Time) views.Property {
	if t == nil {
		return views.Property{Label: label, Value: "—"}
	}
	w := loc.When(t, now)
	if w.Dated {
		return views.Property{Label: label, Value: w.Abs, Title: w.ISO}
	}
	return views.Property{Label: label, Value: w.Abs + " (" + w.Rel + ")", Title: w.ISO}
}

func strProperty(label string, v *string, mono bool) views.Property {
	if v == nil || *v == "" {
		return views.Property{Label: label, Value: "—"}
	}
	return views.Property{Label: label, Value: *v, Mono: mono}
}

// stateVM is a registration state's code with its words; the zero CodeVM for no state.
func stateVM(loc *i18n.Localizer, state string) views.CodeVM {
	if state == "" {
		return views.CodeVM{}
	}
	return views.CodeVM{Code: state, Label: loc.Code("state", state)}
}

// codeProperty is a property whose value is a code of kind: in words when the catalogue has them,
// the code beside.
func codeProperty(loc *i18n.Localizer, label, kind string, v *string) views.Property {
	p := strProperty(label, v, false)
	if v != nil && *v != "" && loc.Has(kind+"."+*v) {
		p.Value, p.Code = loc.Code(kind, *v), *v
	}
	return p
}

func registrationProperties(loc *i18n.Localizer, reg store.Registration, now time.Time) []views.PropertyGroup {
	attained := "—"
	if reg.AttainedAt != nil {
		attained = schedule.HelsinkiDate(*reg.AttainedAt).String()
	}
	realisation := ""
	if n := reg.SelectedEnrolmentRealisationName; n != nil {
		realisation = firstNonEmpty(n[string(loc.Lang)], n["en"], n["fi"], n["sv"])
	}
	return []views.PropertyGroup{
		{Title: loc.T("reg.prop.what_was_sent_to_sisu_frozen_payload"), Properties: []views.Property{
			strProperty(loc.T("reg.prop.student_number"), reg.FrozenStudentNumber, true),
			strProperty(loc.T("reg.prop.sisu_person"), reg.SisuPersonID, true),
			strProperty(loc.T("reg.prop.course_code"), reg.FrozenCourseCode, true),
			strProperty(loc.T("reg.prop.enrolment"), reg.SelectedEnrolmentID, true),
			codeProperty(loc, loc.T("reg.prop.enrolment_kind"), "enrolmentKind", reg.SelectedEnrolmentKind),
			{Label: loc.T("reg.prop.realisation"), Value: firstNonEmpty(realisation, "—")},
			{Label: loc.T("reg.prop.attainment_date"), Value: attained, Title: loc.T("reg.prop.the_helsinki_date_of_attained_at_which_sisu_records")},
			strProperty(loc.T("reg.prop.grade_scale"), reg.GradeScaleID, true),
			strProperty(loc.T("reg.prop.grade"), reg.GradeID, true),
			{Label: loc.T("reg.prop.credits"), Value: i18n.Credits(loc, reg.Credits)},
			strProperty(loc.T("reg.prop.language"), reg.AttainmentLanguage, false),
		}},
		{Title: loc.T("reg.prop.suotar_and_sisu"), Properties: []views.Property{
			strProperty(loc.T("reg.prop.submitted_attainment"), reg.SubmittedAttempt, true),
			codeProperty(loc, loc.T("reg.prop.submitted_type"), "attainmentType", reg.SubmittedAttainmentType),
			strProperty(loc.T("reg.prop.sisu_attainment"), reg.SisuAttainmentID, true),
			codeProperty(loc, loc.T("reg.prop.sisu_type"), "attainmentType", reg.SisuAttainmentType),
			timeProperty(loc, loc.T("reg.prop.submitted"), reg.SubmittedAt, now),
			timeProperty(loc, loc.T("reg.prop.partly_registered_since"), reg.PartiallyRegisteredAt, now),
			timeProperty(loc, loc.T("reg.prop.do_not_resend_before"), reg.ResubmitNotBefore, now),
			timeProperty(loc, loc.T("reg.prop.registered"), reg.RegisteredAt, now),
		}},
		{Title: loc.T("reg.prop.pipeline_bookkeeping"), Properties: []views.Property{
			{Label: loc.T("reg.prop.attempt"), Value: loc.Count(int64(reg.AttemptNumber))},
			timeProperty(loc, loc.T("reg.prop.in_this_state_since"), &reg.StateChangedAt, now),
			timeProperty(loc, loc.T("reg.prop.last_touched"), &reg.StateEnteredAt, now),
			timeProperty(loc, loc.T("reg.prop.next_attempt"), &reg.NextAttemptAt, now),
			timeProperty(loc, loc.T("reg.prop.last_attempt"), reg.LastAttemptAt, now),
			timeProperty(loc, loc.T("reg.prop.first_failure"), reg.FirstFailedAt, now),
			{Label: loc.T("reg.prop.failed_submits"), Value: loc.Count(int64(reg.SubmitRetryCount))},
			{Label: loc.T("reg.prop.verify_polls"), Value: loc.Count(int64(reg.VerifyAttemptCount))},
			{Label: loc.T("reg.prop.lost_by_suotar"), Value: loc.Count(int64(reg.NotRegisteredReimportCount)), Title: loc.T("reg.prop.notregistered_answers_that_sent_the_row_back_to_import")},
			{Label: loc.T("reg.prop.pipeline_flag"), Value: yesNo(loc, reg.NeedsAdminAttention)},
			timeProperty(loc, loc.T("reg.prop.created"), &reg.CreatedAt, now),
			{Label: loc.T("reg.prop.row_id"), Value: reg.ID, Mono: true},
		}},
	}
}

// eventVMs is the row's history as the page shows it: hand actions with who, why and a link to
// their audit entry, Suotar exchanges with what was sent beside what came back.
func eventVMs(loc *i18n.Localizer, registrationID string, events []store.Event, now time.Time) []views.EventVM {
	out := make([]views.EventVM, 0, len(events))
	for _, e := range events {
		vm := views.EventVM{
			When:    loc.When(&e.CreatedAt, now),
			Kind:    e.Kind,
			Actor:   store.Deref(e.ActorName),
			Message: store.Deref(e.Message),
		}
		vm.Title, vm.Codes = eventTitle(loc, e)
		if e.Kind == "admin_action" {
			// The LMS's event of a hand action: its message is the person's reason.
			vm.Reason, vm.Message = vm.Message, ""
			vm.AuditURL = "/audit?registration=" + registrationID
		}
		if e.Kind == "sisu_lookup" {
			// The message column holds the verdict in English; a record that keeps its phrases
			// says it in the reader's language (the title names the verdict already).
			if rec, ok := store.ReadLookupRecord(e.Details); ok && rec.Verdict != nil && len(rec.Verdict.Say) > 0 {
				vm.Message = loc.Sentences(rec.Verdict.Say, now)
			}
		}
		var parts map[string]json.RawMessage
		if json.Unmarshal(e.Details, &parts) == nil && (parts["request"] != nil || parts["response"] != nil) {
			vm.Request, vm.Response = indentJSON(parts["request"]), indentJSON(parts["response"])
		} else {
			vm.Detail = indentJSON(e.Details)
		}
		if n := len(out); n > 0 && sameAnswer(out[n-1], vm) {
			// Newest first: vm is an earlier poll with the same outcome as the entry above it.
			out[n-1].Repeats++
			out[n-1].Since = vm.When
			continue
		}
		out = append(out, vm)
	}
	return out
}

// sameAnswer reports whether b, the entry just before a, is the pipeline doing the same thing
// with the same outcome (a partial row polled every hour for days). Those fold into a, so the
// history shows what changed; people's actions and lookups never fold.
func sameAnswer(a, b views.EventVM) bool {
	return a.Actor == "" && b.Actor == "" && a.Kind == b.Kind &&
		(a.Kind == "suotar_response" || a.Kind == "retry_scheduled") &&
		a.Title == b.Title && a.Message == b.Message
}

// indentJSON shows a JSON value indented; "" for none or null.
func indentJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return ""
	}
	return buf.String()
}

// actionNote says what a hand action carried beyond its reason: an accepted risk, dismissed
// reasons.
func actionNote(loc *i18n.Localizer, risk schedule.RiskLabel, dismissed []schedule.Reason) string {
	var notes []string
	if risk.NeedsConfirmation() {
		notes = append(notes, loc.T("reg.note.risk", "Risk", loc.Code("risk", string(risk))))
	}
	if len(dismissed) > 0 {
		labels := make([]string, len(dismissed))
		for i, r := range dismissed {
			labels[i] = loc.Code("reason", string(r))
		}
		notes = append(notes, loc.T("reg.note.dismissed", "Reasons", strings.Join(labels, ", ")))
	}
	return strings.Join(notes, " ")
}

func eventTitle(loc *i18n.Localizer, e store.Event) (title, codes string) {
	var move, moveCodes string
	switch {
	case e.FromState != nil && e.ToState != nil && *e.FromState != *e.ToState:
		move = loc.Code("state", *e.FromState) + " → " + loc.Code("state", *e.ToState)
		moveCodes = *e.FromState + " → " + *e.ToState
	case e.ToState != nil:
		move, moveCodes = loc.Code("state", *e.ToState), *e.ToState
	}
	var parts, codeParts []string
	switch e.Kind {
	case "created":
		parts = append(parts, loc.T("event.created"))
	case "state_changed":
		parts = append(parts, loc.T("event.state_changed"))
	case "suotar_response":
		parts = append(parts, loc.T("event.suotar_response"))
		if e.SuotarEndpoint != nil {
			parts = append(parts, "("+loc.Code("suotarEndpoint", *e.SuotarEndpoint)+")")
			codeParts = append(codeParts, *e.SuotarEndpoint)
		}
	case "retry_scheduled":
		parts = append(parts, loc.T("event.retry_scheduled"))
	case "admin_action":
		parts = append(parts, loc.T("event.admin_action"))
	case "student_action":
		parts = append(parts, loc.T("event.student_action"))
	case "cancelled":
		parts = append(parts, loc.T("event.cancelled"))
	case "sisu_lookup":
		parts = append(parts, lookupTitle(loc, e))
	default:
		parts = append(parts, e.Kind)
	}
	if move != "" {
		parts = append(parts, "·", move)
		codeParts = append(codeParts, moveCodes)
	}
	if e.ErrorCode != nil {
		parts = append(parts, "·", loc.Code("errorCode", *e.ErrorCode))
		codeParts = append(codeParts, *e.ErrorCode)
	}
	// The codes the words stand for, as secondary detail: the LMS's names, for the LMS's team.
	return strings.Join(parts, " "), strings.Join(codeParts, " · ")
}

func yesNo(loc *i18n.Localizer, b bool) string {
	if b {
		return loc.T("reg.flag.raised")
	}
	return loc.T("reg.flag.notRaised")
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// problemSubject names what problem p is about in words: a phase by its name, a course code as
// it is, a module by the row's module name.
func problemSubject(loc *i18n.Localizer, p schedule.BlockingProblem, reg store.Registration) string {
	if p.Kind == schedule.ProblemModuleMisconfigured {
		return moduleLabel(loc, reg.ModuleName)
	}
	return p.Subject
}

// explainedKey is the catalogue's sentence for a row held up by a problem of kind k.
func explainedKey(k schedule.BlockingProblemKind) string {
	switch k {
	case schedule.ProblemPhaseStopped:
		return "reg.explained.processing_phase_stopped"
	case schedule.ProblemCourseCodeFailing:
		return "reg.explained.course_code_failing"
	}
	return "reg.explained.module_misconfigured"
}
