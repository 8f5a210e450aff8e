package schedule

// AdminAction is a value of the LMS's credit_registration_admin_action: what a person did, as the
// LMS's own audit (credit_registration_admin_actions) records it. regdesk reads these and names
// them; the hand actions it offers are Action, which the LMS records as transition_item or
// dismiss_attention.
type AdminAction string

// The LMS's admin actions, in the enum's order (the base migration [60803375201] and the later
// additions [71065364207] [71204060542]).
var adminActions = newEnumTable[AdminAction]("LMS admin action",
	"retry_item", "retry_failed_for_course", "force_recheck", "mark_resolved", "requeue_batch",
	"transition_item", "cancel_registration", "pause_course_module", "resume_course_module",
	"pause_phase", "resume_phase", "run_phase_now", "resend_link_email", "unlink_student_number",
	"manual_link_student_number", "override_rate_cap", "dismiss_attention",
	"request_enrolment_list_fetch", "dismiss_study_registry_conflict",
)

// AdminActions lists the LMS's admin actions in the enum's order; the slice is the caller's.
func AdminActions() []AdminAction { return adminActions.list() }

// Valid reports whether a is one of the LMS's admin actions.
func (a AdminAction) Valid() bool { return adminActions.valid(a) }

// AdminTarget is a value of the LMS's credit_registration_admin_action_target: what kind of thing
// an admin action acted on.
type AdminTarget string

// The LMS's admin action targets, in the enum's order.
var adminTargets = newEnumTable[AdminTarget]("LMS admin action target",
	"credit_registration", "course_module", "course", "phase", "verified_student_number",
	"student_number_verification_token", "roster_schedule", "study_registry_student_number_conflict",
)

// AdminTargets lists the LMS's admin action targets in the enum's order.
func AdminTargets() []AdminTarget { return adminTargets.list() }

// AdminRoles are the roles the LMS writes in its audit's actor_role (a varchar: the LMS's
// global admin, or a course's teacher acting on their course).
func AdminRoles() []string { return []string{"global_admin", "course_teacher"} }
