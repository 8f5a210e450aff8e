package lms

import (
	"encoding/json"
	"fmt"
	"time"
)

// State is a ledger state, credit_registration_state's values.
type State string

// The ledger's states, in the enum's order (state.rs [71594867055]).
const (
	StatePending              State = "pending"
	StateReadyToSubmit        State = "ready_to_submit"
	StateResolvingEnrolment   State = "resolving_enrolment"
	StateCheckingEnrolment    State = "checking_enrolment"
	StateNoUsableEnrolment    State = "no_usable_enrolment"
	StateSubmitting           State = "submitting"
	StateSubmissionUncertain  State = "submission_uncertain"
	StateAwaitingVerification State = "awaiting_verification"
	StatePartiallyRegistered  State = "partially_registered"
	StateRegistered           State = "registered"
	StateDuplicate            State = "duplicate"
	StateNotImproved          State = "not_improved"
	StateMisregistered        State = "misregistered"
	StateFailedRetryable      State = "failed_retryable"
	StateFailedPermanent      State = "failed_permanent"
	StateBlocked              State = "blocked"
	StateCancelled            State = "cancelled"
)

// States lists every state in the enum's order.
var States = []State{
	StatePending, StateReadyToSubmit, StateResolvingEnrolment, StateCheckingEnrolment,
	StateNoUsableEnrolment, StateSubmitting, StateSubmissionUncertain, StateAwaitingVerification,
	StatePartiallyRegistered, StateRegistered, StateDuplicate, StateNotImproved, StateMisregistered,
	StateFailedRetryable, StateFailedPermanent, StateBlocked, StateCancelled,
}

// Valid reports whether s is one of the LMS's states.
func (s State) Valid() bool {
	for _, v := range States {
		if s == v {
			return true
		}
	}
	return false
}

// ActionKind is the "kind" tag of a hand action.
type ActionKind string

// The hand actions the transition endpoints take (AdminCreditRegistrationAction, ledger.rs).
const (
	KindStateMove                ActionKind = "state_move"
	KindClearNeedsAdminAttention ActionKind = "clear_needs_admin_attention"
	KindCheckNow                 ActionKind = "check_now"
)

// Action is one hand action: a state move to ready_to_submit or cancelled, clearing the
// pipeline's attention flag, or making the row due now. Use the package's values Resubmit, Cancel,
// ClearAttention and CheckNow.
type Action struct {
	Kind ActionKind
	// ToState is set exactly for KindStateMove: StateReadyToSubmit or StateCancelled, the LMS's
	// ADMIN_ONLY_TARGETS.
	ToState State
}

// The four hand actions.
var (
	// Resubmit moves the row back to ready_to_submit.
	Resubmit = Action{Kind: KindStateMove, ToState: StateReadyToSubmit}
	// Cancel writes the row off.
	Cancel = Action{Kind: KindStateMove, ToState: StateCancelled}
	// ClearAttention lowers the pipeline's needs_admin_attention flag.
	ClearAttention = Action{Kind: KindClearNeedsAdminAttention}
	// CheckNow makes the row due, so the phase owning its state looks at it on its next pass.
	CheckNow = Action{Kind: KindCheckNow}
)

// Valid reports whether a is one of the four actions the LMS takes.
func (a Action) Valid() bool {
	switch a.Kind {
	case KindStateMove:
		return a.ToState == StateReadyToSubmit || a.ToState == StateCancelled
	case KindClearNeedsAdminAttention, KindCheckNow:
		return a.ToState == ""
	}
	return false
}

// String names the action for logs: "state_move:cancelled", "check_now".
func (a Action) String() string {
	if a.Kind == KindStateMove {
		return string(a.Kind) + ":" + string(a.ToState)
	}
	return string(a.Kind)
}

// MarshalJSON writes the serde shape: {"kind":"state_move","to_state":"cancelled"} or
// {"kind":"check_now"}.
func (a Action) MarshalJSON() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("lms: %q is not an action the LMS takes", a.String())
	}
	if a.Kind == KindStateMove {
		return json.Marshal(struct {
			Kind    ActionKind `json:"kind"`
			ToState State      `json:"to_state"`
		}{a.Kind, a.ToState})
	}
	return json.Marshal(struct {
		Kind ActionKind `json:"kind"`
	}{a.Kind})
}

