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
