package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"regdesk/store"
	"regdesk/views"
)

// This file is /admin/accounts: admins list, add and change accounts in the browser, and make
// one-time password links; and /password/{token}, where such a link lets its holder set a
// password. Every change goes through store, which records who made it and why in the same
// transaction and keeps one active admin.

// accountChangesShown bounds the record of changes a page shows.
const accountChangesShown = 50

var roleLabels = map[string]string{
	store.AccountRoleAdmin:   "admin: everything, and accounts",
	store.AccountRoleSupport: "support: the queue, hand actions, the audit",
	store.AccountRoleTeacher: "teacher: their courses' students, read only",
}

var accountChangeLabels = map[string]string{
	store.AccountChangeCreated:            "added",
	store.AccountChangeRoleChanged:        "role changed",
	store.AccountChangeCoursesChanged:     "courses changed",
	store.AccountChangeDisabled:           "disabled",
	store.AccountChangeEnabled:            "enabled",
	store.AccountChangePasswordLinkIssued: "password link made",
	store.AccountChangePasswordSet:        "password set",
}

func roleOptions(selected string) []views.Option {
	var out []views.Option
	for _, r := range []string{store.AccountRoleSupport, store.AccountRoleTeacher, store.AccountRoleAdmin} {
		out = append(out, views.Option{Value: r, Label: roleLabels[r], Selected: r == selected})
	}
	return out
}

func courseOptions(courses []store.Course, selected []string) []views.Option {
	out := make([]views.Option, 0, len(courses))
	for _, c := range courses {
		out = append(out, views.Option{Value: c.ID, Label: c.Name, Selected: slices.Contains(selected, c.ID)})
	}
	return out
}

func accountRowVM(a store.Account, lastSignIn *time.Time, courseNames map[string]string, now time.Time) views.AccountRowVM {
	vm := views.AccountRowVM{ID: a.ID, Name: a.Name, Email: a.Email, Role: a.Role, URL: "/admin/accounts/" + a.ID,
		LastSignIn: views.NewWhen(lastSignIn, now), Status: "active", SignIn: "password"}
	if a.DisabledAt != nil {
		vm.Status, vm.Disabled = "disabled", true
	}
	if a.PasswordHash == nil {
		vm.SignIn = "single sign-on"
	}
	var names []string
	for _, id := range a.CourseIDs {
		names = append(names, cmp.Or(courseNames[id], id))
	}
	vm.Courses = strings.Join(names, ", ")
	if a.Role != store.AccountRoleTeacher {
		vm.Courses = "every course"
	}
	return vm
}

