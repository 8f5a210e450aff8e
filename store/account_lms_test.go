package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"regdesk/store"
	"regdesk/store/storetest"
)

func TestAccountsLinkToLMSUsers(t *testing.T) {
	t.Parallel()
	b := setupAccounts(t)
	ctx := context.Background()
	sami := storetest.AddLMSAdmin(t, b.st, "Sami Support", "Sami.Support@helsinki.example")
	// A student of the LMS: a user the LMS would not let act on registrations.
	plain := storetest.AddStudent(t, b.st, storetest.Student{FirstName: "Pia", LastName: "Plain", Email: "pia@example.org"})

	acct, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Sami Support", Email: "sami@example.invalid", Role: store.AccountRoleSupport,
		LMSUser: "sami.support@HELSINKI.example", By: b.by("New support person")})
	if err != nil {
		t.Fatal(err)
	}
	if acct.LMSUserID != sami {
		t.Fatalf("added by LMS e-mail, the account is LMS user %q, want %s", acct.LMSUserID, sami)
	}
	u, err := b.st.LMSUserGet(ctx, sami)
	if err != nil || !u.CanAct || u.Name != "Sami Support" {
		t.Errorf("LMSUserGet(sami) = %+v, %v; want Sami Support, able to act", u, err)
	}
	if u, err := b.st.LMSUserGet(ctx, plain.ID); err != nil || u.CanAct {
		t.Errorf("LMSUserGet(student) = %+v, %v; want a user who cannot act", u, err)
	}

	// One LMS user is one account: the audit must name one person.
	other, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Olli Other", Email: "olli@example.invalid", Role: store.AccountRoleSupport, By: b.by("New")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ref, key string }{
		{sami, "invalid.lmsUserTaken"},
		{"nobody@example.org", "invalid.lmsUserUnknown"},
		{store.NewID(), "invalid.lmsUserUnknown"},
		{"sami", "invalid.lmsUser"},
	} {
		_, err := b.st.AccountSetLMSUser(ctx, other.ID, tc.ref, b.by("Try"))
		if ve, ok := errors.AsType[*store.ValidationError](err); !ok || ve.Key != tc.key {
			t.Errorf("linking %q = %v, want a validation error %s", tc.ref, err, tc.key)
		}
	}
	if _, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Twin", Email: "twin@example.invalid", Role: store.AccountRoleSupport,
		LMSUser: sami, By: b.by("New")}); err == nil {
		t.Errorf("a second account added as Sami's LMS user was accepted")
	}
	if _, err := b.st.AccountGetByEmail(ctx, "twin@example.invalid"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused add wrote an account: %v", err)
	}

	// Linking, linking the same again, moving, clearing: each change recorded once with its reason.
	if changed, err := b.st.AccountSetLMSUser(ctx, other.ID, plain.ID, b.by("Olli's LMS user")); err != nil || !changed {
		t.Fatalf("link = %v, %v", changed, err)
	}
	if changed, err := b.st.AccountSetLMSUser(ctx, other.ID, "PIA@example.org", b.by("Again")); err != nil || changed {
		t.Errorf("linking the same user again = %v, %v; want no change", changed, err)
	}
	if changed, err := b.st.AccountSetLMSUser(ctx, other.ID, "", b.by("Leaves support")); err != nil || !changed {
		t.Errorf("clear = %v, %v", changed, err)
	}
	if a, _ := b.st.AccountGet(ctx, other.ID); a.LMSUserID != "" {
		t.Errorf("after clearing, the account is LMS user %q", a.LMSUserID)
	}
	want := []string{
		"lms_user_changed by Aino Admin: Leaves support",
		"lms_user_changed by Aino Admin: Olli's LMS user",
		"created by Aino Admin: New",
	}
	if got := b.changes(t, other.ID); !slices.Equal(got, want) {
		t.Errorf("changes of Olli's account:\n got %q\nwant %q", got, want)
	}
	if _, err := b.st.AccountSetLMSUser(ctx, other.ID, sami, store.AccountChangeBy{ActorID: b.admin.ID, At: b.now}); err == nil {
		t.Errorf("a link without a reason was accepted")
	}
}
