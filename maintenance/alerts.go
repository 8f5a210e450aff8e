package maintenance

import (
	"cmp"
	"context"
	"errors"
	"time"

	"regdesk/alerting"
	"regdesk/store"
)

// Alerts evaluates the alert rules (alerting.Service.Evaluate): counts, applies the rules, and
// writes the mails their changes and the digests call for into the outbox, which Mail sends. One
// instance evaluates at a time: (*store.Tx).AlertApply takes an advisory lock held to the commit,
// and a round that finds it taken (store.ErrBusy) does nothing.
type Alerts struct {
	Service *alerting.Service
	// Every is how often a round runs; DefaultAlertsEvery when 0 (ALERT_INTERVAL).
	Every time.Duration
}

// DefaultAlertsEvery is how often the alerts are evaluated by default.
const DefaultAlertsEvery = time.Minute

// Name is the job's name in logs.
func (j *Alerts) Name() string { return "alerts" }

// Interval is how long the runner waits between rounds.
func (j *Alerts) Interval() time.Duration { return cmp.Or(j.Every, DefaultAlertsEvery) }

// RunOnce evaluates the rules once.
func (j *Alerts) RunOnce(ctx context.Context) error {
	if err := j.Service.Evaluate(ctx); err != nil && !errors.Is(err, store.ErrBusy) {
		return err
	}
	return nil
}
