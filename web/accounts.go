package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is /admin/accounts: admins list, add and change accounts in the browser, and make
// one-time password links; and /password/{token}, where such a link lets its holder set a
// password. Every change goes through store, which records who made it and why in the same
// transaction and keeps one active admin.

// accountChangesShown bounds the record of changes a page shows.
const accountChangesShown = 50

// roleChoices are the catalogue keys of the roles to choose from, each saying what it may do.
var roleChoices = []struct{ role, key string }{
	{store.AccountRoleSupport, "accounts.role.support"},
	{store.AccountRoleTeacher, "accounts.role.teacher"},
	{store.AccountRoleAdmin, "accounts.role.admin"},
}

// roleNames are the catalogue keys of the roles' names.
var roleNames = map[string]string{
	store.AccountRoleAdmin: "role.admin", store.AccountRoleSupport: "role.support", store.AccountRoleTeacher: "role.teacher",
}

// changeNames are the catalogue keys of the recorded changes.
var changeNames = map[string]string{
	store.AccountChangeCreated:            "accounts.change.created",
	store.AccountChangeRoleChanged:        "accounts.change.role_changed",
	store.AccountChangeCoursesChanged:     "accounts.change.courses_changed",
	store.AccountChangeDisabled:           "accounts.change.disabled",
	store.AccountChangeEnabled:            "accounts.change.enabled",
	store.AccountChangePasswordLinkIssued: "accounts.change.password_link_issued",
	store.AccountChangePasswordSet:        "accounts.change.password_set",
	store.AccountChangeAPITokenCreated:    "accounts.change.api_token_created",
	store.AccountChangeAPITokenRevoked:    "accounts.change.api_token_revoked",
	store.AccountChangeLMSUserChanged:     "accounts.change.lms_user_changed",
}

func roleOptions(loc *i18n.Localizer, selected string) []views.Option {
	var out []views.Option
	for _, c := range roleChoices {
		out = append(out, views.Option{Value: c.role, Label: loc.T(c.key), Selected: c.role == selected})
	}
	return out
}

// named says a key of names in words, or the value itself when it has no entry.
func named(loc *i18n.Localizer, names map[string]string, v string) string {
	if key, ok := names[v]; ok {
		return loc.T(key)
	}
	return v
}

func courseOptions(courses []store.Course, selected []string) []views.Option {
	out := make([]views.Option, 0, len(courses))
	for _, c := range courses {
		out = append(out, views.Option{Value: c.ID, Label: c.Name, Selected: slices.Contains(selected, c.ID)})
	}
	return out
}

func accountRowVM(loc *i18n.Localizer, a store.Account, lastSignIn *time.Time, courseNames map[string]string, now time.Time) views.AccountRowVM {
	vm := views.AccountRowVM{ID: a.ID, Name: a.Name, Email: a.Email, Role: a.Role, RoleLabel: named(loc, roleNames, a.Role), URL: "/admin/accounts/" + a.ID,
		LastSignIn: loc.When(lastSignIn, now), Status: "active", StatusLabel: loc.T("accounts.status.active"), SignIn: loc.T("accounts.signIn.password")}
	if a.DisabledAt != nil {
		vm.Status, vm.StatusLabel, vm.Disabled = "disabled", loc.T("accounts.status.disabled"), true
	}
	if a.PasswordHash == nil {
		vm.SignIn = loc.T("accounts.signIn.sso")
	}
	var names []string
	for _, id := range a.CourseIDs {
		names = append(names, cmp.Or(courseNames[id], id))
	}
	vm.Courses = strings.Join(names, ", ")
	if a.Role != store.AccountRoleTeacher {
		vm.Courses = loc.T("accounts.everyCourse")
	}
	return vm
}

func (s *Server) courseNames(ctx context.Context) ([]store.Course, map[string]string, error) {
	courses, err := s.store.CourseList(ctx, store.AllCourses())
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
	loc := i18n.From(ctx)
	out := make([]views.AccountChangeVM, 0, len(list))
	for _, c := range list {
		who := loc.T("accounts.commandLine")
		if c.ActorID != nil {
			who = cmp.Or(store.Deref(c.ActorName), *c.ActorID)
		}
		out = append(out, views.AccountChangeVM{When: loc.When(&c.CreatedAt, now), Account: names[c.AccountID],
			AccountURL: "/admin/accounts/" + c.AccountID, Change: changeWords(loc, c), Who: who, Reason: accountChangeReason(loc, c)})
	}
	return out, nil
}

// changeWords names a change; a disabling adds what it ended: the open password links it spent
// and the API tokens it revoked.
func changeWords(loc *i18n.Localizer, c store.AccountChange) string {
	words := named(loc, changeNames, c.Change)
	if c.Change != store.AccountChangeDisabled || len(c.Details) == 0 {
		return words
	}
	var ended map[string]json.RawMessage
	if json.Unmarshal(c.Details, &ended) != nil {
		return words
	}
	count := func(key string) int {
		var n int
		_ = json.Unmarshal(ended[key], &n)
		return n
	}
	var parts []string
	if n := count(store.AccountDetailLinksSpent); n > 0 {
		parts = append(parts, loc.T("accounts.change.linksSpent", "Count", n))
	}
	if n := count(store.AccountDetailTokensRevoked); n > 0 {
		parts = append(parts, loc.T("accounts.change.tokensRevoked", "Count", n))
	}
	if len(parts) == 0 {
		return words
	}
	return words + " (" + strings.Join(parts, ", ") + ")"
}

