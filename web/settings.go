package web

import (
	"net/http"
	"slices"
	"strconv"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// settingsShow is the person's settings, a page of sections: GET /settings.
func (s *Server) settingsShow(w http.ResponseWriter, r *http.Request) error {
	a := actorFrom(r.Context())
	set, err := s.store.AlertSettingsGet(r.Context(), a.ID)
	if err != nil {
		return err
	}
	vm := views.SettingsPageVM{Page: s.page(r, i18n.T(r.Context(), "settings.title")), Mail: settingsMailVM(i18n.From(r.Context()), a, set)}
	if vm.Tokens, err = s.apiTokensVM(r, "", ""); err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, views.SettingsPage(vm), nil)
}

func settingsMailVM(loc *i18n.Localizer, a *Actor, set store.AlertSettings) views.SettingsMailVM {
	vm := views.SettingsMailVM{Defaults: !set.Saved, ShowTeacherWeekly: a.Role == RoleTeacher, TeacherWeekly: set.TeacherWeekly,
		Digest: set.DigestHour != nil}
	if set.ImmediateMin != 0 {
		vm.Immediate = set.ImmediateMin.String()
	}
	for _, sev := range schedule.Severities() {
		vm.Severities = append(vm.Severities, views.Option{Value: sev.String(), Label: loc.Code("severity", sev.String()), Selected: sev == set.ImmediateMin})
	}
	for _, r := range schedule.AlertRules() {
		vm.Kinds = append(vm.Kinds, views.CheckOption{Value: string(r), Label: loc.Code("alertRule", string(r)), Hint: loc.CodeExplain("alertRule", string(r)), Checked: slices.Contains(set.Rules, r)})
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
	loc := i18n.From(r.Context())
	f := r.PostForm
	var set store.AlertSettings
	problem := ""
	if v := f.Get("immediate"); v != "" {
		sev, err := schedule.ParseSeverity(v)
		if err != nil {
			problem = "settings.badSeverity"
		}
		set.ImmediateMin = sev
	}
	for _, k := range f["kind"] {
		rule, err := schedule.ParseAlertRule(k)
		if err != nil {
			problem = "settings.badKind"
			break
		}
		set.Rules = append(set.Rules, rule)
	}
	if f.Get("digest") == "1" {
		h, err := strconv.Atoi(f.Get("digest_hour"))
		if err != nil || h < 0 || h > 23 {
			problem = "settings.badHour"
		}
		set.DigestHour = &h
	}
	set.TeacherWeekly = f.Get("teacher_weekly") == "1" && a.Role == RoleTeacher
	if problem != "" {
		vm := settingsMailVM(loc, a, set)
		vm.Error, vm.Defaults = loc.T(problem), false
		tokens, err := s.apiTokensVM(r, "", "")
		if err != nil {
			return err
		}
		return s.render(w, r, http.StatusUnprocessableEntity,
			views.SettingsPage(views.SettingsPageVM{Page: s.page(r, loc.T("settings.title")), Mail: vm, Tokens: tokens}), views.SettingsMail(vm))
	}
	if err := s.store.AlertSettingsSave(r.Context(), a.ID, a.ID, set, s.clock()); err != nil {
		return err
	}
	if wantsFragment(r) {
		set.Saved = true
		vm := settingsMailVM(loc, a, set)
		vm.Saved = true
		return s.render(w, r, http.StatusOK, nil, views.SettingsMail(vm))
	}
	s.setFlash(r, loc.T("settings.savedFlash"))
	redirect(w, r, "/settings")
	return nil
}
