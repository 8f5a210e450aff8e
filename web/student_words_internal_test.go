package web

import (
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// TestStudentMessageInEnglish pins the English of the message a teacher copies for a student,
// case by case: schedule returns only codes (its own tests pin those), so the words are this
// package's and the catalogue's. The Finnish and Swedish follow the same keys
// (TestStudentMessageInThreeLanguages, and the catalogue's tests for placeholders).
func TestStudentMessageInEnglish(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	at := func(t time.Time) string { return t.UTC().Format("Mon Jan 2 15:04") }
	ptr := func(t time.Time) *time.Time { return &t }
	row := func(state schedule.State, edit ...func(*schedule.Row)) schedule.Row {
		r := schedule.Row{State: state, StateEnteredAt: t0.Add(-time.Minute), StateChangedAt: t0.Add(-time.Minute), NextAttemptAt: t0.Add(5 * time.Minute)}
		for _, e := range edit {
			e(&r)
		}
		return r
	}
	code := func(c schedule.ErrorCode) func(*schedule.Row) { return func(r *schedule.Row) { r.ErrorCode = c } }
	next := func(n time.Time) func(*schedule.Row) { return func(r *schedule.Row) { r.NextAttemptAt = n } }
	sent := func(d time.Duration) func(*schedule.Row) {
		return func(r *schedule.Row) { r.SubmittedAt = ptr(t0.Add(-d)) }
	}
	partial := func(d time.Duration) func(*schedule.Row) {
		return func(r *schedule.Row) { r.PartiallyRegisteredAt = ptr(t0.Add(-d)) }
	}
	flagged := func(r *schedule.Row) { r.NeedsAdminAttention = true }
	day := 24 * time.Hour
	tests := []struct {
		name string
		row  schedule.Row
		pre  schedule.Preconditions
		want string
	}{
		{"needs student number", row(schedule.StatePending), schedule.Preconditions{CompletionEligible: true},
			"To register your credits for Ohjelmoinnin perusteet in Sisu, please link your University of Helsinki student number to your account. The registration then continues by itself."},
		{"waiting for completion", row(schedule.StatePending), schedule.Preconditions{},
			"Your completion of Ohjelmoinnin perusteet is not eligible for credits yet: the course may be unfinished, a prerequisite missing or your completion waiting for review. Once it is eligible, your credits go to Sisu by themselves."},
		{"held for course setup", row(schedule.StatePending), schedule.Preconditions{CompletionEligible: true, HasVerifiedStudentNumber: true},
			"The registration of your credits for Ohjelmoinnin perusteet is on hold until the course's setup in Sisu is fixed. Nothing is needed from you for now."},
		{"looking for enrolment", row(schedule.StateReadyToSubmit), schedule.Preconditions{},
			"Your credits for Ohjelmoinnin perusteet are on their way to Sisu. Nothing is needed from you for now."},
		{"not enrolled", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), next(t0.Add(day))), schedule.Preconditions{},
			"Sisu does not show you as enrolled on Ohjelmoinnin perusteet. Please enrol on the course in Sisu; your credits then go to Sisu by themselves. We check again at Tue Mar 3 09:00."},
		{"not checked yet, due", row(schedule.StateNoUsableEnrolment, next(t0)), schedule.Preconditions{},
			"To register your credits for Ohjelmoinnin perusteet, you need to be enrolled on the course in Sisu. If you have not enrolled yet, please do. We check again shortly."},
		{"checks stopped", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), next(schedule.Never)), schedule.Preconditions{},
			"Sisu does not show you as enrolled on Ohjelmoinnin perusteet. Please enrol on the course in Sisu; your credits then go to Sisu by themselves. Once you have done so, let us know and we will check again."},
		{"waiting for Sisu", row(schedule.StateAwaitingVerification, sent(6*time.Hour)), schedule.Preconditions{Submitted: true},
			"Your credits for Ohjelmoinnin perusteet have been sent to Sisu, which usually confirms them within a day. Nothing is needed from you for now."},
		{"waiting for Sisu, past 14 days", row(schedule.StateAwaitingVerification, sent(15*day)), schedule.Preconditions{Submitted: true},
			"Your credits for Ohjelmoinnin perusteet have been sent to Sisu, which is taking longer than usual to confirm them. Our support staff have been asked to look into it. Nothing is needed from you for now."},
		{"partly registered", row(schedule.StatePartiallyRegistered, sent(20*time.Hour), partial(time.Hour)), schedule.Preconditions{Submitted: true},
			"Sisu already shows part of your credits for Ohjelmoinnin perusteet; the final credit is on its way. Nothing is needed from you for now."},
		{"registered", row(schedule.StateRegistered), schedule.Preconditions{},
			"Your credits for Ohjelmoinnin perusteet are registered in Sisu."},
		{"better grade", row(schedule.StateNotImproved), schedule.Preconditions{},
			"Sisu already holds an equal or better grade of yours for Ohjelmoinnin perusteet, so nothing new was registered."},
		{"failed", row(schedule.StateFailedPermanent, code(schedule.ErrorUnknown), flagged), schedule.Preconditions{},
			"The registration of your credits for Ohjelmoinnin perusteet ran into a problem that our support staff need to look at. Nothing is needed from you for now."},
		{"course setup", row(schedule.StateFailedPermanent, code(schedule.ErrorMissingECTSCredits), flagged), schedule.Preconditions{},
			"The registration of your credits for Ohjelmoinnin perusteet is waiting for a fix to the course's setup in Sisu. Nothing is needed from you for now."},
		{"not registering", row(schedule.StateBlocked), schedule.Preconditions{},
			"Your completion of Ohjelmoinnin perusteet is no longer eligible for credits, so they are not being registered for now."},
	}
	en := i18n.For(i18n.EN)
	for _, tc := range tests {
		if got := studentMessage(en, schedule.StudentView(tc.row, tc.pre, t0), "Ohjelmoinnin perusteet", at); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	if got := studentMessage(en, schedule.StudentView(row(schedule.StateRegistered), schedule.Preconditions{}, t0), "  ", at); got != "Your credits for the course are registered in Sisu." {
		t.Errorf("with no course name: %q", got)
	}
}

