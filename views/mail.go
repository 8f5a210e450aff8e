package views

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/views/i18n"
)

// The mails regdesk sends are composed here, beside the pages: the HTML part is a templ component
// (mail.templ), the words come from the pages' catalogue in the recipient's language, and moments
// are written as the pages write them (Localizer.AtDated). The plain-text part is written by
// mailText, a Go function over the same view model and the same catalogue, not a templ component:
// templ escapes for HTML, and a text part extracted from rendered HTML would have to unescape it
// again and would lose the links' addresses, which the text part spells out ("Open it: <link>").

// Mail is one composed mail, ready for the outbox.
type Mail struct {
	Subject string
	Text    string
	HTML    string
}

// MailSite is regdesk as its mails link to it: every link absolute, from regdesk's base URL
// (REGDESK_BASE_URL), and a link about an alert carries the alert's instant as alerted_at, so the
// page it opens says what changed since.
type MailSite struct {
	base *url.URL
}

// NewMailSite returns the site at base, an absolute URL; a path without a trailing slash is taken
// as a folder.
func NewMailSite(base *url.URL) MailSite {
	b := *base
	if !strings.HasSuffix(b.Path, "/") {
		b.Path += "/"
	}
	return MailSite{base: &b}
}

// Link is path (a site path with a query, as schedule's alerts and the pages name them) as an
// absolute link, with alerted_at when alertedAt is set.
func (s MailSite) Link(path string, alertedAt time.Time) string {
	u, err := url.Parse(path)
	if err != nil {
		u = &url.URL{Path: "/"}
	}
	// alerted_at goes last and unescaped: an RFC 3339 instant in UTC holds only characters a query
	// may carry, and a person reading the link sees the time.
	u.RawQuery = u.Query().Encode()
	if !alertedAt.IsZero() {
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += "alerted_at=" + alertedAt.UTC().Format(time.RFC3339)
	}
	return s.base.ResolveReference(&url.URL{Path: strings.TrimPrefix(u.Path, "/"), RawQuery: u.RawQuery}).String()
}

// Settings is the link to the recipient's settings, where they choose what they are mailed: the
// footer's and List-Unsubscribe's.
func (s MailSite) Settings() string { return s.Link("/settings", time.Time{}) }

// MailAlertVM is one alert as a mail tells of it.
type MailAlertVM struct {
	Alert   schedule.Alert
	FiredAt time.Time
	// ClearedAt is when it cleared; nil while it fires.
	ClearedAt *time.Time
	// Examples are a few of the registrations it is about: Path is the registration's page.
	Examples []MailExampleVM
}

// MailExampleVM is one registration an alert's mail links to.
type MailExampleVM struct {
	Label string
	Path  string
}

// MailStudentVM is one registration a teacher's weekly digest lists: its student can move it on.
type MailStudentVM struct {
	Status    schedule.StudentStatus
	StudentID string
	Name      string
	Course    string
}

// mailVM is one mail's body in words: what MailHTML and mailText render.
type mailVM struct {
	Lead     string
	Items    []mailItemVM
	Settings string
}

// mailItemVM is one alert or student as a mail lists it.
type mailItemVM struct {
	Severity string
	Title    string
	Summary  string
	Explain  string
	Link     string
	Examples []mailLinkVM
}

type mailLinkVM struct {
	Label string
	Link  string
}

func (s MailSite) alertItem(loc *i18n.Localizer, a MailAlertVM) mailItemVM {
	title, summary, explain := loc.Alert(a.Alert)
	it := mailItemVM{Severity: loc.Code("severity", a.Alert.Severity.String()), Title: title, Summary: summary, Explain: explain,
		Link: s.Link(a.Alert.Path, a.FiredAt)}
	for _, e := range a.Examples {
		it.Examples = append(it.Examples, mailLinkVM{Label: e.Label, Link: s.Link(e.Path, a.FiredAt)})
	}
	return it
}

