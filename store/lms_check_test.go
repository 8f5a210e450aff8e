package store_test

import (
	"context"
	"strings"
	"testing"

	"regdesk/store/storetest"
)

// serve checks at start that regdesk can read the LMS, and names what it cannot.
func TestCheckLMSNamesWhatRegdeskCannotRead(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	if err := st.CheckLMS(ctx); err != nil {
		t.Fatalf("CheckLMS on the LMS's shape, readable: %v", err)
	}
	storetest.LMSExecNoSync(t, st, `REVOKE SELECT ON roles FROM regdesk_test_app`)
	storetest.LMSExecNoSync(t, st, `ALTER TABLE credit_registration_attention_dismissals RENAME TO dismissals_elsewhere`)
	err := st.CheckLMS(ctx)
	for _, want := range []string{"lacks public.credit_registration_attention_dismissals", "may not read public.roles", "GRANT SELECT ON ALL TABLES IN SCHEMA public"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckLMS = %v; want it to say %q", err, want)
		}
	}
	storetest.LMSExecNoSync(t, st, `REVOKE USAGE ON SCHEMA public FROM regdesk_test_app`)
	storetest.LMSExecNoSync(t, st, `REVOKE USAGE ON SCHEMA public FROM PUBLIC`)
	if err := st.CheckLMS(ctx); err == nil || !strings.Contains(err.Error(), "lacks USAGE") {
		t.Errorf("CheckLMS without USAGE on the schema = %v", err)
	}
}
