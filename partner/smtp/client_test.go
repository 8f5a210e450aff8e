package smtp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"regdesk/partner/smtp"
	"regdesk/partner/smtp/smtptest"
)

// TestClientDeliversMessageToARealServer holds the client and Message to a real mail server's
// reading of them (Mailpit): the subject in UTF-8, the Message-ID, the extra headers, and both
// parts arrive as written; with the server stopped, Send fails and says where it could not connect.
func TestClientDeliversMessageToARealServer(t *testing.T) {
	t.Parallel()
	mp := smtptest.StartMailpit(t)
	c, err := smtp.New(smtp.Config{URL: "smtp://" + mp.SMTPAddr, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := smtp.Message{From: "regdesk <regdesk@example.invalid>", To: "tuula@example.invalid", MessageID: "<m1@regdesk.example>",
		Date: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Subject: "[regdesk] Kriittinen: Tunnukset hylätty",
		Text: "Open it: https://regdesk.example/?a=1&b=2\n", HTML: `<p><a href="https://regdesk.example/?a=1&amp;b=2">Open</a></p>`,
		Headers: map[string]string{"List-Unsubscribe": "<https://regdesk.example/settings>"}}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(context.Background(), "regdesk@example.invalid", "tuula@example.invalid", msg); err != nil {
		t.Fatal(err)
	}
	got := mp.WaitMessages(t, 1)
	full := mp.Message(t, got[0].ID)
	if full.Subject != "[regdesk] Kriittinen: Tunnukset hylätty" || full.MessageID != "m1@regdesk.example" ||
		len(full.To) != 1 || full.To[0].Address != "tuula@example.invalid" {
		t.Errorf("message = %+v", full)
	}
	if !strings.Contains(full.Text, "https://regdesk.example/?a=1&b=2") || !strings.Contains(full.HTML, `href="https://regdesk.example/?a=1&amp;b=2"`) {
		t.Errorf("parts = %q / %q", full.Text, full.HTML)
	}
	if h := full.Headers["List-Unsubscribe"]; len(h) != 1 || h[0] != "<https://regdesk.example/settings>" {
		t.Errorf("List-Unsubscribe = %q", h)
	}

	mp.Stop(t)
	if err := c.Send(context.Background(), "regdesk@example.invalid", "tuula@example.invalid", msg); err == nil || !strings.Contains(err.Error(), mp.SMTPAddr) {
		t.Errorf("Send to a stopped server = %v, want an error naming %s", err, mp.SMTPAddr)
	}
}
