package web

import (
	"context"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"
)

// passwordGate bounds the password hashing one instance does at once. A bcrypt check takes a
// core for a quarter of a second (store.DefaultPasswordCost), and nothing can interrupt it: forty
// sign-ins at once across two instances on two cores used to run forty checks side by side, each
// taking seconds, every request past its deadline, and /healthz, starved of the cores, said the
// database was down. With as many checks at once as there are cores, the others wait their turn,
// but only while a check begun then can still end within the request's deadline; otherwise the
// person is told that regdesk is busy (503), which is true, instead of a deadline's "the database
// is not answering", which is not.
type passwordGate struct {
	slots chan struct{}
	// took is how long checks take here lately (nanoseconds, a moving average): the time a check
	// must have left before its deadline to be started at all.
	took atomic.Int64
}

// passwordCheckGuess is how long a check is assumed to take before one has been timed: more than
// it takes on an idle server core, so the first checks of a burst are not started too late.
const passwordCheckGuess = time.Second

// afterPasswordCheck is the time a request needs after its check: record the attempt, renew and
// save the session, answer.
const afterPasswordCheck = 250 * time.Millisecond

// newPasswordGate lets n checks run at once; 0 is one per core (GOMAXPROCS).
func newPasswordGate(n int) *passwordGate {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	g := &passwordGate{slots: make(chan struct{}, n)}
	g.took.Store(int64(passwordCheckGuess))
	return g
}

// reserve is how long before its deadline a request stops waiting for a check: twice what a check
// takes lately, as the cores may be busier still when it runs, and the time to answer.
func (g *passwordGate) reserve() time.Duration {
	return 2*time.Duration(g.took.Load()) + afterPasswordCheck
}

// run runs check at once when a slot is free, else waits for one as long as a check begun then
// can still end within ctx's deadline; it reports whether check ran in time for the request to
// use it. A request that ran out of time is not the database's fault: the caller says regdesk is
// busy, and uses nothing check did.
func (g *passwordGate) run(ctx context.Context, check func()) bool {
	dl, bounded := ctx.Deadline()
	select {
	case g.slots <- struct{}{}:
	default:
		wait := ctx
		if bounded {
			var cancel context.CancelFunc
			wait, cancel = context.WithDeadline(ctx, dl.Add(-g.reserve()))
			defer cancel()
		}
		select {
		case g.slots <- struct{}{}:
		case <-wait.Done():
			return false
		}
		if wait.Err() != nil {
			<-g.slots
			return false // both were ready at once, and select chose the slot
		}
	}
	defer func() { <-g.slots }()
	start := time.Now()
	check()
	g.observe(time.Since(start))
	// A check that overran (the cores are shared with more than these checks) leaves the request
	// no time to finish: it is turned away as busy rather than failing on its deadline.
	return !bounded || time.Until(dl) >= afterPasswordCheck
}

// observe keeps took: at once the longest of a slower check, else easing towards faster ones.
func (g *passwordGate) observe(took time.Duration) {
	for {
		old := g.took.Load()
		next := max(int64(took), (3*old+int64(took))/4)
		if g.took.CompareAndSwap(old, next) {
			return
		}
	}
}

// passwordsBusyRetry is the Retry-After of a sign-in or password turned away as busy: a burst of
// sign-ins is over in seconds.
const passwordsBusyRetry = "2"

// setBusy marks an answer that turns a request away because regdesk is busy.
func setBusy(w http.ResponseWriter) { w.Header().Set("Retry-After", passwordsBusyRetry) }
