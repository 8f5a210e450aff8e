package web

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"regdesk/store"
)

func TestCountsCacheSharesOneCountPerScopeAndTTL(t *testing.T) {
	t.Parallel()
	c := newCountsShare(10*time.Second, time.Minute)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var loads atomic.Int32
	load := func(_ context.Context, at time.Time) (store.RegistrationCounts, error) {
		n := loads.Add(1)
		time.Sleep(20 * time.Millisecond) // long enough for the others to arrive while it runs
		return store.RegistrationCounts{NeedsAdmin: int64(n)}, nil
	}
	ctx := context.Background()

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, at, err := c.get(ctx, scopeKey(store.AllCourses()), t0, load)
			if err != nil || got.NeedsAdmin != 1 || !at.Equal(t0) {
				t.Errorf("concurrent get = %+v at %v, %v; want the one count made at %v", got, at, err, t0)
			}
		})
	}
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Fatalf("eight concurrent gets counted %d times, want once", n)
	}

	if got, _, _ := c.get(ctx, scopeKey(store.AllCourses()), t0.Add(9*time.Second), load); got.NeedsAdmin != 1 || loads.Load() != 1 {
		t.Errorf("within the ttl: counted again (loads %d)", loads.Load())
	}
	// At the ttl the last count is served at once, with its own instant, while a fresh one runs.
	if got, at, _ := c.get(ctx, scopeKey(store.AllCourses()), t0.Add(10*time.Second), load); got.NeedsAdmin != 1 || !at.Equal(t0) {
		t.Errorf("at the ttl: got %+v at %v, want the last count (of %v) while a fresh one runs", got, at, t0)
	}
	c.settle(scopeKey(store.AllCourses()))
	if got, at, _ := c.get(ctx, scopeKey(store.AllCourses()), t0.Add(10*time.Second+time.Millisecond), load); got.NeedsAdmin != 2 || !at.Equal(t0.Add(10*time.Second)) {
		t.Errorf("after the recount: got %+v at %v, want the fresh count", got, at)
	}
	if got, _, _ := c.get(ctx, scopeKey(store.CoursesOnly([]string{"b", "a"})), t0.Add(10*time.Second), load); got.NeedsAdmin != 3 {
		t.Errorf("another scope shared a count: %+v", got)
	}
	if got, _, _ := c.get(ctx, scopeKey(store.CoursesOnly([]string{"a", "b"})), t0.Add(11*time.Second), load); got.NeedsAdmin != 3 {
		t.Errorf("the same courses in another order did not share the count: %+v", got)
	}
	if scopeKey(store.Scope{}) == scopeKey(store.AllCourses()) || scopeKey(store.CoursesOnly(nil)) == scopeKey(store.AllCourses()) {
		t.Errorf("no course shares every course's key %q", scopeKey(store.AllCourses()))
	}
}

// A count older than countsStaleFor ttls is not served while the fresh one runs: the request waits.
func TestCountsCacheWaitsWhenTheLastCountIsTooOld(t *testing.T) {
	t.Parallel()
	c := newCountsShare(10*time.Second, time.Minute)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var loads atomic.Int32
	load := func(context.Context, time.Time) (store.RegistrationCounts, error) {
		return store.RegistrationCounts{NeedsAdmin: int64(loads.Add(1))}, nil
	}
	ctx := context.Background()
	if got, _, _ := c.get(ctx, scopeKey(store.AllCourses()), t0, load); got.NeedsAdmin != 1 {
		t.Fatalf("first count = %+v", got)
	}
	late := t0.Add(countsStaleFor * 10 * time.Second)
	if got, at, _ := c.get(ctx, scopeKey(store.AllCourses()), late, load); got.NeedsAdmin != 2 || !at.Equal(late) {
		t.Errorf("%d ttls later: got %+v at %v, want a fresh count waited for", countsStaleFor, got, at)
	}
	// A failed recount keeps the last good one to serve while the next runs.
	failing := func(context.Context, time.Time) (store.RegistrationCounts, error) {
		return store.RegistrationCounts{}, context.DeadlineExceeded
	}
	if got, at, err := c.get(ctx, scopeKey(store.AllCourses()), late.Add(10*time.Second), failing); err != nil || got.NeedsAdmin != 2 || !at.Equal(late) {
		t.Errorf("while a recount runs: %+v at %v, %v; want the last good count", got, at, err)
	}
	c.settle(scopeKey(store.AllCourses()))
	if got, at, err := c.get(ctx, scopeKey(store.AllCourses()), late.Add(11*time.Second), load); err != nil || got.NeedsAdmin != 2 || !at.Equal(late) {
		t.Errorf("after a failed recount: %+v at %v, %v; want the last good count while the next runs", got, at, err)
	}
}

func TestCountsCacheKeepsNoFailure(t *testing.T) {
	t.Parallel()
	c := newCountsShare(time.Minute, time.Minute)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	fail := true
	load := func(context.Context, time.Time) (store.RegistrationCounts, error) {
		if fail {
			return store.RegistrationCounts{}, context.DeadlineExceeded
		}
		return store.RegistrationCounts{NeedsAdmin: 7}, nil
	}
	if _, _, err := c.get(context.Background(), scopeKey(store.AllCourses()), t0, load); err == nil {
		t.Fatal("the failing count returned no error")
	}
	fail = false
	if got, _, err := c.get(context.Background(), scopeKey(store.AllCourses()), t0.Add(time.Second), load); err != nil || got.NeedsAdmin != 7 {
		t.Errorf("after a failure: %+v, %v; want a fresh count", got, err)
	}
}

