package web

import (
	"slices"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is the top of a registration's page: where the row stands in words, what the latest
// lookup in Sisu concluded, and the one next step regdesk recommends, beside the actions (as
// Temporal leads with a workflow's status and its next step). The recommendation only ever names
// a step the rules allow now (schedule.Decide's decisions on the page) or a lookup the page can
// make: it never advises what the actions panel refuses.

// Next-step kinds, the decision panel's data-kind.
const (
	nextDone   = "done"   // a finished registration: nothing to do
	nextWait   = "wait"   // the pipeline moves it on by itself; nobody needs to act
	nextLookup = "lookup" // look it up in Sisu first: the actions rest on what Sisu holds
	nextSetup  = "setup"  // the course's set-up must be fixed in the LMS first
	nextAction = "action" // take the named action
	nextNone   = "none"   // a person is needed, but no action is possible now
)

// recommendOrder is which allowed action to recommend, by what the latest lookup found: a credit
// Sisu holds is recorded by the pipeline on the pass Check now asks for; one Sisu does not hold is
// sent again. Cancel is never recommended: writing a row off is a person's own judgement.
func recommendOrder(verdict schedule.VerdictKind) []schedule.Action {
	switch {
	case verdict.FoundMatch():
		return []schedule.Action{schedule.ActionCheckNow}
	case verdict == schedule.VerdictNotInSisu:
		return []schedule.Action{schedule.ActionResubmit, schedule.ActionCheckNow}
	}
	return []schedule.Action{schedule.ActionCheckNow, schedule.ActionResubmit, schedule.ActionDismissAttention, schedule.ActionClearFlag}
}

// lookupHelps reports whether a lookup in Sisu can tell something about the row: it has been sent
// (or may have been), so Sisu may hold it.
func lookupHelps(reg store.Registration) bool {
	if reg.SubmittedAt != nil || reg.SubmittedAttempt != nil {
		return true
	}
	switch reg.State {
	case schedule.StateSubmissionUncertain, schedule.StatePartiallyRegistered, schedule.StateAwaitingVerification,
		schedule.StateMisregistered, schedule.StateSubmitting:
		return true
	}
	return false
}

// decisionVM is the decision panel of the page p at now, and the action (if any) it recommends,
// which the actions panel marks and unfolds. lookup is the page's lookup region, read from the
// same history.
func decisionVM(loc *i18n.Localizer, p store.RegistrationPage, lookup views.LookupVM, canAct bool, now time.Time) (views.DecisionVM, schedule.Action) {
	reg := p.Registration
	st := reg.Status(now)
	sum := reg.StudentView(p.Preconditions(), now)
	d := views.DecisionVM{
		StateWords: nextSentence(loc, sum.Next, func(t time.Time) string { return loc.At(t, now) }),
		NextCheck:  loc.When(instant(st.NextCheckAt), now),
		Escalates:  loc.When(instant(st.EscalatesAt), now),
		DrawnAt:    views.ISO(now),
	}
	switch last := lookup.Last; {
	case last == nil:
		d.Verdict = loc.T("decision.verdict.none")
	case last.Error != "":
		d.VerdictKind, d.VerdictLabel, d.Verdict = "failed", loc.T("lookup.failed"), last.Error
	default:
		d.VerdictKind, d.VerdictLabel, d.Verdict = last.Verdict.Kind, last.Verdict.Label, last.Verdict.Reason
		d.VerdictStale = last.Stale
		if last.Verdict.Advice != nil {
			// The verdict's advice on resubmitting is the actions panel's own decision (schedule.Advice).
			d.VerdictAdvice = last.Verdict.Advice.Words
		}
	}
	if lookup.Last != nil {
		d.VerdictWhen = lookup.Last.When
	}

	var recommended schedule.Action
	allowed := func(a schedule.Action) bool {
		i := slices.IndexFunc(p.Decisions, func(d schedule.Decision) bool { return d.Action == a })
		return i >= 0 && p.Decisions[i].Allowed
	}
	switch {
	case st.Phase == schedule.PhaseSettled || st.Phase == schedule.PhaseCancelled || st.Phase == schedule.PhaseSuperseded:
		d.NextKind, d.Next = nextDone, loc.T("decision.next.done")
	case !st.NeedsAdmin:
		d.NextKind, d.Next = nextWait, loc.T("decision.next.wait")
	case !canAct:
		d.NextKind, d.Next = nextWait, loc.T("decision.next.support")
	case lookupHelps(reg) && lookup.Unavailable == "" && (lookup.Last == nil || lookup.Last.Error != "" || lookup.Last.Stale != ""):
		d.NextKind, d.Next = nextLookup, loc.T("decision.next.lookup")
		d.LookupURL, d.LookupVersion = lookup.ActionURL, lookup.Version
	case sum.Next.Pipeline == schedule.PipelineWaitsForSetupFix:
		d.NextKind, d.Next = nextSetup, loc.T("decision.next.setup", "Problem", loc.CodeExplain("errorCode", string(reg.ErrorCode)))
	default:
		var verdict schedule.VerdictKind
		if p.Lookup != nil {
			verdict = p.Lookup.Verdict
		}
		for _, a := range recommendOrder(verdict) {
			if allowed(a) {
				recommended = a
				break
			}
		}
		if recommended == "" {
			d.NextKind, d.Next = nextNone, loc.T("decision.next.none")
		} else {
			d.NextKind, d.Next = nextAction, loc.T("decision.next.action", "Action", loc.Code("action", string(recommended)))
			d.NextAction = string(recommended)
		}
	}
	return d, recommended
}

// orderActions lists the actions as the decision panel has them beside it: the recommended one
// first and marked, then the other allowed ones, then those refused now with why. The forms stay
// folded: one click unfolds the recommended one, as any other.
func orderActions(vm *views.ActionsVM, recommended schedule.Action) {
	if vm == nil {
		return
	}
	for i := range vm.Items {
		if vm.Items[i].Allowed && vm.Items[i].Name == string(recommended) {
			vm.Items[i].Recommended = true
		}
	}
	rank := func(a views.ActionVM) int {
		switch {
		case a.Recommended:
			return 0
		case a.Allowed:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(vm.Items, func(x, y views.ActionVM) int { return rank(x) - rank(y) })
}
