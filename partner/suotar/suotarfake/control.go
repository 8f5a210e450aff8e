package suotarfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// The control API, under /control/ with the same bearer token:
//
//	GET    /control/world                            the world, unscrubbed, with due attainments in it
//	PUT    /control/world                            replace the world
//	GET    /control/clock                            {"now", "scale"}
//	POST   /control/clock/advance   {"by":"2h"}      move fake time forward
//	POST   /control/submissions/{id}/ripen           the course unit attainment shows now
//	POST   /control/submissions/{id}/transition {"to":"registered|partial|misregistered|lost"}
//	GET    /control/faults                           the faults switched on
//	POST   /control/faults          Fault            switch one on; answers it with its id
//	DELETE /control/faults                           switch all off
//	DELETE /control/faults/{id}                      switch one off
//	GET    /control/calls                            the recorded calls
//	DELETE /control/calls                            forget them
func (s *Server) controlMux() *http.ServeMux {
	mux := http.NewServeMux()
	// GET /control/world returns the whole world, as a world file.
	mux.HandleFunc("GET /control/world", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.World())
	})
	// PUT /control/world replaces the world with the body.
	mux.HandleFunc("PUT /control/world", func(w http.ResponseWriter, r *http.Request) {
		var world World
		if !readJSON(w, r, &world) {
			return
		}
		if err := s.SetWorld(&world); err != nil {
			controlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, s.World())
	})
	// GET /control/clock returns fake time.
	mux.HandleFunc("GET /control/clock", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.clockState())
	})
	// POST /control/clock/advance moves fake time forward by "by".
	mux.HandleFunc("POST /control/clock/advance", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			By Duration `json:"by"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		if req.By <= 0 {
			controlError(w, http.StatusBadRequest, "by must be a positive duration such as \"90m\"")
			return
		}
		s.clock.Advance(time.Duration(req.By))
		writeJSON(w, http.StatusOK, s.clockState())
	})
	// POST /control/submissions/{id}/ripen makes the course unit attainment show now.
	mux.HandleFunc("POST /control/submissions/{id}/ripen", func(w http.ResponseWriter, r *http.Request) {
		sub, err := s.Ripen(r.PathValue("id"))
		if err != nil {
			controlError(w, statusOf(err), err.Error())
			return
		}
		writeJSON(w, http.StatusOK, sub)
	})
	// POST /control/submissions/{id}/transition moves a submission to an outcome now.
	mux.HandleFunc("POST /control/submissions/{id}/transition", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			To Transition `json:"to"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		sub, err := s.Transition(r.PathValue("id"), req.To)
		if err != nil {
			controlError(w, statusOf(err), err.Error())
			return
		}
		writeJSON(w, http.StatusOK, sub)
	})
	// GET /control/faults lists the faults switched on.
	mux.HandleFunc("GET /control/faults", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.Faults())
	})
	// POST /control/faults switches a fault on.
	mux.HandleFunc("POST /control/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Fault
		if !readJSON(w, r, &f) {
			return
		}
		id, err := s.AddFault(f)
		if err != nil {
			controlError(w, http.StatusBadRequest, err.Error())
			return
		}
		f.ID = id
		writeJSON(w, http.StatusCreated, f)
	})
	// DELETE /control/faults switches every fault off.
	mux.HandleFunc("DELETE /control/faults", func(w http.ResponseWriter, r *http.Request) {
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	})
	// DELETE /control/faults/{id} switches one fault off.
	mux.HandleFunc("DELETE /control/faults/{id}", func(w http.ResponseWriter, r *http.Request) {
		if !s.RemoveFault(r.PathValue("id")) {
			controlError(w, http.StatusNotFound, "no fault "+r.PathValue("id"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	// GET /control/calls lists the recorded calls.
	mux.HandleFunc("GET /control/calls", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.Calls())
	})
	// DELETE /control/calls forgets the recorded calls.
	mux.HandleFunc("DELETE /control/calls", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls = nil
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/control/", func(w http.ResponseWriter, r *http.Request) {
		controlError(w, http.StatusNotFound, "no control endpoint "+r.Method+" "+r.URL.Path)
	})
	return mux
}

func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		writeJSON(w, http.StatusUnauthorized, requestError("unauthorized", msgUnauthorized))
		return
	}
	s.control.ServeHTTP(w, r)
}

func (s *Server) clockState() map[string]any {
	return map[string]any{"now": DateTime{s.clock.Now()}, "scale": s.clock.Scale()}
}

func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		controlError(w, http.StatusBadRequest, "unreadable body: "+err.Error())
		return false
	}
	return true
}

