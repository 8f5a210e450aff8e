// Package suotarfake is a fake Suotar for development and tests: an http.Handler that answers
// Suotar's six batch endpoints as registry-api.md describes them, over a World of Sisu data with
// Suotar's lag and Sisu's delays on an adjustable clock, with switchable faults and a control API.
//
// What it reproduces on purpose, because clients must survive it: the importer copy Suotar reads
// lags Sisu (an imported assessment item attainment shows after an hour), the course unit
// attainment Sisu builds from it shows hours later still, and Suotar's duplicate check reads the
// lagged copy, so a second identical import inside the lag is accepted.
package suotarfake

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults, from registry-api.md.
const (
	// DefaultPrefix is where the batch endpoints are served, as in Suotar's spec.
	DefaultPrefix = "/api/"
	// DefaultImporterLag is how long an attainment takes to reach Suotar's importer copy: the
	// importer runs hourly.
	DefaultImporterLag = time.Hour
	// DefaultPendingWindow is Suotar's PENDING_WINDOW_MS in its newest version.
	DefaultPendingWindow = 24 * time.Hour
	// DefaultBodyLimit is Express's json({limit: "5mb"}).
	DefaultBodyLimit = 5 << 20
	// maxHang bounds a hang in real time, so a forgotten fault cannot hold a goroutine forever.
	maxHang = 10 * time.Minute
	// maxCalls bounds the call log.
	maxCalls = 1000
)

// Server is the fake Suotar. It is an http.Handler and safe for concurrent use.
type Server struct {
	token       string
	prefix      string
	clock       *Clock
	lag         time.Duration
	window      time.Duration
	cuDelay     time.Duration
	manualCU    bool
	bodyLimit   int64
	limits      map[string]int
	latency     map[string]time.Duration
	quirks      bool
	recentSends bool
	seed        string
	log         *slog.Logger
	control     *http.ServeMux
	done        chan struct{}
	closeOnce   sync.Once

	mu       sync.Mutex
	world    *World
	faults   []*Fault
	faultSeq int
	calls    []Call
	callSeq  int
	minted   int
}

// Option configures a Server.
type Option func(*Server) error

// WithWorld serves a copy of w instead of an empty world.
func WithWorld(w *World) Option {
	return func(s *Server) error {
		if w == nil {
			return errors.New("nil world")
		}
		if err := w.Validate(); err != nil {
			return err
		}
		s.world = w.clone()
		return nil
	}
}

// WithPrefix serves the batch endpoints under prefix ("/api/moocfi/", say) instead of "/api/".
func WithPrefix(prefix string) Option {
	return func(s *Server) error {
		if !strings.HasPrefix(prefix, "/") || !strings.HasSuffix(prefix, "/") || strings.HasPrefix(prefix, "/control/") {
			return fmt.Errorf("prefix %q must start and end with / and not be under /control/", prefix)
		}
		s.prefix = prefix
		return nil
	}
}

// WithClock uses c for fake time instead of a real-time clock started now.
func WithClock(c *Clock) Option {
	return func(s *Server) error {
		if c == nil {
			return errors.New("nil clock")
		}
		s.clock = c
		return nil
	}
}

// WithImporterLag sets how long an attainment takes to show in Suotar's importer copy.
func WithImporterLag(d time.Duration) Option {
	return func(s *Server) error { s.lag = max(d, 0); return nil }
}

// WithPendingWindow sets Suotar's PENDING_WINDOW (2 h in an older Suotar).
func WithPendingWindow(d time.Duration) Option {
	return func(s *Server) error { s.window = max(d, 0); return nil }
}

// WithCUDelay gives every new submission the same delay until its course unit attainment shows,
// instead of DefaultCUDelay's 5–29 h spread.
func WithCUDelay(d time.Duration) Option {
	return func(s *Server) error { s.cuDelay = max(d, 0); return nil }
}

// WithManualCU makes new submissions Manual: their course unit attainment shows only when the
// control API ripens or transitions them, for tests that must decide when.
func WithManualCU() Option {
	return func(s *Server) error { s.manualCU = true; return nil }
}

