package schedule

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
	// Reasons are the escalating reasons that still apply when
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
		a.Reasons = current.Classified.Reasons.Escalating().List()
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
	if pipelinePhrase(e.ToState, e.FromState) != "" {
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

// changePhrase says what e changed in English, without the time; "" when it
// is not worth a mention. Sentence uses it; the pages word ChangeCode.
func changePhrase(e AlertEvent) string {
	if e.ByPerson {
		return personPhrase(e)
	}
	if p := pipelinePhrase(e.ToState, e.FromState); p != "" {
		return p
	}
	if e.Action == "student_action" {
		return "the student acted on it"
	}
	return ""
}

// pipelinePhrase says in words what a pipeline move into to meant; "" for a
// move worth no mention: none, a same-state rewrite, or a pass through an
// in-flight state that the next move explains.
func pipelinePhrase(to, from State) string {
	if to == "" || to == from {
		return ""
	}
	return map[State]string{
		StatePending:              "it went on hold",
		StateReadyToSubmit:        "the registration pipeline started looking up the enrolment",
		StateCheckingEnrolment:    "the enrolment was found",
		StateNoUsableEnrolment:    "it started waiting for the student's enrolment",
		StateSubmissionUncertain:  "Sisu's answer to the sending was unclear",
		StateAwaitingVerification: "Sisu received the credit",
		StatePartiallyRegistered:  "Sisu showed the course's part",
		StateRegistered:           "Sisu confirmed the credit",
		StateDuplicate:            "Sisu turned out to hold the credit already",
		StateNotImproved:          "Sisu turned out to hold an equal or better grade",
		StateMisregistered:        "Sisu reversed the registration",
		StateFailedRetryable:      "a temporary problem interrupted it",
		StateFailedPermanent:      "the registration pipeline gave up",
		StateBlocked:              "the completion stopped being eligible",
		StateCancelled:            "it was cancelled",
	}[to]
}

// personPhrase says what a person did, without the time.
func personPhrase(e AlertEvent) string {
	who := e.Actor
	if who == "" {
		who = "someone"
	}
	if e.ToState != "" && e.ToState != e.FromState {
		switch e.ToState {
		case StateReadyToSubmit:
			return who + " resubmitted it"
		case StateCancelled:
			return who + " cancelled it"
		case StateRegistered, StateDuplicate:
			return who + " marked it registered in Sisu"
		}
		return who + " moved it to “" + StudentStatusOf(Row{State: e.ToState}, Preconditions{}).Label() + "”"
	}
	switch e.Action {
	case "force_recheck", "retry_item":
		return who + " asked for a new check"
	case "mark_resolved":
		return who + " marked it resolved"
	case "dismiss_attention":
		return who + " dismissed the alert"
	case "sisu_lookup":
		return who + " looked it up in Sisu"
	}
	return who + " updated it"
}

// Sentence puts the summary into one sentence, such as "Since the alert at
// 09:14, Anna Virtanen marked it registered in Sisu at 09:20; it is now
// “Registered”." or "Nothing has changed since the alert at 09:14; it still
// needs action: uncertain for a day." formatTime renders an instant.
func (a AlertSummary) Sentence(formatTime func(time.Time) string) string {
	var b strings.Builder
	if len(a.Changes) == 0 {
		b.WriteString("Nothing has changed since the alert at " + formatTime(a.AlertedAt))
	} else {
		b.WriteString("Since the alert at " + formatTime(a.AlertedAt) + ", ")
		phrases := make([]string, len(a.Changes))
		for i, e := range a.Changes {
			phrases[i] = changePhrase(e) + " at " + formatTime(e.At)
		}
		b.WriteString(joinAnd(phrases))
	}
	if a.StillNeedsAction {
		labels := make([]string, len(a.Reasons))
		for i, r := range a.Reasons {
			labels[i] = lowerFirst(r.Label())
		}
		b.WriteString("; it still needs action")
		if len(labels) > 0 {
			b.WriteString(": " + strings.Join(labels, ", "))
		}
	} else if a.Status != "" {
		if len(a.Changes) == 0 {
			b.WriteString("; it is “" + a.Status.Label() + "”")
		} else {
			b.WriteString("; it is now “" + a.Status.Label() + "”")
		}
	}
	b.WriteString(".")
	return b.String()
}

// lowerFirst lower-cases a label's first letter so it reads inside a
// sentence; labels starting with a name (Sisu, Suotar) keep it.
func lowerFirst(s string) string {
	if strings.HasPrefix(s, "Sisu") || strings.HasPrefix(s, "Suotar") {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}
