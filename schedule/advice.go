package schedule

import "time"

// This file is what a lookup's verdict tells a person about a row: the word on its badge and
// whether they may resubmit. Both come from here, and the resubmit advice is Decide's own
// decision, so the verdict region, the badge and the action panel of one page cannot disagree:
// the verdict never calls a resend safe while the panel refuses it, and the panel never offers
// what the verdict warns against (Decide refuses a resend after a lookup that found the credit or
// a conflict).

// VerdictBadge is the word on a lookup's badge: its verdict, except that a "not in Sisu" whose
// verify answer still holds the submission as pending reads as pending at Suotar, which is what
// Suotar said. The values are data attributes and catalogue keys (badge.<value>), so they never
// change.
type VerdictBadge string

// The badges: one per verdict, and pending at Suotar.
const (
	BadgeRegistered       VerdictBadge = VerdictBadge(VerdictRegistered)
	BadgePartlyRegistered VerdictBadge = VerdictBadge(VerdictPartlyRegistered)
	BadgeNotInSisu        VerdictBadge = VerdictBadge(VerdictNotInSisu)
	BadgePendingAtSuotar  VerdictBadge = "pending_at_suotar"
	BadgeConflicting      VerdictBadge = VerdictBadge(VerdictConflicting)
	BadgeCannotTell       VerdictBadge = VerdictBadge(VerdictCannotTell)
)

var badges = newEnumTable("verdict badge",
	BadgeRegistered,
	BadgePartlyRegistered,
	BadgeNotInSisu,
	BadgePendingAtSuotar,
	BadgeConflicting,
	BadgeCannotTell,
)

// VerdictBadges lists every badge; the slice is the caller's to keep.
func VerdictBadges() []VerdictBadge { return badges.list() }

// Valid reports whether b is one of the badges.
func (b VerdictBadge) Valid() bool { return badges.valid(b) }

// BadgeOf is the badge of a verdict whose verify answer did (pending) or did not say the
// submission is still pending at Suotar.
func BadgeOf(k VerdictKind, pending bool) VerdictBadge {
	if k == VerdictNotInSisu && pending {
		return BadgePendingAtSuotar
	}
	return VerdictBadge(k)
}

// Advice is what the row's latest lookup means for it now.
type Advice struct {
	// Badge is the lookup's badge; "" when the row has no lookup.
	Badge VerdictBadge
	// Resubmit is Decide's resubmit decision on the row, one row at a time: the advice the
	// verdict region gives is this decision, in the same words as the action panel's.
	Resubmit Decision
}

// Advise says what the latest lookup in f means at now: its badge and whether a resubmit may
// follow it.
func Advise(f Facts, now time.Time) Advice {
	a := Advice{Resubmit: Decide(ActionResubmit, f, StrictnessAny, now)}
	if f.Lookup != nil {
		a.Badge = BadgeOf(f.Lookup.Verdict, f.Lookup.Pending)
	}
	return a
}
