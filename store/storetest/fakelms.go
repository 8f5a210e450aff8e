package storetest

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"regdesk/partner/lms"
	"regdesk/partner/lms/lmsfake"
	"regdesk/store"
)

// FakeLMSToken is the service token the fake LMS of FakeLMS takes.
const FakeLMSToken = "regdesk-test-token-0123456789abcdef0123456789"

// FakeLMS starts the fake of the LMS's admin endpoints (lmsfake) over real HTTP on st's database,
// writing as the LMS, with now (nil: the wall clock) as the LMS's clock, also for the updated_at
// its writes stamp (lmsfake.FollowClock), and returns it with a client for it. The LMS's audit table gets the fix regdesk asks the LMS team for
// (lmsfake.RelaxAuditTargetCheck), so bulk transitions can record their audit row.
func FakeLMS(tb testing.TB, st *store.Store, now func() time.Time) (*lmsfake.Server, *lms.Client) {
	tb.Helper()
	pool := LMS(tb, st)
	if err := lmsfake.RelaxAuditTargetCheck(context.Background(), pool); err != nil && !strings.Contains(err.Error(), "does not exist") {
		tb.Fatalf("storetest: %v", err)
	}
	if now != nil {
		if err := lmsfake.FollowClock(context.Background(), pool); err != nil {
			tb.Fatalf("storetest: %v", err)
		}
	}
	fake, err := lmsfake.New(pool, lmsfake.Options{Token: FakeLMSToken, Now: now})
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	srv := httptest.NewServer(fake)
	tb.Cleanup(func() {
		fake.Close()
		srv.Close()
	})
	client, err := lms.New(srv.URL, FakeLMSToken, srv.Client())
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	return fake, client
}

// AddLMSAdmin inserts an LMS user allowed to administer credit registrations (users,
// user_details, a global credit_registration_admin role) and returns its id: the LMS user a
// support person's account names.
func AddLMSAdmin(tb testing.TB, st *store.Store, name, email string) string {
	tb.Helper()
	id := NewID()
	first, last, _ := strings.Cut(name, " ")
	LMSExecNoSync(tb, st, `INSERT INTO users (id) VALUES ($1)`, id)
	LMSExecNoSync(tb, st, `INSERT INTO user_details (user_id, first_name, last_name, email) VALUES ($1, $2, $3, $4)`,
		id, nullable(first), nullable(last), email)
	LMSExecNoSync(tb, st, `INSERT INTO roles (user_id, role, is_global) VALUES ($1, 'credit_registration_admin', true)`, id)
	return id
}
