package store_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

func TestBulkPreviewAndApply(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()

	expired := storetest.Registration{State: "failed_permanent", ErrorCode: "retry_window_expired", NeedsAdminAttention: true}
	rowA := b.addRow(t, expired)
	rowB := b.addRow(t, expired)
	rowC := b.uncertainRow(t)
	b.addLookup(t, rowC, actionNow.Add(-time.Minute), notInSisu)
	rowD := b.addRow(t, storetest.Registration{State: "registered"})
	rowE := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "invalid_credits", NeedsAdminAttention: true})
	rowF := b.addRow(t, storetest.Registration{State: "misregistered", ErrorCode: "misregistered", NeedsAdminAttention: true,
		SubmittedAt: ptrTime(actionNow.Add(-72 * time.Hour)), SubmittedAttainmentID: "hy-kur-7"})
	missing := storetest.NewID()

	preview, err := b.st.RegistrationBulkPreview(ctx, actionNow, store.BulkPreviewParams{Scope: store.AllCourses(), Action: schedule.ActionResubmit,
		IDs: []string{rowA, rowB, rowC, rowD, rowE, rowF, rowA, missing, "junk"}})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	if len(preview.Rows) != 6 || !slices.Equal(preview.NotFound, sorted(missing, "junk")) {
		t.Errorf("preview rows %d, not found %v", len(preview.Rows), preview.NotFound)
	}
	type group struct {
		allowed bool
		refusal schedule.RefusalCode
		risk    schedule.RiskLabel
		ids     []string
	}
	var groups []group
	for _, g := range preview.Groups {
		var ids []string
		for _, r := range g.Rows {
			ids = append(ids, r.ID)
		}
		groups = append(groups, group{g.Allowed, g.Refusal, g.Risk, ids})
	}
	want := []group{
		{true, "", schedule.RiskNormal, sorted(rowA, rowB)},
		{true, "", schedule.RiskReplacesReversedAttainment, []string{rowF}},
		{true, "", schedule.RiskLikelyRejectedAgain, []string{rowE}},
		{false, schedule.RefusalAlreadySucceeded, "", []string{rowD}},
		{false, schedule.RefusalSubmissionUncertain, "", []string{rowC}},
	}
	if len(groups) != len(want) {
		t.Fatalf("groups = %+v, want %+v", groups, want)
	}
	for i := range want {
		g, w := groups[i], want[i]
		if g.allowed != w.allowed || g.refusal != w.refusal || g.risk != w.risk || !slices.Equal(g.ids, w.ids) {
			t.Errorf("group %d = %+v, want %+v", i, g, w)
		}
	}

	// Ben touches B after the preview.
	b.exec(t, `UPDATE credit_registrations SET needs_admin_attention = false WHERE id = $1`, rowB)

	var rows []store.BulkRow
	for _, r := range preview.Rows {
		rows = append(rows, store.BulkRow{ID: r.ID, Version: r.Version, LookupID: r.LookupID})
	}
	rows = append(rows, store.BulkRow{ID: missing}, store.BulkRow{ID: "junk"})
	params := store.BulkApplyParams{Scope: store.AllCourses(), Action: schedule.ActionResubmit, Rows: rows, Reason: "course code fixed",
		ConfirmedRisks: []schedule.RiskLabel{schedule.RiskReplacesReversedAttainment}, Actor: b.anna}
	res, err := b.svc.ApplyBulk(ctx, actionNow, params)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	outcomes := map[string]store.BulkOutcome{}
	for _, r := range res.Rows {
		outcomes[r.ID] = r.Outcome
	}
	wantOutcomes := map[string]store.BulkOutcome{rowA: store.BulkApplied, rowB: store.BulkChanged, rowC: store.BulkSkipped,
		rowD: store.BulkSkipped, rowE: store.BulkRiskNotConfirmed, rowF: store.BulkApplied, missing: store.BulkNotFound, "junk": store.BulkNotFound}
	for id, w := range wantOutcomes {
		if outcomes[id] != w {
			t.Errorf("row %s: outcome %q, want %q", id, outcomes[id], w)
		}
	}
	if res.Applied != 2 || len(res.Rows) != len(wantOutcomes) {
		t.Errorf("applied %d of %d rows", res.Applied, len(res.Rows))
	}
	for id, state := range map[string]string{rowA: "ready_to_submit", rowF: "ready_to_submit", rowB: "failed_permanent",
		rowC: "submission_uncertain", rowD: "registered", rowE: "failed_permanent"} {
		l := b.ledger(t, id)
		wantEvents := 0
		if state == "ready_to_submit" {
			wantEvents = 1
		}
		if l.State != state || l.AdminEvents != wantEvents {
			t.Errorf("row %s: state %s with %d admin events, want %s with %d", id, l.State, l.AdminEvents, state, wantEvents)
		}
	}

	// regdesk's record: the person's bulk action with every row's judgement, and the LMS's answer
	// with what it did to each row.
	var action, after, outcome string
	var details, answer []byte
	if err := b.st.Pool().QueryRow(ctx, `SELECT a.action, a.after_state, a.details, ans.outcome, ans.answer
FROM actions a JOIN action_answers ans ON ans.action_id = a.id WHERE a.id = $1`, res.AuditID).Scan(&action, &after, &details, &outcome, &answer); err != nil {
		t.Fatal(err)
	}
	d := store.ReadAuditDetails(details)
	if action != "resubmit" || after != "ready_to_submit" || outcome != "applied" || len(d.Rows) != len(wantOutcomes) ||
		d.Skipped["submission_uncertain"] != 1 || d.Skipped["already_succeeded"] != 1 || d.Strictness != schedule.StrictnessAnyExceptSubmissionUncertain {
		t.Errorf("regdesk's audit: %s → %s (%s), details %s", action, after, outcome, details)
	}
	if !strings.Contains(string(answer), `"applied_count": 2`) {
		t.Errorf("the LMS's answer as recorded: %s", answer)
	}
	// The LMS's own audit: one bulk row naming Anna's LMS user, and the two rows it moved.
	var audits, affected int
	var actor string
	if err := b.st.Pool().QueryRow(ctx, `SELECT count(*), max(affected_row_count), max(actor_user_id::text) FROM credit_registration_admin_actions`).
		Scan(&audits, &affected, &actor); err != nil || audits != 1 || affected != 2 || actor != b.anna.LMSUserID {
		t.Errorf("%d LMS audit rows affecting %d by %s, want one for the bulk affecting 2 by Anna (%v)", audits, affected, actor, err)
	}

	// The same preview applied again: every row it acted on has changed since.
	again, err := b.svc.ApplyBulk(ctx, actionNow, params)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again.Rows {
		if (r.ID == rowA || r.ID == rowF) && r.Outcome != store.BulkChanged {
			t.Errorf("row %s applied twice from one preview: %q", r.ID, r.Outcome)
		}
	}
	if again.Applied != 0 {
		t.Errorf("second apply acted on %d rows", again.Applied)
	}
}

