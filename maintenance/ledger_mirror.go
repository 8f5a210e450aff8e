package maintenance

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"regdesk/store"
)

// LedgerMirror keeps regdesk's copy of the LMS's ledger (store's ledger_mirror) fresh: every
// round copies the rows written since the last (store.LedgerMirrorRefresh), as many batches as it
// takes, and every SweepEvery one round compares every row instead (store.LedgerMirrorSweep), which
// catches a write whose transaction ran longer than the lookback, rows the LMS deleted, and the
// pending rows whose rank moved with their preconditions. One instance copies at a time: the store
// takes an advisory lock, and a round that finds it taken does nothing.
type LedgerMirror struct {
	Store *store.Store
	Log   *slog.Logger
	// Every is how often a round runs; DefaultMirrorEvery when 0.
	Every time.Duration
	// SweepEvery is how often a round compares every row; DefaultMirrorSweepEvery when 0.
	SweepEvery time.Duration
	// Now is the clock the sweep's schedule reads; nil is time.Now.
	Now func() time.Time

	lastSweep time.Time
}

// The mirror job's defaults.
const (
	DefaultMirrorEvery      = 2 * time.Second
	DefaultMirrorSweepEvery = 10 * time.Minute
)

// Name is the job's name in logs.
func (j *LedgerMirror) Name() string { return "ledger mirror" }

// Interval is how long the runner waits between rounds.
func (j *LedgerMirror) Interval() time.Duration { return cmp.Or(j.Every, DefaultMirrorEvery) }

// RunOnce copies what changed, sweeping when a sweep is due.
func (j *LedgerMirror) RunOnce(ctx context.Context) error {
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	if j.lastSweep.IsZero() || now().Sub(j.lastSweep) >= cmp.Or(j.SweepEvery, DefaultMirrorSweepEvery) {
		res, err := j.Store.LedgerMirrorSweep(ctx)
		if err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		if !res.Skipped {
			j.lastSweep = now()
			if res.Copied > 0 && j.Log != nil {
				j.Log.Info("ledger copy swept", "rows", res.Copied)
			}
		}
		return nil
	}
	for {
		res, err := j.Store.LedgerMirrorRefresh(ctx)
		if err != nil {
			return fmt.Errorf("refresh: %w", err)
		}
		if !res.More || ctx.Err() != nil {
			return nil
		}
	}
}
