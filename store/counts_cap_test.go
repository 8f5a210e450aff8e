package store_test

import (
	"context"
	"testing"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// TestRegistrationCountsCapEachPhaseLowerThanTheReasons: a phase's count stops at PhaseCountCap
// ("that many or more"), while the reasons and needs-admin, which people work through, are
// exact; a phase below its cap is exact too.
func TestRegistrationCountsCapEachPhaseLowerThanTheReasons(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	settled := b.addRow(t, storetest.Registration{State: "registered"})
	flagged := b.addRow(t, storetest.Registration{State: "registered", NeedsAdminAttention: true})
	// PhaseCountCap more attempts of each completion, settled (a completion may have many settled
	// attempts), the second lot flagged by the pipeline: each a new attempt number, with no Sisu
	// ids (those are unique per live row).
	copies := func(id string, n int) {
		t.Helper()
		_, err := storetest.LMS(t, b.st).Exec(ctx, `INSERT INTO credit_registrations
SELECT (jsonb_populate_record(NULL::credit_registrations, to_jsonb(cr) || jsonb_build_object(
  'id', gen_random_uuid(), 'attempt_number', cr.attempt_number + g,
  'sisu_attainment_id', NULL, 'sisu_person_id', NULL, 'submitted_attainment_id', NULL))).*
FROM credit_registrations cr, generate_series(1, $2::int) g WHERE cr.id = $1::uuid`, id, n)
		if err != nil {
			t.Fatal(err)
		}
	}
	copies(settled, store.PhaseCountCap)
	copies(flagged, store.PhaseCountCap)
	storetest.SyncMirror(t, b.st)

	c, err := b.st.RegistrationCountsGet(ctx, actionNow, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Phases[schedule.PhaseSettled]; got != store.PhaseCountCap {
		t.Errorf("settled = %d, want the phase cap %d", got, store.PhaseCountCap)
	}
	if got, want := c.Reasons[schedule.ReasonFlaggedByPipeline], int64(store.PhaseCountCap+1); got != want {
		t.Errorf("flagged_by_pipeline = %d, want every one of the %d flagged rows", got, want)
	}
	if got, want := c.NeedsAdmin, int64(store.PhaseCountCap+1); got != want {
		t.Errorf("needs admin = %d, want %d", got, want)
	}
	if got := c.Phases[schedule.PhaseAwaitingPreconditions]; got != 0 {
		t.Errorf("awaiting preconditions = %d, want 0", got)
	}
}
