package views

// LookupVM is the "Is it in Sisu?" region of a registration page: the button that looks the row
// up through Suotar, and the latest lookup.
type LookupVM struct {
	// ActionURL is where the lookup form posts.
	ActionURL string
	// Version is the row version the page was drawn with; the lookup sends it back, so the action
	// panel its answer refreshes still acts only on the row the page shows.
	Version string
	// Unavailable, when set, says why no lookup can be made now; the button is then disabled.
	Unavailable string
	// Last is the latest lookup, read back from the row's history; nil when there is none.
	Last *LookupResultVM
}

// LookupResultVM is one lookup as support staff read it.
type LookupResultVM struct {
	When When
	// By names who looked; "" when the request had no signed-in person.
	By string
	// Took is how long Suotar took, "1.2 s".
	Took string
	// Stale, when set, warns that the row has moved on since the lookup.
	Stale string
	// Error says why the lookup cannot be shown (a record this version cannot read); the verdict
	// is then empty.
	Error string
	// Failed says which calls of the lookup brought no answer and why; "" when all answered. The
	// verdict then says what the rest shows, never "not in Sisu".
	Failed string
	// HeldUnknown is true when the call for the attainments failed: what Sisu holds is unknown.
	HeldUnknown bool
	// Verdict is the answer; Kind is "" when the lookup failed.
	Verdict LookupVerdictVM
	// Sent is what regdesk sent: the row's frozen payload.
	Sent []Property
	// Attainments are what Sisu holds for the student on the course code.
	Attainments []LookupAttainmentVM
	// AttainmentsNote qualifies the list (Suotar's code, entries it could not read).
	AttainmentsNote string
	// Verify is Suotar's verify answer for the submitted id; nil when there was none to ask.
	Verify *LookupVerifyVM
	// Person says whom the lookup was for and whether Sisu's person is the row's.
	Person []Property
	// Calls lists the Suotar calls with their correlation ids, for an administrator's log search.
	Calls []Property
}

// LookupVerdictVM is the verdict badge, its reason and what it means for resubmitting.
type LookupVerdictVM struct {
	// Kind is the verdict; Badge the word on its badge (schedule.VerdictBadge), which Label names.
	Kind        string
	Badge       string
	Label       string
	Explanation string
	Reason      string
	// Advice is whether the row may be resubmitted now, as the action panel decides it; nil where
	// the reader cannot act, or the lookup is not the one the decisions rest on.
	Advice *AdviceVM
}

// AdviceVM is the verdict's advice on resubmitting.
type AdviceVM struct {
	Allowed bool
	Words   string
}

// LookupAttainmentVM is one attainment Sisu holds, weighed against what regdesk sent.
type LookupAttainmentVM struct {
	ID               string
	Type             string
	TypeTitle        string
	AttainmentDate   string
	RegistrationDate string
	Grade            string
	Scale            string
	State            string
	Credits          string
	// Match marks the attainment that shows the submission; AlsoMatches another that matches too
	// (the assessment item attainment a matching course unit attainment was built from).
	Match       bool
	AlsoMatches bool
	// Ours marks an attainment tied to the submission by id.
	Ours bool
	// Conflict says how an attainment that looks like the submission differs from it.
	Conflict string
	// GradeDiffers, ScaleDiffers and DateDiffers mark the cells that differ from what was sent.
	GradeDiffers, ScaleDiffers, DateDiffers bool
}

// Status is the attainment's standing against what was sent: match, also_match, conflict or
// other.
func (a LookupAttainmentVM) Status() string {
	switch {
	case a.Match:
		return "match"
	case a.AlsoMatches:
		return "also_match"
	case a.Conflict != "":
		return "conflict"
	}
	return "other"
}

// LookupVerifyVM is Suotar's verify answer for the submitted attainment id.
type LookupVerifyVM struct {
	SubmittedID string
	Code        string
	// Says is the answer in words; Error is why there was none.
	Says  string
	Error string
}
