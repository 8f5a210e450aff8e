package schedule_test

import (
	"testing"
	"time"

	"regdesk/schedule"
)

// A phase is late as the LMS judges it (is_heartbeat_late): more than twice its interval since its
// last heartbeat, in whole seconds; never while paused, never without a heartbeat.
func TestHeartbeatLate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *time.Time { t := now.Add(-ago); return &t }
	for _, tc := range []struct {
		name   string
		beat   *time.Time
		every  time.Duration
		paused bool
		want   bool
	}{
		{"within two intervals", at(119 * time.Second), time.Minute, false, false},
		{"exactly two intervals", at(120 * time.Second), time.Minute, false, false},
		{"a fraction past two intervals counts whole seconds", at(120*time.Second + 900*time.Millisecond), time.Minute, false, false},
		{"a second past two intervals", at(121 * time.Second), time.Minute, false, true},
		{"paused is never late", at(24 * time.Hour), time.Minute, true, false},
		{"never beat is never late", nil, time.Minute, false, false},
		{"a day-long phase", at(48*time.Hour + time.Second), 24 * time.Hour, false, true},
		{"a heartbeat in the future", at(-time.Hour), time.Minute, false, false},
	} {
		if got := schedule.HeartbeatLate(tc.beat, tc.every, tc.paused, now); got != tc.want {
			t.Errorf("%s: late = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPipelinePhases(t *testing.T) {
	t.Parallel()
	phases := schedule.PipelinePhases()
	if len(phases) != 12 || phases[0] != "materialize" || phases[11] != "ledger-snapshot" {
		t.Fatalf("PipelinePhases = %v", phases)
	}
	if !schedule.PipelinePhaseKnown("import") || schedule.PipelinePhaseKnown("product-token-refresh") {
		t.Errorf("PipelinePhaseKnown: import is a phase, product-token-refresh no longer is")
	}
	if schedule.PipelinePhaseOrder("verify") != 4 || schedule.PipelinePhaseOrder("new-phase") != 12 {
		t.Errorf("PipelinePhaseOrder: verify %d, an unknown phase %d", schedule.PipelinePhaseOrder("verify"), schedule.PipelinePhaseOrder("new-phase"))
	}
}

// A paused phase and a paused module each fire an alert of their own, keyed by what is paused,
// linking the System page and concerning no single course; a running phase past twice its
// interval fires the LMS's phase_heartbeat_stale, a paused or never-run one does not.
func TestEvaluatePipelineRules(t *testing.T) {
	t.Parallel()
	for _, now := range []time.Time{
		time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		time.Date(2031, 6, 14, 21, 45, 0, 0, time.UTC),
	} {
		at := func(ago time.Duration) *time.Time { t := now.Add(-ago); return &t }
		f := schedule.HealthFacts{
			Phases: []schedule.PhaseFact{
				{Phase: "materialize", ExpectedInterval: time.Minute},
				{Phase: "import", ExpectedInterval: 10 * time.Second, LastHeartbeatAt: at(time.Hour), PausedAt: at(30 * time.Minute), Held: 7},
				{Phase: "verify", ExpectedInterval: time.Minute, LastHeartbeatAt: at(121 * time.Second)},
				{Phase: "legacy-mirror", ExpectedInterval: time.Minute, LastHeartbeatAt: at(120 * time.Second)},
			},
			PausedModules: []schedule.PausedModuleFact{{ModuleID: "m-1", Label: "Java · Part 2", PausedAt: now.Add(-2 * time.Hour), Held: 3}},
		}
		got := schedule.Evaluate(f, now)
		paused, ok := fired(got, schedule.RulePhasePaused)
		if !ok || paused.Key != "import" || paused.Subject != "import" || paused.Count != 7 || paused.Severity != schedule.SeverityWarning ||
			paused.At == nil || !paused.At.Equal(now.Add(-30*time.Minute)) || paused.CourseID != "" ||
			paused.Path != "/?show=all&state=checking_enrolment&state=submitting" {
			t.Errorf("phase_paused = %+v (fired %v)", paused, ok)
		}
		stale, ok := fired(got, schedule.RulePhaseHeartbeatStale)
		if !ok || stale.Count != 1 || stale.Of != 4 || stale.Subject != "verify" || stale.Severity != schedule.SeverityCritical || stale.Path != schedule.SystemPath {
			t.Errorf("phase_heartbeat_stale = %+v (fired %v): only verify is late", stale, ok)
		}
		module, ok := fired(got, schedule.RuleModulePaused)
		if !ok || module.Key != "m-1" || module.Subject != "Java · Part 2" || module.Count != 3 || module.CourseID != "" || module.Path != schedule.SystemPath {
			t.Errorf("module_paused = %+v (fired %v)", module, ok)
		}
		// Nothing paused and every phase on time: none fires.
		quiet := schedule.HealthFacts{Phases: []schedule.PhaseFact{{Phase: "verify", ExpectedInterval: time.Minute, LastHeartbeatAt: at(time.Minute)}}}
		for _, r := range []schedule.AlertRule{schedule.RulePhasePaused, schedule.RulePhaseHeartbeatStale, schedule.RuleModulePaused} {
			if a, ok := fired(schedule.Evaluate(quiet, now), r); ok {
				t.Errorf("%s fired on a quiet pipeline: %+v", r, a)
			}
		}
	}
}