// accountChangeReason is a change's reason: a person's as they typed it, regdesk's own in the
// reader's language.
func accountChangeReason(loc *i18n.Localizer, c store.AccountChange) string {
	r := store.ReadAccountChangeReason(c)
	key := "accounts.reason." + r.Code
	if r.Code == "" || !loc.Has(key) {
		return c.Reason
	}
	return loc.T(key, "Name", r.Args["Name"])
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
	loc := i18n.From(ctx)
	vm := views.AccountsVM{Page: s.page(r, loc.T("accounts.title")), Add: form}
	for _, a := range list {
		row := accountRowVM(loc, a.Account, a.LastSignInAt, names, now)
		row.LMSUser = a.LMSUserName
		vm.Accounts = append(vm.Accounts, row)
	}
	vm.Add.Roles = roleOptions(loc, form.Role)
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
	form := views.AccountFormVM{Name: f.Get("name"), Email: f.Get("email"), Role: f.Get("role"), SignIn: f.Get("signin"), Reason: f.Get("reason"),
		LMSUser: f.Get("lms_user")}
	courses, _, err := s.courseNames(ctx)
	if err != nil {
		return err
	}
	form.Courses = courseOptions(courses, f["course"])
	loc := i18n.From(ctx)
	retry := func(msg string) error {
		form.Message = msg
		return s.renderAccounts(w, r, http.StatusUnprocessableEntity, form)
	}
	if form.SignIn != "sso" && form.SignIn != "password" {
		return retry(loc.T("accounts.err.signIn"))
	}
	if form.Role == store.AccountRoleTeacher && len(f["course"]) == 0 {
		return retry(loc.T("accounts.err.courses"))
	}
	courseIDs := f["course"]
	if form.Role != store.AccountRoleTeacher {
		courseIDs = nil
	}
	by := s.changeBy(r)
	acct, err := s.store.AccountAdd(ctx, store.AccountAddParams{Name: form.Name, Email: form.Email, Role: form.Role, CourseIDs: courseIDs, LMSUser: form.LMSUser, By: by})
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		return retry(loc.T("accounts.nothingSavedAfter", "Problem", validationWords(loc, ve)))
	}
	if errors.Is(err, store.ErrConflict) {
		return retry(loc.T("accounts.err.taken", "Email", strings.TrimSpace(form.Email)))
	}
	if err != nil {
		return err
	}
	if form.SignIn == "password" {
		by.Reason, by.ReasonCode = "First password for the new account.", store.AccountReasonFirstPassword
		return s.issuePasswordLink(w, r, acct, by)
	}
	s.setFlash(r, loc.T("accounts.added.sso", "Name", acct.Name))
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
	loc := i18n.From(ctx)
	vm := views.AccountVM{Page: s.page(r, acct.Name), Account: accountRowVM(loc, acct, last, names, now), Roles: roleOptions(loc, acct.Role),
		Courses: courseOptions(courses, acct.CourseIDs), Self: acct.ID == actorFrom(ctx).ID}
	if vm.LMS, err = s.accountLMSVM(ctx, acct); err != nil {
		return err
	}
	if vm.Changes, err = s.accountChangeVMs(ctx, acct.ID, now); err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, views.AccountPage(vm), nil)
}

// accountLMSVM says who the account is in the LMS, and warns when the LMS would refuse the
// person's hand actions; a teacher takes none, so is not warned.
func (s *Server) accountLMSVM(ctx context.Context, acct store.Account) (views.AccountLMSVM, error) {
	loc := i18n.From(ctx)
	if acct.LMSUserID == "" {
		vm := views.AccountLMSVM{Line: loc.T("accounts.lms.none")}
		if acct.Role == store.AccountRoleTeacher {
			vm.Line = loc.T("accounts.lms.notSet")
		}
		return vm, nil
	}
	u, err := s.store.LMSUserGet(ctx, acct.LMSUserID)
	if errors.Is(err, store.ErrNotFound) {
		return views.AccountLMSVM{Ref: acct.LMSUserID, Line: acct.LMSUserID, Warning: loc.T("accounts.lms.gone", "ID", acct.LMSUserID)}, nil
	}
	if err != nil {
		return views.AccountLMSVM{}, err
	}
	vm := views.AccountLMSVM{Ref: cmp.Or(u.Email, u.ID), Line: loc.T("accounts.lms.is", "Name", cmp.Or(u.Name, u.ID), "Email", cmp.Or(u.Email, "–"))}
	if !u.CanAct && acct.Role != store.AccountRoleTeacher {
		vm.Warning = loc.T("accounts.lms.cannotAct")
	}
	return vm, nil
}

