package web_test

import (
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
	// direct reaches the same database around the proxy, as an operator's psql would.
	direct string
}

const (
	faultStatementTimeout = 500 * time.Millisecond
	faultRequestTimeout   = time.Second
	// faultApp names the server's connections in pg_stat_activity, so a test can find them.
	faultApp = "regdesk_under_fault"
)

func setupFaults(t *testing.T) *faultBundle {
	t.Helper()
	return setupFaultsWith(t, faultStatementTimeout, faultRequestTimeout)
}

// setupFaultsWith is setupFaults with the statement and request timeouts given.
func setupFaultsWith(t *testing.T, statement, request time.Duration) *faultBundle {
	t.Helper()
	directStore, dbURL := storetest.NewWithURL(t, storetest.Options{})
	proxy, viaProxy := storetest.ThroughProxy(t, dbURL)
	st, err := store.Open(context.Background(), viaProxy+"&application_name="+faultApp, store.Options{StatementTimeout: statement, MaxConns: 8, PasswordCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	storetest.ShareLMS(t, directStore, st)
	logs := &syncBuffer{}
	b := setupOn(t, st, func(d *web.Deps) {
		d.RequestTimeout = request
		d.Log = slog.New(slog.NewTextHandler(logs, nil))
	})
	return &faultBundle{testBundle: b, proxy: proxy, log: logs, direct: storetest.OwnerURL(dbURL)}
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
		storetest.LMSExec(t, b.store, `UPDATE credit_registrations SET needs_admin_attention = true WHERE id = $1`, b.permanent)
		_, page = b.getWith(t, support, "/registrations/"+b.permanent, false)
		version = versionField.FindStringSubmatch(page)
	}
}

// PostgreSQL stopping while a statement runs: a fast stop (pg_ctl stop -m fast, or a restart)
// has every backend send its client FATAL 57P01 (admin_shutdown) and go, and then the server
// takes no connections; a network that fails cuts the connection instead. Either way the request
// caught mid-statement gets the same 503 as the requests after it (the database cannot be
// reached, try again, Retry-After), never "Something went wrong"; and when PostgreSQL is back, so
// is regdesk.
func TestDatabaseStoppingMidStatementIs503(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		stop func(t *testing.T, f *faultBundle, admin *pgx.Conn)
	}{
		{"AdminShutdown", func(t *testing.T, f *faultBundle, admin *pgx.Conn) {
			// What the postmaster does to each backend in a fast stop. (Taking the proxy down too
			// would reset the connection before the FATAL reaches regdesk: the other case.)
			if _, err := admin.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, faultApp); err != nil {
				t.Fatal(err)
			}
		}},
		{"ConnectionCut", func(t *testing.T, f *faultBundle, admin *pgx.Conn) { f.proxy.Set(faultproxy.Down) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Timeouts long enough that the statement is still running when PostgreSQL stops.
			f := setupFaultsWith(t, 5*time.Second, 6*time.Second)
			support := f.login(t, f.support)
			ctx := context.Background()
			admin, err := pgx.Connect(ctx, f.direct)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(ctx)
			// The session's read waits on this lock: the request is mid-statement until the stop.
			lock, err := admin.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := lock.Exec(ctx, `LOCK TABLE regdesk.sessions IN ACCESS EXCLUSIVE MODE`); err != nil {
				t.Fatal(err)
			}
			type answer struct {
				resp *http.Response
				body string
			}
			answered := make(chan answer, 1)
			go func() {
				resp, body, _ := f.timed(t, support, http.MethodGet, "/", nil, false)
				answered <- answer{resp, body}
			}()
			waitForLockWait(t, f.direct)
			tc.stop(t, f, admin)
			a := <-answered
			_ = lock.Rollback(ctx)
			if a.resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(a.body, "cannot reach its database") ||
				a.resp.Header.Get("Retry-After") != "5" {
				t.Errorf("a request whose statement the stop caught = %d (Retry-After %q), want 503 saying the database cannot be reached:\n%.600s",
					a.resp.StatusCode, a.resp.Header.Get("Retry-After"), a.body)
			}
			f.proxy.Set(faultproxy.Pass)
			f.answersAgain(t, support)
		})
	}
}

// A restart that ends the server's idle connections too: each holds a FATAL 57P01 the pool reads
// on its next use. Requests right after get their page or the 503, never a 500.
func TestDatabaseRestartEndingIdleConnectionsIsNever500(t *testing.T) {
	t.Parallel()
	f := setupFaultsWith(t, 5*time.Second, 6*time.Second)
	support := f.login(t, f.support)
	ctx := context.Background()
	// Fill the pool with idle connections.
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { f.timed(t, support, http.MethodGet, "/", nil, false) })
	}
	wg.Wait()
	admin, err := pgx.Connect(ctx, f.direct)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, faultApp); err != nil {
		t.Fatal(err)
	}
	statuses := make(chan int, 6)
	for range 6 {
		wg.Go(func() {
			resp, body, _ := f.timed(t, support, http.MethodGet, "/", nil, false)
			if strings.Contains(body, "Something went wrong") {
				t.Errorf("after the restart a page answered as a fault of regdesk's:\n%.400s", body)
			}
			statuses <- resp.StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st != http.StatusOK && st != http.StatusServiceUnavailable {
			t.Errorf("a request after the restart = %d, want its page or 503", st)
		}
	}
	f.answersAgain(t, support)
}

// waitForLockWait waits until one of the server's connections waits on a lock.
func waitForLockWait(t *testing.T, direct string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		var waiting bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock')`, faultApp).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never reached its statement")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The heavy pages (/courses, /courses/{id}, /overview) take turns on a few slots. A person whose
// turn does not come within the wait is told, at the end of it, that the page is busy and to try
// again (503, Retry-After), not made to wait on until a deadline and then told the database is
// not answering; the page that had the slot still answers within its own bound.
func TestHeavyPageWaitsItsBoundThenSaysItIsBusy(t *testing.T) {
	t.Parallel()
	const wait, request = 500 * time.Millisecond, 3 * time.Second
	b := setupWith(t, func(d *web.Deps) { d.HeavyPages, d.HeavyWait, d.RequestTimeout = 1, wait, request })
	ctx := context.Background()
	// The course list waits on this lock, holding the only slot.
	hold, err := storetest.LMS(t, b.store).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx)
	if _, err := hold.Exec(ctx, `LOCK TABLE courses IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	first := make(chan int, 1)
	go func() {
		resp, _ := b.getWith(t, b.login(t, b.admin), "/courses", false)
		first <- resp.StatusCode
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var waiting bool
		if err := storetest.LMS(t, b.store).QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
  WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first course list never reached the lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, tc := range []struct {
		path string
		htmx bool
	}{{"/overview", false}, {"/courses/" + b.course.ID, false}, {"/courses", true}} {
		start := time.Now()
		resp, body := b.getWith(t, b.client, tc.path, tc.htmx)
		took := time.Since(start)
		if took > wait+time.Second {
			t.Errorf("%s waited %v for its turn, want at most the %v wait", tc.path, took.Round(time.Millisecond), wait)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "This page is busy") || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s (htmx %v) without a turn = %d (Retry-After %q), want 503 saying the page is busy:\n%.600s",
				tc.path, tc.htmx, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if strings.Contains(body, "database") {
			t.Errorf("%s without a turn blames the database", tc.path)
		}
	}
	// The page with the slot ends within its own bound: the wait and the request's time.
	select {
	case <-first:
	case <-time.After(wait + request + 2*time.Second):
		t.Errorf("the page holding the slot did not end within its bound")
	}
}
