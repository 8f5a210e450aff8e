package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// sessionAccountKey is the session value naming the signed-in account. The account itself is
// reloaded on every request, so a disabled or deleted account is signed out at once.
const sessionAccountKey = "accountID"

// sessionPasswordKey is the session value holding the mark of the password its person signed in
// with (passwordMark). A session whose mark is not the account's password's any more ends at its
// next request: setting a password, through a one-time link or on the command line, ends every
// session signed in with the old one (the link's own session is given the new mark).
const sessionPasswordKey = "passwordMark"

// passwordMark is a short digest of an account's password hash, kept in its sessions. It tells
// nothing about the password: it is a digest of a bcrypt hash, which the table already keeps.
func passwordMark(hash *string) string {
	if hash == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(*hash))
	return hex.EncodeToString(sum[:8])
}

// ssoKey marks a request whose person the authenticating proxy vouched for.
const ssoKey ctxKey = iota + 200

func viaSSO(ctx context.Context) bool { v, _ := ctx.Value(ssoKey).(bool); return v }

var (
	errSignIn      = errorKey(http.StatusUnauthorized, "error.signIn")
	errCrossOrigin = errorKey(http.StatusForbidden, "error.crossOrigin")
)

// loginFailed is the one answer to a wrong password, an unknown address and a disabled account
// alike, so the form tells a guesser nothing about which addresses have accounts.
const loginFailed = "login.failed"

// sessionKey marks a request whose session identify has loaded, so page may read the flash.
const sessionKey ctxKey = iota + 300

// loginEmailKey and loginNextKey are session values a password link leaves for the sign-in page
// that follows it, once: the address to fill in and where signing in leads.
const (
	loginEmailKey = "loginEmail"
	loginNextKey  = "loginNext"
)

// flashKey is the session value holding a one-time message for the next page.
const flashKey = "flash"

// setFlash leaves msg for the next page this person sees, typically after a POST's redirect.
func (s *Server) setFlash(r *http.Request, msg string) {
	if r.Context().Value(sessionKey) != nil {
		s.sessions.Put(r.Context(), flashKey, msg)
	}
}

// popFlash returns and forgets the one-time message, if the request has a session.
func (s *Server) popFlash(r *http.Request) string {
	if r.Context().Value(sessionKey) == nil {
		// Answers made outside the session middleware (a cross-origin refusal, a failed session
		// load) have no session to read; scs would panic.
		return ""
	}
	if msg := s.sessions.PopString(r.Context(), flashKey); msg != "" {
		return msg
	}
	if r.URL.Query().Get("notice") == noticeUnsaved {
		// It stands in for the confirmation a session could not keep (see noticeUnsaved).
		return i18n.T(r.Context(), "error.unsaved")
	}
	return ""
}

// identify puts the person a request comes from on its context, when there is one: the person the
// trusted proxy names, or the account of the session. It lets anonymous requests through; the
// routes that need a person add requireUser.
func (s *Server) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(context.WithValue(r.Context(), sessionKey, true))
		a, sso, err := s.authenticate(r)
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		if a != nil {
			ctx := withActor(r.Context(), a)
			if l, ok := i18n.Parse(a.Language); ok {
				// The person's own choice wins over their browser's.
				ctx = i18n.With(ctx, i18n.For(l))
			}
			if sso {
				ctx = context.WithValue(ctx, ssoKey, true)
			}
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate returns the person behind r, or nil for an anonymous request. sso reports that the
// proxy named them.
func (s *Server) authenticate(r *http.Request) (a *Actor, sso bool, err error) {
	ctx := r.Context()
	if email, ok := s.proxyUser(r); ok {
		acct, err := s.store.AccountGetByEmail(ctx, email)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, false, err
		}
		if err != nil || acct.DisabledAt != nil {
			return nil, false, &Error{Status: http.StatusForbidden, Err: err, Key: "error.ssoNoAccount", Args: []any{"Email", email}}
		}
		return actorOf(acct), true, nil
	}
	id := s.sessions.GetString(ctx, sessionAccountKey)
	if id == "" {
		return nil, false, nil
	}
	acct, err := s.store.AccountGet(ctx, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, false, err
	}
	if err != nil || acct.DisabledAt != nil || s.sessions.GetString(ctx, sessionPasswordKey) != passwordMark(acct.PasswordHash) {
		// Deleted, disabled or given a new password since signing in: the session ends here.
		s.log.InfoContext(ctx, "session of a gone or disabled account, or of an old password, ended", "account_id", id,
			"request_id", requestIDFrom(ctx))
		if err := s.sessions.Destroy(ctx); err != nil {
			return nil, false, err
		}
		return nil, false, nil
	}
	return actorOf(acct), false, nil
}

func actorOf(acct store.Account) *Actor {
	a := &Actor{ID: acct.ID, Name: acct.Name, Email: acct.Email, Role: Role(acct.Role), Language: acct.Language, LMSUserID: acct.LMSUserID}
	if a.Role == RoleTeacher {
		a.CourseIDs = acct.CourseIDs
	}
	return a
}

