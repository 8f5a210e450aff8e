package i18n_test

import (
	"strings"
	"testing"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// An alert's summary names a state in words in every language, never by its code (issue 27,
// item 13): "most in “Awaiting verification”", not "most in awaiting_verification".
func TestAlertSummarySaysTheStateInWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind string
		a    schedule.Alert
	}{
		{"state", schedule.Alert{Rule: schedule.RuleStuckRegistrations, Count: 9, Subject: string(schedule.StateAwaitingVerification)}},
		{"lmsPhase", schedule.Alert{Rule: schedule.RulePhasePaused, Count: 3, Subject: "resolve-enrolments"}},
		{"lmsPhase", schedule.Alert{Rule: schedule.RulePhaseHeartbeatStale, Count: 2, Of: 12, Subject: "link-emails"}},
	} {
		for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
			loc := i18n.For(lang)
			_, summary, _ := loc.Alert(c.a)
			if words := loc.Code(c.kind, c.a.Subject); words == c.a.Subject || !strings.Contains(summary, words) {
				t.Errorf("%s %s: %q does not name it as %q", lang, c.a.Rule, summary, words)
			}
			if strings.Contains(summary, c.a.Subject) {
				t.Errorf("%s %s: %q shows the code", lang, c.a.Rule, summary)
			}
		}
	}
}