func controlError(w http.ResponseWriter, status int, message string) {
	code := map[int]string{http.StatusNotFound: "notFound", http.StatusConflict: "conflict"}[status]
	writeJSON(w, status, requestError(orDefault(code, "badRequest"), message))
}

// Errors of the control operations.
var (
	// ErrNoSubmission: no submission has that id.
	ErrNoSubmission = errors.New("no such submission")
	// ErrNotInSisu: the submission never reached Sisu, so there is nothing to ripen.
	ErrNotInSisu = errors.New("the submission has no attainment in Sisu")
)

func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrNoSubmission):
		return http.StatusNotFound
	case errors.Is(err, ErrNotInSisu):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// Transition is an outcome the control API can force on a submission.
type Transition string

// The transitions, after the LMS mock's transitionSubmissionsFor.
const (
	// TransitionRegistered: Sisu shows both attainments now.
	TransitionRegistered Transition = "registered"
	// TransitionPartial: Sisu shows the assessment item attainment now and never builds the course
	// unit attainment by itself.
	TransitionPartial Transition = "partial"
	// TransitionMisregistered: both attainments shown now and marked misregistered.
	TransitionMisregistered Transition = "misregistered"
	// TransitionLost: Sisu and Suotar lose the submission; verify answers notRegistered.
	TransitionLost Transition = "lost"
)

// Ripen makes the submission's course unit attainment show now (and its assessment item
// attainment, if the importer had not shown it yet).
func (s *Server) Ripen(id string) (Submission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.settle(now)
	sub, ok := s.world.submission(id)
	if !ok {
		return Submission{}, fmt.Errorf("Ripen %s: %w", id, ErrNoSubmission)
	}
	ai := s.world.attainment(id)
	if ai == nil || sub.Lost {
		return Submission{}, fmt.Errorf("Ripen %s: %w", id, ErrNotInSisu)
	}
	s.showNow(ai, now)
	s.ensureCourseUnit(ai, now)
	return *sub, nil
}

// Transition forces an outcome on a submission now.
func (s *Server) Transition(id string, to Transition) (Submission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.settle(now)
	sub, ok := s.world.submission(id)
	if !ok {
		return Submission{}, fmt.Errorf("Transition %s: %w", id, ErrNoSubmission)
	}
	switch to {
	case TransitionRegistered, TransitionPartial, TransitionMisregistered:
		sub.Lost = false
		if sub.SendState != SendAccepted {
			sub.SendState = SendAccepted
		}
		ai := s.world.attainment(id)
		if ai == nil {
			s.world.Attainments = append(s.world.Attainments, sub.assessmentItemAttainment(now, now))
			ai = s.world.attainment(id)
		}
		s.showNow(ai, now)
		ai.Misregistration = to == TransitionMisregistered
		if to == TransitionPartial {
			sub.Manual = true
			s.removeCourseUnits(id)
			break
		}
		cu := s.ensureCourseUnit(ai, now)
		cu.Misregistration = to == TransitionMisregistered
	case TransitionLost:
		sub.Lost = true
		s.removeCourseUnits(id)
		s.world.Attainments = slices.DeleteFunc(s.world.Attainments, func(a Attainment) bool { return a.ID == id })
	default:
		return Submission{}, fmt.Errorf("Transition %s: unknown transition %q", id, to)
	}
	return *sub, nil
}

func (w *World) attainment(id string) *Attainment {
	for i := range w.Attainments {
		if w.Attainments[i].ID == id {
			return &w.Attainments[i]
		}
	}
	return nil
}

func (s *Server) showNow(a *Attainment, now time.Time) {
	if !a.VisibleAt.IsZero() && now.Before(a.VisibleAt.Time) {
		a.VisibleAt = DateTime{now}
	}
}

// ensureCourseUnit returns the course unit attainment built from ai, shown by now, creating it if
// Sisu has not built it yet.
func (s *Server) ensureCourseUnit(ai *Attainment, now time.Time) *Attainment {
	for i := range s.world.Attainments {
		a := &s.world.Attainments[i]
		if a.Type == TypeCourseUnit && len(a.AssessmentItemAttainmentIDs) == 1 && a.AssessmentItemAttainmentIDs[0] == ai.ID {
			s.showNow(a, now)
			return a
		}
	}
	s.world.Attainments = append(s.world.Attainments, courseUnitAttainment(ai, now))
	return &s.world.Attainments[len(s.world.Attainments)-1]
}

func (s *Server) removeCourseUnits(aiID string) {
	s.world.Attainments = slices.DeleteFunc(s.world.Attainments, func(a Attainment) bool {
		return a.Type == TypeCourseUnit && len(a.AssessmentItemAttainmentIDs) == 1 && a.AssessmentItemAttainmentIDs[0] == aiID
	})
}
