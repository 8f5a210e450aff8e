package maintenance

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"regdesk/store"
)

// Rollups keeps the overview's history: the day's snapshot of the needs-a-person pile
// (store.AttentionSnapshotTake), the course modules' finished weeks (store.CourseWeeksRoll) and the
// registered rows' finished days (store.RegisteredDaysRoll). Every instance may run it: each
// writes a day or a week only once, whoever comes first (ON CONFLICT DO NOTHING), so a second
// instance's round writes nothing.
type Rollups struct {
	Store *store.Store
	Log   *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Every is how often a round runs; DefaultRollupsEvery when 0.
	Every time.Duration
}

// DefaultRollupsEvery is how often the rollups look for a day or a week to write: a new Helsinki
// day's snapshot is taken within it.
const DefaultRollupsEvery = 10 * time.Minute

// Name is the job's name in logs.
func (j *Rollups) Name() string { return "overview rollups" }

// Interval is how long the runner waits between rounds.
func (j *Rollups) Interval() time.Duration { return cmp.Or(j.Every, DefaultRollupsEvery) }

func (j *Rollups) now() time.Time {
	if j.Now != nil {
		return j.Now().UTC().Truncate(time.Microsecond)
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

// RunOnce writes what is due of the three, each bounded on its own; one failing does not stop
// the others.
func (j *Rollups) RunOnce(ctx context.Context) error {
	log := j.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	wrote, snapErr := j.Store.AttentionSnapshotTake(sctx, j.now())
	cancel()
	if wrote {
		log.Info("daily snapshot of the needs-a-person pile taken")
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	weeks, weeksErr := j.Store.CourseWeeksRoll(rctx, j.now())
	cancel()
	if weeks > 0 {
		log.Info("course modules' weeks counted", "weeks", weeks)
	}
	rctx, cancel = context.WithTimeout(ctx, 10*time.Minute)
	days, daysErr := j.Store.RegisteredDaysRoll(rctx, j.now())
	cancel()
	if days > 0 {
		log.Info("registered rows' days counted", "days", days)
	}
	return errors.Join(snapErr, weeksErr, daysErr)
}
