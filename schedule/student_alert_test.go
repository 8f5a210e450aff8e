package schedule_test

import (
	"testing"
	"time"

	"regdesk/schedule"
)

func TestSinceAlert(t *testing.T) {
	t.Parallel()

	alert := t0.Add(14 * time.Minute) // Mon 09:14
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	pipeline := func(d time.Duration, from, to schedule.State) schedule.AlertEvent {
		return schedule.AlertEvent{At: at(d), Action: "state_changed", FromState: from, ToState: to}
	}
	uncertainDayOld := schedule.StudentView(row(schedule.StateSubmissionUncertain, submittedAgo(30*time.Hour)), allMet, t0.Add(time.Hour))
	registered := schedule.StudentView(row(schedule.StateRegistered), allMet, t0.Add(time.Hour))

	tests := []struct {
		name    string
		events  []schedule.AlertEvent
		current schedule.StudentSummary
		want    string
		changes int
	}{
		{"a person settled it",
			[]schedule.AlertEvent{
				pipeline(-time.Hour, schedule.StateSubmitting, schedule.StateSubmissionUncertain),
				{At: at(20 * time.Minute), ByPerson: true, Actor: "Anna Virtanen", Action: "transition_item",
					FromState: schedule.StateSubmissionUncertain, ToState: schedule.StateRegistered},
			},
			registered,
			"Since the alert at Mon Mar 2 09:14, Anna Virtanen marked it registered in Sisu at Mon Mar 2 09:20; it is now “Registered”.", 1},
		{"nothing changed, polls aside",
			[]schedule.AlertEvent{
				pipeline(30*time.Minute, schedule.StateSubmissionUncertain, schedule.StateSubmissionUncertain),
				{At: at(40 * time.Minute), Action: "suotar_response"},
			},
			uncertainDayOld,
			"Nothing has changed since the alert at Mon Mar 2 09:14; it still needs action: uncertain for a day.", 0},
		{"the pipeline settled it, events out of order",
			[]schedule.AlertEvent{
				pipeline(3*time.Hour, schedule.StateAwaitingVerification, schedule.StateRegistered),
				pipeline(30*time.Minute, schedule.StateSubmissionUncertain, schedule.StateAwaitingVerification),
				pipeline(14*time.Minute, schedule.StateSubmitting, schedule.StateSubmissionUncertain),
			},
			registered,
			"Since the alert at Mon Mar 2 09:14, Sisu received the credit at Mon Mar 2 09:30 and Sisu confirmed the credit at Mon Mar 2 12:00; it is now “Registered”.", 2},
		{"people looked, still needs action",
			[]schedule.AlertEvent{
				{At: at(20 * time.Minute), ByPerson: true, Actor: "Mikko Mallikas", Action: "sisu_lookup"},
				{At: at(25 * time.Minute), ByPerson: true, Action: "admin_action"},
				{At: at(26 * time.Minute), ByPerson: true, Actor: "Mikko Mallikas", Action: "force_recheck"},
			},
			uncertainDayOld,
			"Since the alert at Mon Mar 2 09:14, Mikko Mallikas looked it up in Sisu at Mon Mar 2 09:20, someone updated it at Mon Mar 2 09:25 and Mikko Mallikas asked for a new check at Mon Mar 2 09:26; it still needs action: uncertain for a day.", 3},
		{"resubmitted, then cancelled, then dismissed",
			[]schedule.AlertEvent{
				{At: at(20 * time.Minute), ByPerson: true, Actor: "Anna", Action: "transition_item", FromState: schedule.StateMisregistered, ToState: schedule.StateReadyToSubmit},
				{At: at(21 * time.Minute), ByPerson: true, Actor: "Anna", Action: "transition_item", FromState: schedule.StateReadyToSubmit, ToState: schedule.StateCancelled},
				{At: at(22 * time.Minute), ByPerson: true, Actor: "Anna", Action: "dismiss_attention", FromState: schedule.StateCancelled, ToState: schedule.StateCancelled},
				{At: at(23 * time.Minute), ByPerson: true, Actor: "Anna", Action: "transition_item", FromState: schedule.StateCancelled, ToState: schedule.StateNoUsableEnrolment},
			},
			schedule.StudentView(row(schedule.StateNoUsableEnrolment), allMet, t0.Add(time.Hour)),
			"Since the alert at Mon Mar 2 09:14, Anna resubmitted it at Mon Mar 2 09:20, Anna cancelled it at Mon Mar 2 09:21, Anna dismissed the alert at Mon Mar 2 09:22 and Anna moved it to “Needs enrolment” at Mon Mar 2 09:23; it is now “Needs enrolment”.", 4},
		{"the student acted",
			[]schedule.AlertEvent{{At: at(time.Hour), Action: "student_action"}},
			schedule.StudentView(row(schedule.StateNoUsableEnrolment), allMet, t0.Add(time.Hour)),
			"Since the alert at Mon Mar 2 09:14, the student acted on it at Mon Mar 2 10:00; it is now “Needs enrolment”.", 1},
		{"quiet and fine",
			nil,
			schedule.StudentView(row(schedule.StateAwaitingVerification, submittedAgo(5*time.Hour)), allMet, t0),
			"Nothing has changed since the alert at Mon Mar 2 09:14; it is “Waiting for Sisu”.", 0},
		{"an event exactly at the alert is before it",
			[]schedule.AlertEvent{pipeline(14*time.Minute, schedule.StateAwaitingVerification, schedule.StateRegistered)},
			registered,
			"Nothing has changed since the alert at Mon Mar 2 09:14; it is “Registered”.", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			a := schedule.SinceAlert(tc.events, tc.current, alert)
			if got := a.Sentence(clock); got != tc.want {
				t.Errorf("Sentence:\n got %q\nwant %q", got, tc.want)
			}
			if len(a.Changes) != tc.changes {
				t.Errorf("%d changes, want %d: %+v", len(a.Changes), tc.changes, a.Changes)
			}
			for i := 1; i < len(a.Changes); i++ {
				if a.Changes[i].At.Before(a.Changes[i-1].At) {
					t.Errorf("changes out of order: %+v", a.Changes)
				}
			}
		})
	}
}

// TestSinceAlertReasons lists only the escalating reasons: running late
// alone is not something a person must act on.
func TestSinceAlertReasons(t *testing.T) {
	t.Parallel()

	now := t0
	r := row(schedule.StateAwaitingVerification, submittedAgo(15*day), changedAgo(15*day), reimports(3))
	a := schedule.SinceAlert(nil, schedule.StudentView(r, allMet, now), now.Add(-time.Hour))
	want := []schedule.Reason{schedule.ReasonVerificationGaveUp, schedule.ReasonRepeatedlyNotRegistered}
	if !a.StillNeedsAction || len(a.Reasons) != len(want) || a.Reasons[0] != want[0] || a.Reasons[1] != want[1] {
		t.Fatalf("SinceAlert = %+v, want still needing action for %v", a, want)
	}
	if got, w := a.Sentence(clock), "Nothing has changed since the alert at Mon Mar 2 08:00; it still needs action: not confirmed in 14 days, lost by Suotar 3 times."; got != w {
		t.Errorf("Sentence:\n got %q\nwant %q", got, w)
	}
}
