package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
)

type accountBundle struct {
	st     *store.Store
	admin  store.Account
	course storetest.Course
	now    time.Time
}

func setupAccounts(t *testing.T) *accountBundle {
	t.Helper()
	st := storetest.New(t)
	b := &accountBundle{st: st, now: storetest.Now(), course: storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})}
	var err error
	b.admin, err = st.AccountAdd(context.Background(), store.AccountAddParams{Name: "Aino Admin", Email: "aino@example.invalid",
		Role: store.AccountRoleAdmin, By: store.CommandLineChange(b.now, "Added")})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// by is a change by the admin a second after the last one, so the record's order is the test's.
func (b *accountBundle) by(reason string) store.AccountChangeBy {
	b.now = b.now.Add(time.Second)
	return store.AccountChangeBy{ActorID: b.admin.ID, At: b.now, Reason: reason}
}

func (b *accountBundle) changes(t *testing.T, id string) []string {
	t.Helper()
	list, err := b.st.AccountChangeList(context.Background(), id, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list {
		out = append(out, c.Change+" by "+store.Deref(c.ActorName)+": "+c.Reason)
	}
	return out
}

func TestAccountChangesAreRecorded(t *testing.T) {
	t.Parallel()
	b := setupAccounts(t)
	ctx := context.Background()
	tuula, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Tuula Teacher", Email: "tuula@example.invalid",
		Role: store.AccountRoleTeacher, CourseIDs: []string{b.course.ID}, By: b.by("new teacher")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tuula.CourseIDs, []string{b.course.ID}) || tuula.PasswordHash != nil {
		t.Errorf("added: %+v", tuula)
	}
	other := storetest.AddCourse(t, b.st, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	if changed, err := b.st.AccountUpdate(ctx, store.AccountUpdateParams{ID: tuula.ID, Role: store.AccountRoleTeacher,
		CourseIDs: []string{other.ID, b.course.ID}, By: b.by("teaches both now")}); err != nil || !changed {
		t.Fatalf("courses: %v %v", changed, err)
	}
	// The same form again changes nothing and records nothing.
	if changed, err := b.st.AccountUpdate(ctx, store.AccountUpdateParams{ID: tuula.ID, Role: store.AccountRoleTeacher,
		CourseIDs: []string{b.course.ID, other.ID}, By: b.by("again")}); err != nil || changed {
		t.Errorf("unchanged form: %v %v", changed, err)
	}
	if _, err := b.st.AccountUpdate(ctx, store.AccountUpdateParams{ID: tuula.ID, Role: store.AccountRoleSupport, By: b.by("moved to support")}); err != nil {
		t.Fatal(err)
	}
	acct, _ := b.st.AccountGet(ctx, tuula.ID)
	if acct.Role != store.AccountRoleSupport || len(acct.CourseIDs) != 0 {
		t.Errorf("after the move to support: %+v", acct)
	}
	if _, err := b.st.AccountSetDisabled(ctx, tuula.ID, true, b.by("left")); err != nil {
		t.Fatal(err)
	}
	if changed, err := b.st.AccountSetDisabled(ctx, tuula.ID, true, b.by("left again")); err != nil || changed {
		t.Errorf("disabling twice: %v %v", changed, err)
	}
	if _, err := b.st.AccountSetDisabled(ctx, tuula.ID, false, b.by("came back")); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"enabled by Aino Admin: came back",
		"disabled by Aino Admin: left",
		"courses_changed by Aino Admin: moved to support",
		"role_changed by Aino Admin: moved to support",
		"courses_changed by Aino Admin: teaches both now",
		"created by Aino Admin: new teacher",
	}
	got := b.changes(t, tuula.ID)
	if len(got) == len(want) && got[2] == want[3] && got[3] == want[2] {
		got[2], got[3] = got[3], got[2] // one update's two changes share their instant
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Bad input is refused in words and writes nothing.
	for _, p := range []store.AccountAddParams{
		{Name: "", Email: "x@example.invalid", Role: "support", By: b.by("x")},
		{Name: "X", Email: "not an address", Role: "support", By: b.by("x")},
		{Name: "X", Email: "x@example.invalid", Role: "boss", By: b.by("x")},
		{Name: "X", Email: "x@example.invalid", Role: "teacher", CourseIDs: []string{storetest.NewID()}, By: b.by("x")},
		{Name: "X", Email: "x@example.invalid", Role: "support", By: b.by("  ")},
	} {
		if _, err := b.st.AccountAdd(ctx, p); !errors.As(err, new(*store.ValidationError)) {
			t.Errorf("%+v: err = %v, want a ValidationError", p, err)
		}
	}
	if _, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Dup", Email: "TUULA@example.invalid", Role: "support", By: b.by("dup")}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a taken address: %v", err)
	}
	if _, err := b.st.AccountGetByEmail(ctx, "x@example.invalid"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused add wrote an account")
	}
}

