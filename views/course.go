package views

// CoursesVM is the list of the courses a person may open.
type CoursesVM struct {
	Page    Page
	Courses []CourseItemVM
	Empty   string
	Note    string
	// Modules is the support list of every course module; nil for teachers, who get Courses.
	Modules []CourseModuleRowVM
	// Columns are the module list's headings, the sortable ones with a link; SortedBy names the
	// column the list is sorted by.
	Columns  []ColumnVM
	SortedBy string
	// CountedAt says when the modules' numbers, shared for a while, were counted; "" when they are
	// counted for every request.
	CountedAt string
}

// ColumnVM is one heading of a sortable table.
type ColumnVM struct {
	Key, Label string
	// URL sorts by the column; "" for a column that does not sort.
	URL     string
	Numeric bool
	Active  bool
}

// CourseModuleRowVM is one course module in support's list.
type CourseModuleRowVM struct {
	ModuleID, CourseURL, CourseName, ModuleName, Code string
	Total, Registered, InFlight, Failed, NeedsAdmin   string
	// QueueURL is every row of the course in the queue, NeedsAdminURL those needing a person.
	QueueURL, NeedsAdminURL string
	LastRegistered          string
	TopError, TopErrorURL   string
	// TopErrorLabel is TopError in words.
	TopErrorLabel string
	// SetupLabel is Setup in words.
	SetupLabel string
	// Setup names a course-code error the module's rows fail on, with SetupTitle saying what it
	// means; "" when the setup is fine.
	Setup, SetupTitle string
	Weekly            Sparkline
}

// CourseItemVM is one course of the list.
type CourseItemVM struct {
	ID   string
	URL  string
	Name string
	// QueueURL is the triage queue filtered to the course, for support staff; "" for teachers.
	QueueURL string
}

// CourseVM is a course's page: its registrations by student-facing status, those whose students
// can act first.
type CourseVM struct {
	Page Page
	// Export are the course's CSV and JSON links.
	Export ExportLinksVM
	ID     string
	Name   string
	Alert  AlertBannerVM
	Total  string
	// Counts has one entry per status, in the order of Groups.
	Counts []StatusCountVM
	Groups []StatusGroupVM
	// QueueURL and NeedsAdminURL are the triage queue filtered to the course, for support staff.
	QueueURL      string
	NeedsAdminURL string
	// Truncated says that the groups list only some of the registrations the counts count.
	Truncated string
}

// StatusCountVM is how many of a course's registrations have one student-facing status.
type StatusCountVM struct {
	Status      string
	Label       string
	Explanation string
	N           string
	Zero        bool
	// URL is the status's group on the page.
	URL string
}

// StatusGroupVM is a course's registrations that share a student-facing status.
type StatusGroupVM struct {
	Status      string
	Label       string
	Explanation string
	N           string
	// StudentCanAct marks a status whose students can move their registration on.
	StudentCanAct bool
	// QueueURL is the triage queue showing exactly these rows, for support staff; "" when the
	// status has no such filter or for teachers.
	QueueURL string
	// Folded shows the rows behind a "Show" toggle: a long list of finished registrations would
	// push the ones that need someone off the screen.
	Folded bool
	Rows   []CourseRowVM
}

// CourseRowVM is one registration in a course's group.
type CourseRowVM struct {
	RegistrationID string
	StudentURL     string
	StudentName    string
	StudentNumber  string
	Module         string
	Grade          string
	WaitsOn        string
	WaitsOnLabel   string
	Sentence       string
}
