// Package views holds regdesk's templ components and the view models they render. Components
// take display-ready values: no database, no clock, no scheduling rules.
package views

// Page is what the layout needs on every screen.
type Page struct {
	Title string
	// Refresh, when set, reloads the page after that many seconds in a browser without
	// JavaScript (a page that shows work in progress; with JavaScript htmx polls instead).
	Refresh string
	// Flash is a one-time message from the previous request (e.g. "Saved.").
	Flash string
	// User is the signed-in person; nil on the login and error pages of anonymous visitors.
	User *User
	// Nav lists the top-level screens this person may open.
	Nav []NavItem
	// Path is the page's own address (path and query), where the language switch returns.
	Path string
	// SearchQuery fills the top bar's student search, on the page of its results.
	SearchQuery string
	// Alerts are the firing alerts that concern this person, most severe first, for the banner.
	Alerts []HealthAlertVM
	// MirrorBehind, when set, says in words that the lists show the ledger as it was a while ago:
	// regdesk's copy of the LMS's ledger has fallen behind.
	MirrorBehind MirrorVM
}

// MirrorVM says how far behind regdesk's copy of the LMS's ledger is: Short in one line, Full
// with what it means; both "" when it is not behind.
type MirrorVM struct {
	Short string
	Full  string
}

// User is the signed-in person as the page header shows them.
type User struct {
	Name string
	Role string
	// SingleSignOn is set when the authenticating proxy vouches for the person on every request:
	// signing out of regdesk alone would change nothing, so the page offers no sign-out button.
	SingleSignOn bool
}

// NavItem is one link of the top bar.
type NavItem struct {
	Label  string
	URL    string
	Active bool
}

// htmxConfig makes htmx 2 swap error answers (so the error flash shows) and keeps it from
// injecting inline indicator styles, which the Content-Security-Policy forbids. A 409 (the row
// changed under the page) and a 422 (the form refused, in words) are answers the page expects and
// swaps like any other, so htmx must not report them as errors ("Response Status Error Code
// 409" in the console); any other 4xx or 5xx still is one.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"historyCacheSize":0,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"409","swap":true},{"code":"422","swap":true},{"code":"[45]..","swap":true,"error":true}]}`

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
