package schedule_test

import (
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
)

// summaryCodes writes a summary as its codes, for the tests to pin what SinceAlert keeps: each
// change's code (with the status a person moved the row to), actor and time (UTC, as the fixtures write it), then what
// still needs action or where the row stands. The words are the edge's (views/i18n's SinceAlert).
func summaryCodes(a schedule.AlertSummary) string {
	var changes []string
	for _, e := range a.Changes {
		c := e.ChangeCode()
		if c == "person.moved" {
			c += "→" + string(e.MovedToStatus())
		}
		if e.Actor != "" {
			c += " " + e.Actor
		}
		changes = append(changes, c+" "+e.At.UTC().Format("15:04"))
	}
	out := strings.Join(changes, ", ") + "; "
	if a.StillNeedsAction {
		reasons := make([]string, len(a.Reasons))
		for i, r := range a.Reasons {
			reasons[i] = string(r)
		}
		return out + "needs action: " + strings.Join(reasons, ", ")
	}
	return out + "now " + string(a.Status)
}

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
			"person.marked_registered Anna Virtanen 09:20; now registered", 1},
		{"nothing changed, polls aside",
			[]schedule.AlertEvent{
				pipeline(30*time.Minute, schedule.StateSubmissionUncertain, schedule.StateSubmissionUncertain),
				{At: at(40 * time.Minute), Action: "suotar_response"},
			},
			uncertainDayOld,
			"; needs action: outcome_uncertain", 0},
		{"the pipeline settled it, events out of order",
			[]schedule.AlertEvent{
				pipeline(3*time.Hour, schedule.StateAwaitingVerification, schedule.StateRegistered),
				pipeline(30*time.Minute, schedule.StateSubmissionUncertain, schedule.StateAwaitingVerification),
				pipeline(14*time.Minute, schedule.StateSubmitting, schedule.StateSubmissionUncertain),
			},
			registered,
			"pipeline.awaiting_verification 09:30, pipeline.registered 12:00; now registered", 2},
		{"people looked, still needs action",
			[]schedule.AlertEvent{
				{At: at(20 * time.Minute), ByPerson: true, Actor: "Mikko Mallikas", Action: "sisu_lookup"},
				{At: at(25 * time.Minute), ByPerson: true, Action: "admin_action"},
				{At: at(26 * time.Minute), ByPerson: true, Actor: "Mikko Mallikas", Action: "force_recheck"},
			},
			uncertainDayOld,
			"person.looked_up Mikko Mallikas 09:20, person.updated 09:25, person.recheck Mikko Mallikas 09:26; needs action: outcome_uncertain", 3},
		{"resubmitted, then cancelled, then dismissed",
			[]schedule.AlertEvent{
				{At: at(20 * time.Minute), ByPerson: true, Actor: "Anna", Action: "transition_item", FromState: schedule.StateMisregistered, ToState: schedule.StateReadyToSubmit},
				{At: at(21 * time.Minute), ByPerson: true, Actor: "Anna", Action: "transition_item", FromState: schedule.StateReadyToSubmit, ToState: schedule.StateCancelled},
				{At: at(22 * time.Minute), ByPerson: true, Actor: "Anna", Action: "dismiss_attention", FromState: schedule.StateCancelled, ToState: schedule.StateCancelled},
				{At: at(23 * time.Minute), ByPerson: true, Actor: "Anna", Action: "transition_item", FromState: schedule.StateCancelled, ToState: schedule.StateNoUsableEnrolment},
			},
			schedule.StudentView(row(schedule.StateNoUsableEnrolment), allMet, t0.Add(time.Hour)),
			"person.resubmitted Anna 09:20, person.cancelled Anna 09:21, person.dismissed Anna 09:22, person.moved→needs_enrolment Anna 09:23; now needs_enrolment", 4},
		{"the student acted",
			[]schedule.AlertEvent{{At: at(time.Hour), Action: "student_action"}},
			schedule.StudentView(row(schedule.StateNoUsableEnrolment), allMet, t0.Add(time.Hour)),
			"student_action 10:00; now needs_enrolment", 1},
		{"quiet and fine",
			nil,
			schedule.StudentView(row(schedule.StateAwaitingVerification, submittedAgo(5*time.Hour)), allMet, t0),
			"; now waiting_for_sisu", 0},
		{"an event exactly at the alert is before it",
			[]schedule.AlertEvent{pipeline(14*time.Minute, schedule.StateAwaitingVerification, schedule.StateRegistered)},
			registered,
			"; now registered", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			a := schedule.SinceAlert(tc.events, tc.current, alert)
			if got := summaryCodes(a); got != tc.want || !a.AlertedAt.Equal(alert) {
				t.Errorf("summary:\n got %q\nwant %q", got, tc.want)
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
	if got, w := summaryCodes(a), "; needs action: verification_gave_up, repeatedly_not_registered"; got != w {
		t.Errorf("summary:\n got %q\nwant %q", got, w)
	}
}
