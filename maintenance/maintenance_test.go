package maintenance_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"regdesk/maintenance"
)

// countJob counts its rounds and fails every other one.
type countJob struct {
	rounds atomic.Int32
	every  time.Duration
}

func (j *countJob) Name() string            { return "count" }
func (j *countJob) Interval() time.Duration { return j.every }
func (j *countJob) RunOnce(ctx context.Context) error {
	if j.rounds.Add(1)%2 == 0 {
		return errors.New("every other round fails")
	}
	return nil
}

// The runner runs each job's first round at once, the next ones after its interval whether the
// last failed or not, and Stop waits for the rounds to end; after Stop no round runs.
func TestRunnerRunsEveryJobUntilStopped(t *testing.T) {
	t.Parallel()
	fast, slow := &countJob{every: 5 * time.Millisecond}, &countJob{every: time.Hour}
	r := &maintenance.Runner{Jobs: []maintenance.Job{fast, slow}}
	r.Start(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for fast.rounds.Load() < 4 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	r.Stop()
	if n := fast.rounds.Load(); n < 4 {
		t.Errorf("the fast job ran %d rounds in 5 s, want at least 4 (a failed round must not stop it)", n)
	}
	if n := slow.rounds.Load(); n != 1 {
		t.Errorf("the hourly job ran %d rounds, want its first one only", n)
	}
	after := fast.rounds.Load()
	time.Sleep(30 * time.Millisecond)
	if n := fast.rounds.Load(); n != after {
		t.Errorf("a round ran after Stop (%d, then %d)", after, n)
	}
}
