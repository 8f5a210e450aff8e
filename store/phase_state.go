package store

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file reads how the LMS's pipeline stands, for the System page and the alerts: each phase's
// row of credit_registration_phase_state, and the course modules an admin paused through
// course_module_suotar_configurations. regdesk only reads them; pausing, resuming and running a
// phase or a module goes through the LMS's admin endpoints (partner/lms).
//
// The columns are the LMS's: credit_registration_phase_state from the base credit-registration
// migration [60803375201] and its model models/src/credit_registration_phase_state.rs
// [61093281089]; a module's pause (paused_at, paused_by_user_id, pause_reason) from
// models/src/course_module_suotar_configurations/configuration.rs [71033737740], which the
// claims' credit_registration_active_course_modules view reads as "not paused" [61086656936].

// PhaseState is one pipeline phase as the LMS keeps it.
type PhaseState struct {
	// Phase is the canonical name ("import"); ProcessName the worker that runs it.
	Phase       string
	ProcessName string
	// ExpectedInterval is how often the worker means to run it.
	ExpectedInterval time.Duration
	// LastHeartbeatAt is the worker's last sign of life on this phase, written every iteration,
	// work or not; nil when it never ran.
	LastHeartbeatAt   *time.Time
	LastRunStartedAt  *time.Time
	LastRunFinishedAt *time.Time
	// LastSuccessAt moves only on an iteration that did not fail.
	LastSuccessAt *time.Time
	// NextRunAt is when the worker runs it next; "run now" sets it to now.
	NextRunAt             *time.Time
	ItemsProcessedLastRun *int32
	ItemsFailedLastRun    *int32
	ConsecutiveFailures   int32
	// LastError is the last failed iteration's scrubbed error; "" after a success.
	LastError string
	// PausedAt is set while an admin has the phase paused: the worker skips it.
	PausedAt *time.Time
	// PausedBy is the LMS user who paused it (its id, and its name from user_details, "" when
	// the LMS knows none); PauseReason what they wrote.
	PausedByUserID string
	PausedByName   string
	PauseReason    string
}

// Paused reports whether an admin has the phase paused.
func (p PhaseState) Paused() bool { return p.PausedAt != nil }

// Late reports whether the phase's heartbeat is late at now, as the LMS judges it
// (schedule.HeartbeatLate).
func (p PhaseState) Late(now time.Time) bool {
	return schedule.HeartbeatLate(p.LastHeartbeatAt, p.ExpectedInterval, p.Paused(), now)
}

// ModuleControl is a course module whose registrations the LMS's pipeline handles: one with a
// live course_module_suotar_configurations row, which the LMS's module pause and resume require.
type ModuleControl struct {
	ModuleID string
	// ModuleName is "" for a course's default module, which the LMS names nothing.
	ModuleName string
	CourseID   string
	CourseName string
	CourseCode string
	// PausedAt is set while the module is paused: no phase claims its registrations, whose
	// states stand frozen where they are.
	PausedAt       *time.Time
	PausedByUserID string
	PausedByName   string
	PauseReason    string
	// Unfinished counts the module's live registrations not yet in a terminal state: those a
	// pause holds. Counted for paused modules only (0 for the others).
	Unfinished int64
}

// Paused reports whether the module is paused.
func (m ModuleControl) Paused() bool { return m.PausedAt != nil }

// PipelineStatus is how the LMS's pipeline stands, read in one snapshot.
type PipelineStatus struct {
	// Phases are the pipeline's phases in pipeline order (schedule.PipelinePhases), any the LMS
	// has added since last.
	Phases []PhaseState
	// Modules are the modules the pipeline handles, by course and module name.
	Modules []ModuleControl
	// Requeueable counts the failed_retryable rows waiting out a backoff at the read: what a
	// requeue of every course would make due now.
	Requeueable int64
}

// PausedModules returns the paused modules.
func (s PipelineStatus) PausedModules() []ModuleControl {
	var out []ModuleControl
	for _, m := range s.Modules {
		if m.Paused() {
			out = append(out, m)
		}
	}
	return out
}

