package views

// SystemVM is the System page: how the LMS's pipeline stands (its phases, the paused course
// modules) and, for admins, its controls, each asked of the LMS as the person.
type SystemVM struct {
	Page    Page
	Phases  SystemPhasesVM
	Modules SystemModulesVM
	Requeue SystemRequeueVM
}

// SystemNoticeVM is what came of a control, shown at the top of its section.
type SystemNoticeVM struct {
	// Kind is "done", "refused" or "unknown" (the LMS's answer never came).
	Kind    string
	Message string
}

// SystemPhasesVM is the section of the pipeline's phases.
type SystemPhasesVM struct {
	Notice *SystemNoticeVM
	// NoControls says why the person cannot use the controls ("" when they can, or when the
	// page is read only for their role and says nothing).
	NoControls string
	Phases     []PhaseVM
}

// PhaseVM is one phase.
type PhaseVM struct {
	// Name is the LMS's canonical phase name, shown as a code after Label, its words; Process
	// the worker running it.
	Name    string
	Label   string
	Process string
	// Status is "running", "paused", "late" or "never_ran"; StatusLabel its words.
	Status      string
	StatusLabel string
	// Interval is how often the worker means to run it, in words.
	Interval string
	// Paused: who (a name, or "you"), since when and why.
	PausedBy    string
	PausedAt    When
	PauseReason string
	// Heartbeat is the worker's last sign of life; LastRun the end of its last iteration;
	// LastSuccess its last iteration that did not fail; NextRun when it runs next.
	Heartbeat   When
	LastRun     When
	LastSuccess When
	NextRun     When
	// LastItems says what the last iteration did ("12 moved, 1 failed"); "" when unknown.
	LastItems string
	// Failing says how many iterations in a row failed and the last error; "" when none.
	Failing string
	// Forms are the controls on this phase the person may use: pause or resume, and run now.
	Forms []ControlFormVM
}

// SystemModulesVM is the section of the course modules' pauses.
type SystemModulesVM struct {
	Notice     *SystemNoticeVM
	NoControls string
	// Paused are the paused modules.
	Paused []PausedModuleVM
	// Pause is the form that pauses a module; nil when the person may not, or no module is left
	// to pause.
	Pause *ControlFormVM
}

// PausedModuleVM is one paused module.
type PausedModuleVM struct {
	ModuleID string
	// Label is "course · module"; CourseURL the course's page.
	Label     string
	CourseURL string
	Code      string
	PausedBy  string
	PausedAt  When
	Reason    string
	// Held is the unfinished registrations the pause holds, in words.
	Held string
	// Resume is the form that resumes it; nil when the person may not.
	Resume *ControlFormVM
}

// SystemRequeueVM is the section that makes retryable rows due now.
type SystemRequeueVM struct {
	Notice *SystemNoticeVM
	// Waiting says how many rows wait out a backoff now.
	Waiting string
	// Form is the requeue form; nil when the person may not use it.
	Form *ControlFormVM
}

// ControlFormVM is one control's form: a button that unfolds a reason (and, where the control
// needs one, a choice) and sends it.
type ControlFormVM struct {
	// Name is the control's short name ("pause", "resume", "run-now", "requeue"), for test ids.
	Name string
	// Label is the button's words; Explain says what the control does.
	Label   string
	Explain string
	URL     string
	// Target is the id of the section the answer replaces.
	Target string
	// Danger marks a control that stops work.
	Danger bool
	// Module is sent as the form's module, for a control on one module.
	Module string
	// ChoiceName, ChoiceLabel and Choices are a select the control needs ("module", "scope").
	ChoiceName  string
	ChoiceLabel string
	Choices     []Option
	// Open unfolds the form, as it was sent, with Error at its field.
	Open   bool
	Reason string
	Error  string
}
