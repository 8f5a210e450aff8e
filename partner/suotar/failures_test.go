package suotar_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar"
	"regdesk/partner/suotar/suotarfake"
)

// TestRequestLevelFailures drives every way a whole call can fail, over real HTTP, and checks
// what a support person is told and whether trying again makes sense.
func TestRequestLevelFailures(t *testing.T) {
	t.Parallel()

	fault := func(f suotarfake.Fault) []suotarfake.Option { return []suotarfake.Option{suotarfake.WithFaults(f)} }
	tests := []struct {
		name      string
		cfg       suotar.Config
		opts      []suotarfake.Option
		queries   int
		ctx       func(context.Context) (context.Context, context.CancelFunc)
		kind      suotar.Kind
		status    int
		retryable bool
		message   string
	}{
		{name: "Malformed400", opts: []suotarfake.Option{suotarfake.WithBatchLimit(suotarfake.PathResolveEnrolments, 1)}, queries: 2,
			kind: suotar.KindMalformed, status: 400, message: "Suotar refused the lookup as malformed: tell an administrator."},
		{name: "Unauthorized401", cfg: suotar.Config{Token: "suotar_revoked"},
			kind: suotar.KindUnauthorized, status: 401, message: "regdesk's Suotar token was refused: tell an administrator."},
		{name: "LegacyBare401", cfg: suotar.Config{BaseURL: "{fake}/api/moocfi"},
			kind: suotar.KindWrongBaseURL, status: 401, message: "regdesk is calling the wrong Suotar address: tell an administrator."},
		{name: "TooLarge413", opts: []suotarfake.Option{suotarfake.WithBodyLimit(64)},
			kind: suotar.KindTooLarge, status: 413, message: "The lookup is too large for one Suotar call; look up fewer at a time."},
		{name: "Unavailable503", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultUnavailable}),
			kind: suotar.KindUnavailable, status: 503, retryable: true, message: "Suotar is unavailable, try again in a minute."},
		{name: "TooManyRequests429", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultRequestLevel, Status: 429, Code: "tooManyRequests"}),
			kind: suotar.KindUnavailable, status: 429, retryable: true},
		{name: "InternalError500", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultInternalError}),
			kind: suotar.KindServerError, status: 500, retryable: true, message: "Suotar failed while answering; try again in a minute."},
		{name: "HTMLBadGateway502", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultBadGateway}),
			kind: suotar.KindServerError, status: 502, retryable: true},
		{name: "NotFound404", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultRequestLevel, Status: 404, Code: "notFound"}),
			kind: suotar.KindWrongBaseURL, status: 404},
		{name: "OtherClientError418", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultRequestLevel, Status: 418, Code: "teapot"}),
			kind: suotar.KindRejected, status: 418, message: "Suotar refused the lookup (HTTP 418): tell an administrator."},
		{name: "GarbageBody", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultGarbageBody}),
			kind: suotar.KindBadAnswer, status: 200, retryable: true, message: "Suotar's answer could not be read; try again, and tell an administrator if it happens again."},
		{name: "NonArrayBody", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultNonArrayBody}),
			kind: suotar.KindBadAnswer, status: 200, retryable: true},
		{name: "WrongContentType", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultWrongContentType}),
			kind: suotar.KindBadAnswer, status: 200, retryable: true},
		{name: "EveryItemDropped", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultDropItems}),
			kind: suotar.KindBadAnswer, status: 200, retryable: true},
		{name: "ConnectionReset", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultConnectionReset}),
			kind: suotar.KindTransport, retryable: true, message: "regdesk could not reach Suotar; try again in a minute."},
		{name: "HangPastTheClientTimeout", cfg: suotar.Config{Timeout: 300 * time.Millisecond}, opts: fault(suotarfake.Fault{Effect: suotarfake.FaultHang}),
			kind: suotar.KindTimeout, retryable: true, message: "Suotar did not answer within 0.3 seconds; try again."},
		{name: "SlowerThanTheClientTimeout", cfg: suotar.Config{Timeout: 300 * time.Millisecond},
			opts: fault(suotarfake.Fault{Effect: suotarfake.FaultLatency, Delay: suotarfake.Duration(5 * time.Second)}),
			kind: suotar.KindTimeout, retryable: true},
		{name: "HangPastTheCallersDeadline", opts: fault(suotarfake.Fault{Effect: suotarfake.FaultHang}),
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 300*time.Millisecond)
			},
			kind: suotar.KindTimeout, retryable: true, message: "Suotar did not answer in time; try again."},
		{name: "CallerCancelled", ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			return ctx, cancel
		}, kind: suotar.KindCanceled, message: "The lookup was cancelled."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			b := setup(t, tc.cfg, tc.opts...)
			ctx, cancel := t.Context(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx(ctx)
			}
			defer cancel()
			queries := make([]suotar.EnrolmentQuery, max(tc.queries, 1))
			for i := range queries {
				queries[i] = suotar.EnrolmentQuery{StudentNumber: aino, CourseCode: basics}
			}
			batch, err := b.client.ResolveEnrolments(ctx, queries)
			e, ok := errors.AsType[*suotar.Error](err)
			if !ok {
				t.Fatalf("err = %v, want a *suotar.Error", err)
			}
			if e.Kind != tc.kind || e.HTTPStatus != tc.status || e.Retryable() != tc.retryable {
				t.Errorf("= kind %s, HTTP %d, retryable %v; want %s, %d, %v (%v)", e.Kind, e.HTTPStatus, e.Retryable(), tc.kind, tc.status, tc.retryable, e)
			}
			if tc.message != "" && e.UserMessage() != tc.message {
				t.Errorf("UserMessage() = %q, want %q", e.UserMessage(), tc.message)
			}
			if m := e.UserMessage(); strings.ContainsAny(m, "<{") || strings.Contains(m, aino) {
				t.Errorf("UserMessage() = %q carries the answer's body or input", m)
			}
			if e.Endpoint != suotar.EndpointResolveEnrolments || e.CorrelationID == "" || batch.CorrelationID != e.CorrelationID {
				t.Errorf("endpoint %q, correlation %q (batch %q): want both, and returned with the batch", e.Endpoint, e.CorrelationID, batch.CorrelationID)
			}
			if tc.kind != suotar.KindCanceled {
				if calls := b.fake.Calls(); len(calls) != 1 || calls[0].CorrelationID != e.CorrelationID {
					t.Errorf("fake saw %d calls (%+v), want this one", len(calls), calls)
				}
			}
		})
	}
}

