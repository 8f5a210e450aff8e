package schedule

import (
	"math"
	"math/rand/v2"
	"time"
)

// SubmitBaseBackoff is the first wait after a failed submit; it doubles with
// every further failure.
const SubmitBaseBackoff = 1 * time.Minute

// SubmitMaxBackoff caps the submit doubling so a long outage still gets a
// try every few hours.
const SubmitMaxBackoff = 6 * time.Hour

// SubmitMaxRetryAge is how long after first_failed_at a row keeps being
// retried; after it the row stops and becomes a support case.
const SubmitMaxRetryAge = 7 * 24 * time.Hour

// VerifyWindowStart is the age of a submission at its first verify poll.
// Registrations land between about 5 and 29 hours after the submission, most
// of them in the first half: polls start shortly before, are close together
// through the dense part, and back off after.
const VerifyWindowStart = 270 * time.Minute

// VerifyDenseWindowEnd is the age at which verify polls stop coming every
// VerifyWindowInterval, because most registrations have landed by then.
const VerifyDenseWindowEnd = 630 * time.Minute

// VerifyWindowEnd is the age at which hourly polls stop; later registrations
// are rare, so polls thin out from here.
const VerifyWindowEnd = 29 * time.Hour

// VerifyWindowInterval is the poll interval in the dense part of the landing
// window, and the wait when a row has no submission time to reason from.
const VerifyWindowInterval = 30 * time.Minute

// VerifyLateWindowInterval is the poll interval between VerifyDenseWindowEnd
// and VerifyWindowEnd.
const VerifyLateWindowInterval = 1 * time.Hour

// VerifyBaseBackoff is the shortest wait between polls after VerifyWindowEnd.
const VerifyBaseBackoff = 2 * time.Hour

// VerifyMaxBackoff is the longest wait between polls after VerifyWindowEnd.
const VerifyMaxBackoff = 6 * time.Hour

// VerifyMaxAge is how long after the submission verify keeps its schedule.
// After it polling drops to daily and a human looks. It is never a failure:
// the attainment may exist, and calling it failed would invite a second
// submission.
const VerifyMaxAge = 14 * 24 * time.Hour

// VerifyGiveUpPoll is the poll interval after VerifyMaxAge.
const VerifyGiveUpPoll = 24 * time.Hour

// JitterMax is the most NextAttemptAt adds to a delay, so that a batch that
// failed together does not come back together.
const JitterMax = 30 * time.Second

// UncertainRecheck is the base of the wait before looking for an attainment
// we may or may not have created; it doubles after every fruitless look.
const UncertainRecheck = 15 * time.Minute

// UncertainMaxRecheck caps the uncertain doubling.
const UncertainMaxRecheck = 6 * time.Hour

// UncertainAdminAfter is how long after the submission an uncertain row is
// handed to a human to look in Sisu: well past the hour an attainment may take
// to show up. The row still never resubmits.
const UncertainAdminAfter = 24 * time.Hour

// SuotarPendingWindow is Suotar's PENDING_WINDOW_MS: how long it holds a
// submission it has not yet seen in Sisu as pending. Within it, a second
// import of the same completion can slip past Suotar's duplicate check, so a
// person may not resubmit an uncertain row before it has passed.
const SuotarPendingWindow = 24 * time.Hour

// PartialRegistrationAdminAfter is how long verify may see only the
// assessment item attainment before a human looks.
const PartialRegistrationAdminAfter = 3 * 24 * time.Hour

// NotRegisteredReimportAdminThreshold is how many times Suotar may lose a
// submission (notRegistered) before a human looks. Each one still resubmits.
const NotRegisteredReimportAdminThreshold = 3

// ImportRequestTimeout is the worker's timeout for an import_attainments
// call; SubmittingRecoveryGrace is derived from it.
const ImportRequestTimeout = 60 * time.Minute

// ResolveRequestTimeout is the worker's timeout for a resolve_enrolments
// call; ResolvingRecoveryGrace is derived from it.
const ResolveRequestTimeout = 20 * time.Minute

// SubmittingRecoveryGrace is how long a row may stay submitting before it is
// taken to belong to a worker that died mid-call. It is above the import
// timeout, so a live request is never condemned to submission_uncertain.
const SubmittingRecoveryGrace = ImportRequestTimeout + 15*time.Minute

// ResolvingRecoveryGrace is how long a row may stay resolving_enrolment
// before it is taken to belong to a worker that died mid-call and goes back to
// ready_to_submit; a parked row's claimed check expires after as long. It is
// above the resolve timeout, and restarted before each resent half of a split
// batch, so a live answer still lands.
const ResolvingRecoveryGrace = ResolveRequestTimeout + 10*time.Minute

// jitterChoices is the number of whole seconds NextAttemptAt picks from:
// 0 through JitterMax, both ends included, as the pipeline does.
const jitterChoices = int64(JitterMax/time.Second) + 1

// SubmitBackoff is the wait before the next submit after retryCount failed
// ones: SubmitBaseBackoff doubled retryCount times, capped at
// SubmitMaxBackoff. A negative count counts as 0, and no count overflows.
func SubmitBackoff(retryCount int32) time.Duration {
	return doubling(SubmitBaseBackoff, SubmitMaxBackoff, retryCount)
}

// UncertainRecheckDelay is the wait before the next look for an uncertain
// submission. lookupCount counts the look just made, so the wait after the
// first one is already doubled.
func UncertainRecheckDelay(lookupCount int32) time.Duration {
	return doubling(UncertainRecheck, UncertainMaxRecheck, lookupCount)
}

