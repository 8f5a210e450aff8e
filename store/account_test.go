package store_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
)

func TestAccountCreateAndGet(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	c1 := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	c2 := storetest.AddCourse(t, st, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})

	created, err := st.AccountCreate(ctx, store.AccountCreateParams{
		Name: "Tuula Teacher", Email: " Tuula.Teacher@Example.invalid ", Role: store.AccountRoleTeacher,
		PasswordHash: "hash", CourseIDs: []string{c2.ID, c1.ID},
	})
	if err != nil {
		t.Fatalf("AccountCreate: %v", err)
	}
	if created.Email != "Tuula.Teacher@Example.invalid" {
		t.Errorf("Email = %q, want it trimmed and its case kept", created.Email)
	}
	want := []string{c1.ID, c2.ID}
	slices.Sort(want)
	if !slices.Equal(created.CourseIDs, want) {
		t.Errorf("CourseIDs = %v, want %v", created.CourseIDs, want)
	}

	got, err := st.AccountGetByEmail(ctx, "tuula.teacher@EXAMPLE.invalid")
	if err != nil {
		t.Fatalf("AccountGetByEmail in another case: %v", err)
	}
	if got.ID != created.ID || got.Role != "teacher" || got.PasswordHash == nil || *got.PasswordHash != "hash" {
		t.Errorf("AccountGetByEmail = %+v, want the created account", got)
	}
	if ids, err := st.AccountCourseIDs(ctx, created.ID); err != nil || !slices.Equal(ids, want) {
		t.Errorf("AccountCourseIDs = %v, %v; want %v", ids, err, want)
	}

	_, err = st.AccountCreate(ctx, store.AccountCreateParams{Name: "Again", Email: "TUULA.teacher@example.invalid", Role: store.AccountRoleSupport})
	if !errors.Is(err, store.ErrConflict) {
		t.Errorf("AccountCreate with a taken address in another case = %v, want ErrConflict", err)
	}

	for _, id := range []string{storetest.NewID(), "not-a-uuid"} {
		if _, err := st.AccountGet(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("AccountGet(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if _, err := st.AccountGetByEmail(ctx, "nobody@example.invalid"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AccountGetByEmail(unknown) = %v, want ErrNotFound", err)
	}
}

func TestAccountPasswordDisableCoursesAndList(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	c1 := storetest.AddCourse(t, st, storetest.Course{Name: "A", Code: "A1"})

	sso, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "Sso Only", Email: "b@example.invalid", Role: store.AccountRoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	if sso.PasswordHash != nil {
		t.Errorf("an account made without a password has hash %q, want none", *sso.PasswordHash)
	}
	admin, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "Admin", Email: "a@example.invalid", Role: store.AccountRoleAdmin, PasswordHash: "old"})
	if err != nil {
		t.Fatal(err)
	}

	if err := st.AccountSetPassword(ctx, admin.ID, "new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.AccountGet(ctx, admin.ID); got.PasswordHash == nil || *got.PasswordHash != "new" {
		t.Errorf("after AccountSetPassword the hash is %v, want new", got.PasswordHash)
	}

	first := storetest.Now().Add(-3 * 24 * time.Hour)
	if err := st.AccountDisable(ctx, admin.ID, first); err != nil {
		t.Fatal(err)
	}
	if err := st.AccountDisable(ctx, admin.ID, first.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.AccountGet(ctx, admin.ID); got.DisabledAt == nil || !got.DisabledAt.Equal(first) {
		t.Errorf("DisabledAt = %v, want the first disabling's %v", got.DisabledAt, first)
	}

	if err := st.AccountSetCourses(ctx, sso.ID, []string{c1.ID}); err != nil {
		t.Fatal(err)
	}
	if err := st.AccountSetCourses(ctx, sso.ID, []string{c1.ID}); err != nil {
		t.Fatalf("AccountSetCourses again: %v", err)
	}
	if ids, _ := st.AccountCourseIDs(ctx, sso.ID); !slices.Equal(ids, []string{c1.ID}) {
		t.Errorf("AccountCourseIDs after AccountSetCourses = %v", ids)
	}

	unknown := storetest.NewID()
	for name, err := range map[string]error{
		"AccountSetPassword": st.AccountSetPassword(ctx, unknown, "x"),
		"AccountDisable":     st.AccountDisable(ctx, unknown, first),
		"AccountSetCourses":  st.AccountSetCourses(ctx, unknown, nil),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s(unknown) = %v, want ErrNotFound", name, err)
		}
	}

	list, err := st.AccountList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var emails []string
	for _, a := range list {
		emails = append(emails, a.Email)
	}
	if !slices.Equal(emails, []string{"a@example.invalid", "b@example.invalid"}) {
		t.Errorf("AccountList = %v, want both, by address", emails)
	}
}

func TestLoginAttemptInsertAndList(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	acct, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "A", Email: "a@example.invalid", Role: store.AccountRoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	at := storetest.Now().Add(-time.Hour)
	attempts := []store.LoginAttempt{
		{CreatedAt: at, Address: "192.0.2.1", Email: "a@example.invalid", AccountID: &acct.ID, Outcome: store.LoginWrongPassword},
		// What a person types may hold NUL bytes, broken UTF-8 and any length; it must still be recorded.
		{CreatedAt: at.Add(time.Second), Address: "192.0.2.1", Email: "x\x00y\xff" + strings.Repeat("é", 400), Outcome: store.LoginUnknownAccount},
		{CreatedAt: at.Add(2 * time.Second), Address: "2001:db8::1", Email: "a@example.invalid", AccountID: &acct.ID, Outcome: store.LoginSuccess},
	}
	for _, a := range attempts {
		if err := st.LoginAttemptInsert(ctx, a); err != nil {
			t.Fatalf("LoginAttemptInsert(%q): %v", a.Outcome, err)
		}
	}
	list, err := st.LoginAttemptList(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("LoginAttemptList has %d attempts, want 3", len(list))
	}
	if list[0].Outcome != store.LoginSuccess || list[0].AccountID == nil || *list[0].AccountID != acct.ID || list[0].Address != "2001:db8::1" {
		t.Errorf("newest attempt = %+v, want the success of %s", list[0], acct.ID)
	}
	if e := list[1].Email; !strings.HasPrefix(e, "xy\uFFFDé") || len(e) > 320 || list[1].AccountID != nil {
		t.Errorf("the odd address was kept as %q (%d bytes), account %v", e, len(e), list[1].AccountID)
	}
}

func TestAccountSetLanguage(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	acct, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "Kielivalitsija", Email: "k@example.invalid", Role: store.AccountRoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	if acct.Language != "" {
		t.Errorf("a new account has language %q, want none (it follows the browser)", acct.Language)
	}
	if err := st.AccountSetLanguage(ctx, acct.ID, "sv", storetest.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := st.AccountGet(ctx, acct.ID)
	if err != nil || got.Language != "sv" {
		t.Errorf("after choosing Swedish: %q, %v", got.Language, err)
	}
	var setAt time.Time
	if err := st.Pool().QueryRow(ctx, `SELECT language_set_at FROM accounts WHERE id = $1`, acct.ID).Scan(&setAt); err != nil || !setAt.Equal(storetest.Now()) {
		t.Errorf("language_set_at = %v, %v; want %v", setAt, err, storetest.Now())
	}
	if err := st.AccountSetLanguage(ctx, acct.ID, "de", storetest.Now()); err == nil {
		t.Error("the database took a language regdesk does not speak")
	}
	if err := st.AccountSetLanguage(ctx, storetest.NewID(), "fi", storetest.Now()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown account: %v, want ErrNotFound", err)
	}
}
