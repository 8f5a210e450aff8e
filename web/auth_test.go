package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views"
	"regdesk/web"
)

func TestDeepLinkSurvivesSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := newClient(t)
	deep := "/registrations/" + b.uncertainOverdue + "?from=alert&tab=history"

	resp, _ := b.getWith(t, c, deep, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("anonymous GET %s = %d, want 303 to the sign-in page", deep, resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	if want := "/login?next=" + url.QueryEscape(deep); loc != want {
		t.Fatalf("Location = %q, want %q", loc, want)
	}
	resp, body := b.getWith(t, c, loc, false)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="login-form"`) {
		t.Fatalf("GET %s = %d, want the sign-in form", loc, resp.StatusCode)
	}
	hidden := `name="next" value="` + strings.ReplaceAll(deep, "&", "&amp;") + `"`
	if !strings.Contains(body, hidden) {
		t.Errorf("the sign-in form does not carry the deep link (%s)", hidden)
	}
	resp, _ = b.postForm(t, c, "/login", url.Values{"email": {b.support.Email}, "password": {testPassword}, "next": {deep}})
	if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != deep {
		t.Fatalf("sign-in = %d to %q, want 303 to %q", resp.StatusCode, got, deep)
	}
	resp, body = b.getWith(t, c, deep, false)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-id="`+b.uncertainOverdue+`"`) {
		t.Errorf("after sign-in GET %s = %d, want the registration", deep, resp.StatusCode)
	}
	if !strings.Contains(body, `data-testid="whoami-name">Sami Support<`) || !strings.Contains(body, `data-testid="logout"`) {
		t.Errorf("the top bar does not show the person and a sign-out button")
	}
}

func TestOpenRedirectGuard(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tests := []struct{ next, want string }{
		{"/registrations/abc?x=1&y=2", "/registrations/abc?x=1&y=2"},
		{"/?show=all&q=a%2Fb", "/?show=all&q=a%2Fb"},
		{"", "/"},
		{"//evil.example/", "/"},
		{"///evil.example/", "/"},
		{"/\\evil.example", "/"},
		{"\\\\evil.example", "/"},
		{"/a//b", "/"},
		{"https://evil.example/", "/"},
		{"http:/evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/\r\nSet-Cookie: x=1", "/"},
		{"/%0d%0aX: y", "/"},
		{"/ä", "/"},
		{"/login?next=//evil.example", "/"},
		{"/logout", "/"},
	}
	for _, tc := range tests {
		if got := web.SafeNext(tc.next); got != tc.want {
			t.Errorf("safeNext(%q) = %q, want %q", tc.next, got, tc.want)
		}
	}

	// Through the real form: a signed-in person is never sent off-site, whatever next says.
	for _, tc := range tests {
		c := newClient(t)
		resp, _ := b.postForm(t, c, "/login", url.Values{"email": {b.support.Email}, "password": {testPassword}, "next": {tc.next}})
		if got := resp.Header.Get("Location"); got != tc.want {
			t.Errorf("POST /login next=%q: Location %q, want %q", tc.next, got, tc.want)
		}
		resp, _ = b.getWith(t, c, "/login?next="+url.QueryEscape(tc.next), false)
		if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != tc.want {
			t.Errorf("signed-in GET /login?next=%q = %d to %q, want 303 to %q", tc.next, resp.StatusCode, got, tc.want)
		}
	}
}