// VerifyDelay is the wait from now until the next verify poll of a row
// submitted at submittedAt (nil: VerifyWindowInterval). It is timed from the
// submission rather than by counting polls, so a resumed or delayed row still
// polls at the times registrations land. Unlike the doublings it keeps
// sub-second precision, as the seed does; a submission time in the future
// gives a wait longer than VerifyWindowStart, saturating at the longest
// time.Duration.
func VerifyDelay(submittedAt *time.Time, now time.Time) time.Duration {
	if submittedAt == nil {
		return VerifyWindowInterval
	}
	age := now.Sub(*submittedAt)
	switch {
	case age < VerifyWindowStart:
		return saturatingSub(VerifyWindowStart, age)
	case age < VerifyDenseWindowEnd:
		return VerifyWindowInterval
	case age < VerifyWindowEnd:
		return VerifyLateWindowInterval
	default:
		// Grows with the time past the window, so polls thin out until the cap.
		return min(max(age-VerifyWindowEnd, VerifyBaseBackoff), VerifyMaxBackoff)
	}
}

// NextAttemptAt is when a row that must wait delay from now may next be
// claimed: now plus the delay's whole seconds plus a uniform random whole
// number of seconds in 0..JitterMax, both ends included. The jitter spreads a
// batch that failed together so it does not come back as one thundering
// herd; it only ever adds. Like the pipeline, it drops the delay's sub-second
// part (truncating toward zero), so the result can be up to a second before
// now+delay when delay is not whole seconds, as VerifyDelay's can be.
func NextAttemptAt(now time.Time, delay time.Duration) time.Time {
	return nextAttemptAt(now, delay, rand.Int64N(jitterChoices))
}

// NextAttemptAtRand is NextAttemptAt drawing its jitter from r, so tests and
// the demo-data generator can reproduce a schedule from a seed. It takes a
// source rather than a jitter value so a caller cannot pick a jitter the
// pipeline never would.
func NextAttemptAtRand(now time.Time, delay time.Duration, r *rand.Rand) time.Time {
	return nextAttemptAt(now, delay, r.Int64N(jitterChoices))
}

func nextAttemptAt(now time.Time, delay time.Duration, jitterSecs int64) time.Time {
	// Two Adds instead of one sum: delay plus jitter could overflow a
	// Duration, where the seed's saturating_add on seconds cannot.
	return now.Add(delay - delay%time.Second).Add(time.Duration(jitterSecs) * time.Second)
}

// SubmitWindowExpired reports whether a row that first failed at
// firstFailedAt has been retried for SubmitMaxRetryAge. A row that never
// failed (nil) never expires.
func SubmitWindowExpired(firstFailedAt *time.Time, now time.Time) bool {
	return windowExpired(firstFailedAt, now, SubmitMaxRetryAge)
}

// VerifyWindowExpired reports whether a row submitted at submittedAt has been
// waiting for verification for VerifyMaxAge. A row never submitted (nil)
// never expires.
func VerifyWindowExpired(submittedAt *time.Time, now time.Time) bool {
	return windowExpired(submittedAt, now, VerifyMaxAge)
}

// UncertainNeedsAdmin reports whether an uncertain submission made at
// submittedAt has waited UncertainAdminAfter and goes to a human; never
// without a submission time.
func UncertainNeedsAdmin(submittedAt *time.Time, now time.Time) bool {
	return windowExpired(submittedAt, now, UncertainAdminAfter)
}

// windowExpired is headless_lms_utils::backoff::window_expired: the age in
// whole seconds, truncated toward zero, has reached maxAge. For a maxAge of
// whole seconds that is exactly now >= *reference + maxAge, even when the
// reference has a sub-second part, which is what lets Classify say when a
// window will expire. A reference in the future is never expired.
func windowExpired(reference *time.Time, now time.Time, maxAge time.Duration) bool {
	if reference == nil {
		return false
	}
	return expiredAfter(now.Sub(*reference), maxAge)
}

// expiredAfter is windowExpired for a reference age ago.
func expiredAfter(age, maxAge time.Duration) bool {
	return int64(age/time.Second) >= int64(maxAge/time.Second)
}

// doubling works in whole seconds, as the seed does with num_seconds.
func doubling(base, maxDelay time.Duration, count int32) time.Duration {
	secs := exponentialBackoffSecs(int64(base/time.Second), int64(maxDelay/time.Second), count)
	return time.Duration(secs) * time.Second
}

// exponentialBackoffSecs is headless_lms_utils::backoff::exponential_backoff_secs:
// base doubled attempt times (attempt clamped to 0..62), saturating instead of
// overflowing, then capped at maxSecs. There is no lower clamp.
func exponentialBackoffSecs(baseSecs, maxSecs int64, attempt int32) int64 {
	shift := min(max(attempt, 0), 62)
	return min(saturatingMul(baseSecs, int64(1)<<shift), maxSecs)
}

// saturatingMul is i64::saturating_mul for a positive factor.
func saturatingMul(a, factor int64) int64 {
	switch {
	case a > math.MaxInt64/factor:
		return math.MaxInt64
	case a < math.MinInt64/factor:
		return math.MinInt64
	default:
		return a * factor
	}
}

// saturatingSub is a-b clamped to the Duration range, for VerifyDelay's
// future submission times, where the seed's wider TimeDelta does not overflow.
func saturatingSub(a, b time.Duration) time.Duration {
	d := a - b
	switch {
	case b < 0 && d < a:
		return math.MaxInt64
	case b > 0 && d > a:
		return math.MinInt64
	default:
		return d
	}
}
