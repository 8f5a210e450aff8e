package store_test

import (
	"context"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store/storetest"
)

// The pipeline's facts are the LMS's phase table and module pauses as they stand: who paused what
// (named from user_details), the rows a paused phase holds in the states it owns, and the rows a
// paused module holds.
func TestPipelineStatusAndFacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t)
	now := storetest.Now()
	admin := storetest.AddLMSAdmin(t, st, "Aino Admin", "aino@lms.example")
	java := storetest.AddCourse(t, st, storetest.Course{Name: "Java", Code: "TKT1"})
	sql := storetest.AddCourse(t, st, storetest.Course{Name: "SQL", ModuleName: "Part 2", Code: "TKT2"})
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "A", LastName: "B"})
	for _, state := range []string{"checking_enrolment", "submitting", "awaiting_verification", "registered"} {
		storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: sql, State: state, StateChangedAt: now.Add(-time.Hour)})
	}
	storetest.LMSExecNoSync(t, st, `UPDATE credit_registration_phase_state SET paused_at = $1, paused_by_user_id = $2, pause_reason = 'Sisu down',
  last_heartbeat_at = $3 WHERE phase = 'import'`, now.Add(-time.Hour), admin, now.Add(-2*time.Hour))
	storetest.LMSExecNoSync(t, st, `UPDATE credit_registration_phase_state SET last_heartbeat_at = $1 WHERE phase = 'verify'`, now.Add(-10*time.Minute))
	storetest.LMSExecNoSync(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id) VALUES ($1)`, java.ModuleID)
	storetest.LMSExecNoSync(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id, paused_at, paused_by_user_id, pause_reason)
VALUES ($1, $2, $3, 'Wrong code')`, sql.ModuleID, now.Add(-3*time.Hour), admin)
	storetest.SyncMirror(t, st)

	status, err := st.PipelineStatusGet(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(status.Phases) != 12 || status.Phases[0].Phase != "materialize" || status.Phases[3].Phase != "import" {
		t.Fatalf("phases are not in pipeline order: %+v", status.Phases)
	}
	imp, _ := status.Phase("import")
	if !imp.Paused() || imp.PausedByUserID != admin || imp.PausedByName != "Aino Admin" || imp.PauseReason != "Sisu down" ||
		imp.ExpectedInterval != 10*time.Second || imp.Late(now) {
		t.Errorf("import = %+v: paused by Aino, every 10 s, not late while paused", imp)
	}
	if v, _ := status.Phase("verify"); !v.Late(now) {
		t.Errorf("verify beat 10 minutes ago on a 60 s interval: it is late")
	}
	if len(status.Modules) != 2 || len(status.PausedModules()) != 1 {
		t.Fatalf("modules = %+v", status.Modules)
	}
	m := status.PausedModules()[0]
	if m.ModuleID != sql.ModuleID || m.ModuleName != "Part 2" || m.PausedByName != "Aino Admin" || m.Unfinished != 3 {
		t.Errorf("paused module = %+v: SQL Part 2, paused by Aino, holding 3 unfinished rows", m)
	}

	f, err := st.HealthFactsGet(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	var held int
	for _, p := range f.Phases {
		if p.Phase == "import" {
			held = p.Held
		}
	}
	if held != 2 {
		t.Errorf("paused import holds %d rows, want 2 (checking_enrolment and submitting)", held)
	}
	if len(f.PausedModules) != 1 || f.PausedModules[0].Label != "SQL · Part 2" || f.PausedModules[0].Held != 3 {
		t.Errorf("paused modules = %+v", f.PausedModules)
	}
	rules := map[schedule.AlertRule]bool{}
	for _, a := range schedule.Evaluate(f, now) {
		rules[a.Rule] = true
	}
	for _, r := range []schedule.AlertRule{schedule.RulePhasePaused, schedule.RuleModulePaused, schedule.RulePhaseHeartbeatStale} {
		if !rules[r] {
			t.Errorf("%s did not fire", r)
		}
	}
}
