package demo

import "time"

// Staff is a person whose hands appear in the demo's history: an LMS user with the global
// credit_registration_admin role, who cancels rows, clears the pipeline's flag and dismisses rows
// from the Needs attention queue through the LMS's admin pages. A regdesk account that is this
// person names the user (accounts.lms_user_id; StaffUserIDs finds it by e-mail address).
type Staff struct {
	// Name is "First Last"; the first word is the first name.
	Name  string
	Email string
}

// DefaultStaff are the people of Config.Staff when it names none: make run's admin and support
// accounts.
var DefaultStaff = []Staff{
	{Name: "Aino Admin", Email: "admin@regdesk.test"},
	{Name: "Sami Support", Email: "support@regdesk.test"},
}

// staffUser is a Staff as written to the LMS: users, user_details and a global roles row.
type staffUser struct {
	id, roleID  [16]byte
	name        string
	first, last string
	email       string
	createdAt   time.Time
}

// The values the LMS's admin endpoints write into credit_registration_admin_actions, from the
// admin controllers (services/headless-lms/server/src/controllers/main_frontend/
// credit_registration_admin/, stored texts 70926634491 and 70910490224).
const (
	actionTransitionItem   = "transition_item"
	actionDismissAttention = "dismiss_attention"
	// targetRegistration is target_kind for an action on one ledger row.
	targetRegistration = "credit_registration"
	// actorRoleGlobalAdmin is actor_role for everyone acting through the credit-registration
	// admin pages (GLOBAL_ADMIN_ROLE).
	actorRoleGlobalAdmin = "global_admin"
)

// The LMS's attention reasons (credit_registration_attention_reason) a demo dismissal covers, from
// models/src/credit_registrations/attention.rs (stored text 71168911011).
const (
	reasonFlaggedByPipeline       = "flagged_by_pipeline"
	reasonPartlyRegisteredOverdue = "partly_registered_overdue"
)

// staffMember picks who acts.
func (g *gen) staffMember() *staffUser { return g.staff[g.rng.intn(len(g.staff))] }

// outcomeApplied is the details of a hand transition that went through, as the LMS writes them.
var outcomeApplied = []byte(`{"outcome": "applied"}`)

// admin is a person's state move through the LMS's admin transition: transition() with an
// admin_action event naming them and their reason, the pipeline's flag cleared, a non-terminal
// target made due at once, and the LMS's audit row (transition_item, global_admin, the outcome).
func (l *life) admin(t time.Time, to, reason string) {
	r := l.r
	who := l.g.staffMember()
	before := r.state
	e := l.move(t, evAdminAction, to, "", reason)
	e.actor = who
	r.needsAdmin = false
	if !isTerminal(to) {
		r.nextAttemptAt = e.at
		if keepsEnrolmentSchedule(to) {
			r.ecSource = "admin_request"
		}
	}
	r.actions = append(r.actions, adminAction{id: l.g.rng.uuid7(e.at), at: e.at, action: actionTransitionItem, actor: who,
		reason: reason, before: before, after: to, details: outcomeApplied})
}

// handEvent appends an admin_action event that moves nothing (from_state and to_state NULL), as
// the LMS writes for a hand action that leaves the state alone.
func (l *life) handEvent(t time.Time, who *staffUser, reason string) *event {
	r := l.r
	if !t.After(l.last) {
		t = l.last.Add(time.Millisecond)
	}
	r.events = append(r.events, event{id: l.g.rng.uuid7(t), at: t, actor: who, kind: evAdminAction, message: reason})
	l.last = t
	return &r.events[len(r.events)-1]
}

// clearFlag is a person's "clear needs admin attention": only the flag changes (so updated_at),
// with an admin_action event and the audit row; the row stays where it is.
func (l *life) clearFlag(t time.Time, reason string) {
	r := l.r
	who := l.g.staffMember()
	e := l.handEvent(t, who, reason)
	r.needsAdmin = false
	r.updatedAt = e.at
	r.actions = append(r.actions, adminAction{id: l.g.rng.uuid7(e.at), at: e.at, action: actionTransitionItem, actor: who,
		reason: reason, before: r.state, after: r.state, details: outcomeApplied})
}

// dismiss takes the row off the Needs attention queue for the LMS attention reasons it carries
// now: the dismissal, an admin_action event and the audit row (dismiss_attention, with the
// reasons). The ledger row itself is not written.
func (l *life) dismiss(t time.Time, reasons []string, note string) {
	r := l.r
	who := l.g.staffMember()
	e := l.handEvent(t, who, note)
	r.dismissal = &dismissal{id: l.g.rng.uuid7(e.at), at: e.at, reasons: reasons, by: who, note: note}
	d := newObj(make([]byte, 0, 64))
	d.key("attention_reasons")
	d.b = append(d.b, '[')
	for i, x := range reasons {
		if i > 0 {
			d.b = append(d.b, ',')
		}
		d.b = appendJSONString(d.b, x)
	}
	d.b = append(d.b, ']')
	// No states: the LMS's dismiss-attention endpoint records none.
	r.actions = append(r.actions, adminAction{id: l.g.rng.uuid7(e.at), at: e.at, action: actionDismissAttention, actor: who,
		reason: note, details: d.end()})
}
