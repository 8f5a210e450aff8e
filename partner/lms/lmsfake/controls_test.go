package lmsfake_test

import (
	"slices"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
)

func TestRequeueRetryable(t *testing.T) {
	t.Parallel()
	b := setup(t)

	waiting := b.registration("failed_retryable", reg{"next_attempt_at": b.now.Add(3 * time.Hour)})
	due := b.registration("failed_retryable", reg{"next_attempt_at": b.now.Add(-time.Minute)})
	uncertain := b.registration("submission_uncertain", reg{"next_attempt_at": b.now.Add(3 * time.Hour), "submitted_at": b.now.Add(-48 * time.Hour)})

	res, err := b.client.RequeueRetryable(b.ctx, b.admin, lms.RequeueScope{CourseID: b.course}, "Sisu is back")
	if err != nil {
		t.Fatal(err)
	}
	if res != (lms.RequeueResult{RequeuedCount: 1, MaxRowsPerCall: 5000}) {
		t.Errorf("answer = %+v", res)
	}
	if r := b.row(waiting); !r.NextAttemptAt.Equal(b.now) || r.State != "failed_retryable" {
		t.Errorf("waiting row: %+v", r)
	}
	if r := b.row(due); !r.NextAttemptAt.Equal(b.now.Add(-time.Minute)) {
		t.Errorf("an already-due row was touched: %v", r.NextAttemptAt)
	}
	if r := b.row(uncertain); !r.NextAttemptAt.Equal(b.now.Add(3 * time.Hour)) {
		t.Error("an uncertain row was swept forward")
	}
	if n := len(b.events(waiting)); n != 0 {
		t.Errorf("requeue wrote %d events; the LMS writes none", n)
	}
	as := b.audits()
	if len(as) != 1 || as[0].Action != "requeue_batch" || as[0].TargetKind != "course" || deref(as[0].TargetID) != b.course ||
		as[0].Affected == nil || *as[0].Affected != 1 || as[0].Details["course_id"] != b.course || as[0].Details["course_module_id"] != nil {
		t.Errorf("audit = %+v", as)
	}

	// Another course's scope touches nothing.
	other := b.one(`INSERT INTO courses (name, slug, organization_id, language_code, course_language_group_id)
VALUES ('Other', 'other-course', uuid_generate_v4(), 'fi-FI', uuid_generate_v4()) RETURNING id::text`)
	res, err = b.client.RequeueRetryable(b.ctx, b.admin, lms.RequeueScope{CourseID: other}, "r")
	if err != nil || res.RequeuedCount != 0 {
		t.Errorf("other course: %+v %v", res, err)
	}

	// Unscoped, the LMS's audit row has no target: its own CHECK refuses it, as for bulk.
	_, err = b.client.RequeueRetryable(b.ctx, b.admin, lms.RequeueScope{}, "r")
	if e := lmsErr(t, err); e.Kind != lms.KindRejected {
		t.Errorf("unscoped requeue: %v", e)
	}
	if err := lmsfake.RelaxAuditTargetCheck(b.ctx, b.pool); err != nil {
		t.Fatal(err)
	}
	if _, err := b.client.RequeueRetryable(b.ctx, b.admin, lms.RequeueScope{CourseModuleID: b.module}, "r"); err != nil {
		t.Errorf("module-scoped requeue after the fix: %v", err)
	}
}

func TestDismissAttention(t *testing.T) {
	t.Parallel()
	b := setup(t)

	uncertain := b.registration("submission_uncertain", reg{"submitted_at": b.now.Add(-48 * time.Hour), "needs_admin_attention": true})
	b.exec(`INSERT INTO credit_registration_attention_dismissals (credit_registration_id, dismissed_reasons, dismissed_by_user_id, reason, created_at)
VALUES ($1, '{flagged_by_pipeline}', $2, 'earlier', $3)`, uncertain, b.admin, b.now.Add(-24*time.Hour))

	res, err := b.client.DismissAttention(b.ctx, b.admin, uncertain, "  waiting for Sisu support  ")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.DismissedReasons, []lms.AttentionReason{lms.ReasonOutcomeUncertain}) {
		t.Errorf("reasons = %v", res.DismissedReasons)
	}
	var live, retired int
	if err := b.pool.QueryRow(b.ctx, `
SELECT count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL)
FROM credit_registration_attention_dismissals WHERE credit_registration_id = $1`, uncertain).Scan(&live, &retired); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	var by, why string
	if err := b.pool.QueryRow(b.ctx, `
SELECT dismissed_reasons::text[], dismissed_by_user_id::text, reason
FROM credit_registration_attention_dismissals WHERE credit_registration_id = $1 AND deleted_at IS NULL`, uncertain).Scan(&reasons, &by, &why); err != nil {
		t.Fatal(err)
	}
	if live != 1 || retired != 1 || !slices.Equal(reasons, []string{"outcome_uncertain"}) || by != b.admin || why != "waiting for Sisu support" {
		t.Errorf("dismissals: live %d retired %d reasons %v by %s why %q", live, retired, reasons, by, why)
	}
	if b.row(uncertain).NeedsAdminAttention != true {
		t.Error("a dismissal lowered the pipeline's flag")
	}
	if evs := b.events(uncertain); len(evs) != 1 || evs[0].Kind != "admin_action" || deref(evs[0].Actor) != b.admin {
		t.Errorf("events = %+v", evs)
	}
	as := b.audits()
	if len(as) != 1 || as[0].Action != "dismiss_attention" || deref(as[0].TargetID) != uncertain || as[0].Affected == nil || *as[0].Affected != 1 {
		t.Fatalf("audit = %+v", as)
	}
	if got, ok := as[0].Details["attention_reasons"].([]any); !ok || len(got) != 1 || got[0] != "outcome_uncertain" {
		t.Errorf("audit details = %v", as[0].Details)
	}
}