func TestLastActiveAdminStays(t *testing.T) {
	t.Parallel()
	b := setupAccounts(t)
	ctx := context.Background()
	demote := func(id string) error {
		_, err := b.st.AccountUpdate(ctx, store.AccountUpdateParams{ID: id, Role: store.AccountRoleSupport, By: b.by("demote")})
		return err
	}
	if err := demote(b.admin.ID); !errors.Is(err, store.ErrLastAdmin) {
		t.Errorf("demoting the only admin: %v", err)
	}
	if _, err := b.st.AccountSetDisabled(ctx, b.admin.ID, true, b.by("off")); !errors.Is(err, store.ErrLastAdmin) {
		t.Errorf("disabling the only admin: %v", err)
	}
	// A disabled admin is no stand-in.
	second, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Olli Admin", Email: "olli@example.invalid", Role: "admin", By: b.by("second")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.AccountSetDisabled(ctx, second.ID, true, b.by("on leave")); err != nil {
		t.Fatal(err)
	}
	if err := demote(b.admin.ID); !errors.Is(err, store.ErrLastAdmin) {
		t.Errorf("demoting the only active admin: %v", err)
	}
	if _, err := b.st.AccountSetDisabled(ctx, second.ID, false, b.by("back")); err != nil {
		t.Fatal(err)
	}
	if err := demote(b.admin.ID); err != nil {
		t.Errorf("demoting one of two admins: %v", err)
	}
	if err := demote(second.ID); !errors.Is(err, store.ErrLastAdmin) {
		t.Errorf("demoting the one left: %v", err)
	}
	if got, _ := b.st.AccountGet(ctx, second.ID); got.Role != store.AccountRoleAdmin || got.DisabledAt != nil {
		t.Errorf("the last admin: %+v", got)
	}
	// Refusals record nothing.
	for _, c := range b.changes(t, second.ID) {
		if strings.HasPrefix(c, "role_changed") {
			t.Errorf("a refused demotion was recorded: %s", c)
		}
	}
}

