package suotar

import (
	"strings"
	"testing"
	"time"
)

func TestScrub(t *testing.T) {
	t.Parallel()

	tests := []struct{ name, body, want string }{
		{name: "StudentNumbersAndEmails", body: `{"studentNumber":"014979622","email":"aino.virtanen@helsinki.example","date":"2026-05-22"}`,
			want: `{"studentNumber":"<digits>","email":"<email>","date":"2026-05-22"}`},
		{name: "Tokens", body: "Authorization: Bearer suotar_abcDEF-123_x and suotar_zzz", want: "Authorization: <token> and <token>"},
		{name: "OwnToken", body: "echo secret-token-value", want: "echo <token>"},
		{name: "WhitespaceFolded", body: "<html>\n  <body>\t502</body>\n</html>", want: "<html> <body> 502</body> </html>"},
		{name: "InvalidUTF8", body: "ok \xff\xfe", want: "ok ?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := scrub([]byte(tc.body), "secret-token-value"); got != tc.want {
				t.Errorf("scrub = %q, want %q", got, tc.want)
			}
		})
	}
	long := scrub([]byte(strings.Repeat("abc ", 500)), "")
	if n := len([]rune(long)); n != sampleLen+1 || !strings.HasSuffix(long, "…") {
		t.Errorf("long sample has %d runes (%q), want %d and an ellipsis", n, long, sampleLen+1)
	}
}

func TestSpell(t *testing.T) {
	t.Parallel()

	tests := []struct {
		d    time.Duration
		want string
	}{
		{50 * time.Second, "50 seconds"},
		{time.Second, "1 second"},
		{2 * time.Minute, "2 minutes"},
		{90 * time.Second, "90 seconds"},
		{300 * time.Millisecond, "0.3 seconds"},
	}
	for _, tc := range tests {
		if got := spell(tc.d); got != tc.want {
			t.Errorf("spell(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := (&Error{Kind: KindTimeout, Limit: DefaultTimeout}).UserMessage(); got != "Suotar did not answer within 50 seconds; try again." {
		t.Errorf("default timeout message = %q", got)
	}
}
