package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"regdesk/store"
	"regdesk/store/demo"
)

const userUsage = `usage: regdesk user <verb> [flags]

verbs:
  add      -email a@b -name "Full Name" -role admin|support|teacher [-course id-or-slug,...]
           [-lms-user lms-user-id-or-lms-email] [-password-stdin | -sso-only]
  lms-user -email a@b -lms-user lms-user-id-or-lms-email | -clear
  passwd   -email a@b [-password-stdin]
  disable  -email a@b
  enable   -email a@b
  list

Passwords are prompted for on the terminal (not echoed), or read from the first line of standard
input with -password-stdin. There is deliberately no flag that takes a password: the command line
is visible to every user of the machine and stays in shell history.

-lms-user names the LMS user the person is: regdesk asks the LMS for their hand actions as that
user, and the LMS's own audit names them. Support staff and admins need it to act; the LMS lets
the user act when they hold a global admin or credit_registration_admin role there.`

// userCommand manages staff accounts: `regdesk user add|passwd|disable|enable|list`.
func userCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, userUsage)
		return errUsage
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("user "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	var (
		email, name, role, courses, lmsUser *string
		passwordStdin, ssoOnly, clearLMS    *bool
	)
	switch verb {
	case "add":
		email = fs.String("email", "", "the person's e-mail address: what they sign in with")
		name = fs.String("name", "", "the person's name, as the top bar and the audit show it")
		role = fs.String("role", "", "admin, support or teacher")
		courses = fs.String("course", "", "a teacher's courses: ids or slugs, comma-separated")
		passwordStdin = fs.Bool("password-stdin", false, "read the password from the first line of standard input")
		ssoOnly = fs.Bool("sso-only", false, "no password: the person signs in through the single sign-on proxy only")
		lmsUser = fs.String("lms-user", "", "the LMS user the person is: their LMS user id or the e-mail address they sign in to the LMS with")
	case "lms-user":
		email = fs.String("email", "", "the account's e-mail address")
		lmsUser = fs.String("lms-user", "", "the LMS user the person is: their LMS user id or the e-mail address they sign in to the LMS with")
		clearLMS = fs.Bool("clear", false, "the account is no LMS user: it can no longer take hand actions")
	case "passwd":
		email = fs.String("email", "", "the account's e-mail address")
		passwordStdin = fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	case "disable", "enable":
		email = fs.String("email", "", "the account's e-mail address")
	case "list":
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(stdout, userUsage)
		return nil
	default:
		fmt.Fprintf(stderr, "regdesk user: unknown verb %q\n\n%s\n", verb, userUsage)
		return errUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("user %s: unexpected arguments %q (a password is never taken as an argument)", verb, fs.Args())
	}
	if *dbURL == "" {
		return errors.New("DATABASE_URL is not set")
	}
	if email != nil && strings.TrimSpace(*email) == "" {
		return fmt.Errorf("user %s: -email is required", verb)
	}
	st, err := store.Open(ctx, *dbURL, store.Options{MaxConns: 2})
	if err != nil {
		return err
	}
	defer st.Close()

	switch verb {
	case "add":
		return userAdd(ctx, st, userAddParams{
			Email: strings.TrimSpace(*email), Name: strings.TrimSpace(*name), Role: *role, Courses: listValue(*courses),
			PasswordStdin: *passwordStdin, SSOOnly: *ssoOnly, LMSUser: strings.TrimSpace(*lmsUser),
		}, stdin, stdout, stderr)
	case "lms-user":
		return userLMSUser(ctx, st, *email, strings.TrimSpace(*lmsUser), *clearLMS, stdout, stderr)
	case "passwd":
		acct, err := accountByEmail(ctx, st, *email)
		if err != nil {
			return err
		}
		hash, err := readNewPassword(st, stdin, *passwordStdin, stderr)
		if err != nil {
			return err
		}
		if err := st.AccountPasswordSet(ctx, acct.ID, hash, store.CommandLineChange(time.Now(), "Password set")); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "user passwd: changed the password of %s; sessions already open stay open until they end\n", acct.Email)
		return nil
	case "disable":
		acct, err := accountByEmail(ctx, st, *email)
		if err != nil {
			return err
		}
		changed, err := st.AccountSetDisabled(ctx, acct.ID, true, store.CommandLineChange(time.Now(), "Disabled"))
		if errors.Is(err, store.ErrLastAdmin) {
			return fmt.Errorf("user disable: %s is the last active admin; add or enable another admin first", acct.Email)
		}
		if err != nil {
			return err
		}
		if !changed {
			fmt.Fprintf(stdout, "user disable: %s was already disabled\n", acct.Email)
			return nil
		}
		fmt.Fprintf(stdout, "user disable: disabled %s; their open sessions end at their next request\n", acct.Email)
		return nil
	case "enable":
		acct, err := accountByEmail(ctx, st, *email)
		if err != nil {
			return err
		}
		changed, err := st.AccountSetDisabled(ctx, acct.ID, false, store.CommandLineChange(time.Now(), "Enabled"))
		if err != nil {
			return err
		}
		if !changed {
			fmt.Fprintf(stdout, "user enable: %s was not disabled\n", acct.Email)
			return nil
		}
		fmt.Fprintf(stdout, "user enable: %s can sign in again\n", acct.Email)
		return nil
	default: // list
		return userList(ctx, st, stdout)
	}
}

