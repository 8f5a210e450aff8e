package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

const testLapse = store.DefaultClaimLapse

func (b *actionBundle) claim(t *testing.T, at time.Time, who store.ActionActor, ids ...string) store.ClaimResult {
	t.Helper()
	res, err := b.st.RegistrationClaim(context.Background(), at, store.ClaimParams{Scope: store.AllCourses(), IDs: ids, Actor: who, Lapse: testLapse})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (b *actionBundle) claimOf(t *testing.T, id string, now time.Time) *store.Claim {
	t.Helper()
	return b.get(t, id).Claim(now, testLapse)
}

// claimAudits returns the claim and release entries of a row, oldest first.
func (b *actionBundle) claimAudits(t *testing.T, id string) []store.AuditEntry {
	t.Helper()
	var out []store.AuditEntry
	for _, action := range []string{"claim", "release"} {
		list, _, err := b.st.AuditList(context.Background(), store.AuditFilter{RegistrationID: id, Action: action}, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, list...)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].CreatedAt.Before(out[j-1].CreatedAt); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestClaimTwoPeople(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	id := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true})
	start := actionNow.Add(-time.Hour)
	b.claim(t, start, b.anna, id)
	c := b.claimOf(t, id, actionNow)
	if c == nil || c.AccountID != b.anna.ID || c.AccountName != "Anna Support" || !c.ClaimedAt.Equal(start) {
		t.Fatalf("after Anna claims: %+v", c)
	}
	// Anna saying it again keeps her start and touches the claim.
	b.claim(t, start.Add(10*time.Minute), b.anna, id)
	if c := b.claimOf(t, id, actionNow); !c.ClaimedAt.Equal(start) || !c.TouchedAt.Equal(start.Add(10*time.Minute)) {
		t.Errorf("Anna again: %+v", c)
	}
	// Ben is warned, not stopped: he takes it over, and the result names whom from.
	res := b.claim(t, start.Add(20*time.Minute), b.ben, id)
	if res.TakenFrom[id] != "Anna Support" {
		t.Errorf("TakenFrom = %v", res.TakenFrom)
	}
	if c := b.claimOf(t, id, actionNow); c == nil || c.AccountID != b.ben.ID || !c.ClaimedAt.Equal(start.Add(20*time.Minute)) {
		t.Errorf("after Ben: %+v", c)
	}
	// Anna cannot release Ben's claim; Ben can.
	rel, err := b.st.RegistrationRelease(context.Background(), actionNow, store.ClaimParams{Scope: store.AllCourses(), IDs: []string{id}, Actor: b.anna, Lapse: testLapse})
	if err != nil || len(rel.IDs) != 0 {
		t.Errorf("Anna releasing Ben's: %v %v", rel, err)
	}
	if _, err := b.st.RegistrationRelease(context.Background(), actionNow, store.ClaimParams{Scope: store.AllCourses(), IDs: []string{id}, Actor: b.ben, Reason: "lunch", Lapse: testLapse}); err != nil {
		t.Fatal(err)
	}
	if c := b.claimOf(t, id, actionNow); c != nil {
		t.Errorf("after release: %+v", c)
	}
	got := b.claimAudits(t, id)
	if len(got) != 4 {
		t.Fatalf("%d claim audit entries, want 4: %+v", len(got), got)
	}
	want := []struct{ action, actor, reason string }{
		{"claim", b.anna.ID, "I'm on it."}, {"claim", b.anna.ID, "I'm on it."}, {"claim", b.ben.ID, "I'm on it."}, {"release", b.ben.ID, "lunch"},
	}
	for i, w := range want {
		if got[i].Action != w.action || got[i].ActorID != w.actor || got[i].Reason != w.reason {
			t.Errorf("entry %d: %s by %s (%q), want %s by %s (%q)", i, got[i].Action, got[i].ActorID, got[i].Reason, w.action, w.actor, w.reason)
		}
	}
	if d := store.ReadAuditDetails(got[2].Details); d.Claim == nil || d.Claim.PreviousAccountID != b.anna.ID || !d.Claim.PreviousActive {
		t.Errorf("Ben's claim details: %s", got[2].Details)
	}
	// regdesk's own words keep their code, so the audit says them in its reader's language; a
	// note the person typed has none and is shown as typed.
	for i, code := range []string{store.ClaimReasonClaimed, store.ClaimReasonClaimed, store.ClaimReasonClaimed, ""} {
		d := store.ReadAuditDetails(got[i].Details)
		if d.Claim == nil || d.Claim.ReasonCode != code || store.ReadClaimReason(got[i].Reason, d.Claim) != code {
			t.Errorf("entry %d: reason code in %s, want %q", i, got[i].Details, code)
		}
	}
}

