package schedule_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"regdesk/schedule"
)

// t0 is a fixed instant with no sub-second part; tests never read the clock.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

func ptr(t time.Time) *time.Time { return &t }

// The five tests below are the seed's own (backoff.rs), ported one to one.

func TestBackoffDoublesAndThenStopsGrowing(t *testing.T) {
	t.Parallel()

	tests := []struct {
		count int32
		want  time.Duration
	}{
		{0, schedule.SubmitBaseBackoff},
		{1, schedule.SubmitBaseBackoff * 2},
		{3, schedule.SubmitBaseBackoff * 8},
		{30, schedule.SubmitMaxBackoff},
		{math.MaxInt32, schedule.SubmitMaxBackoff},
	}
	for _, tc := range tests {
		if got := schedule.SubmitBackoff(tc.count); got != tc.want {
			t.Errorf("SubmitBackoff(%d) = %v, want %v", tc.count, got, tc.want)
		}
	}
}

func TestVerifyPollsFollowTheLandingWindowFromTheSubmission(t *testing.T) {
	t.Parallel()

	now := t0
	tests := []struct {
		age  time.Duration
		want time.Duration
	}{
		{0, schedule.VerifyWindowStart},
		{3 * time.Hour, 90 * time.Minute},
		{270 * time.Minute, schedule.VerifyWindowInterval},
		{10 * time.Hour, schedule.VerifyWindowInterval},
		{11 * time.Hour, schedule.VerifyLateWindowInterval},
		{28 * time.Hour, schedule.VerifyLateWindowInterval},
		{29 * time.Hour, schedule.VerifyBaseBackoff},
		{33 * time.Hour, schedule.VerifyBaseBackoff * 2},
		{5 * day, schedule.VerifyMaxBackoff},
	}
	for _, tc := range tests {
		if got := schedule.VerifyDelay(ptr(now.Add(-tc.age)), now); got != tc.want {
			t.Errorf("VerifyDelay(now-%v, now) = %v, want %v", tc.age, got, tc.want)
		}
	}
	if got, want := schedule.VerifyDelay(nil, now), schedule.VerifyWindowInterval; got != want {
		t.Errorf("VerifyDelay(nil, now) = %v, want %v", got, want)
	}
}

func TestTheRetryWindowRunsFromTheFirstFailure(t *testing.T) {
	t.Parallel()

	now := t0
	if schedule.SubmitWindowExpired(nil, now) {
		t.Error("SubmitWindowExpired(nil, now) = true, want false")
	}
	if schedule.SubmitWindowExpired(ptr(now.Add(-6*day)), now) {
		t.Error("SubmitWindowExpired(now-6d, now) = true, want false")
	}
	if !schedule.SubmitWindowExpired(ptr(now.Add(-8*day)), now) {
		t.Error("SubmitWindowExpired(now-8d, now) = false, want true")
	}
}

func TestTheVerifyWindowRunsFromTheSubmission(t *testing.T) {
	t.Parallel()

	now := t0
	if schedule.VerifyWindowExpired(nil, now) {
		t.Error("VerifyWindowExpired(nil, now) = true, want false")
	}
	if schedule.VerifyWindowExpired(ptr(now.Add(-13*day)), now) {
		t.Error("VerifyWindowExpired(now-13d, now) = true, want false")
	}
	if !schedule.VerifyWindowExpired(ptr(now.Add(-15*day)), now) {
		t.Error("VerifyWindowExpired(now-15d, now) = false, want true")
	}
}

func TestJitterNeverShortensABackoff(t *testing.T) {
	t.Parallel()

	now := t0
	for range 50 {
		scheduled := schedule.NextAttemptAt(now, time.Minute)
		if got := scheduled.Sub(now); got < time.Minute || got > time.Minute+schedule.JitterMax {
			t.Fatalf("NextAttemptAt(now, 1m) - now = %v, want within [1m, 1m30s]", got)
		}
	}
}

