package smtp_test

import (
	"strings"
	"testing"

	"regdesk/partner/smtp"
)

// TestParseURL: only smtp:// and smtps:// with a host, and never a password in the URL,
// which is logged.
func TestParseURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"smtp://127.0.0.1:1025", "smtps://mail.example.org", "smtp://regdesk@mail.example.org:587"} {
		if _, err := smtp.ParseURL(ok); err != nil {
			t.Errorf("ParseURL(%q) = %v", ok, err)
		}
	}
	for bad, says := range map[string]string{
		"http://mail.example.org":          "smtp://",
		"smtp://":                          "no host",
		"smtp://u:secret@mail.example.org": "SMTP_PASSWORD",
		"smtp://mail.example.org/x?y=1":    "no path",
	} {
		_, err := smtp.ParseURL(bad)
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseURL(%q) = %v, want an error saying %q", bad, err, says)
		}
	}
}