// Phase returns the named phase, and false when the LMS has no row for it.
func (s PipelineStatus) Phase(name string) (PhaseState, bool) {
	i := slices.IndexFunc(s.Phases, func(p PhaseState) bool { return p.Phase == name })
	if i < 0 {
		return PhaseState{}, false
	}
	return s.Phases[i], true
}

// Module returns the module with id, and false when the pipeline does not handle it.
func (s PipelineStatus) Module(id string) (ModuleControl, bool) {
	i := slices.IndexFunc(s.Modules, func(m ModuleControl) bool { return m.ModuleID == id })
	if i < 0 {
		return ModuleControl{}, false
	}
	return s.Modules[i], true
}

// sqlPausedByName is the name of the LMS user d who paused something: their name as user_details
// has it, else their e-mail address, else "".
const sqlPausedByName = `coalesce(nullif(btrim(concat_ws(' ', d.first_name, d.last_name)), ''), d.email, '')`

// PipelineStatusGet reads every phase, every module the pipeline handles and the requeueable
// count in one snapshot, at now.
func (s *Store) PipelineStatusGet(ctx context.Context, now time.Time) (PipelineStatus, error) {
	var out PipelineStatus
	err := s.InReadTx(ctx, func(q *Queries) error {
		var err error
		if out.Phases, err = q.PhaseStateList(ctx); err != nil {
			return err
		}
		if out.Modules, err = q.ModuleControlList(ctx); err != nil {
			return err
		}
		out.Requeueable, err = q.requeueableCount(ctx, now)
		return err
	})
	return out, err
}

// PhaseStateList returns every live phase row, in pipeline order.
func (q *Queries) PhaseStateList(ctx context.Context) ([]PhaseState, error) {
	rows, _ := q.db.Query(ctx, `SELECT p.phase::text, p.process_name::text, p.expected_interval_secs,
  p.last_heartbeat_at, p.last_run_started_at, p.last_run_finished_at, p.last_success_at, p.next_run_at,
  p.items_processed_last_run, p.items_failed_last_run, p.consecutive_failures, coalesce(p.last_error, ''),
  p.paused_at, coalesce(p.paused_by_user_id::text, ''), `+sqlPausedByName+`, coalesce(p.pause_reason, '')
FROM credit_registration_phase_state p
  LEFT JOIN user_details d ON d.user_id = p.paused_by_user_id
WHERE p.deleted_at IS NULL`)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PhaseState, error) {
		var p PhaseState
		var secs int32
		err := r.Scan(&p.Phase, &p.ProcessName, &secs, &p.LastHeartbeatAt, &p.LastRunStartedAt, &p.LastRunFinishedAt,
			&p.LastSuccessAt, &p.NextRunAt, &p.ItemsProcessedLastRun, &p.ItemsFailedLastRun, &p.ConsecutiveFailures,
			&p.LastError, &p.PausedAt, &p.PausedByUserID, &p.PausedByName, &p.PauseReason)
		p.ExpectedInterval = time.Duration(secs) * time.Second
		return p, err
	})
	if err != nil {
		return nil, dbError("PhaseStateList", err)
	}
	slices.SortStableFunc(out, func(a, b PhaseState) int {
		return cmp.Or(cmp.Compare(schedule.PipelinePhaseOrder(a.Phase), schedule.PipelinePhaseOrder(b.Phase)), cmp.Compare(a.Phase, b.Phase))
	})
	return out, nil
}

