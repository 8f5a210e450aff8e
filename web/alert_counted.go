package web

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// alertCountedShow is what an alert that counts Suotar's calls and answers, completions or time
// counted, read now with the rule's own statements: GET /alerts/counted/{rule}. Its number stands
// on top, as the alert's banner and mail give it, and the things counted below, each opening its
// registration, student or course.
func (s *Server) alertCountedShow(w http.ResponseWriter, r *http.Request) error {
	rule := schedule.AlertRule(r.PathValue("rule"))
	if !slices.Contains(store.CountedRules, rule) {
		return errNotFound
	}
	now := s.clock()
	ev, err := s.store.AlertEvidenceGet(r.Context(), now, rule)
	if err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	title, _, explain := views.AlertText(loc, schedule.Alert{Rule: rule})
	vm := views.AlertCountedVM{Page: s.page(r, title), Rule: string(rule), Title: title, Explanation: explain,
		Onward: schedule.RowsPath(rule)}
	// Each counted rule has its own words for the list and the way onward (catalogue keys
	// counted.total.<rule> and counted.onward.<rule>).
	totalKey, onwardKey := "counted.total."+string(rule), "counted.onward."+string(rule)
	vm.OnwardLabel = loc.T(onwardKey)
	// The facts hold only this rule's numbers, so Evaluate fires at most its alert.
	var firing *schedule.Alert
	for _, a := range schedule.Evaluate(ev.Facts, now) {
		if a.Rule == rule {
			firing = &a
		}
	}
	if firing != nil {
		_, vm.Summary, _ = views.AlertText(loc, *firing)
	} else {
		vm.NotFiring = loc.T("counted.notFiring")
	}
	registration := func(id string) string { return "/registrations/" + id }
	switch rule {
	case schedule.RuleCredentialsRejected, schedule.RuleStudyRegistryUnreachable:
		vm.Total = strconv.Itoa(len(ev.Calls))
		vm.TotalLabel = loc.T(totalKey, "Count", len(ev.Calls))
		vm.Columns = []string{loc.T("counted.col.at"), loc.T("counted.col.endpoint"), loc.T("counted.col.items")}
		for _, c := range ev.Calls {
			vm.Rows = append(vm.Rows, views.AlertCountedRowVM{URL: registration(c.RegistrationID),
				Cells: []string{loc.AtDated(c.At, now), endpointWords(loc, c.Endpoint), loc.Count(int64(c.Items))}})
		}
	case schedule.RuleSisuUnavailable:
		vm.Total = strconv.Itoa(ev.Facts.SisuBlamed)
		vm.TotalLabel = loc.T(totalKey, "Count", ev.Facts.SisuBlamed, "Of", ev.Facts.SisuItems)
		if len(ev.Items) < ev.Facts.SisuBlamed {
			vm.More = loc.T("counted.more", "Shown", len(ev.Items))
		}
		vm.Columns = []string{loc.T("counted.col.at"), loc.T("counted.col.answer")}
		for _, it := range ev.Items {
			vm.Rows = append(vm.Rows, views.AlertCountedRowVM{URL: registration(it.RegistrationID),
				Cells: []string{loc.AtDated(it.At, now), loc.Code("error", it.ErrorCode)}})
		}
	case schedule.RuleCompletionsNeverEntered:
		vm.Total = strconv.Itoa(len(ev.Completions))
		vm.TotalLabel = loc.T(totalKey, "Count", len(ev.Completions))
		vm.Columns = []string{loc.T("counted.col.student"), loc.T("counted.col.course"), loc.T("counted.col.module"), loc.T("counted.col.completed")}
		for _, c := range ev.Completions {
			vm.Rows = append(vm.Rows, views.AlertCountedRowVM{URL: "/students/" + c.StudentID,
				Cells: []string{cmpName(c.StudentName, loc.T("counted.noName")), c.CourseName, cmpName(c.ModuleName, loc.T("counted.defaultModule")), loc.AtDated(c.CompletedAt, now)}})
		}
	case schedule.RuleConfirmationLatencyRegressed:
		// The alert's number is a time (the week's p95), said by its summary; the list is the
		// week's slowest confirmations behind it.
		vm.TotalLabel = loc.T(totalKey, "Count", ev.RegisteredThisWeek, "Shown", len(ev.Slowest))
		if firing == nil && ev.Facts.LatencyThisWeek != nil {
			vm.NotFiring += " " + loc.T("counted.latencyNow", "This", loc.Span(*ev.Facts.LatencyThisWeek))
		}
		vm.Columns = []string{loc.T("counted.col.took"), loc.T("counted.col.sent"), loc.T("counted.col.confirmed")}
		for _, l := range ev.Slowest {
			vm.Rows = append(vm.Rows, views.AlertCountedRowVM{URL: registration(l.RegistrationID),
				Cells: []string{loc.Span(l.Took().Round(time.Minute)), loc.AtDated(l.SubmittedAt, now), loc.AtDated(l.RegisteredAt, now)}})
		}
	}
	return s.render(w, r, http.StatusOK, views.AlertCountedPage(vm), nil)
}

// endpointWords names a Suotar endpoint in words, its code after them as the detail support
// quotes to the registry.
func endpointWords(loc *i18n.Localizer, code string) string {
	if words := loc.Code("suotarEndpoint", code); words != code {
		return words + " (" + code + ")"
	}
	return code
}

// cmpName is name, or fallback when the LMS has none.
func cmpName(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}
