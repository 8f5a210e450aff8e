package lmsfake_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

// sisuAnswers is a Sisu whose answers the test sets, and which counts what it was asked.
type sisuAnswers struct {
	mu       sync.Mutex
	verify   map[string]lmsfake.SisuAnswer // by submitted attainment id
	existing map[string]lmsfake.SisuAnswer // by student number
	asked    int
}

func (s *sisuAnswers) Verify(_ context.Context, id string) (lmsfake.SisuAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	return s.verify[id], nil
}

func (s *sisuAnswers) Existing(_ context.Context, studentNumber, _ string) (lmsfake.SisuAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	return s.existing[studentNumber], nil
}

func TestPipelineStandInMovesDueRowsAsVerifyDoes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	due := b.now.Add(-time.Minute)
	sisu := &sisuAnswers{
		verify: map[string]lmsfake.SisuAnswer{
			"hy-kur-landed":  {Outcome: lmsfake.SisuRegistered, AttainmentID: "hy-att-cu-1", AttainmentType: "CourseUnitAttainment"},
			"hy-kur-partial": {Outcome: lmsfake.SisuPartial, AttainmentID: "hy-kur-partial", AttainmentType: "AssessmentItemAttainment"},
			"hy-kur-lost":    {Outcome: lmsfake.SisuNotRegistered},
		},
		existing: map[string]lmsfake.SisuAnswer{
			"012345678": {Outcome: lmsfake.SisuRegistered, AttainmentID: "hy-att-other", AttainmentType: "CourseUnitAttainment"},
		},
	}
	p := &lmsfake.Pipeline{Server: b.fake, Sisu: sisu}

	landed := b.registration("submission_uncertain", reg{"submitted_attainment_id": "hy-kur-landed", "next_attempt_at": due,
		"submitted_at": b.now.Add(-6 * time.Hour), "needs_admin_attention": true, "error_code": "sisu_timeout"})
	// A regrade's old row waits on the landed one: it is replaced when that one is registered.
	old := b.registration("registered", reg{})
	b.exec(`UPDATE credit_registrations SET pending_superseded_by_id = $1 WHERE id = $2`, landed, old)
	partial := b.registration("awaiting_verification", reg{"submitted_attainment_id": "hy-kur-partial", "next_attempt_at": due})
	lost := b.registration("awaiting_verification", reg{"submitted_attainment_id": "hy-kur-lost", "next_attempt_at": due})
	found := b.registration("submission_uncertain", reg{"student_number": "012345678", "uh_course_code": "TKT10001", "next_attempt_at": due})
	pending := b.registration("awaiting_verification", reg{"submitted_attainment_id": "hy-kur-pending", "next_attempt_at": due})
	later := b.registration("submission_uncertain", reg{"submitted_attainment_id": "hy-kur-landed-2"})
	sisu.verify["hy-kur-landed-2"] = lmsfake.SisuAnswer{Outcome: lmsfake.SisuRegistered, AttainmentID: "hy-att-cu-2", AttainmentType: "CourseUnitAttainment"}

	moved, err := p.Poll(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if moved != 4 {
		t.Errorf("moved %d rows, want 4 (landed, partial, lost, found)", moved)
	}
	want := map[string]string{landed: "registered", partial: "partially_registered", lost: "failed_retryable", found: "duplicate",
		pending: "awaiting_verification", later: "submission_uncertain"}
	for id, state := range want {
		if got := b.row(id).State; got != state {
			t.Errorf("row %s is %s, want %s", id, got, state)
		}
	}
	r := b.row(landed)
	if r.TerminalAt == nil || r.NeedsAdminAttention || r.ErrorCode != nil {
		t.Errorf("registered row = %+v, want terminal, flag down, no error", r)
	}
	if got := b.one(`SELECT concat_ws('|', sisu_attainment_id, registered_at IS NOT NULL) FROM credit_registrations WHERE id = $1`, landed); got != "hy-att-cu-1|t" {
		t.Errorf("registered row's attainment|registered_at set = %s", got)
	}
	if o := b.row(old); o.SupersededByID == nil || *o.SupersededByID != landed || o.PendingSupersededByID != nil {
		t.Errorf("the regrade's old row was not replaced: %+v", o)
	}
	if r := b.row(lost); r.ErrorCode == nil || *r.ErrorCode != "not_registered" {
		t.Errorf("a notRegistered row's error code = %v, want not_registered", deref(r.ErrorCode))
	}
	if r := b.row(pending); !r.NextAttemptAt.Equal(b.now.Add(lmsfake.VerifyInterval)) {
		t.Errorf("a row with no outcome is due %v, want %v", r.NextAttemptAt, b.now.Add(lmsfake.VerifyInterval))
	}
	evs := b.events(landed)
	if len(evs) != 1 || evs[0].Kind != "suotar_response" || deref(evs[0].To) != "registered" || evs[0].Actor != nil {
		t.Errorf("events of the registered row = %+v, want one suotar_response to registered with no actor", evs)
	}

	// Check now makes the waiting row due through the LMS's own endpoint; the next round records it.
	if _, err := b.client.Transition(b.ctx, b.admin, later, lms.CheckNow, "Sisu holds it"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Poll(b.ctx); err != nil {
		t.Fatal(err)
	}
	if got := b.row(later).State; got != "registered" {
		t.Errorf("after Check now the row is %s, want registered", got)
	}
}

func TestPipelineStandInWaitsWhileVerifyIsPaused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sisu := &sisuAnswers{verify: map[string]lmsfake.SisuAnswer{"hy-kur-1": {Outcome: lmsfake.SisuRegistered, AttainmentID: "a", AttainmentType: "CourseUnitAttainment"}}}
	p := &lmsfake.Pipeline{Server: b.fake, Sisu: sisu}
	id := b.registration("awaiting_verification", reg{"submitted_attainment_id": "hy-kur-1", "next_attempt_at": b.now.Add(-time.Minute)})
	if _, err := b.client.PausePhase(b.ctx, b.admin, "verify", "Suotar maintenance"); err != nil {
		t.Fatal(err)
	}
	if moved, err := p.Poll(b.ctx); err != nil || moved != 0 || sisu.asked != 0 {
		t.Fatalf("while verify is paused: moved %d, asked Sisu %d times, err %v; want nothing", moved, sisu.asked, err)
	}
	// A paused module's rows wait too, with the phase running again.
	b.exec(`INSERT INTO course_module_suotar_configurations (course_module_id) VALUES ($1)`, b.module)
	if err := b.client.PauseModule(b.ctx, b.admin, b.module, "wrong course code"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.client.ResumePhase(b.ctx, b.admin, "verify", "done"); err != nil {
		t.Fatal(err)
	}
	if moved, err := p.Poll(b.ctx); err != nil || moved != 0 || sisu.asked != 0 {
		t.Fatalf("while the module is paused: moved %d, asked Sisu %d times, err %v; want nothing", moved, sisu.asked, err)
	}
	if err := b.client.ResumeModule(b.ctx, b.admin, b.module, "fixed"); err != nil {
		t.Fatal(err)
	}
	if moved, err := p.Poll(b.ctx); err != nil || moved != 1 || b.row(id).State != "registered" {
		t.Fatalf("after resuming: moved %d, state %s, err %v; want the row registered", moved, b.row(id).State, err)
	}
}

func TestPipelineStandInSinceLeavesOldOverdueRowsToAPerson(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sisu := &sisuAnswers{verify: map[string]lmsfake.SisuAnswer{
		"hy-kur-1": {Outcome: lmsfake.SisuRegistered, AttainmentID: "a1", AttainmentType: "CourseUnitAttainment"},
		"hy-kur-2": {Outcome: lmsfake.SisuRegistered, AttainmentID: "a2", AttainmentType: "CourseUnitAttainment"},
	}}
	p := &lmsfake.Pipeline{Server: b.fake, Sisu: sisu, Since: b.now.Add(-time.Minute)}
	overdue := b.registration("submission_uncertain", reg{"submitted_attainment_id": "hy-kur-1", "next_attempt_at": b.now.Add(-48 * time.Hour)})
	fresh := b.registration("awaiting_verification", reg{"submitted_attainment_id": "hy-kur-2", "next_attempt_at": b.now.Add(-30 * time.Second)})
	if moved, err := p.Poll(b.ctx); err != nil || moved != 1 || b.row(fresh).State != "registered" || b.row(overdue).State != "submission_uncertain" {
		t.Fatalf("moved %d (err %v): fresh %s, overdue %s; want only the row due since Since registered", moved, err, b.row(fresh).State, b.row(overdue).State)
	}
	// A person's Check now brings the old row in, though the LMS leaves its next_attempt_at as it was.
	if _, err := b.client.Transition(b.ctx, b.admin, overdue, lms.CheckNow, "Sisu holds it"); err != nil {
		t.Fatal(err)
	}
	if moved, err := p.Poll(b.ctx); err != nil || moved != 1 || b.row(overdue).State != "registered" {
		t.Fatalf("after Check now: moved %d (err %v), state %s; want registered", moved, err, b.row(overdue).State)
	}
}
