package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

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
		reg, err := s.store.RegistrationGet(r.Context(), id, s.courseScope(r))
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
	return s.render(w, r, http.StatusOK, views.RegistrationPage(vm), nil)
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
	vm := views.RegistrationVM{
		Page:       s.page(r, reg.StudentName+" · "+reg.CourseName),
		ID:         reg.ID,
		Header:     registrationHeaderVM(i18n.From(r.Context()), reg, now),
		Lookup:     s.lookupVM(reg, page.Events, now),
		Properties: registrationProperties(reg, now),
		Events:     eventVMs(reg.ID, page.Events, now),
	}
	if vm.Alert, err = s.registrationAlert(r, q, page, now); err != nil {
		return views.RegistrationVM{}, err
	}
	if actorFrom(ctx).CanAct() {
		vm.Claim = s.claimPanelVM(r, reg.ID, reg.ClaimColumns, now)
		vm.Actions = actionsVM(page, now)
	} else {
		// Teachers read; the route refuses their lookups, so the page does not offer one.
		vm.Lookup.Unavailable = msgLookupNotYours
	}
	for _, a := range page.Attempts {
		vm.Attempts = append(vm.Attempts, views.AttemptVM{
			Label:   fmt.Sprintf("Attempt %d", a.AttemptNumber),
			URL:     "/registrations/" + a.ID,
			State:   string(a.State),
			When:    views.NewWhen(&a.CreatedAt, now),
			Current: a.ID == reg.ID,
		})
	}
	return vm, nil
}

func registrationHeaderVM(loc *i18n.Localizer, reg store.Registration, now time.Time) views.RegistrationHeaderVM {
	facts := reg.ScheduleRow()
	st := schedule.Classify(facts, now)
	h := views.RegistrationHeaderVM{
		StudentName:      reg.StudentName,
		StudentURL:       "/students/" + reg.StudentID,
		StudentNumber:    store.Deref(reg.StudentNumber),
		StudentEmail:     reg.StudentEmail,
		Course:           reg.CourseName,
		Module:           reg.ModuleName,
		CourseCode:       store.Deref(reg.UhCourseCode),
		State:            string(reg.State),
		StateLabel:       loc.Code("state", string(reg.State)),
		StateExplanation: loc.CodeExplain("state", string(reg.State)),
		Phase:            string(st.Phase),
		PhaseLabel:       loc.Code("phase", string(st.Phase)),
		PhaseExplanation: loc.CodeExplain("phase", string(st.Phase)),
		NeedsAdmin:       st.NeedsAdmin,
		Dismissed:        st.Dismissed,
		Reasons:          reasonVMs(loc, st, facts.DismissedReasons),
		NextCheck:        loc.When(st.NextCheckAt, now),
		Escalates:        loc.When(st.EscalatesAt, now),
		ErrorCode:        string(reg.ErrorCode),
		ErrorMessage:     store.Deref(reg.ErrorMessage),
		DrawnAt:          views.ISO(now),
	}
	if reg.ErrorCode != "" {
		h.ErrorLabel = reg.ErrorCode.Explanation()
	}
	if reg.SupersededByID != nil {
		h.Superseded = "A later attempt replaced this one; act on the later attempt."
	}
	return h
}

func timeProperty(label string, t *time.Time, now time.Time) views.Property {
	if t == nil {
		return views.Property{Label: label, Value: "—"}
	}
	w := views.NewWhen(t, now)
	return views.Property{Label: label, Value: w.Abs + " (" + w.Rel + ")", Title: w.ISO}
}

func strProperty(label string, v *string, mono bool) views.Property {
	if v == nil || *v == "" {
		return views.Property{Label: label, Value: "—"}
	}
	return views.Property{Label: label, Value: *v, Mono: mono}
}