func TestPasswordLinkWorksOnceAndExpires(t *testing.T) {
	t.Parallel()
	b := setupAccounts(t)
	ctx := context.Background()
	sami, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Sami Support", Email: "sami@example.invalid", Role: "support", By: b.by("new")})
	if err != nil {
		t.Fatal(err)
	}
	token, expires, err := b.st.AccountPasswordLinkIssue(ctx, sami.ID, time.Hour, b.by("first password"))
	if err != nil {
		t.Fatal(err)
	}
	if !expires.Equal(b.now.Add(time.Hour)) || len(token) < 40 {
		t.Errorf("token %q expires %v", token, expires)
	}
	// At rest there is only the token's hash.
	hashes, err := b.st.StringsForTest(ctx, `SELECT encode(token_hash, 'hex') FROM account_password_links`)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(token))
	if !slices.Equal(hashes, []string{hex.EncodeToString(sum[:])}) {
		t.Errorf("stored %v, want the token's SHA-256 only", hashes)
	}
	if n, _ := b.st.StringsForTest(ctx, `SELECT l.id::text FROM account_password_links l WHERE row_to_json(l)::text LIKE '%' || $1 || '%'`, token); len(n) != 0 {
		t.Errorf("the token itself is stored")
	}
	if _, err := b.st.AccountPasswordLinkCheck(ctx, b.now, "never-issued"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown token: %v", err)
	}
	// Past its hour it no longer works.
	if _, err := b.st.AccountPasswordLinkCheck(ctx, b.now.Add(time.Hour), token); !errors.Is(err, store.ErrLinkExpired) {
		t.Errorf("an expired link: %v", err)
	}
	// Looking does not spend it; using it does.
	if acct, err := b.st.AccountPasswordLinkCheck(ctx, b.now.Add(time.Minute), token); err != nil || acct.ID != sami.ID {
		t.Fatalf("check: %v %v", acct.ID, err)
	}
	hash, err := b.st.HashPassword("a-new-password-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.AccountPasswordLinkUse(ctx, b.now.Add(2*time.Minute), token, hash); err != nil {
		t.Fatal(err)
	}
	got, _ := b.st.AccountGet(ctx, sami.ID)
	if got.PasswordHash == nil || !store.PasswordMatches(*got.PasswordHash, "a-new-password-1") {
		t.Errorf("the password was not set")
	}
	other, _ := b.st.HashPassword("a-second-password")
	if _, err := b.st.AccountPasswordLinkUse(ctx, b.now.Add(3*time.Minute), token, other); !errors.Is(err, store.ErrLinkExpired) {
		t.Errorf("a second use: %v", err)
	}
	// A newer link replaces an unused older one.
	first, _, err := b.st.AccountPasswordLinkIssue(ctx, sami.ID, time.Hour, b.by("again"))
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := b.st.AccountPasswordLinkIssue(ctx, sami.ID, time.Hour, b.by("and again"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.AccountPasswordLinkCheck(ctx, b.now, first); !errors.Is(err, store.ErrLinkExpired) {
		t.Errorf("a replaced link: %v", err)
	}
	if _, err := b.st.AccountPasswordLinkCheck(ctx, b.now, second); err != nil {
		t.Errorf("the newest link: %v", err)
	}
	// A disabled account's link does not work.
	if _, err := b.st.AccountSetDisabled(ctx, sami.ID, true, b.by("left")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.AccountPasswordLinkCheck(ctx, b.now, second); !errors.Is(err, store.ErrLinkExpired) {
		t.Errorf("a disabled account's link: %v", err)
	}
	// The disabling spent it: enabling the account again gives it nothing back.
	if _, err := b.st.AccountSetDisabled(ctx, sami.ID, false, b.by("back")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.AccountPasswordLinkCheck(ctx, b.now, second); !errors.Is(err, store.ErrLinkExpired) {
		t.Errorf("a link made before the account was disabled, once it is enabled again: %v", err)
	}
	cs := b.changes(t, sami.ID)
	if !slices.Contains(cs, "password_set by Sami Support: Set their own password through a one-time link; every other session of the account ended.") ||
		!slices.Contains(cs, "password_link_issued by Aino Admin: first password") {
		t.Errorf("changes: %v", cs)
	}
}

// The audit names the role an account change's actor had as they acted, not the one they have
// now: kept with the change, and for a change written before roles were kept (an actor_role of
// NULL), read from the actor's own recorded role changes.
func TestAccountChangesKeepTheActorsRoleAtTheTime(t *testing.T) {
	t.Parallel()
	b := setupAccounts(t)
	ctx := context.Background()
	sami, err := b.st.AccountAdd(ctx, store.AccountAddParams{Name: "Sami Support", Email: "sami@example.invalid",
		Role: store.AccountRoleSupport, By: b.by("new support person")})
	if err != nil {
		t.Fatal(err)
	}
	b.now = b.now.Add(time.Minute)
	if _, _, err := b.st.APITokenCreate(ctx, sami.ID, "as support", b.now); err != nil {
		t.Fatal(err)
	}
	b.now = b.now.Add(time.Minute)
	if _, err := b.st.AccountUpdate(ctx, store.AccountUpdateParams{ID: sami.ID, Role: store.AccountRoleAdmin, By: b.by("leads the team")}); err != nil {
		t.Fatal(err)
	}
	b.now = b.now.Add(time.Minute)
	if _, _, err := b.st.APITokenCreate(ctx, sami.ID, "as admin", b.now); err != nil {
		t.Fatal(err)
	}
	// Sami, an admin, moves themselves back to support: that change was made as an admin.
	b.now = b.now.Add(time.Minute)
	if _, err := b.st.AccountUpdate(ctx, store.AccountUpdateParams{ID: sami.ID, Role: store.AccountRoleSupport,
		By: store.AccountChangeBy{ActorID: sami.ID, At: b.now, Reason: "back to support"}}); err != nil {
		t.Fatal(err)
	}
	list, _, err := b.st.AuditList(ctx, store.AuditFilter{ActorID: sami.ID, Action: store.AuditActionAccounts}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Reason+": "+e.ActorRole)
	}
	want := []string{"back to support: admin", "Made the API token “as admin”.: admin", "Made the API token “as support”.: support"}
	if !slices.Equal(got, want) {
		t.Errorf("roles on the audit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The admin's own lines say admin, and the command line's say no role.
	list, _, err = b.st.AuditList(ctx, store.AuditFilter{AccountID: sami.ID, Action: store.AuditActionAccounts}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if e.ActorID == b.admin.ID && e.ActorRole != store.AccountRoleAdmin {
			t.Errorf("%q by the admin: role %q", e.Reason, e.ActorRole)
		}
	}
	list, _, err = b.st.AuditList(ctx, store.AuditFilter{AccountID: b.admin.ID, Action: store.AuditActionAccounts}, nil, 100)
	if err != nil || len(list) == 0 || list[len(list)-1].ActorRole != "" {
		t.Errorf("the command line's change: %+v %v", list, err)
	}
}
