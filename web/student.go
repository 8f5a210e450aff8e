package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// The student search's bounds. A query shorter than searchMinRunes clears the dropdown: one
// letter matches half the university. searchMaxRunes is the longest any name, e-mail address or
// student number needs; the box itself stops there.
const (
	searchMinRunes      = 2
	searchMaxRunes      = 100
	searchDropdownLimit = 8
	searchPageLimit     = 50
)

// searchQuery reads the search box's q, or says what is wrong with it.
func searchQuery(loc *i18n.Localizer, q url.Values) (query, problem string) {
	v := strings.TrimSpace(q.Get("q"))
	if !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
		return "", loc.T("search.notText")
	}
	if n := utf8.RuneCountInString(v); n > searchMaxRunes {
		return "", loc.T("search.tooLong", "N", n, "Max", searchMaxRunes)
	}
	return v, ""
}

// searchResults finds up to limit students for the query in q, within the person's courses. A
// problem with the query is a 422 with its message, never a search.
func (s *Server) searchResults(r *http.Request, q url.Values, limit int) (views.SearchResultsVM, int, error) {
	loc := i18n.From(r.Context())
	query, problem := searchQuery(loc, q)
	vm := views.SearchResultsVM{Query: query}
	if problem != "" {
		vm.Active, vm.Message = true, problem
		return vm, http.StatusUnprocessableEntity, nil
	}
	n := utf8.RuneCountInString(query)
	if n < searchMinRunes {
		return vm, http.StatusOK, nil
	}
	vm.Active = true
	scope := s.courseScope(r)
	// One more than shown tells whether there are more.
	rows, err := s.store.StudentSearch(r.Context(), query, scope, limit+1)
	if err != nil {
		return vm, 0, err
	}
	if len(rows) > limit {
		rows = rows[:limit]
		vm.MoreURL = "/students?q=" + url.QueryEscape(query)
	}
	for _, row := range rows {
		vm.Results = append(vm.Results, views.StudentResultVM{
			ID:            row.ID,
			URL:           "/students/" + row.ID,
			Name:          row.Name,
			Number:        store.Deref(row.StudentNumber),
			Email:         row.Email,
			Registrations: loc.T("course.total", "Count", row.RegistrationCount),
		})
	}
	if len(rows) == 0 {
		vm.Empty = loc.T("search.none", "Query", query)
		if n < 3 {
			vm.Empty = loc.T("search.noneShort", "Query", query)
		}
	}
	if !scope.All() {
		vm.ScopeNote = loc.T("search.scopeNote")
	}
	return vm, http.StatusOK, nil
}

// searchRefused turns checkInput's refusal of the search into the search box's own message, shown
// where the person types.
func searchRefused(ctx context.Context, err error) (views.SearchResultsVM, bool) {
	if e, ok := errors.AsType[*Error](err); ok && e.Field == "q" {
		return views.SearchResultsVM{Active: true, Message: e.text(ctx)}, true
	}
	return views.SearchResultsVM{}, false
}

// studentSearch is the search box's dropdown as the person types: GET /students/search?q=. Opened
// as a page (without htmx) it leads to the results page.
func (s *Server) studentSearch(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r)
	if vm, refused := searchRefused(r.Context(), err); refused {
		if !wantsFragment(r) {
			return s.render(w, r, http.StatusUnprocessableEntity, views.StudentsPage(views.StudentsVM{Page: s.page(r, i18n.T(r.Context(), "search.title")), Results: vm}), nil)
		}
		return s.render(w, r, http.StatusUnprocessableEntity, nil, views.SearchResults(vm))
	}
	if err != nil {
		return err
	}
	if !wantsFragment(r) {
		http.Redirect(w, r, "/students?"+url.Values{"q": {q.Get("q")}}.Encode(), http.StatusSeeOther)
		return nil
	}
	vm, status, err := s.searchResults(r, q, searchDropdownLimit)
	if err != nil {
		return err
	}
	return s.render(w, r, status, nil, views.SearchResults(vm))
}

