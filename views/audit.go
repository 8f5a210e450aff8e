package views

// AuditVM is the audit page: every hand action, newest first, with its filters.
type AuditVM struct {
	Page    Page
	Filter  AuditFilterVM
	Results AuditResultsVM
}

// AuditFilterVM is the audit's filter form; its values are the URL's.
type AuditFilterVM struct {
	Actors  []Option
	Actions []Option
	Courses []Option
	From    string
	To      string
	// Registration, when set, narrows the list to one registration; RegistrationURL leads to it
	// and ClearRegistrationURL drops the narrowing.
	Registration         string
	RegistrationURL      string
	ClearRegistrationURL string
	ClearURL             string
}

// AuditResultsVM is the list and its pager.
type AuditResultsVM struct {
	// Export are the filtered audit's CSV and JSON links.
	Export   ExportLinksVM
	Rows     []AuditRowVM
	NextURL  string
	FirstURL string
	IsFirst  bool
	Empty    string
}

// AuditRowVM is one audit entry.
type AuditRowVM struct {
	ID string
	// DOMID anchors the row, so a registration's history can link to its entry.
	DOMID     string
	When      When
	Who       string
	Role      string
	Action    string
	ActionKey string
	// ActionCode is the LMS's code for an action the LMS recorded itself, shown after its words.
	ActionCode  string
	TargetURL   string
	TargetLabel string
	Before      CodeVM
	After       CodeVM
	Reason      string
	// Notes are details in words: the risk accepted, the lookup the action rested on.
	Notes []string
	// Bulk is set for an action on many rows.
	Bulk *AuditBulkVM
}

// AuditBulkVM is a bulk action's rows.
type AuditBulkVM struct {
	Summary string
	Rows    []AuditBulkRowVM
}

// AuditBulkRowVM is one row of a bulk action and what happened to it.
type AuditBulkRowVM struct {
	URL     string
	Label   string
	Outcome string
}
