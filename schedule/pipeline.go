package schedule

import (
	"slices"
	"time"
)

// The LMS's pipeline phases: the workers that move rows (credit_registration_phase_state, one
// row per phase), not a row's Phase. Their names are the LMS's canonical ones, shown as codes.
//
// Sources: models/src/credit_registration_phase_state.rs [61093281089] (PHASES, pause, resume,
// run_now); the phase seeds of the base migration [60803375201] and the later ones
// ([69566211898] drops product-token-refresh, [60801992535] adds ledger-snapshot);
// server/src/domain/credit_registration/health.rs [71445146341] and [60899529532]
// (PHASE_HEARTBEAT_INTERVAL_MULTIPLIER, is_heartbeat_late).

// pipelinePhases are the canonical phase names in the order a row meets them (domain.md §1).
var pipelinePhases = []string{
	"materialize", "preconditions", "resolve-enrolments", "import", "verify", "legacy-mirror",
	"student-notifications", "enrolment-discovery", "link-emails", "config-validation",
	"retention-sweep", "ledger-snapshot",
}

// PipelinePhases returns the LMS's canonical phase names in pipeline order.
func PipelinePhases() []string { return slices.Clone(pipelinePhases) }

// PipelinePhaseKnown reports whether name is one of the LMS's canonical phase names: the phase
// endpoints refuse any other.
func PipelinePhaseKnown(name string) bool { return slices.Contains(pipelinePhases, name) }

// PipelinePhaseOrder is name's place in PipelinePhases, or len(PipelinePhases) for a phase the
// LMS has added since, so it sorts last.
func PipelinePhaseOrder(name string) int {
	if i := slices.Index(pipelinePhases, name); i >= 0 {
		return i
	}
	return len(pipelinePhases)
}

// PhaseHeartbeatIntervalMultiplier is how many of its own intervals a phase may go without a
// heartbeat before the LMS calls it late (PHASE_HEARTBEAT_INTERVAL_MULTIPLIER).
const PhaseHeartbeatIntervalMultiplier = 2

// HeartbeatLate is the LMS's is_heartbeat_late: a running phase whose last heartbeat is more than
// PhaseHeartbeatIntervalMultiplier intervals old at now, counted in whole seconds as the LMS
// counts them. A paused phase is never late (nothing expects it to beat), and neither is one that
// never beat: a freshly migrated database has no heartbeats at all.
func HeartbeatLate(lastHeartbeat *time.Time, expectedInterval time.Duration, paused bool, now time.Time) bool {
	if paused || lastHeartbeat == nil {
		return false
	}
	since := int64(now.Sub(*lastHeartbeat) / time.Second)
	return since > int64(expectedInterval/time.Second)*PhaseHeartbeatIntervalMultiplier
}

// phaseOwnedStates are the states each phase moves rows out of, the LMS's owned_states
// (credit-registration/src/phase.rs [69587564828], [69467844839]; partially_registered is in no
// phase's list there): a stopped phase explains why rows in them wait (BlockingProblems).
var phaseOwnedStates = map[string][]State{
	"preconditions":      {StatePending, StateFailedRetryable, StateBlocked},
	"resolve-enrolments": {StateReadyToSubmit, StateResolvingEnrolment, StateNoUsableEnrolment},
	"import":             {StateCheckingEnrolment, StateSubmitting},
	"verify":             {StateAwaitingVerification, StateSubmissionUncertain},
}

// PhaseOwnedStates returns the states the phase moves rows out of; none for a phase that moves
// no rows (materialize creates them, the others keep other tables).
func PhaseOwnedStates(phase string) []State { return slices.Clone(phaseOwnedStates[phase]) }

// linkingPhases are the phases a waiting student's linking e-mail goes out through
// (attention.rs: enrolment discovery finds the student, link-emails sends the mail).
var linkingPhases = []string{"enrolment-discovery", "link-emails"}

// StoppedPhaseNamed is the blocking problem of phase name stopped: the states it keeps, and
// whether a waiting student's linking e-mail goes out through it.
func StoppedPhaseNamed(name string) StoppedPhase {
	return StoppedPhase{Phase: name, OwnedStates: PhaseOwnedStates(name), SendsLinkingEmails: slices.Contains(linkingPhases, name)}
}
