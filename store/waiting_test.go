package store_test

import (
	"context"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// needsPersonSince reads the stamp regdesk's copy of the ledger keeps for each row.
func needsPersonSince(t *testing.T, st *store.Store) map[string]*time.Time {
	t.Helper()
	rows, _ := st.Pool().Query(context.Background(), `SELECT id::text, needs_person_since FROM ledger_mirror`)
	type stamp struct {
		ID    string     `db:"id"`
		Since *time.Time `db:"needs_person_since"`
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[stamp])
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]*time.Time, len(list))
	for _, s := range list {
		out[s.ID] = s.Since
	}
	return out
}

// The trigger's rules are schedule's: on rows written once, a row needs a person (dismissals
// aside) at an instant only when its stamp is at or before that instant, and a stamp reached means
// the row needs a person then, or needed one at its stamp and has since lapsed the one way the
// LMS's rules allow (the pipeline's flag, explained by stuck_in_state once the row passes its
// state's threshold); a stamp ahead of the write is the very microsecond a time rule fires.
func TestNeedsPersonSinceAgreesWithSchedule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := storetest.Now().Add(-45*time.Minute - 33*time.Second + 123456*time.Microsecond)
	linking := linkingInstants(base)
	st, _ := storetest.NewWithURL(t, storetest.Options{AccountLinkingSince: &linking.since})
	written := base.Add(-2 * time.Second)
	r := mrand.New(mrand.NewPCG(2026, 12))
	gen := genRows(r, 4000, base)
	for i := range gen {
		gen[i].updatedAt = written
	}
	insertGenerated(ctx, t, st, linking, gen)
	facts, err := st.ScheduleRowsForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stamps := needsPersonSince(t, st)
	needs := func(row schedule.Row, at time.Time) bool {
		row.DismissedReasons = nil
		return schedule.Classify(row, at).NeedsAdmin
	}
	nows := []time.Time{written, base, base.Add(time.Microsecond), base.Add(90 * time.Minute), base.Add(26 * time.Hour),
		base.Add(4 * 24 * time.Hour), base.Add(15 * 24 * time.Hour)}
	var stamped, ahead int
	// lapsed: only the flag asked, and stuck_in_state explains it now.
	lapsed := func(row schedule.Row, at time.Time) bool {
		row.DismissedReasons = nil
		return row.NeedsAdminAttention && schedule.Classify(row, at).Reasons == schedule.ReasonSetOf(schedule.ReasonStuckInState)
	}
	var lapses int
	for id, row := range facts {
		s := stamps[id]
		for _, now := range nows {
			reached := s != nil && !s.After(now)
			got := needs(row, now)
			switch {
			case got && !reached:
				t.Fatalf("row %s (%+v) at %v: needs a person, but its stamp is %v", id, row, now, s)
			case !got && reached && !(lapsed(row, now) && needs(row, later(*s, written))):
				t.Fatalf("row %s (%+v) at %v: needs nobody, but its stamp %v is reached", id, row, now, s)
			case !got && reached:
				lapses++
			}
		}
		if s == nil {
			continue
		}
		stamped++
		if s.After(written) {
			ahead++
			if !needs(row, *s) || needs(row, s.Add(-time.Microsecond)) {
				t.Fatalf("row %s (%+v): stamp %v is not the instant it starts to need a person", id, row, s)
			}
		}
	}
	if stamped < 500 || ahead < 100 || lapses == 0 {
		t.Fatalf("only %d rows stamped, %d ahead of their write, %d lapses: the generator no longer covers the rules", stamped, ahead, lapses)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// pipelineWrite changes a row as the pipeline does: naming neither needs_person_since nor version,
// dating the write at.
func pipelineWrite(t *testing.T, b *actionBundle, id string, at time.Time, set string, args ...any) {
	t.Helper()
	storetest.LMSExecAsOf(t, b.st, `UPDATE credit_registrations SET `+set+`, updated_at = $2 WHERE id = $1`, append([]any{id, at}, args...)...)
}

func (b *actionBundle) waitingSince(t *testing.T, id string) *time.Time {
	t.Helper()
	return b.get(t, id).NeedsPersonSince
}

func sameInstant(a *time.Time, b time.Time) bool { return a != nil && a.Equal(b) }

// A row that needed a person, was retried by the pipeline and needs one again waits from the
// first moment; once settled, a later call for a person counts afresh.
func TestWaitingKeepsTheFirstMomentUntilSettled(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	t0 := actionNow.Add(-5 * 24 * time.Hour)
	id := b.addRow(t, storetest.Registration{State: "submission_uncertain", StateChangedAt: t0,
		SubmittedAt: ptrTime(t0.Add(-time.Hour)), SubmittedAttainmentID: "hy-kur-1", StudentNumber: "012345678"})
	if got := b.waitingSince(t, id); !sameInstant(got, t0) {
		t.Fatalf("uncertain since %v: waiting since %v", t0, got)
	}
	// The pipeline resubmits it; while it is on its way nobody is asked, and the moment is kept.
	t1 := t0.Add(2 * time.Hour)
	pipelineWrite(t, b, id, t1, `state = 'ready_to_submit', state_entered_at = $2, state_changed_at = $2, submitted_at = NULL`)
	pipelineWrite(t, b, id, t1.Add(time.Minute), `state = 'submitting', state_entered_at = $2, state_changed_at = $2, submitted_at = $2`)
	if got := b.waitingSince(t, id); !sameInstant(got, t0) {
		t.Fatalf("retried: waiting since %v, want %v kept", got, t0)
	}
	t3 := actionNow.Add(-time.Hour)
	pipelineWrite(t, b, id, t3, `state = 'submission_uncertain', state_entered_at = $2, state_changed_at = $2`)
	reg := b.get(t, id)
	if !sameInstant(reg.NeedsPersonSince, t0) || !reg.StateChangedAt.Equal(t3) {
		t.Fatalf("uncertain again: waiting since %v (state since %v), want the first moment %v", reg.NeedsPersonSince, reg.StateChangedAt, t0)
	}
	// The queue's longest-waiting-first puts it before a row uncertain since between the two.
	mid := b.addRow(t, storetest.Registration{State: "submission_uncertain", StateChangedAt: t0.Add(24 * time.Hour),
		SubmittedAt: ptrTime(t0), SubmittedAttainmentID: "hy-kur-2", StudentNumber: "012345679"})
	list, _, err := b.st.RegistrationList(context.Background(), actionNow, store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true, Sort: store.SortWaiting}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != id || list[1].ID != mid {
		t.Fatalf("longest waiting first: %v, want %s then %s", ids(list), id, mid)
	}

	// Registered settles it: nobody is asked, the moment goes.
	t4 := actionNow.Add(-30 * time.Minute)
	pipelineWrite(t, b, id, t4, `state = 'registered', state_entered_at = $2, state_changed_at = $2, registered_at = $2, terminal_at = $2`)
	if got := b.waitingSince(t, id); got != nil {
		t.Fatalf("registered: waiting since %v, want none", got)
	}
	// Sisu reverses it: a new call for a person, counted from the reversal.
	t5 := actionNow.Add(-10 * time.Minute)
	pipelineWrite(t, b, id, t5, `state = 'misregistered', state_entered_at = $2, state_changed_at = $2, terminal_at = NULL`)
	if got := b.waitingSince(t, id); !sameInstant(got, t5) {
		t.Fatalf("reversed after registering: waiting since %v, want %v", got, t5)
	}
}

// A person's settling action restarts the count; "check now" does not.
func TestWaitingRestartsAfterAPersonsAction(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	id := b.uncertainRow(t) // flagged, uncertain since an hour before actionNow
	first := b.waitingSince(t, id)
	if first == nil || !first.Before(actionNow) {
		t.Fatalf("uncertain row: waiting since %v", first)
	}
	if _, err := b.act(t, id, schedule.ActionCheckNow, ""); err != nil {
		t.Fatal(err)
	}
	if got := b.waitingSince(t, id); !sameInstant(got, *first) {
		t.Fatalf("after check now: waiting since %v, want %v kept", got, first)
	}
	b.addLookup(t, id, actionNow.Add(-time.Minute), notInSisu)
	if _, err := b.act(t, id, schedule.ActionResubmit, schedule.RiskPossibleDuplicate); err != nil {
		t.Fatal(err)
	}
	if got := b.waitingSince(t, id); got != nil {
		t.Fatalf("resubmitted: waiting since %v, want none", got)
	}
	later := actionNow.Add(3 * time.Hour)
	pipelineWrite(t, b, id, later, `state = 'submission_uncertain', state_entered_at = $2, state_changed_at = $2, submitted_at = $2`)
	if got := b.waitingSince(t, id); !sameInstant(got, later) {
		t.Fatalf("uncertain again after a resubmit: waiting since %v, want %v", got, later)
	}
}

// A time rule that had not fired when the row moved on leaves no stamp behind.
func TestWaitingDropsATimeRuleThatNeverFired(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	sent, seen := actionNow.Add(-2*24*time.Hour), actionNow.Add(-20*time.Minute)
	id := b.addRow(t, storetest.Registration{State: "partially_registered", StateChangedAt: seen, SubmittedAt: &sent,
		PartiallyRegisteredAt: &seen, SubmittedAttainmentID: "hy-kur-1", StudentNumber: "012345678"})
	if got, want := b.waitingSince(t, id), seen.Add(schedule.PartialRegistrationAdminAfter); !sameInstant(got, want) {
		t.Fatalf("partly registered: stamp %v, want when it is overdue %v", got, want)
	}
	pipelineWrite(t, b, id, actionNow, `state = 'awaiting_verification', state_entered_at = $2, state_changed_at = $2, partially_registered_at = NULL`)
	if got, want := b.waitingSince(t, id), sent.Add(schedule.VerifyMaxAge); !sameInstant(got, want) {
		t.Fatalf("awaiting: stamp %v, want when verification gives up, %v", got, want)
	}
	// The retry window's end is no reason (the sweep codes the row, and then it asks a person):
	// a retried row waits for nobody until then.
	pipelineWrite(t, b, id, actionNow.Add(time.Minute), `state = 'failed_retryable', state_entered_at = $2, state_changed_at = $2, first_failed_at = $2`)
	if got := b.waitingSince(t, id); got != nil {
		t.Fatalf("retrying: stamp %v, want none", got)
	}
}

func ids(list []store.RegistrationListRow) []string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = r.ID
	}
	return out
}
