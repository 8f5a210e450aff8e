package views

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

// The words of the alerts pages, in one place.
const (
	healthTitle       = "Alerts"
	healthFiringHead  = "Firing now"
	healthNoneFiring  = "Nothing is firing."
	healthHistoryHead = "The last 30 days"
	healthNoHistory   = "Nothing fired in the last 30 days."
	healthNotMailing  = "Mail is off: SMTP_URL is not set, so these alerts are shown here and in the banner but mailed to nobody."
	healthMailing     = "Alert mails go out as each person's settings ask."
	healthSettings    = "Choose your mails"
	healthAckButton   = "I have seen it"
	healthAckNote     = "Note (optional)"
	bannerLabel       = "Alerts"
	bannerMore        = "All alerts"
)
