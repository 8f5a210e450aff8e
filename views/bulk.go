package views

// BulkBarVM is the queue's bulk selection, for people who may act: the ticked rows, or every row
// matching the queue's filter, previewed before anything happens.
type BulkBarVM struct {
	// URL is where the selection posts (the preview).
	URL     string
	Actions []Option
	// Filter is the queue's filter as form fields, so "all matching" means this view.
	Filter []Hidden
	// AllLabel is the select-all button's text ("Select all 37 matching this filter"); TooMany,
	// when set, replaces the button: more rows match than a bulk action may touch.
	AllLabel string
	TooMany  string
	// ClaimURL is where "I'm on the ticked rows" posts the ticked rows.
	ClaimURL string
}

// Hidden is a hidden form field.
type Hidden struct {
	Name  string
	Value string
}

// BulkPreviewVM is the preview of a bulk action: the selected rows grouped by what would happen to
// each, and the form that applies it to exactly the rows that would be acted on.
type BulkPreviewVM struct {
	Page              Page
	Action            string
	ActionLabel       string
	ActionExplanation string
	// Actions offers another action for the same rows; IDs are those rows.
	Actions []Option
	IDs     []string
	// Selection says which rows were selected and how; QueueURL leads back.
	Selection string
	QueueURL  string
	Groups    []BulkGroupVM
	// NotFound are selected ids that name no row this person may act on.
	NotFound []string
	// Apply is the apply form; nil when every row would be skipped.
	Apply *BulkApplyVM
	// Message explains a selection that could not be previewed, or why the apply did nothing.
	Message string
}

// BulkGroupVM is the rows for which the same thing would happen.
type BulkGroupVM struct {
	Allowed bool
	// Key names the group for tests: the refusal code, or "apply".
	Key   string
	Title string
	Words string
	Count int
	Rows  []BulkRowVM
}

// BulkRowVM is one row of a preview or a result.
type BulkRowVM struct {
	ID      string
	URL     string
	Student string
	Course  string
	State   CodeVM
	// Words says why a row is skipped, or what happened to it.
	Words string
	// Outcome and OutcomeLabel are a result's: applied, skipped, changed, risk_not_confirmed,
	// not_found.
	Outcome      string
	OutcomeLabel string
	Before       CodeVM
	After        CodeVM
}

// BulkApplyVM is the apply form: the rows as the preview saw them, a reason, and a box to tick for
// every risk some of them carry.
type BulkApplyVM struct {
	// Rows are "id:version:lookup_id" of the rows that would be acted on.
	Rows  []string
	Count int
	// Title heads the form ("Apply to these 3 rows"); Button is the submit's text.
	Title  string
	Button string
	Risks  []RiskVM
	Reason string
	Error  string
	// ErrorField is the field Error is about: reason or confirm_risk.
	ErrorField string
}

// RiskVM is a risk the person must confirm by name.
type RiskVM struct {
	Value   string
	Label   string
	Warning string
}

// BulkResultVM is what a bulk action did, row by row.
type BulkResultVM struct {
	Page        Page
	ActionLabel string
	Reason      string
	Counts      []CountItem
	Rows        []BulkRowVM
	AuditURL    string
	QueueURL    string
}

// BulkEndedVM is a long bulk apply that ended without applying: it failed, or was cut short
// (a restart) before it committed. Either way none of its rows was changed.
type BulkEndedVM struct {
	Page        Page
	ActionLabel string
	// Outcome is "failed" or "interrupted".
	Outcome string
	// Words say what became of it: that no row was changed, or that the audit says which rows the
	// LMS was asked about.
	Words    string
	QueueURL string
	// AuditURL is the audit log, whose record of the attempt names the rows asked.
	AuditURL string
}

// BulkProgressVM is a long bulk apply while it runs.
type BulkProgressVM struct {
	Page        Page
	ActionLabel string
	// Done and Total count the rows gone through, for the progress bar.
	Done, Total string
	// Words say the same in a sentence ("120 of 400 rows gone through").
	Words string
	// PollURL is where htmx asks again for this fragment.
	PollURL string
}

// BulkJobsVM is /bulk/jobs: everyone's background bulk applies of the last week, running and
// ended, newest first.
type BulkJobsVM struct {
	Page Page
	List BulkJobsListVM
}

// BulkJobsListVM is the swappable list of bulk jobs; it asks for itself again while one runs.
type BulkJobsListVM struct {
	Jobs []BulkJobRowVM
	// PollURL is set while a job runs: the list then refreshes itself.
	PollURL string
}

// BulkJobRowVM is one background bulk apply in the list.
type BulkJobRowVM struct {
	ID string
	// URL is the job's own page, "" for another person's job (only its owner may open it).
	URL     string
	Started When
	By      string
	// Mine marks the person's own job.
	Mine        bool
	ActionLabel string
	Rows        string
	// Status is running, applied, failed or interrupted; StatusLabel its word, Words what came of
	// it; Done and Total draw a running job's progress bar.
	Status      string
	StatusLabel string
	Words       string
	Done, Total string
	Reason      string
}
