package views

// RegistrationVM is a registration's page.
type RegistrationVM struct {
	Page     Page
	Alert    AlertBannerVM
	ID       string
	Header   RegistrationHeaderVM
	Lookup   LookupVM
	Facts    []FactGroup
	Attempts []AttemptVM
	Events   []EventVM
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
	Reasons          []ReasonVM
	NextCheck        When
	Escalates        When
	ErrorCode        string
	ErrorLabel       string
	ErrorMessage     string
	Superseded       string
}

// FactGroup is a titled list of label/value pairs.
type FactGroup struct {
	Title string
	Facts []Fact
}

// Fact is one label and its value; Mono shows the value as code.
type Fact struct {
	Label string
	Value string
	Mono  bool
	Title string
}

// AttemptVM is one attempt at the same completion.
type AttemptVM struct {
	Label   string
	URL     string
	State   string
	When    When
	Current bool
}

// EventVM is one entry of the row's history.
type EventVM struct {
	When    When
	Kind    string
	Title   string
	Actor   string
	Message string
	Detail  string
}
