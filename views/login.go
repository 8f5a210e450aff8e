package views

// LoginVM is the sign-in page.
type LoginVM struct {
	Page Page
	// Email is what the person typed, kept so a failed attempt need not be retyped.
	Email string
	// Next is where a successful sign-in leads: a path on this site, already checked.
	Next string
	// Message says why the last attempt failed; empty on a first visit.
	Message string
}
