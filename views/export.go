package views

// ExportLinksVM are a list's CSV and JSON links, for the view the page shows, and the cap an
// export stops at.
type ExportLinksVM struct {
	CSV, JSON string
	Limit     string
}

// ExportJobVM is a long export written in the background: its progress while it runs, then its
// file (or that it failed).
type ExportJobVM struct {
	Page Page
	// Done and Total count the rows written, for the progress bar; Words say it in a sentence.
	Done, Total, Words string
	// PollURL is where htmx asks again for the progress.
	PollURL string
	// Ready says the file is made and how many rows it holds; FileURL downloads it. Truncated,
	// when set, says more rows matched than an export holds.
	Ready, FileURL, Truncated string
	// Failed says the export could not be finished; no file was made.
	Failed string
}