// TestNextSentenceInEnglish pins the English of what happens next with a registration, as a
// teacher reads it on the student and course pages: a whole sentence of the catalogue for each
// part schedule names (situation, typical wait, the pipeline's step and when, support).
func TestNextSentenceInEnglish(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	at := func(t time.Time) string { return t.UTC().Format("Mon Jan 2 15:04") }
	ptr := func(t time.Time) *time.Time { return &t }
	row := func(state schedule.State, edit ...func(*schedule.Row)) schedule.Row {
		r := schedule.Row{State: state, StateEnteredAt: t0.Add(-time.Minute), StateChangedAt: t0.Add(-time.Minute), NextAttemptAt: t0.Add(5 * time.Minute)}
		for _, e := range edit {
			e(&r)
		}
		return r
	}
	code := func(c schedule.ErrorCode) func(*schedule.Row) { return func(r *schedule.Row) { r.ErrorCode = c } }
	next := func(n time.Time) func(*schedule.Row) { return func(r *schedule.Row) { r.NextAttemptAt = n } }
	sent := func(d time.Duration) func(*schedule.Row) {
		return func(r *schedule.Row) { r.SubmittedAt = ptr(t0.Add(-d)) }
	}
	flagged := func(r *schedule.Row) { r.NeedsAdminAttention = true }
	allMet := schedule.Preconditions{CompletionEligible: true, HasVerifiedStudentNumber: true, CourseCodeAllowed: true}
	resolved := schedule.Preconditions{EnrolmentResolved: true}
	submitted := schedule.Preconditions{EnrolmentResolved: true, Submitted: true}
	day := 24 * time.Hour
	tests := []struct {
		name string
		row  schedule.Row
		pre  schedule.Preconditions
		want string
	}{
		{"pending, all met", row(schedule.StatePending), allMet,
			"The registration pipeline looks up the student's enrolment in Sisu at Mon Mar 2 09:05."},
		{"pending, flagged", row(schedule.StatePending, flagged), schedule.Preconditions{CompletionEligible: true},
			"The student needs to link their University of Helsinki student number to their account. Once that is sorted out, the registration continues by itself. Support has been alerted."},
		{"ready_to_submit, due", row(schedule.StateReadyToSubmit, next(t0.Add(-time.Minute))), schedule.Preconditions{},
			"The registration pipeline looks up the student's enrolment in Sisu shortly."},
		{"no_usable_enrolment, checks stopped", row(schedule.StateNoUsableEnrolment, code(schedule.ErrorEnrolmentNotFound), next(schedule.Never)), schedule.Preconditions{},
			"Sisu has no enrolment of the student on the course, so they need to enrol. The registration pipeline no longer checks on a schedule, but checks again when the student says they have enrolled."},
		{"submission_uncertain", row(schedule.StateSubmissionUncertain, sent(2*time.Hour), next(t0.Add(15*time.Minute))), resolved,
			"It is not yet clear whether Sisu received the credit. The registration pipeline checks Sisu again at Mon Mar 2 09:15. If nothing has happened by Tue Mar 3 07:00, support is alerted."},
		{"awaiting_verification, late", row(schedule.StateAwaitingVerification, sent(2*day), next(t0.Add(3*time.Hour))), submitted,
			"Sisu usually confirms within a day, but this one is taking longer. The registration pipeline checks Sisu again at Mon Mar 2 12:00. If nothing has happened by Sat Mar 14 09:00, support is alerted."},
		{"failed_permanent, course setup", row(schedule.StateFailedPermanent, code(schedule.ErrorCourseNotAllowed), flagged), resolved,
			"Sisu does not accept registrations for the module's course code. Once the course setup is fixed, support can send the registration again."},
		{"registered", row(schedule.StateRegistered), submitted,
			"The credit is in Sisu. Nothing more needs to happen."},
		{"unknown state", row("frozen"), allMet,
			"It waits for support."},
	}
	en := i18n.For(i18n.EN)
	for _, tc := range tests {
		if got := nextSentence(en, schedule.StudentView(tc.row, tc.pre, t0).Next, at); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