// TestConstants pins every constant to the seed's value, so a slip in one
// shows up here rather than as a row polled at the wrong time.
func TestConstants(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"SubmitBaseBackoff", schedule.SubmitBaseBackoff, time.Minute},
		{"SubmitMaxBackoff", schedule.SubmitMaxBackoff, 6 * time.Hour},
		{"SubmitMaxRetryAge", schedule.SubmitMaxRetryAge, 7 * day},
		{"VerifyWindowStart", schedule.VerifyWindowStart, 270 * time.Minute},
		{"VerifyDenseWindowEnd", schedule.VerifyDenseWindowEnd, 630 * time.Minute},
		{"VerifyWindowEnd", schedule.VerifyWindowEnd, 29 * time.Hour},
		{"VerifyWindowInterval", schedule.VerifyWindowInterval, 30 * time.Minute},
		{"VerifyLateWindowInterval", schedule.VerifyLateWindowInterval, time.Hour},
		{"VerifyBaseBackoff", schedule.VerifyBaseBackoff, 2 * time.Hour},
		{"VerifyMaxBackoff", schedule.VerifyMaxBackoff, 6 * time.Hour},
		{"VerifyMaxAge", schedule.VerifyMaxAge, 14 * day},
		{"VerifyGiveUpPoll", schedule.VerifyGiveUpPoll, day},
		{"JitterMax", schedule.JitterMax, 30 * time.Second},
		{"UncertainRecheck", schedule.UncertainRecheck, 15 * time.Minute},
		{"UncertainMaxRecheck", schedule.UncertainMaxRecheck, 6 * time.Hour},
		{"UncertainAdminAfter", schedule.UncertainAdminAfter, day},
		{"SuotarPendingWindow", schedule.SuotarPendingWindow, 24 * time.Hour},
		{"PartialRegistrationAdminAfter", schedule.PartialRegistrationAdminAfter, 3 * day},
		{"ImportRequestTimeout", schedule.ImportRequestTimeout, 60 * time.Minute},
		{"ResolveRequestTimeout", schedule.ResolveRequestTimeout, 20 * time.Minute},
		{"SubmittingRecoveryGrace", schedule.SubmittingRecoveryGrace, 75 * time.Minute},
		{"ResolvingRecoveryGrace", schedule.ResolvingRecoveryGrace, 30 * time.Minute},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if got, want := schedule.NotRegisteredReimportAdminThreshold, 3; got != want {
		t.Errorf("NotRegisteredReimportAdminThreshold = %d, want %d", got, want)
	}
}

func TestDoublingBoundaries(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		fn    func(int32) time.Duration
		count int32
		want  time.Duration
	}{
		{"SubmitMinInt32", schedule.SubmitBackoff, math.MinInt32, time.Minute},
		{"SubmitMinus1", schedule.SubmitBackoff, -1, time.Minute},
		{"Submit0", schedule.SubmitBackoff, 0, time.Minute},
		{"Submit2", schedule.SubmitBackoff, 2, 4 * time.Minute},
		{"Submit8LastBelowCap", schedule.SubmitBackoff, 8, 256 * time.Minute},
		{"Submit9FirstAtCap", schedule.SubmitBackoff, 9, 6 * time.Hour},
		{"Submit62LargestShift", schedule.SubmitBackoff, 62, 6 * time.Hour},
		{"Submit63ClampedShift", schedule.SubmitBackoff, 63, 6 * time.Hour},
		{"SubmitMaxInt32", schedule.SubmitBackoff, math.MaxInt32, 6 * time.Hour},
		{"UncertainMinInt32", schedule.UncertainRecheckDelay, math.MinInt32, 15 * time.Minute},
		{"UncertainMinus1", schedule.UncertainRecheckDelay, -1, 15 * time.Minute},
		{"Uncertain0", schedule.UncertainRecheckDelay, 0, 15 * time.Minute},
		{"Uncertain1AfterFirstLook", schedule.UncertainRecheckDelay, 1, 30 * time.Minute},
		{"Uncertain4LastBelowCap", schedule.UncertainRecheckDelay, 4, 240 * time.Minute},
		{"Uncertain5FirstAtCap", schedule.UncertainRecheckDelay, 5, 6 * time.Hour},
		{"Uncertain62", schedule.UncertainRecheckDelay, 62, 6 * time.Hour},
		{"UncertainMaxInt32", schedule.UncertainRecheckDelay, math.MaxInt32, 6 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := tc.fn(tc.count); got != tc.want {
				t.Errorf("delay(%d) = %v, want %v", tc.count, got, tc.want)
			}
		})
	}
}

