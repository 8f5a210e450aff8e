package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"regdesk/store"
	"regdesk/store/storetest"
)

func TestUserCommand(t *testing.T) {
	t.Parallel()
	st, dbURL := storetest.NewWithURL(t, storetest.Options{})
	ctx := context.Background()
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return dbURL
		}
		return ""
	}
	user := func(stdin string, args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := userCommand(ctx, args, getenv, strings.NewReader(stdin), &out, &errOut)
		return out.String() + errOut.String(), err
	}

	if out, err := user("first-password-1\n", "add", "-email", "Tuula@Example.invalid", "-name", "Tuula Teacher", "-role", "teacher",
		"-course", "c-"+course.ID[:8], "-password-stdin"); err != nil {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	acct, err := st.AccountGetByEmail(ctx, "tuula@example.invalid")
	if err != nil {
		t.Fatal(err)
	}
	if acct.Role != "teacher" || !slices.Equal(acct.CourseIDs, []string{course.ID}) || acct.PasswordHash == nil || !store.PasswordMatches(*acct.PasswordHash, "first-password-1") {
		t.Errorf("the added account is %+v, want a teacher of the course with the piped password", acct)
	}

	if _, err := user("second-password-2\r\n", "passwd", "-email", "TUULA@example.invalid", "-password-stdin"); err != nil {
		t.Fatalf("user passwd: %v", err)
	}
	acct, _ = st.AccountGetByEmail(ctx, "tuula@example.invalid")
	if !store.PasswordMatches(*acct.PasswordHash, "second-password-2") {
		t.Errorf("user passwd did not set the new password")
	}
	if _, err := user("short\n", "passwd", "-email", "tuula@example.invalid", "-password-stdin"); err == nil || !strings.Contains(err.Error(), "at least 12") {
		t.Errorf("user passwd with a short password = %v, want a refusal naming the minimum", err)
	}
	// Without -password-stdin the password is asked for on a terminal; a pipe is not one.
	if _, err := user("third-password-3\n", "passwd", "-email", "tuula@example.invalid"); err == nil || !strings.Contains(err.Error(), "-password-stdin") {
		t.Errorf("user passwd without a terminal = %v, want a pointer to -password-stdin", err)
	}
	if _, err := user("", "passwd", "-email", "tuula@example.invalid", "hunter2hunter2"); err == nil {
		t.Errorf("user passwd with a password argument succeeded; want it refused")
	}

	if _, err := user("", "add", "-email", "sso@example.invalid", "-name", "Sso Support", "-role", "support", "-sso-only"); err != nil {
		t.Fatalf("user add -sso-only: %v", err)
	}
	if _, err := user("", "disable", "-email", "sso@example.invalid"); err != nil {
		t.Fatalf("user disable: %v", err)
	}
	out, err := user("", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Tuula@Example.invalid", "teacher", "Ohjelmoinnin perusteet", "sso@example.invalid", "disabled", "sso only"} {
		if !strings.Contains(out, want) {
			t.Errorf("user list lacks %q:\n%s", want, out)
		}
	}

	// Every problem of a bad add is named at once, and nothing is written.
	_, err = user("x\n", "add", "-email", "nobody", "-role", "boss", "-course", "no-such-course", "-password-stdin")
	for _, want := range []string{"-email", "-name is required", "-role", "only teachers have courses", "no-such-course"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("user add with bad flags = %v, want it to name %s", err, want)
		}
	}
	if _, err := user("another-password\n", "add", "-email", "tuula@EXAMPLE.invalid", "-name", "Again", "-role", "admin", "-password-stdin"); err == nil || !strings.Contains(err.Error(), "already has an account") {
		t.Errorf("user add of a taken address = %v, want a refusal", err)
	}
	if list, _ := st.AccountList(ctx); len(list) != 2 {
		t.Errorf("%d accounts after the refused adds, want 2", len(list))
	}
	if _, err := user("", "disable", "-email", "ghost@example.invalid"); err == nil || !strings.Contains(err.Error(), "no account") {
		t.Errorf("user disable of an unknown address = %v, want a clear refusal", err)
	}

	// Enable undoes disable, and each is in the account's record of changes.
	if out, err := user("", "enable", "-email", "sso@example.invalid"); err != nil || !strings.Contains(out, "can sign in again") {
		t.Fatalf("user enable: %v\n%s", err, out)
	}
	sso, err := st.AccountGetByEmail(ctx, "sso@example.invalid")
	if err != nil || sso.DisabledAt != nil {
		t.Fatalf("after user enable: %+v %v", sso, err)
	}
	changes, err := st.AccountChangeList(ctx, sso.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range changes {
		kinds = append(kinds, c.Change)
		if c.ActorID != nil || !strings.Contains(c.Reason, "command line") {
			t.Errorf("change %s recorded as by %v (%q), want the command line", c.Change, c.ActorID, c.Reason)
		}
	}
	if !slices.Equal(kinds, []string{store.AccountChangeEnabled, store.AccountChangeDisabled, store.AccountChangeCreated}) {
		t.Errorf("changes of the sso account, newest first: %v", kinds)
	}

	// The only admin cannot be disabled, from here either.
	if _, err := user("", "add", "-email", "aino@example.invalid", "-name", "Aino Admin", "-role", "admin", "-sso-only"); err != nil {
		t.Fatal(err)
	}
	if _, err := user("", "disable", "-email", "aino@example.invalid"); err == nil || !strings.Contains(err.Error(), "last active admin") {
		t.Errorf("disabling the last admin = %v, want a refusal", err)
	}
}