type userAddParams struct {
	Email, Name, Role      string
	Courses                []string
	PasswordStdin, SSOOnly bool
	LMSUser                string
}

func userAdd(ctx context.Context, st *store.Store, p userAddParams, stdin io.Reader, stdout, stderr io.Writer) error {
	var problems []string
	if !strings.Contains(p.Email, "@") {
		problems = append(problems, fmt.Sprintf("-email: %q is not an e-mail address", p.Email))
	}
	if p.Name == "" {
		problems = append(problems, "-name is required")
	}
	if !slices.Contains([]string{store.AccountRoleAdmin, store.AccountRoleSupport, store.AccountRoleTeacher}, p.Role) {
		problems = append(problems, fmt.Sprintf("-role: %q is not admin, support or teacher", p.Role))
	}
	if len(p.Courses) > 0 && p.Role != store.AccountRoleTeacher {
		problems = append(problems, "-course: only teachers have courses; admins and support staff see every course")
	}
	if p.SSOOnly && p.PasswordStdin {
		problems = append(problems, "-sso-only and -password-stdin exclude each other")
	}
	courseIDs, err := resolveCourses(ctx, st, p.Courses)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("user add:\n  %s", strings.Join(problems, "\n  "))
	}
	if _, err := st.AccountGetByEmail(ctx, p.Email); err == nil {
		return fmt.Errorf("user add: %s already has an account (regdesk user list shows it)", p.Email)
	}
	var hash string
	if !p.SSOOnly {
		if hash, err = readNewPassword(st, stdin, p.PasswordStdin, stderr); err != nil {
			return err
		}
	}
	acct, err := st.AccountAdd(ctx, store.AccountAddParams{
		Name: p.Name, Email: p.Email, Role: p.Role, PasswordHash: hash, CourseIDs: courseIDs, LMSUser: p.LMSUser,
		By: store.CommandLineChange(time.Now(), "Added"),
	})
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		return fmt.Errorf("user add: %s", ve.Message)
	}
	if errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("user add: %s already has an account", p.Email)
	}
	if err != nil {
		return err
	}
	if p.Role == store.AccountRoleTeacher && len(courseIDs) == 0 {
		fmt.Fprintln(stderr, "user add: warning: a teacher of no course sees no registrations at all")
	}
	fmt.Fprintf(stdout, "user add: %s (%s, %s) can now sign in\n", acct.Email, acct.Name, acct.Role)
	if acct.LMSUserID != "" {
		return lmsUserNotes(ctx, st, "user add", acct, stdout, stderr)
	}
	if p.Role != store.AccountRoleTeacher {
		fmt.Fprintf(stderr, "user add: warning: %s is no LMS user yet, so cannot take hand actions; regdesk user lms-user links one\n", acct.Email)
	}
	return nil
}

// userLMSUser links an account to the LMS user the person is, or clears the link.
func userLMSUser(ctx context.Context, st *store.Store, email, ref string, clear bool, stdout, stderr io.Writer) error {
	if (ref == "") == !clear {
		return errors.New("user lms-user: give either -lms-user (an LMS user id or LMS e-mail address) or -clear")
	}
	acct, err := accountByEmail(ctx, st, email)
	if err != nil {
		return err
	}
	what := "Linked to an LMS user"
	if clear {
		what = "LMS user cleared"
	}
	changed, err := st.AccountSetLMSUser(ctx, acct.ID, ref, store.CommandLineChange(time.Now(), what))
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		return fmt.Errorf("user lms-user: %s", ve.Message)
	}
	if err != nil {
		return err
	}
	if acct, err = st.AccountGet(ctx, acct.ID); err != nil {
		return err
	}
	switch {
	case !changed:
		fmt.Fprintf(stdout, "user lms-user: %s was already so; nothing changed\n", acct.Email)
	case clear:
		fmt.Fprintf(stdout, "user lms-user: %s is no LMS user now and cannot take hand actions\n", acct.Email)
		return nil
	}
	return lmsUserNotes(ctx, st, "user lms-user", acct, stdout, stderr)
}

