package schedule

import (
	"fmt"
	"math/bits"
	"slices"
	"time"
)

// Standing is which section of the LMS's Needs attention tab a picked row belongs to: exactly
// one per row that carries a reason (attention.rs AttentionStanding). The zero Standing is a row
// no detector picked. The values are the LMS's wire names and regdesk's URL filter values.
type Standing string

// The standings, in the LMS's order. Classify decides them in a different one: dismissed first,
// then explained by a problem, then needs attention, else running late.
const (
	// StandingNeedsAttention is a row with a person-level reason that no dismissal and no
	// blocking problem accounts for: the needs-a-person list, and every count of it.
	StandingNeedsAttention Standing = "needs_attention"
	// StandingRunningLate is a row whose only reason is ReasonStuckInState: slow, but nobody needs
	// to act yet.
	StandingRunningLate Standing = "running_late"
	// StandingDismissed is a row whose every reason a live dismissal covers.
	StandingDismissed Standing = "dismissed"
	// StandingExplainedByProblem is a row a blocking problem accounts for (BlockingProblems): it
	// is listed under that problem instead of on its own.
	StandingExplainedByProblem Standing = "explained_by_problem"
)

var standings = newEnumTable("attention standing",
	StandingNeedsAttention,
	StandingRunningLate,
	StandingDismissed,
	StandingExplainedByProblem,
)

// Standings lists every standing in the LMS's order; the slice is the caller's to keep.
func Standings() []Standing { return standings.list() }

// ParseStanding reads a standing from user input, such as a URL filter: its value, ignoring case
// and surrounding space. The error is a *ParseError whose message can be shown to that user.
func ParseStanding(s string) (Standing, error) { return standings.parse(s) }

// Valid reports whether s is one of the standings (the zero Standing is not).
func (s Standing) Valid() bool { return standings.valid(s) }

// Note is something regdesk shows about a row beyond the LMS's reasons: when the pipeline will
// act on it by itself, or why only a person can settle it. A note is never a reason: the LMS
// cannot store it in a dismissal, and it puts no row on the queue. The values are codes the edge
// words (note.<value>), not stored anywhere.
type Note string

// The notes, in the order Status.Notes lists them.
const (
	// NoteSubmissionTimeMissing is an uncertain row without submitted_at: no window runs from it,
	// so the pipeline never escalates it, and it can never be resubmitted (nobody can tell when
	// Suotar stops holding it as pending).
	NoteSubmissionTimeMissing Note = "submission_time_missing"
	// NoteUncertainOverdue is an uncertain row UncertainAdminAfter past submitted_at: the pipeline
	// flags it for a person (UncertainNeedsAdmin), and it waits on support, not on Sisu.
	NoteUncertainOverdue Note = "uncertain_overdue"
	// NotePastRecoveryGrace is a submitting or resolving_enrolment row strictly past its recovery
	// grace (SubmittingRecoveryGrace, ResolvingRecoveryGrace): the pipeline's recovery sweep should
	// have taken it back by now, so its worker or the sweep may be down.
	NotePastRecoveryGrace Note = "past_recovery_grace"
	// NoteRetryWindowOver is a failed_retryable row SubmitMaxRetryAge past first_failed_at: the
	// next sweep fails it with retry_window_expired, and then it needs a person.
	NoteRetryWindowOver Note = "retry_window_over"
)

var notes = newEnumTable("attention note",
	NoteSubmissionTimeMissing,
	NoteUncertainOverdue,
	NotePastRecoveryGrace,
	NoteRetryWindowOver,
)

// Notes lists every note in the order Status.Notes lists them; the slice is the caller's to keep.
func Notes() []Note { return notes.list() }

// Valid reports whether n is one of the notes.
func (n Note) Valid() bool { return notes.valid(n) }

// NoteSet is a set of notes, one bit each in Notes() order.
type NoteSet uint8

const (
	noteSubmissionTimeMissing NoteSet = 1 << iota
	noteUncertainOverdue
	notePastRecoveryGrace
	noteRetryWindowOver
	noteEnd
)

const allNotes = noteEnd - 1

// noteBit is n's bit; 0 for a note this package does not know.
func noteBit(n Note) NoteSet {
	if i := notes.position(n); i >= 0 {
		return 1 << i
	}
	return 0
}

// Has reports whether n is in the set.
func (s NoteSet) Has(n Note) bool {
	b := noteBit(n)
	return b != 0 && s&b != 0
}

// Empty reports whether the set holds no note.
func (s NoteSet) Empty() bool { return s&allNotes == 0 }

// Len is how many notes the set holds.
func (s NoteSet) Len() int { return bits.OnesCount8(uint8(s & allNotes)) }