// AlertMail is the mail of one change to an alert, in loc's language at now: fired, rose or
// reminder (with examples), or cleared (without).
func AlertMail(loc *i18n.Localizer, site MailSite, change schedule.AlertChange, a MailAlertVM, now time.Time) (Mail, error) {
	it := site.alertItem(loc, a)
	since := loc.AtDated(a.FiredAt, now)
	subject := loc.T("mail.subject.fired", "Severity", it.Severity, "Title", it.Title)
	lead := loc.T("mail.firedSince", "Since", since)
	switch change {
	case schedule.AlertCleared:
		at := now
		if a.ClearedAt != nil {
			at = *a.ClearedAt
		}
		subject = loc.T("mail.subject.cleared", "Title", it.Title)
		lead = loc.T("mail.clearedAt", "At", loc.AtDated(at, now), "Since", since)
		it.Examples = nil
	case schedule.AlertReminder:
		subject = loc.T("mail.subject.reminder", "Title", it.Title)
	}
	return renderMail(loc, subject, mailVM{Lead: lead, Items: []mailItemVM{it}, Settings: site.Settings()})
}

// DigestMail lists every alert firing at the mail's moment (now), and says that moment plainly in
// the reader's language ("at 07:37 on Mon 7 Dec"): the day it describes, not the day of the slot
// it was due in, which is yesterday's for a digest sent before the hour.
func DigestMail(loc *i18n.Localizer, site MailSite, alerts []MailAlertVM, now time.Time) (Mail, error) {
	items := make([]mailItemVM, 0, len(alerts))
	for _, a := range alerts {
		items = append(items, site.alertItem(loc, a))
	}
	at := loc.AtDated(now, now)
	return renderMail(loc, loc.T("mail.subject.digest", "Count", len(items), "At", at),
		mailVM{Lead: loc.T("mail.digestLead", "At", at), Items: items, Settings: site.Settings()})
}

// WeeklyMail is a teacher's weekly digest: count registrations of their courses' students can
// move on themselves, the first of them listed, each linking to its student with the week's slot
// as alerted_at.
func WeeklyMail(loc *i18n.Localizer, site MailSite, count int, students []MailStudentVM, slot time.Time) (Mail, error) {
	items := make([]mailItemVM, 0, len(students))
	for _, st := range students {
		items = append(items, mailItemVM{Severity: loc.Code("studentStatus", string(st.Status)), Title: st.Name, Summary: st.Course,
			Explain: loc.CodeExplain("studentStatus", string(st.Status)), Link: site.Link("/students/"+st.StudentID, slot)})
	}
	return renderMail(loc, loc.T("mail.subject.weekly", "Count", count),
		mailVM{Lead: loc.T("mail.weeklyLead"), Items: items, Settings: site.Settings()})
}

func renderMail(loc *i18n.Localizer, subject string, m mailVM) (Mail, error) {
	var html bytes.Buffer
	if err := MailHTML(m).Render(i18n.With(context.Background(), loc), &html); err != nil {
		return Mail{}, err
	}
	return Mail{Subject: subject, Text: mailText(loc, m), HTML: html.String()}, nil
}

// mailText is the plain-text part: the lead, each item with its link spelled out, and the footer
// naming the settings link.
func mailText(loc *i18n.Localizer, m mailVM) string {
	var b strings.Builder
	b.WriteString(m.Lead + "\n")
	for _, it := range m.Items {
		b.WriteString("\n" + it.Severity + ": " + it.Title + "\n" + it.Summary + "\n" + it.Explain + "\n")
		b.WriteString(loc.T("mail.open", "Link", it.Link) + "\n")
		if len(it.Examples) > 0 {
			b.WriteString(loc.T("mail.examples") + "\n")
			for _, e := range it.Examples {
				b.WriteString("- " + e.Label + ": " + e.Link + "\n")
			}
		}
	}
	b.WriteString("\n--\n" + loc.T("mail.footer", "Link", m.Settings) + "\n")
	return b.String()
}