// The count is shared, so it must not die with the request that happened to start it: a browser
// that gives up mid-count used to turn every waiting request into a 500 ("context canceled").
func TestCountsCacheOutlivesTheFirstRequester(t *testing.T) {
	t.Parallel()
	c := newCountsShare(10*time.Second, time.Minute)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	started, release := make(chan struct{}), make(chan struct{})
	var loads atomic.Int32
	load := func(ctx context.Context, _ time.Time) (store.RegistrationCounts, error) {
		if loads.Add(1) == 1 {
			close(started)
		}
		select {
		case <-release:
			return store.RegistrationCounts{NeedsAdmin: 42}, nil
		case <-ctx.Done():
			return store.RegistrationCounts{}, ctx.Err()
		}
	}

	first, cancelFirst := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	go func() {
		_, _, err := c.get(first, scopeKey(store.AllCourses()), t0, load)
		firstErr <- err
	}()
	<-started
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, _, err := c.get(context.Background(), scopeKey(store.AllCourses()), t0, load)
			if err != nil || got.NeedsAdmin != 42 {
				t.Errorf("a waiter got %+v, %v after the first requester left; want the shared count", got, err)
			}
		})
	}
	cancelFirst()
	if err := <-firstErr; err == nil {
		t.Error("the cancelled first requester got no error")
	}
	time.Sleep(10 * time.Millisecond) // the count would see a cancellation by now, were it the first requester's
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("counted %d times, want once", n)
	}
}

func TestCountsCacheBoundsTheSharedCount(t *testing.T) {
	t.Parallel()
	c := newCountsShare(10*time.Second, 20*time.Millisecond)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	load := func(ctx context.Context, _ time.Time) (store.RegistrationCounts, error) {
		<-ctx.Done() // a count that would never end
		return store.RegistrationCounts{}, ctx.Err()
	}
	if _, _, err := c.get(context.Background(), scopeKey(store.AllCourses()), t0, load); err == nil {
		t.Fatal("a count that never ends returned no error")
	}
}

// settle waits for key's running reading, if any, to end; tests use it to see a refresh land.
func (c *shared[T]) settle(key string) {
	c.mu.Lock()
	e := c.current[key]
	c.mu.Unlock()
	if e != nil {
		<-e.done
	}
}

// A banner's reading never holds a page but the very first: while one page reads, the others
// show the last reading however old, or none at all before the first; a failed read stands until
// its ttl passes (the last good value served with the error), so a database in trouble is not
// asked by every page; and expire makes the next page read again.
func TestBannerShareNeverHoldsAPage(t *testing.T) {
	t.Parallel()
	c := newBannerShare[int](10*time.Second, time.Minute)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	ctx := context.Background()
	release := make(chan struct{})
	var loads atomic.Int32
	slow := func(context.Context, time.Time) (int, error) {
		n := loads.Add(1)
		<-release
		return int(n), nil
	}
	first := make(chan int, 1)
	go func() {
		v, _, _ := c.get(ctx, "", t0, slow)
		first <- v
	}()
	for loads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if v, at, err := c.get(ctx, "", t0, slow); v != 0 || !at.IsZero() || err != nil {
		t.Errorf("a page during the first reading got %d at %v (%v), want no banner at once", v, at, err)
	}
	close(release)
	if v := <-first; v != 1 {
		t.Errorf("the page that started the reading got %d, want its reading", v)
	}
	// An hour later, while the next reading runs, the old one is served at once.
	release = make(chan struct{})
	late := t0.Add(time.Hour)
	go c.get(ctx, "", late, slow)
	for loads.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if v, at, _ := c.get(ctx, "", late, slow); v != 1 || !at.Equal(t0) {
		t.Errorf("during a later reading a page got %d at %v, want the last one (1 at %v)", v, at, t0)
	}
	close(release)
	c.settle("")

	failing := func(context.Context, time.Time) (int, error) {
		loads.Add(1)
		return 0, context.DeadlineExceeded
	}
	later := late.Add(time.Hour)
	if v, _, _ := c.get(ctx, "", later, failing); v != 2 {
		t.Errorf("a page starting a read got %d, want the last reading at once", v)
	}
	c.settle("")
	before := loads.Load()
	if v, _, err := c.get(ctx, "", later.Add(time.Second), failing); err == nil || v != 2 || loads.Load() != before {
		t.Errorf("within the ttl of a failure: %d, %v, %d reads; want the last good value with the error, not read again", v, err, loads.Load()-before)
	}
	c.expire("")
	ok := func(context.Context, time.Time) (int, error) { return 9, nil }
	if v, _, err := c.get(ctx, "", later.Add(2*time.Second), ok); err != nil || v != 9 {
		t.Errorf("after expire: %d, %v; want the fresh reading, waited for", v, err)
	}
}