func TestLogSamplesAreShortAndScrubbed(t *testing.T) {
	t.Parallel()

	b := setup(t, suotar.Config{}, suotarfake.WithFaults(suotarfake.Fault{Effect: suotarfake.FaultBadGateway}))
	_, err := b.client.ResolvePersons(t.Context(), []string{aino})
	e, ok := errors.AsType[*suotar.Error](err)
	if !ok || !strings.Contains(e.Sample, "502 Bad Gateway") || len(e.Sample) > 130 {
		t.Errorf("Sample = %q, want the start of the proxy page", e.Sample)
	}
	if !strings.Contains(e.Error(), "resolve-by-student-numbers") || !strings.Contains(e.Error(), "HTTP 502") {
		t.Errorf("Error() = %q, want the endpoint and status for logs", e.Error())
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	client, err := suotar.New(suotar.Config{BaseURL: "http://" + addr + "/api/", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.VerifyAttainments(t.Context(), []string{"hy-kur-x"})
	if e, ok := errors.AsType[*suotar.Error](err); !ok || e.Kind != suotar.KindTransport || !e.Retryable() || e.HTTPStatus != 0 {
		t.Errorf("err = %v, want a retryable transport error", err)
	}
}

// TestAnswersAreMatchedByRequestItemID reshapes the fake's answer in every way registry-api.md
// §3.2 names and checks each item still gets its own answer.
func TestAnswersAreMatchedByRequestItemID(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		fault   suotarfake.Fault
		missing string // the student number left without an answer
		broken  string // the student number whose answer is unreadable
		stray   int
	}{
		{name: "Reordered", fault: suotarfake.Fault{Effect: suotarfake.FaultReorderItems}},
		{name: "OneDropped", fault: suotarfake.Fault{Effect: suotarfake.FaultDropItems, Match: bertil}, missing: bertil},
		{name: "RepeatedFirstWins", fault: suotarfake.Fault{Effect: suotarfake.FaultRepeatItems, Code: "personNotFound"}, stray: 3},
		{name: "ForeignIgnored", fault: suotarfake.Fault{Effect: suotarfake.FaultForeignItem}, stray: 1},
		{name: "OneUnreadable", fault: suotarfake.Fault{Effect: suotarfake.FaultCorruptItems, Match: aino}, broken: aino},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			b := setup(t, suotar.Config{}, suotarfake.WithFaults(tc.fault))
			got, err := b.client.ResolvePersons(t.Context(), []string{aino, bertil, carla})
			if err != nil {
				t.Fatalf("ResolvePersons: %v", err)
			}
			if got.Stray != tc.stray {
				t.Errorf("Stray = %d, want %d", got.Stray, tc.stray)
			}
			want := map[string]string{aino: "hy-hlo-125563414", bertil: "hy-hlo-2", carla: "hy-hlo-3"}
			for _, a := range got.Items {
				switch a.StudentNumber {
				case tc.missing:
					if !a.Missing || a.OK() || a.Code != "" {
						t.Errorf("%s = %+v, want missing", a.StudentNumber, a)
					}
				case tc.broken:
					if a.Unreadable == "" || a.OK() || a.Person != nil {
						t.Errorf("%s = %+v, want unreadable", a.StudentNumber, a)
					}
				default:
					if !a.OK() || a.Code != suotar.CodePersonFound || a.Person == nil || a.Person.PersonID != want[a.StudentNumber] {
						t.Errorf("%s = %+v, want its own person %s", a.StudentNumber, a, want[a.StudentNumber])
					}
				}
			}
		})
	}
}