// WithBodyLimit changes the 5 MB request body limit, so a test can reach the 413 cheaply.
func WithBodyLimit(n int64) Option {
	return func(s *Server) error { s.bodyLimit = n; return nil }
}

// WithBatchLimit changes one endpoint's item limit, so a test can reach the 400 cheaply.
func WithBatchLimit(path string, n int) Option {
	return func(s *Server) error {
		if endpointByPath(path) == nil {
			return fmt.Errorf("batch limit: unknown endpoint %q", path)
		}
		s.limits[path] = n
		return nil
	}
}

// WithLatency delays every answer of one endpoint by d of real time. Real Suotar is slow where it
// makes many importer calls (resolve-enrolments, list-by-course, import); the fake is instant
// unless told otherwise.
func WithLatency(path string, d time.Duration) Option {
	return func(s *Server) error {
		if endpointByPath(path) == nil {
			return fmt.Errorf("latency: unknown endpoint %q", path)
		}
		s.latency[path] = d
		return nil
	}
}

// WithQuirks makes answers look like raw Sisu data where Suotar passes it through: dates as
// UTC-midnight instants, gradeId as a number, zoneless enrolment date-times, and credits on
// existing attainments. Clients must read both forms.
func WithQuirks() Option {
	return func(s *Server) error { s.quirks = true; return nil }
}

// WithRecentSends turns on the newest Suotar behaviour the LMS expects but no public Suotar code
// shows: duplicateAttainment from Suotar's own sends within the pending window, and
// duplicateRequestItem for a repeat of a completion within one batch. A repeat means the same
// person, course code, grade, attainment date and credits.
func WithRecentSends() Option {
	return func(s *Server) error { s.recentSends = true; return nil }
}

// WithSeed makes submission ids derived from seed and a counter instead of random, so a test can
// predict them (and so each one's default course unit delay).
func WithSeed(seed string) Option {
	return func(s *Server) error { s.seed = seed; return nil }
}

// WithLogger logs every call (endpoint, correlation id, status, latency) to l.
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) error { s.log = l; return nil }
}

// WithFaults switches faults on from the start.
func WithFaults(faults ...Fault) Option {
	return func(s *Server) error {
		for _, f := range faults {
			if err := f.check(); err != nil {
				return err
			}
			s.faultSeq++
			f.ID = fmt.Sprintf("f%d", s.faultSeq)
			s.faults = append(s.faults, &f)
		}
		return nil
	}
}

// New returns a fake Suotar that accepts token as its bearer token.
func New(token string, opts ...Option) (*Server, error) {
	if token == "" {
		return nil, errors.New("suotarfake.New: no token")
	}
	s := &Server{
		token:     token,
		prefix:    DefaultPrefix,
		lag:       DefaultImporterLag,
		window:    DefaultPendingWindow,
		bodyLimit: DefaultBodyLimit,
		limits:    map[string]int{},
		latency:   map[string]time.Duration{},
		log:       slog.New(slog.DiscardHandler),
		world:     NewWorld(),
		done:      make(chan struct{}),
	}
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, fmt.Errorf("suotarfake.New: %w", err)
		}
	}
	if s.clock == nil {
		s.clock = NewClock(time.Now(), 1)
	}
	s.control = s.controlMux()
	return s, nil
}

// Clock returns the fake's clock.
func (s *Server) Clock() *Clock { return s.clock }

// Close ends hanging calls, so an http.Server shutting down is not held up by them.
func (s *Server) Close() { s.closeOnce.Do(func() { close(s.done) }) }

// World returns a copy of the current world, with every course unit attainment that is due by
// now in it.
func (s *Server) World() *World {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle(s.clock.Now())
	return s.world.clone()
}