// accountLMSUser links an account to an LMS user, or to none: POST /admin/accounts/{id}/lms-user.
func (s *Server) accountLMSUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	changed, err := s.store.AccountSetLMSUser(r.Context(), id, r.PostForm.Get("lms_user"), s.changeBy(r))
	if err := accountError(err); err != nil {
		return err
	}
	s.setFlash(r, i18n.T(r.Context(), map[bool]string{true: "accounts.saved", false: "accounts.unchanged"}[changed]))
	redirect(w, r, "/admin/accounts/"+id)
	return nil
}

// accountError says in words why a change was refused; nothing was written.
func accountError(err error) error {
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		if ve.Field == "reason" {
			return &Error{Status: http.StatusUnprocessableEntity, Key: "accounts.err.reason", Err: err}
		}
		if ve.Key != "" {
			return &Error{Status: http.StatusUnprocessableEntity, Key: ve.Key, Args: ve.Args, Err: err}
		}
		return &Error{Status: http.StatusUnprocessableEntity, Message: ve.Message, Err: err}
	}
	if errors.Is(err, store.ErrLastAdmin) {
		return &Error{Status: http.StatusConflict, Key: "accounts.err.lastAdmin", Err: err}
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
		return &Error{Status: http.StatusUnprocessableEntity, Key: "accounts.err.courses"}
	}
	if role != store.AccountRoleTeacher {
		courses = nil
	}
	changed, err := s.store.AccountUpdate(r.Context(), store.AccountUpdateParams{ID: id, Role: role, CourseIDs: courses, By: s.changeBy(r)})
	if err := accountError(err); err != nil {
		return err
	}
	s.setFlash(r, i18n.T(r.Context(), map[bool]string{true: "accounts.saved", false: "accounts.unchanged"}[changed]))
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
	key := "accounts.enabled"
	if disabled {
		key = "accounts.disabled"
	}
	if !changed {
		key = "accounts.nothing"
	}
	s.setFlash(r, i18n.T(r.Context(), key))
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
	loc := i18n.From(r.Context())
	w.Header().Set("Cache-Control", "no-store")
	vm := views.PasswordLinkVM{Page: s.page(r, loc.T("accounts.link.title")), Account: accountRowVM(loc, acct, nil, names, now),
		Link: origin(r) + "/password/" + token, ExpiresAt: loc.At(expires, now), AccountURL: "/admin/accounts/" + acct.ID}
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
var errLinkGone = errorKey(http.StatusGone, "password.gone")

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
	vm := views.PasswordSetVM{Page: s.page(r, i18n.T(r.Context(), "password.title")), Email: acct.Email, Action: "/password/" + token, MinLen: store.MinPasswordLength}
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
		return badRequestKey("login.unreadable")
	}
	loc := i18n.From(r.Context())
	password, confirm := r.PostForm.Get("password"), r.PostForm.Get("confirm")
	vm := views.PasswordSetVM{Page: s.page(r, loc.T("password.title")), Email: acct.Email, Action: "/password/" + token, MinLen: store.MinPasswordLength}
	w.Header().Set("Cache-Control", "no-store")
	if password != confirm {
		vm.Message = loc.T("password.differ")
		return s.render(w, r, http.StatusUnprocessableEntity, views.PasswordSetPage(vm), nil)
	}
	var hash string
	if !s.passwords.run(r.Context(), func() { hash, err = s.store.HashPassword(password) }) {
		setBusy(w)
		vm.Message = loc.T("password.busy")
		return s.render(w, r.WithContext(context.WithoutCancel(r.Context())), http.StatusServiceUnavailable, views.PasswordSetPage(vm), nil)
	}
	if errors.Is(err, store.ErrPasswordTooShort) || errors.Is(err, store.ErrPasswordTooLong) {
		vm.Message = loc.T("password.length", "Min", store.MinPasswordLength)
		return s.render(w, r, http.StatusUnprocessableEntity, views.PasswordSetPage(vm), nil)
	}
	if err != nil {
		return err
	}
	acct, err = s.store.AccountPasswordLinkUse(r.Context(), s.clock(), token, hash)
	if errors.Is(err, store.ErrLinkExpired) {
		return errLinkGone
	}
	if err != nil {
		return err
	}
	// Every session signed in with the old password ends at its next request (authenticate); this
	// one, if it is the account's own, carries on with the new password.
	if s.sessions.GetString(r.Context(), sessionAccountKey) == acct.ID {
		if err := s.sessions.RenewToken(r.Context()); err != nil {
			return err
		}
		s.sessions.Put(r.Context(), sessionPasswordKey, passwordMark(acct.PasswordHash))
	}
	s.setFlash(r, loc.T("password.done"))
	// The sign-in page that follows has the address filled in and leads, once signed in, to where
	// this person works: a teacher's courses, everyone else's queue.
	if r.Context().Value(sessionKey) != nil {
		s.sessions.Put(r.Context(), loginEmailKey, acct.Email)
		s.sessions.Put(r.Context(), loginNextKey, homeOf(acct.Role))
	}
	redirect(w, r, "/login")
	return nil
}

// homeOf is the first screen of a role: a teacher's courses, everyone else's queue.
func homeOf(role string) string {
	if role == string(RoleTeacher) {
		return "/courses"
	}
	return "/"
}