func TestSignInAnswersUnknownAndWrongAlikeAndRecordsEveryAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	disabled := b.addAccount(t, "Gone", "gone@example.invalid", web.RoleSupport)
	if err := b.store.AccountDisable(context.Background(), disabled.ID, testNow); err != nil {
		t.Fatal(err)
	}

	try := func(email, password string) (int, string) {
		resp, body := b.postForm(t, newClient(t), "/login", url.Values{"email": {email}, "password": {password}})
		if resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("a failed sign-in as %q set a cookie", email)
		}
		// The form keeps what was typed; take it out to compare the rest.
		return resp.StatusCode, strings.ReplaceAll(body, `value="`+email+`"`, `value=""`)
	}
	wrongStatus, wrongBody := try(b.support.Email, "not the password")
	unknownStatus, unknownBody := try("nobody@example.invalid", "not the password")
	disabledStatus, disabledBody := try(disabled.Email, testPassword)
	if wrongStatus != http.StatusUnauthorized || unknownStatus != wrongStatus || disabledStatus != wrongStatus {
		t.Errorf("statuses: wrong password %d, unknown address %d, disabled account %d; want 401 for all",
			wrongStatus, unknownStatus, disabledStatus)
	}
	if wrongBody != unknownBody || wrongBody != disabledBody {
		t.Errorf("the answers differ between a wrong password, an unknown address and a disabled account")
	}
	if !strings.Contains(wrongBody, `data-testid="login-error"`) {
		t.Errorf("a failed sign-in shows no message")
	}

	resp, body := b.postForm(t, newClient(t), "/login", url.Values{"email": {b.support.Email}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Enter your e-mail address and your password") {
		t.Errorf("a sign-in without a password = %d, want 422 asking for both", resp.StatusCode)
	}

	list, err := b.store.LoginAttemptList(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, a := range list {
		outcomes = append(outcomes, a.Outcome+" "+a.Email)
		if a.Address != "127.0.0.1" {
			t.Errorf("attempt recorded from %q, want 127.0.0.1", a.Address)
		}
	}
	// Newest first: the three failures above, then setup's sign-in as support.
	want := []string{
		"disabled " + disabled.Email,
		"unknown_account nobody@example.invalid",
		"wrong_password " + b.support.Email,
		"success " + b.support.Email,
	}
	if strings.Join(outcomes, "\n") != strings.Join(want, "\n") {
		t.Errorf("recorded attempts:\n%s\nwant:\n%s", strings.Join(outcomes, "\n"), strings.Join(want, "\n"))
	}
}

func TestSignInIsRateLimitedPerAccountAndPerAddress(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) {
		d.LoginLimits = web.LoginLimits{PerAccount: 3, PerAddress: 5, Window: 15 * time.Minute}
	})
	signIn := func(email, password string) *http.Response {
		resp, _ := b.postForm(t, newClient(t), "/login", url.Values{"email": {email}, "password": {password}})
		return resp
	}

	for range 3 {
		if resp := signIn(b.teacher.Email, "guess"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a wrong password = %d, want 401", resp.StatusCode)
		}
	}
	// The account is locked now, even for the right password; the message says until when.
	resp, body := b.postForm(t, newClient(t), "/login", url.Values{"email": {strings.ToUpper(b.teacher.Email)}, "password": {testPassword}})
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the 4th attempt = %d, want 429", resp.StatusCode)
	}
	// The first failure ages out 15 minutes after testNow.
	if !strings.Contains(body, "Too many attempts; try again at "+views.At(testNow.Add(15*time.Minute), testNow)+".") {
		t.Errorf("the 429 page does not say when to try again:\n%s", body)
	}
	if got := resp.Header.Get("Retry-After"); got != "901" {
		t.Errorf("Retry-After = %q, want 901 seconds", got)
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("a refused sign-in set a cookie")
	}
	// Another account from the same address is not locked yet (3 failures < 5).
	if resp := signIn(b.admin.Email, testPassword); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("another account's sign-in = %d, want 303", resp.StatusCode)
	}

	// The address: two more failures (for anyone) make 5, and then nobody signs in from it.
	signIn("nobody@example.invalid", "guess")
	signIn("someone@example.invalid", "guess")
	if resp := signIn(b.admin.Email, testPassword); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("after 5 failures from the address a sign-in = %d, want 429", resp.StatusCode)
	}

	// Fifteen minutes after the first failures they age out.
	b.clock.Advance(15*time.Minute + time.Second)
	if resp := signIn(b.teacher.Email, testPassword); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after the window a sign-in = %d, want 303", resp.StatusCode)
	}

	list, err := b.store.LoginAttemptList(context.Background(), 50)
	if err != nil {
		t.Fatal(err)
	}
	limited := 0
	for _, a := range list {
		if a.Outcome == store.LoginRateLimited {
			limited++
		}
	}
	if limited != 2 {
		t.Errorf("%d attempts recorded as rate_limited, want 2", limited)
	}
}