// proxyUser returns the e-mail address the authenticating proxy puts in its header, when single
// sign-on is on and the request comes straight from a trusted proxy. From anywhere else the header
// is anyone's to forge, so it is ignored.
func (s *Server) proxyUser(r *http.Request) (string, bool) {
	if s.proxy.Header == "" {
		return "", false
	}
	v := strings.TrimSpace(r.Header.Get(s.proxy.Header))
	if v == "" {
		return "", false
	}
	peer, ok := remoteAddr(r)
	if !ok || !inPrefixes(s.proxy.Trusted, peer) {
		return "", false
	}
	return v, true
}

// requireUser lets only signed-in people through. An anonymous page visit goes to the sign-in
// page and comes back afterwards; anything else is refused with 401.
func (s *Server) requireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if actorFrom(r.Context()) == nil {
			s.refuseAnonymous(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireRole lets through only people holding one of roles; others get a 403 page.
func (s *Server) requireRole(roles ...Role) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a := actorFrom(r.Context())
			if a == nil {
				s.refuseAnonymous(w, r)
				return
			}
			if !slices.Contains(roles, a.Role) {
				s.renderError(w, r, errorKey(http.StatusForbidden, "error.role", "Role", i18n.T(r.Context(), "role."+string(a.Role))))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// refuseAnonymous answers a request that needs a person but has none.
func (s *Server) refuseAnonymous(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("HX-Request") == "true" {
		// htmx would follow a redirect inside the page and swap the sign-in form into a fragment's
		// place. Send the whole tab to sign in instead, returning to where the person was going: the
		// link of a boosted navigation, else the page they are on.
		back := currentPage(r)
		if r.Header.Get("HX-Boosted") == "true" && r.Method == http.MethodGet {
			back = r.URL.RequestURI()
		}
		w.Header().Set("HX-Redirect", loginURL(back))
		s.renderError(w, r, errSignIn)
		return
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		http.Redirect(w, r, loginURL(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	s.renderError(w, r, errSignIn)
}

// currentPage is the page an htmx request was made from (htmx names it in HX-Current-URL), as a
// path on this site; "/" when it names no page here.
func currentPage(r *http.Request) string {
	u, err := url.Parse(r.Header.Get("HX-Current-URL"))
	if err != nil || u.Host != r.Host {
		return "/"
	}
	return safeNext(u.RequestURI())
}

// loginURL is the sign-in page that returns to next afterwards.
func loginURL(next string) string { return "/login?next=" + url.QueryEscape(safeNext(next)) }

// safeNext returns next when it is a path on this site, and "/" otherwise. The sign-in page
// redirects to it, so anything that could lead elsewhere is refused: it must start with exactly
// one slash, and hold no backslash (browsers read it as a slash), no "//" in its path, no control
// or non-ASCII characters, and no scheme or host. The sign-in and sign-out pages themselves lead
// to the queue instead.
func safeNext(next string) string {
	if len(next) == 0 || len(next) > 2048 || next[0] != '/' {
		return "/"
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return "/"
		}
	}
	p, _, _ := strings.Cut(next, "?")
	if strings.Contains(p, "//") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	if u.Path == "/login" || u.Path == "/logout" {
		return "/"
	}
	return next
}

// loginForm is the sign-in page: GET /login. A person already signed in goes on to next.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) error {
	next := safeNext(r.URL.Query().Get("next"))
	if actorFrom(r.Context()) != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	vm := views.LoginVM{Page: s.page(r, i18n.T(r.Context(), "login.title")), Next: next}
	if r.Context().Value(sessionKey) != nil {
		// Just after setting a password (passwordSet): the address is known, and so is where the
		// person works. A next the link named itself still wins.
		vm.Email = s.sessions.PopString(r.Context(), loginEmailKey)
		if home := s.sessions.PopString(r.Context(), loginNextKey); home != "" && r.URL.Query().Get("next") == "" {
			vm.Next = safeNext(home)
		}
	}
	return s.render(w, r, http.StatusOK, views.LoginPage(vm), nil)
}

// login checks an e-mail address and password and starts a session: POST /login.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	// Bounded like every form, but not checked by checkInput: a password may hold anything, and
	// checkLogin treats an unreadable address as unknown, answering like any failure.
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return badRequestKey("login.unreadable")
	}
	ctx := r.Context()
	email := strings.TrimSpace(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	loc := i18n.From(ctx)
	vm := views.LoginVM{Page: s.page(r, loc.T("login.title")), Email: email, Next: safeNext(r.PostForm.Get("next"))}
	if email == "" || password == "" {
		vm.Message = loc.T("login.empty")
		return s.render(w, r, http.StatusUnprocessableEntity, views.LoginPage(vm), nil)
	}

	now := s.clock()
	addr := clientAddr(r, s.trustedProxies)
	attempt := store.LoginAttempt{CreatedAt: now, Address: addr, Email: email}

	// The attempt is counted before its password is checked, in the database every instance
	// shares, so a burst of guesses cannot all slip past the limit while bcrypt runs.
	attemptID, until, err := s.store.LoginAttemptReserve(ctx, attempt, s.byAddress, s.byAccount)
	if err != nil {
		return err
	}
	if !until.IsZero() {
		s.log.InfoContext(ctx, "login attempt", "outcome", store.LoginRateLimited, "email", email, "address", addr,
			"request_id", requestIDFrom(ctx))
		retry := int(until.Sub(now).Seconds()) + 1
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		vm.Message = loc.T("login.tooMany", "At", loc.At(until, now))
		return s.render(w, r, http.StatusTooManyRequests, views.LoginPage(vm), nil)
	}

	acct, outcome, err := s.checkLogin(ctx, email, password)
	busy := errors.Is(err, errPasswordsBusy)
	if err != nil && !busy {
		return err
	}
	var accountID *string
	if acct.ID != "" {
		accountID = &acct.ID
	}
	logged := outcome
	if busy {
		// Turned away before its password was checked, as a limited attempt is: it counts against
		// no limit, and the record says it was refused.
		outcome, logged = store.LoginRateLimited, "busy"
	}
	s.log.InfoContext(ctx, "login attempt", "outcome", logged, "email", email, "address", addr, "request_id", requestIDFrom(ctx))
	if err := s.store.LoginAttemptFinish(context.WithoutCancel(ctx), attemptID, outcome, accountID); err != nil {
		return err
	}
	if busy {
		setBusy(w)
		vm.Message = loc.T("login.busy")
		// Turned away at its deadline, perhaps: the answer still goes out (templ renders nothing
		// on a done context), and says why.
		return s.render(w, r.WithContext(context.WithoutCancel(ctx)), http.StatusServiceUnavailable, views.LoginPage(vm), nil)
	}
	if outcome != store.LoginSuccess {
		vm.Message = loc.T(loginFailed)
		return s.render(w, r, http.StatusUnauthorized, views.LoginPage(vm), nil)
	}
	// A new token on every change of privilege, so a token planted before sign-in is worthless after.
	if err := s.sessions.RenewToken(ctx); err != nil {
		return err
	}
	s.sessions.Put(ctx, sessionAccountKey, acct.ID)
	s.sessions.Put(ctx, sessionPasswordKey, passwordMark(acct.PasswordHash))
	redirect(w, r, vm.Next)
	return nil
}

// checkLogin returns the account email names and the attempt's outcome. Every path checks one
// password hash, so an unknown address answers no faster than a wrong password. The check waits
// for one of the instance's password slots (passwordGate); errPasswordsBusy when none came in
// time, and then no password was checked.
func (s *Server) checkLogin(ctx context.Context, email, password string) (store.Account, string, error) {
	var acct store.Account
	outcome := store.LoginUnknownAccount
	if len(email) <= 320 && utf8.ValidString(email) && !strings.ContainsFunc(email, func(r rune) bool { return r < ' ' }) {
		a, err := s.store.AccountGetByEmail(ctx, email)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return store.Account{}, "", err
		case a.PasswordHash == nil:
			acct, outcome = a, store.LoginNoPassword
		default:
			acct, outcome = a, ""
		}
	}
	matches := false
	ran := s.passwords.run(ctx, func() {
		if outcome != "" {
			s.store.SpendPasswordCheck(password)
			return
		}
		matches = store.PasswordMatches(*acct.PasswordHash, password)
	})
	switch {
	case !ran:
		return acct, "", errPasswordsBusy
	case outcome != "":
		return acct, outcome, nil
	case !matches:
		return acct, store.LoginWrongPassword, nil
	case acct.DisabledAt != nil:
		return acct, store.LoginDisabled, nil
	}
	return acct, store.LoginSuccess, nil
}

// errPasswordsBusy reports a password that was not checked (or hashed) because every one of the
// instance's password slots stayed taken until too close to the request's deadline.
var errPasswordsBusy = errors.New("password checks busy")

// logout ends the session: POST /logout. The stored session is deleted, not just the cookie, so a
// copied cookie is worthless afterwards.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		return err
	}
	redirect(w, r, "/login")
	return nil
}

// remoteAddr is the address of the peer the connection comes from.
func remoteAddr(r *http.Request) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// clientAddr is the address a person's request comes from, for rate limiting and the record of
// sign-ins. Behind trusted reverse proxies it is the rightmost X-Forwarded-For entry that is not
// one of them; otherwise the peer itself, whatever the request claims.
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	addr, ok := remoteAddr(r)
	if !ok {
		return r.RemoteAddr
	}
	if !inPrefixes(trusted, addr) {
		return addr.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		addr = a.Unmap()
		if !inPrefixes(trusted, addr) {
			break
		}
	}
	return addr.String()
}

func inPrefixes(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
