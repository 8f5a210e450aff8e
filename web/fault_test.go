package web_test

import (
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/store/storetest/faultproxy"
	"regdesk/web"
)

// faultBundle is a server whose every connection to PostgreSQL goes through a fault proxy, with
// short timeouts so a test of a hung database takes seconds, and its log kept for reading.
type faultBundle struct {
	*testBundle
	proxy *faultproxy.Proxy
	log   *syncBuffer
}

const (
	faultStatementTimeout = 500 * time.Millisecond
	faultRequestTimeout   = time.Second
)

func setupFaults(t *testing.T) *faultBundle {
	t.Helper()
	_, dbURL := storetest.NewWithURL(t, storetest.Options{})
	proxy, viaProxy := storetest.ThroughProxy(t, dbURL)
	st, err := store.Open(context.Background(), viaProxy, store.Options{StatementTimeout: faultStatementTimeout, MaxConns: 8, PasswordCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	logs := &syncBuffer{}
	b := setupOn(t, st, func(d *web.Deps) {
		d.RequestTimeout = faultRequestTimeout
		d.Log = slog.New(slog.NewTextHandler(logs, nil))
	})
	return &faultBundle{testBundle: b, proxy: proxy, log: logs}
}

// timed makes one request and says how long the answer took.
func (f *faultBundle) timed(t *testing.T, c *http.Client, method, path string, form url.Values, htmx bool) (*http.Response, string, time.Duration) {
	t.Helper()
	var body *strings.Reader = strings.NewReader("")
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, f.server.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	start := time.Now()
	resp, text := do(t, c, req)
	return resp, text, time.Since(start)
}

// A database that hangs (accepts connections, answers nothing, as a SIGSTOPped PostgreSQL does)
// holds no request beyond its deadline, whichever part of the request waits on it: the session,
// the account, the page's queries, an action's transaction, or a sign-in. Each gets the page or
// fragment that says the database is not answering.
func TestHungDatabaseEndsEveryRequestWithinItsDeadline(t *testing.T) {
	t.Parallel()
	f := setupFaults(t)
	support := f.login(t, f.support)
	anon := newClient(t)

	f.proxy.Set(faultproxy.Hang)
	// The bound is the request deadline plus time to answer; the client gives up far later, so a
	// request that hangs fails here rather than passing by timing out on the client side.
	support.Timeout, anon.Timeout = 20*time.Second, 20*time.Second
	bound := faultRequestTimeout + 2*time.Second
	for _, tc := range []struct {
		name   string
		client *http.Client
		method string
		path   string
		form   url.Values
		htmx   bool
	}{
		{"Queue", support, http.MethodGet, "/", nil, false},
		{"QueueFragment", support, http.MethodGet, "/?show=all", nil, true},
		{"Registration", support, http.MethodGet, "/registrations/" + f.permanent, nil, false},
		{"Action", support, http.MethodPost, "/registrations/" + f.permanent + "/actions/" + string(schedule.ActionClearFlag),
			url.Values{"version": {"1"}, "reason": {"Checked"}}, true},
		{"SignIn", anon, http.MethodPost, "/login", url.Values{"email": {f.support.Email}, "password": {testPassword}}, false},
	} {
		resp, body, took := f.timed(t, tc.client, tc.method, tc.path, tc.form, tc.htmx)
		if took > bound {
			t.Errorf("%s: answered after %v, want within %v", tc.name, took.Round(time.Millisecond), bound)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "not answering") {
			t.Errorf("%s: %d, want 503 saying the database is not answering:\n%.1500s", tc.name, resp.StatusCode, body)
		}
		if resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", tc.name)
		}
	}
	// The sign-in page needs no database for someone without a session: it still answers.
	if resp, _, took := f.timed(t, anon, http.MethodGet, "/login", nil, false); resp.StatusCode != http.StatusOK || took > bound {
		t.Errorf("the sign-in page on a hung database = %d after %v", resp.StatusCode, took)
	}
	health, _, took := f.timed(t, anon, http.MethodGet, "/healthz", nil, false)
	if health.StatusCode != http.StatusServiceUnavailable || took > 2*time.Second {
		t.Errorf("/healthz on a hung database = %d after %v, want 503 within a second or so", health.StatusCode, took)
	}

	// When the database answers again, so does regdesk, and the person is still signed in.
	f.proxy.Set(faultproxy.Pass)
	f.answersAgain(t, support)
}

// answersAgain waits a bounded time for the queue to answer 200 once the database is back. The
// fault tests' request deadline is one second, which a loaded machine can overrun on the first
// queue page after an outage (cold counts, cold banner); a regdesk that never recovers still fails.
func (f *faultBundle) answersAgain(t *testing.T, c *http.Client) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, _, _ := f.timed(t, c, http.MethodGet, "/", nil, false)
		if resp.StatusCode == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("after the database came back: GET / still %d after 15 s", resp.StatusCode)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A database that is down gets a 503 page saying it is unreachable and to try again, with
// Retry-After, not "something went wrong"; the log says so once per interval with a count, not
// once per request; /healthz says so at once and recovers within a second of its return.
func TestStoppedDatabaseIs503WithAQuietLog(t *testing.T) {
	t.Parallel()
	f := setupFaults(t)
	support := f.login(t, f.support)

	f.proxy.Set(faultproxy.Down)
	const requests = 40
	for range requests {
		resp, body, _ := f.timed(t, support, http.MethodGet, "/", nil, false)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "cannot reach its database") ||
			resp.Header.Get("Retry-After") != "5" {
			t.Fatalf("GET / on a stopped database = %d (Retry-After %q):\n%.400s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if strings.Contains(body, "Something went wrong") {
			t.Fatalf("a stopped database reads as a fault of regdesk's")
		}
	}
	if lines := strings.Count(f.log.String(), "level=ERROR"); lines > 3 {
		t.Errorf("%d requests wrote %d error lines, want the trouble logged once per interval:\n%s", requests, lines, f.log.String())
	}
	if !strings.Contains(f.log.String(), "more_since_last_line") {
		t.Errorf("the log line does not count what it stands for")
	}
	if health, _, took := f.timed(t, newClient(t), http.MethodGet, "/healthz", nil, false); health.StatusCode != http.StatusServiceUnavailable || took > 2*time.Second {
		t.Errorf("/healthz on a stopped database = %d after %v", health.StatusCode, took)
	}

	f.proxy.Set(faultproxy.Pass)
	deadline := time.Now().Add(time.Second)
	for {
		health, _, _ := f.timed(t, newClient(t), http.MethodGet, "/healthz", nil, false)
		if health.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz still %d a second after the database came back", health.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.answersAgain(t, support)
}

// An action that committed is answered as done even when its session (the flash it leaves, the
// idle clock) cannot be saved afterwards.
func TestActionAppliedThoughTheSessionCannotBeSaved(t *testing.T) {
	t.Parallel()
	b := setup(t)
	support := b.login(t, b.support)
	_, page := b.getWith(t, support, "/registrations/"+b.permanent, false)
	version := versionField.FindStringSubmatch(page)
	if version == nil {
		t.Fatal("the page carries no version")
	}
	// From now on the sessions table refuses every write: the action's transaction still commits.
	exec := func(sql string) {
		if _, err := b.store.Pool().Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE FUNCTION refuse_session_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'sessions are read-only'; END $$`)
	exec(`CREATE TRIGGER refuse_session_writes BEFORE INSERT OR UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION refuse_session_writes()`)

	for _, htmx := range []bool{true, false} {
		before := b.written(t, b.permanent)
		resp, body := b.act(t, support, b.permanent, schedule.ActionClearFlag, url.Values{"version": {version[1]}, "reason": {"Checked with the teacher"}}, htmx)
		if resp.StatusCode >= 400 {
			t.Fatalf("htmx=%v: an applied action answered %d:\n%.400s", htmx, resp.StatusCode, body)
		}
		if after := b.written(t, b.permanent); after == before {
			t.Fatalf("htmx=%v: the action wrote nothing", htmx)
		}
		next := resp.Header.Get("Location")
		if htmx {
			next = resp.Header.Get("HX-Redirect")
		}
		if !strings.Contains(next, "notice=unsaved") {
			t.Errorf("htmx=%v: the answer leads to %q, which cannot say the action was recorded", htmx, next)
		}
		_, page = b.getWith(t, support, next, false)
		if !strings.Contains(html.UnescapeString(page), "your change was recorded") {
			t.Errorf("htmx=%v: the page after the action does not say it was recorded", htmx)
		}
		version = versionField.FindStringSubmatch(page)
		// Put the flag back up for the next round, as the pipeline would.
		if _, err := b.store.Pool().Exec(context.Background(), `UPDATE credit_registrations SET needs_admin_attention = true WHERE id = $1`, b.permanent); err != nil {
			t.Fatal(err)
		}
		_, page = b.getWith(t, support, "/registrations/"+b.permanent, false)
		version = versionField.FindStringSubmatch(page)
	}
}
