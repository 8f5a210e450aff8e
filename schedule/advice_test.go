package schedule_test

import (
	"fmt"
	"testing"
	"time"

	"regdesk/schedule"
)

// TestAdviceAgreesWithTheActions walks every verdict, with and without a pending verify answer
// and an unanswered call, over every row shape a lookup can meet, and fails where the verdict's
// badge and advice and the action panel's Resubmit say different things: the advice is not the
// panel's decision, a lookup that found the credit (or a conflict, or could not tell because a
// call failed) leaves a resubmit open, a pending verify answer leaves it open before its end, or
// the badge calls a pending submission "not in Sisu".
func TestAdviceAgreesWithTheActions(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	type shape struct {
		name string
		row  schedule.Row
		// submittedID is the id Suotar returned for the last submission ("" when none).
		submittedID string
	}
	var shapes []shape
	for _, st := range schedule.States() {
		for _, sent := range []struct {
			name string
			at   *time.Time
		}{{"never sent", nil}, {"sent 10 min ago", ago(10 * time.Minute)}, {"sent 30 h ago", ago(30 * time.Hour)}, {"sent 10 d ago", ago(10 * 24 * time.Hour)}} {
			for _, id := range []string{"", "hy-kur-1"} {
				for _, rnb := range []*time.Time{nil, ago(-2 * time.Hour)} {
					r := schedule.Row{State: st, SubmittedAt: sent.at, ResubmitNotBefore: rnb, StateChangedAt: now.Add(-time.Hour),
						StateEnteredAt: now.Add(-time.Hour), NextAttemptAt: now.Add(time.Hour), ErrorCode: "sisu_timeout"}
					shapes = append(shapes, shape{name: fmt.Sprintf("%s, %s, id %q, retryAfter %v", st, sent.name, id, rnb != nil), row: r, submittedID: id})
				}
			}
		}
	}
	type lookup struct {
		name string
		at   time.Time
		f    schedule.LookupFacts
	}
	var lookups []lookup
	for _, v := range schedule.VerdictKinds() {
		for _, at := range []time.Time{now.Add(-time.Minute), now.Add(-40 * time.Hour)} {
			for _, pending := range []struct {
				name  string
				on    bool
				until *time.Time
			}{{"", false, nil}, {"pending", true, nil}, {"pending until tomorrow", true, ago(-24 * time.Hour)}, {"pending until yesterday", true, ago(24 * time.Hour)}} {
				for _, unanswered := range [][]schedule.LookupCall{nil, {schedule.CallAttainments}, {schedule.CallVerify}} {
					f := schedule.LookupFacts{At: at, Verdict: v, Unanswered: unanswered, Pending: pending.on, PendingUntil: pending.until}
					if v.FoundMatch() {
						f.MatchID, f.MatchType, f.MatchOurs = "hy-cu-1", schedule.AttainmentCourseUnit, true
					}
					lookups = append(lookups, lookup{name: fmt.Sprintf("%s at %s %s unanswered %v", v, at.Format(time.Kitchen), pending.name, unanswered), at: at, f: f})
				}
			}
		}
	}
	n := 0
	for _, sh := range shapes {
		for _, lk := range lookups {
			f := schedule.Facts{Row: sh.row, SubmittedAttainmentID: sh.submittedID, Lookup: &lk.f}
			a := schedule.Advise(f, now)
			d := schedule.Decide(schedule.ActionResubmit, f, schedule.StrictnessAny, now)
			n++
			fail := func(why string) {
				t.Helper()
				t.Errorf("%s; lookup %s: %s (badge %s, resubmit %+v)", sh.name, lk.name, why, a.Badge, a.Resubmit)
			}
			if a.Resubmit.Allowed != d.Allowed || a.Resubmit.Say != d.Say || a.Resubmit.Refusal != d.Refusal {
				fail("the advice is not the action panel's decision")
			}
			if !a.Badge.Valid() {
				fail("the badge is no badge")
			}
			if !a.Resubmit.Allowed {
				continue
			}
			switch {
			case lk.f.Verdict.FoundMatch():
				fail("the lookup found the credit in Sisu, yet a resubmit is offered")
			case lk.f.Verdict == schedule.VerdictConflicting:
				fail("the lookup found a conflicting attainment, yet a resubmit is offered")
			case len(lk.f.Unanswered) > 0:
				fail("a call of the lookup failed (\"do not resubmit on this lookup\"), yet a resubmit is offered")
			case lk.f.Pending && (lk.f.PendingUntil == nil || now.Before(*lk.f.PendingUntil)):
				fail("Suotar still holds the submission as pending, yet a resubmit is offered")
			}
		}
	}
	// The badge's word for a pending verify answer.
	for _, v := range schedule.VerdictKinds() {
		want := schedule.VerdictBadge(v)
		if v == schedule.VerdictNotInSisu {
			want = schedule.BadgePendingAtSuotar
		}
		if got := schedule.BadgeOf(v, true); got != want {
			t.Errorf("BadgeOf(%s, pending) = %s, want %s", v, got, want)
		}
		if got := schedule.BadgeOf(v, false); got != schedule.VerdictBadge(v) {
			t.Errorf("BadgeOf(%s, not pending) = %s", v, got)
		}
	}
	t.Logf("%d rows × lookups walked", n)
}