// lmsUserNotes says which LMS user an account is, and warns when the LMS would refuse their hand
// actions.
func lmsUserNotes(ctx context.Context, st *store.Store, verb string, acct store.Account, stdout, stderr io.Writer) error {
	u, err := st.LMSUserGet(ctx, acct.LMSUserID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s is the LMS user %s (%s, %s)\n", verb, acct.Email, u.ID, cmpOr(u.Name, "no name"), cmpOr(u.Email, "no e-mail"))
	if !u.CanAct && acct.Role != store.AccountRoleTeacher {
		fmt.Fprintf(stderr, "%s: warning: that LMS user holds no global admin or credit_registration_admin role, so the LMS refuses their hand actions\n", verb)
	}
	return nil
}

// resolveCourses maps course ids or slugs onto ids, naming every one it does not know.
func resolveCourses(ctx context.Context, st *store.Store, refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	all, err := st.CourseList(ctx, store.AllCourses())
	if err != nil {
		return nil, err
	}
	var ids, unknown []string
	for _, ref := range refs {
		i := slices.IndexFunc(all, func(c store.Course) bool { return strings.EqualFold(c.ID, ref) || c.Slug == ref })
		if i < 0 {
			unknown = append(unknown, ref)
			continue
		}
		ids = append(ids, all[i].ID)
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("-course: no course has the id or slug %s", strings.Join(unknown, ", "))
	}
	return ids, nil
}

func accountByEmail(ctx context.Context, st *store.Store, email string) (store.Account, error) {
	acct, err := st.AccountGetByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return acct, fmt.Errorf("no account has the e-mail address %s (regdesk user list shows them all)", email)
	}
	return acct, err
}

func userList(ctx context.Context, st *store.Store, stdout io.Writer) error {
	accounts, err := st.AccountList(ctx)
	if err != nil {
		return err
	}
	courses, err := st.CourseList(ctx, store.AllCourses())
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, c := range courses {
		names[c.ID] = c.Name
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tNAME\tROLE\tSTATUS\tSIGN-IN\tLMS USER\tCOURSES")
	for _, a := range accounts {
		status := "active"
		if a.DisabledAt != nil {
			status = "disabled " + a.DisabledAt.Format("2006-01-02")
		}
		signIn := "password"
		if a.PasswordHash == nil {
			signIn = "sso only"
		}
		var cs []string
		for _, id := range a.CourseIDs {
			cs = append(cs, cmpOr(names[id], id))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Email, a.Name, a.Role, status, signIn, cmpOr(a.LMSUserID, "-"), strings.Join(cs, ", "))
	}
	return tw.Flush()
}

// readNewPassword reads a new password, from standard input's first line or from a prompt on
// the terminal that does not echo, and returns its hash.
func readNewPassword(st *store.Store, stdin io.Reader, fromStdin bool, stderr io.Writer) (string, error) {
	var pw string
	if fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read the password from standard input: %w", err)
		}
		pw = strings.TrimRight(line, "\r\n")
	} else {
		f, ok := stdin.(*os.File)
		if !ok || !isTerminal(f) {
			return "", errors.New("no terminal to ask for the password on: pipe it in with -password-stdin")
		}
		first, err := promptSecret(f, stderr, "New password: ")
		if err != nil {
			return "", err
		}
		again, err := promptSecret(f, stderr, "Once more: ")
		if err != nil {
			return "", err
		}
		if first != again {
			return "", errors.New("the two passwords differ; nothing was changed")
		}
		pw = first
	}
	hash, err := st.HashPassword(pw)
	if err != nil {
		return "", fmt.Errorf("%w; nothing was changed", err)
	}
	return hash, nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// promptSecret asks for a line on the terminal with echo off. stty does the switching, which