// ModuleControlList returns every live module with a live configuration row, by course and module,
// with who paused it and the registrations a pause holds.
func (q *Queries) ModuleControlList(ctx context.Context) ([]ModuleControl, error) {
	rows, _ := q.db.Query(ctx, `SELECT m.id::text, coalesce(m.name, ''), c.id::text, c.name, coalesce(m.uh_course_code, ''),
  cfg.paused_at, coalesce(cfg.paused_by_user_id::text, ''), `+sqlPausedByName+`, coalesce(cfg.pause_reason, ''),
  CASE WHEN cfg.paused_at IS NULL THEN 0 ELSE (
    SELECT count(*) FROM ledger_mirror r
    WHERE r.course_module_id = m.id AND r.deleted_at IS NULL AND r.superseded_by_id IS NULL AND r.terminal_at IS NULL)
  END
FROM course_module_suotar_configurations cfg
  JOIN course_modules m ON m.id = cfg.course_module_id
  JOIN courses c ON c.id = m.course_id
  LEFT JOIN user_details d ON d.user_id = cfg.paused_by_user_id
WHERE cfg.deleted_at IS NULL AND m.deleted_at IS NULL AND c.deleted_at IS NULL
ORDER BY c.name, m.order_number, m.name NULLS FIRST, m.id`)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ModuleControl, error) {
		var m ModuleControl
		err := r.Scan(&m.ModuleID, &m.ModuleName, &m.CourseID, &m.CourseName, &m.CourseCode,
			&m.PausedAt, &m.PausedByUserID, &m.PausedByName, &m.PauseReason, &m.Unfinished)
		return m, err
	})
	if err != nil {
		return nil, dbError("ModuleControlList", err)
	}
	return out, nil
}

// requeueableCount counts what requeue-retryable would make due at now across every course: live,
// unsuperseded failed_retryable rows whose next attempt is later (ledger.rs's requeue_retryable_now
// [71082675886]).
func (q *Queries) requeueableCount(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := q.db.QueryRow(ctx, `SELECT count(*) FROM credit_registrations r
WHERE r.state = 'failed_retryable' AND r.next_attempt_at > $1 AND r.deleted_at IS NULL AND r.superseded_by_id IS NULL`, now).Scan(&n)
	if err != nil {
		return 0, dbError("requeueableCount", err)
	}
	return n, nil
}

// pipelineFacts are the health rules' facts about the pipeline: every phase, with the rows a paused
// one holds in the states it owns (schedule.PhaseOwnedStates), and the paused modules.
func (q *Queries) pipelineFacts(ctx context.Context) ([]schedule.PhaseFact, []schedule.PausedModuleFact, error) {
	phases, err := q.PhaseStateList(ctx)
	if err != nil {
		return nil, nil, err
	}
	facts := make([]schedule.PhaseFact, 0, len(phases))
	for _, p := range phases {
		f := schedule.PhaseFact{Phase: p.Phase, ExpectedInterval: p.ExpectedInterval, LastHeartbeatAt: p.LastHeartbeatAt, PausedAt: p.PausedAt}
		if owned := p.ownedStates(); p.Paused() && len(owned) > 0 {
			if err := q.db.QueryRow(ctx, `SELECT count(*) FROM ledger_mirror cr
WHERE `+liveSQL+` AND cr.superseded_by_id IS NULL AND cr.state = ANY($1)`, owned).Scan(&f.Held); err != nil {
				return nil, nil, dbError("pipelineFacts held", err)
			}
		}
		facts = append(facts, f)
	}
	modules, err := q.ModuleControlList(ctx)
	if err != nil {
		return nil, nil, err
	}
	var paused []schedule.PausedModuleFact
	for _, m := range modules {
		if !m.Paused() {
			continue
		}
		label := m.CourseName
		if m.ModuleName != "" {
			label += " · " + m.ModuleName
		}
		paused = append(paused, schedule.PausedModuleFact{ModuleID: m.ModuleID, Label: label, PausedAt: *m.PausedAt, Held: int(m.Unfinished)})
	}
	return facts, paused, nil
}

// ownedStates are the states the phase moves rows out of, as the ledger spells them.
func (p PhaseState) ownedStates() []string {
	var out []string
	for _, st := range schedule.PhaseOwnedStates(p.Phase) {
		out = append(out, string(st))
	}
	return out
}
