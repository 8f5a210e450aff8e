package i18n

import (
	"time"

	"regdesk/schedule"
)

// Alert is a health alert's title, one-line summary with its numbers, and explanation, in l's
// language: for the banner, /alerts and the mails alike.
func (l *Localizer) Alert(a schedule.Alert) (title, summary, explanation string) {
	title = l.Code("alertRule", string(a.Rule))
	explanation = l.CodeExplain("alertRule", string(a.Rule))
	key := "alertSummary." + string(a.Rule)
	if !l.Has(key) {
		return title, a.Summary(), explanation
	}
	switch a.Rule {
	case schedule.RuleConfirmationLatencyRegressed:
		summary = l.T(key, "This", l.Span(time.Duration(a.Count)*time.Minute), "Last", l.Span(time.Duration(a.Of)*time.Minute))
	case schedule.RuleNeedsPerson:
		summary = l.T(key, "Count", a.Count, "Reason", l.Code("reason", a.Key))
	default:
		summary = l.T(key, "Count", a.Count, "Of", a.Of, "Subject", a.Subject)
	}
	return title, summary, explanation
}