func (s *Server) courseNames(ctx context.Context) ([]store.Course, map[string]string, error) {
	courses, err := s.store.CourseList(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	names := map[string]string{}
	for _, c := range courses {
		names[c.ID] = c.Name
	}
	return courses, names, nil
}

func (s *Server) accountChangeVMs(ctx context.Context, accountID string, now time.Time) ([]views.AccountChangeVM, error) {
	list, err := s.store.AccountChangeList(ctx, accountID, accountChangesShown)
	if err != nil {
		return nil, err
	}
	accounts, err := s.store.AccountList(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, a := range accounts {
		names[a.ID] = a.Name
	}
	out := make([]views.AccountChangeVM, 0, len(list))
	for _, c := range list {
		who := "the server's command line"
		if c.ActorID != nil {
			who = cmp.Or(store.Deref(c.ActorName), *c.ActorID)
		}
		out = append(out, views.AccountChangeVM{When: views.NewWhen(&c.CreatedAt, now), Account: names[c.AccountID],
			AccountURL: "/admin/accounts/" + c.AccountID, Change: cmp.Or(accountChangeLabels[c.Change], c.Change), Who: who, Reason: c.Reason})
	}
	return out, nil
}

// accountList is the admins' list of accounts: GET /admin/accounts.
func (s *Server) accountList(w http.ResponseWriter, r *http.Request) error {
	return s.renderAccounts(w, r, http.StatusOK, views.AccountFormVM{Role: store.AccountRoleSupport})
}

func (s *Server) renderAccounts(w http.ResponseWriter, r *http.Request, status int, form views.AccountFormVM) error {
	ctx := r.Context()
	now := s.clock()
	list, err := s.store.AccountOverviewList(ctx)
	if err != nil {
		return err
	}
	courses, names, err := s.courseNames(ctx)
	if err != nil {
		return err
	}
	vm := views.AccountsVM{Page: s.page(r, "Accounts"), Add: form}
	for _, a := range list {
		vm.Accounts = append(vm.Accounts, accountRowVM(a.Account, a.LastSignInAt, names, now))
	}
	vm.Add.Roles = roleOptions(form.Role)
	if vm.Add.Courses == nil {
		vm.Add.Courses = courseOptions(courses, nil)
	}
	if vm.Changes, err = s.accountChangeVMs(ctx, "", now); err != nil {
		return err
	}
	return s.render(w, r, status, views.AccountsPage(vm), nil)
}

// changeBy is the record of a change the signed-in admin makes now, for the reason the form gave.
func (s *Server) changeBy(r *http.Request) store.AccountChangeBy {
	return store.AccountChangeBy{ActorID: actorFrom(r.Context()).ID, At: s.clock(), Reason: r.PostForm.Get("reason")}
}

// accountAdd adds an account: POST /admin/accounts. An account that signs in with a password gets
// a one-time link to set it, shown to the admin at once; the admin never learns the password.
func (s *Server) accountAdd(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	f := r.PostForm
	form := views.AccountFormVM{Name: f.Get("name"), Email: f.Get("email"), Role: f.Get("role"), SignIn: f.Get("signin"), Reason: f.Get("reason")}
	courses, _, err := s.courseNames(ctx)
	if err != nil {
		return err
	}
	form.Courses = courseOptions(courses, f["course"])
	retry := func(msg string) error {
		form.Message = msg + " Nothing was saved."
		return s.renderAccounts(w, r, http.StatusUnprocessableEntity, form)
	}
	if form.SignIn != "sso" && form.SignIn != "password" {
		return retry("Pick how the person signs in.")
	}
	if form.Role == store.AccountRoleTeacher && len(f["course"]) == 0 {
		return retry("Pick the courses the teacher teaches: a teacher sees only those.")
	}
	courseIDs := f["course"]
	if form.Role != store.AccountRoleTeacher {
		courseIDs = nil
	}
	by := s.changeBy(r)
	acct, err := s.store.AccountAdd(ctx, store.AccountAddParams{Name: form.Name, Email: form.Email, Role: form.Role, CourseIDs: courseIDs, By: by})
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		return retry(ve.Message)
	}
	if errors.Is(err, store.ErrConflict) {
		return retry(fmt.Sprintf("%s already has an account.", strings.TrimSpace(form.Email)))
	}
	if err != nil {
		return err
	}
	if form.SignIn == "password" {
		by.Reason = "First password for the new account."
		return s.issuePasswordLink(w, r, acct, by)
	}
	s.setFlash(r, fmt.Sprintf("Added %s (%s). They sign in through single sign-on.", acct.Name, acct.Role))
	redirect(w, r, "/admin/accounts/"+acct.ID)
	return nil
}

// accountShow is one account's page: GET /admin/accounts/{id}.
func (s *Server) accountShow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	acct, err := s.store.AccountGet(ctx, id)
	if err != nil {
		return err
	}
	now := s.clock()
	courses, names, err := s.courseNames(ctx)
	if err != nil {
		return err
	}
	var last *time.Time
	list, err := s.store.AccountOverviewList(ctx)
	if err != nil {
		return err
	}
	for _, a := range list {
		if a.ID == id {
			last = a.LastSignInAt
		}
	}
	vm := views.AccountVM{Page: s.page(r, acct.Name), Account: accountRowVM(acct, last, names, now), Roles: roleOptions(acct.Role),
		Courses: courseOptions(courses, acct.CourseIDs), Self: acct.ID == actorFrom(ctx).ID}
	if vm.Changes, err = s.accountChangeVMs(ctx, acct.ID, now); err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, views.AccountPage(vm), nil)
}

// accountError says in words why a change was refused; nothing was written.
func accountError(err error) error {
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		return &Error{Status: http.StatusUnprocessableEntity, Message: ve.Message + " Nothing was changed.", Err: err}
	}
	if errors.Is(err, store.ErrLastAdmin) {
		return &Error{Status: http.StatusConflict, Err: err,
			Message: "This is the last active admin: make another account admin first, or nobody could manage accounts. Nothing was changed."}
	}
	return err
}

// accountUpdate changes an account's role and courses: POST /admin/accounts/{id}.
func (s *Server) accountUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	role := r.PostForm.Get("role")
	courses := r.PostForm["course"]
	if role == store.AccountRoleTeacher && len(courses) == 0 {
		return accountError(&store.ValidationError{Field: "courses", Message: "Pick the courses the teacher teaches: a teacher sees only those."})
	}
	if role != store.AccountRoleTeacher {
		courses = nil
	}
	changed, err := s.store.AccountUpdate(r.Context(), store.AccountUpdateParams{ID: id, Role: role, CourseIDs: courses, By: s.changeBy(r)})
	if err := accountError(err); err != nil {
		return err
	}
	s.setFlash(r, map[bool]string{true: "Saved.", false: "Nothing to change: the role and courses were already so."}[changed])
	redirect(w, r, "/admin/accounts/"+id)
	return nil
}

// accountDisable and accountEnable: POST /admin/accounts/{id}/disable and …/enable.
func (s *Server) accountDisable(w http.ResponseWriter, r *http.Request) error {
	return s.accountSetDisabled(w, r, true)
}

func (s *Server) accountEnable(w http.ResponseWriter, r *http.Request) error {
	return s.accountSetDisabled(w, r, false)
}

