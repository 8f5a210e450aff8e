package lmsfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

// The contract test holds regdesk's client and the fake to the LMS's wire shapes. The bodies in
// testdata/contract were written from the LMS's Rust structs and their serde attributes (ledger.rs
// [70926634491], errors.rs [71515058884], dashboard.rs [60784932859], courses.rs [69424942192],
// the ErrorResponse of [34341330933]):
//
//	transition_*          AdminTransitionCreditRegistrationPayload → AdminTransitionCreditRegistrationResult
//	                      (action: AdminCreditRegistrationAction, tag "kind", snake_case)
//	transition_blank_*    ErrorResponse {title, message, source, data}
//	bulk_transition       AdminBulkTransitionPayload → AdminBulkTransitionResult {…, skipped: [AdminBulkTransitionSkipCount]}
//	requeue_retryable     AdminRequeueRetryablePayload → AdminRequeueRetryableResult
//	dismiss_attention     AdminDismissAttentionPayload → AdminDismissAttentionResult
//	*_phase               AdminPausePhasePayload / AdminPhaseActionPayload → CreditRegistrationPhaseStatus
//	*_module              AdminPauseCourseModulePayload / AdminResumeCourseModulePayload → bool
//
// For each, the client must send exactly the request and read the answer into the expected value,
// and the fake must accept the request and answer with the same keys, types and values (times
// shifted by TEST_NOW). A renamed or dropped field on either side fails here.

// Fixed ids the golden bodies name.
const (
	cReg    = "3f6c1a52-8d1e-4c53-9a0b-2f1f0d5b7e41"
	cReg2   = "5d2e8b0a-1f3c-4e6d-8a9b-0c1d2e3f4a5b"
	cReg3   = "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a"
	cCourse = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	cModule = "8b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e"
)

// goldenNow is the instant the golden bodies' times are written against.
var goldenNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

type contractCase struct {
	name string
	// path is below lmsfake.Prefix.
	path string
	// status is the LMS's answer's status.
	status int
	// plant sets up the rows the request names.
	plant func(b *bundle)
	// call makes the same request through the client, nil where the client refuses to send it.
	call func(ctx context.Context, c *lms.Client, actor string) (any, error)
	// want is what the client reads from the golden answer (an *lms.Error's fields for an error).
	want any
}