func TestVerifyDelayBoundaries(t *testing.T) {
	t.Parallel()

	const (
		ns = time.Nanosecond
		s  = time.Second
		m  = time.Minute
		h  = time.Hour
	)
	tests := []struct {
		age  time.Duration
		want time.Duration
	}{
		{-h, 330 * m}, // submitted in the future: wait for its window start
		{-s, 270*m + s},
		{-ns, 270*m + ns},
		{0, 270 * m},
		{ns, 270*m - ns},
		{s, 270*m - s},
		{270*m - s, s},
		{270*m - ns, ns},
		{270 * m, 30 * m},
		{270*m + ns, 30 * m},
		{270*m + s, 30 * m},
		{630*m - s, 30 * m},
		{630*m - ns, 30 * m},
		{630 * m, h},
		{630*m + ns, h},
		{630*m + s, h},
		{29*h - s, h},
		{29*h - ns, h},
		{29 * h, 2 * h},
		{29*h + ns, 2 * h},
		{29*h + s, 2 * h},
		{31*h - s, 2 * h},
		{31*h - ns, 2 * h},
		{31 * h, 2 * h},
		{31*h + ns, 2*h + ns},
		{31*h + s, 2*h + s},
		{35*h - s, 6*h - s},
		{35*h - ns, 6*h - ns},
		{35 * h, 6 * h},
		{35*h + ns, 6 * h},
		{35*h + s, 6 * h},
		{14*day - ns, 6 * h},
		{14 * day, 6 * h},
		{14*day + s, 6 * h},
		{math.MaxInt64, 6 * h},
	}
	for _, tc := range tests {
		// A sub-second now shows the delay is not rounded to seconds.
		for _, now := range []time.Time{t0, t0.Add(123456789 * ns)} {
			if got := schedule.VerifyDelay(ptr(now.Add(-tc.age)), now); got != tc.want {
				t.Errorf("VerifyDelay(%v - %v, %v) = %v, want %v", now, tc.age, now, got, tc.want)
			}
		}
	}
}

func TestVerifyDelaySaturatesForAFarFutureSubmission(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name      string
		submitted time.Time
		want      time.Duration
	}{
		{"300YearsAhead", t0.AddDate(300, 0, 0), math.MaxInt64},
		{"300YearsAgo", t0.AddDate(-300, 0, 0), schedule.VerifyMaxBackoff},
		{"JustInsideDurationRange", t0.Add(math.MaxInt64 - schedule.VerifyWindowStart), math.MaxInt64},
		{"ExactlyRepresentable", t0.Add(math.MaxInt64 - schedule.VerifyWindowStart - time.Second), math.MaxInt64 - time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := schedule.VerifyDelay(&tc.submitted, t0); got != tc.want {
				t.Errorf("VerifyDelay(%v, %v) = %v, want %v", tc.submitted, t0, got, tc.want)
			}
		})
	}
}

func TestWindowsExpireInclusivelyInWholeSeconds(t *testing.T) {
	t.Parallel()

	windows := []struct {
		name string
		fn   func(*time.Time, time.Time) bool
		d    time.Duration
	}{
		{"SubmitWindowExpired", schedule.SubmitWindowExpired, 7 * day},
		{"VerifyWindowExpired", schedule.VerifyWindowExpired, 14 * day},
		{"UncertainNeedsAdmin", schedule.UncertainNeedsAdmin, day},
	}
	offsets := []struct {
		offset time.Duration
		want   bool
	}{
		{-time.Second, false},
		{-time.Nanosecond, false},
		{0, true},
		{time.Nanosecond, true},
		{time.Second, true},
	}
	// References with a sub-second part still expire exactly at ref + d:
	// truncating a positive age toward zero never reaches d early.
	refs := []time.Time{t0, t0.Add(time.Nanosecond), t0.Add(500 * time.Millisecond), t0.Add(time.Second - time.Nanosecond)}
	for _, w := range windows {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()

			for _, ref := range refs {
				for _, o := range offsets {
					now := ref.Add(w.d + o.offset)
					if got := w.fn(&ref, now); got != o.want {
						t.Errorf("%s(%v, ref+%v%+v) = %v, want %v", w.name, ref, w.d, o.offset, got, o.want)
					}
				}
			}
			if w.fn(nil, t0.AddDate(100, 0, 0)) {
				t.Errorf("%s(nil, far future) = true, want false: no reference never expires", w.name)
			}
			if w.fn(ptr(t0.Add(w.d+time.Hour)), t0) {
				t.Errorf("%s(future ref, now) = true, want false", w.name)
			}
			if !w.fn(ptr(t0.AddDate(-300, 0, 0)), t0) {
				t.Errorf("%s(300 years ago, now) = false, want true", w.name)
			}
		})
	}
}