func TestEnsureDemoAccountsIsIdempotent(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	storetest.AddCourse(t, st, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	first := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	second := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin jatkokurssi", Code: "TKT10003"})

	logins, err := ensureDemoAccounts(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, l := range logins {
		roles = append(roles, l.Role)
		acct, err := st.AccountGetByEmail(ctx, l.Email)
		if err != nil {
			t.Fatalf("demo account %s: %v", l.Email, err)
		}
		if acct.Role != l.Role || acct.PasswordHash == nil || !store.PasswordMatches(*acct.PasswordHash, l.Password) {
			t.Errorf("demo account %s does not sign in with its printed password as %s", l.Email, l.Role)
		}
		if l.Role == store.AccountRoleTeacher {
			want := []string{first.ID, second.ID}
			slices.Sort(want)
			if !slices.Equal(acct.CourseIDs, want) {
				t.Errorf("the demo teacher teaches %v, want the first two courses by name %v", acct.CourseIDs, want)
			}
			if !slices.Equal(l.Courses, []string{"Ohjelmoinnin jatkokurssi", "Ohjelmoinnin perusteet"}) {
				t.Errorf("the teacher's printed courses are %v", l.Courses)
			}
		}
	}
	if !slices.Equal(roles, []string{"admin", "support", "teacher"}) {
		t.Errorf("demo roles = %v, want admin, support, teacher", roles)
	}

	// Someone changed the support password; running again restores the printed one and adds nothing.
	support, _ := st.AccountGetByEmail(ctx, logins[1].Email)
	hash, err := st.HashPassword("someone-elses-password")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AccountSetPassword(ctx, support.ID, hash); err != nil {
		t.Fatal(err)
	}
	again, err := ensureDemoAccounts(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 3 || again[2].Email != logins[2].Email || !slices.Equal(again[2].Courses, logins[2].Courses) {
		t.Errorf("second run returned %+v, want the same logins", again)
	}
	if list, _ := st.AccountList(ctx); len(list) != 3 {
		t.Errorf("%d accounts after a second run, want 3", len(list))
	}
	support, _ = st.AccountGetByEmail(ctx, logins[1].Email)
	if !store.PasswordMatches(*support.PasswordHash, logins[1].Password) {
		t.Errorf("the second run left the changed support password; the printed one must work")
	}

	var out bytes.Buffer
	printDemoLogins(&out, again)
	for _, want := range []string{"admin@regdesk.test", "demo-teacher-password", "teaches Ohjelmoinnin jatkokurssi, Ohjelmoinnin perusteet"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed logins lack %q:\n%s", want, out.String())
		}
	}
}

func TestUserLMSUserLinksTheAccount(t *testing.T) {
	t.Parallel()
	st, dbURL := storetest.NewWithURL(t, storetest.Options{})
	ctx := context.Background()
	sami := storetest.AddLMSAdmin(t, st, "Sami Support", "sami@lms.example")
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Pia", LastName: "Plain", Email: "pia@lms.example"})
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return dbURL
		}
		return ""
	}
	user := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := userCommand(ctx, args, getenv, strings.NewReader(""), &out, &out)
		return out.String(), err
	}
	out, err := user("add", "-email", "sami@example.invalid", "-name", "Sami Support", "-role", "support", "-sso-only", "-lms-user", "SAMI@lms.example")
	if err != nil || !strings.Contains(out, sami) || strings.Contains(out, "warning") {
		t.Fatalf("user add -lms-user: %v\n%s", err, out)
	}
	out, err = user("add", "-email", "pia@example.invalid", "-name", "Pia Plain", "-role", "support", "-sso-only")
	if err != nil || !strings.Contains(out, "no LMS user yet") {
		t.Errorf("a support person added without an LMS user gets no warning: %v\n%s", err, out)
	}
	if out, err := user("lms-user", "-email", "pia@example.invalid", "-lms-user", "sami@lms.example"); err == nil || !strings.Contains(err.Error(), "already that LMS user") {
		t.Errorf("linking Sami's LMS user to a second account = %v\n%s", err, out)
	}
	out, err = user("lms-user", "-email", "pia@example.invalid", "-lms-user", student.ID)
	if err != nil || !strings.Contains(out, "refuses their hand actions") {
		t.Errorf("linking an LMS user without the role: %v; want a warning that the LMS refuses them\n%s", err, out)
	}
	if _, err := user("lms-user", "-email", "pia@example.invalid"); err == nil {
		t.Errorf("user lms-user with neither -lms-user nor -clear succeeded")
	}
	if _, err := user("lms-user", "-email", "pia@example.invalid", "-clear"); err != nil {
		t.Fatal(err)
	}
	out, err = user("list")
	if err != nil || !strings.Contains(out, sami) {
		t.Errorf("user list does not show Sami's LMS user: %v\n%s", err, out)
	}
	pia, _ := st.AccountGetByEmail(ctx, "pia@example.invalid")
	changes, _ := st.AccountChangeList(ctx, pia.ID, 10)
	var kinds []string
	for _, c := range changes {
		kinds = append(kinds, c.Change)
	}
	if pia.LMSUserID != "" || !slices.Equal(kinds, []string{"lms_user_changed", "lms_user_changed", "created"}) {
		t.Errorf("Pia's account is LMS user %q with changes %v; want cleared, each change recorded", pia.LMSUserID, kinds)
	}
}
