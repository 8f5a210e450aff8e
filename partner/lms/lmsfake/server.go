// Package lmsfake is a fake of the LMS's credit-registration admin endpoints (the University of
// Helsinki MOOC platform, rage/secret-project-331), for regdesk's tests and demo: an http.Handler
// serving the same paths, bodies, refusals and status codes as the LMS's controllers, applying
// each action to an LMS-shaped database (regdesk/store/lmsdb) the way the LMS does, with
// switchable faults.
//
// It authenticates by the contract regdesk asks the LMS team for (see package lms): a service
// bearer token and the acting LMS user named in X-Acting-User-Id, who must hold a live global
// admin or credit_registration_admin role. It accepts nothing looser: no session, no token
// without a user, no user without the role.
//
// What it writes, and why each write is the LMS's, is in actions.go. The pool must connect as a
// role that may write schema public (the LMS's owner); regdesk's own role never needs to.
//
// # Clock
//
// The LMS compares and stamps times with the database's now() and clock_timestamp() and, for the
// refusals, its application clock. Tests must not depend on today's date, so Options.Now, when
// set, stands in for all of them: now() becomes Now(), clock_timestamp() becomes Now() plus the
// time elapsed in the transaction (so stamps within one transaction stay ordered, which is why the
// LMS uses it), and the application clock becomes Now(). Only updated_at, which the LMS's
// set_timestamp trigger writes, keeps the database's own clock. Without Now the fake uses the real
// clocks, as the LMS does.
//
// # Known differences from the LMS as read
//
//   - The LMS's bulk-transition and a requeue-retryable without course_id write an audit row with
//     no target_id and target_kind credit_registration, which the audit table's CHECK
//     target_id_kind refuses: the LMS rolls back and answers 400. The fake does the same, since the
//     database refuses it. RelaxAuditTargetCheck changes the CHECK the way regdesk asks the LMS
//     team to; the demo and the tests of what a bulk transition does call it first.
//   - The stored transition() writes neither state_changed_at nor phase_started_at; the fake moves
//     them as the migration that added them describes (on a change of state, and of timeline
//     phase).
//   - The bodies of actix's own errors (a body that is not the JSON a handler takes, a path id that
//     is not a uuid) are the LMS's JSON error shape here; the status codes are actix's.
package lmsfake

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Prefix is where the fake serves the endpoints, as the LMS does below its base URL.
const Prefix = "/api/v0/main-frontend/credit-registration-admin/"

// ActingUserHeader names the LMS user a call acts for.
const ActingUserHeader = "X-Acting-User-Id"

// The endpoints, by the names faults and logs use.
const (
	EndpointTransition       = "transition"
	EndpointBulkTransition   = "bulk-transition"
	EndpointRequeueRetryable = "requeue-retryable"
	EndpointDismissAttention = "dismiss-attention"
	EndpointPausePhase       = "pause-phase"
	EndpointResumePhase      = "resume-phase"
	EndpointRunPhaseNow      = "run-phase-now"
	EndpointPauseModule      = "pause-module"
	EndpointResumeModule     = "resume-module"
)

var endpoints = map[string]bool{
	EndpointTransition: true, EndpointBulkTransition: true, EndpointRequeueRetryable: true,
	EndpointDismissAttention: true, EndpointPausePhase: true, EndpointResumePhase: true,
	EndpointRunPhaseNow: true, EndpointPauseModule: true, EndpointResumeModule: true,
}

const (
	// maxBulkIDs is MAX_ROWS_PER_BULK_TRANSITION.
	maxBulkIDs = 500
	// maxRequeue is MAX_ROWS_PER_REQUEUE.
	maxRequeue = 5000
	// bodyLimit is actix's JsonConfig default limit (2 MiB).
	bodyLimit = 2 << 20
	// maxHang bounds a hang in real time, so a forgotten fault cannot hold a goroutine forever.
	maxHang = 10 * time.Minute
	// writeTimeout bounds one call's database work, which runs on after a client gives up, as a
	// server's would.
	writeTimeout = 30 * time.Second
)

