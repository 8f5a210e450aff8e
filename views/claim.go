package views

// IDClaim is the registration page's "I'm on it" panel.
const IDClaim = "claim"

// ClaimVM is who is on a row, as every list and page that shows the row draws it.
type ClaimVM struct {
	// Set is false when nobody is on the row (never claimed, released, ended or lapsed).
	Set bool
	// Mine is true when the person looking holds the claim.
	Mine bool
	Who  string
	// Since is when they took it.
	Since When
	// Words says it in a sentence: "Sami Support has been on this since 09:12."
	Words string
}

// WaitingVM is how long a row has waited for a person.
type WaitingVM struct {
	// Since is when it began waiting; unset for rows that wait for nobody.
	Since When
	// Overdue marks a row past the waiting target.
	Overdue bool
	// Label is the badge's words ("waiting 3 h"); Target names the target in words, for its title.
	Label, Target string
}

// ClaimPanelVM is the registration page's claim panel: the claim and the forms to take or drop it.
type ClaimPanelVM struct {
	Claim ClaimVM
	// ClaimURL and ReleaseURL are the forms' actions; ReleaseURL is "" unless the person holds it.
	ClaimURL, ReleaseURL string
	// ClaimLabel is the claim button's words ("I'm on it", or "Take it over" when someone else is on it).
	ClaimLabel string
	// OOB draws the panel for an htmx swap of another region (a lookup, which claims or touches
	// the row): it then replaces the panel on the page by its id.
	OOB bool
}