func TestCrossOriginPostIsRefusedAndSameOriginHtmxPostWorks(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.TrustedOrigins = []string{"https://portal.example.org"} })
	form := url.Values{"email": {b.support.Email}, "password": {testPassword}}.Encode()

	post := func(c *http.Client, path string, headers map[string]string) (*http.Response, string) {
		req, err := http.NewRequest(http.MethodPost, b.server.URL+path, strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		return do(t, c, req)
	}

	for name, h := range map[string]map[string]string{
		"Sec-Fetch-Site cross-site": {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		"Sec-Fetch-Site same-site":  {"Sec-Fetch-Site": "same-site", "Origin": "https://other.regdesk.example"},
		"Origin only":               {"Origin": "https://evil.example"},
	} {
		for _, path := range []string{"/login", "/logout"} {
			c := b.login(t, b.support)
			resp, body := post(c, path, h)
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s POST %s = %d, want 403", name, path, resp.StatusCode)
			}
			if !strings.Contains(body, "came from another site") || !strings.Contains(body, `data-testid="request-id"`) {
				t.Errorf("%s POST %s: the refusal is not the error page explaining it", name, path)
			}
			if resp.Header.Get("Content-Security-Policy") == "" {
				t.Errorf("%s POST %s: the refusal lacks the security headers", name, path)
			}
			// The refused sign-out changed nothing: the session still works.
			if resp, _ := b.getWith(t, c, "/", false); resp.StatusCode != http.StatusOK {
				t.Errorf("%s POST %s ended the session (GET / = %d)", name, path, resp.StatusCode)
			}
		}
	}

	// A trusted origin may post.
	resp, _ := post(newClient(t), "/login", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://portal.example.org"})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST /login from a trusted origin = %d, want 303", resp.StatusCode)
	}

	// htmx's own same-origin POST goes through and gets HX-Redirect.
	c := b.login(t, b.support)
	resp, _ = post(c, "/logout", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": b.server.URL, "HX-Request": "true"})
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("HX-Redirect") != "/login" {
		t.Errorf("same-origin htmx POST /logout = %d, HX-Redirect %q; want 204 to /login", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
	if resp, _ := b.getWith(t, c, "/", false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after signing out GET / = %d, want 303 to sign in", resp.StatusCode)
	}
}

func TestSessionCookieAndTokenRenewal(t *testing.T) {
	t.Parallel()
	secure := setupWith(t, func(d *web.Deps) { d.Session = web.SessionConfig{} }) // production defaults
	// setup could not sign in over plain HTTP with a Secure cookie kept by the jar; read the header.
	resp, _ := secure.postForm(t, newClient(t), "/login", url.Values{"email": {secure.admin.Email}, "password": {testPassword}})
	cookie := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"__Host-regdesk_session=", "Path=/", "HttpOnly", "Secure", "SameSite=Lax"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie = %q, lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, "Expires") || strings.Contains(cookie, "Domain") {
		t.Errorf("Set-Cookie = %q: want a host-only browser-session cookie", cookie)
	}

	b := setup(t)
	c := b.login(t, b.teacher)
	first := sessionCookie(t, b, c)
	resp, _ = b.postForm(t, c, "/login", url.Values{"email": {b.teacher.Email}, "password": {testPassword}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("second sign-in = %d", resp.StatusCode)
	}
	second := sessionCookie(t, b, c)
	if first.Value == second.Value {
		t.Errorf("signing in again kept the session token; want a new one")
	}
	stale := newClient(t)
	u, _ := url.Parse(b.server.URL)
	stale.Jar.SetCookies(u, []*http.Cookie{first})
	if resp, _ := b.getWith(t, stale, "/", false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the replaced token still opens the queue (GET / = %d)", resp.StatusCode)
	}

	// Signing out deletes the session itself: a copy of the cookie taken before is worthless.
	copied := newClient(t)
	copied.Jar.SetCookies(u, []*http.Cookie{second})
	if resp, _ := b.postForm(t, c, "/logout", nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("POST /logout = %d to %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := b.getWith(t, copied, "/", false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a copy of the signed-out cookie still opens the queue (GET / = %d)", resp.StatusCode)
	}
}

func sessionCookie(t *testing.T, b *testBundle, c *http.Client) *http.Cookie {
	t.Helper()
	u, _ := url.Parse(b.server.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "regdesk_session" {
			return &http.Cookie{Name: ck.Name, Value: ck.Value}
		}
	}
	t.Fatal("no session cookie")
	return nil
}

func TestDisabledOrDeletedAccountIsSignedOutAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	c := b.login(t, b.teacher)
	if err := b.store.AccountDisable(ctx, b.teacher.ID, testNow); err != nil {
		t.Fatal(err)
	}
	if resp, _ := b.getWith(t, c, "/", false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a disabled account's session still opens the queue (GET / = %d)", resp.StatusCode)
	}

	gone := b.addAccount(t, "Gone", "gone@example.invalid", web.RoleAdmin)
	c = b.login(t, gone)
	if _, err := b.store.Pool().Exec(ctx, `DELETE FROM accounts WHERE id = $1`, gone.ID); err != nil {
		t.Fatal(err)
	}
	resp, _ := b.getWith(t, c, "/registrations/"+b.dense, false)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?next=") {
		t.Errorf("a deleted account's session = %d to %q, want 303 to sign in", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestTeacherSeesOnlyTheirCourses(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other, foreign := b.addForeignRow(t)
	teacher := b.login(t, b.teacher)

	resp, body := b.getWith(t, teacher, "/registrations/"+foreign, false)
	if resp.StatusCode != http.StatusNotFound || strings.Contains(body, "Cecilia") {
		t.Errorf("a teacher asking for another course's row got %d, want 404 without the row", resp.StatusCode)
	}
	// Their own course's row is theirs to read, in plain words on its student's page: the
	// registration page's internals (states, codes, Suotar's answers) are support's.
	resp, _ = b.getWith(t, teacher, "/registrations/"+b.permanent+"?alerted_at=2026-01-01T00%3A00%3A00Z", false)
	if want := "/students/" + b.anna.ID + "?alerted_at=2026-01-01T00%3A00%3A00Z#reg-" + b.permanent; resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
		t.Errorf("a teacher asking for their own course's row got %d → %q, want 303 → %s", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	_, body = b.getWith(t, teacher, "/students/"+b.anna.ID, false)
	for _, word := range internalWords {
		if strings.Contains(body, word) {
			t.Errorf("the teacher's student page shows the internal %q", word)
		}
	}
	if resp, _ := b.postForm(t, teacher, "/registrations/"+b.permanent+"/lookup", url.Values{}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a teacher's lookup = %d, want 403", resp.StatusCode)
	}
	for _, path := range []string{"/?show=all", "/?show=all&q=cecilia", "/?show=all&q=016000001", "/?show=all&q=" + foreign, "/?course=" + other.ID} {
		resp, body := b.getWith(t, teacher, path, false)
		if strings.Contains(body, `data-id="`+foreign+`"`) || strings.Contains(body, "Virtanen") || strings.Contains(body, "Tietokantojen") {
			t.Errorf("GET %s (%d) shows a teacher another course's row, student or name", path, resp.StatusCode)
		}
	}
	if _, body := b.getWith(t, teacher, "/queue/counts", true); !strings.Contains(body, `data-testid="count-needs_admin" data-count="2"`) {
		t.Errorf("the teacher's counts include another course's row")
	}
	// Support staff see both courses.
	if _, body := b.get(t, "/?show=all", false); !strings.Contains(body, foreign) {
		t.Errorf("support does not see the other course's row")
	}
	if _, body := b.get(t, "/queue/counts", true); !strings.Contains(body, `data-testid="count-needs_admin" data-count="3"`) {
		t.Errorf("support's counts do not include the other course's row")
	}
}

func TestAnonymousHtmxRequestIsSentToSignInFromItsPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	req, _ := http.NewRequest(http.MethodGet, b.server.URL+"/queue/counts", nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Current-URL", b.server.URL+"/?show=all&phase=dense_window")
	resp, body := do(t, newClient(t), req)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous htmx GET = %d, want 401", resp.StatusCode)
	}
	if got, want := resp.Header.Get("HX-Redirect"), "/login?next="+url.QueryEscape("/?show=all&phase=dense_window"); got != want {
		t.Errorf("HX-Redirect = %q, want %q (the page, not the fragment)", got, want)
	}
	if strings.Contains(body, "<html") {
		t.Errorf("an htmx refusal sent a whole page")
	}

	// A page of another site named as the current URL leads only to the queue.
	req.Header.Set("HX-Current-URL", "https://evil.example/?x")
	resp, _ = do(t, newClient(t), req)
	if got := resp.Header.Get("HX-Redirect"); got != "/login?next=%2F" {
		t.Errorf("HX-Redirect for a foreign current URL = %q, want /login?next=%%2F", got)
	}
}

func TestProxySingleSignOn(t *testing.T) {
	t.Parallel()
	loopback := netip.MustParsePrefix("127.0.0.0/8")
	trusted := setupWith(t, func(d *web.Deps) {
		d.ProxyAuth = web.ProxyAuth{Header: "X-Remote-User", Trusted: []netip.Prefix{loopback}}
	})
	get := func(b *testBundle, user string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, b.server.URL+"/courses", nil)
		req.Header.Set("X-Remote-User", user)
		return do(t, newClient(t), req)
	}

	resp, body := get(trusted, strings.ToUpper(trusted.teacher.Email))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="whoami-name">Tuula Teacher<`) {
		t.Errorf("a trusted proxy's user = %d, want 200 signed in as the teacher", resp.StatusCode)
	}
	if strings.Contains(body, `data-testid="logout"`) {
		t.Errorf("a single sign-on page offers a sign-out that would change nothing")
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("single sign-on started a session; the proxy vouches on every request")
	}
	resp, body = get(trusted, "stranger@example.invalid")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "no active account for that address") || !strings.Contains(body, "stranger@example.invalid") {
		t.Errorf("an unknown proxy user = %d, want 403 saying there is no account", resp.StatusCode)
	}

	// The same header from an address that is not the proxy is anyone's to forge: ignored.
	untrusted := setupWith(t, func(d *web.Deps) {
		d.ProxyAuth = web.ProxyAuth{Header: "X-Remote-User", Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	})
	if resp, _ := get(untrusted, untrusted.admin.Email); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a proxy header from an untrusted address = %d, want 303 to sign in", resp.StatusCode)
	}
	// And with single sign-on off, too.
	off := setup(t)
	if resp, _ := get(off, off.admin.Email); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a proxy header with single sign-on off = %d, want 303 to sign in", resp.StatusCode)
	}
}

// syncBuffer is a log sink the server writes to from its own goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func TestServerErrorShowsARequestIDAndNoInternals(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	b := setupWith(t, func(d *web.Deps) { d.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
	// Break the database under the page so its query fails with PostgreSQL's own words.
	if _, err := storetest.LMS(t, b.store).Exec(context.Background(), `ALTER TABLE credit_registration_events RENAME TO broken_events`); err != nil {
		t.Fatal(err)
	}
	for _, htmx := range []bool{false, true} {
		resp, body := b.get(t, "/registrations/"+b.dense, htmx)
		if resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("status = %d, want 500", resp.StatusCode)
		}
		id := resp.Header.Get("X-Request-Id")
		if id == "" || !strings.Contains(body, id) {
			t.Errorf("the error answer does not show its request id %q", id)
		}
		for _, leak := range []string{"credit_registration_events", "relation", "SQLSTATE", "pgx", "goroutine", ".go:"} {
			if strings.Contains(body, leak) {
				t.Errorf("the error answer leaks %q:\n%s", leak, body)
			}
		}
		if !strings.Contains(logs.String(), "request_id="+id) || !strings.Contains(logs.String(), "credit_registration_events") {
			t.Errorf("no log line with request id %s and the cause", id)
		}
	}
}

// Twenty wrong passwords for one account sent at once, half to each of two regdesk instances on
// one database, meet one limit: exactly ten are checked, the rest are refused before their
// password is.
func TestSignInLimitHoldsUnderABurstOnTwoInstances(t *testing.T) {
	t.Parallel()
	b := setup(t)
	second, err := store.Open(context.Background(), b.store.Pool().Config().ConnString(), store.Options{MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.Close)
	other := web.New(web.Deps{Store: second, Now: b.clock.Now, Session: web.SessionConfig{Insecure: true}})
	t.Cleanup(other.Close)
	otherServer := httptest.NewServer(other.Routes())
	t.Cleanup(otherServer.Close)

	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range 20 {
		base := b.server.URL
		if i%2 == 1 {
			base = otherServer.URL
		}
		wg.Go(func() {
			resp, err := newClient(t).PostForm(base+"/login", url.Values{"email": {b.teacher.Email}, "password": {"not the password"}})
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			codes[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[http.StatusUnauthorized] != 10 || codes[http.StatusTooManyRequests] != 10 {
		t.Errorf("answers %v, want exactly 10 × 401 and 10 × 429", codes)
	}
	// Either instance now refuses the account, the right password too.
	resp, _ := b.postForm(t, newClient(t), "/login", url.Values{"email": {b.teacher.Email}, "password": {testPassword}})
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the right password after the burst = %d, want 429", resp.StatusCode)
	}
}