func (s *Server) accountSetDisabled(w http.ResponseWriter, r *http.Request, disabled bool) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	changed, err := s.store.AccountSetDisabled(r.Context(), id, disabled, s.changeBy(r))
	if err := accountError(err); err != nil {
		return err
	}
	msg := "Enabled: they can sign in again."
	if disabled {
		msg = "Disabled: their open sessions end at their next request."
	}
	if !changed {
		msg = "Nothing to change."
	}
	s.setFlash(r, msg)
	redirect(w, r, "/admin/accounts/"+id)
	return nil
}

// accountPasswordLink makes a one-time password link: POST /admin/accounts/{id}/password-link.
func (s *Server) accountPasswordLink(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	acct, err := s.store.AccountGet(r.Context(), id)
	if err != nil {
		return err
	}
	return s.issuePasswordLink(w, r, acct, s.changeBy(r))
}

// issuePasswordLink makes the link and shows it, this once, in the answer itself: it is in no
// redirect, flash or session, and the answer is not cached.
func (s *Server) issuePasswordLink(w http.ResponseWriter, r *http.Request, acct store.Account, by store.AccountChangeBy) error {
	token, expires, err := s.store.AccountPasswordLinkIssue(r.Context(), acct.ID, s.passwordLinkTTL, by)
	if err := accountError(err); err != nil {
		return err
	}
	_, names, err := s.courseNames(r.Context())
	if err != nil {
		return err
	}
	now := s.clock()
	w.Header().Set("Cache-Control", "no-store")
	vm := views.PasswordLinkVM{Page: s.page(r, "Password link"), Account: accountRowVM(acct, nil, names, now),
		Link: origin(r) + "/password/" + token, Expires: views.NewWhen(&expires, now), AccountURL: "/admin/accounts/" + acct.ID}
	return s.render(w, r, http.StatusOK, views.PasswordLinkPage(vm), nil)
}

// origin is the scheme and host the person reached regdesk at, for links they pass on.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// tokenPattern is what a link token looks like: 32 bytes, URL-safe base64 without padding.
var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// errLinkGone is the answer to a link that no longer works, in words that say what to do.
var errLinkGone = &Error{Status: http.StatusGone,
	Message: "This password link no longer works: it was used, replaced by a newer one, or is more than a day old. Ask a regdesk admin for a new one."}

func (s *Server) passwordLinkAccount(r *http.Request) (store.Account, string, error) {
	token := r.PathValue("token")
	if !tokenPattern.MatchString(token) {
		return store.Account{}, "", errNotFound
	}
	acct, err := s.store.AccountPasswordLinkCheck(r.Context(), s.clock(), token)
	if errors.Is(err, store.ErrLinkExpired) {
		return store.Account{}, "", errLinkGone
	}
	return acct, token, err
}

// passwordSetForm is where a one-time link leads: GET /password/{token}. Opening it spends
// nothing, so a mail scanner following the link cannot use it up.
func (s *Server) passwordSetForm(w http.ResponseWriter, r *http.Request) error {
	acct, token, err := s.passwordLinkAccount(r)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	vm := views.PasswordSetVM{Page: s.page(r, "Set your password"), Email: acct.Email, Action: "/password/" + token, MinLen: store.MinPasswordLength}
	return s.render(w, r, http.StatusOK, views.PasswordSetPage(vm), nil)
}

// passwordSet sets the password and spends the link: POST /password/{token}.
func (s *Server) passwordSet(w http.ResponseWriter, r *http.Request) error {
	acct, token, err := s.passwordLinkAccount(r)
	if err != nil {
		return err
	}
	// Bounded like every form, but a password may hold anything, so checkInput does not read it.
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return badRequest("The form could not be read. Reload the page and try again; nothing was saved.")
	}
	password, confirm := r.PostForm.Get("password"), r.PostForm.Get("confirm")
	vm := views.PasswordSetVM{Page: s.page(r, "Set your password"), Email: acct.Email, Action: "/password/" + token, MinLen: store.MinPasswordLength}
	w.Header().Set("Cache-Control", "no-store")
	if password != confirm {
		vm.Message = "The two passwords differ; type the same one twice. Nothing was saved."
		return s.render(w, r, http.StatusUnprocessableEntity, views.PasswordSetPage(vm), nil)
	}
	hash, err := s.store.HashPassword(password)
	if errors.Is(err, store.ErrPasswordTooShort) || errors.Is(err, store.ErrPasswordTooLong) {
		vm.Message = fmt.Sprintf("Use at least %d characters, and at most 72 bytes (about 72 letters without accents). Nothing was saved.", store.MinPasswordLength)
		return s.render(w, r, http.StatusUnprocessableEntity, views.PasswordSetPage(vm), nil)
	}
	if err != nil {
		return err
	}
	if _, err := s.store.AccountPasswordLinkUse(r.Context(), s.clock(), token, hash); err != nil {
		if errors.Is(err, store.ErrLinkExpired) {
			return errLinkGone
		}
		return err
	}
	s.setFlash(r, "Your password is set. Sign in with it.")
	redirect(w, r, "/login")
	return nil
}
