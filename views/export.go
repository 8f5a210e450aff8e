package views

// ExportLinksVM are a list's CSV and JSON links, for the view the page shows, and the cap an
// export stops at.
type ExportLinksVM struct {
	CSV, JSON string
	Limit     string
}