func TestUnreadableElementsCostOnlyThemselves(t *testing.T) {
	t.Parallel()

	b := setup(t, suotar.Config{}, suotarfake.WithFaults(suotarfake.Fault{Effect: suotarfake.FaultCorruptElements, Match: bertil}))
	got, err := b.client.ResolveEnrolments(t.Context(), []suotar.EnrolmentQuery{{StudentNumber: aino, CourseCode: basics}, {StudentNumber: bertil, CourseCode: basics}})
	if err != nil {
		t.Fatalf("ResolveEnrolments: %v", err)
	}
	if a := got.Items[0]; len(a.Skipped) != 0 || len(a.Enrolments) != 1 {
		t.Errorf("untouched item = %+v", a)
	}
	a := got.Items[1]
	if a.Code != suotar.CodeEnrolmentNotFound || a.Unreadable != "" || len(a.ExistingAttainments) != 1 || a.ExistingAttainments[0].ID != "otm-bertil" {
		t.Errorf("item with a bad element = %+v, want the good attainment kept", a)
	}
	if len(a.Skipped) != 2 || !strings.HasPrefix(a.Skipped[0], "enrolments[0]: enrolment: no id") || !strings.HasPrefix(a.Skipped[1], "existingAttainments[1]") {
		t.Errorf("Skipped = %q, want the id-less enrolment and the undated attainment", a.Skipped)
	}
}

// TestSisuQuirksReadAsPlainAnswers asks two fakes, one passing Sisu's raw forms through (instant
// dates, numeric gradeId, zoneless date-times), and wants the same answer from both.
func TestSisuQuirksReadAsPlainAnswers(t *testing.T) {
	t.Parallel()

	read := func(opts ...suotarfake.Option) suotar.EnrolmentAnswer {
		b := setup(t, suotar.Config{}, opts...)
		got, err := b.client.ResolveEnrolments(t.Context(), []suotar.EnrolmentQuery{{StudentNumber: aino, CourseCode: basics}})
		if err != nil {
			t.Fatalf("ResolveEnrolments: %v", err)
		}
		return got.Items[0]
	}
	plain, quirky := read(), read(suotarfake.WithQuirks())
	if len(plain.ExistingAttainments) != len(quirky.ExistingAttainments) || len(quirky.Skipped) != 0 {
		t.Fatalf("plain %+v, quirky %+v", plain, quirky)
	}
	for i, p := range plain.ExistingAttainments {
		q := quirky.ExistingAttainments[i]
		if q.Credits == nil || *q.Credits != 5 {
			t.Errorf("quirky credits = %v, want 5", q.Credits)
		}
		q.Credits = nil
		if q.GradeID != p.GradeID || q.AttainmentDate != p.AttainmentDate || q.RegistrationDate != p.RegistrationDate || *q.Passed != *p.Passed {
			t.Errorf("attainment %d: quirky %+v, plain %+v", i, q, p)
		}
	}
	pe, qe := plain.Enrolments[0], quirky.Enrolments[0]
	if !qe.EnrolmentDateTime.Equal(pe.EnrolmentDateTime.Time) || *qe.ActivityPeriod != *pe.ActivityPeriod || *qe.StudyRightValidityPeriod != *pe.StudyRightValidityPeriod {
		t.Errorf("enrolment: quirky %+v, plain %+v", qe, pe)
	}
}