// studentList is the search's results page, where the box leads without JavaScript: GET
// /students?q=.
func (s *Server) studentList(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r)
	if vm, refused := searchRefused(r.Context(), err); refused {
		return s.render(w, r, http.StatusUnprocessableEntity, views.StudentsPage(views.StudentsVM{Page: s.page(r, i18n.T(r.Context(), "search.title")), Results: vm}), nil)
	}
	if err != nil {
		return err
	}
	vm, status, err := s.searchResults(r, q, searchPageLimit)
	if err != nil {
		return err
	}
	switch {
	case vm.MoreURL != "":
		vm.MoreURL = ""
		vm.Summary = i18n.T(r.Context(), "search.firstN", "N", searchPageLimit)
	case len(vm.Results) > 0:
		vm.Summary = i18n.T(r.Context(), "search.matches", "Count", len(vm.Results))
	}
	page := s.page(r, i18n.T(r.Context(), "search.title"))
	page.SearchQuery = vm.Query
	return s.render(w, r, status, views.StudentsPage(views.StudentsVM{Page: page, Results: vm}), nil)
}

// studentShow is a student's page: every registration of theirs in the person's courses, newest
// first, in plain words: GET /students/{id}. A teacher asking for a student outside their courses
// gets the same 404 as for one who does not exist.
func (s *Server) studentShow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	q, err := query(r)
	if err != nil {
		return err
	}
	ctx, scope := r.Context(), s.courseScope(r)
	now := s.clock()
	alert := parseAlertedAt(q, now)
	page, err := s.store.StudentPageGet(ctx, now, id, scope, alert.since())
	if err != nil {
		return err
	}
	student, regs := page.Student, page.Registrations
	staff := seesPipeline(actorFrom(ctx))
	loc := i18n.From(ctx)
	vm := views.StudentVM{
		Page:   s.page(r, student.Name()),
		ID:     student.ID,
		Name:   student.Name(),
		Number: store.Deref(student.StudentNumber),
		Email:  student.Email,
		Empty:  loc.T("student.empty"),
	}
	sums := make([]schedule.StudentSummary, len(regs))
	for i, reg := range regs {
		sums[i] = reg.StudentView(reg.Preconditions(), now)
		card := registrationCardVM(loc, reg, sums[i], now, staff)
		if staff {
			card.Claim = s.claimVM(r, reg.ClaimColumns, now)
		}
		vm.Cards = append(vm.Cards, card)
	}
	if !scope.All() {
		vm.ScopeNote = loc.T("student.scopeNote")
	}
	vm.Alert = studentAlert(i18n.From(r.Context()), alert, page, sums, now)
	return s.render(w, r, http.StatusOK, views.StudentPage(vm), nil)
}

// seesPipeline reports whether a sees the pipeline's internal states and codes: support staff and
// admins do; teachers get the plain words only.
func seesPipeline(a *Actor) bool { return a != nil && a.Role != RoleTeacher }

