package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A gate lets n requests in at once; the next waits for a slot, and gives up (with its context's
// error, which the error page turns into "try again") when its deadline passes first.
func TestGateBoundsAndWaits(t *testing.T) {
	g := newGate(1)
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

func TestHeavySlotsAreAQuarterOfThePool(t *testing.T) {
	for pool, want := range map[int32]int{1: 1, 4: 1, 8: 2, 20: 5} {
		if got := heavySlots(pool); got != want {
			t.Errorf("heavySlots(%d) = %d, want %d", pool, got, want)
		}
	}
}
