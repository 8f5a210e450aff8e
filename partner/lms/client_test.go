package lms_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"regdesk/partner/lms"
)

const (
	testToken = "svc-token-0123456789abcdef0123456789abcdef"
	actor     = "5b0b8c9e-1c1f-4a57-9a55-0d3e2f6a7b10"
	regID     = "0f7c2b7e-3a9d-4d64-8a4b-6a1d2f3c4b5d"
)

// answer is one canned answer.
type answer struct {
	status      int
	contentType string
	body        string
}

// stub answers every call with one canned answer and records what it was sent.
type stub struct {
	answer
	got     atomic.Pointer[http.Request]
	gotBody atomic.Pointer[[]byte]
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.gotBody.Store(&b)
	s.got.Store(r)
	if s.contentType != "" {
		w.Header().Set("Content-Type", s.contentType)
	}
	w.WriteHeader(s.status)
	io.WriteString(w, s.body)
}

func newClient(t *testing.T, h http.Handler) *lms.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := lms.New(srv.URL+"/lms/", testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func asError(t *testing.T, err error) *lms.Error {
	t.Helper()
	var e *lms.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *lms.Error", err, err)
	}
	if strings.Contains(e.Error(), testToken) || strings.Contains(e.Sample, testToken) {
		t.Errorf("error text holds the token: %q / %q", e.Error(), e.Sample)
	}
	return e
}

func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct{ url, token string }{
		{"", testToken}, {"courses.mooc.fi", testToken}, {"ftp://lms", testToken},
		{"https://lms?x=1", testToken}, {"https://lms", " "},
	} {
		if _, err := lms.New(tc.url, tc.token, nil); err == nil {
			t.Errorf("New(%q, %q) = nil error, want one", tc.url, tc.token)
		}
	}
}

