package lms

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// APIPrefix is where the LMS serves its credit-registration admin endpoints, below its base URL.
const APIPrefix = "/api/v0/main-frontend/credit-registration-admin/"

// ActingUserHeader names the LMS user a call acts for, under the contract the package
// documentation asks the LMS team for.
const ActingUserHeader = "X-Acting-User-Id"

const (
	// DefaultTimeout bounds a call a person waits on when the caller's context has no earlier
	// deadline: under the 60 s an ingress allows, and long enough for a 500-row bulk transition.
	DefaultTimeout = 30 * time.Second
	// MaxBulkIDs is the most ids one bulk transition takes (MAX_ROWS_PER_BULK_TRANSITION).
	MaxBulkIDs = 500
	// maxAnswerBytes bounds how much of an answer is read; the largest real answer (a bulk
	// result) is well under a kilobyte.
	maxAnswerBytes = 1 << 20
)

// Client calls the LMS's credit-registration admin endpoints. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	token   string
	timeout time.Duration
	hc      *http.Client
}

// New returns a client for the LMS at baseURL (LMS_URL: the LMS's own address, below which
// APIPrefix lives), authenticating with token (LMS_TOKEN). httpClient sends the requests; a plain
// client when nil. Its redirect policy is replaced on a copy, since a redirected POST turns into a
// GET and a redirect means a wrong base URL anyway.
func New(baseURL, token string, httpClient *http.Client) (*Client, error) {
	base, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("lms.New: base URL: %w", err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("lms.New: base URL %q is not an absolute http(s) URL", baseURL)
	}
	if base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("lms.New: base URL %q has a query or a fragment", baseURL)
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	base.RawPath = ""
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("lms.New: no token")
	}
	hc := &http.Client{}
	if httpClient != nil {
		copied := *httpClient
		hc = &copied
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{base: base, token: token, timeout: DefaultTimeout, hc: hc}, nil
}

// WithTimeout returns a copy of c whose calls give up after d unless the caller's context ends
// sooner; d <= 0 leaves the limit to the context alone.
func (c *Client) WithTimeout(d time.Duration) *Client {
	copied := *c
	copied.timeout = d
	return &copied
}

// Transition applies one hand action to one registration as actingUserID (an LMS users.id). A
// refusal is an answer, not an error: Outcome is OutcomeRefused and Refusal says why.
func (c *Client) Transition(ctx context.Context, actingUserID, registrationID string, action Action, reason string) (TransitionResult, error) {
	const ep = "registrations/{id}/transition"
	if err := checkCall(ep, actingUserID, reason, true); err != nil {
		return TransitionResult{}, err
	}
	if !isUUID(registrationID) {
		return TransitionResult{}, invalidInput(ep, "the registration id is not a uuid")
	}
	if !action.Valid() {
		return TransitionResult{}, invalidInput(ep, fmt.Sprintf("%q is not an action the LMS takes", action.String()))
	}
	body := struct {
		Action Action `json:"action"`
		Reason string `json:"reason"`
	}{action, reason}
	var out TransitionResult
	err := c.call(ctx, ep, "registrations/"+registrationID+"/transition", actingUserID, body, func(raw []byte) error {
		if err := requireKeys(raw, "outcome", "refusal", "state", "needs_admin_attention"); err != nil {
			return err
		}
		var w struct {
			Outcome             Outcome      `json:"outcome"`
			Refusal             *RefusalCode `json:"refusal"`
			State               State        `json:"state"`
			NeedsAdminAttention bool         `json:"needs_admin_attention"`
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return err
		}
		switch w.Outcome {
		case OutcomeApplied, OutcomeNoChange:
			if w.Refusal != nil {
				return fmt.Errorf("outcome %q with refusal %q", w.Outcome, *w.Refusal)
			}
		case OutcomeRefused:
			if w.Refusal == nil || *w.Refusal == "" {
				return errors.New("outcome refused without a refusal")
			}
			out.Refusal = *w.Refusal
		default:
			return fmt.Errorf("unknown outcome %q", w.Outcome)
		}
		if !w.State.Valid() {
			return fmt.Errorf("unknown state %q", w.State)
		}
		out.Outcome, out.State, out.NeedsAdminAttention = w.Outcome, w.State, w.NeedsAdminAttention
		return nil
	})
	return out, err
}

