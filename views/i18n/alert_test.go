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
	a := schedule.Alert{Rule: schedule.RuleStuckRegistrations, Count: 9, Subject: string(schedule.StateAwaitingVerification)}
	for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
		loc := i18n.For(lang)
		_, summary, _ := loc.Alert(a)
		if words := loc.Code("state", a.Subject); words == a.Subject || !strings.Contains(summary, words) {
			t.Errorf("%s: %q does not name the state as %q", lang, summary, words)
		}
		if strings.Contains(summary, a.Subject) {
			t.Errorf("%s: %q shows the state's code", lang, summary)
		}
	}
}