func TestTransitionSendsTheContract(t *testing.T) {
	t.Parallel()

	s := &stub{answer: answer{status: 200, contentType: "application/json", body: `{"outcome":"applied","refusal":null,"state":"cancelled","needs_admin_attention":false}`}}
	c := newClient(t, s)
	res, err := c.Transition(context.Background(), actor, regID, lms.Cancel, "checked in Sisu")
	if err != nil {
		t.Fatal(err)
	}
	if res != (lms.TransitionResult{Outcome: lms.OutcomeApplied, State: lms.StateCancelled}) {
		t.Errorf("Transition() = %+v", res)
	}
	r := s.got.Load()
	if got, want := r.URL.Path, "/lms"+lms.APIPrefix+"registrations/"+regID+"/transition"; got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	if r.Method != http.MethodPost {
		t.Errorf("method = %s", r.Method)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
		t.Errorf("Authorization = %q", got)
	}
	if got := r.Header.Get(lms.ActingUserHeader); got != actor {
		t.Errorf("%s = %q", lms.ActingUserHeader, got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
}

func TestInvalidInputIsNotSent(t *testing.T) {
	t.Parallel()

	s := &stub{answer: answer{status: 200}}
	c := newClient(t, s)
	ctx := context.Background()
	many := make([]string, lms.MaxBulkIDs+1)
	for i := range many {
		many[i] = regID
	}
	for name, call := range map[string]func() error{
		"blank reason": func() error { _, err := c.Transition(ctx, actor, regID, lms.Cancel, "  "); return err },
		"bad actor":    func() error { _, err := c.Transition(ctx, "7", regID, lms.Cancel, "r"); return err },
		"bad id":       func() error { _, err := c.Transition(ctx, actor, "x", lms.Cancel, "r"); return err },
		"bad action": func() error {
			_, err := c.Transition(ctx, actor, regID, lms.Action{Kind: lms.KindStateMove, ToState: lms.StateRegistered}, "r")
			return err
		},
		"too many ids":  func() error { _, err := c.BulkTransition(ctx, actor, many, lms.Cancel, "r"); return err },
		"bad bulk id":   func() error { _, err := c.BulkTransition(ctx, actor, []string{"nope"}, lms.Cancel, "r"); return err },
		"bad module id": func() error { return c.PauseModule(ctx, actor, "m", "r") },
		"no phase":      func() error { _, err := c.PausePhase(ctx, actor, "", "r"); return err },
	} {
		err := call()
		if e := asError(t, err); e.Kind != lms.KindInvalidInput {
			t.Errorf("%s: kind = %s, want invalidInput", name, e.Kind)
		}
	}
	if s.got.Load() != nil {
		t.Error("a refused call reached the LMS")
	}
}

func TestErrorKinds(t *testing.T) {
	t.Parallel()

	lmsErr := func(title, msg string) string {
		b, _ := json.Marshal(map[string]any{"title": title, "message": msg, "source": nil, "data": nil})
		return string(b)
	}
	tests := []struct {
		name      string
		answer    answer
		kind      lms.Kind
		rejection lms.Rejection
		message   string
	}{
		{"reason", answer{status: 400, contentType: "application/json", body: lmsErr("Bad Request", "A reason is required.")}, lms.KindRejected, lms.RejectionReasonRequired, "A reason is required."},
		{"superseded", answer{status: 400, contentType: "application/json", body: lmsErr("Bad Request", "This attempt has been replaced by a later one. Act on the later one.")}, lms.KindRejected, lms.RejectionSuperseded, ""},
		{"moved on", answer{status: 400, contentType: "application/json", body: lmsErr("Bad Request", "Credit registration "+regID+" is in AwaitingVerification, not the expected SubmissionUncertain: refusing to overwrite it.")}, lms.KindRejected, lms.RejectionMovedOn, ""},
		{"other 400", answer{status: 400, contentType: "text/plain", body: "Json deserialize error"}, lms.KindRejected, lms.RejectionOther, ""},
		{"401", answer{status: 401, contentType: "application/json", body: lmsErr("Unauthorized", "no")}, lms.KindUnauthorized, "", ""},
		{"403", answer{status: 403, contentType: "application/json", body: lmsErr("Forbidden", "no")}, lms.KindForbidden, "", ""},
		{"404", answer{status: 404, contentType: "application/json", body: lmsErr("Not Found", "no rows")}, lms.KindNotFound, "", ""},
		{"500", answer{status: 500, contentType: "application/json", body: lmsErr("Internal Server Error", "pool timed out")}, lms.KindUnknownOutcome, "", ""},
		{"502 html", answer{status: 502, contentType: "text/html", body: "<html><body>Bad Gateway 1234567</body></html>"}, lms.KindUnknownOutcome, "", ""},
		{"200 html", answer{status: 200, contentType: "text/html", body: "<html>login</html>"}, lms.KindUnknownOutcome, "", ""},
		{"200 garbage", answer{status: 200, contentType: "application/json", body: "{not json"}, lms.KindUnknownOutcome, "", ""},
		{"200 renamed field", answer{status: 200, contentType: "application/json", body: `{"result":"applied","refusal":null,"state":"cancelled","needs_admin_attention":false}`}, lms.KindUnknownOutcome, "", ""},
		{"200 unknown outcome", answer{status: 200, contentType: "application/json", body: `{"outcome":"maybe","refusal":null,"state":"cancelled","needs_admin_attention":false}`}, lms.KindUnknownOutcome, "", ""},
		{"200 refused without refusal", answer{status: 200, contentType: "application/json", body: `{"outcome":"refused","refusal":null,"state":"cancelled","needs_admin_attention":false}`}, lms.KindUnknownOutcome, "", ""},
		{"redirect", answer{status: 302, body: ""}, lms.KindUnknownOutcome, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if tc.name == "redirect" {
				c := newClient(t, http.RedirectHandler("/login", http.StatusFound))
				_, err := c.Transition(context.Background(), actor, regID, lms.Cancel, "r")
				if e := asError(t, err); e.Kind != tc.kind {
					t.Errorf("kind = %s, want %s", e.Kind, tc.kind)
				}
				return
			}
			c := newClient(t, &stub{answer: tc.answer})
			_, err := c.Transition(context.Background(), actor, regID, lms.Cancel, "r")
			e := asError(t, err)
			if e.Kind != tc.kind {
				t.Errorf("kind = %s, want %s (%v)", e.Kind, tc.kind, e)
			}
			if e.Rejection != tc.rejection {
				t.Errorf("rejection = %q, want %q", e.Rejection, tc.rejection)
			}
			if tc.message != "" && e.Message != tc.message {
				t.Errorf("message = %q, want %q", e.Message, tc.message)
			}
			if got, want := lms.IsOutcomeUnknown(err), tc.kind == lms.KindUnknownOutcome; got != want {
				t.Errorf("IsOutcomeUnknown = %v, want %v", got, want)
			}
			if strings.Contains(e.Sample, "1234567") {
				t.Errorf("sample keeps a digit run: %q", e.Sample)
			}
		})
	}
}

func TestTimeoutIsUnknownOutcome(t *testing.T) {
	t.Parallel()

	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	c, err := lms.New(srv.URL, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.WithTimeout(200*time.Millisecond).Transition(context.Background(), actor, regID, lms.Resubmit, "r")
	if e := asError(t, err); e.Kind != lms.KindUnknownOutcome {
		t.Errorf("kind = %s, want unknownOutcome", e.Kind)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %v despite a 200 ms limit", d)
	}
}

func TestConnectionResetIsUnknownOutcome(t *testing.T) {
	t.Parallel()

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	c, err := lms.New(srv.URL, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.BulkTransition(context.Background(), actor, []string{regID}, lms.Cancel, "r")
	if e := asError(t, err); e.Kind != lms.KindUnknownOutcome {
		t.Errorf("kind = %s, want unknownOutcome", e.Kind)
	}
}

func TestRefusedConnectionIsNotSent(t *testing.T) {
	t.Parallel()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := lms.New("http://"+addr, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = c.PauseModule(context.Background(), actor, regID, "r")
	if e := asError(t, err); e.Kind != lms.KindNotSent {
		t.Errorf("kind = %s, want notSent (%v)", e.Kind, e)
	}
}

func TestModuleAnswerMustBeTrue(t *testing.T) {
	t.Parallel()

	c := newClient(t, &stub{answer: answer{status: 200, contentType: "application/json", body: "false"}})
	err := c.ResumeModule(context.Background(), actor, regID, "")
	if e := asError(t, err); e.Kind != lms.KindUnknownOutcome {
		t.Errorf("kind = %s, want unknownOutcome", e.Kind)
	}
}

func TestActionJSONRoundTrip(t *testing.T) {
	t.Parallel()

	for _, a := range []lms.Action{lms.Resubmit, lms.Cancel, lms.ClearAttention, lms.CheckNow} {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var back lms.Action
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		if back != a {
			t.Errorf("round trip of %v gave %v", a, back)
		}
	}
	for _, bad := range []string{`{"kind":"state_move"}`, `{"kind":"state_move","to_state":"registered"}`, `{"kind":"mark_registered"}`, `{}`} {
		var a lms.Action
		if err := json.Unmarshal([]byte(bad), &a); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", bad, a)
		}
	}
}