// The detectors of the LMS's Needs attention queue, for one row each.
func TestAttentionReasons(t *testing.T) {
	t.Parallel()
	b := setup(t)

	tests := []struct {
		name  string
		state string
		cols  reg
		want  []lms.AttentionReason
	}{
		{"flag alone", "failed_retryable", reg{"needs_admin_attention": true}, []lms.AttentionReason{lms.ReasonFlaggedByPipeline}},
		{"stuck", "ready_to_submit", reg{"state_changed_at": b.now.Add(-3 * time.Hour)}, []lms.AttentionReason{lms.ReasonStuckInState}},
		{"permanent error and flag", "failed_permanent", reg{"needs_admin_attention": true, "error_code": "person_not_found"}, []lms.AttentionReason{lms.ReasonPermanentError}},
		{"window expired", "failed_permanent", reg{"error_code": "retry_window_expired"}, []lms.AttentionReason{lms.ReasonRetryWindowExpired}},
		{"misregistered", "misregistered", reg{}, []lms.AttentionReason{lms.ReasonMisregistered}},
		{"too many attempts", "failed_retryable", reg{"submit_retry_count": 5}, []lms.AttentionReason{lms.ReasonTooManyAttempts}},
		{"partial overdue and gave up", "partially_registered", reg{"partially_registered_at": b.now.Add(-4 * 24 * time.Hour), "submitted_at": b.now.Add(-15 * 24 * time.Hour)},
			[]lms.AttentionReason{lms.ReasonPartlyRegisteredOverdue, lms.ReasonVerificationGaveUp}},
		{"lost thrice", "ready_to_submit", reg{"not_registered_reimport_count": 3}, []lms.AttentionReason{lms.ReasonRepeatedlyNotRegistered}},
	}
	for _, tc := range tests {
		id := b.registration(tc.state, tc.cols)
		res, err := b.client.DismissAttention(b.ctx, b.admin, id, "r")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.Equal(res.DismissedReasons, tc.want) {
			t.Errorf("%s: reasons %v, want %v", tc.name, res.DismissedReasons, tc.want)
		}
	}

	// Nothing picks a quiet row, a superseded one, or one that does not exist: 400, not 404.
	quiet := b.registration("failed_retryable", reg{})
	later := b.registration("ready_to_submit", reg{})
	superseded := b.registration("misregistered", reg{"superseded_by_id": later, "superseded_at": b.now})
	before := b.writes()
	for _, id := range []string{quiet, superseded, "00000000-0000-4000-8000-00000000000b"} {
		_, err := b.client.DismissAttention(b.ctx, b.admin, id, "r")
		if e := lmsErr(t, err); e.Kind != lms.KindRejected || e.Rejection != lms.RejectionNothingToDismiss {
			t.Errorf("%s: %v", id, e)
		}
	}
	if after := b.writes(); after != before {
		t.Errorf("refused dismissals wrote: %v → %v", before, after)
	}
}

func TestStudentNumberStuck(t *testing.T) {
	t.Parallel()
	b := setup(t)
	since := b.now.Add(-90 * 24 * time.Hour)
	fake, err := lmsfake.New(b.pool, lmsfake.Options{Token: token, Now: func() time.Time { return b.now }, AccountLinkingSince: &since})
	if err != nil {
		t.Fatal(err)
	}
	id := b.registration("pending", reg{})
	completion := b.one(`SELECT course_module_completion_id::text FROM credit_registrations WHERE id = $1`, id)
	student := b.one(`SELECT user_id::text FROM credit_registrations WHERE id = $1`, id)
	pressed := b.now.Add(-5 * time.Hour)
	b.exec(`INSERT INTO credit_registration_enrolment_routes (course_module_completion_id, user_id, route, enrolment_confirmed_at) VALUES ($1, $2, 'university_of_helsinki', $3)`, completion, student, pressed)
	b.exec(`INSERT INTO credit_registration_roster_schedules (course_code, last_mailing_fetch_started_at) VALUES ('TKT10001', $1)`, pressed.Add(2*time.Hour))

	res, err := b.clientFor(fake).DismissAttention(b.ctx, b.admin, id, "r")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.DismissedReasons, []lms.AttentionReason{lms.ReasonStudentNumberStuck}) {
		t.Errorf("reasons = %v, want student_number_stuck", res.DismissedReasons)
	}
	// Without account linking nobody can be stuck waiting for a number.
	if _, err := b.client.DismissAttention(b.ctx, b.admin, id, "r"); lmsErr(t, err).Rejection != lms.RejectionNothingToDismiss {
		t.Errorf("linking off: %v", err)
	}
}