func sorted(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

func TestBulkClearFlagSkipsUncertain(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	uncertain := b.uncertainRow(t)
	flagged := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true})
	preview, err := b.st.RegistrationBulkPreview(ctx, actionNow, store.BulkPreviewParams{Scope: store.AllCourses(), Action: schedule.ActionClearFlag, IDs: []string{uncertain, flagged}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []store.BulkRow
	for _, r := range preview.Rows {
		rows = append(rows, store.BulkRow{ID: r.ID, Version: r.Version, LookupID: r.LookupID})
	}
	res, err := b.svc.ApplyBulk(ctx, actionNow, store.BulkApplyParams{Scope: store.AllCourses(), Action: schedule.ActionClearFlag, Rows: rows,
		Reason: "config fixed", Actor: b.anna})
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 1 || !b.ledger(t, uncertain).Flag || b.ledger(t, flagged).Flag {
		t.Errorf("applied %d; uncertain flag %v, other flag %v", res.Applied, b.ledger(t, uncertain).Flag, b.ledger(t, flagged).Flag)
	}
	var after *string
	if err := b.st.Pool().QueryRow(ctx, `SELECT after_state FROM actions WHERE id = $1`, res.AuditID).Scan(&after); err != nil || after != nil {
		t.Errorf("after_state = %v (%v), want NULL for an action that moves no row", after, err)
	}
}

func TestBulkPreviewByFilter(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	a := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "retry_window_expired"})
	c := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed"})
	b.addRow(t, storetest.Registration{State: "registered"})
	filter := store.RegistrationFilter{Scope: store.AllCourses(), States: []schedule.State{schedule.StateFailedPermanent}}
	preview, err := b.st.RegistrationBulkPreview(ctx, actionNow, store.BulkPreviewParams{Scope: store.AllCourses(), Action: schedule.ActionCancel, Filter: &filter})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range preview.Rows {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, sorted(a, c)) {
		t.Errorf("filtered preview rows %v, want %v", ids, sorted(a, c))
	}
	// A teacher's scope is kept.
	filter.Scope = store.CoursesOnly([]string{storetest.NewID()})
	if preview, err := b.st.RegistrationBulkPreview(ctx, actionNow, store.BulkPreviewParams{Scope: store.AllCourses(), Action: schedule.ActionCancel, Filter: &filter}); err != nil || len(preview.Rows) != 0 {
		t.Errorf("out-of-scope preview: %d rows, %v", len(preview.Rows), err)
	}

	// 501 matching rows are too many.
	b.exec(t, `WITH c AS (
  INSERT INTO course_module_completions (id, user_id, course_id, course_module_id, completion_date, grade, passed,
    completion_language, eligible_for_ects, email, completion_granter_user_id)
  SELECT gen_random_uuid(), $1, $2, $3, $5, 4, true, 'fi-FI', true, 'x@example.invalid', $1 FROM generate_series(1, 501) RETURNING id)
INSERT INTO credit_registrations (id, course_module_completion_id, user_id, course_id, course_module_id, course_instance_id, state, terminal_at)
SELECT gen_random_uuid(), c.id, $1, $2, $3, $4, 'cancelled', $5 FROM c`,
		b.student.ID, b.course.ID, b.course.ModuleID, b.course.InstanceID, actionNow.Add(-time.Hour))
	_, err = b.st.RegistrationBulkPreview(ctx, actionNow, store.BulkPreviewParams{Scope: store.AllCourses(), Action: schedule.ActionResubmit,
		Filter: &store.RegistrationFilter{Scope: store.AllCourses(), States: []schedule.State{schedule.StateCancelled}}})
	if ve, ok := errors.AsType[*store.ValidationError](err); !ok || ve.Field != "filter" {
		t.Errorf("501 matching rows: err = %v, want a ValidationError", err)
	}
	many := make([]string, store.BulkMaxRows+1)
	for i := range many {
		many[i] = storetest.NewID()
	}
	if _, err := b.st.RegistrationBulkPreview(ctx, actionNow, store.BulkPreviewParams{Scope: store.AllCourses(), Action: schedule.ActionCancel, IDs: many}); !isValidation(err, "rows") {
		t.Errorf("501 ids: err = %v", err)
	}
}

