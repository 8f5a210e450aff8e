package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A gate lets n requests in at once; the next waits for a slot, and gives up (with its context's
// error, which the error page turns into "try again") when its deadline passes first.
func TestGateBoundsAndWaits(t *testing.T) {
	g := newGate(1, 0, 0)
	entered, release := make(chan struct{}), make(chan struct{})
	holder := g.wrap(func(http.ResponseWriter, *http.Request) error {
		close(entered)
		<-release
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- holder(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/courses", nil)) }()
	<-entered

	ran := false
	second := g.wrap(func(http.ResponseWriter, *http.Request) error { ran = true; return nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // its deadline has passed while the slot is taken
	err := second(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/courses", nil).WithContext(ctx))
	if !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("while the only slot is taken: err %v, ran %v; want context.Canceled and not run", err, ran)
	}

	waited := make(chan error, 1)
	go func() { waited <- second(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/courses", nil)) }()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil || !ran {
		t.Fatalf("after the slot was freed: err %v, ran %v; want it run", err, ran)
	}
}

// The time a heavy page waited for its slot is not taken from its own work: once in, it has the
// gate's run time from then, within what the request had left.
func TestGateBoundsTheWorkFromTheSlot(t *testing.T) {
	g := newGate(1, time.Hour, 0)
	var deadline time.Time
	h := g.wrap(func(_ http.ResponseWriter, r *http.Request) error {
		deadline, _ = r.Context().Deadline()
		return nil
	})
	before := time.Now()
	if err := h(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/courses", nil)); err != nil {
		t.Fatal(err)
	}
	if deadline.Before(before.Add(time.Hour)) || deadline.After(time.Now().Add(time.Hour)) {
		t.Errorf("the page's deadline is %s, want an hour after it got its slot (%s)", deadline, before)
	}
}

func TestHeavySlotsAreAQuarterOfThePool(t *testing.T) {
	for pool, want := range map[int32]int{1: 1, 4: 1, 8: 2, 20: 5} {
		if got := heavySlots(pool); got != want {
			t.Errorf("heavySlots(%d) = %d, want %d", pool, got, want)
		}
	}
}

func TestHeavyPaths(t *testing.T) {
	for path, want := range map[string]bool{
		"/courses": true, "/courses/0b0e5c2e-9a51-4c43-a1a2-3c4d5e6f7a8b": true, "/overview": true,
		"/courses/0b0e5c2e-9a51-4c43-a1a2-3c4d5e6f7a8b/export.csv": false, "/courses/": false,
		"/": false, "/registrations/x": false, "/students": false, "/audit": false,
	} {
		if got := isHeavyPath(path); got != want {
			t.Errorf("isHeavyPath(%q) = %v, want %v", path, got, want)
		}
	}
}