func TestNextAttemptAtRand(t *testing.T) {
	t.Parallel()

	now := t0.Add(250 * time.Millisecond)
	tests := []struct {
		name  string
		delay time.Duration
		// base is the delay the seed counts from: its whole seconds, truncated toward zero.
		base time.Duration
	}{
		{"Zero", 0, 0},
		{"WholeSeconds", time.Minute, time.Minute},
		{"SubSecondDropped", 1500 * time.Millisecond, time.Second},
		{"JustUnderASecond", time.Second - time.Nanosecond, 0},
		{"NegativeTruncatesTowardZero", -1500 * time.Millisecond, -time.Second},
		{"LongestDuration", math.MaxInt64, math.MaxInt64 - math.MaxInt64%time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			r := rand.New(rand.NewPCG(1, 2))
			seen := map[time.Duration]bool{}
			for range 2000 {
				got := schedule.NextAttemptAtRand(now, tc.delay, r)
				jitter := got.Sub(now.Add(tc.base))
				if jitter < 0 || jitter > schedule.JitterMax || jitter%time.Second != 0 {
					t.Fatalf("NextAttemptAtRand(now, %v) - (now + %v) = %v, want a whole number of seconds in [0s, 30s]", tc.delay, tc.base, jitter)
				}
				seen[jitter] = true
			}
			if got, want := len(seen), 31; got != want {
				t.Errorf("distinct jitters over 2000 draws = %d, want %d (every whole second 0..30)", got, want)
			}
		})
	}
}

func TestNextAttemptAtRandIsReproducible(t *testing.T) {
	t.Parallel()

	a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	for i := range 100 {
		got, want := schedule.NextAttemptAtRand(t0, time.Hour, a), schedule.NextAttemptAtRand(t0, time.Hour, b)
		if !got.Equal(want) {
			t.Fatalf("draw %d: NextAttemptAtRand with equal seeds = %v and %v, want equal", i, got, want)
		}
	}
}

// referenceDoubling recomputes the seed's doubling by repeated doubling rather
// than by shifting, so the fuzz tests do not just repeat the implementation.
func referenceDoubling(base, maxDelay time.Duration, n int32) time.Duration {
	d := base
	for i := int32(0); i < n && d < maxDelay; i++ {
		d *= 2
	}
	return min(d, maxDelay)
}

func FuzzSubmitBackoff(f *testing.F) {
	for _, n := range []int32{math.MinInt32, -1, 0, 1, 4, 5, 8, 9, 62, 63, math.MaxInt32 - 1} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int32) {
		t.Parallel()

		fns := []struct {
			name      string
			fn        func(int32) time.Duration
			base, cap time.Duration
		}{
			{"SubmitBackoff", schedule.SubmitBackoff, schedule.SubmitBaseBackoff, schedule.SubmitMaxBackoff},
			{"UncertainRecheckDelay", schedule.UncertainRecheckDelay, schedule.UncertainRecheck, schedule.UncertainMaxRecheck},
		}
		for _, c := range fns {
			got := c.fn(n)
			if got < c.base || got > c.cap {
				t.Errorf("%s(%d) = %v, want within [%v, %v]", c.name, n, got, c.base, c.cap)
			}
			if got%time.Second != 0 {
				t.Errorf("%s(%d) = %v, want whole seconds", c.name, n, got)
			}
			if want := referenceDoubling(c.base, c.cap, n); got != want {
				t.Errorf("%s(%d) = %v, want %v", c.name, n, got, want)
			}
			if n < math.MaxInt32 {
				if next := c.fn(n + 1); next < got {
					t.Errorf("%s(%d) = %v < %s(%d) = %v, want monotone", c.name, n+1, next, c.name, n, got)
				}
			}
		}
	})
}

// fuzzTime maps fuzz input to an instant within about ±317 000 years of 1970:
// far enough apart for time.Time.Sub to saturate, near enough for Add not to
// wrap.
func fuzzTime(sec, nsec int64) time.Time {
	return time.Unix(sec%1e13, nsec%1e9).UTC()
}

// referenceVerifyDelay is the seed's piecewise rule written with instants
// instead of durations.
func referenceVerifyDelay(submitted *time.Time, now time.Time) time.Duration {
	if submitted == nil {
		return 30 * time.Minute
	}
	switch {
	case now.Before(submitted.Add(270 * time.Minute)):
		return submitted.Add(270 * time.Minute).Sub(now)
	case now.Before(submitted.Add(630 * time.Minute)):
		return 30 * time.Minute
	case now.Before(submitted.Add(29 * time.Hour)):
		return time.Hour
	default:
		return min(max(now.Sub(submitted.Add(29*time.Hour)), 2*time.Hour), 6*time.Hour)
	}
}