func registrationProperties(reg store.Registration, now time.Time) []views.PropertyGroup {
	attained := "—"
	if reg.AttainedAt != nil {
		attained = schedule.HelsinkiDate(*reg.AttainedAt).String()
	}
	realisation := ""
	if n := reg.SelectedEnrolmentRealisationName; n != nil {
		realisation = firstNonEmpty(n["en"], n["fi"], n["sv"])
	}
	return []views.PropertyGroup{
		{Title: "What was sent to Sisu (frozen payload)", Properties: []views.Property{
			strProperty("Student number", reg.FrozenStudentNumber, true),
			strProperty("Sisu person", reg.SisuPersonID, true),
			strProperty("Course code", reg.FrozenCourseCode, true),
			strProperty("Enrolment", reg.SelectedEnrolmentID, true),
			strProperty("Enrolment kind", reg.SelectedEnrolmentKind, false),
			{Label: "Realisation", Value: firstNonEmpty(realisation, "—")},
			{Label: "Attainment date", Value: attained, Title: "The Helsinki date of attained_at, which Sisu records"},
			strProperty("Grade scale", reg.GradeScaleID, true),
			strProperty("Grade", reg.GradeID, true),
			{Label: "Credits", Value: views.Credits(reg.Credits)},
			strProperty("Language", reg.AttainmentLanguage, false),
		}},
		{Title: "Suotar and Sisu", Properties: []views.Property{
			strProperty("Submitted attainment", reg.SubmittedAttempt, true),
			strProperty("Submitted type", reg.SubmittedAttainmentType, false),
			strProperty("Sisu attainment", reg.SisuAttainmentID, true),
			strProperty("Sisu type", reg.SisuAttainmentType, false),
			timeProperty("Submitted", reg.SubmittedAt, now),
			timeProperty("Partly registered since", reg.PartiallyRegisteredAt, now),
			timeProperty("Do not resend before", reg.ResubmitNotBefore, now),
			timeProperty("Registered", reg.RegisteredAt, now),
		}},
		{Title: "Pipeline bookkeeping", Properties: []views.Property{
			{Label: "Attempt", Value: strconv.Itoa(int(reg.AttemptNumber))},
			timeProperty("In this state since", &reg.StateChangedAt, now),
			timeProperty("Last touched", &reg.StateEnteredAt, now),
			timeProperty("Next attempt", &reg.NextAttemptAt, now),
			timeProperty("Last attempt", reg.LastAttemptAt, now),
			timeProperty("First failure", reg.FirstFailedAt, now),
			{Label: "Failed submits", Value: strconv.Itoa(int(reg.SubmitRetryCount))},
			{Label: "Verify polls", Value: strconv.Itoa(int(reg.VerifyAttemptCount))},
			{Label: "Lost by Suotar", Value: strconv.Itoa(int(reg.NotRegisteredReimportCount)), Title: "notRegistered answers that sent the row back to import"},
			{Label: "Pipeline flag", Value: yesNo(reg.NeedsAdminAttention)},
			timeProperty("Created", &reg.CreatedAt, now),
			{Label: "Row id", Value: reg.ID, Mono: true},
		}},
	}
}

// eventVMs is the row's history as the page shows it: hand actions with who, why and a link to
// their audit entry, Suotar exchanges with what was sent beside what came back.
func eventVMs(registrationID string, events []store.Event, now time.Time) []views.EventVM {
	out := make([]views.EventVM, 0, len(events))
	for _, e := range events {
		vm := views.EventVM{
			When:    views.NewWhen(&e.CreatedAt, now),
			Kind:    e.Kind,
			Title:   eventTitle(e),
			Actor:   store.Deref(e.ActorName),
			Message: store.Deref(e.Message),
		}
		if e.Kind == "admin_action" {
			vm.Reason, vm.Message = vm.Message, ""
			a := store.ReadActionEventDetails(e.Details)
			if a.AuditID != "" {
				vm.AuditURL = "/audit?registration=" + registrationID + "#audit-" + a.AuditID
			}
			vm.Note = actionNote(a.Risk, a.DismissedReasons)
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
func actionNote(risk schedule.RiskLabel, dismissed []schedule.Reason) string {
	var notes []string
	if risk.NeedsConfirmation() {
		notes = append(notes, "Accepted the risk: "+risk.Label()+".")
	}
	if len(dismissed) > 0 {
		labels := make([]string, len(dismissed))
		for i, r := range dismissed {
			labels[i] = r.Label()
		}
		notes = append(notes, "Dismissed: "+strings.Join(labels, ", ")+".")
	}
	return strings.Join(notes, " ")
}

func eventTitle(e store.Event) string {
	move := ""
	switch {
	case e.FromState != nil && e.ToState != nil && *e.FromState != *e.ToState:
		move = *e.FromState + " → " + *e.ToState
	case e.ToState != nil:
		move = *e.ToState
	}
	var parts []string
	switch e.Kind {
	case "created":
		parts = append(parts, "Created")
	case "state_changed":
		parts = append(parts, "State changed")
	case "suotar_response":
		parts = append(parts, "Suotar answered")
		if e.SuotarEndpoint != nil {
			parts = append(parts, "("+*e.SuotarEndpoint+")")
		}
	case "retry_scheduled":
		parts = append(parts, "Retry scheduled")
	case "admin_action":
		parts = append(parts, "Hand action")
		if a := store.ReadActionEventDetails(e.Details).Action; a.Valid() {
			parts = append(parts, "·", a.Label())
		}
	case "student_action":
		parts = append(parts, "Student action")
	case "cancelled":
		parts = append(parts, "Cancelled")
	case "sisu_lookup":
		parts = append(parts, lookupTitle(e))
	default:
		parts = append(parts, e.Kind)
	}
	if move != "" {
		parts = append(parts, "·", move)
	}
	if e.ErrorCode != nil {
		parts = append(parts, "·", *e.ErrorCode)
	}
	return strings.Join(parts, " ")
}

func yesNo(b bool) string {
	if b {
		return "raised"
	}
	return "not raised"
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
