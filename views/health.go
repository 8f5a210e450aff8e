package views

import (
	"strconv"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// HealthAlertVM is one firing alert as the every-page banner and /alerts show it.
type HealthAlertVM struct {
	ID string
	// Severity is "info", "warning" or "critical"; SeverityLabel its name for people.
	Severity      string
	SeverityLabel string
	Title         string
	Summary       string
	Explanation   string
	// URL is the view that fixes it, carrying alerted_at.
	URL string
	// FiredAt, ClearedAt and LastSeen are written for people; ClearedAt "" while it fires.
	FiredAt   string
	ClearedAt string
	LastSeen  string
	// Peak is the most rows, calls or items it counted while firing.
	Peak string
	// Acknowledged says who has seen it and when; "" when nobody has.
	Acknowledged string
	// CanAcknowledge offers the "I have seen it" button.
	CanAcknowledge bool
}

// HealthPageVM is /alerts: what fires now, what fired in the last 30 days, and whether mail goes
// out.
type HealthPageVM struct {
	Page    Page
	Firing  []HealthAlertVM
	History []HealthAlertVM
	// Mailing is false without SMTP_URL: the page says nobody is mailed.
	Mailing bool
	// Outbox says how the outbox stands, for those who act; "" hides it.
	Outbox string
	// Notice is a one-line result of the last action on the page.
	Notice string
}

// AlertText is an alert's title, summary and explanation in the request's language.
func AlertText(loc *i18n.Localizer, a schedule.Alert) (title, summary, explanation string) {
	return loc.Alert(a)
}

// bannerSplit picks what the alert strip names: the first alert (the list is most severe first)
// when it is critical or alone; the rest are counted. lead is nil when none is named.
func bannerSplit(alerts []HealthAlertVM) (lead *HealthAlertVM, rest []HealthAlertVM) {
	if len(alerts) == 0 {
		return nil, nil
	}
	if alerts[0].Severity == "critical" || len(alerts) == 1 {
		return &alerts[0], alerts[1:]
	}
	return nil, alerts
}

func itoa(n int) string { return strconv.Itoa(n) }

// AlertCountedVM is the page an alert that counts Suotar's calls and answers, completions or
// time links to: its number on top and the things it counted below.
type AlertCountedVM struct {
	Page Page
	Rule string
	// Title and Explanation name the rule; Summary is the alert's own line, with its number, when
	// it fires now, and NotFiring says that it does not (the list then shows what it counts now).
	Title, Summary, Explanation string
	NotFiring                   string
	// Total is how many things it counted, as the alert's number ("" for the latency rule, whose
	// number is a time); TotalLabel says what they are.
	Total      string
	TotalLabel string
	// Columns head the list; Rows are its lines, each with a link where a registration or a course
	// can be opened.
	Columns []string
	Rows    []AlertCountedRowVM
	// More says that the list shows only part of what was counted; "" when it shows everything.
	More string
	// Onward is the list of registrations the counted things bear on, and its label.
	Onward, OnwardLabel string
}

// AlertCountedRowVM is one thing an alert counted.
type AlertCountedRowVM struct {
	Cells []string
	URL   string
}
