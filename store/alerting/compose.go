package alerting

import (
	"bytes"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"text/tabwriter"
	texttemplate "text/template"
	"time"

	"regdesk/schedule"
	"regdesk/store"
)

// The mails' words, in one place so they can move to a message catalogue.
const (
	subjectPrefix    = "[regdesk] "
	subjectCleared   = "Cleared: "
	subjectReminder  = "Still firing: "
	subjectDigest    = "Daily digest: %s"
	subjectWeekly    = "Weekly: %s of your courses' students can act themselves"
	textSettingsLine = "You get this mail because of your regdesk settings: %s"
	textFiredSince   = "Firing since %s."
	textClearedAt    = "Cleared at %s, after firing since %s."
	textOpen         = "Open it: %s"
	textExamples     = "For example:"
	textDigestNone   = "Nothing is firing now."
	textDigestLead   = "What is firing now, most severe first:"
	textWeeklyLead   = "These students can move their registration on themselves; a word from you may help:"
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

func stamp(t time.Time) string {
	return t.In(schedule.Helsinki()).Format("2006-01-02 15:04") + " (Helsinki)"
}

func (c composer) item(a store.AlertRow, examples []Example) item {
	al := a.Alert()
	it := item{Severity: al.Severity.Label(), Title: al.Rule.Label(), Summary: al.Summary(), Explain: al.Rule.Explanation(),
		Since: stamp(a.FiredAt), Link: c.abs(al.Path, a.FiredAt)}
	for _, e := range examples {
		it.Examples = append(it.Examples, exampleLink{Label: e.Label, Link: c.abs(e.Path, a.FiredAt)})
	}
	return it
}

// alertMail composes the mail of one change: fired, rose, reminder or cleared.
func (c composer) alertMail(kind string, a store.AlertRow, examples []Example) Mail {
	it := c.item(a, examples)
	subject := subjectPrefix + it.Severity + ": " + it.Title
	lead := fmt.Sprintf(textFiredSince, it.Since)
	switch kind {
	case "cleared":
		subject = subjectPrefix + subjectCleared + it.Title
		lead = fmt.Sprintf(textClearedAt, stamp(*a.ClearedAt), it.Since)
		it.Examples = nil
	case "reminder":
		subject = subjectPrefix + subjectReminder + it.Title
	}
	return c.render(subject, lead, []item{it})
}

// digestMail lists every item; nil items give no mail.
func (c composer) digestMail(day string, items []item) Mail {
	n := fmt.Sprintf("%d alerts firing", len(items))
	if len(items) == 1 {
		n = "1 alert firing"
	}
	return c.render(subjectPrefix+fmt.Sprintf(subjectDigest, n)+" ("+day+")", textDigestLead, items)
}

func (c composer) weeklyMail(n int, items []item) Mail {
	return c.render(subjectPrefix+fmt.Sprintf(subjectWeekly, fmt.Sprint(n)), textWeeklyLead, items)
}

type mailData struct {
	Lead     string
	Items    []item
	Settings string
	Footer   string
}

func (c composer) render(subject, lead string, items []item) Mail {
	d := mailData{Lead: lead, Items: items, Settings: c.settingsURL(), Footer: fmt.Sprintf(textSettingsLine, c.settingsURL())}
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
` + strings.ReplaceAll(textOpen, "%s", "{{.Link}}") + `
{{if .Examples}}` + textExamples + `
{{range .Examples}}- {{.Label}}: {{.Link}}
{{end}}{{end}}{{end}}
--
{{.Footer}}
`))

var htmlMail = template.Must(template.New("html").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>regdesk</title></head>
<body style="font-family: sans-serif; line-height: 1.4">
<p>{{.Lead}}</p>
{{range .Items}}<div style="margin: 1em 0">
<p><strong>{{.Severity}}: {{.Title}}</strong><br>{{.Summary}}<br><span style="color: #555">{{.Explain}}</span></p>
<p><a href="{{.Link}}">Open it in regdesk</a></p>
{{if .Examples}}<p>` + textExamples + `</p><ul>{{range .Examples}}<li><a href="{{.Link}}">{{.Label}}</a></li>{{end}}</ul>{{end}}
</div>{{end}}
<p style="color: #555; font-size: small">You get this mail because of your <a href="{{.Settings}}">regdesk settings</a>.</p>
</body></html>
`))
