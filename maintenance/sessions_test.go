package maintenance_test

import (
	"context"
	"testing"
	"time"

	"regdesk/maintenance"
	"regdesk/store"
	"regdesk/store/storetest"
)

// The session clean-up deletes the sessions past their expiry and keeps the live ones; a second
// instance's round finds nothing more to delete.
func TestSessionsDeletesOnlyExpiredSessions(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	ss := store.NewSessionStore(st)
	// The database's own clock decides expiry, so the instants are far from it either way.
	if err := ss.CommitCtx(ctx, "expired", []byte("a"), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := ss.CommitCtx(ctx, "live", []byte("b"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	job := &maintenance.Sessions{Store: st}
	for range 2 {
		if err := job.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var tokens []string
	rows, err := st.Pool().Query(ctx, `SELECT token FROM regdesk.sessions ORDER BY token`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tok string
		if err := rows.Scan(&tok); err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 1 || tokens[0] != "live" {
		t.Errorf("sessions left: %v, want only the live one", tokens)
	}
}
