package web

import (
	"errors"
	"net/http"

	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is the settings page's API-token section: each person makes and revokes their own
// tokens for the read-only JSON API (api.go). A new token is shown once, in the answer that made
// it; regdesk keeps only its hash.

// apiTokensVM is the person's token section, with a token just made when newToken is not "".
func (s *Server) apiTokensVM(r *http.Request, newToken, newName string) (views.APITokensVM, error) {
	a := actorFrom(r.Context())
	list, err := s.store.APITokenList(r.Context(), a.ID)
	if err != nil {
		return views.APITokensVM{}, err
	}
	now := s.clock()
	vm := views.APITokensVM{NewToken: newToken, NewName: newName}
	if newToken != "" {
		vm.Example = "curl -H 'Authorization: Bearer " + newToken + "' " + origin(r) + "/api/v1/registrations"
	}
	for _, t := range list {
		loc := i18n.From(r.Context())
		vm.Tokens = append(vm.Tokens, views.APITokenVM{ID: t.ID, Name: t.Name, Created: loc.When(&t.CreatedAt, now),
			LastUsed: loc.When(t.LastUsedAt, now), Revoked: t.RevokedAt != nil, RevokeURL: "/settings/tokens/" + t.ID + "/revoke"})
	}
	return vm, nil
}

// renderSettings draws the whole settings page with the token section as given.
func (s *Server) renderSettings(w http.ResponseWriter, r *http.Request, status int, tokens views.APITokensVM) error {
	a := actorFrom(r.Context())
	set, err := s.store.AlertSettingsGet(r.Context(), a.ID)
	if err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	vm := views.SettingsPageVM{Page: s.page(r, loc.T("settings.title")), Mail: settingsMailVM(loc, a, set), Tokens: tokens}
	w.Header().Set("Cache-Control", "no-store")
	return s.render(w, r, status, views.SettingsPage(vm), views.APITokens(tokens))
}

// apiTokenCreate makes a token: POST /settings/tokens. The answer shows it, this once.
func (s *Server) apiTokenCreate(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	a := actorFrom(r.Context())
	token, t, err := s.store.APITokenCreate(r.Context(), a.ID, r.PostForm.Get("name"), s.clock())
	if _, ok := errors.AsType[*store.ValidationError](err); ok {
		vm, err := s.apiTokensVM(r, "", "")
		if err != nil {
			return err
		}
		vm.Error = i18n.T(r.Context(), "tokens.badName")
		return s.renderSettings(w, r, http.StatusUnprocessableEntity, vm)
	}
	if err != nil {
		return err
	}
	vm, err := s.apiTokensVM(r, token, t.Name)
	if err != nil {
		return err
	}
	return s.renderSettings(w, r, http.StatusOK, vm)
}

// apiTokenRevoke revokes one of the person's tokens: POST /settings/tokens/{id}/revoke.
func (s *Server) apiTokenRevoke(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	if err := s.store.APITokenRevoke(r.Context(), actorFrom(r.Context()).ID, id, s.clock()); err != nil {
		return err
	}
	s.setFlash(r, i18n.T(r.Context(), "tokens.revokedFlash"))
	redirect(w, r, "/settings#"+views.IDAPITokens)
	return nil
}
