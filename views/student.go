package views

// SearchResultsVM is the search box's dropdown of students, or the list on the results page.
type SearchResultsVM struct {
	// Query is the text searched for, as the person typed it.
	Query string
	// Active is false for a query too short to search: the dropdown renders closed and empty.
	Active bool
	// Message says what is wrong with the query; nothing was searched.
	Message string
	Results []StudentResultVM
	// Empty says that nobody matched, and what to try instead.
	Empty string
	// MoreURL is the results page, when there are more students than the dropdown shows.
	MoreURL string
	// Summary says how many are shown, on the results page.
	Summary   string
	ScopeNote string
}

// StudentResultVM is one student found.
type StudentResultVM struct {
	ID            string
	URL           string
	Name          string
	Number        string
	Email         string
	Registrations string
}

// StudentsVM is the search results page, /students?q=, which the box leads to without JavaScript.
type StudentsVM struct {
	Page    Page
	Results SearchResultsVM
}

// StudentVM is a student's page: who they are and every registration of theirs the person may
// see, newest first.
type StudentVM struct {
	Page      Page
	ID        string
	Name      string
	Number    string
	Email     string
	Alert     AlertBannerVM
	Cards     []RegistrationCardVM
	Empty     string
	ScopeNote string
}

// RegistrationCardVM is one registration on a student's page, in a teacher's words.
type RegistrationCardVM struct {
	ID        string
	Course    string
	CourseURL string
	Module    string
	Grade     string
	Credits   string
	Completed string
	// Status is the student-facing status's value, for styling and tests; StatusLabel is shown.
	Status             string
	StatusLabel        string
	StatusExplanation  string
	WaitsOn            string
	WaitsOnLabel       string
	WaitsOnExplanation string
	// Sentence is what happens next and when.
	Sentence string
	// Message is the text a teacher can paste into a reply to the student, in MessageLang, the
	// course's language; MessageID is the id of its textarea. Messages are the same text in each
	// of regdesk's languages, the default first, for the switch beside the copy button.
	Message     string
	MessageID   string
	MessageLang string
	Messages    []StudentMessageVM
	// Replaced says a later attempt replaced this one; "" for the live attempt.
	Replaced string
	// Pipeline holds the internal states and codes, for support staff; nil for teachers.
	Pipeline *PipelineDetailsVM
	// Claim is who is on the row, shown to support staff beside the card's status.
	Claim ClaimVM
}

// PipelineDetailsVM is the pipeline's view of a registration, one click away on a student's page.
type PipelineDetailsVM struct {
	URL              string
	State            string
	StateLabel       string
	Phase            string
	PhaseLabel       string
	PhaseExplanation string
	ErrorCode        string
	ErrorLabel       string
	NeedsAdmin       bool
	Reasons          []ReasonVM
	NextCheck        When
	Escalates        When
	Attempt          string
}

// StudentMessageVM is the message for the student in one language.
type StudentMessageVM struct {
	// Lang is the message's language tag; Name is the language's name in itself ("suomi").
	Lang, Name string
	// ID is its textarea's id.
	ID   string
	Text string
}
