package views

// AlertBannerVM says what changed since the alert an e-mail link came from (?alerted_at=).
type AlertBannerVM struct {
	// Show is false when the link carried no alert time: no banner.
	Show bool
	// Note says the alert time could not be used, and why; nothing was compared.
	Note string
	// Headline is the summary sentence.
	Headline string
	// Items are the registrations that changed or still need action, for a student or a course.
	Items []AlertItemVM
	// Changed is true when anything happened since the alert.
	Changed bool
	// StillNeedsAction is true when a person must still act on something the page shows.
	StillNeedsAction bool
	// ViewURL leads to the same view without the alert.
	ViewURL   string
	ViewLabel string
}

// AlertItemVM is one registration in the banner.
type AlertItemVM struct {
	ID               string
	URL              string
	Label            string
	Sentence         string
	StillNeedsAction bool
}