// BulkTransition applies one hand action to up to MaxBulkIDs registrations in one LMS
// transaction. Resubmitting or cancelling skips every submission_uncertain row, and every row the
// action is refused on; the answer counts them per refusal.
func (c *Client) BulkTransition(ctx context.Context, actingUserID string, ids []string, action Action, reason string) (BulkResult, error) {
	const ep = "registrations/bulk-transition"
	if err := checkCall(ep, actingUserID, reason, true); err != nil {
		return BulkResult{}, err
	}
	if len(ids) > MaxBulkIDs {
		return BulkResult{}, invalidInput(ep, fmt.Sprintf("%d registrations is more than the %d one call takes", len(ids), MaxBulkIDs))
	}
	for i, id := range ids {
		if !isUUID(id) {
			return BulkResult{}, invalidInput(ep, fmt.Sprintf("registration id %d is not a uuid", i+1))
		}
	}
	if !action.Valid() {
		return BulkResult{}, invalidInput(ep, fmt.Sprintf("%q is not an action the LMS takes", action.String()))
	}
	if ids == nil {
		ids = []string{}
	}
	body := struct {
		Action Action   `json:"action"`
		IDs    []string `json:"credit_registration_ids"`
		Reason string   `json:"reason"`
	}{action, ids, reason}
	var out BulkResult
	err := c.call(ctx, ep, "registrations/bulk-transition", actingUserID, body, func(raw []byte) error {
		if err := requireKeys(raw, "applied_count", "skipped", "not_found_count", "max_rows_per_call"); err != nil {
			return err
		}
		var w struct {
			AppliedCount   int64             `json:"applied_count"`
			Skipped        []json.RawMessage `json:"skipped"`
			NotFoundCount  int64             `json:"not_found_count"`
			MaxRowsPerCall int64             `json:"max_rows_per_call"`
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return err
		}
		out = BulkResult{AppliedCount: w.AppliedCount, NotFoundCount: w.NotFoundCount, MaxRowsPerCall: w.MaxRowsPerCall, Skipped: []SkipCount{}}
		for i, s := range w.Skipped {
			if err := requireKeys(s, "refusal", "count"); err != nil {
				return fmt.Errorf("skipped[%d]: %w", i, err)
			}
			var sc SkipCount
			if err := json.Unmarshal(s, &sc); err != nil {
				return fmt.Errorf("skipped[%d]: %w", i, err)
			}
			if sc.Refusal == "" {
				return fmt.Errorf("skipped[%d] has no refusal", i)
			}
			out.Skipped = append(out.Skipped, sc)
		}
		return nil
	})
	return out, err
}

// RequeueRetryable makes every failed_retryable row waiting out a backoff due now, within scope.
func (c *Client) RequeueRetryable(ctx context.Context, actingUserID string, scope RequeueScope, reason string) (RequeueResult, error) {
	const ep = "registrations/requeue-retryable"
	if err := checkCall(ep, actingUserID, reason, true); err != nil {
		return RequeueResult{}, err
	}
	if scope.CourseID != "" && !isUUID(scope.CourseID) || scope.CourseModuleID != "" && !isUUID(scope.CourseModuleID) {
		return RequeueResult{}, invalidInput(ep, "the course or course module id is not a uuid")
	}
	body := struct {
		CourseID       *string `json:"course_id"`
		CourseModuleID *string `json:"course_module_id"`
		Reason         string  `json:"reason"`
	}{optional(scope.CourseID), optional(scope.CourseModuleID), reason}
	var out RequeueResult
	err := c.call(ctx, ep, "registrations/requeue-retryable", actingUserID, body, func(raw []byte) error {
		if err := requireKeys(raw, "requeued_count", "max_rows_per_call"); err != nil {
			return err
		}
		return json.Unmarshal(raw, &out)
	})
	return out, err
}

// DismissAttention takes a registration off the LMS's Needs attention queue for the reasons it
// carries now.
func (c *Client) DismissAttention(ctx context.Context, actingUserID, registrationID, reason string) (DismissResult, error) {
	const ep = "registrations/{id}/dismiss-attention"
	if err := checkCall(ep, actingUserID, reason, true); err != nil {
		return DismissResult{}, err
	}
	if !isUUID(registrationID) {
		return DismissResult{}, invalidInput(ep, "the registration id is not a uuid")
	}
	body := struct {
		Reason string `json:"reason"`
	}{reason}
	var out DismissResult
	err := c.call(ctx, ep, "registrations/"+registrationID+"/dismiss-attention", actingUserID, body, func(raw []byte) error {
		if err := requireKeys(raw, "dismissed_reasons"); err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return err
		}
		if out.DismissedReasons == nil {
			return errors.New("dismissed_reasons is null")
		}
		return nil
	})
	return out, err
}