// UnmarshalJSON reads the serde shape, refusing what the LMS would refuse: an unknown kind, a
// state move without a target it takes, or a target on the other kinds.
func (a *Action) UnmarshalJSON(b []byte) error {
	var w struct {
		Kind    *ActionKind `json:"kind"`
		ToState *State      `json:"to_state"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Kind == nil {
		return fmt.Errorf("missing field `kind`")
	}
	got := Action{Kind: *w.Kind}
	if w.ToState != nil {
		got.ToState = *w.ToState
	}
	if got.Kind == KindStateMove && w.ToState == nil {
		return fmt.Errorf("missing field `to_state`")
	}
	if !got.Valid() {
		return fmt.Errorf("unknown action %q", got.String())
	}
	*a = got
	return nil
}

// Outcome is what a single-row transition did (AdminTransitionOutcome).
type Outcome string

// The three outcomes.
const (
	OutcomeApplied  Outcome = "applied"
	OutcomeRefused  Outcome = "refused"
	OutcomeNoChange Outcome = "no_change"
)

// RefusalCode is why the LMS refused a hand action on a row (ResubmissionRefusal, state.rs).
type RefusalCode string

// The LMS's refusals; see the package documentation for when each is given.
const (
	RefusalSuperseded                   RefusalCode = "superseded"
	RefusalAlreadySucceeded             RefusalCode = "already_succeeded"
	RefusalSubmissionUncertain          RefusalCode = "submission_uncertain"
	RefusalSubmissionUncertainTooRecent RefusalCode = "submission_uncertain_too_recent"
	RefusalNotFailedPermanent           RefusalCode = "not_failed_permanent"
	RefusalStillInPipeline              RefusalCode = "still_in_pipeline"
	RefusalSubmissionPending            RefusalCode = "submission_pending"
	RefusalAlreadySubmitted             RefusalCode = "already_submitted"
	RefusalAwaitingConfirmation         RefusalCode = "awaiting_confirmation"
	RefusalAlreadyCancelled             RefusalCode = "already_cancelled"
	RefusalNothingToCheck               RefusalCode = "nothing_to_check"
)

// RefusalCodes lists every refusal in the enum's order.
var RefusalCodes = []RefusalCode{
	RefusalSuperseded, RefusalAlreadySucceeded, RefusalSubmissionUncertain,
	RefusalSubmissionUncertainTooRecent, RefusalNotFailedPermanent, RefusalStillInPipeline,
	RefusalSubmissionPending, RefusalAlreadySubmitted, RefusalAwaitingConfirmation,
	RefusalAlreadyCancelled, RefusalNothingToCheck,
}

// Known reports whether r is a refusal this package knows. An unknown one still reaches the
// caller: the LMS's answer is the authority, and a newer LMS may refuse for a new reason.
func (r RefusalCode) Known() bool {
	for _, v := range RefusalCodes {
		if r == v {
			return true
		}
	}
	return false
}

// TransitionResult is the LMS's answer to a single-row transition
// (AdminTransitionCreditRegistrationResult).
type TransitionResult struct {
	Outcome Outcome `json:"outcome"`
	// Refusal is set exactly when Outcome is OutcomeRefused; nothing was written then.
	Refusal RefusalCode `json:"refusal,omitempty"`
	// State is where the row is now.
	State               State `json:"state"`
	NeedsAdminAttention bool  `json:"needs_admin_attention"`
}

// SkipCount is how many rows of a bulk transition one refusal skipped.
type SkipCount struct {
	Refusal RefusalCode `json:"refusal"`
	Count   int64       `json:"count"`
}

// BulkResult is the LMS's answer to a bulk transition (AdminBulkTransitionResult).
type BulkResult struct {
	// AppliedCount counts the rows the action was applied to, a flag clear that found the flag
	// already down included.
	AppliedCount int64 `json:"applied_count"`
	// Skipped counts the refused rows per refusal, largest first.
	Skipped []SkipCount `json:"skipped"`
	// NotFoundCount counts the distinct ids that name no live row.
	NotFoundCount int64 `json:"not_found_count"`
	// MaxRowsPerCall is the LMS's cap on ids per call (500).
	MaxRowsPerCall int64 `json:"max_rows_per_call"`
}

// SkippedCount returns how many rows the refusal skipped.
func (b BulkResult) SkippedCount(r RefusalCode) int64 {
	for _, s := range b.Skipped {
		if s.Refusal == r {
			return s.Count
		}
	}
	return 0
}

// RequeueScope narrows a requeue to one course, one course module, or both; the zero value is
// every course.
type RequeueScope struct {
	CourseID       string
	CourseModuleID string
}

// RequeueResult is the LMS's answer to requeue-retryable (AdminRequeueRetryableResult).
type RequeueResult struct {
	RequeuedCount int64 `json:"requeued_count"`
	// MaxRowsPerCall is the most rows one call makes due (5000).
	MaxRowsPerCall int64 `json:"max_rows_per_call"`
}

// AttentionReason is why the LMS's Needs attention queue picks a row
// (credit_registration_attention_reason).
type AttentionReason string

// The LMS's attention reasons, in the enum's order (attention.rs [71168911011]).
const (
	ReasonStuckInState            AttentionReason = "stuck_in_state"
	ReasonPermanentError          AttentionReason = "permanent_error"
	ReasonRetryWindowExpired      AttentionReason = "retry_window_expired"
	ReasonMisregistered           AttentionReason = "misregistered"
	ReasonTooManyAttempts         AttentionReason = "too_many_attempts"
	ReasonOutcomeUncertain        AttentionReason = "outcome_uncertain"
	ReasonPartlyRegisteredOverdue AttentionReason = "partly_registered_overdue"
	ReasonVerificationGaveUp      AttentionReason = "verification_gave_up"
	ReasonRepeatedlyNotRegistered AttentionReason = "repeatedly_not_registered"
	ReasonStudentNumberStuck      AttentionReason = "student_number_stuck"
	ReasonFlaggedByPipeline       AttentionReason = "flagged_by_pipeline"
)

// AttentionReasons lists every reason in the enum's order.
var AttentionReasons = []AttentionReason{
	ReasonStuckInState, ReasonPermanentError, ReasonRetryWindowExpired, ReasonMisregistered,
	ReasonTooManyAttempts, ReasonOutcomeUncertain, ReasonPartlyRegisteredOverdue,
	ReasonVerificationGaveUp, ReasonRepeatedlyNotRegistered, ReasonStudentNumberStuck,
	ReasonFlaggedByPipeline,
}

// DismissResult is the LMS's answer to a dismissal (AdminDismissAttentionResult).
type DismissResult struct {
	// DismissedReasons are the reasons the dismissal covers: the row comes back to the queue only
	// when a reason outside them fires.
	DismissedReasons []AttentionReason `json:"dismissed_reasons"`
}

// Phases are the LMS's canonical phase names (CreditRegistrationPhase::as_str); the phase
// endpoints refuse any other.
var Phases = []string{
	"materialize", "preconditions", "resolve-enrolments", "import", "verify", "legacy-mirror",
	"student-notifications", "enrolment-discovery", "link-emails", "config-validation",
	"retention-sweep", "ledger-snapshot",
}

// PhaseStatus is one phase's state as the phase endpoints answer it
// (CreditRegistrationPhaseStatus, dashboard.rs).
type PhaseStatus struct {
	Phase                 string     `json:"phase"`
	ProcessName           string     `json:"process_name"`
	ExpectedIntervalSecs  int32      `json:"expected_interval_secs"`
	LastHeartbeatAt       *time.Time `json:"last_heartbeat_at"`
	LastSuccessAt         *time.Time `json:"last_success_at"`
	LastRunFinishedAt     *time.Time `json:"last_run_finished_at"`
	ItemsProcessedLastRun *int32     `json:"items_processed_last_run"`
	ItemsFailedLastRun    *int32     `json:"items_failed_last_run"`
	ConsecutiveFailures   int32      `json:"consecutive_failures"`
	PausedAt              *time.Time `json:"paused_at"`
	PauseReason           *string    `json:"pause_reason"`
	// Implemented is false for a phase the LMS has no implementation of.
	Implemented bool `json:"implemented"`
	// SecondsSinceHeartbeat is computed by the LMS against its own clock.
	SecondsSinceHeartbeat *int64 `json:"seconds_since_heartbeat"`
	// HeartbeatLate is never true while paused or never heartbeated.
	HeartbeatLate bool `json:"heartbeat_late"`
}

// ErrorBody is the JSON body of every LMS error (ErrorResponse, [34341330933]).
type ErrorBody struct {
	// Title is the HTTP status's reason phrase, "Bad Request".
	Title string `json:"title"`
	// Message is written for the person acting: "A reason is required."
	Message string  `json:"message"`
	Source  *string `json:"source"`
	// Data is a CMS block id on one kind of 400 elsewhere in the LMS; always null here.
	Data json.RawMessage `json:"data"`
}