// SetWorld replaces the world.
func (s *Server) SetWorld(w *World) error {
	if w == nil {
		return errors.New("SetWorld: nil world")
	}
	if err := w.Validate(); err != nil {
		return fmt.Errorf("SetWorld: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.world = w.clone()
	return nil
}

// Call is one recorded call, kept unscrubbed for debugging.
type Call struct {
	Seq           int               `json:"seq"`
	At            DateTime          `json:"at"`
	Endpoint      string            `json:"endpoint,omitempty"`
	Path          string            `json:"path"`
	CorrelationID string            `json:"correlationId,omitempty"`
	ContentType   string            `json:"contentType,omitempty"`
	Status        int               `json:"status"`
	Outcome       string            `json:"outcome,omitempty"`
	Items         []json.RawMessage `json:"items,omitempty"`
	Codes         []string          `json:"codes,omitempty"`
	Faults        []string          `json:"faults,omitempty"`
	Latency       Duration          `json:"latency"`
}

// Calls returns the recorded calls, oldest first (at most the last 1000).
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// begin records a call as it arrives, so a call that hangs shows in the log while it hangs; the
// returned function records how it ended.
func (s *Server) begin(c *Call) func() {
	started := time.Now()
	s.mu.Lock()
	s.callSeq++
	c.Seq = s.callSeq
	s.calls = append(s.calls, Call{Seq: c.Seq, At: c.At, Endpoint: c.Endpoint, Path: c.Path, CorrelationID: c.CorrelationID, Outcome: "in progress"})
	if len(s.calls) > maxCalls {
		s.calls = slices.Delete(s.calls, 0, len(s.calls)-maxCalls)
	}
	s.mu.Unlock()
	return func() {
		c.Latency = Duration(time.Since(started))
		s.mu.Lock()
		if i := slices.IndexFunc(s.calls, func(x Call) bool { return x.Seq == c.Seq }); i >= 0 {
			s.calls[i] = *c
		}
		s.mu.Unlock()
		s.log.Info("suotar call", "endpoint", c.Endpoint, "path", c.Path, "correlationId", c.CorrelationID,
			"items", len(c.Items), "status", c.Status, "outcome", c.Outcome, "latency", time.Duration(c.Latency))
	}
}

// endpoint describes one batch endpoint: its path, limit and the fields its items must carry.
type endpoint struct {
	path  string
	limit int
	// strs are required non-empty strings; optStrs must be non-empty strings when present.
	strs    []string
	optStrs []string
	// nums are required finite numbers.
	nums []string
	// dates are required "YYYY-MM-DD" strings.
	dates  []string
	handle func(c *batch, it reqItem) answerItem
}

// The endpoint paths, relative to the prefix.
const (
	PathResolvePersons      = "persons/resolve-by-student-numbers"
	PathResolveEnrolments   = "enrolments/resolve"
	PathImportAttainments   = "attainments/import"
	PathVerifyAttainments   = "attainments/verify"
	PathListByCourse        = "enrolments/list-by-course"
	PathValidateCourseCodes = "course-codes/validate"
)

var endpoints []*endpoint

func init() {
	endpoints = []*endpoint{
		{path: PathResolvePersons, limit: 1000, strs: []string{"studentNumber"}, handle: (*batch).resolvePerson},
		{path: PathResolveEnrolments, limit: 1000, strs: []string{"studentNumber", "courseCode"}, handle: (*batch).resolveEnrolments},
		{path: PathImportAttainments, limit: 100,
			strs:  []string{"studentNumber", "courseCode", "enrolmentId", "attainmentDate", "attainmentLanguage", "gradeScaleId", "gradeId"},
			nums:  []string{"credits"},
			dates: []string{"attainmentDate"}, handle: (*batch).importAttainment},
		{path: PathVerifyAttainments, limit: 1000, strs: []string{"submittedAttainmentId"}, handle: (*batch).verify},
		{path: PathListByCourse, limit: 50, strs: []string{"courseCode"}, optStrs: []string{"courseUnitRealisationId"}, handle: (*batch).listByCourse},
		{path: PathValidateCourseCodes, limit: 1000, strs: []string{"courseCode"}, handle: (*batch).validateCourseCode},
	}
}

func endpointByPath(path string) *endpoint {
	for _, ep := range endpoints {
		if ep.path == path {
			return ep
		}
	}
	return nil
}

// ServeHTTP answers the batch endpoints under the prefix and the control API under /control/.
// Anything else gets the legacy grader router's bare 401, which is what Suotar answers for a path
// it does not know, and what tells a client its base URL is wrong.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/control/") {
		s.serveControl(w, r)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, s.prefix); ok && r.Method == http.MethodPost {
		if ep := endpointByPath(rest); ep != nil {
			s.serveBatch(w, r, ep)
			return
		}
	}
	call := Call{At: DateTime{s.clock.Now()}, Path: r.URL.Path, CorrelationID: r.Header.Get("X-Correlation-Id")}
	end := s.begin(&call)
	call.Status, call.Outcome = http.StatusUnauthorized, "unknown path"
	writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized access"})
	end()
}