// keeps a terminal library out of the dependencies; without stty there is -password-stdin.
func promptSecret(tty *os.File, stderr io.Writer, prompt string) (string, error) {
	stty := func(arg string) error {
		cmd := exec.Command("stty", arg)
		cmd.Stdin = tty
		return cmd.Run()
	}
	if err := stty("-echo"); err != nil {
		return "", fmt.Errorf("cannot turn off the terminal's echo (%w): pipe the password in with -password-stdin", err)
	}
	defer func() {
		_ = stty("echo")
		fmt.Fprintln(stderr)
	}()
	fmt.Fprint(stderr, prompt)
	line, err := bufio.NewReader(tty).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// demoLogin is one demo account, as make run prints it.
type demoLogin struct {
	Role     string
	Name     string
	Email    string
	Password string
	// Courses names a teacher's courses.
	Courses []string
}

// demoAccounts are the accounts of make run's demo. Their passwords are fixed and printed: they
// exist only in the private demo database.
var demoAccounts = []demoLogin{
	{Role: store.AccountRoleAdmin, Name: "Aino Admin", Email: "admin@regdesk.test", Password: "demo-admin-password"},
	{Role: store.AccountRoleSupport, Name: "Sami Support", Email: "support@regdesk.test", Password: "demo-support-password"},
	{Role: store.AccountRoleTeacher, Name: "Tuula Teacher", Email: "teacher@regdesk.test", Password: "demo-teacher-password"},
}

// demoStaff are the demo accounts whose people act in the demo's history (the admin and support
// people): demo.Write makes each an LMS user with the LMS's credit-registration admin grant.
func demoStaff() []demo.Staff {
	var out []demo.Staff
	for _, d := range demoAccounts {
		if d.Role != store.AccountRoleTeacher {
			out = append(out, demo.Staff{Name: d.Name, Email: d.Email})
		}
	}
	return out
}

// ensureDemoAccounts makes sure the demo accounts exist with their demo passwords, the teacher
// teaching the first two courses by name (none when there are no courses yet), the admin and
// support accounts naming the LMS users the demo data made for them, and returns their logins to
// print. Running it again changes nothing that is already right.
func ensureDemoAccounts(ctx context.Context, st *store.Store) ([]demoLogin, error) {
	var staffEmails []string
	for _, s := range demoStaff() {
		staffEmails = append(staffEmails, s.Email)
	}
	lmsUsers, err := demo.StaffUserIDs(ctx, st, staffEmails)
	if err != nil {
		return nil, fmt.Errorf("demo accounts: %w", err)
	}
	courses, err := st.CourseList(ctx, store.AllCourses()) // by name
	if err != nil {
		return nil, fmt.Errorf("demo accounts: %w", err)
	}
	names := map[string]string{}
	var firstTwo []string
	for i, c := range courses {
		names[c.ID] = c.Name
		if i < 2 {
			firstTwo = append(firstTwo, c.ID)
		}
	}
	out := make([]demoLogin, 0, len(demoAccounts))
	for _, d := range demoAccounts {
		var teaches []string
		if d.Role == store.AccountRoleTeacher {
			teaches = firstTwo
		}
		acct, err := st.AccountGetByEmail(ctx, d.Email)
		switch {
		case errors.Is(err, store.ErrNotFound):
			hash, err := st.HashPassword(d.Password)
			if err != nil {
				return nil, fmt.Errorf("demo accounts: %w", err)
			}
			acct, err = st.AccountCreate(ctx, store.AccountCreateParams{Name: d.Name, Email: d.Email, Role: d.Role, PasswordHash: hash,
				CourseIDs: teaches, LMSUserID: lmsUsers[d.Email]})
			if err != nil {
				return nil, fmt.Errorf("demo accounts: create %s: %w", d.Email, err)
			}
		case err != nil:
			return nil, fmt.Errorf("demo accounts: %w", err)
		default:
			// Someone may have changed the demo password; the printed one must work.
			if acct.PasswordHash == nil || !store.PasswordMatches(*acct.PasswordHash, d.Password) {
				hash, err := st.HashPassword(d.Password)
				if err != nil {
					return nil, fmt.Errorf("demo accounts: %w", err)
				}
				if err := st.AccountSetPassword(ctx, acct.ID, hash); err != nil {
					return nil, fmt.Errorf("demo accounts: reset %s: %w", d.Email, err)
				}
			}
			// A teacher made before there were courses gets them now; chosen courses are kept.
			if d.Role == store.AccountRoleTeacher && len(acct.CourseIDs) == 0 && len(teaches) > 0 {
				if err := st.AccountSetCourses(ctx, acct.ID, teaches); err != nil {
					return nil, fmt.Errorf("demo accounts: courses of %s: %w", d.Email, err)
				}
			} else if d.Role == store.AccountRoleTeacher {
				teaches = acct.CourseIDs
			}
		}
		// The person the LMS's audit rows name, so regdesk shows "you" on them and takes their hand
		// actions as them; an account made before the demo data was gets it now.
		if id, ok := lmsUsers[d.Email]; ok && acct.LMSUserID != id {
			if _, err := st.AccountSetLMSUser(ctx, acct.ID, id, store.CommandLineChange(time.Now(), "Linked to the demo's LMS user")); err != nil {
				return nil, fmt.Errorf("demo accounts: the LMS user of %s: %w", d.Email, err)
			}
		}
		for _, id := range teaches {
			d.Courses = append(d.Courses, cmpOr(names[id], id))
		}
		slices.Sort(d.Courses)
		out = append(out, d)
	}
	return out, nil
}

// printDemoLogins writes the demo logins for a person starting make run.
func printDemoLogins(w io.Writer, logins []demoLogin) {
	fmt.Fprintln(w, "Demo accounts (sign in at /login):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, l := range logins {
		line := fmt.Sprintf("  %s\t%s\tpassword %s", l.Role, l.Email, l.Password)
		if l.Role == store.AccountRoleTeacher {
			line += "\tteaches " + cmpOr(strings.Join(l.Courses, ", "), "no course yet")
		}
		fmt.Fprintln(tw, line)
	}
	_ = tw.Flush()
}
