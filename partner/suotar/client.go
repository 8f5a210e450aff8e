// Package suotar is regdesk's client for Suotar, the University of Helsinki's batch API in front
// of Sisu. regdesk only reads through it: who a student number is (ResolvePersons), what Sisu
// holds for a student on a course (ResolveEnrolments, Attainments), and what became of an
// attainment the pipeline submitted (VerifyAttainments).
//
// A call either fails as a whole, with an *Error whose UserMessage a support person can act on,
// or returns one answer per item sent, in the order sent. Answers are matched to items by
// requestItemId, never by position, and one unreadable answer costs only its own item.
package suotar

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Endpoint is a Suotar batch endpoint's path, relative to the base URL.
type Endpoint string

// The endpoints this client calls. regdesk itself only reads; EndpointImportAttainments is the
// LMS pipeline's, called here only by make run's stand-in for it.
const (
	EndpointResolvePersons    Endpoint = "persons/resolve-by-student-numbers"
	EndpointResolveEnrolments Endpoint = "enrolments/resolve"
	EndpointVerifyAttainments Endpoint = "attainments/verify"
	EndpointImportAttainments Endpoint = "attainments/import"
)

// MaxItems is the most items Suotar accepts in one call to the endpoint (registry-api.md §2.2).
func (e Endpoint) MaxItems() int {
	switch e {
	case EndpointResolvePersons, EndpointResolveEnrolments, EndpointVerifyAttainments:
		return 1000
	case EndpointImportAttainments:
		return 100
	}
	return 0
}

const (
	// DefaultTimeout bounds a call a person waits on: the LMS's INTERACTIVE_REQUEST_TIMEOUT, kept
	// under the 60 s an ingress allows.
	DefaultTimeout = 50 * time.Second
	// MaxBodyBytes is Suotar's request body limit (Express's "5mb"); larger bodies get a 413, so
	// they are refused before sending. The same figure bounds how much of an answer is read.
	MaxBodyBytes = 5 << 20
	// answerSlack lets an answer run a little past MaxBodyBytes, since answers carry more than
	// requests, before it is taken for something that is not Suotar.
	answerSlack = 256 << 10
)

// Config configures a Client.
type Config struct {
	// BaseURL is where the batch endpoints live, e.g. "https://suotar.example/api/". A missing
	// trailing slash is added, so relative endpoint paths join below it.
	BaseURL string
	// Token is the bearer token Suotar issued to regdesk.
	Token string
	// Timeout bounds each call, reading the answer included; DefaultTimeout when zero.
	Timeout time.Duration
	// HTTPClient sends the requests; a plain client when nil. Its redirect policy and timeout are
	// replaced on a copy: a redirected POST would turn into a GET (and a redirect means a wrong
	// base URL anyway), and Timeout above is the one limit.
	HTTPClient *http.Client
}

// Client calls Suotar. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	token   string
	timeout time.Duration
	hc      *http.Client
}

