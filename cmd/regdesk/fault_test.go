package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
	"regdesk/store"
	"regdesk/store/storetest"
)

// A request whose body trickles in is cut off by the read timeout instead of holding its
// connection for ever.
func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })
	go func() {
		done <- listenAndServe(ctx, "127.0.0.1:0", h, slog.New(slog.DiscardHandler),
			serverLimits{ReadTimeout: 300 * time.Millisecond, WriteTimeout: time.Second}, func(a string) { addrc <- a })
	}()
	addr := <-addrc
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=a"); err != nil {
		t.Fatal(err)
	}
	// The client never sends the rest: the server must give up, long before the test does.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	_, err = io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept a slow-body request open for %v", time.Since(start).Round(time.Millisecond))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// The serve command's limits fit the longest legitimate request, a lookup, and bound the rest.
func TestServeLimitsFitALookup(t *testing.T) {
	t.Parallel()
	cfg := config{StatementTimeout: 5 * time.Second, SuotarTimeout: 50 * time.Second}
	limits := serveLimits(cfg, nil)
	if limits.ReadTimeout <= 0 || limits.ReadTimeout > time.Minute {
		t.Errorf("ReadTimeout = %v, want a bound under a minute", limits.ReadTimeout)
	}
	if limits.WriteTimeout <= cfg.SuotarTimeout+cfg.StatementTimeout {
		t.Errorf("WriteTimeout = %v, shorter than a lookup may take (%v)", limits.WriteTimeout, cfg.SuotarTimeout+cfg.StatementTimeout)
	}
	if limits.Grace <= 0 {
		t.Errorf("no shutdown grace")
	}
}

// A SIGTERM while a lookup waits on a Suotar that does not answer: the lookup stops waiting, is
// recorded as interrupted, the person gets the lookup region saying so, and serve exits cleanly.
func TestShutdownDuringALookupRecordsItAndExitsCleanly(t *testing.T) {
	t.Parallel()
	st, dbURL := storetest.NewWithURL(t, storetest.Options{})
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "A", Email: "anna@example.invalid", StudentNumber: "014979622"})
	now := storetest.Now()
	submitted := now.Add(-30 * time.Hour)
	id := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: course, State: "submission_uncertain",
		ErrorCode: "sisu_timeout", SubmittedAt: &submitted, StateChangedAt: submitted, StudentNumber: "014979622",
		GradeScaleID: "sis-0-5", GradeID: "4", AttainedAt: &submitted})
	hash, err := st.HashPassword("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AccountCreate(context.Background(), store.AccountCreateParams{Name: "Sami Support", Email: "sami@example.invalid",
		Role: "support", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}

	const token = "suotar_fault-test-token"
	fake, err := suotarfake.New(token, suotarfake.WithWorld(suotarfake.NewWorld()),
		suotarfake.WithFaults(suotarfake.Fault{Endpoint: suotarfake.PathResolveEnrolments, Effect: suotarfake.FaultHang}))
	if err != nil {
		t.Fatal(err)
	}
	fakeServer := httptest.NewServer(fake)
	t.Cleanup(fakeServer.Close)
	t.Cleanup(fake.Close)

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var stdout syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, env(map[string]string{
			"DATABASE_URL": dbURL, "REGDESK_ADDR": "127.0.0.1:0", "SESSION_SECURE": "0",
			"SUOTAR_URL": fakeServer.URL + "/api/", "SUOTAR_TOKEN": token, "SUOTAR_TIMEOUT": "50s",
		}), &stdout, io.Discard)
	}()
	addr := waitForAddress(t, &stdout, done)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 40 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm("http://"+addr+"/login", url.Values{"email": {"sami@example.invalid"}, "password": {"correct horse battery staple"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in = %d", resp.StatusCode)
	}

	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/registrations/"+id+"/lookup", strings.NewReader(""))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		resp, err := client.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- answer{status: resp.StatusCode, body: string(b)}
	}()
	// Wait until the lookup hangs on Suotar, then shut down as SIGTERM would.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if calls := fake.Calls(); len(calls) > 0 && calls[len(calls)-1].Outcome == "in progress" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lookup never reached Suotar")
		}
	}
	stop()
	select {
	case a := <-answered:
		if a.err != nil || a.status != http.StatusOK || !strings.Contains(a.body, "stopped waiting for Suotar") {
			t.Errorf("the interrupted lookup answered %d (%v):\n%.600s", a.status, a.err, a.body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the lookup got no answer within the shutdown")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v, want a clean exit", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit")
	}
	// serve dates the lookup by the wall clock, the fixtures by the test's: find it by kind.
	events, err := st.EventListByRegistration(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(events, func(e store.Event) bool { return e.Kind == "sisu_lookup" })
	if i < 0 {
		t.Fatalf("the interrupted lookup was not recorded: %d events", len(events))
	}
	var rec struct {
		Call struct {
			Failure struct{ Kind string } `json:"failure"`
		} `json:"attainments_call"`
	}
	if err := json.Unmarshal(events[i].Details, &rec); err != nil || rec.Call.Failure.Kind != "interrupted" {
		t.Errorf("the recorded call failed as %q (%v), want interrupted: %s", rec.Call.Failure.Kind, err, events[i].Details)
	}
}

// waitForAddress waits for serve to print where it listens.
func waitForAddress(t *testing.T, stdout *syncBuffer, done <-chan error) string {
	t.Helper()
	addrRE := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended early: %v", err)
		default:
		}
	}
	t.Fatalf("serve never printed its address; stdout: %q", stdout.String())
	return ""
}
