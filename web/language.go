package web

import (
	"net/http"

	"regdesk/views/i18n"
)

// negotiateLanguage gives every request the language of its browser's Accept-Language (else
// English), so even an answer made before the session is read (a cross-origin refusal) speaks it.
// identify replaces it with the language the person chose, when they have.
func negotiateLanguage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		loc := i18n.For(i18n.Negotiate(r.Header.Get("Accept-Language")))
		next.ServeHTTP(w, r.WithContext(i18n.With(r.Context(), loc)))
	})
}

// languageSet keeps the language the person chose with the header's switch on their account and
// returns to the page they were on: POST /language. It is a plain form, so it works without
// JavaScript.
func (s *Server) languageSet(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	lang, ok := i18n.Parse(r.PostForm.Get("lang"))
	if !ok {
		var valid []string
		for _, l := range i18n.Langs {
			valid = append(valid, l.Name())
		}
		return unknownValue("lang", r.PostForm.Get("lang"), valid)
	}
	a := actorFrom(r.Context())
	if err := s.store.AccountSetLanguage(r.Context(), a.ID, string(lang), s.clock()); err != nil {
		return err
	}
	redirect(w, r, safeNext(r.PostForm.Get("next")))
	return nil
}
