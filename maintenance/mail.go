package maintenance

import (
	"cmp"
	"context"
	"time"

	"regdesk/alerting"
)

// Mail sends the outbox's due mails (alerting.Service.SendDue). Any instance may run it: each
// mail is claimed from its row with FOR UPDATE SKIP LOCKED, so two instances never send one mail
// twice, and a mail whose sending failed waits its backoff in its row.
type Mail struct {
	Service *alerting.Service
	// Every is how often a round runs; DefaultMailEvery when 0.
	Every time.Duration
}

// DefaultMailEvery is how often the outbox is read: a critical alert's mail leaves within it.
const DefaultMailEvery = 15 * time.Second

// Name is the job's name in logs.
func (j *Mail) Name() string { return "mail" }

// Interval is how long the runner waits between rounds.
func (j *Mail) Interval() time.Duration { return cmp.Or(j.Every, DefaultMailEvery) }

// RunOnce sends what is due.
func (j *Mail) RunOnce(ctx context.Context) error {
	_, err := j.Service.SendDue(ctx)
	return err
}
