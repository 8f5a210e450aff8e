package views

// RegistrationVM is a registration's page.
type RegistrationVM struct {
	Page   Page
	Alert  AlertBannerVM
	ID     string
	Header RegistrationHeaderVM
	// Decision leads the page: where the row stands, the latest verdict, the next step.
	Decision DecisionVM
	Lookup   LookupVM
	// Claim is the "I'm on it" panel; nil for people who may not act.
	Claim *ClaimPanelVM
	// Actions is the hand-action panel; nil for people who may not act (no panel at all).
	Actions    *ActionsVM
	Properties []PropertyGroup
	Attempts   []AttemptVM
	Events     []EventVM
}

// RegistrationHeaderVM is the top of the page: who, what, and where the row stands.
type RegistrationHeaderVM struct {
	StudentName      string
	StudentURL       string
	StudentNumber    string
	StudentEmail     string
	Course           string
	Module           string
	CourseCode       string
	State            string
	StateLabel       string
	StateExplanation string
	Phase            string
	PhaseLabel       string
	PhaseExplanation string
	NeedsAdmin       bool
	Dismissed        bool
	// RunningLate is the standing running_late: stuck in its state, nobody needs to act yet.
	RunningLate bool
	// Explained says, in words, the blocking problem that accounts for every reason the row has
	// (standing explained_by_problem), which keeps it off the queue; "" when none does.
	Explained    string
	Reasons      []ReasonVM
	ErrorCode    string
	ErrorLabel   string
	ErrorMessage string
	Superseded   string
}

// PropertyGroup is a titled list of label/value pairs.
type PropertyGroup struct {
	Title      string
	Properties []Property
}

// Property is one label and its value; Mono shows the value as code.
type Property struct {
	Label string
	Value string
	Mono  bool
	Title string
	// Code is the value's code when Value says it in words (an enrolment's kind, an attainment's
	// type), shown after them as detail.
	Code string
}

// AttemptVM is one attempt at the same completion.
type AttemptVM struct {
	Label   string
	URL     string
	State   CodeVM
	When    When
	Current bool
}

// EventVM is one entry of the row's history.
type EventVM struct {
	When  When
	Kind  string
	Title string
	// Codes are the LMS's codes the title names in words (states, error code, Suotar's endpoint).
	Codes   string
	Actor   string
	Message string
	// Reason is a hand action's reason, as the person typed it (then Message is not shown).
	Reason string
	// Note adds a line about a hand action: the risk accepted, what a check asks.
	Note string
	// AuditURL leads to the hand action's audit entry.
	AuditURL string
	// Request and Response are a Suotar exchange, side by side, when the details hold them.
	Request, Response string
	Detail            string
	// Repeats counts earlier entries just like this one (the same pipeline answer, poll after
	// poll) folded into it; Since is when the first of them happened.
	Repeats int
	Since   When
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// DecisionVM is the top of a registration's page: the row's state in words, what the latest
// lookup in Sisu concluded, and the one next step recommended, beside the actions.
type DecisionVM struct {
	// StateWords says where the registration stands and what happens next, in sentences.
	StateWords string
	NextCheck  When
	Escalates  When
	// DrawnAt is the server's now (RFC 3339) the countdowns count from in the browser.
	DrawnAt string
	// VerdictKind is the latest lookup's verdict (data-kind), "failed" for a failed lookup, ""
	// for none; VerdictLabel its badge; Verdict its reason, or that there was no lookup.
	VerdictKind  string
	VerdictLabel string
	Verdict      string
	VerdictWhen  When
	// VerdictStale warns that the row moved on since the lookup.
	VerdictStale string
	// VerdictAdvice is the verdict's advice on resubmitting, the actions panel's decision in words.
	VerdictAdvice string
	// NextKind is the kind of step recommended (done, wait, lookup, setup, action, none); Next
	// says it in words.
	NextKind string
	Next     string
	// NextAction names the recommended action (its form is unfolded in the actions panel).
	NextAction string
	// LookupURL and LookupVersion draw a lookup button beside the step when it is "look it up".
	LookupURL     string
	LookupVersion string
}
