package views

// ActionsVM is a registration page's hand-action panel: every action with whether it may be taken
// now. Only support staff and administrators get one; for teachers the page has no panel at all.
type ActionsVM struct {
	// Version and LookupID are what the page showed: every form carries them, so an action
	// applies only to the row and the Sisu lookup the person saw.
	Version  string
	LookupID string
	Items    []ActionVM
	// Message says what to correct when the action it is about shows no form any more.
	Message string
	// Notice, when set, replaces the actions: the last attempt changed nothing, and why.
	Notice *ActionNoticeVM
}

// ActionVM is one hand action.
type ActionVM struct {
	// Name is the action's form value (schedule.Action), used in test ids.
	Name  string
	Label string
	// Summary says in one line what the action does.
	Summary string
	// URL is where the form posts.
	URL     string
	Allowed bool
	// Words is, for an allowed action, what taking it will do; for a refused one, why not, with
	// any time in it formatted.
	Words string
	// AvailableFrom, for a refusal that waiting lifts, says when, as At writes it: "14:32", "14:32 tomorrow".
	AvailableFrom string
	// Risk names a risk the person must confirm by ticking a box (its value); "" when none.
	Risk        string
	RiskLabel   string
	RiskWarning string
	// Danger marks actions that send or write off a registration.
	Danger bool
	// Open shows the form unfolded: it comes back with a message after a mistake.
	Open bool
	// Recommended marks the action the decision panel recommends as the next step.
	Recommended bool
	// Reason is what the person typed, kept after a mistake.
	Reason string
	// Error says what to correct; ErrorField is the field it is about (reason or confirm_risk).
	Error      string
	ErrorField string
}

// ActionNoticeVM says why an action changed nothing: the row changed meanwhile (kind "stale") or
// the rules refuse the action now ("refused").
type ActionNoticeVM struct {
	Kind    string
	Title   string
	Message string
	// Detail adds what the other person wrote, or when the action becomes possible.
	Detail    string
	ReloadURL string
}
