package web

import (
	"net/http"
	"slices"
	"strconv"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
)

// settingsShow is the person's settings, a page of sections: GET /settings.
func (s *Server) settingsShow(w http.ResponseWriter, r *http.Request) error {
	a := actorFrom(r.Context())
	set, err := s.store.AlertSettingsGet(r.Context(), a.ID)
	if err != nil {
		return err
	}
	vm := views.SettingsPageVM{Page: s.page(r, "Settings"), Mail: settingsMailVM(a, set)}
	return s.render(w, r, http.StatusOK, views.SettingsPage(vm), nil)
}

func settingsMailVM(a *Actor, set store.AlertSettings) views.SettingsMailVM {
	vm := views.SettingsMailVM{Defaults: !set.Saved, ShowTeacherWeekly: a.Role == RoleTeacher, TeacherWeekly: set.TeacherWeekly,
		Digest: set.DigestHour != nil}
	if set.ImmediateMin != 0 {
		vm.Immediate = set.ImmediateMin.String()
	}
	for _, sev := range schedule.Severities() {
		vm.Severities = append(vm.Severities, views.Option{Value: sev.String(), Label: sev.Label(), Selected: sev == set.ImmediateMin})
	}
	for _, r := range schedule.AlertRules() {
		vm.Kinds = append(vm.Kinds, views.CheckOption{Value: string(r), Label: r.Label(), Hint: r.Explanation(), Checked: slices.Contains(set.Rules, r)})
	}
	hour := store.DefaultDigestHour
	if set.DigestHour != nil {
		hour = *set.DigestHour
	}
	for h := range 24 {
		vm.Hours = append(vm.Hours, views.Option{Value: strconv.Itoa(h), Label: strconv.Itoa(h), Selected: h == hour})
	}
	return vm
}

// settingsMailSave saves the person's alert mails: POST /settings/mail. A choice regdesk does not
// offer is refused in words and nothing is saved.
func (s *Server) settingsMailSave(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	a := actorFrom(r.Context())
	f := r.PostForm
	var set store.AlertSettings
	problem := ""
	if v := f.Get("immediate"); v != "" {
		sev, err := schedule.ParseSeverity(v)
		if err != nil {
			problem = "Choose info, warning, critical or nothing for the mails at once."
		}
		set.ImmediateMin = sev
	}
	for _, k := range f["kind"] {
		rule, err := schedule.ParseAlertRule(k)
		if err != nil {
			problem = "One of the ticked kinds is not an alert regdesk knows; reload the page."
			break
		}
		set.Rules = append(set.Rules, rule)
	}
	if f.Get("digest") == "1" {
		h, err := strconv.Atoi(f.Get("digest_hour"))
		if err != nil || h < 0 || h > 23 {
			problem = "Choose the digest's hour, 0 to 23."
		}
		set.DigestHour = &h
	}
	set.TeacherWeekly = f.Get("teacher_weekly") == "1" && a.Role == RoleTeacher
	if problem != "" {
		vm := settingsMailVM(a, set)
		vm.Error, vm.Defaults = problem, false
		return s.render(w, r, http.StatusUnprocessableEntity,
			views.SettingsPage(views.SettingsPageVM{Page: s.page(r, "Settings"), Mail: vm}), views.SettingsMail(vm))
	}
	if err := s.store.AlertSettingsSave(r.Context(), a.ID, a.ID, set, s.clock()); err != nil {
		return err
	}
	if wantsFragment(r) {
		set.Saved = true
		vm := settingsMailVM(a, set)
		vm.Saved = true
		return s.render(w, r, http.StatusOK, nil, views.SettingsMail(vm))
	}
	s.setFlash(r, "Your alert mails are saved.")
	redirect(w, r, "/settings")
	return nil
}
