package i18n

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"regdesk/schedule"
)

// Alert is a health alert's title, one-line summary with its numbers, and explanation, in l's
// language: for the banner, /alerts and the mails alike.
func (l *Localizer) Alert(a schedule.Alert) (title, summary, explanation string) {
	title = l.Code("alertRule", string(a.Rule))
	explanation = l.CodeExplain("alertRule", string(a.Rule))
	key := "alertSummary." + string(a.Rule)
	if !l.Has(key) {
		// A rule this catalogue does not know yet: its name is all there is to say.
		return title, title, explanation
	}
	switch a.Rule {
	case schedule.RuleConfirmationLatencyRegressed:
		summary = l.T(key, "This", l.Span(time.Duration(a.Count)*time.Minute), "Last", l.Span(time.Duration(a.Of)*time.Minute))
	case schedule.RuleNeedsPerson:
		summary = l.T(key, "Count", a.Count, "Reason", l.Code("reason", a.Key))
	case schedule.RuleStuckRegistrations:
		// The state in words: a code is detail, never the sentence's word.
		summary = l.T(key, "Count", a.Count, "Subject", l.Code("state", a.Subject))
	case schedule.RulePhasePaused, schedule.RulePhaseHeartbeatStale:
		// The phase in words, as the System page names it.
		summary = l.T(key, "Count", a.Count, "Of", a.Of, "Subject", l.Code("lmsPhase", a.Subject))
	default:
		summary = l.T(key, "Count", a.Count, "Of", a.Of, "Subject", a.Subject)
	}
	return title, summary, explanation
}

// SinceAlert is what happened to a registration since an alert, in one sentence of l's language:
// the changes (a clause each, ChangeCode's words, joined as the language lists things) and where
// the registration stands. Moments are written as seen at now.
func (l *Localizer) SinceAlert(a schedule.AlertSummary, now time.Time) string {
	at := l.At(a.AlertedAt, now)
	clauses := make([]string, len(a.Changes))
	for i, e := range a.Changes {
		who := e.Actor
		if who == "" {
			who = l.T("alert.someone")
		}
		code := e.ChangeCode()
		key := "alertChange." + code
		if !l.Has(key) {
			key = "alertChange.person.updated"
			if !e.ByPerson {
				key = "alertChange.other"
			}
		}
		clauses[i] = l.T(key, "Who", who, "At", l.At(e.At, now), "Status", l.Code("studentStatus", string(e.MovedToStatus())))
	}
	reasons := make([]string, len(a.Reasons))
	for i, r := range a.Reasons {
		reasons[i] = lowerFirst(l.Code("reason", string(r)))
	}
	head := "alert.since.none"
	if len(a.Changes) > 0 {
		head = "alert.since.changed"
	}
	switch {
	case a.StillNeedsAction && len(reasons) > 0:
		return l.T(head+".needsWhy", "At", at, "Changes", l.List(clauses), "Reasons", strings.Join(reasons, ", "))
	case a.StillNeedsAction:
		return l.T(head+".needs", "At", at, "Changes", l.List(clauses))
	case a.Status != "":
		return l.T(head+".status", "At", at, "Changes", l.List(clauses), "Status", l.Code("studentStatus", string(a.Status)))
	}
	return l.T(head, "At", at, "Changes", l.List(clauses))
}

// List joins items the way the language lists things: "a, b and c", "a, b ja c", "a, b och c".
func (l *Localizer) List(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return l.T("list.and", "Rest", strings.Join(items[:len(items)-1], ", "), "Last", items[len(items)-1])
}

// lowerFirst lower-cases a label's first letter so it reads inside a sentence; a label that
// starts with a name (Sisu, Suotar, MOOC) keeps it.
func lowerFirst(s string) string {
	for _, name := range []string{"Sisu", "Suotar", "MOOC"} {
		if strings.HasPrefix(s, name) {
			return s
		}
	}
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}