// authorized checks the bearer token the way Suotar's checkMoocfiToken does: the "Bearer "
// prefix exactly (case and the single space matter), then the token.
func (s *Server) authorized(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	// In constant time: comparing byte by byte until the first difference tells a guesser, by
	// the answer's timing, how much of a guess was right.
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.token)) == 1
}

type itemError struct {
	Message string `json:"message"`
}

// answerItem is one element of a 200 answer.
type answerItem struct {
	RequestItemID string     `json:"requestItemId"`
	Status        string     `json:"status"`
	Code          string     `json:"code"`
	Result        any        `json:"result,omitempty"`
	Error         *itemError `json:"error,omitempty"`
}

func okItem(code string, result any) answerItem {
	return answerItem{Status: "ok", Code: code, Result: result}
}

func errItem(code, message string, result any) answerItem {
	return answerItem{Status: "error", Code: code, Error: &itemError{Message: message}, Result: result}
}

// reqItem is one validated request item.
type reqItem struct {
	id     string
	fields map[string]string
	nums   map[string]float64
	raw    json.RawMessage
}

// requestError is a request-level error body.
func requestError(code, message string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": message}}
}

// Messages of the request-level errors, from Suotar's results module.
const (
	msgUnauthorized = "Missing or invalid credentials."
	msgTooLarge     = "Request body is too large."
	msgUnavailable  = "Failed to fetch Sisu data."
	msgInternal     = "Suotar failed to process the request."
)

func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request, ep *endpoint) {
	call := Call{At: DateTime{s.clock.Now()}, Endpoint: ep.path, Path: r.URL.Path,
		CorrelationID: r.Header.Get("X-Correlation-Id"), ContentType: r.Header.Get("Content-Type")}
	defer s.begin(&call)()
	answer := func(status int, body any, outcome string) {
		call.Status, call.Outcome = status, outcome
		writeJSON(w, status, body)
	}

	if !s.authorized(r) {
		answer(http.StatusUnauthorized, requestError("unauthorized", msgUnauthorized), "unauthorized")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.bodyLimit))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			// Read the rest (up to a bound) so the client, still writing, gets the 413 rather
			// than a reset connection.
			_, _ = io.CopyN(io.Discard, r.Body, 64<<20)
			answer(http.StatusRequestEntityTooLarge, requestError("requestTooLarge", msgTooLarge), "requestTooLarge")
			return
		}
		call.Outcome = "read body: " + err.Error()
		return
	}
	// Express's json() parser reads only application/json; any other body leaves req.body {},
	// which is not an array.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		answer(http.StatusBadRequest, requestError("malformedRequest", "Request body must be a JSON array."), "malformedRequest: content type")
		return
	}
	items, problem := parseItems(ep, body, s.limitOf(ep))
	for _, it := range items {
		call.Items = append(call.Items, it.raw)
	}
	if problem != "" {
		answer(http.StatusBadRequest, requestError("malformedRequest", problem), "malformedRequest: "+problem)
		return
	}

	s.mu.Lock()
	faults := s.takeFaults(ep, items)
	s.mu.Unlock()
	for _, f := range faults {
		call.Faults = append(call.Faults, f.ID+":"+string(f.Effect))
	}
	before := func(f *Fault) bool { return !f.AfterWrites }
	after := func(f *Fault) bool { return f.AfterWrites }

	if d := s.latency[ep.path]; d > 0 && !s.sleep(w, r, d) {
		call.Outcome = "client gave up during latency"
		return
	}
	if stop := s.stall(w, r, &call, faults, before); stop {
		return
	}
	if f := firstFault(faults, FaultUnavailable, FaultRequestLevel); f != nil {
		if f.Effect == FaultUnavailable {
			answer(http.StatusServiceUnavailable, requestError("serviceTemporarilyUnavailable", msgUnavailable), "fault: unavailable")
		} else {
			answer(f.Status, requestError(f.Code, "Forced by the fake."), "fault: requestLevel")
		}
		return
	}

	s.mu.Lock()
	now := s.clock.Now()
	s.settle(now)
	b := &batch{s: s, now: now, x: s.world.index(), faults: faults, seen: map[string]string{}}
	out := make([]answerItem, len(items))
	for i, it := range items {
		if f := b.forced(it); f != nil {
			out[i] = b.forcedItem(ep, it, f)
		} else {
			out[i] = ep.handle(b, it)
		}
		out[i].RequestItemID = it.id
	}
	s.mu.Unlock()

	if f := firstFault(faults, FaultInternalError); f != nil {
		answer(http.StatusInternalServerError, requestError("internalError", msgInternal), "fault: internalError after writes")
		return
	}
	if stop := s.stall(w, r, &call, faults, after); stop {
		return
	}
	if firstFault(faults, FaultBadGateway) != nil {
		call.Status, call.Outcome = http.StatusBadGateway, "fault: badGateway"
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n")
		return
	}

	shaped := shape(out, items, faults)
	for _, a := range shaped {
		call.Codes = append(call.Codes, a.Code)
	}
	call.Status = http.StatusOK
	switch {
	case firstFault(faults, FaultGarbageBody) != nil:
		call.Outcome = "fault: garbageBody"
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "[{\"requestItemId\": \"\x00<<truncated")
	case firstFault(faults, FaultNonArrayBody) != nil:
		call.Outcome = "fault: nonArrayBody"
		writeJSON(w, http.StatusOK, map[string]any{"items": shaped})
	case firstFault(faults, FaultWrongContentType) != nil:
		call.Outcome = "fault: wrongContentType"
		b, _ := json.Marshal(shaped)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b)
	default:
		writeJSON(w, http.StatusOK, shaped)
	}
}

