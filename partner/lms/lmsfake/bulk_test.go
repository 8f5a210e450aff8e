package lmsfake_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

// As read, the LMS's bulk transition records its audit row with no target_id, which the audit
// table's own CHECK refuses: the whole transaction rolls back and the LMS answers 400.
func TestBulkFailsOnTheLMSAuditCheck(t *testing.T) {
	t.Parallel()
	b := setup(t)

	id := b.registration("failed_permanent", reg{})
	_, err := b.client.BulkTransition(b.ctx, b.admin, []string{id}, lms.Cancel, "course closed")
	e := lmsErr(t, err)
	if e.Kind != lms.KindRejected || e.HTTPStatus != 400 || !strings.Contains(e.Message, "target_id_kind") {
		t.Errorf("bulk on the LMS's own CHECK: %v", e)
	}
	if r := b.row(id); r.State != "failed_permanent" {
		t.Errorf("the row moved although the call was refused: %s", r.State)
	}
	if w := b.writes(); w != [3]int{} {
		t.Errorf("a rolled-back bulk wrote %v", w)
	}
}

func TestBulkTransition(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := lmsfake.RelaxAuditTargetCheck(b.ctx, b.pool); err != nil {
		t.Fatal(err)
	}

	sent := b.now.Add(-48 * time.Hour)
	perm1 := b.registration("failed_permanent", reg{"needs_admin_attention": true})
	perm2 := b.registration("failed_permanent", reg{})
	misreg := b.registration("misregistered", reg{"submitted_at": sent})
	uncertain1 := b.registration("submission_uncertain", reg{"submitted_at": sent})
	uncertain2 := b.registration("submission_uncertain", reg{"submitted_at": sent})
	registered := b.registration("registered", reg{})
	later := b.registration("ready_to_submit", reg{})
	superseded := b.registration("failed_permanent", reg{"superseded_by_id": later, "superseded_at": b.now.Add(-time.Hour)})
	missing := "00000000-0000-4000-8000-00000000000a"

	ids := []string{perm1, perm2, misreg, uncertain1, uncertain2, registered, superseded, missing, perm1}
	res, err := b.client.BulkTransition(b.ctx, b.admin, ids, lms.Resubmit, "Sisu is back")
	if err != nil {
		t.Fatal(err)
	}
	want := lms.BulkResult{
		AppliedCount: 3,
		// Largest first; ties in the refusal enum's order.
		Skipped: []lms.SkipCount{
			{Refusal: lms.RefusalSubmissionUncertain, Count: 2},
			{Refusal: lms.RefusalSuperseded, Count: 1},
			{Refusal: lms.RefusalAlreadySucceeded, Count: 1},
		},
		// The duplicate id counts once: one row is missing.
		NotFoundCount:  1,
		MaxRowsPerCall: 500,
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("answer = %+v\nwant     %+v", res, want)
	}
	for _, id := range []string{perm1, perm2, misreg} {
		r := b.row(id)
		if r.State != "ready_to_submit" || r.NeedsAdminAttention || !r.NextAttemptAt.Equal(b.now) {
			t.Errorf("%s: %+v", id, r)
		}
		if evs := b.events(id); len(evs) != 1 || deref(evs[0].Actor) != b.admin || deref(evs[0].Message) != "Sisu is back" {
			t.Errorf("%s: events %+v", id, evs)
		}
	}
	for _, id := range []string{uncertain1, uncertain2, registered, superseded} {
		if evs := b.events(id); len(evs) != 0 {
			t.Errorf("skipped row %s got events", id)
		}
	}
	if r := b.row(uncertain1); r.State != "submission_uncertain" {
		t.Errorf("an uncertain row was resubmitted in bulk: %s", r.State)
	}
	as := b.audits()
	if len(as) != 1 {
		t.Fatalf("%d audit rows, want one for the lot", len(as))
	}
	a := as[0]
	if a.Action != "transition_item" || a.TargetKind != "credit_registration" || a.TargetID != nil || a.Actor != b.admin ||
		a.Affected == nil || *a.Affected != 3 || deref(a.Reason) != "Sisu is back" {
		t.Errorf("audit row = %+v", a)
	}
	var details struct {
		Action  map[string]string `json:"action"`
		IDs     []string          `json:"credit_registration_ids"`
		Skipped []lms.SkipCount   `json:"skipped"`
	}
	raw, _ := json.Marshal(a.Details)
	if err := json.Unmarshal(raw, &details); err != nil {
		t.Fatal(err)
	}
	// The ids as sent, duplicates and all.
	if details.Action["kind"] != "state_move" || details.Action["to_state"] != "ready_to_submit" ||
		!slices.Equal(details.IDs, ids) || !reflect.DeepEqual(details.Skipped, want.Skipped) {
		t.Errorf("audit details = %s", raw)
	}
}

// Cancelling in bulk skips uncertain rows too; checking them now does not, since checking never
// sends anything.
func TestBulkUncertainRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := lmsfake.RelaxAuditTargetCheck(b.ctx, b.pool); err != nil {
		t.Fatal(err)
	}

	old := b.registration("submission_uncertain", reg{"submitted_at": b.now.Add(-72 * time.Hour), "next_attempt_at": b.now.Add(time.Hour)})
	res, err := b.client.BulkTransition(b.ctx, b.admin, []string{old}, lms.Cancel, "r")
	if err != nil {
		t.Fatal(err)
	}
	if res.AppliedCount != 0 || res.SkippedCount(lms.RefusalSubmissionUncertain) != 1 {
		t.Errorf("cancel in bulk: %+v", res)
	}
	res, err = b.client.BulkTransition(b.ctx, b.admin, []string{old}, lms.CheckNow, "r")
	if err != nil {
		t.Fatal(err)
	}
	if res.AppliedCount != 1 || len(res.Skipped) != 0 {
		t.Errorf("check now in bulk: %+v", res)
	}
	if r := b.row(old); !r.NextAttemptAt.Equal(b.now) || r.State != "submission_uncertain" {
		t.Errorf("check now did not make the row due: %+v", r)
	}
}

func TestBulkCap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := lmsfake.RelaxAuditTargetCheck(b.ctx, b.pool); err != nil {
		t.Fatal(err)
	}

	ids := make([]string, 501)
	for i := range ids {
		ids[i] = "00000000-0000-4000-8000-" + strings.Repeat("0", 12-len(itoa(i))) + itoa(i)
	}
	body := func(ids []string) string {
		b, _ := json.Marshal(map[string]any{"action": map[string]string{"kind": "check_now"}, "credit_registration_ids": ids, "reason": "r"})
		return string(b)
	}
	status, got := b.post("registrations/bulk-transition", b.admin, body(ids))
	if status != 400 || got["message"] != "At most 500 registrations per call." {
		t.Errorf("501 ids: %d %v", status, got)
	}
	if w := b.writes(); w != [3]int{} {
		t.Errorf("a refused bulk wrote %v", w)
	}
	res, err := b.client.BulkTransition(b.ctx, b.admin, ids[:500], lms.CheckNow, "r")
	if err != nil {
		t.Fatal(err)
	}
	if res.NotFoundCount != 500 || res.AppliedCount != 0 {
		t.Errorf("500 ids: %+v", res)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var s []byte
	for ; i > 0; i /= 10 {
		s = append([]byte{byte('0' + i%10)}, s...)
	}
	return string(s)
}
