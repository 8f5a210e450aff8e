package lmsfake

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// FaultEffect is what a fault does to a call.
type FaultEffect string

// The fault effects. Each acts before the call does anything, or, with AfterWrites, on an answer
// whose writes are committed: the "may have been applied" case a client must treat as unknown.
const (
	// FaultDown closes the connection with a reset without acting on the call: the LMS is down
	// behind a load balancer that accepted the connection. Nothing is written. (A fake that is not
	// listening at all, a refused connection, is the client's KindNotSent.)
	FaultDown FaultEffect = "down"
	// FaultLatency delays the answer by Delay.
	FaultLatency FaultEffect = "latency"
	// FaultHang never answers: the call stays open until the client gives up or the fake closes.
	FaultHang FaultEffect = "hang"
	// FaultServerError answers 500 with the LMS's error body.
	FaultServerError FaultEffect = "serverError"
	// FaultStatus answers Status (a 5xx, say 503 or 504) with the LMS's error body.
	FaultStatus FaultEffect = "status"
	// FaultHTMLPage answers a proxy's HTML 502 page.
	FaultHTMLPage FaultEffect = "htmlPage"
	// FaultGarbage answers 200 application/json with a body that is not JSON. Always after the
	// writes.
	FaultGarbage FaultEffect = "garbage"
	// FaultConnectionReset closes the connection with a reset instead of answering.
	FaultConnectionReset FaultEffect = "connectionReset"
)

var faultEffects = map[FaultEffect]bool{
	FaultDown: true, FaultLatency: true, FaultHang: true, FaultServerError: true, FaultStatus: true,
	FaultHTMLPage: true, FaultGarbage: true, FaultConnectionReset: true,
}

// Fault is a switch that makes the fake misbehave on matching calls.
type Fault struct {
	// ID is assigned when the fault is added.
	ID     string
	Effect FaultEffect
	// Endpoint limits the fault to one endpoint (EndpointTransition, …); empty is every endpoint.
	Endpoint string
	// Times is how many matching calls the fault acts on before it is removed; 0 is until it is
	// removed by hand.
	Times int
	// Skip lets this many matching calls pass untouched first.
	Skip int
	// Delay is FaultLatency's delay, in real time.
	Delay time.Duration
	// Status is FaultStatus's HTTP status.
	Status int
	// AfterWrites makes the fault act on the answer, after the call's writes are committed.
	// FaultGarbage always does; FaultDown never does.
	AfterWrites bool
	// Used counts the calls the fault has acted on.
	Used int
}

func (f *Fault) check() error {
	if !faultEffects[f.Effect] {
		return fmt.Errorf("fault effect %q is unknown", f.Effect)
	}
	if f.Endpoint != "" && !endpoints[f.Endpoint] {
		return fmt.Errorf("fault endpoint %q is unknown", f.Endpoint)
	}
	if f.Times < 0 || f.Skip < 0 {
		return fmt.Errorf("fault times and skip must not be negative")
	}
	switch f.Effect {
	case FaultLatency:
		if f.Delay <= 0 {
			return fmt.Errorf("fault %s needs a positive delay", f.Effect)
		}
	case FaultStatus:
		if f.Status < 400 || f.Status > 599 {
			return fmt.Errorf("fault %s needs a 4xx or 5xx status", f.Effect)
		}
	case FaultDown:
		if f.AfterWrites {
			return fmt.Errorf("fault %s acts before the call; use %s after the writes", f.Effect, FaultConnectionReset)
		}
	case FaultGarbage:
		f.AfterWrites = true
	}
	return nil
}

// AddFault switches a fault on and returns its id.
func (s *Server) AddFault(f Fault) (string, error) {
	if err := f.check(); err != nil {
		return "", fmt.Errorf("AddFault: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultSeq++
	f.ID = "f" + strconv.Itoa(s.faultSeq)
	f.Used = 0
	s.faults = append(s.faults, &f)
	return f.ID, nil
}

// RemoveFault switches one fault off; false when there was no such fault.
func (s *Server) RemoveFault(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.ID == id {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			return true
		}
	}
	return false
}

// ClearFaults switches every fault off.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Faults returns the faults still switched on.
func (s *Server) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Fault, len(s.faults))
	for i, f := range s.faults {
		out[i] = *f
	}
	return out
}

// takeFaults returns the faults acting on this call, counting the call against their lifetimes.
func (s *Server) takeFaults(endpoint string) []*Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	var acting []*Fault
	kept := s.faults[:0]
	for _, f := range s.faults {
		if f.Endpoint != "" && f.Endpoint != endpoint {
			kept = append(kept, f)
			continue
		}
		if f.Skip > 0 {
			f.Skip--
			kept = append(kept, f)
			continue
		}
		f.Used++
		copied := *f
		acting = append(acting, &copied)
		if f.Times == 0 || f.Used < f.Times {
			kept = append(kept, f)
		}
	}
	s.faults = kept
	return acting
}

// actingFault returns the first acting fault of the call's before (after false) or after half.
func actingFault(faults []*Fault, after bool) *Fault {
	for _, f := range faults {
		if f.AfterWrites == after {
			return f
		}
	}
	return nil
}

// actFault carries out f; true when it answered (or refused to answer) the call itself.
func (s *Server) actFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	switch f.Effect {
	case FaultLatency:
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
		case <-s.done:
		}
		return false
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		case <-time.After(maxHang):
		}
		return true
	case FaultDown, FaultConnectionReset:
		io.Copy(io.Discard, io.LimitReader(r.Body, bodyLimit))
		reset(w)
		return true
	case FaultServerError:
		writeAnswer(w, (&lmsError{status: http.StatusInternalServerError, message: "Internal server error"}).answer())
		return true
	case FaultStatus:
		writeAnswer(w, (&lmsError{status: f.Status, message: http.StatusText(f.Status)}).answer())
		return true
	case FaultHTMLPage:
		writeAnswer(w, answer{status: http.StatusBadGateway, contentType: "text/html", body: []byte(
			"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")})
		return true
	case FaultGarbage:
		writeAnswer(w, answer{status: http.StatusOK, body: []byte(`{"outcome": "applied", "state": `)})
		return true
	}
	return false
}

func writeAnswer(w http.ResponseWriter, a answer) {
	ct := a.contentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// reset closes the call's connection with a TCP reset, so the client sees no answer at all.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