// stall applies the latency, hang and connection-reset faults selected by which; it reports
// whether the call is over.
func (s *Server) stall(w http.ResponseWriter, r *http.Request, call *Call, faults []*Fault, which func(*Fault) bool) bool {
	for _, f := range faults {
		if !which(f) {
			continue
		}
		switch f.Effect {
		case FaultLatency:
			if !s.sleep(w, r, time.Duration(f.Delay)) {
				call.Outcome = "client gave up during latency"
				return true
			}
		case FaultHang:
			call.Outcome = "fault: hang"
			if s.sleep(w, r, maxHang) {
				reset(w) // never an empty 200, even after the longest hang
			}
			return true
		case FaultConnectionReset:
			call.Outcome = "fault: connectionReset"
			reset(w)
			return true
		}
	}
	return false
}

// sleep waits d of real time; false when the client went away first, or when the fake closed,
// in which case the connection is reset, as a server going away would.
func (s *Server) sleep(w http.ResponseWriter, r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
		reset(w)
	}
	return false
}

// reset closes the connection with a TCP RST (linger 0), as a crashed proxy would.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // net/http's way to abort a response it cannot hijack
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func (s *Server) limitOf(ep *endpoint) int {
	if n, ok := s.limits[ep.path]; ok {
		return n
	}
	return ep.limit
}