// New returns a client for the Suotar at cfg.BaseURL.
func New(cfg Config) (*Client, error) {
	base, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("suotar.New: base URL: %w", err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("suotar.New: base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if strings.TrimSpace(cfg.Token) == "" {
		return nil, errors.New("suotar.New: no token")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		hc = &copied
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	hc.Timeout = 0 // the per-call context carries the limit, so it can be told from the caller's
	return &Client{base: base, token: cfg.Token, timeout: timeout, hc: hc}, nil
}

// Status is an answer item's status.
type Status string

// The two statuses Suotar uses.
const (
	StatusOK    Status = "ok"
	StatusError Status = "error"
)

// Answer is what Suotar said about one item, common to every endpoint.
type Answer struct {
	// RequestItemID is the id this item was sent with (fresh for every call).
	RequestItemID string `json:"requestItemId"`
	Status        Status `json:"status,omitempty"`
	// Code is the item's code; CodeUnknown when this package does not know RawCode.
	Code    Code   `json:"code,omitempty"`
	RawCode string `json:"rawCode,omitempty"`
	// Message is Suotar's message for an error item. It is written for client developers and may
	// quote the input; show it to staff, not students.
	Message string `json:"message,omitempty"`
	// Missing reports that Suotar's answer left this item out: nothing is known about it.
	Missing bool `json:"missing,omitempty"`
	// Unreadable, when not empty, says why this item's answer could not be read; nothing else
	// in the answer is set then.
	Unreadable string `json:"unreadable,omitempty"`
	// Skipped lists the elements of the item's lists that could not be read and were left out;
	// the rest of the item is good.
	Skipped []string `json:"skipped,omitempty"`
}

// OK reports whether Suotar answered the item with status ok and the answer was read.
func (a Answer) OK() bool { return a.Status == StatusOK && !a.Missing && a.Unreadable == "" }

// Batch is one call's answers, one per item sent, in the order sent.
type Batch[T any] struct {
	// CorrelationID is the X-Correlation-Id the call was sent with; record it so a call can be
	// found in Suotar's logs.
	CorrelationID string
	Items         []T
	// Stray counts answer elements that matched no item sent, repeated an id already answered, or
	// had no readable id. They are ignored; the count is for logs.
	Stray int
}

// EnrolmentQuery asks for one student's enrolments and attainments on one course code.
type EnrolmentQuery struct {
	StudentNumber string `json:"studentNumber"`
	CourseCode    string `json:"courseCode"`
}

// EnrolmentAnswer answers one EnrolmentQuery. Enrolments and ExistingAttainments are filled from
// the item's result whatever its code: Suotar may list attainments on enrolmentNotFound and
// enrolmentNotAccepted too, and those are exactly the students support is asked about.
type EnrolmentAnswer struct {
	Query EnrolmentQuery `json:"query"`
	Answer
	Enrolments          []Enrolment  `json:"enrolments,omitempty"`
	ExistingAttainments []Attainment `json:"existingAttainments,omitempty"`
}

// VerifyAnswer answers one submitted attainment id.
type VerifyAnswer struct {
	SubmittedAttainmentID string `json:"submittedAttainmentId"`
	Answer
	// Attainment is set on registered: a CourseUnitAttainment is final, an
	// AssessmentItemAttainment is partial evidence (its id is then the submitted id).
	Attainment *AttainmentRef `json:"attainment,omitempty"`
	// Submission is the submission Suotar names in the result of submissionPending.
	Submission *AttainmentRef `json:"submission,omitempty"`
	// RetryAfter is set on submissionPending: do not resubmit before it.
	RetryAfter time.Time `json:"retryAfter,omitzero"`
}

// PersonAnswer answers one student number.
type PersonAnswer struct {
	StudentNumber string `json:"studentNumber"`
	Answer
	// Person is set on personFound.
	Person *Person `json:"person,omitempty"`
}

// ResolveEnrolments asks Suotar for the enrolments and existing attainments of each
// (student number, course code) pair.
func (c *Client) ResolveEnrolments(ctx context.Context, queries []EnrolmentQuery) (Batch[EnrolmentAnswer], error) {
	items := make([]map[string]any, len(queries))
	for i, q := range queries {
		if q.StudentNumber == "" || q.CourseCode == "" {
			return Batch[EnrolmentAnswer]{}, invalidInput(EndpointResolveEnrolments, fmt.Sprintf("query %d has an empty student number or course code", i+1))
		}
		items[i] = map[string]any{"studentNumber": q.StudentNumber, "courseCode": q.CourseCode}
	}
	raw, err := c.call(ctx, EndpointResolveEnrolments, items)
	if err != nil {
		return Batch[EnrolmentAnswer]{CorrelationID: raw.correlationID}, err
	}
	out := Batch[EnrolmentAnswer]{CorrelationID: raw.correlationID, Stray: raw.stray, Items: make([]EnrolmentAnswer, len(queries))}
	for i, q := range queries {
		a := EnrolmentAnswer{Query: q}
		res, ok := raw.item(i, &a.Answer)
		if ok {
			a.Enrolments, a.ExistingAttainments = decodeEnrolmentResult(res, &a.Answer)
		}
		out.Items[i] = a
	}
	return out, nil
}

// VerifyAttainments asks Suotar what became of each submitted attainment id (hy-kur-…).
func (c *Client) VerifyAttainments(ctx context.Context, submittedAttainmentIDs []string) (Batch[VerifyAnswer], error) {
	items := make([]map[string]any, len(submittedAttainmentIDs))
	for i, id := range submittedAttainmentIDs {
		if id == "" {
			return Batch[VerifyAnswer]{}, invalidInput(EndpointVerifyAttainments, fmt.Sprintf("attainment id %d is empty", i+1))
		}
		items[i] = map[string]any{"submittedAttainmentId": id}
	}
	raw, err := c.call(ctx, EndpointVerifyAttainments, items)
	if err != nil {
		return Batch[VerifyAnswer]{CorrelationID: raw.correlationID}, err
	}
	out := Batch[VerifyAnswer]{CorrelationID: raw.correlationID, Stray: raw.stray, Items: make([]VerifyAnswer, len(submittedAttainmentIDs))}
	for i, id := range submittedAttainmentIDs {
		a := VerifyAnswer{SubmittedAttainmentID: id}
		if res, ok := raw.item(i, &a.Answer); ok {
			decodeVerifyResult(res, &a)
		}
		out.Items[i] = a
	}
	return out, nil
}

// ImportItem is one attainment to register: the LMS's frozen payload of a registration.
type ImportItem struct {
	StudentNumber, CourseCode, EnrolmentID string
	// AttainmentDate is YYYY-MM-DD; AttainmentLanguage fi, sv or en.
	AttainmentDate, AttainmentLanguage string
	GradeScaleID, GradeID              string
	Credits                            float64
}

// ImportAnswer answers one ImportItem: sent with the submitted attainment's id and type, or a
// refusal.
type ImportAnswer struct {
	Answer
	SubmittedAttainmentID   string `json:"submittedAttainmentId,omitempty"`
	SubmittedAttainmentType string `json:"submittedAttainmentType,omitempty"`
}

// ImportAttainments sends attainments to Sisu (attainments/import), as the LMS's import phase
// does. regdesk never sends: make run's stand-in for the LMS's pipeline is its only caller.
func (c *Client) ImportAttainments(ctx context.Context, items []ImportItem) (Batch[ImportAnswer], error) {
	wire := make([]map[string]any, len(items))
	for i, it := range items {
		wire[i] = map[string]any{"studentNumber": it.StudentNumber, "courseCode": it.CourseCode, "enrolmentId": it.EnrolmentID,
			"attainmentDate": it.AttainmentDate, "attainmentLanguage": it.AttainmentLanguage, "gradeScaleId": it.GradeScaleID,
			"gradeId": it.GradeID, "credits": it.Credits}
	}
	raw, err := c.call(ctx, EndpointImportAttainments, wire)
	if err != nil {
		return Batch[ImportAnswer]{CorrelationID: raw.correlationID}, err
	}
	out := Batch[ImportAnswer]{CorrelationID: raw.correlationID, Stray: raw.stray, Items: make([]ImportAnswer, len(items))}
	for i := range items {
		var a ImportAnswer
		if res, ok := raw.item(i, &a.Answer); ok && res != nil {
			var w struct {
				ID   string `json:"submittedAttainmentId"`
				Type string `json:"submittedAttainmentType"`
			}
			if json.Unmarshal(res, &w) == nil {
				a.SubmittedAttainmentID, a.SubmittedAttainmentType = w.ID, w.Type
			}
		}
		out.Items[i] = a
	}
	return out, nil
}

// ResolvePersons asks Suotar who each student number belongs to in Sisu.
func (c *Client) ResolvePersons(ctx context.Context, studentNumbers []string) (Batch[PersonAnswer], error) {
	items := make([]map[string]any, len(studentNumbers))
	for i, sn := range studentNumbers {
		if sn == "" {
			return Batch[PersonAnswer]{}, invalidInput(EndpointResolvePersons, fmt.Sprintf("student number %d is empty", i+1))
		}
		items[i] = map[string]any{"studentNumber": sn}
	}
	raw, err := c.call(ctx, EndpointResolvePersons, items)
	if err != nil {
		return Batch[PersonAnswer]{CorrelationID: raw.correlationID}, err
	}
	out := Batch[PersonAnswer]{CorrelationID: raw.correlationID, Stray: raw.stray, Items: make([]PersonAnswer, len(studentNumbers))}
	for i, sn := range studentNumbers {
		a := PersonAnswer{StudentNumber: sn}
		if res, ok := raw.item(i, &a.Answer); ok {
			decodePersonResult(res, &a)
		}
		out.Items[i] = a
	}
	return out, nil
}

// StudentAttainments is what Sisu holds for one student on one course code, as far as Suotar
// shows it: not misregistered, attained within ten years, both course unit and assessment item
// attainments, any state.
type StudentAttainments struct {
	CorrelationID string `json:"correlationId"`
	// Answer carries Suotar's code: enrolmentFound, or why there is no enrolment to show
	// (personNotFound, courseCodeNotFound, enrolmentNotFound, enrolmentNotAccepted).
	Answer
	Enrolments  []Enrolment  `json:"enrolments,omitempty"`
	Attainments []Attainment `json:"attainments,omitempty"`
}

// Attainments looks up what Sisu holds for a student on a course code. A per-item refusal such
// as personNotFound is an answer, not an error; an item Suotar left out or that could not be read
// is an *Error of KindBadAnswer, since there is nothing to show.
func (c *Client) Attainments(ctx context.Context, studentNumber, courseCode string) (StudentAttainments, error) {
	batch, err := c.ResolveEnrolments(ctx, []EnrolmentQuery{{StudentNumber: studentNumber, CourseCode: courseCode}})
	if err != nil {
		return StudentAttainments{CorrelationID: batch.CorrelationID}, fmt.Errorf("suotar Attainments: %w", err)
	}
	a := batch.Items[0]
	out := StudentAttainments{CorrelationID: batch.CorrelationID, Answer: a.Answer, Enrolments: a.Enrolments, Attainments: a.ExistingAttainments}
	switch {
	case a.Missing:
		return out, &Error{Kind: KindBadAnswer, Endpoint: EndpointResolveEnrolments, CorrelationID: batch.CorrelationID, HTTPStatus: http.StatusOK, Detail: "the answer left the lookup out"}
	case a.Unreadable != "":
		return out, &Error{Kind: KindBadAnswer, Endpoint: EndpointResolveEnrolments, CorrelationID: batch.CorrelationID, HTTPStatus: http.StatusOK, Detail: a.Unreadable}
	}
	return out, nil
}

func invalidInput(ep Endpoint, detail string) *Error {
	return &Error{Kind: KindInvalidInput, Endpoint: ep, Detail: detail}
}

// rawAnswer is a 200 answer split by requestItemId, before endpoint-specific decoding.
type rawAnswer struct {
	correlationID string
	ids           []string
	byID          map[string]json.RawMessage
	stray         int
}

// wireItem is an answer item's envelope.
type wireItem struct {
	RequestItemID string          `json:"requestItemId"`
	Status        Status          `json:"status"`
	Code          string          `json:"code"`
	Result        json.RawMessage `json:"result"`
	Error         *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// item fills the envelope of the i-th item sent into a and returns its result, if the item was
// answered and readable.
func (r rawAnswer) item(i int, a *Answer) (json.RawMessage, bool) {
	a.RequestItemID = r.ids[i]
	raw, ok := r.byID[r.ids[i]]
	if !ok {
		a.Missing = true
		return nil, false
	}
	var w wireItem
	if err := json.Unmarshal(raw, &w); err != nil {
		a.Unreadable = "unreadable answer item: " + err.Error()
		return nil, false
	}
	if w.Status != StatusOK && w.Status != StatusError {
		a.Unreadable = fmt.Sprintf("answer item status %q is neither ok nor error", w.Status)
		return nil, false
	}
	if w.Code == "" {
		a.Unreadable = "answer item has no code"
		return nil, false
	}
	a.Status, a.RawCode, a.Code = w.Status, w.Code, ParseCode(w.Code)
	if w.Error != nil {
		a.Message = w.Error.Message
	}
	if len(w.Result) == 0 || string(w.Result) == "null" {
		return nil, true
	}
	return w.Result, true
}

// unreadable marks the whole item unreadable, clearing what was read of it.
func unreadable(a *Answer, why string) {
	*a = Answer{RequestItemID: a.RequestItemID, Unreadable: why}
}

func decodeEnrolmentResult(res json.RawMessage, a *Answer) ([]Enrolment, []Attainment) {
	if res == nil {
		return nil, nil
	}
	var w struct {
		Enrolments          []json.RawMessage `json:"enrolments"`
		ExistingAttainments []json.RawMessage `json:"existingAttainments"`
	}
	if err := json.Unmarshal(res, &w); err != nil {
		unreadable(a, "unreadable result: "+err.Error())
		return nil, nil
	}
	enrolments := decodeList[Enrolment](w.Enrolments, "enrolments", a)
	attainments := decodeList[Attainment](w.ExistingAttainments, "existingAttainments", a)
	return enrolments, attainments
}

// decodeList decodes each element alone, so one bad element is skipped (and noted) rather than
// costing the whole item.
func decodeList[T any](raws []json.RawMessage, name string, a *Answer) []T {
	out := make([]T, 0, len(raws))
	for i, raw := range raws {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			a.Skipped = append(a.Skipped, fmt.Sprintf("%s[%d]: %v", name, i, err))
			continue
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func decodeVerifyResult(res json.RawMessage, a *VerifyAnswer) {
	if res != nil {
		var w struct {
			Attainment              *AttainmentRef `json:"attainment"`
			SubmittedAttainmentID   string         `json:"submittedAttainmentId"`
			SubmittedAttainmentType string         `json:"submittedAttainmentType"`
			RetryAfter              DateTime       `json:"retryAfter"`
		}
		if err := json.Unmarshal(res, &w); err != nil {
			unreadable(&a.Answer, "unreadable result: "+err.Error())
			return
		}
		a.Attainment = w.Attainment
		if w.SubmittedAttainmentID != "" || w.SubmittedAttainmentType != "" {
			a.Submission = &AttainmentRef{ID: w.SubmittedAttainmentID, Type: w.SubmittedAttainmentType}
		}
		a.RetryAfter = w.RetryAfter.Time
	}
	// A registered answer without the attainment cannot be acted on: the type is what tells a
	// final registration from a partial one.
	if a.Code == CodeRegistered && (a.Attainment == nil || a.Attainment.ID == "" || a.Attainment.Type == "") {
		unreadable(&a.Answer, "registered without an attainment id and type")
	}
}

func decodePersonResult(res json.RawMessage, a *PersonAnswer) {
	if res != nil {
		var p Person
		if err := json.Unmarshal(res, &p); err != nil {
			unreadable(&a.Answer, "unreadable result: "+err.Error())
			return
		}
		a.Person = &p
	}
	if a.Code == CodePersonFound && (a.Person == nil || a.Person.PersonID == "") {
		unreadable(&a.Answer, "personFound without a person id")
		a.Person = nil
	}
}

// call sends one batch and returns the answer split by requestItemId, or a typed *Error. The
// correlation id is returned in both cases once the call was sent.
func (c *Client) call(ctx context.Context, ep Endpoint, items []map[string]any) (rawAnswer, error) {
	if max := ep.MaxItems(); len(items) > max {
		return rawAnswer{}, &Error{Kind: KindTooLarge, Endpoint: ep, Detail: fmt.Sprintf("%d items, Suotar takes at most %d", len(items), max)}
	}
	if len(items) == 0 {
		// Suotar answers [] to [], but there is nothing to learn from asking.
		return rawAnswer{byID: map[string]json.RawMessage{}}, nil
	}
	ids := make([]string, len(items))
	for i, item := range items {
		ids[i] = newUUID()
		item["requestItemId"] = ids[i]
	}
	body, err := json.Marshal(items)
	if err != nil {
		return rawAnswer{}, &Error{Kind: KindInvalidInput, Endpoint: ep, Detail: "encode request", Err: err}
	}
	if len(body) > MaxBodyBytes {
		return rawAnswer{}, &Error{Kind: KindTooLarge, Endpoint: ep, Detail: fmt.Sprintf("request body of %d bytes, Suotar takes at most %d", len(body), MaxBodyBytes)}
	}

	corr := newUUID()
	fail := func(e *Error) (rawAnswer, error) {
		e.Endpoint, e.CorrelationID = ep, corr
		return rawAnswer{correlationID: corr}, e
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errCallTimedOut)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath(string(ep)).String(), bytes.NewReader(body))
	if err != nil {
		return fail(&Error{Kind: KindInvalidInput, Detail: "build request", Err: err})
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Correlation-Id", corr)

	resp, err := c.hc.Do(req)
	if err != nil {
		return fail(c.transportError(ctx, err))
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+answerSlack+1))
	if err != nil {
		e := c.transportError(ctx, err)
		e.HTTPStatus = resp.StatusCode
		return fail(e)
	}
	if len(answer) > MaxBodyBytes+answerSlack {
		return fail(&Error{Kind: KindBadAnswer, HTTPStatus: resp.StatusCode, Detail: "answer larger than " + fmt.Sprint(MaxBodyBytes+answerSlack) + " bytes", Sample: scrub(answer, c.token)})
	}
	if resp.StatusCode != http.StatusOK {
		return fail(c.statusError(resp, answer))
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fail(&Error{Kind: KindBadAnswer, HTTPStatus: resp.StatusCode, Detail: fmt.Sprintf("content type %q, not application/json", resp.Header.Get("Content-Type")), Sample: scrub(answer, c.token)})
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(answer, &elems); err != nil {
		detail := "answer is not JSON"
		if json.Valid(answer) {
			detail = "answer is JSON but not an array"
		}
		return fail(&Error{Kind: KindBadAnswer, HTTPStatus: resp.StatusCode, Detail: detail, Sample: scrub(answer, c.token), Err: err})
	}
	out := rawAnswer{correlationID: corr, ids: ids, byID: make(map[string]json.RawMessage, len(ids))}
	sent := make(map[string]bool, len(ids))
	for _, id := range ids {
		sent[id] = true
	}
	for _, elem := range elems {
		var head struct {
			RequestItemID string `json:"requestItemId"`
		}
		if json.Unmarshal(elem, &head) != nil || !sent[head.RequestItemID] {
			out.stray++
			continue
		}
		if _, seen := out.byID[head.RequestItemID]; seen {
			out.stray++ // the first answer for an id wins
			continue
		}
		out.byID[head.RequestItemID] = elem
	}
	if len(out.byID) == 0 {
		return fail(&Error{Kind: KindBadAnswer, HTTPStatus: resp.StatusCode, Detail: fmt.Sprintf("%d answer elements, none for the %d items sent", len(elems), len(ids)), Sample: scrub(answer, c.token)})
	}
	return out, nil
}

// errCallTimedOut is the cause of the per-call context when the client's own limit runs out, so
// that can be told apart from the caller's deadline.
var errCallTimedOut = errors.New("suotar call timed out")

func (c *Client) transportError(ctx context.Context, err error) *Error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCallTimedOut):
		return &Error{Kind: KindTimeout, Limit: c.timeout, Err: err}
	case errors.Is(cause, context.DeadlineExceeded):
		return &Error{Kind: KindTimeout, Err: err}
	case cause != nil:
		return &Error{Kind: KindCanceled, Err: err}
	}
	return &Error{Kind: KindTransport, Err: err}
}

// statusError reads a non-200 answer. Suotar's own errors carry {"error":{"code","message"}};
// the legacy grader router's 401 carries a bare string, which means the base URL is wrong.
func (c *Client) statusError(resp *http.Response, body []byte) *Error {
	e := &Error{HTTPStatus: resp.StatusCode}
	var coded struct {
		Error json.RawMessage `json:"error"`
	}
	var legacy bool
	if json.Unmarshal(body, &coded) == nil && len(coded.Error) > 0 {
		var inner struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		var bare string
		switch {
		case json.Unmarshal(coded.Error, &inner) == nil && inner.Code != "":
			e.RawCode, e.Code, e.ServerMessage = inner.Code, ParseCode(inner.Code), inner.Message
		case json.Unmarshal(coded.Error, &bare) == nil:
			legacy = true
			e.ServerMessage = bare
		}
	}
	if e.RawCode == "" && !legacy {
		e.Sample = scrub(body, c.token)
	}
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized && legacy:
		e.Kind, e.Detail = KindWrongBaseURL, "the legacy bare 401 of an unknown path"
	case s == http.StatusUnauthorized:
		e.Kind = KindUnauthorized
	case s == http.StatusBadRequest:
		e.Kind = KindMalformed
	case s == http.StatusRequestEntityTooLarge:
		e.Kind = KindTooLarge
	case s == http.StatusServiceUnavailable || s == http.StatusTooManyRequests:
		e.Kind = KindUnavailable
	case s == http.StatusNotFound || s == http.StatusMethodNotAllowed:
		e.Kind, e.Detail = KindWrongBaseURL, "no batch endpoint at this address"
	case s >= 300 && s < 400:
		e.Kind, e.Detail = KindWrongBaseURL, "redirected to "+resp.Header.Get("Location")
	case s >= 500:
		e.Kind = KindServerError
	default:
		e.Kind = KindRejected
	}
	return e
}

// newUUID returns a random (version 4) UUID. crypto/rand.Read never fails on supported
// platforms, and it is what makes ids unguessable and fresh for every call.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