// PausePhase pauses one pipeline phase: its worker loop skips it until it is resumed.
func (c *Client) PausePhase(ctx context.Context, actingUserID, phase, reason string) (PhaseStatus, error) {
	return c.phaseAction(ctx, "phases/{phase}/pause", "pause", actingUserID, phase, reason, true)
}

// ResumePhase resumes a paused phase. The LMS takes the reason as optional; an empty one is sent
// as null.
func (c *Client) ResumePhase(ctx context.Context, actingUserID, phase, reason string) (PhaseStatus, error) {
	return c.phaseAction(ctx, "phases/{phase}/resume", "resume", actingUserID, phase, reason, false)
}

// RunPhaseNow makes one phase due now. The LMS takes the reason as optional; an empty one is sent
// as null.
func (c *Client) RunPhaseNow(ctx context.Context, actingUserID, phase, reason string) (PhaseStatus, error) {
	return c.phaseAction(ctx, "phases/{phase}/run-now", "run-now", actingUserID, phase, reason, false)
}

var phaseStatusKeys = []string{
	"phase", "process_name", "expected_interval_secs", "last_heartbeat_at", "last_success_at",
	"last_run_finished_at", "items_processed_last_run", "items_failed_last_run",
	"consecutive_failures", "paused_at", "pause_reason", "implemented", "seconds_since_heartbeat",
	"heartbeat_late",
}

func (c *Client) phaseAction(ctx context.Context, ep, verb, actingUserID, phase, reason string, reasonRequired bool) (PhaseStatus, error) {
	if err := checkCall(ep, actingUserID, reason, reasonRequired); err != nil {
		return PhaseStatus{}, err
	}
	if strings.TrimSpace(phase) == "" {
		return PhaseStatus{}, invalidInput(ep, "no phase named")
	}
	var body any
	if reasonRequired {
		body = struct {
			Reason string `json:"reason"`
		}{reason}
	} else {
		body = struct {
			Reason *string `json:"reason"`
		}{optional(reason)}
	}
	var out PhaseStatus
	err := c.call(ctx, ep, "phases/"+url.PathEscape(phase)+"/"+verb, actingUserID, body, func(raw []byte) error {
		if err := requireKeys(raw, phaseStatusKeys...); err != nil {
			return err
		}
		return json.Unmarshal(raw, &out)
	})
	return out, err
}

// PauseModule stops every phase from claiming one course module's registrations; their states are
// frozen where they stand.
func (c *Client) PauseModule(ctx context.Context, actingUserID, courseModuleID, reason string) error {
	return c.moduleAction(ctx, "courses/{course_module_id}/pause", "pause", actingUserID, courseModuleID, reason, true)
}

// ResumeModule lets the phases claim a paused course module's registrations again. The LMS takes
// the reason as optional; an empty one is sent as null.
func (c *Client) ResumeModule(ctx context.Context, actingUserID, courseModuleID, reason string) error {
	return c.moduleAction(ctx, "courses/{course_module_id}/resume", "resume", actingUserID, courseModuleID, reason, false)
}

func (c *Client) moduleAction(ctx context.Context, ep, verb, actingUserID, courseModuleID, reason string, reasonRequired bool) error {
	if err := checkCall(ep, actingUserID, reason, reasonRequired); err != nil {
		return err
	}
	if !isUUID(courseModuleID) {
		return invalidInput(ep, "the course module id is not a uuid")
	}
	var body any
	if reasonRequired {
		body = struct {
			Reason string `json:"reason"`
		}{reason}
	} else {
		body = struct {
			Reason *string `json:"reason"`
		}{optional(reason)}
	}
	return c.call(ctx, ep, "courses/"+courseModuleID+"/"+verb, actingUserID, body, func(raw []byte) error {
		var ok bool
		if err := json.Unmarshal(raw, &ok); err != nil {
			return err
		}
		if !ok {
			return errors.New("the LMS answered false")
		}
		return nil
	})
}

