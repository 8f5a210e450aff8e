// Package maintenance is the home of regdesk's work outside a request: each job is one file, with
// a config that has defaults and a RunOnce that does one round and says what it did, and the
// Runner starts them on their intervals and stops them together. cmd/regdesk lists the jobs a
// server runs in one place. A job that must run on one instance at a time says how it ensures it.
package maintenance

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Job is one kind of background work.
type Job interface {
	// Name names the job in logs.
	Name() string
	// Interval is how long the runner waits between rounds.
	Interval() time.Duration
	// RunOnce does one round. Its error is logged; the next round runs all the same.
	RunOnce(ctx context.Context) error
}

// Waker is a job a request can start before its interval is up: the runner also runs a round
// whenever Wake's channel has a value (BulkApply, whose person watches the job's page).
type Waker interface {
	Wake() <-chan struct{}
}

// Runner runs jobs, each on its own goroutine, until Stop.
type Runner struct {
	Log  *slog.Logger
	Jobs []Job

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start runs every job's first round at once and the next after each interval, until Stop or the
// context ends.
func (r *Runner) Start(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	log := r.Log
	if log == nil {
		log = slog.Default()
	}
	for _, j := range r.Jobs {
		var wake <-chan struct{}
		if w, ok := j.(Waker); ok {
			wake = w.Wake()
		}
		r.wg.Go(func() {
			t := time.NewTimer(0)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				case <-wake:
				}
				if err := j.RunOnce(ctx); err != nil && ctx.Err() == nil {
					log.Warn("background job", "job", j.Name(), "err", err)
				}
				t.Reset(j.Interval())
			}
		})
	}
}

// Stop ends every job and waits for their rounds to finish.
func (r *Runner) Stop() {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
}