// List returns the set's notes in Notes() order; nil when it is empty.
func (s NoteSet) List() []Note {
	if s.Empty() {
		return nil
	}
	out := make([]Note, 0, s.Len())
	for i, n := range notes.values {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// String lists the set's notes, for messages and tests.
func (s NoteSet) String() string { return fmt.Sprint(s.List()) }

// LinkingFacts are what ReasonStudentNumberStuck reads of a pending row: facts of LMS tables
// other than the ledger (credit_registration_preconditions, the enrolment routes, the roster
// schedules, the linking emails), which the store derives (store.linkingFactsJoin). The zero value
// is "not stuck".
type LinkingFacts struct {
	// AwaitsStudentNumber is true when the completion is eligible, the student has no verified
	// student number, and the completion is dated on or after account linking began (the LMS's
	// account_linking_since; false when linking is off).
	AwaitsStudentNumber bool
	// PressedAt is the student's latest "I have enrolled" press; nil when never.
	PressedAt *time.Time
	// LastMailingFetchStartedAt is when the code's latest fetch of its enrolment list that could
	// claim linking mail started; nil when none has.
	LastMailingFetchStartedAt *time.Time
	// LinkingEmailSincePress is true when a linking email went out on the code at or after the
	// press.
	LinkingEmailSincePress bool
}

// stuck is attention.rs's student_number_stuck without the state: a fetch that started at least
// StudentNumberStuckAfterPress after the press, and no linking email since it.
func (l *LinkingFacts) stuck() bool {
	if !l.AwaitsStudentNumber || l.PressedAt == nil || l.LastMailingFetchStartedAt == nil || l.LinkingEmailSincePress {
		return false
	}
	return !l.LastMailingFetchStartedAt.Before(l.PressedAt.Add(StudentNumberStuckAfterPress))
}

// BlockingProblemKind is what kind of thing a BlockingProblem is, which decides what its Subject
// names (attention.rs BlockingProblemKind).
type BlockingProblemKind string

// The kinds of blocking problem, with the LMS's wire names.
const (
	// ProblemPhaseStopped is a processing phase paused or with a late heartbeat; the subject is
	// the phase's name.
	ProblemPhaseStopped BlockingProblemKind = "processing_phase_stopped"
	// ProblemCourseCodeFailing is a course code whose enrolment list keeps failing to arrive; the
	// subject is the code.
	ProblemCourseCodeFailing BlockingProblemKind = "course_code_failing"
	// ProblemModuleMisconfigured is a module failing its configuration check; the subject is the
	// module's id.
	ProblemModuleMisconfigured BlockingProblemKind = "module_misconfigured"
)

// BlockingProblem is one problem that holds up many registrations at once.
type BlockingProblem struct {
	Kind    BlockingProblemKind
	Subject string
}

// StoppedPhase is a processing phase that is paused or late.
type StoppedPhase struct {
	// Phase is the phase's name.
	Phase string
	// OwnedStates are the states whose rows wait on the phase to move.
	OwnedStates []State
	// SendsLinkingEmails is true for a phase a waiting student's linking email goes out through.
	SendsLinkingEmails bool
}

// BlockingProblems are the problems currently holding up many rows at once, as the LMS's alert
// rules see them (attention.rs BlockingProblems). The store's SQL reads them from the LMS's tables
// in every statement that decides a standing (store's sqlExplained, held to ClassifyWith by its
// agreement test); Classify passes none.
type BlockingProblems struct {
	StoppedPhases []StoppedPhase
	// FailingCourseCodes are trimmed course codes.
	FailingCourseCodes []string
	// MisconfiguredModuleIDs are course module ids.
	MisconfiguredModuleIDs []string
}

// Explaining returns the problem that accounts for every reason in reasons, which row r carries,
// if one does (attention.rs blocking_problem): a stopped phase that owns r's state explains
// stuck_in_state, and one that sends linking email explains student_number_stuck; a failing
// course code (r's module's code now) explains student_number_stuck; a misconfigured module
// explains permanent_error and flagged_by_pipeline on a row whose error code needs the course's
// setup. The problems are tried in that order and the first that explains all wins.
func (p *BlockingProblems) Explaining(r *Row, reasons ReasonSet) (BlockingProblem, bool) {
	if p == nil || reasons.Empty() {
		return BlockingProblem{}, false
	}
	for _, phase := range p.StoppedPhases {
		var explained ReasonSet
		if slices.Contains(phase.OwnedStates, r.State) {
			explained |= bitStuckInState
		}
		if phase.SendsLinkingEmails {
			explained |= bitStudentNumberStuck
		}
		if reasons&^explained == 0 {
			return BlockingProblem{Kind: ProblemPhaseStopped, Subject: phase.Phase}, true
		}
	}
	if r.CourseCode != "" && reasons&^bitStudentNumberStuck == 0 && slices.Contains(p.FailingCourseCodes, r.CourseCode) {
		return BlockingProblem{Kind: ProblemCourseCodeFailing, Subject: r.CourseCode}, true
	}
	if r.ErrorCode != "" && r.ErrorCode.Class() == PermanentNeedsConfig &&
		reasons&^(bitPermanentError|bitFlaggedByPipeline) == 0 && slices.Contains(p.MisconfiguredModuleIDs, r.CourseModuleID) {
		return BlockingProblem{Kind: ProblemModuleMisconfigured, Subject: r.CourseModuleID}, true
	}
	return BlockingProblem{}, false
}

// standingOf is attention.rs's standing for a row carrying reasons: dismissed when a live
// dismissal covers them all, else explained when a blocking problem accounts for them all, else
// needs attention when one is person-level, else running late. The zero Standing when it carries
// none.
func standingOf(r *Row, reasons ReasonSet, problems *BlockingProblems) Standing {
	switch {
	case reasons.Empty():
		return ""
	case reasons&^dismissedSet(r.DismissedReasons) == 0:
		return StandingDismissed
	}
	if _, ok := problems.Explaining(r, reasons); ok {
		return StandingExplainedByProblem
	}
	if reasons&personLevelSet != 0 {
		return StandingNeedsAttention
	}
	return StandingRunningLate
}
