package suotarfake

import (
	"fmt"
	"strconv"
)

// FaultEffect is what a fault does to a call.
type FaultEffect string

// The fault effects, after the LMS mock's catalogue. Request-level effects act before anything is
// written unless noted; response effects act on an answer that was fully processed (so an import
// has written its attainments).
const (
	// FaultLatency delays the answer by Delay (before processing, or after the writes with
	// AfterWrites).
	FaultLatency FaultEffect = "latency"
	// FaultHang never answers: the call stays open until the client gives up (or the fake
	// closes). With AfterWrites the import has landed first: the "may have landed" case.
	FaultHang FaultEffect = "hang"
	// FaultUnavailable answers 503 serviceTemporarilyUnavailable; nothing is written.
	FaultUnavailable FaultEffect = "unavailable"
	// FaultInternalError answers 500 internalError after the writes: the outcome is unknown.
	FaultInternalError FaultEffect = "internalError"
	// FaultRequestLevel answers Status with a coded body carrying Code; nothing is written.
	FaultRequestLevel FaultEffect = "requestLevel"
	// FaultBadGateway answers a proxy's HTML 502 after the writes.
	FaultBadGateway FaultEffect = "badGateway"
	// FaultGarbageBody answers 200 application/json with a body that is not JSON.
	FaultGarbageBody FaultEffect = "garbageBody"
	// FaultNonArrayBody answers 200 with a JSON object instead of an array.
	FaultNonArrayBody FaultEffect = "nonArrayBody"
	// FaultWrongContentType answers the right array as text/html.
	FaultWrongContentType FaultEffect = "wrongContentType"
	// FaultConnectionReset closes the connection with a TCP reset instead of answering (before
	// processing, or after the writes with AfterWrites).
	FaultConnectionReset FaultEffect = "connectionReset"
	// FaultDropItems leaves the matching items (the last item when Match is empty) out of the
	// answer.
	FaultDropItems FaultEffect = "dropItems"
	// FaultReorderItems answers the items in reverse order.
	FaultReorderItems FaultEffect = "reorderItems"
	// FaultUnknownCode replaces the code of the matching items with Code (default
	// "someFutureCode"), a code no client knows.
	FaultUnknownCode FaultEffect = "unknownCode"
	// FaultItemCode answers the matching items with Code instead of processing them, with the
	// result the code carries. On import, sisuTimeout records an ATTEMPTED submission and, with
	// Landed, writes its attainment; sisuValidationFailed records a REJECTED one.
	FaultItemCode FaultEffect = "itemCode"
	// FaultRepeatItems appends a second answer for every matching item, with Code (default
	// "internalError") and status error; a client must keep the first.
	FaultRepeatItems FaultEffect = "repeatItems"
	// FaultForeignItem appends an answer for a requestItemId that was never sent.
	FaultForeignItem FaultEffect = "foreignItem"
	// FaultCorruptItems replaces the result of the matching items with a string.
	FaultCorruptItems FaultEffect = "corruptItems"
	// FaultCorruptElements adds an unreadable element to every list in the matching items'
	// results (an enrolment with no id, an attainment with an unreadable date).
	FaultCorruptElements FaultEffect = "corruptElements"
)

var faultEffects = map[FaultEffect]bool{
	FaultLatency: true, FaultHang: true, FaultUnavailable: true, FaultInternalError: true,
	FaultRequestLevel: true, FaultBadGateway: true, FaultGarbageBody: true, FaultNonArrayBody: true,
	FaultWrongContentType: true, FaultConnectionReset: true, FaultDropItems: true,
	FaultReorderItems: true, FaultUnknownCode: true, FaultItemCode: true, FaultRepeatItems: true,
	FaultForeignItem: true, FaultCorruptItems: true, FaultCorruptElements: true,
}

// Fault is a switch that makes the fake misbehave on matching calls.
type Fault struct {
	// ID is assigned when the fault is added.
	ID     string      `json:"id,omitempty"`
	Effect FaultEffect `json:"effect"`
	// Endpoint limits the fault to one endpoint path ("enrolments/resolve"); empty is every
	// endpoint.
	Endpoint string `json:"endpoint,omitempty"`
	// Match limits the fault to calls with an item that has a field equal to it (a student
	// number, a course code, a submitted attainment id); item effects then touch only those
	// items. Empty matches every call and every item.
	Match string `json:"match,omitempty"`
	// Times is how many matching calls the fault acts on before it is removed; 0 is until it is
	// removed by hand.
	Times int `json:"times,omitempty"`
	// Skip lets this many matching calls pass untouched first.
	Skip int `json:"skip,omitempty"`
	// Delay is FaultLatency's delay, in real time.
	Delay Duration `json:"delay,omitempty"`
	// Code is the code of FaultItemCode, FaultUnknownCode, FaultRepeatItems and FaultRequestLevel.
	Code string `json:"code,omitempty"`
	// Status is FaultRequestLevel's HTTP status.
	Status int `json:"status,omitempty"`
	// Landed makes a forced import sisuTimeout write its attainment to Sisu.
	Landed bool `json:"landed,omitempty"`
	// AfterWrites moves FaultLatency, FaultHang and FaultConnectionReset after the writes.
	AfterWrites bool `json:"afterWrites,omitempty"`
	// Used counts the calls the fault has acted on.
	Used int `json:"used"`
}

func (f *Fault) check() error {
	if !faultEffects[f.Effect] {
		return fmt.Errorf("fault effect %q is unknown", f.Effect)
	}
	if f.Endpoint != "" && endpointByPath(f.Endpoint) == nil {
		return fmt.Errorf("fault endpoint %q is unknown", f.Endpoint)
	}
	if f.Times < 0 || f.Skip < 0 {
		return fmt.Errorf("fault times and skip must not be negative")
	}
	switch f.Effect {
	case FaultItemCode:
		if f.Code == "" {
			return fmt.Errorf("fault %s needs a code", f.Effect)
		}
	case FaultRequestLevel:
		if f.Status < 400 || f.Status > 599 || f.Code == "" {
			return fmt.Errorf("fault %s needs a 4xx or 5xx status and a code", f.Effect)
		}
	case FaultLatency:
		if f.Delay <= 0 {
			return fmt.Errorf("fault %s needs a positive delay", f.Effect)
		}
	}
	return nil
}

// matchesItem reports whether the fault's Match selects the item.
func (f *Fault) matchesItem(it reqItem) bool {
	if f.Match == "" {
		return true
	}
	for _, v := range it.fields {
		if v == f.Match {
			return true
		}
	}
	return false
}

// takeFaults returns the faults acting on this call, counting the call against their lifetimes.
// The caller holds s.mu.
func (s *Server) takeFaults(ep *endpoint, items []reqItem) []*Fault {
	var acting []*Fault
	kept := s.faults[:0]
	for _, f := range s.faults {
		if f.Endpoint != "" && f.Endpoint != ep.path || !anyItem(f, items) {
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

func anyItem(f *Fault, items []reqItem) bool {
	if f.Match == "" {
		return true
	}
	for _, it := range items {
		if f.matchesItem(it) {
			return true
		}
	}
	return false
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

// firstFault returns the first acting fault with one of the effects, if any.
func firstFault(faults []*Fault, effects ...FaultEffect) *Fault {
	for _, f := range faults {
		for _, e := range effects {
			if f.Effect == e {
				return f
			}
		}
	}
	return nil
}