// Phases are the LMS's canonical phase names (CreditRegistrationPhase::as_str); the phase
// endpoints refuse any other.
var Phases = []string{
	"materialize", "preconditions", "resolve-enrolments", "import", "verify", "legacy-mirror",
	"student-notifications", "enrolment-discovery", "link-emails", "config-validation",
	"retention-sweep", "ledger-snapshot",
}

// Options configures a Server.
type Options struct {
	// Token is the service token callers must present as "Authorization: Bearer <token>".
	// Required.
	Token string
	// Now, when set, stands in for the LMS's clocks (see the package documentation).
	Now func() time.Time
	// AccountLinkingSince turns on the student_number_stuck detector for completions since then,
	// as the LMS's account_linking_since configuration does; nil leaves it off.
	AccountLinkingSince *time.Time
	// Logger, when set, logs each call: endpoint, status, duration. Never the token.
	Logger *slog.Logger
}

// Server is the fake. It is an http.Handler and safe for concurrent use.
type Server struct {
	pool      *pgxpool.Pool
	opts      Options
	done      chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	faults   []*Fault
	faultSeq int

	// beforeWrite runs between a single-row transition's read and its transaction, so a test can
	// move the row on in between as another writer would.
	beforeWrite func(ctx context.Context, registrationID string)
}

// New returns a fake LMS writing through pool.
func New(pool *pgxpool.Pool, opts Options) (*Server, error) {
	if pool == nil {
		return nil, errors.New("lmsfake.New: no pool")
	}
	if strings.TrimSpace(opts.Token) == "" {
		return nil, errors.New("lmsfake.New: no token")
	}
	return &Server{pool: pool, opts: opts, done: make(chan struct{})}, nil
}

// Close releases calls held by a hang fault. It does not close the pool.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
}

// now is the LMS's application clock.
func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now().UTC()
	}
	return time.Now().UTC()
}

// dbNow is the @now argument the SQL reads in place of now(); nil lets the database's clock
// stand.
func (s *Server) dbNow() *time.Time {
	if s.opts.Now == nil {
		return nil
	}
	t := s.opts.Now().UTC()
	return &t
}

