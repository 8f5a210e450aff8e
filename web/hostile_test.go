package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store/storetest"
	"regdesk/web"
)

// hostileValues are what an attacker, a broken link or a pasted essay puts in a parameter. Each
// must get a clear 4xx (or the page, when the value is harmless there), never a 5xx and never
// internal text.
var hostileValues = []string{
	"", " ", "\x00", "a\x00b", "\xff", "\xfe\xfe\xfe", "%", "%zz", "\u202egnp.exe", "\u0000\u200b",
	"' OR 1=1 --", "\"); DROP TABLE credit_registrations; --", "<script>alert(1)</script>", "javascript:alert(1)",
	"../../etc/passwd", "\r\nSet-Cookie: x=1", "-1", "0", "99999999999999999999999999", "-300000000000000000",
	"-300000000000000000.00000000-0000-0000-0000-000000000000", "1e309", "NaN", "null", "[]", "{}",
	"00000000-0000-0000-0000-000000000000", "2026-13-45", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
	strings.Repeat("ä", 5000), strings.Repeat("x", 9000),
}

// hostileParams are the query and form fields regdesk reads anywhere; every route gets each.
var hostileParams = []string{
	"show", "phase", "reason", "state", "course", "error", "q", "after", "alerted_at", "actor", "action",
	"registration", "from", "to", "next", "select", "id", "version", "lookup_id", "reason", "confirm",
	"email", "password",
}

// internalWords never appear on a page: they are the driver's, the runtime's or the database's,
// or a catalogue key the page named but the catalogue lacks (i18n.Missing's "⟦").
var internalMarkers = []string{"SQLSTATE", "pgx", "pgconn", "runtime error", "goroutine ", "panic:", "invalid byte sequence",
	"violates", "syntax error at", "context deadline exceeded", "nil pointer", "⟦"}

func TestHostileInputGetsAClearAnswerOnEveryRoute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	walked := walkedRoutes(t, web.New(web.Deps{Store: b.store}).Routes())
	client := b.clientFor(t, web.RoleAdmin)

	type hostileCase struct {
		method, path string
		form         url.Values
		htmx         bool
	}
	var cases []hostileCase
	check := func(method, path string, form url.Values) {
		cases = append(cases, hostileCase{method, path, form, false})
	}
	run := func(method, path string, form url.Values, htmx bool) {
		var body io.Reader = strings.NewReader("")
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequest(method, b.server.URL+path, body)
		if err != nil {
			t.Errorf("%s %q: cannot even be requested: %v", method, path, err)
			return
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		resp, text := do(t, client, req)
		// The one 5xx that is an answer: the lookup says Suotar is not configured.
		if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(text, "Suotar is not configured") {
			return
		}
		if resp.StatusCode >= 500 {
			t.Errorf("%s %.200q = %d", method, path, resp.StatusCode)
		}
		for _, m := range internalMarkers {
			if strings.Contains(text, m) {
				t.Errorf("%s %.200q shows internal text %q", method, path, m)
			}
		}
		for k, vs := range resp.Header {
			for _, v := range vs {
				if len(v) > 8192 {
					t.Errorf("%s %.200q answers a %d-byte %s header", method, path, len(v), k)
				}
			}
		}
	}

	for key, methods := range walked {
		_, pattern, _ := strings.Cut(key, " ")
		if strings.HasPrefix(key, "* ") || pattern == "/logout" {
			continue // static files take no input; signing out would end the session the walk uses
		}
		for _, method := range methods {
			// Every value in every path parameter.
			if strings.Contains(pattern, "{") {
				for _, v := range hostileValues {
					path := strings.NewReplacer("{id}", url.PathEscape(v), "{action}", url.PathEscape(v)).Replace(pattern)
					if method == http.MethodPost {
						check(method, path, url.Values{"reason": {"checking"}})
					} else {
						check(method, path, nil)
					}
				}
			}
			// Every value in every parameter, in the query of a GET and the form of a POST.
			base := strings.NewReplacer("{id}", b.uncertainOverdue, "{action}", "clear_flag").Replace(pattern)
			for _, p := range hostileParams {
				for _, v := range hostileValues {
					if method == http.MethodGet {
						check(method, base+"?"+url.Values{p: {v}}.Encode(), nil)
					} else {
						check(method, base, url.Values{p: {v}})
					}
				}
			}
		}
	}
	// A filter repeated ten thousand times is deduplicated, not run ten thousand times nor copied
	// into the pushed URL; many distinct ones are refused.
	cases = append(cases, hostileCase{http.MethodGet, "/?" + strings.Repeat("phase=dense_window&", 10000), nil, true})
	many := url.Values{}
	for i := range 500 {
		many.Add("phase", strings.Repeat("p", i%40+1))
	}
	cases = append(cases, hostileCase{http.MethodGet, "/?" + many.Encode(), nil, true})
	check(http.MethodGet, "/audit?after="+url.QueryEscape("-300000000000000000.00000000-0000-0000-0000-000000000000"), nil)
	if len(cases) < 278 {
		t.Errorf("the walk tries %d kinds of bad input, want at least 278", len(cases))
	}
	// Four at a time: enough to finish quickly on two cores, few enough not to starve the pool.
	work := make(chan hostileCase)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for c := range work {
				run(c.method, c.path, c.form, c.htmx)
			}
		})
	}
	for _, c := range cases {
		work <- c
	}
	close(work)
	wg.Wait()
}

// A right-to-left override in a name or a reason cannot reorder what a page shows: every
// bidirectional control reaches the browser as its code point.
func TestBidiControlsInNamesAndReasonsAreShownAsCodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rlo := "\u202e"
	sneaky := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Invoice" + rlo + "gnp", LastName: ".exe", Email: "x@example.invalid"})
	id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: sneaky, Course: b.course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Hour)})
	b.actAsStore(t, b.support, id, schedule.ActionClearFlag, "Looked at "+rlo+"fdp.txt", testNow.Add(-time.Minute))

	for _, path := range []string{"/registrations/" + id, "/students/" + sneaky.ID, "/?show=all", "/audit"} {
		_, body := b.get(t, path, false)
		if strings.ContainsFunc(body, func(r rune) bool { return r == '\u202e' }) {
			t.Errorf("GET %s sends a raw right-to-left override", path)
		}
		if !strings.Contains(body, "Invoice[U+202E]gnp") {
			t.Errorf("GET %s does not show the override as its code", path)
		}
	}
	if _, body := b.get(t, "/registrations/"+id, false); !strings.Contains(body, "Looked at [U+202E]fdp.txt") {
		t.Errorf("the history does not show the reason's override as its code")
	}
}
