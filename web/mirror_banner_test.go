package web_test

import (
	"context"
	"strings"
	"testing"

	"regdesk/web"
)

// The lists read regdesk's copy of the ledger; when the copy falls behind, every page says so,
// with how far behind, and a page of a copy refreshed just now says nothing.
func TestPagesSayWhenTheLedgerCopyIsBehind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, set, want string
	}{
		{"behind", `UPDATE ledger_mirror_state SET refreshed_at = clock_timestamp() - interval '3 minutes'`, "as it was 3 min ago"},
		{"never", `UPDATE ledger_mirror_state SET refreshed_at = NULL`, "not filled yet"},
		{"fresh", `UPDATE ledger_mirror_state SET refreshed_at = clock_timestamp()`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupWith(t, func(d *web.Deps) { d.MirrorStaleAfter = 0 }) // the default, ten seconds
			if _, err := b.store.Pool().Exec(context.Background(), tc.set); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				who  string
				path string
			}{{"support", "/?show=all"}, {"teacher", "/courses"}} {
				client := b.client
				if c.who == "teacher" {
					client = b.login(t, b.teacher)
				}
				_, body := b.getWith(t, client, c.path, false)
				has := strings.Contains(body, `data-testid="mirror-behind"`)
				switch {
				case tc.want == "" && has:
					t.Errorf("%s's %s warns of a copy refreshed just now", c.who, c.path)
				case tc.want != "" && (!has || !strings.Contains(body, tc.want)):
					t.Errorf("%s's %s does not say %q", c.who, c.path, tc.want)
				}
			}
		})
	}
}
