package alerting

import (
	"bytes"
	"html/template"
	"net/url"
	"strings"
	"text/tabwriter"
	texttemplate "text/template"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views/i18n"
)

// Mail is one composed mail, before it is written to the outbox.
type Mail struct {
	Subject string
	Text    string
	HTML    string
}

// Example is one registration an alert mail links to.
type Example struct {
	Label string
	Path  string
}

// item is one alert as a mail lists it.
type item struct {
	Severity string
	Title    string
	Summary  string
	Explain  string
	Since    string
	Link     string
	// Open is the text part's "Open it: <link>" line.
	Open     string
	Examples []exampleLink
}

type exampleLink struct {
	Label string
	Link  string
}

// composer writes the mails; every link in them is absolute, from the base URL, and carries the
// alert's instant as alerted_at so the page says what changed since.
type composer struct {
	base *url.URL
}

// lang is the composer speaking one recipient's language; now dates what the mail says.
type lang struct {
	composer
	loc *i18n.Localizer
	now time.Time
}

func (c composer) in(language string, now time.Time) lang {
	l, _ := i18n.Parse(language)
	return lang{composer: c, loc: i18n.For(l), now: now}
}

func (c composer) abs(path string, alertedAt time.Time) string {
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
	return c.base.ResolveReference(&url.URL{Path: strings.TrimPrefix(u.Path, "/"), RawQuery: u.RawQuery}).String()
}

func (c composer) settingsURL() string { return c.abs("/settings", time.Time{}) }

func (c lang) stamp(t time.Time) string { return c.loc.AtDated(t, c.now) }

func (c lang) item(a store.AlertRow, examples []Example) item {
	al := a.Alert()
	title, summary, explain := c.loc.Alert(al)
	it := item{Severity: c.loc.Code("severity", al.Severity.String()), Title: title, Summary: summary, Explain: explain,
		Since: c.stamp(a.FiredAt), Link: c.abs(al.Path, a.FiredAt)}
	for _, e := range examples {
		it.Examples = append(it.Examples, exampleLink{Label: e.Label, Link: c.abs(e.Path, a.FiredAt)})
	}
	return it
}

// alertMail composes the mail of one change: fired, rose, reminder or cleared.
func (c lang) alertMail(kind schedule.AlertChange, a store.AlertRow, examples []Example) Mail {
	it := c.item(a, examples)
	subject := c.loc.T("mail.subject.fired", "Severity", it.Severity, "Title", it.Title)
	lead := c.loc.T("mail.firedSince", "Since", it.Since)
	switch kind {
	case schedule.AlertCleared:
		subject = c.loc.T("mail.subject.cleared", "Title", it.Title)
		lead = c.loc.T("mail.clearedAt", "At", c.stamp(*a.ClearedAt), "Since", it.Since)
		it.Examples = nil
	case schedule.AlertReminder:
		subject = c.loc.T("mail.subject.reminder", "Title", it.Title)
	}
	return c.render(subject, lead, []item{it})
}

// digestMail lists every item firing at the mail's moment (c.now), and says that moment plainly in
// the reader's language ("at 07:37 on Mon 7 Dec"): the day it describes, not the day of the slot
// it was due in, which is yesterday's for a digest sent before the hour. nil items give no mail.
func (c lang) digestMail(items []item) Mail {
	at := c.loc.AtDated(c.now, c.now)
	return c.render(c.loc.T("mail.subject.digest", "Count", len(items), "At", at), c.loc.T("mail.digestLead", "At", at), items)
}

func (c lang) weeklyMail(n int, items []item) Mail {
	return c.render(c.loc.T("mail.subject.weekly", "Count", n), c.loc.T("mail.weeklyLead"), items)
}

type mailData struct {
	Lang     string
	Lead     string
	Items    []item
	Settings string
	Footer   string
	// Open, Examples and the footer's halves around its link are the HTML part's words.
	Open, Examples            string
	FooterBefore, FooterAfter string
	SettingsLink              string
}

func (c lang) render(subject, lead string, items []item) Mail {
	before, after := c.loc.Slot("mail.footerHTML", "Settings")
	d := mailData{Lang: string(c.loc.Lang), Lead: lead, Items: items, Settings: c.settingsURL(),
		Footer: c.loc.T("mail.footer", "Link", c.settingsURL()), Open: c.loc.T("mail.openHTML"), Examples: c.loc.T("mail.examples"),
		FooterBefore: before, FooterAfter: after, SettingsLink: c.loc.T("mail.settingsLink")}
	for i := range d.Items {
		d.Items[i].Open = c.loc.T("mail.open", "Link", d.Items[i].Link)
	}
	var text, html bytes.Buffer
	tw := tabwriter.NewWriter(&text, 0, 0, 1, ' ', 0)
	if err := textMail.Execute(tw, d); err != nil {
		panic(err) // the template and its data are this package's own
	}
	_ = tw.Flush()
	if err := htmlMail.Execute(&html, d); err != nil {
		panic(err)
	}
	return Mail{Subject: subject, Text: text.String(), HTML: html.String()}
}

var textMail = texttemplate.Must(texttemplate.New("text").Parse(`{{.Lead}}
{{range .Items}}
{{.Severity}}: {{.Title}}
{{.Summary}}
{{.Explain}}
{{.Open}}
{{if .Examples}}{{$.Examples}}
{{range .Examples}}- {{.Label}}: {{.Link}}
{{end}}{{end}}{{end}}
--
{{.Footer}}
`))

var htmlMail = template.Must(template.New("html").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>regdesk</title></head>
<body style="font-family: sans-serif; line-height: 1.4">
<p>{{.Lead}}</p>
{{range .Items}}<div style="margin: 1em 0">
<p><strong>{{.Severity}}: {{.Title}}</strong><br>{{.Summary}}<br><span style="color: #555">{{.Explain}}</span></p>
<p><a href="{{.Link}}">{{$.Open}}</a></p>
{{if .Examples}}<p>{{$.Examples}}</p><ul>{{range .Examples}}<li><a href="{{.Link}}">{{.Label}}</a></li>{{end}}</ul>{{end}}
</div>{{end}}
<p style="color: #555; font-size: small">{{.FooterBefore}}<a href="{{.Settings}}">{{.SettingsLink}}</a>{{.FooterAfter}}</p>
</body></html>
`))