// begin starts a write transaction; with a clock of the fake's own it tells set_timestamp
// (FollowClock) the instant to stamp.
func (s *Server) begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil || s.opts.Now == nil {
		return tx, err
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('lmsfake.now', $1, true)`, s.now().Format(time.RFC3339Nano)); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return tx, nil
}

// answer is what a call answers: a status and a body, JSON unless contentType says otherwise.
type answer struct {
	status      int
	body        []byte
	contentType string
}

// lmsError is a ControllerError: a status and the message of the LMS's error body.
type lmsError struct {
	status  int
	message string
	source  string
}

func (e *lmsError) Error() string { return fmt.Sprintf("%d %s", e.status, e.message) }

func badRequest(msg string) *lmsError { return &lmsError{status: http.StatusBadRequest, message: msg} }

// errorBody is the LMS's ErrorResponse.
type errorBody struct {
	Title   string          `json:"title"`
	Message string          `json:"message"`
	Source  *string         `json:"source"`
	Data    json.RawMessage `json:"data"`
}

func (e *lmsError) answer() answer {
	b := errorBody{Title: http.StatusText(e.status), Message: e.message, Data: json.RawMessage("null")}
	if e.source != "" {
		b.Source = &e.source
	}
	body, _ := json.Marshal(b)
	return answer{status: e.status, body: body}
}

// dbError turns a database failure into the LMS's answer for it: a missing row is 404, a broken
// constraint 400, anything else 500 (ControllerError's From<ModelError>).
func dbError(err error) *lmsError {
	var le *lmsError
	if errors.As(err, &le) {
		return le
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &lmsError{status: http.StatusNotFound, message: "no rows returned by a query that expected to return at least one row"}
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && strings.HasPrefix(pg.Code, "23") {
		return badRequest(pg.Message)
	}
	return &lmsError{status: http.StatusInternalServerError, message: err.Error()}
}

func jsonAnswer(v any) answer {
	body, err := json.Marshal(v)
	if err != nil {
		return (&lmsError{status: http.StatusInternalServerError, message: err.Error()}).answer()
	}
	return answer{status: http.StatusOK, body: body}
}

// call is one request, as far as the handlers need it: the body is read into its fields by
// parse, as actix's web::Json extractor reads it before the handler runs.
type call struct {
	endpoint string
	param    string // the path's id (a uuid, lower case) or phase, as sent
	actor    string // the acting user, once authenticated

	act       action
	reason    string  // a required reason, as sent
	reasonOpt *string // an optional reason, as sent
	ids       []string
	courseID  *string
	moduleID  *string
}

// parse reads the endpoint's body the way serde reads its payload struct.
func (c *call) parse(body object) *lmsError {
	var lerr *lmsError
	switch c.endpoint {
	case EndpointTransition:
		if c.act, lerr = body.action("action"); lerr != nil {
			return lerr
		}
		c.reason, lerr = body.str("reason")
	case EndpointBulkTransition:
		if c.act, lerr = body.action("action"); lerr != nil {
			return lerr
		}
		if c.ids, lerr = body.uuids("credit_registration_ids"); lerr != nil {
			return lerr
		}
		c.reason, lerr = body.str("reason")
	case EndpointRequeueRetryable:
		if c.courseID, lerr = body.optionalUUID("course_id"); lerr != nil {
			return lerr
		}
		if c.moduleID, lerr = body.optionalUUID("course_module_id"); lerr != nil {
			return lerr
		}
		c.reason, lerr = body.str("reason")
	case EndpointDismissAttention, EndpointPausePhase, EndpointPauseModule:
		c.reason, lerr = body.str("reason")
	default:
		c.reasonOpt, lerr = body.optionalStr("reason")
	}
	return lerr
}

// route matches a request to an endpoint and its path parameter; actix answers an unknown route,
// or a known path with another method, with a bare 404.
func route(r *http.Request) (endpoint, param string, ok bool) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, Prefix) {
		return "", "", false
	}
	seg := strings.Split(strings.TrimPrefix(r.URL.Path, Prefix), "/")
	switch {
	case len(seg) == 2 && seg[0] == "registrations" && seg[1] == "bulk-transition":
		return EndpointBulkTransition, "", true
	case len(seg) == 2 && seg[0] == "registrations" && seg[1] == "requeue-retryable":
		return EndpointRequeueRetryable, "", true
	case len(seg) == 3 && seg[0] == "registrations" && seg[2] == "transition" && seg[1] != "":
		return EndpointTransition, seg[1], true
	case len(seg) == 3 && seg[0] == "registrations" && seg[2] == "dismiss-attention" && seg[1] != "":
		return EndpointDismissAttention, seg[1], true
	case len(seg) == 3 && seg[0] == "phases" && seg[1] != "":
		switch seg[2] {
		case "pause":
			return EndpointPausePhase, seg[1], true
		case "resume":
			return EndpointResumePhase, seg[1], true
		case "run-now":
			return EndpointRunPhaseNow, seg[1], true
		}
	case len(seg) == 3 && seg[0] == "courses" && seg[1] != "":
		switch seg[2] {
		case "pause":
			return EndpointPauseModule, seg[1], true
		case "resume":
			return EndpointResumeModule, seg[1], true
		}
	}
	return "", "", false
}

// ServeHTTP answers one call: faults first, then the LMS's checks in the LMS's order, then the
// action, then faults that act on the answer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	endpoint, param, ok := route(r)
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	faults := s.takeFaults(endpoint)
	status := 0
	defer func() {
		if s.opts.Logger != nil {
			s.opts.Logger.Info("lmsfake call", "endpoint", endpoint, "status", status, "ms", time.Since(start).Milliseconds(), "faults", len(faults))
		}
	}()

	if f := actingFault(faults, false); f != nil {
		if s.actFault(w, r, f) {
			status = -1
			return
		}
	}
	// The work runs on when the client gives up, as it would in a server that got the request.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	defer cancel()
	a := s.serve(ctx, r, endpoint, param)
	if f := actingFault(faults, true); f != nil {
		if s.actFault(w, r, f) {
			status = -1
			return
		}
	}
	status = a.status
	writeAnswer(w, a)
}

// serve runs the LMS's checks and the action. actix runs the handler's extractors in order (the
// user, the path, the body) before the handler authorizes.
func (s *Server) serve(ctx context.Context, r *http.Request, endpoint, param string) answer {
	c := &call{endpoint: endpoint}
	actor, err := s.authenticate(ctx, r)
	if err != nil {
		return dbError(err).answer()
	}
	c.actor = actor
	switch endpoint {
	case EndpointTransition, EndpointDismissAttention, EndpointPauseModule, EndpointResumeModule:
		id, ok := parseUUID(param)
		if !ok {
			// actix's path extractor answers a segment it cannot read with 404.
			return (&lmsError{status: http.StatusNotFound, message: "Invalid path: cannot parse " + fmt.Sprintf("%q", param) + " as a uuid"}).answer()
		}
		c.param = id
	default:
		c.param = param
	}
	body, lerr := readBody(r)
	if lerr != nil {
		return lerr.answer()
	}
	if lerr := c.parse(body); lerr != nil {
		return lerr.answer()
	}
	if err := s.authorize(ctx, actor); err != nil {
		return dbError(err).answer()
	}
	var res any
	switch endpoint {
	case EndpointTransition:
		res, err = s.transition(ctx, c)
	case EndpointBulkTransition:
		res, err = s.bulkTransition(ctx, c)
	case EndpointRequeueRetryable:
		res, err = s.requeueRetryable(ctx, c)
	case EndpointDismissAttention:
		res, err = s.dismissAttention(ctx, c)
	case EndpointPausePhase, EndpointResumePhase, EndpointRunPhaseNow:
		res, err = s.phaseAction(ctx, c)
	case EndpointPauseModule, EndpointResumeModule:
		res, err = s.moduleAction(ctx, c)
	}
	if err != nil {
		return dbError(err).answer()
	}
	return jsonAnswer(res)
}

// authenticate is the contract's stand-in for the LMS's AuthUser extractor: the service token,
// then a live LMS user named by ActingUserHeader. Every failure is 401 and ends the call.
func (s *Server) authenticate(ctx context.Context, r *http.Request) (string, error) {
	unauthorized := func(msg string) error { return &lmsError{status: http.StatusUnauthorized, message: msg} }
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", unauthorized("You are not currently logged in. Please sign in to continue.")
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.Token)) != 1 {
		return "", unauthorized("The service token was not accepted.")
	}
	actor, ok := parseUUID(r.Header.Get(ActingUserHeader))
	if !ok {
		return "", unauthorized("The request names no acting user (" + ActingUserHeader + ").")
	}
	var live bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL)`, actor).Scan(&live); err != nil {
		return "", fmt.Errorf("authenticate: %w", err)
	}
	if !live {
		return "", unauthorized("The acting user does not exist.")
	}
	return actor, nil
}