func contractCases() []contractCase {
	t := func(d time.Duration) *time.Time { v := goldenNow.Add(d); return &v }
	i64 := func(v int64) *int64 { return &v }
	phase := func(paused bool, reason string) lms.PhaseStatus {
		p := lms.PhaseStatus{Phase: "verify", ProcessName: "credit-registrar", ExpectedIntervalSecs: 60,
			LastHeartbeatAt: t(-30 * time.Second), Implemented: true, SecondsSinceHeartbeat: i64(30)}
		if paused {
			p.PausedAt, p.PauseReason = t(0), &reason
		}
		return p
	}
	plantPhase := func(b *bundle) {
		b.exec(`UPDATE credit_registration_phase_state SET last_heartbeat_at = $1 WHERE phase = 'verify'`, b.now.Add(-30*time.Second))
	}
	return []contractCase{
		{
			name: "transition_cancel", path: "registrations/" + cReg + "/transition", status: 200,
			plant: func(b *bundle) { b.registration("failed_permanent", reg{"id": cReg}) },
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.Transition(ctx, a, cReg, lms.Cancel, "Student withdrew from the course")
			},
			want: lms.TransitionResult{Outcome: lms.OutcomeApplied, State: lms.StateCancelled},
		},
		{
			name: "transition_refused", path: "registrations/" + cReg + "/transition", status: 200,
			plant: func(b *bundle) { b.registration("pending", reg{"id": cReg}) },
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.Transition(ctx, a, cReg, lms.Resubmit, "Try again")
			},
			want: lms.TransitionResult{Outcome: lms.OutcomeRefused, Refusal: lms.RefusalStillInPipeline, State: lms.StatePending},
		},
		{
			name: "transition_check_now", path: "registrations/" + cReg + "/transition", status: 200,
			plant: func(b *bundle) {
				b.registration("submission_uncertain", reg{"id": cReg, "needs_admin_attention": true, "submitted_at": b.now.Add(-2 * time.Hour)})
			},
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.Transition(ctx, a, cReg, lms.CheckNow, "Sisu shows the credit")
			},
			want: lms.TransitionResult{Outcome: lms.OutcomeApplied, State: lms.StateSubmissionUncertain, NeedsAdminAttention: true},
		},
		{
			name: "transition_clear", path: "registrations/" + cReg + "/transition", status: 200,
			plant: func(b *bundle) { b.registration("failed_permanent", reg{"id": cReg}) },
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.Transition(ctx, a, cReg, lms.ClearAttention, "Looked at it")
			},
			want: lms.TransitionResult{Outcome: lms.OutcomeNoChange, State: lms.StateFailedPermanent},
		},
		{
			name: "transition_blank_reason", path: "registrations/" + cReg + "/transition", status: 400,
			plant: func(b *bundle) { b.registration("failed_permanent", reg{"id": cReg}) },
			// The client never sends a blank reason; it must still read the LMS's refusal of one.
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.Transition(ctx, a, cReg, lms.Cancel, "x")
			},
			want: lms.Error{Kind: lms.KindRejected, HTTPStatus: 400, Rejection: lms.RejectionReasonRequired, Message: "A reason is required."},
		},
		{
			name: "bulk_transition", path: "registrations/bulk-transition", status: 200,
			plant: func(b *bundle) {
				if err := lmsfake.RelaxAuditTargetCheck(b.ctx, b.pool); err != nil {
					b.t.Fatal(err)
				}
				b.registration("failed_permanent", reg{"id": cReg})
				b.registration("submission_uncertain", reg{"id": cReg2, "submitted_at": b.now.Add(-48 * time.Hour)})
			},
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.BulkTransition(ctx, a, []string{cReg, cReg2, cReg3}, lms.Resubmit, "Sisu is back up")
			},
			want: lms.BulkResult{AppliedCount: 1, Skipped: []lms.SkipCount{{Refusal: lms.RefusalSubmissionUncertain, Count: 1}}, NotFoundCount: 1, MaxRowsPerCall: 500},
		},
		{
			name: "requeue_retryable", path: "registrations/requeue-retryable", status: 200,
			plant: func(b *bundle) {
				b.registration("failed_retryable", reg{"id": cReg, "next_attempt_at": b.now.Add(2 * time.Hour)})
			},
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.RequeueRetryable(ctx, a, lms.RequeueScope{CourseID: cCourse, CourseModuleID: cModule}, "Suotar outage is over")
			},
			want: lms.RequeueResult{RequeuedCount: 1, MaxRowsPerCall: 5000},
		},
		{
			name: "dismiss_attention", path: "registrations/" + cReg + "/dismiss-attention", status: 200,
			plant: func(b *bundle) {
				b.registration("submission_uncertain", reg{"id": cReg, "submitted_at": b.now.Add(-2 * time.Hour)})
			},
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.DismissAttention(ctx, a, cReg, "Waiting for Sisu support")
			},
			want: lms.DismissResult{DismissedReasons: []lms.AttentionReason{lms.ReasonOutcomeUncertain}},
		},
		{
			name: "pause_phase", path: "phases/verify/pause", status: 200, plant: plantPhase,
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.PausePhase(ctx, a, "verify", "Suotar maintenance window")
			},
			want: phase(true, "Suotar maintenance window"),
		},
		{
			name: "resume_phase", path: "phases/verify/resume", status: 200, plant: plantPhase,
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.ResumePhase(ctx, a, "verify", "Maintenance over")
			},
			want: phase(false, ""),
		},
		{
			name: "run_phase_now", path: "phases/verify/run-now", status: 200, plant: plantPhase,
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return c.RunPhaseNow(ctx, a, "verify", "Check the backlog")
			},
			want: phase(false, ""),
		},
		{
			name: "pause_module", path: "courses/" + cModule + "/pause", status: 200,
			plant: func(b *bundle) {
				b.exec(`INSERT INTO course_module_suotar_configurations (course_module_id) VALUES ($1)`, cModule)
			},
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return true, c.PauseModule(ctx, a, cModule, "Grade scale is being fixed")
			},
			want: true,
		},
		{
			name: "resume_module", path: "courses/" + cModule + "/resume", status: 200,
			plant: func(b *bundle) {
				b.exec(`INSERT INTO course_module_suotar_configurations (course_module_id, paused_at, pause_reason) VALUES ($1, $2, 'x')`, cModule, b.now.Add(-time.Hour))
			},
			call: func(ctx context.Context, c *lms.Client, a string) (any, error) {
				return true, c.ResumeModule(ctx, a, cModule, "Grade scale fixed")
			},
			want: true,
		},
	}
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "contract", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

func decodeAny(t *testing.T, what string, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", what, err, b)
	}
	return v
}