func FuzzVerifyDelay(f *testing.F) {
	base := t0.Unix()
	f.Add(base, int64(0), base, int64(0), false)
	f.Add(base, int64(0), base+270*60, int64(0), false)
	f.Add(base, int64(999999999), base+270*60, int64(999999998), false)
	f.Add(base, int64(0), base+630*60-1, int64(999999999), false)
	f.Add(base, int64(0), base+31*3600, int64(1), false)
	f.Add(base+3600, int64(0), base, int64(0), false)
	f.Add(int64(9e12), int64(0), int64(-9e12), int64(0), false)
	f.Add(int64(-9e12), int64(0), int64(9e12), int64(0), false)
	f.Add(base, int64(0), base, int64(0), true)
	f.Fuzz(func(t *testing.T, subSec, subNsec, nowSec, nowNsec int64, none bool) {
		t.Parallel()

		now := fuzzTime(nowSec, nowNsec)
		var submitted *time.Time
		if !none {
			submitted = ptr(fuzzTime(subSec, subNsec))
		}
		got := schedule.VerifyDelay(submitted, now)
		if got <= 0 {
			t.Errorf("VerifyDelay(%v, %v) = %v, want positive", submitted, now, got)
		}
		if want := referenceVerifyDelay(submitted, now); got != want {
			t.Errorf("VerifyDelay(%v, %v) = %v, want %v", submitted, now, got, want)
		}
		if (submitted == nil || !submitted.After(now)) && got > schedule.VerifyMaxBackoff {
			t.Errorf("VerifyDelay(%v, %v) = %v, want at most %v for a submission not in the future", submitted, now, got, schedule.VerifyMaxBackoff)
		}
	})
}

func FuzzWindowExpired(f *testing.F) {
	base := t0.Unix()
	f.Add(base, int64(0), base+7*86400, int64(0))
	f.Add(base, int64(500000000), base+7*86400, int64(499999999))
	f.Add(base, int64(500000000), base+86400, int64(500000000))
	f.Add(base, int64(0), base-1, int64(0))
	f.Add(int64(-9e12), int64(0), int64(9e12), int64(0))
	f.Add(int64(9e12), int64(0), int64(-9e12), int64(0))
	f.Fuzz(func(t *testing.T, refSec, refNsec, nowSec, nowNsec int64) {
		t.Parallel()

		ref, now := fuzzTime(refSec, refNsec), fuzzTime(nowSec, nowNsec)
		windows := []struct {
			name string
			fn   func(*time.Time, time.Time) bool
			d    time.Duration
		}{
			{"SubmitWindowExpired", schedule.SubmitWindowExpired, 7 * day},
			{"VerifyWindowExpired", schedule.VerifyWindowExpired, 14 * day},
			{"UncertainNeedsAdmin", schedule.UncertainNeedsAdmin, day},
		}
		for _, w := range windows {
			got := w.fn(&ref, now)
			// The whole-second rule and "expires at ref + d" must agree.
			if want := !now.Before(ref.Add(w.d)); got != want {
				t.Errorf("%s(%v, %v) = %v, want %v", w.name, ref, now, got, want)
			}
			if got && !w.fn(&ref, now.Add(time.Nanosecond)) {
				t.Errorf("%s(%v, %v) = true but false 1ns later, want monotone", w.name, ref, now)
			}
			if w.fn(nil, now) {
				t.Errorf("%s(nil, %v) = true, want false", w.name, now)
			}
		}
	})
}

func FuzzNextAttemptAt(f *testing.F) {
	f.Add(int64(0), uint64(0), t0.Unix(), int64(0))
	f.Add(int64(time.Minute), uint64(1), t0.Unix(), int64(1))
	f.Add(int64(-1500*time.Millisecond), uint64(2), t0.Unix(), int64(999999999))
	f.Add(int64(math.MaxInt64), uint64(3), int64(0), int64(0))
	f.Add(int64(math.MinInt64), uint64(4), int64(0), int64(0))
	f.Fuzz(func(t *testing.T, delayNs int64, seed uint64, nowSec, nowNsec int64) {
		t.Parallel()

		now, delay := fuzzTime(nowSec, nowNsec), time.Duration(delayNs)
		whole := now.Add(delay - delay%time.Second)
		for _, got := range []time.Time{
			schedule.NextAttemptAt(now, delay),
			schedule.NextAttemptAtRand(now, delay, rand.New(rand.NewPCG(seed, ^seed))),
		} {
			jitter := got.Sub(whole)
			if jitter < 0 || jitter > schedule.JitterMax || jitter%time.Second != 0 {
				t.Errorf("NextAttemptAt(%v, %v) = %v: jitter %v, want a whole number of seconds in [0s, 30s]", now, delay, got, jitter)
			}
		}
	})
}
