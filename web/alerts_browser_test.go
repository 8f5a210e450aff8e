package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"regdesk/alerting"
	"regdesk/partner/smtp"
	"regdesk/partner/smtp/smtptest"
)

// TestBrowserMailLinkLeadsToTheRegistrationSinceTheAlert is the whole way of an alert: the
// evaluator mails support a digest through Mailpit; the link read back from Mailpit, opened
// signed out, leads through sign-in to the registration, with the "since the alert" banner.
func TestBrowserMailLinkLeadsToTheRegistrationSinceTheAlert(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mp := smtptest.StartMailpit(t)
	bt := newTab(t)
	sender, err := smtp.New(smtp.Config{URL: "smtp://" + mp.SMTPAddr})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := alerting.New(alerting.Config{Store: b.store, Sender: sender, Now: b.clock.Now, BaseURL: b.server.URL + "/",
		From: "regdesk <regdesk@example.invalid>"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}

	var link string
	pattern := regexp.MustCompile(regexp.QuoteMeta(b.server.URL) + `/registrations/` + b.uncertainOverdue + `\?alerted_at=[0-9T:Z-]+`)
	for _, m := range mp.WaitMessages(t, 1) {
		if len(m.To) == 1 && m.To[0].Address == b.support.Email {
			link = pattern.FindString(mp.Message(t, m.ID).Text)
		}
	}
	if link == "" {
		t.Fatalf("no mail to support links to the registration %s", b.uncertainOverdue)
	}

	bt.do(t, chromedp.Navigate(link), fillLogin(b.support.Email, testPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="since-alert"]`)))
	loc := bt.location(t)
	if !strings.HasPrefix(loc, link) {
		t.Errorf("after sign-in the browser is at %s, want the mail's link %s", loc, link)
	}
	if text := bt.text(t, `[data-testid="since-alert"]`); !strings.Contains(text, "since the alert") {
		t.Errorf("banner = %q, want it to say what changed since the alert", text)
	}
	// The alert is on every page too.
	if bt.text(t, `[data-testid="health-banner"]`) == "" {
		t.Error("the page lacks the alerts banner")
	}
}