// parseItems checks the body the way Suotar's batch middleware and each controller's
// validateItem do; any problem refuses the whole batch (400 malformedRequest) with a message.
func parseItems(ep *endpoint, body []byte, limit int) ([]reqItem, string) {
	if !json.Valid(body) {
		return nil, "Request body is not valid JSON."
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil || raws == nil {
		return nil, "Request body must be a JSON array."
	}
	items := make([]reqItem, 0, len(raws))
	for _, raw := range raws {
		items = append(items, reqItem{raw: raw})
	}
	if len(raws) > limit {
		return items, fmt.Sprintf("A batch may contain at most %d request items.", limit)
	}
	seen := map[string]bool{}
	for i := range items {
		it := &items[i]
		n := i + 1
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it.raw, &m); err != nil || m == nil {
			return items, fmt.Sprintf("Request item %d must be an object.", n)
		}
		id, ok := nonEmptyString(m, "requestItemId")
		if !ok {
			return items, fmt.Sprintf("Request item %d: requestItemId must be a non-empty string.", n)
		}
		if seen[id] {
			return items, fmt.Sprintf("Request item %d repeats an earlier requestItemId.", n)
		}
		seen[id] = true
		it.id, it.fields, it.nums = id, map[string]string{}, map[string]float64{}
		for _, f := range ep.strs {
			v, ok := nonEmptyString(m, f)
			if !ok {
				return items, fmt.Sprintf("Request item %d: %s must be a non-empty string.", n, f)
			}
			it.fields[f] = v
		}
		for _, f := range ep.optStrs {
			if _, present := m[f]; !present {
				continue
			}
			v, ok := nonEmptyString(m, f)
			if !ok {
				return items, fmt.Sprintf("Request item %d: %s must be a non-empty string when present.", n, f)
			}
			it.fields[f] = v
		}
		for _, f := range ep.nums {
			var v float64
			if raw, ok := m[f]; !ok || json.Unmarshal(raw, &v) != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return items, fmt.Sprintf("Request item %d: %s must be a finite number.", n, f)
			}
			it.nums[f] = v
		}
		for _, f := range ep.dates {
			if _, err := parseDate(it.fields[f]); err != nil {
				return items, fmt.Sprintf("Request item %d: %s must be a date (YYYY-MM-DD).", n, f)
			}
		}
	}
	return items, ""
}

func nonEmptyString(m map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := m[key]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
		return "", false
	}
	return s, true
}

// shape applies the answer-shaping faults: recoded, corrupted, dropped, repeated and foreign
// items, then the order. Item effects are decided on the items as sent, so faults combine in any
// order.
func shape(out []answerItem, items []reqItem, faults []*Fault) []answerItem {
	keep := make([]bool, len(out))
	for i := range keep {
		keep[i] = true
	}
	var extra []answerItem
	for _, f := range faults {
		for i := range out {
			if !f.matchesItem(items[i]) {
				continue
			}
			switch f.Effect {
			case FaultUnknownCode:
				out[i].Code = orDefault(f.Code, "someFutureCode")
			case FaultCorruptItems:
				out[i].Result = "unreadable"
			case FaultCorruptElements:
				out[i].Result = corruptLists(out[i].Result)
			case FaultRepeatItems:
				again := errItem(orDefault(f.Code, "internalError"), "A second answer for the same item.", nil)
				again.RequestItemID = out[i].RequestItemID
				extra = append(extra, again)
			case FaultDropItems:
				if f.Match != "" || i == len(out)-1 {
					keep[i] = false
				}
			}
		}
		if f.Effect == FaultForeignItem {
			foreign := errItem("personNotFound", "An answer for an item that was never sent.", nil)
			foreign.RequestItemID = randomUUID()
			extra = append(extra, foreign)
		}
	}
	shaped := make([]answerItem, 0, len(out)+len(extra))
	for i, a := range out {
		if keep[i] {
			shaped = append(shaped, a)
		}
	}
	shaped = append(shaped, extra...)
	if firstFault(faults, FaultReorderItems) != nil {
		slices.Reverse(shaped)
	}
	return shaped
}

// corruptLists re-reads a result as JSON and adds an unreadable element to each of its lists.
func corruptLists(result any) any {
	b, err := json.Marshal(result)
	if err != nil {
		return result
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return result
	}
	if l, ok := m["enrolments"].([]any); ok {
		m["enrolments"] = append(l, map[string]any{"state": "ENROLLED", "kind": "degree"})
	}
	if l, ok := m["existingAttainments"].([]any); ok {
		m["existingAttainments"] = append(l, map[string]any{"id": "otm-unreadable", "attainmentDate": "31.12.2025"})
	}
	if l, ok := m["people"].([]any); ok {
		m["people"] = append(l, "unreadable")
	}
	return m
}

func orDefault(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		http.Error(w, `{"error":{"code":"internalError","message":"Suotar failed to process the request."}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
