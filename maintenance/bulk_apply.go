package maintenance

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"regdesk/handaction"
	"regdesk/store"
)

// BulkApply runs the bulk applies a request queued (store.BulkJobCreate): a hand action on more
// rows than a request answers for at once. Any instance may run it: each job is claimed from its
// row with FOR UPDATE SKIP LOCKED, so two instances never run one job, and whichever claims next
// ends a job whose instance stopped mid-way as interrupted rather than running it twice
// (store.BulkJobClaim). While a job runs its row carries a heartbeat, which its page reads.
type BulkApply struct {
	Store   *store.Store
	Actions *handaction.Service
	Now     func() time.Time
	Log     *slog.Logger
	// Every is how often a round looks for queued jobs; DefaultBulkApplyEvery when 0.
	Every time.Duration
	// Beat is how often a running job records that it is alive; DefaultBulkApplyBeat when 0.
	Beat time.Duration

	wakeOnce sync.Once
	wake     chan struct{}
}

// DefaultBulkApplyEvery is how long a queued job may wait for its instance.
const DefaultBulkApplyEvery = time.Second

// DefaultBulkApplyBeat is how often a running job's heartbeat is written: well inside
// store.BulkJobStale.
const DefaultBulkApplyBeat = time.Second

// Name is the job's name in logs.
func (j *BulkApply) Name() string { return "bulk apply" }

// Interval is how long the runner waits between rounds.
func (j *BulkApply) Interval() time.Duration { return cmp.Or(j.Every, DefaultBulkApplyEvery) }

// Wake is the runner's signal that this instance queued a job (Queued).
func (j *BulkApply) Wake() <-chan struct{} { return j.wakeChan() }

func (j *BulkApply) wakeChan() chan struct{} {
	j.wakeOnce.Do(func() { j.wake = make(chan struct{}, 1) })
	return j.wake
}

// Queued tells the job that this instance queued a bulk apply, so its runner starts a round now
// instead of at its next interval. It never blocks: a round already due takes the job up.
func (j *BulkApply) Queued() {
	select {
	case j.wakeChan() <- struct{}{}:
	default:
	}
}

// RunOnce claims and runs queued jobs, one after another, until none waits; it returns how many
// it ran. A job whose apply failed is recorded as failed, which its page says; that is no error
// of the round.
func (j *BulkApply) RunOnce(ctx context.Context) error {
	_, err := j.RunQueued(ctx)
	return err
}

// RunQueued is RunOnce, saying how many jobs it ran.
func (j *BulkApply) RunQueued(ctx context.Context) (int, error) {
	ran := 0
	for ctx.Err() == nil {
		p, ok, err := j.Store.BulkJobClaim(ctx, j.now())
		if err != nil || !ok {
			return ran, err
		}
		j.run(ctx, p)
		ran++
	}
	return ran, ctx.Err()
}

// run applies one claimed job, beating its heartbeat until the apply returns. The apply outlives
// a stopping runner's context: it is one hand action a person asked for, and its record must say
// what the LMS did.
func (j *BulkApply) run(ctx context.Context, p store.BulkApplyParams) {
	ctx = context.WithoutCancel(ctx)
	stop := make(chan struct{})
	var beating sync.WaitGroup
	beating.Go(func() {
		t := time.NewTicker(cmp.Or(j.Beat, DefaultBulkApplyBeat))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if err := j.Store.BulkJobBeat(ctx, p.JobID, 0, j.now()); err != nil {
				j.log().Warn("bulk job heartbeat", "err", err, "job", p.JobID)
			}
		}
	})
	_, err := j.Actions.ApplyBulk(ctx, j.now(), p)
	close(stop)
	beating.Wait()
	if err != nil {
		j.log().Error("bulk apply failed", "err", err, "job", p.JobID)
		if err := j.Store.BulkJobFail(ctx, p.JobID, j.now()); err != nil {
			j.log().Error("bulk job not marked failed", "err", err, "job", p.JobID)
		}
	}
}

// now is the job's clock as a request's is (web's Server.clock): UTC, whole microseconds, as the
// database keeps instants.
func (j *BulkApply) now() time.Time {
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	return now().UTC().Truncate(time.Microsecond)
}

func (j *BulkApply) log() *slog.Logger {
	if j.Log == nil {
		return slog.Default()
	}
	return j.Log
}