// authorize is authorize_credit_registration_admin for the acting user: a live global role that
// has Act::AdministrateCreditRegistrations, which the LMS gives admin and
// credit_registration_admin.
func (s *Server) authorize(ctx context.Context, actor string) error {
	var ok bool
	if err := s.pool.QueryRow(ctx, `
SELECT EXISTS (
    SELECT 1
    FROM roles
    WHERE user_id = $1
      AND is_global
      AND deleted_at IS NULL
      AND role IN ('admin', 'credit_registration_admin')
  )`, actor).Scan(&ok); err != nil {
		return fmt.Errorf("authorize: %w", err)
	}
	if !ok {
		return &lmsError{status: http.StatusForbidden, message: "Unauthorized. Please contact course staff if you believe you should have access.", source: "Action attempted: AdministrateCreditRegistrations"}
	}
	return nil
}

// object is a JSON object body, read the way serde reads one: unknown keys ignored, a missing
// key an error unless the field is an Option.
type object map[string]json.RawMessage

// readBody is actix's web::Json extractor: application/json, at most bodyLimit bytes, a JSON
// object.
func readBody(r *http.Request) (object, *lmsError) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, badRequest("Content type error")
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, bodyLimit+1))
	if err != nil {
		return nil, badRequest("Error that occur during reading payload: " + err.Error())
	}
	if len(raw) > bodyLimit {
		return nil, &lmsError{status: http.StatusRequestEntityTooLarge, message: "JSON payload is larger than allowed"}
	}
	var o object
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		return nil, deserializeError("invalid type: expected a JSON object")
	}
	return o, nil
}