func TestPhaseControls(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.exec(`UPDATE credit_registration_phase_state SET last_heartbeat_at = $1 WHERE phase = 'import'`, b.now.Add(-25*time.Second))

	st, err := b.client.PausePhase(b.ctx, b.admin, "import", " Suotar maintenance ")
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != "import" || st.ProcessName != "credit-registrar" || st.PausedAt == nil || !st.PausedAt.Equal(b.now) ||
		st.PauseReason == nil || *st.PauseReason != "Suotar maintenance" || !st.Implemented || st.HeartbeatLate ||
		st.SecondsSinceHeartbeat == nil || *st.SecondsSinceHeartbeat != 25 {
		t.Errorf("paused status = %+v", st)
	}
	if by := b.one(`SELECT paused_by_user_id::text FROM credit_registration_phase_state WHERE phase = 'import'`); by != b.admin {
		t.Errorf("paused_by_user_id = %s", by)
	}
	st, err = b.client.ResumePhase(b.ctx, b.admin, "import", "")
	if err != nil {
		t.Fatal(err)
	}
	// Resumed, the heartbeat 25 s old is late against a 10 s interval.
	if st.PausedAt != nil || st.PauseReason != nil || !st.HeartbeatLate {
		t.Errorf("resumed status = %+v", st)
	}
	if _, err := b.client.RunPhaseNow(b.ctx, b.admin, "verify", "check the backlog"); err != nil {
		t.Fatal(err)
	}
	var next time.Time
	if err := b.pool.QueryRow(b.ctx, `SELECT next_run_at FROM credit_registration_phase_state WHERE phase = 'verify'`).Scan(&next); err != nil || !next.Equal(b.now) {
		t.Errorf("next_run_at = %v %v", next, err)
	}
	as := b.audits()
	if len(as) != 3 {
		t.Fatalf("%d audit rows", len(as))
	}
	for i, want := range []struct{ action, phase, reason string }{
		{"pause_phase", "import", "Suotar maintenance"}, {"resume_phase", "import", "<nil>"}, {"run_phase_now", "verify", "check the backlog"},
	} {
		a := as[i]
		if a.Action != want.action || a.TargetKind != "phase" || a.TargetID != nil || deref(a.TargetPhase) != want.phase || deref(a.Reason) != want.reason || a.Actor != b.admin {
			t.Errorf("audit %d = %+v", i, a)
		}
	}

	_, err = b.client.PausePhase(b.ctx, b.admin, "product-token-refresh", "r")
	if e := lmsErr(t, err); e.Rejection != lms.RejectionUnknownPhase {
		t.Errorf("unknown phase: %v", e)
	}
	if status, got := b.post("phases/import/pause", b.admin, `{"reason":" "}`); status != 400 || got["message"] != "A reason is required." {
		t.Errorf("blank pause reason: %d %v", status, got)
	}
	// The phase name is checked before the reason.
	if _, got := b.post("phases/nope/pause", b.admin, `{"reason":" "}`); got["message"] != "Not one of the canonical phase names." {
		t.Errorf("unknown phase with a blank reason: %v", got)
	}
}

func TestModuleControls(t *testing.T) {
	t.Parallel()
	b := setup(t)

	err := b.client.PauseModule(b.ctx, b.admin, b.module, "r")
	if e := lmsErr(t, err); e.Rejection != lms.RejectionNoModuleConfiguration {
		t.Errorf("no configuration: %v", e)
	}
	b.exec(`INSERT INTO course_module_suotar_configurations (course_module_id) VALUES ($1)`, b.module)
	if err := b.client.PauseModule(b.ctx, b.admin, b.module, " grading fix "); err != nil {
		t.Fatal(err)
	}
	var at *time.Time
	var by, why *string
	read := func() {
		if err := b.pool.QueryRow(b.ctx, `SELECT paused_at, paused_by_user_id::text, pause_reason FROM course_module_suotar_configurations WHERE course_module_id = $1`, b.module).Scan(&at, &by, &why); err != nil {
			t.Fatal(err)
		}
	}
	read()
	if at == nil || !at.Equal(b.now) || deref(by) != b.admin || deref(why) != "grading fix" {
		t.Errorf("paused: %v %s %s", at, deref(by), deref(why))
	}
	if err := b.client.ResumeModule(b.ctx, b.admin, b.module, "fixed"); err != nil {
		t.Fatal(err)
	}
	read()
	if at != nil || by != nil || why != nil {
		t.Errorf("resumed: %v %s %s", at, deref(by), deref(why))
	}
	as := b.audits()
	if len(as) != 2 || as[0].Action != "pause_course_module" || as[1].Action != "resume_course_module" ||
		as[0].TargetKind != "course_module" || deref(as[0].TargetID) != b.module || deref(as[1].Reason) != "fixed" {
		t.Errorf("audit = %+v", as)
	}
}
