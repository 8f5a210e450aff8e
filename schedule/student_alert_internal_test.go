package schedule

import "testing"

// TestChangeCodeAgreesWithThePhrase: every change SinceAlert keeps has a code for the edge to
// word, and every change it leaves out has none, so the pages and Sentence tell the same story.
func TestChangeCodeAgreesWithThePhrase(t *testing.T) {
	t.Parallel()
	actions := []string{"", "force_recheck", "retry_item", "mark_resolved", "dismiss_attention", "sisu_lookup", "transition_item", "student_action", "state_changed"}
	states := append([]State{""}, States()...)
	for _, byPerson := range []bool{false, true} {
		for _, action := range actions {
			for _, from := range states {
				for _, to := range states {
					e := AlertEvent{ByPerson: byPerson, Action: action, FromState: from, ToState: to}
					if code, phrase := e.ChangeCode(), changePhrase(e); (code == "") != (phrase == "") {
						t.Errorf("%+v: code %q, phrase %q", e, code, phrase)
					}
				}
			}
		}
	}
}
