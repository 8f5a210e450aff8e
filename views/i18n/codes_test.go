package i18n_test

import (
	"testing"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// codeKinds lists every family of schedule's codes a page names, with all its codes.
func codeKinds() map[string][]string {
	strs := func(vs ...[]string) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v...)
		}
		return out
	}
	conv := func(n int, at func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = at(i)
		}
		return out
	}
	ph, re, st, ec := schedule.Phases(), schedule.Reasons(), schedule.States(), schedule.ErrorCodes()
	ss, wo := schedule.StudentStatuses(), schedule.WaitsOns()
	sd, no := schedule.Standings(), schedule.Notes()
	return map[string][]string{
		"phase":         strs(conv(len(ph), func(i int) string { return string(ph[i]) })),
		"reason":        strs(conv(len(re), func(i int) string { return string(re[i]) })),
		"standing":      strs(conv(len(sd), func(i int) string { return string(sd[i]) })),
		"note":          strs(conv(len(no), func(i int) string { return string(no[i]) })),
		"state":         strs(conv(len(st), func(i int) string { return string(st[i]) })),
		"errorCode":     strs(conv(len(ec), func(i int) string { return string(ec[i]) })),
		"studentStatus": strs(conv(len(ss), func(i int) string { return string(ss[i]) })),
		"waitsOn":       strs(conv(len(wo), func(i int) string { return string(wo[i]) })),
	}
}

// TestEveryCodeHasWords fails for a code of schedule's (a phase, reason, standing, note, state,
// error code, student-facing status, party waited on) that the catalogue cannot name or explain in a
// language: schedule returns codes, and the edge must have words for each.
func TestEveryCodeHasWords(t *testing.T) {
	t.Parallel()
	for kind, codes := range codeKinds() {
		if len(codes) == 0 {
			t.Errorf("%s: no codes", kind)
		}
		for _, code := range codes {
			for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
				l := i18n.For(lang)
				if !l.Has(kind+"."+code) || !l.Has(kind+"."+code+".explain") {
					t.Errorf("%s: %s %q has no name or explanation", lang, kind, code)
				}
			}
		}
	}
}

// TestEveryHandActionCodeHasWords fails for a hand action, risk or refusal of schedule's that
// the catalogue cannot name or explain in a language: the registration page and the bulk pages
// say each in the reader's words, from the code alone.
func TestEveryHandActionCodeHasWords(t *testing.T) {
	t.Parallel()
	var keys []string
	for _, a := range schedule.Actions() {
		keys = append(keys, "action."+string(a), "action."+string(a)+".explain")
	}
	for _, r := range schedule.RiskLabels() {
		keys = append(keys, "risk."+string(r), "risk."+string(r)+".explain")
	}
	for _, c := range schedule.RefusalCodes() {
		keys = append(keys, "refusal."+string(c), "decision.refusal."+string(c))
	}
	// A lookup's badge is a verdict's name, or pending at Suotar's.
	for _, b := range schedule.VerdictBadges() {
		keys = append(keys, "verdict."+string(b), "verdict."+string(b)+".explain")
	}
	for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
		for _, k := range keys {
			if !i18n.For(lang).Has(k) {
				t.Errorf("%s: the catalogue lacks %s", lang, k)
			}
		}
	}
}

// TestEveryAlertChangeHasWords fails for a change since an alert (schedule's ChangeCode) that
// the catalogue cannot word in a language, so no banner falls back to a vaguer sentence.
func TestEveryAlertChangeHasWords(t *testing.T) {
	t.Parallel()
	actions := []string{"", "force_recheck", "retry_item", "mark_resolved", "dismiss_attention", "sisu_lookup", "transition_item", "student_action", "state_changed"}
	states := append([]schedule.State{""}, schedule.States()...)
	seen := map[string]bool{}
	for _, byPerson := range []bool{false, true} {
		for _, action := range actions {
			for _, to := range states {
				if code := (schedule.AlertEvent{ByPerson: byPerson, Action: action, ToState: to}).ChangeCode(); code != "" {
					seen[code] = true
				}
			}
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d change codes: %v", len(seen), seen)
	}
	for code := range seen {
		for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
			if !i18n.For(lang).Has("alertChange." + code) {
				t.Errorf("%s: the catalogue lacks alertChange.%s", lang, code)
			}
		}
	}
}

// TestEveryLMSCodeHasWords fails for an admin action, target, role or pipeline phase of the LMS's
// that the catalogue cannot name in a language: the audit, the System page and the alerts name
// each in words, with the code only beside them.
func TestEveryLMSCodeHasWords(t *testing.T) {
	t.Parallel()
	codes := map[string][]string{"lmsPhase": schedule.PipelinePhases(), "lmsRole": schedule.AdminRoles()}
	for _, a := range schedule.AdminActions() {
		codes["lmsAction"] = append(codes["lmsAction"], string(a))
	}
	for _, k := range schedule.AdminTargets() {
		codes["lmsTarget"] = append(codes["lmsTarget"], string(k))
	}
	for kind, list := range codes {
		for _, code := range list {
			for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
				if l := i18n.For(lang); !l.Has(kind+"."+code) || l.Code(kind, code) == code {
					t.Errorf("%s: %s %q has no words", lang, kind, code)
				}
			}
		}
	}
}