// call sends one POST and hands a 2xx body to decode. A body decode refuses is an unknown
// outcome: the LMS may have applied the call before its answer went wrong.
func (c *Client) call(ctx context.Context, ep, path, actingUserID string, body any, decode func([]byte) error) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return invalidInput(ep, "the request could not be encoded: "+err.Error())
	}
	if err := ctx.Err(); err != nil {
		return &Error{Kind: KindNotSent, Endpoint: ep, Detail: "the call was given up before it was sent", Err: err}
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	u := *c.base
	u.Path = c.base.Path + APIPrefix + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(payload))
	if err != nil {
		return invalidInput(ep, "the request could not be built: "+err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set(ActingUserHeader, actingUserID)

	resp, err := c.hc.Do(req)
	if err != nil {
		if notSent(err) {
			return &Error{Kind: KindNotSent, Endpoint: ep, Detail: "the LMS could not be reached", Err: c.redact(err)}
		}
		return &Error{Kind: KindUnknownOutcome, Endpoint: ep, Detail: "no answer", Err: c.redact(err)}
	}
	defer resp.Body.Close()
	raw, readErr := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	status := resp.StatusCode

	switch {
	case status >= 200 && status < 300:
		if readErr != nil {
			return &Error{Kind: KindUnknownOutcome, Endpoint: ep, HTTPStatus: status, Detail: "the answer was cut off", Err: c.redact(readErr)}
		}
		if len(raw) > maxAnswerBytes {
			return &Error{Kind: KindUnknownOutcome, Endpoint: ep, HTTPStatus: status, Detail: "the answer is far larger than any the LMS gives"}
		}
		if !isJSON(resp.Header.Get("Content-Type")) {
			return &Error{Kind: KindUnknownOutcome, Endpoint: ep, HTTPStatus: status, Detail: "the answer is not JSON (" + resp.Header.Get("Content-Type") + ")", Sample: scrub(raw, c.token)}
		}
		if err := decode(raw); err != nil {
			return &Error{Kind: KindUnknownOutcome, Endpoint: ep, HTTPStatus: status, Detail: "the answer could not be read", Sample: scrub(raw, c.token), Err: err}
		}
		return nil
	case status >= 300 && status < 400:
		return &Error{Kind: KindUnknownOutcome, Endpoint: ep, HTTPStatus: status, Detail: "the LMS redirected the call (is LMS_URL right?)"}
	case status >= 400 && status < 500:
		e := &Error{Endpoint: ep, HTTPStatus: status}
		var eb ErrorBody
		if readErr == nil && isJSON(resp.Header.Get("Content-Type")) && json.Unmarshal(raw, &eb) == nil && eb.Message != "" {
			e.Message = eb.Message
		} else if len(raw) > 0 {
			e.Sample = scrub(raw, c.token)
		}
		switch status {
		case http.StatusUnauthorized:
			e.Kind = KindUnauthorized
		case http.StatusForbidden:
			e.Kind = KindForbidden
		case http.StatusNotFound:
			e.Kind = KindNotFound
			if e.Message == "" {
				// The LMS's own 404s carry its error body; a bare one is a path it does not serve.
				e.Detail = "no LMS error body: the path may not exist (is LMS_URL right?)"
			}
		default:
			e.Kind, e.Rejection = KindRejected, rejectionOf(e.Message)
		}
		return e
	default:
		e := &Error{Kind: KindUnknownOutcome, Endpoint: ep, HTTPStatus: status, Detail: "the LMS failed while answering"}
		var eb ErrorBody
		if readErr == nil && isJSON(resp.Header.Get("Content-Type")) && json.Unmarshal(raw, &eb) == nil && eb.Message != "" {
			e.Message = eb.Message
		} else if len(raw) > 0 {
			e.Sample = scrub(raw, c.token)
		}
		return e
	}
}

// redact wraps err so that its text never holds the token, whatever a transport put in it.
func (c *Client) redact(err error) error {
	if err == nil || !strings.Contains(err.Error(), c.token) {
		return err
	}
	return redactedError{msg: strings.ReplaceAll(err.Error(), c.token, "<token>"), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (r redactedError) Error() string { return r.msg }
func (r redactedError) Unwrap() error { return r.err }

// notSent reports whether a transport error happened before any byte of the request left:
// dialing, resolving the name, or a context that ended before the connection was made.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func checkCall(ep, actingUserID, reason string, reasonRequired bool) error {
	if !isUUID(actingUserID) {
		return invalidInput(ep, "the acting LMS user id is not a uuid")
	}
	if reasonRequired && strings.TrimSpace(reason) == "" {
		return invalidInput(ep, "a reason is required")
	}
	return nil
}

func invalidInput(ep, detail string) *Error {
	return &Error{Kind: KindInvalidInput, Endpoint: ep, Detail: detail}
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidPattern.MatchString(s) }

func optional(s string) *string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &s
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// requireKeys checks that a JSON object names every key, so a renamed or dropped field reads as
// an unreadable answer rather than as its zero value.
func requireKeys(raw []byte, keys ...string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if m == nil {
		return errors.New("the answer is not an object")
	}
	var missing []string
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the answer has no %s", strings.Join(missing, ", "))
	}
	return nil
}
