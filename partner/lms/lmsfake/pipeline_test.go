package lmsfake_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

// sisuAnswers is a Sisu whose answers the test sets, and which counts what it was asked.
type sisuAnswers struct {
	mu       sync.Mutex
	verify   map[string]lmsfake.SisuAnswer   // by submitted attainment id
	existing map[string]lmsfake.SisuAnswer   // by student number
	submit   map[string]lmsfake.SubmitAnswer // by student number
	sent     []lmsfake.SubmitItem
	asked    int
}

func (s *sisuAnswers) Submit(_ context.Context, it lmsfake.SubmitItem) (lmsfake.SubmitAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	s.sent = append(s.sent, it)
	return s.submit[it.StudentNumber], nil
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

// A row a person resubmitted goes out again: the stand-in sends its payload, records the
// submitted attainment and makes it due for its first poll, which registers it; a row without its
// payload, or one not yet due, stays.
func TestPipelineStandInSendsResubmittedRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sisu := &sisuAnswers{
		submit: map[string]lmsfake.SubmitAnswer{"014000001": {Code: "sent", SubmittedAttainmentID: "hy-kur-new", SubmittedAttainmentType: "AssessmentItemAttainment"}},
		verify: map[string]lmsfake.SisuAnswer{"hy-kur-new": {Outcome: lmsfake.SisuRegistered, AttainmentID: "hy-att-cu-new", AttainmentType: "CourseUnitAttainment"}},
	}
	p := &lmsfake.Pipeline{Server: b.fake, Sisu: sisu}
	payload := reg{"student_number": "014000001", "uh_course_code": " TKT10001", "selected_enrolment_id": "hy-enr-1",
		"grade_scale_id": "sis-0-5", "grade_id": "4", "credits": 5, "attainment_language": "fi"}
	id := b.registration("misregistered", payload)
	refusedPayload := reg{}
	for k, v := range payload {
		refusedPayload[k] = v
	}
	refusedPayload["student_number"] = "014000002"
	sisu.submit["014000002"] = lmsfake.SubmitAnswer{Code: "studyRightNotValid"}
	refused := b.registration("misregistered", refusedPayload)
	if _, err := b.client.Transition(b.ctx, b.admin, refused, lms.Resubmit, "send again"); err != nil {
		t.Fatal(err)
	}
	bare := b.registration("ready_to_submit", reg{"next_attempt_at": b.now.Add(-time.Minute)})
	if _, err := b.client.Transition(b.ctx, b.admin, id, lms.Resubmit, "Sisu voided it; send again"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Poll(b.ctx); err != nil {
		t.Fatal(err)
	}
	if len(sisu.sent) != 2 || sisu.sent[0].CourseCode != "TKT10001" || sisu.sent[0].GradeID != "4" || sisu.sent[0].Credits != 5 {
		t.Fatalf("sent %+v, want the two resubmitted rows' payloads once each", sisu.sent)
	}
	// Sisu's refusal is recorded as the import phase records one: failed for a person, with its code.
	if r := b.row(refused); r.State != "failed_permanent" || deref(r.ErrorCode) != "study_right_not_valid" || !r.NeedsAdminAttention || r.TerminalAt == nil {
		t.Errorf("the refused row = %s, code %s, flag %v; want failed_permanent, study_right_not_valid, flagged", r.State, deref(r.ErrorCode), r.NeedsAdminAttention)
	}
	// Sent, and due at once, so the same round's verify poll finds it registered.
	if got := b.one(`SELECT concat_ws('|', state, submitted_attainment_id, submitted_at IS NOT NULL) FROM credit_registrations WHERE id = $1`, id); got != "registered|hy-kur-new|t" {
		t.Fatalf("after the round the row is %s, want registered|hy-kur-new|t", got)
	}
	if got := b.row(bare).State; got != "ready_to_submit" {
		t.Errorf("a ready row without its payload is %s, want left ready", got)
	}
	// Under the fake's frozen clock events of different transactions do not order by time: look
	// for the two the round wrote.
	var wrote []string
	for _, e := range b.events(id) {
		if e.Kind == "suotar_response" {
			wrote = append(wrote, deref(e.From)+"→"+deref(e.To))
		}
	}
	slices.Sort(wrote)
	if want := []string{"awaiting_verification→registered", "ready_to_submit→awaiting_verification"}; !slices.Equal(wrote, want) {
		t.Errorf("the round's events = %v, want %v", wrote, want)
	}
}