// TestContractClient: the client sends the golden request to the golden path with the contract's
// headers, and reads the golden answer into the expected value.
func TestContractClient(t *testing.T) {
	t.Parallel()

	const actor = "2c9d6f0e-4b1a-4c3d-8e7f-6a5b4c3d2e1f"
	for _, tc := range contractCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			wantReq := golden(t, tc.name+".request.json")
			answer := golden(t, tc.name+".response.json")
			var gotPath, gotMethod string
			var gotHeader http.Header
			var gotBody []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath, gotMethod, gotHeader = r.URL.Path, r.Method, r.Header.Clone()
				gotBody, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				w.Write(answer)
			}))
			defer srv.Close()
			c, err := lms.New(srv.URL, token, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.call(context.Background(), c, actor)

			if gotMethod != http.MethodPost || gotPath != lmsfake.Prefix+tc.path {
				t.Errorf("sent %s %s, want POST %s", gotMethod, gotPath, lmsfake.Prefix+tc.path)
			}
			if gotHeader.Get("Authorization") != "Bearer "+token || gotHeader.Get(lmsfake.ActingUserHeader) != actor ||
				gotHeader.Get("Content-Type") != "application/json" {
				t.Errorf("headers = %v", gotHeader)
			}
			if tc.status == 200 {
				if !reflect.DeepEqual(decodeAny(t, "the client's request", gotBody), decodeAny(t, "the golden request", wantReq)) {
					t.Errorf("the client sent\n%s\nthe LMS takes\n%s", gotBody, wantReq)
				}
				if err != nil {
					t.Fatalf("the client could not read the golden answer: %v", err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("the client read\n%+v\nwant\n%+v", got, tc.want)
				}
				return
			}
			want := tc.want.(lms.Error)
			e := lmsErr(t, err)
			if e.Kind != want.Kind || e.HTTPStatus != want.HTTPStatus || e.Rejection != want.Rejection || e.Message != want.Message {
				t.Errorf("the client read %+v, want %+v", e, want)
			}
		})
	}
}

// TestContractFake: the fake takes the golden request and answers it as the golden answer does.
func TestContractFake(t *testing.T) {
	t.Parallel()

	for _, tc := range contractCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			// The golden bodies name a fixed course and module.
			b.course = b.one(`INSERT INTO courses (id, name, slug, organization_id, language_code, course_language_group_id)
VALUES ($1, 'Contract course', 'contract', uuid_generate_v4(), 'fi-FI', uuid_generate_v4()) RETURNING id::text`, cCourse)
			b.inst = b.one(`INSERT INTO course_instances (course_id, teacher_in_charge_name, teacher_in_charge_email) VALUES ($1, 'T', 't@example.fi') RETURNING id::text`, b.course)
			b.module = b.one(`INSERT INTO course_modules (id, course_id, order_number, uh_course_code, enable_credit_registration_via_suotar)
VALUES ($1, $2, 0, 'TKT20001', true) RETURNING id::text`, cModule, b.course)
			tc.plant(b)

			status, raw := b.postRaw(tc.path, b.admin, golden(t, tc.name+".request.json"))
			if status != tc.status {
				t.Fatalf("the fake answered %d to the golden request, want %d: %s", status, tc.status, raw)
			}
			answer := decodeAny(t, "the golden answer", golden(t, tc.name+".response.json"))
			sameShape(t, "$", answer, decodeAny(t, "the fake's answer", raw), b.now.Sub(goldenNow))

			// The fake read the request's reason: every call that writes records it, trimmed, on
			// its audit row, with the acting user.
			req := decodeAny(t, "the golden request", golden(t, tc.name+".request.json")).(map[string]any)
			refused := false
			if m, ok := answer.(map[string]any); ok && m["outcome"] == "refused" {
				refused = true
			}
			as := b.audits()
			switch {
			case tc.status != 200 || refused:
				if len(as) != 0 {
					t.Errorf("a refused call wrote audit rows: %+v", as)
				}
			case len(as) != 1:
				t.Errorf("%d audit rows, want 1", len(as))
			case deref(as[0].Reason) != strings.TrimSpace(req["reason"].(string)) || as[0].Actor != b.admin:
				t.Errorf("audit reason %q by %s, want %q by %s", deref(as[0].Reason), as[0].Actor, req["reason"], b.admin)
			}
		})
	}
}

// sameShape compares a golden JSON value with the fake's: the same keys at every level, the same
// types, the same values, with times in the golden written against goldenNow and shifted by
// offset.
func sameShape(t *testing.T, path string, want, got any, offset time.Duration) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: got %T, want an object", path, got)
			return
		}
		for k := range w {
			if _, ok := g[k]; !ok {
				t.Errorf("%s: the fake's answer has no %q", path, k)
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				t.Errorf("%s: the fake's answer has %q, which the LMS does not send", path, k)
			}
		}
		for k, wv := range w {
			if gv, ok := g[k]; ok {
				sameShape(t, path+"."+k, wv, gv, offset)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %v, want %v", path, got, want)
			return
		}
		for i := range w {
			sameShape(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i], offset)
		}
	case string:
		g, ok := got.(string)
		if !ok {
			t.Errorf("%s: got %v (%T), want a string", path, got, got)
			return
		}
		if wt, err := time.Parse(time.RFC3339Nano, w); err == nil && strings.Contains(w, "T") {
			gt, err := time.Parse(time.RFC3339Nano, g)
			if err != nil || !gt.Equal(wt.Add(offset)) {
				t.Errorf("%s: got %q, want the instant %v", path, g, wt.Add(offset))
			}
			return
		}
		if g != w {
			t.Errorf("%s: got %q, want %q", path, g, w)
		}
	default:
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v (%T), want %v (%T)", path, got, got, want, want)
		}
	}
}