func TestClientRefusesWhatSuotarWould(t *testing.T) {
	t.Parallel()

	b := setup(t, suotar.Config{})
	many := make([]string, 1001)
	for i := range many {
		many[i] = aino
	}
	tests := []struct {
		name string
		call func() error
		kind suotar.Kind
	}{
		{name: "OverTheBatchLimit", kind: suotar.KindTooLarge, call: func() error { _, err := b.client.ResolvePersons(t.Context(), many); return err }},
		{name: "OverFiveMegabytes", kind: suotar.KindTooLarge, call: func() error {
			_, err := b.client.ResolvePersons(t.Context(), []string{strings.Repeat("1", 5<<20)})
			return err
		}},
		{name: "EmptyStudentNumber", kind: suotar.KindInvalidInput, call: func() error { _, err := b.client.ResolvePersons(t.Context(), []string{aino, ""}); return err }},
		{name: "EmptyCourseCode", kind: suotar.KindInvalidInput, call: func() error {
			_, err := b.client.Attainments(t.Context(), aino, "")
			return err
		}},
		{name: "EmptyAttainmentID", kind: suotar.KindInvalidInput, call: func() error { _, err := b.client.VerifyAttainments(t.Context(), []string{""}); return err }},
	}
	t.Cleanup(func() {
		if calls := b.fake.Calls(); len(calls) != 0 {
			t.Errorf("fake saw %d calls, want none", len(calls))
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			err := tc.call()
			if e, ok := errors.AsType[*suotar.Error](err); !ok || e.Kind != tc.kind || e.CorrelationID != "" || e.Retryable() {
				t.Errorf("err = %v, want an unsent %s", err, tc.kind)
			}
		})
	}
	empty, err := b.client.VerifyAttainments(t.Context(), nil)
	if err != nil || len(empty.Items) != 0 {
		t.Errorf("empty batch = %+v, %v", empty, err)
	}
}

func TestNewChecksItsConfig(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		cfg  suotar.Config
		ok   bool
	}{
		{name: "Good", cfg: suotar.Config{BaseURL: "https://suotar.example/api/", Token: "t"}, ok: true},
		{name: "NoTrailingSlash", cfg: suotar.Config{BaseURL: "https://suotar.example/api", Token: "t"}, ok: true},
		{name: "Relative", cfg: suotar.Config{BaseURL: "/api/", Token: "t"}},
		{name: "OtherScheme", cfg: suotar.Config{BaseURL: "ftp://suotar.example/", Token: "t"}},
		{name: "Unparseable", cfg: suotar.Config{BaseURL: "http://[::1", Token: "t"}},
		{name: "NoToken", cfg: suotar.Config{BaseURL: "https://suotar.example/api/", Token: " "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if _, err := suotar.New(tc.cfg); (err == nil) != tc.ok {
				t.Errorf("New = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// TestBaseURLWithoutTrailingSlash checks the endpoint path joins below the base, not beside it.
func TestBaseURLWithoutTrailingSlashAndCallersClient(t *testing.T) {
	t.Parallel()

	caller := &http.Client{Timeout: time.Hour}
	b := setup(t, suotar.Config{BaseURL: "{fake}/api", HTTPClient: caller})
	if _, err := b.client.ResolvePersons(t.Context(), []string{aino}); err != nil {
		t.Fatalf("ResolvePersons: %v", err)
	}
	if p := b.fake.Calls()[0].Path; p != "/api/persons/resolve-by-student-numbers" {
		t.Errorf("path = %s", p)
	}
	if caller.CheckRedirect != nil || caller.Timeout != time.Hour {
		t.Error("New changed the caller's http.Client")
	}
}