func deserializeError(msg string) *lmsError { return badRequest("Json deserialize error: " + msg) }

// str reads a String field; optional reads an Option<String>.
func (o object) str(key string) (string, *lmsError) {
	raw, ok := o[key]
	if !ok {
		return "", deserializeError("missing field `" + key + "`")
	}
	var v *string
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return "", deserializeError("invalid type for `" + key + "`, expected a string")
	}
	return *v, nil
}

func (o object) optionalStr(key string) (*string, *lmsError) {
	raw, ok := o[key]
	if !ok {
		return nil, nil
	}
	var v *string
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, deserializeError("invalid type for `" + key + "`, expected a string or null")
	}
	return v, nil
}

func (o object) optionalUUID(key string) (*string, *lmsError) {
	v, lerr := o.optionalStr(key)
	if lerr != nil || v == nil {
		return nil, lerr
	}
	id, ok := parseUUID(*v)
	if !ok {
		return nil, deserializeError("invalid uuid in `" + key + "`")
	}
	return &id, nil
}

func (o object) uuids(key string) ([]string, *lmsError) {
	raw, ok := o[key]
	if !ok {
		return nil, deserializeError("missing field `" + key + "`")
	}
	var vs []string
	if err := json.Unmarshal(raw, &vs); err != nil || vs == nil {
		return nil, deserializeError("invalid type for `" + key + "`, expected a sequence of uuids")
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		id, ok := parseUUID(v)
		if !ok {
			return nil, deserializeError(fmt.Sprintf("invalid uuid at `%s[%d]`", key, i))
		}
		out[i] = id
	}
	return out, nil
}

// action is AdminCreditRegistrationAction.
type action struct {
	kind    string
	toState string
}

// MarshalJSON writes the serde shape, for the bulk audit row's details.
func (a action) MarshalJSON() ([]byte, error) {
	if a.kind == "state_move" {
		return json.Marshal(map[string]string{"kind": a.kind, "to_state": a.toState})
	}
	return json.Marshal(map[string]string{"kind": a.kind})
}

func (o object) action(key string) (action, *lmsError) {
	raw, ok := o[key]
	if !ok {
		return action{}, deserializeError("missing field `" + key + "`")
	}
	var inner object
	if err := json.Unmarshal(raw, &inner); err != nil || inner == nil {
		return action{}, deserializeError("invalid type for `" + key + "`, expected an internally tagged enum")
	}
	kind, lerr := inner.str("kind")
	if lerr != nil {
		return action{}, deserializeError("missing field `kind`")
	}
	switch kind {
	case "clear_needs_admin_attention", "check_now":
		return action{kind: kind}, nil
	case "state_move":
		to, lerr := inner.str("to_state")
		if lerr != nil {
			return action{}, lerr
		}
		if to != "ready_to_submit" && to != "cancelled" {
			return action{}, deserializeError("unknown variant `" + to + "`, expected `ready_to_submit` or `cancelled`")
		}
		return action{kind: kind, toState: to}, nil
	}
	return action{}, deserializeError("unknown variant `" + kind + "`, expected one of `state_move`, `clear_needs_admin_attention`, `check_now`")
}

var (
	hyphenated = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	simple     = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)
)

// parseUUID reads a uuid in the hyphenated or the simple form, as the uuid crate does, and gives
// it back hyphenated and lower case.
func parseUUID(s string) (string, bool) {
	switch {
	case hyphenated.MatchString(s):
		return strings.ToLower(s), true
	case simple.MatchString(s):
		s = strings.ToLower(s)
		return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:], true
	}
	return "", false
}

// requiredReason is required_reason: the reason trimmed, or 400.
func requiredReason(reason string) (string, error) {
	t := strings.TrimSpace(reason)
	if t == "" {
		return "", badRequest("A reason is required.")
	}
	return t, nil
}
