package alerting_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"regdesk/alerting"
	"regdesk/partner/smtp"
	"regdesk/partner/smtp/smtptest"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/views/i18n"
)

const baseURL = "https://regdesk.example/"

// clock is the tests' movable clock, starting at the suite's instant.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type bundle struct {
	st      *store.Store
	mp      *smtptest.Mailpit
	clock   *clock
	svc     *alerting.Service
	support store.Account
	admin   store.Account
	teacher store.Account
	course  storetest.Course
	student storetest.Student
}

func (b *bundle) service(t *testing.T) *alerting.Service {
	t.Helper()
	sender, err := smtp.New(smtp.Config{URL: "smtp://" + b.mp.SMTPAddr, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := alerting.New(alerting.Config{Store: b.st, Sender: sender, Now: b.clock.now, BaseURL: baseURL, From: "regdesk <regdesk@example.invalid>"})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func setup(t *testing.T) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{st: storetest.New(t), mp: smtptest.StartMailpit(t), clock: &clock{t: storetest.Now()}}
	b.course = storetest.AddCourse(t, b.st, storetest.Course{Name: "Java Programming", Code: "TKT1"})
	b.student = storetest.AddStudent(t, b.st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "anna@example.invalid"})
	var err error
	add := func(name, email, role string, courses ...string) store.Account {
		a, err := b.st.AccountCreate(ctx, store.AccountCreateParams{Name: name, Email: email, Role: role, CourseIDs: courses})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	b.support = add("Sami Support", "support@example.invalid", store.AccountRoleSupport)
	b.admin = add("Aino Admin", "admin@example.invalid", store.AccountRoleAdmin)
	b.teacher = add("Tuula Teacher", "teacher@example.invalid", store.AccountRoleTeacher, b.course.ID)
	b.svc = b.service(t)
	_ = err
	return b
}

// noDigests keeps the defaults' mails at once but turns their daily digests off, so a test sees
// only the alerts' own mails.
func (b *bundle) noDigests(t *testing.T) {
	t.Helper()
	for _, a := range []store.Account{b.support, b.admin} {
		if err := b.st.AlertSettingsSave(context.Background(), a.ID, a.ID, store.AlertSettings{ImmediateMin: 3}, b.clock.now()); err != nil {
			t.Fatal(err)
		}
	}
}

// rejectCredentials records a call Suotar refused as unauthorized, a minute before the clock.
func (b *bundle) rejectCredentials(t *testing.T) {
	t.Helper()
	id := storetest.AddRegistration(t, b.st, storetest.Registration{Student: b.student, Course: b.course, State: "failed_retryable",
		ErrorCode: "unauthorized", StateChangedAt: b.clock.now().Add(-time.Minute)})
	storetest.AddCall(t, b.st, id, storetest.Call{Kind: "retry_scheduled", RequestedAt: b.clock.now().Add(-time.Minute),
		Answer: "refused", ErrorCode: "unauthorized"})
}

func (b *bundle) tick(t *testing.T, svc *alerting.Service) {
	t.Helper()
	if err := svc.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func recipients(msgs []smtptest.MailpitMessage) []string {
	var out []string
	for _, m := range msgs {
		for _, to := range m.To {
			out = append(out, to.Address)
		}
	}
	slices.Sort(out)
	return out
}

func bySubject(msgs []smtptest.MailpitMessage, prefix string) []smtptest.MailpitMessage {
	var out []smtptest.MailpitMessage
	for _, m := range msgs {
		if strings.HasPrefix(m.Subject, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// TestAlertMailsOnceWhenItFiresAndOnceWhenItClears: a rejected credential mails support and
// admins (critical, at once) and not the teacher; further evaluations while it fires mail nothing;
// when the hour passes it clears, and each gets one more mail.
func TestAlertMailsOnceWhenItFiresAndOnceWhenItClears(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.noDigests(t)
	b.rejectCredentials(t)
	firedAt := b.clock.now()
	b.tick(t, b.svc)
	b.clock.add(time.Minute)
	b.tick(t, b.svc)

	msgs := b.mp.WaitMessages(t, 2)
	time.Sleep(200 * time.Millisecond)
	msgs = b.mp.Messages(t)
	if got, want := recipients(msgs), []string{"admin@example.invalid", "support@example.invalid"}; !slices.Equal(got, want) {
		t.Fatalf("recipients = %q, want %q (one mail each, none to the teacher)", got, want)
	}
	for _, m := range msgs {
		if m.Subject != "[regdesk] Critical: Credentials rejected" {
			t.Errorf("subject = %q", m.Subject)
		}
	}
	full := b.mp.Message(t, msgs[0].ID)
	// The alert counts calls: its link opens the page of what it counted (schedule.CountedPath).
	link := baseURL + "alerts/counted/credentials_rejected?alerted_at=" + firedAt.UTC().Format(time.RFC3339)
	if !strings.Contains(full.Text, link) {
		t.Errorf("text lacks the deep link %s:\n%s", link, full.Text)
	}
	if !strings.Contains(full.HTML, `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`) {
		t.Errorf("HTML lacks the deep link %s:\n%s", link, full.HTML)
	}
	if got := full.Headers["List-Unsubscribe"]; len(got) != 1 || got[0] != "<"+baseURL+"settings>" {
		t.Errorf("List-Unsubscribe = %q", got)
	}
	if !strings.HasSuffix(full.MessageID, "@regdesk.example") && !strings.Contains(full.MessageID, "@regdesk.example") {
		t.Errorf("Message-ID = %q, want one of regdesk's host", full.MessageID)
	}
	if ct := full.Headers["Content-Type"]; len(ct) != 1 || !strings.HasPrefix(ct[0], "multipart/alternative") {
		t.Errorf("Content-Type = %q, want multipart/alternative", ct)
	}

	// An hour after the rejection the rule no longer sees it: the alert clears.
	b.clock.add(time.Hour)
	b.tick(t, b.svc)
	b.tick(t, b.svc)
	msgs = b.mp.WaitMessages(t, 4)
	time.Sleep(200 * time.Millisecond)
	msgs = b.mp.Messages(t)
	cleared := bySubject(msgs, "[regdesk] Cleared: Credentials rejected")
	if len(msgs) != 4 || len(cleared) != 2 {
		t.Fatalf("after clearing: %d mails, %d cleared; want 4 and 2", len(msgs), len(cleared))
	}
	if got, want := recipients(cleared), []string{"admin@example.invalid", "support@example.invalid"}; !slices.Equal(got, want) {
		t.Errorf("cleared mails went to %q, want %q", got, want)
	}
}

// TestAlertMailsWaitWhileSMTPRefuses: with the mail server down the mails wait (each attempt
// recorded); when it is back and the backoff has passed, every mail arrives exactly once.
func TestAlertMailsWaitWhileSMTPRefuses(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.noDigests(t)
	b.mp.Stop(t)
	b.rejectCredentials(t)
	b.tick(t, b.svc)
	b.clock.add(30 * time.Second)
	b.tick(t, b.svc) // still inside the backoff: nothing is tried
	b.clock.add(time.Minute)
	b.tick(t, b.svc) // tried again, refused again
	var attempts, failed int
	if err := b.st.Pool().QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE NOT ok) FROM mail_attempts`).Scan(&attempts, &failed); err != nil {
		t.Fatal(err)
	}
	if attempts < 2 || failed != attempts {
		t.Fatalf("attempts = %d, failed %d; want at least 2, all failed", attempts, failed)
	}

	b.mp.Start(t)
	b.clock.add(10 * time.Minute)
	b.tick(t, b.svc)
	b.clock.add(10 * time.Minute)
	b.tick(t, b.svc)
	b.mp.WaitMessages(t, 2)
	time.Sleep(200 * time.Millisecond)
	msgs := b.mp.Messages(t)
	if got, want := recipients(msgs), []string{"admin@example.invalid", "support@example.invalid"}; !slices.Equal(got, want) {
		t.Fatalf("after the server came back: recipients %q, want %q", got, want)
	}
}

// TestTwoInstancesMailEachOnce: two instances on one database evaluate and send at once, again
// and again; each mail arrives once.
func TestTwoInstancesMailEachOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.noDigests(t)
	b.rejectCredentials(t)
	other := b.service(t)
	for range 3 {
		var wg sync.WaitGroup
		for _, svc := range []*alerting.Service{b.svc, other, b.svc, other} {
			wg.Go(func() {
				if err := svc.Tick(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		b.clock.add(time.Second)
	}
	b.mp.WaitMessages(t, 2)
	time.Sleep(300 * time.Millisecond)
	msgs := b.mp.Messages(t)
	if got, want := recipients(msgs), []string{"admin@example.invalid", "support@example.invalid"}; !slices.Equal(got, want) {
		t.Fatalf("recipients = %q, want %q: each mail once", got, want)
	}
}

// TestDailyDigestLinksToTheRegistration: support's default daily digest lists a warning (which
// mails nobody at once) with a deep link to the registration carrying alerted_at, and comes once
// a day.
func TestDailyDigestLinksToTheRegistration(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := storetest.AddRegistration(t, b.st, storetest.Registration{Student: b.student, Course: b.course, State: "misregistered",
		NeedsAdminAttention: true, StateChangedAt: b.clock.now().Add(-48 * time.Hour)})
	firedAt := b.clock.now()
	b.tick(t, b.svc)
	b.clock.add(time.Minute)
	b.tick(t, b.svc)
	b.mp.WaitMessages(t, 2)
	time.Sleep(200 * time.Millisecond)
	msgs := b.mp.Messages(t)
	digests := bySubject(msgs, "[regdesk] Daily digest")
	if len(msgs) != 2 || len(digests) != 2 {
		t.Fatalf("mails = %d (%d digests), want the two digests (support, admin) only", len(msgs), len(digests))
	}
	full := b.mp.Message(t, digests[0].ID)
	link := baseURL + "registrations/" + id + "?alerted_at=" + firedAt.UTC().Format(time.RFC3339)
	if !strings.Contains(full.Text, link) || !strings.Contains(full.Text, "Needs a person") {
		t.Errorf("digest lacks the registration's deep link %s:\n%s", link, full.Text)
	}
}

// TestMailsSpeakEachPersonsLanguage: a mail is written in the language its recipient chose.
func TestMailsSpeakEachPersonsLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.noDigests(t)
	ctx := context.Background()
	if err := b.st.AccountSetLanguage(ctx, b.support.ID, "fi", b.clock.now()); err != nil {
		t.Fatal(err)
	}
	if err := b.st.AccountSetLanguage(ctx, b.admin.ID, "sv", b.clock.now()); err != nil {
		t.Fatal(err)
	}
	b.rejectCredentials(t)
	b.tick(t, b.svc)
	msgs := b.mp.WaitMessages(t, 2)
	want := map[string]string{
		"support@example.invalid": "[regdesk] Kriittinen: Tunnukset hylätty",
		"admin@example.invalid":   "[regdesk] Kritiskt: Inloggningsuppgifter avvisade",
	}
	for _, m := range msgs {
		if got := m.Subject; got != want[m.To[0].Address] {
			t.Errorf("mail to %s: subject %q, want %q", m.To[0].Address, got, want[m.To[0].Address])
		}
		if full := b.mp.Message(t, m.ID); strings.Contains(full.Text, "⟦") || strings.Contains(full.HTML, "⟦") {
			t.Errorf("mail to %s has a missing message:\n%s", m.To[0].Address, full.Text)
		}
	}
}

// TestMailClaimedByADeadSenderIsSentOnceMoreWithItsMessageID: a sender that claimed a mail and
// died before recording it leaves the mail to the next sender once its lease lapses; it is sent
// once, with the Message-ID it was written with.
func TestMailClaimedByADeadSenderIsSentOnceMoreWithItsMessageID(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	if _, err := b.st.OutboxInsert(ctx, store.OutboxMail{DedupeKey: "k", Kind: store.MailDigest, To: "support@example.invalid",
		MessageID: "<fixed-id@regdesk.example>", Subject: "s", Text: "t", HTML: "<p>h</p>"}, b.clock.now()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.OutboxClaim(ctx, b.clock.now()); err != nil { // the sender that dies
		t.Fatal(err)
	}
	if n, err := b.svc.SendDue(ctx); err != nil || n != 0 {
		t.Fatalf("while the lease holds: sent %d, %v; want nothing", n, err)
	}
	b.clock.add(store.OutboxClaimLease)
	if n, err := b.svc.SendDue(ctx); err != nil || n != 1 {
		t.Fatalf("after the lease: sent %d, %v; want 1", n, err)
	}
	if n, err := b.svc.SendDue(ctx); err != nil || n != 0 {
		t.Fatalf("again: sent %d, %v; want nothing", n, err)
	}
	msgs := b.mp.WaitMessages(t, 1)
	if len(msgs) != 1 || msgs[0].MessageID != "fixed-id@regdesk.example" {
		t.Fatalf("messages = %+v, want one with the written Message-ID", msgs)
	}
}

// TestTeacherWeeklyListsStudentsWhoCanAct: a teacher who opted in gets, once a week, the
// registrations of their courses whose students can move them on, linking to the student.
func TestTeacherWeeklyListsStudentsWhoCanAct(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.noDigests(t)
	ctx := context.Background()
	if err := b.st.AlertSettingsSave(ctx, b.teacher.ID, b.teacher.ID, store.AlertSettings{TeacherWeekly: true}, b.clock.now()); err != nil {
		t.Fatal(err)
	}
	// No student number linked: the student must link it.
	nobody := storetest.AddStudent(t, b.st, storetest.Student{FirstName: "Ville", LastName: "Vailla", Email: "ville@example.invalid"})
	storetest.AddRegistration(t, b.st, storetest.Registration{Student: nobody, Course: b.course, State: "pending"})
	b.tick(t, b.svc)
	b.clock.add(time.Minute)
	b.tick(t, b.svc)
	msgs := b.mp.WaitMessages(t, 1)
	time.Sleep(200 * time.Millisecond)
	msgs = b.mp.Messages(t)
	if len(msgs) != 1 || msgs[0].To[0].Address != "teacher@example.invalid" || !strings.HasPrefix(msgs[0].Subject, "[regdesk] Weekly") {
		t.Fatalf("mails = %+v, want the teacher's one weekly digest", msgs)
	}
	full := b.mp.Message(t, msgs[0].ID)
	if !strings.Contains(full.Text, "Ville Vailla") || !strings.Contains(full.Text, baseURL+"students/"+nobody.ID+"?alerted_at=") {
		t.Errorf("weekly digest lacks the student and the link to them:\n%s", full.Text)
	}
}

// TestPausedAndSilentPhasesAlertSupportAndAdmins: an admin's pause of a phase or a module, and a
// phase gone silent, each fire an alert for support and admins (never a teacher) leading to the
// System page, a paused phase to the rows it holds; the silent phase is critical and mailed at once.
func TestPausedAndSilentPhasesAlertSupportAndAdmins(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.noDigests(t)
	now := b.clock.now()
	pauser := storetest.AddLMSAdmin(t, b.st, "Aino Admin", "aino@lms.example")
	storetest.LMSExecNoSync(t, b.st, `UPDATE credit_registration_phase_state SET paused_at = $1, paused_by_user_id = $2, pause_reason = 'Sisu down'
WHERE phase = 'import'`, now.Add(-time.Hour), pauser)
	storetest.LMSExecNoSync(t, b.st, `UPDATE credit_registration_phase_state SET last_heartbeat_at = $1 WHERE phase = 'verify'`, now.Add(-time.Hour))
	storetest.LMSExecNoSync(t, b.st, `INSERT INTO course_module_suotar_configurations (course_module_id, paused_at, paused_by_user_id, pause_reason)
VALUES ($1, $2, $3, 'Wrong code')`, b.course.ModuleID, now.Add(-time.Hour), pauser)
	b.tick(t, b.svc)

	firing, err := b.st.AlertListFiring(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]store.AlertRow{}
	for _, a := range firing {
		found[a.Rule+"/"+a.Key] = a
	}
	// A paused phase leads to the rows it holds, the others to the System page.
	for key, path := range map[string]string{"phase_paused/import": "/?show=all&state=checking_enrolment&state=submitting",
		"phase_heartbeat_stale/": "/system", "module_paused/" + b.course.ModuleID: "/system"} {
		a, ok := found[key]
		if !ok || a.Path != path || a.CourseID != nil {
			t.Errorf("alert %s = %+v (firing %v), want one for everyone who acts, leading to %s", key, a, ok, path)
		}
	}
	msgs := b.mp.WaitMessages(t, 2)
	time.Sleep(200 * time.Millisecond)
	msgs = b.mp.Messages(t)
	if got, want := recipients(msgs), []string{"admin@example.invalid", "support@example.invalid"}; !slices.Equal(got, want) {
		t.Fatalf("recipients = %q, want %q (the critical one at once, none to the teacher)", got, want)
	}
	full := b.mp.Message(t, msgs[0].ID)
	if msgs[0].Subject != "[regdesk] Critical: Pipeline phase silent" || !strings.Contains(full.Text, baseURL+"system?alerted_at=") {
		t.Errorf("mail %q does not lead to the System page:\n%s", msgs[0].Subject, full.Text)
	}

	// Resumed, the pauses clear.
	storetest.LMSExecNoSync(t, b.st, `UPDATE credit_registration_phase_state SET paused_at = NULL, paused_by_user_id = NULL, pause_reason = NULL`)
	storetest.LMSExecNoSync(t, b.st, `UPDATE course_module_suotar_configurations SET paused_at = NULL, paused_by_user_id = NULL, pause_reason = NULL`)
	b.clock.add(time.Minute)
	b.tick(t, b.svc)
	firing, err = b.st.AlertListFiring(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range firing {
		if a.Rule == "phase_paused" || a.Rule == "module_paused" {
			t.Errorf("%s/%s still fires after the resume", a.Rule, a.Key)
		}
	}
}

// TestDigestSaysTheMomentItDescribes: a digest sent before its hour of the day (the slot it was
// due in is yesterday's) is dated by the moment it describes, in the reader's words ("at 07:37
// on Mon 7 Dec", "ma 7.12. klo 07.37"), not by the day before (issue 27, defect 6).
func TestDigestSaysTheMomentItDescribes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	now := b.clock.now()
	// The hour after now's: the latest slot at or before now is yesterday's (or today's midnight
	// when now is in the day's last hour, where the day is now's all the same).
	hour := (now.In(schedule.Helsinki()).Hour() + 1) % 24
	for _, a := range []store.Account{b.support, b.admin} {
		if err := b.st.AlertSettingsSave(ctx, a.ID, a.ID, store.AlertSettings{DigestHour: &hour}, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.st.AccountSetLanguage(ctx, b.admin.ID, "fi", now); err != nil {
		t.Fatal(err)
	}
	storetest.AddRegistration(t, b.st, storetest.Registration{Student: b.student, Course: b.course, State: "misregistered",
		NeedsAdminAttention: true, StateChangedAt: now.Add(-48 * time.Hour)})
	b.tick(t, b.svc)
	msgs := b.mp.WaitMessages(t, 2)
	want := map[string]string{
		"support@example.invalid": "at " + i18n.For(i18n.EN).AtDated(now, now),
		"admin@example.invalid":   i18n.For(i18n.FI).AtDated(now, now),
	}
	for _, m := range msgs {
		w := want[m.To[0].Address]
		if !strings.HasSuffix(m.Subject, w) {
			t.Errorf("digest to %s: subject %q, want it to end %q", m.To[0].Address, m.Subject, w)
		}
		if full := b.mp.Message(t, m.ID); !strings.Contains(full.Text, w) {
			t.Errorf("digest to %s does not say %q:\n%s", m.To[0].Address, w, full.Text)
		}
	}
}