// registrationCardVM says where reg stands in a teacher's words; with pipeline, also in the
// pipeline's.
func registrationCardVM(loc *i18n.Localizer, reg store.RegistrationOverview, sum schedule.StudentSummary, now time.Time, pipeline bool) views.RegistrationCardVM {
	at := func(t time.Time) string { return loc.At(t, now) }
	c := views.RegistrationCardVM{
		ID:                 reg.ID,
		Course:             reg.CourseName,
		CourseURL:          "/courses/" + reg.CourseID,
		Module:             moduleLabel(loc, reg.ModuleName),
		Grade:              gradeText(loc, reg.Grade, reg.GradeScaleID, reg.Passed),
		Credits:            creditsText(loc, reg.Credits),
		Completed:          loc.T("student.completed", "Date", loc.Date(reg.CompletionDate)),
		Status:             string(sum.Status),
		StatusLabel:        loc.Code("studentStatus", string(sum.Status)),
		StatusExplanation:  loc.CodeExplain("studentStatus", string(sum.Status)),
		WaitsOn:            string(sum.WaitsOn),
		WaitsOnLabel:       loc.Code("waitsOn", string(sum.WaitsOn)),
		WaitsOnExplanation: loc.CodeExplain("waitsOn", string(sum.WaitsOn)),
		Sentence:           nextSentence(loc, sum.Next, at),
		MessageID:          "message-" + reg.ID,
	}
	// The message goes to the student: in the course's language by default, switchable to the
	// others, each with its times dated, since it is read later and elsewhere.
	first := messageLanguage(reg, loc.Lang)
	c.MessageLang = string(first)
	langs := append([]i18n.Lang{first}, slices.DeleteFunc(slices.Clone(i18n.Langs), func(l i18n.Lang) bool { return l == first })...)
	for _, l := range langs {
		ml := i18n.For(l)
		m := views.StudentMessageVM{Lang: string(l), Name: l.Name(), ID: c.MessageID + "-" + string(l),
			Text: studentMessage(ml, sum, reg.CourseName, func(t time.Time) string { return ml.AtDated(t, now) })}
		if l == first {
			m.ID = c.MessageID
			c.Message = m.Text
		}
		c.Messages = append(c.Messages, m)
	}
	if reg.SupersededByID != nil {
		c.Replaced = loc.T("student.replaced")
	}
	if pipeline {
		st := sum.Classified
		p := &views.PipelineDetailsVM{
			URL:              "/registrations/" + reg.ID,
			State:            string(reg.State),
			StateLabel:       loc.Code("state", string(reg.State)),
			Phase:            string(st.Phase),
			PhaseLabel:       loc.Code("phase", string(st.Phase)),
			PhaseExplanation: loc.CodeExplain("phase", string(st.Phase)),
			ErrorCode:        string(reg.ErrorCode),
			NeedsAdmin:       st.NeedsAdmin,
			Reasons:          reasonVMs(loc, st, reg.ScheduleRow().DismissedReasons),
			NextCheck:        loc.When(instant(st.NextCheckAt), now),
			Escalates:        loc.When(instant(st.EscalatesAt), now),
		}
		if reg.ErrorCode != "" {
			p.ErrorLabel = loc.CodeExplain("errorCode", string(reg.ErrorCode))
		}
		if reg.AttemptNumber > 1 {
			p.Attempt = loc.Count(int64(reg.AttemptNumber))
		}
		c.Pipeline = p
	}
	return c
}

// messageLanguage is the language of a registration's course, for the message to its student:
// the language the attainment is registered in (Finnish courses' are "fi"), else the reader's.
func messageLanguage(reg store.RegistrationOverview, reader i18n.Lang) i18n.Lang {
	if reg.AttainmentLanguage != nil {
		if l, ok := i18n.Parse(*reg.AttainmentLanguage); ok {
			return l
		}
	}
	return reader
}

// gradeText puts a grade in words: "Grade 4 on the 0–5 scale", "Pass".
func gradeText(loc *i18n.Localizer, grade, scale *string, passed bool) string {
	if scale != nil && schedule.ScaleFamily(*scale) == "sis-hyl-hyv" {
		// Sisu's pass/fail scale: 1 is hyväksytty (pass), 0 hylätty (fail).
		if grade != nil && *grade == "0" {
			return loc.T("grade.fail")
		}
		return loc.T("grade.pass")
	}
	if grade == nil || *grade == "" {
		if passed {
			return loc.T("grade.pass")
		}
		return loc.T("grade.none")
	}
	switch {
	case scale == nil:
		return loc.T("grade.plain", "Grade", *grade)
	case *scale == "sis-0-5":
		return loc.T("grade.scale05", "Grade", *grade)
	case *scale == "sis-1-3":
		return loc.T("grade.scale13", "Grade", *grade)
	}
	return loc.T("grade.scale", "Grade", *grade, "Scale", *scale)
}

// creditsText is "5 credits", "2.5 credits", "1 credit" ("5 op", "2,5 sp").
func creditsText(loc *i18n.Localizer, c *float32) string {
	if c == nil {
		return loc.T("credits.unset")
	}
	return loc.T("credits.n", "Count", float64(*c), "N", i18n.Credits(loc, c))
}