// Entries written before claim reasons had codes hold only regdesk's English words: they are
// still recognised, so they read in today's reader's language; anything else is a person's note.
func TestReadClaimReasonRecognisesOldEnglish(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reason string
		claim  store.AuditClaim
		want   string
	}{
		{"I'm on it.", store.AuditClaim{}, store.ClaimReasonClaimed},
		{"Released.", store.AuditClaim{}, store.ClaimReasonReleased},
		{"Looked it up in Sisu.", store.AuditClaim{}, store.ClaimReasonLookup},
		{"Ended by the hand action cancel.", store.AuditClaim{EndedBy: "cancel"}, store.ClaimReasonEnded},
		{"Ended by the hand action cancel.", store.AuditClaim{}, ""},
		{"I'm on it. Back at two.", store.AuditClaim{}, ""},
		{"lunch", store.AuditClaim{ReasonCode: store.ClaimReasonReleased}, store.ClaimReasonReleased},
	} {
		if got := store.ReadClaimReason(tc.reason, &tc.claim); got != tc.want {
			t.Errorf("ReadClaimReason(%q, %+v) = %q, want %q", tc.reason, tc.claim, got, tc.want)
		}
	}
	if got := store.ReadClaimReason("I'm on it.", nil); got != "" {
		t.Errorf("an entry that is not a claim: %q", got)
	}
}

func TestClaimLapses(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	id := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true})
	free := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true})
	b.claim(t, actionNow.Add(-testLapse), b.anna, id)
	if c := b.claimOf(t, id, actionNow.Add(-time.Microsecond)); c == nil {
		t.Error("claim lapsed before its time")
	}
	if c := b.claimOf(t, id, actionNow); c != nil {
		t.Errorf("claim touched %v ago still counts: %+v", testLapse, c)
	}
	list := func(f store.ClaimedFilter) map[string]bool {
		rows, _, err := b.st.RegistrationList(context.Background(), actionNow, store.RegistrationFilter{Scope: store.AllCourses(), Claimed: f, ClaimAccountID: b.anna.ID, ClaimLapse: testLapse}, nil, 50)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, r := range rows {
			out[r.ID] = true
		}
		return out
	}
	if got := list(store.ClaimedMine); len(got) != 0 {
		t.Errorf("mine after the lapse: %v", got)
	}
	if got := list(store.ClaimedNobody); !got[id] || !got[free] {
		t.Errorf("unclaimed after the lapse: %v", got)
	}
	// Ben taking the lapsed claim does not count as taking it from Anna.
	if res := b.claim(t, actionNow, b.ben, id); len(res.TakenFrom) != 0 {
		t.Errorf("TakenFrom a lapsed claim: %v", res.TakenFrom)
	}
	b.claim(t, actionNow, b.anna, free)
	if got := list(store.ClaimedMine); len(got) != 1 || !got[free] {
		t.Errorf("mine: %v", got)
	}
	if got := list(store.ClaimedNobody); len(got) != 0 {
		t.Errorf("unclaimed: %v", got)
	}
}

