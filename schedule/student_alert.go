package schedule

import (
	"slices"
	"time"
)

// AlertEvent is one thing that happened to a registration, from its history
// or its hand-action audit, as SinceAlert reads it.
type AlertEvent struct {
	// At is when it happened.
	At time.Time
	// ByPerson is true for a staff member's action: a hand action, a Sisu
	// lookup, any event with an actor.
	ByPerson bool
	// Actor is the acting staff member's name; "" for the pipeline, or when
	// the account is gone.
	Actor string
	// Action is the hand action (credit_registration_admin_action, such as
	// "transition_item" or "dismiss_attention") when there is one, else the
	// history event's kind (such as "state_changed", "sisu_lookup",
	// "student_action").
	Action string
	// FromState and ToState are the state move; "" when the event moved
	// nothing.
	FromState, ToState State
}

// AlertSummary says what happened to a registration since an alert named it.
type AlertSummary struct {
	// AlertedAt is the alert's instant.
	AlertedAt time.Time
	// Changes are what people and the pipeline did after AlertedAt, oldest
	// first; the pipeline's same-state rewrites (polls) and its passage
	// through in-flight states are left out.
	Changes []AlertEvent
	// Status is the registration's student-facing status now.
	Status StudentStatus
	// StillNeedsAction is true when a person must still act (Classify's
	// NeedsAdmin now).
	StillNeedsAction bool
	// Reasons are the person-level reasons that still apply when
	// StillNeedsAction.
	Reasons []Reason
}

// SinceAlert summarises what changed on a registration after alertedAt: the
// events after it (in any order; earlier ones are ignored) and where the
// registration stands now (current, from StudentView).
func SinceAlert(events []AlertEvent, current StudentSummary, alertedAt time.Time) AlertSummary {
	a := AlertSummary{AlertedAt: alertedAt, Status: current.Status, StillNeedsAction: current.Classified.NeedsAdmin}
	sorted := slices.Clone(events)
	slices.SortStableFunc(sorted, func(x, y AlertEvent) int { return x.At.Compare(y.At) })
	for _, e := range sorted {
		if !e.At.After(alertedAt) {
			continue
		}
		if e.ChangeCode() != "" {
			a.Changes = append(a.Changes, e)
		}
	}
	if a.StillNeedsAction {
		a.Reasons = current.Classified.Reasons.PersonLevel().List()
	}
	return a
}

// ChangeCode names what e changed, for the edge to word: "person.<what>" for
// a staff member's action (resubmitted, cancelled, marked_registered, moved,
// recheck, resolved, dismissed, looked_up, updated), "pipeline.<state>" for a
// pipeline move into that state, "student_action"; "" when it is not worth a
// mention (SinceAlert leaves such events out). A "person.moved" change moved
// the row to MovedToStatus.
func (e AlertEvent) ChangeCode() string {
	if e.ByPerson {
		if e.ToState != "" && e.ToState != e.FromState {
			switch e.ToState {
			case StateReadyToSubmit:
				return "person.resubmitted"
			case StateCancelled:
				return "person.cancelled"
			case StateRegistered, StateDuplicate:
				return "person.marked_registered"
			}
			return "person.moved"
		}
		switch e.Action {
		case "force_recheck", "retry_item":
			return "person.recheck"
		case "mark_resolved":
			return "person.resolved"
		case "dismiss_attention":
			return "person.dismissed"
		case "sisu_lookup":
			return "person.looked_up"
		}
		return "person.updated"
	}
	if pipelineMentioned(e.ToState, e.FromState) {
		return "pipeline." + string(e.ToState)
	}
	if e.Action == "student_action" {
		return "student_action"
	}
	return ""
}

// MovedToStatus is the student-facing status a person's move put the row in.
func (e AlertEvent) MovedToStatus() StudentStatus {
	return StudentStatusOf(Row{State: e.ToState}, Preconditions{})
}

// pipelineMentioned reports whether a pipeline move into to is worth a
// mention (ChangeCode "pipeline.<to>"); not for none, a same-state rewrite, or
// a pass through an in-flight state that the next move explains.
func pipelineMentioned(to, from State) bool {
	if to == "" || to == from {
		return false
	}
	return mentionedMoves[to]
}

// mentionedMoves are the states a pipeline move into is worth a mention.
var mentionedMoves = map[State]bool{
	StatePending:              true,
	StateReadyToSubmit:        true,
	StateCheckingEnrolment:    true,
	StateNoUsableEnrolment:    true,
	StateSubmissionUncertain:  true,
	StateAwaitingVerification: true,
	StatePartiallyRegistered:  true,
	StateRegistered:           true,
	StateDuplicate:            true,
	StateNotImproved:          true,
	StateMisregistered:        true,
	StateFailedRetryable:      true,
	StateFailedPermanent:      true,
	StateBlocked:              true,
	StateCancelled:            true,
}
