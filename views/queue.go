package views

// QueueVM is the triage queue page.
type QueueVM struct {
	Page Page
	// Views are the saved one-click views above the queue.
	Views   []SavedViewVM
	Alert   AlertBannerVM
	Counts  CountsVM
	Filter  QueueFilterVM
	Results QueueResultsVM
}

// CountsVM is the headline numbers: needs admin first, then per reason, then per phase.
type CountsVM struct {
	NeedsAdmin CountItem
	Dismissed  CountItem
	// DismissedN is how many more are dismissed, for the sentence's plural.
	DismissedN int64
	// RunningLate is the rows whose only reason is stuck_in_state (standing running_late); its
	// Value chooses the sentence's plural.
	RunningLate CountItem
	Reasons     []CountItem
	Phases      []CountItem
	RefreshURL  string
	AsOf        string
	// FreshnessNote says how the counts are kept fresh (and capped), for the time's title.
	FreshnessNote string
	ScopeNote     string
	// CapNote says that some counts stopped at their cap, shown as "10 000+".
	CapNote       string
	PollingPaused bool
}

// CountItem is one number that links to the list it counts.
type CountItem struct {
	Key         string
	Label       string
	Explanation string
	N           string
	// Value is the count N writes, for a sentence that must choose its plural form.
	Value int64
	Zero  bool
	URL   string
	Tone  string // "", "late", "bad", "ok"
}

// Option is one choice of a select.
type Option struct {
	Value    string
	Label    string
	Selected bool
}

// QueueFilterVM is the filter form; its values are the URL's.
type QueueFilterVM struct {
	Action     string
	NeedsAdmin bool
	Phases     []Option
	Reasons    []Option
	Standings  []Option
	States     []Option
	Courses    []Option
	ErrorCodes []Option
	Search     string
	ClearURL   string
	// MoreOpen unfolds "More filters": one of the filters under it is set.
	MoreOpen bool
	// Claimed is whose rows to show (everyone's, mine, unclaimed); Sorts the orders. Both are empty
	// for people who cannot claim.
	Claimed []Option
	Sorts   []Option
	// Chips are the filters a link can set that the form has no field for (lookup=none): each is
	// kept by a hidden field, so changing another filter keeps it, and shown with a link that drops it.
	Chips []FilterChip
}

// FilterChip is one filter set by a link, shown on the filter form.
type FilterChip struct {
	// Name and Value are the query parameter.
	Name, Value string
	// Label says in words what the filter keeps; RemoveURL is the view without it.
	Label, RemoveURL string
}

// QueueResultsVM is the swappable list: the table and its pager.
type QueueResultsVM struct {
	Rows     []QueueRowVM
	NextURL  string
	FirstURL string
	// PrevURL is the page before this one; "" on the first page.
	PrevURL string
	IsFirst bool
	// Range says which rows of how many this page shows ("51–100 of 500+"); Total is the count
	// (capped, with "+"), both "" for an empty list.
	Range string
	Total string
	// RefreshURL is this very page of the list, which the region asks for again to stay current.
	RefreshURL string
	Empty      string
	Summary    string
	PageLimit  int
	// Bulk is the bulk selection; nil for people who may not act (no checkboxes either).
	Bulk *BulkBarVM
	// Export are the view's CSV and JSON links.
	Export ExportLinksVM
}

// QueueRowVM is one registration in the queue.
type QueueRowVM struct {
	ID               string
	URL              string
	State            string
	StateLabel       string
	Phase            string
	PhaseLabel       string
	PhaseExplanation string
	StudentName      string
	StudentNumber    string
	StudentEmail     string
	Course           string
	Module           string
	CourseCode       string
	Attempt          string
	ErrorCode        string
	NextCheck        When
	Escalates        When
	LastActivity     When
	NeedsAdmin       bool
	Reasons          []ReasonVM
	// Selectable shows the row's bulk-selection checkbox.
	Selectable bool
	// Claim is who is on the row; Waiting how long it has waited for a person.
	Claim   ClaimVM
	Waiting WaitingVM
}

// ReasonVM is one attention reason on a row, or one of regdesk's notes about it.
type ReasonVM struct {
	Key         string
	Label       string
	Explanation string
	// Late marks stuck_in_state, which asks for no action yet.
	Late bool
	// Dismissed marks a reason a person has dismissed.
	Dismissed bool
	// Note marks a note (schedule.Note): something regdesk shows beyond the LMS's reasons, which
	// puts the row on no list and no dismissal covers.
	Note bool
}

// SavedViewVM is one saved view of the queue: a filter one click away.
type SavedViewVM struct {
	Key   string
	Label string
	// Title says what the view lists.
	Title string
	URL   string
	// Current marks the view the list shows now.
	Current bool
}

// courseDetail is a row's module and course code, for the title of its cut-short line.
func courseDetail(r QueueRowVM) string {
	if r.CourseCode == "" {
		return r.Module
	}
	return r.Module + " " + r.CourseCode
}

// stateDetail is a row's state and error code, for the title of its cut-short line.
func stateDetail(r QueueRowVM) string {
	if r.ErrorCode == "" {
		return r.StateLabel
	}
	return r.StateLabel + " · " + r.ErrorCode
}