func TestClaimEndsOnSettle(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	id := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true})
	b.claim(t, actionNow.Add(-time.Hour), b.anna, id)
	// Ben settles it: Anna's claim ends in his action's transaction, recorded as his release.
	res, err := b.svc.Apply(ctx, actionNow, store.ActionParams{Scope: store.AllCourses(), RegistrationID: id, Action: schedule.ActionCancel,
		Version: b.ledger(t, id).Version, Reason: "student withdrew", Actor: b.ben})
	if err != nil {
		t.Fatal(err)
	}
	if c := b.get(t, id).ClaimColumns; c.ClaimAccountID != nil {
		t.Errorf("claim after the settling action: %+v", c)
	}
	got := b.claimAudits(t, id)
	if len(got) != 2 || got[1].Action != "release" || got[1].ActorID != b.ben.ID || !got[1].CreatedAt.Equal(actionNow) {
		t.Fatalf("audit: %+v", got)
	}
	if d := store.ReadAuditDetails(got[1].Details); d.Claim == nil || d.Claim.EndedBy != string(schedule.ActionCancel) || d.Claim.PreviousAccountID != b.anna.ID {
		t.Errorf("release details: %s", got[1].Details)
	}
	_ = res

	// A failing action leaves the claim alone: nothing is written.
	other := b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed", NeedsAdminAttention: true})
	b.claim(t, actionNow.Add(-time.Hour), b.anna, other)
	_, err = b.svc.Apply(ctx, actionNow, store.ActionParams{Scope: store.AllCourses(), RegistrationID: other, Action: schedule.ActionCancel,
		Version: b.ledger(t, other).Version - 1, Reason: "stale page", Actor: b.ben})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale action: %v", err)
	}
	if c := b.claimOf(t, other, actionNow); c == nil || c.AccountID != b.anna.ID {
		t.Errorf("claim after a refused action: %+v", c)
	}
}

func TestClaimOutOfScope(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	id := b.addRow(t, storetest.Registration{State: "failed_permanent"})
	_, err := b.st.RegistrationClaim(context.Background(), actionNow, store.ClaimParams{IDs: []string{id, "junk"}, Actor: b.anna,
		Scope: store.CoursesOnly([]string{storetest.NewID()}), Lapse: testLapse})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("claim outside scope: %v", err)
	}
	if _, err := b.st.RegistrationClaim(context.Background(), actionNow, store.ClaimParams{Scope: store.AllCourses(), IDs: []string{id}, Actor: b.anna,
		Reason: string(make([]rune, store.ClaimReasonMaxLength+1)), Lapse: testLapse}); err == nil {
		t.Error("an overlong note was taken")
	}
	if c := b.get(t, id).ClaimColumns; c.ClaimAccountID != nil {
		t.Errorf("claimed anyway: %+v", c)
	}
}

// A lookup leaves someone else's live claim alone, and takes a lapsed one as a free row.
func TestLookupClaimLeavesOthersLiveClaims(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	id := b.uncertainRow(t)
	b.claim(t, actionNow, b.ben, id)
	lookupAt := func(at time.Time) store.LookupClaimOutcome {
		t.Helper()
		_, out, err := b.st.EventInsertLookupClaiming(ctx, store.LookupEvent{Scope: store.AllCourses(), RegistrationID: id, ActorID: &b.anna.ID, CreatedAt: at,
			Record: store.LookupRecord{V: store.LookupRecordVersion, AttainmentsCall: &store.LookupCall{Endpoint: "resolve_enrolments",
				RequestedAt: at, Answer: "answered"}}}, b.anna, testLapse)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := lookupAt(actionNow.Add(time.Hour)); got != store.LookupClaimNone {
		t.Fatalf("Anna's lookup of Ben's row: %q", got)
	}
	if c := b.claimOf(t, id, actionNow.Add(time.Hour)); c == nil || c.AccountID != b.ben.ID || !c.TouchedAt.Equal(actionNow) {
		t.Fatalf("Ben's claim after Anna's lookup: %+v", c)
	}
	later := actionNow.Add(testLapse + time.Minute)
	if got := lookupAt(later); got != store.LookupClaimStarted {
		t.Fatalf("Anna's lookup after Ben's claim lapsed: %q", got)
	}
	if c := b.claimOf(t, id, later); c == nil || c.AccountID != b.anna.ID || !c.ClaimedAt.Equal(later) {
		t.Fatalf("claim after Anna's lookup of a lapsed row: %+v", c)
	}
	if got := lookupAt(later.Add(time.Hour)); got != store.LookupClaimTouched {
		t.Fatalf("Anna's second lookup: %q", got)
	}
}
