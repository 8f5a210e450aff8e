package views_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/views"
	"regdesk/views/i18n"
)

func mailSite(t *testing.T) views.MailSite {
	t.Helper()
	base, err := url.Parse("https://regdesk.example/desk")
	if err != nil {
		t.Fatal(err)
	}
	return views.NewMailSite(base)
}

// TestAlertMailLinksAndWords: a fired alert's mail names it in the reader's language, links to
// its fixing view and to each example absolutely, with the instant it fired as alerted_at, in
// both parts; HTML in a label is escaped in the HTML part and kept as it is in the text part.
func TestAlertMailLinksAndWords(t *testing.T) {
	t.Parallel()
	fired := time.Date(2026, 3, 2, 7, 30, 0, 0, time.UTC)
	now := fired.Add(time.Minute)
	a := views.MailAlertVM{Alert: schedule.Alert{Rule: schedule.RuleCredentialsRejected, Severity: schedule.SeverityCritical, Count: 2,
		Path: "/?show=all&error=unauthorized"}, FiredAt: fired,
		Examples: []views.MailExampleVM{{Label: "Anna <b>Virtanen</b>, Java", Path: "/registrations/r1"}}}
	m, err := views.AlertMail(i18n.For(i18n.EN), mailSite(t), schedule.AlertFired, a, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Subject, "[regdesk] Critical: Credentials rejected"; got != want {
		t.Errorf("Subject = %q, want %q", got, want)
	}
	link := "https://regdesk.example/desk/?error=unauthorized&show=all&alerted_at=2026-03-02T07:30:00Z"
	example := "https://regdesk.example/desk/registrations/r1?alerted_at=2026-03-02T07:30:00Z"
	for _, want := range []string{"Open it: " + link, "- Anna <b>Virtanen</b>, Java: " + example, "Firing since " + i18n.For(i18n.EN).AtDated(fired, now),
		"https://regdesk.example/desk/settings"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, m.Text)
		}
	}
	for _, want := range []string{`<html lang="en">`, `href="` + strings.ReplaceAll(link, "&", "&amp;") + `"`, `href="` + example + `"`,
		"Anna &lt;b&gt;Virtanen&lt;/b&gt;, Java", `<a href="https://regdesk.example/desk/settings">regdesk settings</a>`} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("HTML lacks %q:\n%s", want, m.HTML)
		}
	}
	if strings.Contains(m.HTML, "<b>") {
		t.Errorf("HTML carries the label's markup unescaped:\n%s", m.HTML)
	}
}

// TestClearedMailSaysWhenAndListsNoExamples: a cleared alert's mail, in Finnish here, says when it
// cleared and since when it had fired, and lists no registrations.
func TestClearedMailSaysWhenAndListsNoExamples(t *testing.T) {
	t.Parallel()
	fired := time.Date(2026, 3, 2, 7, 30, 0, 0, time.UTC)
	cleared := fired.Add(time.Hour)
	a := views.MailAlertVM{Alert: schedule.Alert{Rule: schedule.RuleCredentialsRejected, Severity: schedule.SeverityCritical, Path: "/"},
		FiredAt: fired, ClearedAt: &cleared, Examples: []views.MailExampleVM{{Label: "x", Path: "/registrations/r1"}}}
	fi := i18n.For(i18n.FI)
	m, err := views.AlertMail(fi, mailSite(t), schedule.AlertCleared, a, cleared)
	if err != nil {
		t.Fatal(err)
	}
	if want := fi.T("mail.clearedAt", "At", fi.AtDated(cleared, cleared), "Since", fi.AtDated(fired, cleared)); !strings.Contains(m.Text, want) {
		t.Errorf("text lacks %q:\n%s", want, m.Text)
	}
	if strings.Contains(m.Text, "registrations/r1") || strings.Contains(m.HTML, "registrations/r1") {
		t.Errorf("a cleared mail lists examples:\n%s", m.Text)
	}
	if !strings.Contains(m.HTML, `<html lang="fi">`) || strings.Contains(m.Text+m.HTML, "⟦") {
		t.Errorf("not in Finnish, or a message is missing:\n%s", m.HTML)
	}
}
