package demo

import (
	"time"

	"regdesk/schedule"
)

// The pipeline's timing, from the schedule package so generated rows are timed exactly as the
// worker would time them, and a few constants of the LMS that schedule has no use for.
const (
	submitBaseBackoff    = schedule.SubmitBaseBackoff
	verifyWindowInterval = schedule.VerifyWindowInterval
	verifyMaxAge         = schedule.VerifyMaxAge
	verifyGiveUpPoll     = schedule.VerifyGiveUpPoll
	uncertainRecheck     = schedule.UncertainRecheck
	uncertainAdminAfter  = schedule.UncertainAdminAfter
	suotarPendingWindow  = schedule.SuotarPendingWindow
	partialAdminAfter    = schedule.PartialRegistrationAdminAfter
	reimportAdminAt      = schedule.NotRegisteredReimportAdminThreshold
	submitMaxRetryAge    = schedule.SubmitMaxRetryAge

	// registryLag is REGISTRY_LAG: the default wait of a row parked for an enrolment.
	registryLag = time.Hour
)

func submitBackoff(n int32) time.Duration { return schedule.SubmitBackoff(n) }

func uncertainRecheckDelay(n int32) time.Duration { return schedule.UncertainRecheckDelay(n) }

func verifyDelay(submittedAt, now time.Time) time.Duration {
	if submittedAt.IsZero() {
		return schedule.VerifyDelay(nil, now)
	}
	return schedule.VerifyDelay(&submittedAt, now)
}

// after is next_attempt_at for a wait of delay from now, with the pipeline's jitter drawn from
// the generator's own source.
func (l *life) after(now time.Time, delay time.Duration) time.Time {
	return schedule.NextAttemptAtRand(now, delay, l.g.rng.r)
}