func isValidation(err error, field string) bool {
	ve, ok := errors.AsType[*store.ValidationError](err)
	return ok && ve.Field == field
}

func TestBulkApplyValidation(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	id := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "retry_window_expired"})
	version := b.ledger(t, id).Version
	tests := []struct {
		name  string
		p     store.BulkApplyParams
		field string
	}{
		{"NoRows", store.BulkApplyParams{Scope: store.AllCourses(), Action: schedule.ActionCancel, Reason: "x", Actor: b.anna}, "rows"},
		{"BlankReason", store.BulkApplyParams{Scope: store.AllCourses(), Action: schedule.ActionCancel, Rows: []store.BulkRow{{ID: id, Version: version}}, Reason: " ", Actor: b.anna}, "reason"},
		{"UnknownAction", store.BulkApplyParams{Scope: store.AllCourses(), Action: "launder", Rows: []store.BulkRow{{ID: id, Version: version}}, Reason: "x", Actor: b.anna}, "action"},
		{"OnlyJunk", store.BulkApplyParams{Scope: store.AllCourses(), Action: schedule.ActionCancel, Rows: []store.BulkRow{{ID: "junk"}}, Reason: "x", Actor: b.anna}, "rows"},
	}
	for _, tc := range tests {
		if _, err := b.svc.ApplyBulk(ctx, actionNow, tc.p); !isValidation(err, tc.field) {
			t.Errorf("%s: err = %v, want a ValidationError on %s", tc.name, err, tc.field)
		}
	}
	var audits int
	if err := b.st.Pool().QueryRow(ctx, `SELECT count(*) FROM credit_registration_admin_actions`).Scan(&audits); err != nil || audits != 0 {
		t.Errorf("bad input wrote %d audit rows (%v)", audits, err)
	}
	if l := b.ledger(t, id); l.Version != version || l.State != "failed_permanent" {
		t.Errorf("bad input changed the row: %+v", l)
	}
}

// TestActionsOutsideScopeFindNothing acts on a row as someone whose scope is another course: the
// locked read that decides finds no row, so nothing is written, for one row and in bulk.
func TestActionsOutsideScopeFindNothing(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	id := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "retry_window_expired", NeedsAdminAttention: true})
	version := b.ledger(t, id).Version
	elsewhere := store.CoursesOnly([]string{storetest.NewID()})

	_, err := b.svc.Apply(ctx, actionNow, store.ActionParams{RegistrationID: id, Action: schedule.ActionClearFlag,
		Version: version, Reason: "out of scope", Actor: b.anna, Scope: elsewhere})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("one row outside the scope: err = %v, want ErrNotFound", err)
	}
	preview, err := b.st.RegistrationBulkPreview(ctx, actionNow, store.BulkPreviewParams{Action: schedule.ActionClearFlag,
		IDs: []string{id}, Scope: elsewhere})
	if err != nil || len(preview.Rows) != 0 || !slices.Equal(preview.NotFound, []string{id}) {
		t.Errorf("bulk preview outside the scope = %+v, %v; want the row not found", preview, err)
	}
	res, err := b.svc.ApplyBulk(ctx, actionNow, store.BulkApplyParams{Action: schedule.ActionClearFlag,
		Rows: []store.BulkRow{{ID: id, Version: version}}, Reason: "out of scope", Actor: b.anna, Scope: elsewhere})
	if err != nil || res.Applied != 0 || len(res.Rows) != 1 || res.Rows[0].Outcome != store.BulkNotFound {
		t.Errorf("bulk apply outside the scope = %+v, %v; want the row not found", res, err)
	}
	if l := b.ledger(t, id); !l.Flag || l.Version != version || l.AdminEvents != 0 {
		t.Errorf("the row changed: %+v", l)
	}

	// In scope, the same action goes through.
	if _, err := b.svc.Apply(ctx, actionNow, store.ActionParams{RegistrationID: id, Action: schedule.ActionClearFlag,
		Version: version, Reason: "in scope", Actor: b.anna, Scope: store.CoursesOnly([]string{b.course.ID})}); err != nil {
		t.Errorf("in scope: %v", err)
	}
}
