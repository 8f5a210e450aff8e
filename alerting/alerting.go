// Package alerting makes regdesk the thing that notices and tells: every interval it counts the
// health rules' facts (store.HealthFactsGet), evaluates them (schedule.Evaluate), applies what
// fired and cleared to the alerts table and, in the same transaction, writes the mails that tell
// of it to the outbox; then it sends what the outbox holds through SMTP.
//
// Nothing is lost and nothing is sent twice: a mail exists once its alert change commits, a
// second instance's copy of it is a no-op (the outbox's dedupe key), only one instance evaluates
// at a time (an advisory lock), two senders never take one mail (FOR UPDATE SKIP LOCKED), a mail
// server that refuses is retried with the pipeline's submit backoff, and a sender that dies
// mid-send leaves its mail to be sent once more, with the same Message-ID, when its claim lapses.
package alerting

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"slices"
	"time"

	"regdesk/partner/smtp"
	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// Sender hands one message to a mail server: a *smtp.Client (partner/smtp) in production.
type Sender interface {
	Send(ctx context.Context, from, to string, msg []byte) error
}

// Service evaluates and sends. Build it with New.
type Service struct {
	store  *store.Store
	sender Sender
	now    func() time.Time
	log    *slog.Logger
	from   string
	// envelope is MAIL_FROM's bare address, for the SMTP envelope.
	envelope string
	host     string
	site     views.MailSite
}

// Config is what a Service is built from.
type Config struct {
	Store *store.Store
	// Sender delivers mail; nil mails nothing (no SMTP_URL): alerts are still evaluated and shown.
	Sender Sender
	// Now is the clock.
	Now func() time.Time
	Log *slog.Logger
	// BaseURL is regdesk's own absolute URL (REGDESK_BASE_URL), for every link in a mail.
	BaseURL string
	// From is MAIL_FROM.
	From string
}

// New checks cfg and builds a Service.
func New(cfg Config) (*Service, error) {
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("REGDESK_BASE_URL %q must be an absolute http(s) URL", cfg.BaseURL)
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("MAIL_FROM %q is not an e-mail address: %w", cfg.From, err)
	}
	s := &Service{store: cfg.Store, sender: cfg.Sender, now: cfg.Now, log: cfg.Log, from: from.String(),
		envelope: from.Address, host: base.Hostname(), site: views.NewMailSite(base)}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// Mailing reports whether the service sends mail at all.
func (s *Service) Mailing() bool { return s.sender != nil }

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Tick evaluates once and sends what is due.
func (s *Service) Tick(ctx context.Context) error {
	evalErr := s.Evaluate(ctx)
	if errors.Is(evalErr, store.ErrBusy) {
		evalErr = nil
	}
	_, sendErr := s.SendDue(ctx)
	return errors.Join(evalErr, sendErr)
}

// Evaluate counts, evaluates and applies the rules at now, writing the mails their changes call
// for, and the digests that are due. ErrBusy: another instance is doing it.
//
// It reads the facts (store), evaluates them (schedule), and then, in one transaction it opens and
// passes down, applies the evaluation under the evaluation lock (store), composes the mails of
// the changes (views) and writes them to the outbox (store) before it commits: a mail exists once
// the change it tells of does. The Mail job sends them (SendDue).
func (s *Service) Evaluate(ctx context.Context) error {
	now := s.clock()
	facts, err := s.store.HealthFactsGet(ctx, now)
	if err != nil {
		return err
	}
	found := schedule.Evaluate(facts, now)

	tx, err := s.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	changes, err := tx.AlertApply(ctx, now, found)
	if err != nil {
		return err
	}
	if s.sender != nil && len(changes) > 0 {
		mails, err := s.changeMails(ctx, tx.Queries, changes, now)
		if err != nil {
			return err
		}
		for _, m := range mails {
			if _, err := tx.OutboxInsert(ctx, m, now); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}

	for _, c := range changes {
		s.log.Info("alert "+string(c.Kind), "rule", c.Alert.Rule, "key", c.Alert.Key, "severity", c.Alert.Severity, "count", c.Alert.Count)
	}
	if s.sender == nil {
		return nil
	}
	return s.digests(ctx, now)
}

func (s *Service) messageID() string { return "<" + store.NewID() + "@" + s.host + ">" }

func (s *Service) outbox(key string, kind store.MailKind, to store.Subscriber, alertID string, m views.Mail) store.OutboxMail {
	return store.OutboxMail{DedupeKey: key, Kind: kind, AccountID: to.AccountID, To: to.Email, AlertID: alertID,
		MessageID: s.messageID(), Subject: m.Subject, Text: m.Text, HTML: m.HTML,
		Headers: map[string]string{"List-Unsubscribe": "<" + s.site.Settings() + ">", "Auto-Submitted": "auto-generated"}}
}

// changeMails: a firing alert mails everyone whose settings ask for it at once; a clearing one
// mails those its firing mailed; a reminder those who would be mailed now.
func (s *Service) changeMails(ctx context.Context, q *store.Queries, changes []store.AlertChange, now time.Time) ([]store.OutboxMail, error) {
	subs, err := q.SubscriberList(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.OutboxMail
	for _, ch := range changes {
		a := ch.Alert.Alert()
		var to []store.Subscriber
		switch ch.Kind {
		case schedule.AlertCleared:
			ids, err := q.OutboxRecipients(ctx, ch.Alert.ID, store.MailAlertFired)
			if err != nil {
				return nil, err
			}
			for _, sub := range subs {
				if slices.Contains(ids, sub.AccountID) {
					to = append(to, sub)
				}
			}
		default:
			for _, sub := range subs {
				if sub.Concerns(a) && sub.Settings.Wants(a) {
					to = append(to, sub)
				}
			}
		}
		if len(to) == 0 {
			continue
		}
		vm := mailAlert(ch.Alert)
		if ch.Kind != schedule.AlertCleared {
			if vm.Examples, err = s.examples(ctx, q, a, now); err != nil {
				return nil, err
			}
		}
		byLang := map[string]views.Mail{}
		for _, sub := range to {
			m, ok := byLang[sub.Language]
			if !ok {
				if m, err = views.AlertMail(localizer(sub.Language), s.site, ch.Kind, vm, now); err != nil {
					return nil, err
				}
				byLang[sub.Language] = m
			}
			kind, key := store.MailAlertFired, "fired/"+ch.Alert.ID+"/"+sub.AccountID
			switch ch.Kind {
			case schedule.AlertCleared:
				kind, key = store.MailAlertCleared, "cleared/"+ch.Alert.ID+"/"+sub.AccountID
			case schedule.AlertReminder:
				kind, key = store.MailAlertReminder, "reminder/"+ch.Alert.ID+"/"+sub.AccountID+"/"+now.Format(time.DateOnly)
			}
			out = append(out, s.outbox(key, kind, sub, ch.Alert.ID, m))
		}
	}
	return out, nil
}

// exampleCount is how many registrations an alert's mail names.
const exampleCount = 5

// localizer speaks a recipient's chosen language ("" or one regdesk does not speak: English).
func localizer(language string) *i18n.Localizer {
	l, _ := i18n.Parse(language)
	return i18n.For(l)
}

// mailAlert is an alert row as a mail's view model.
func mailAlert(a store.AlertRow) views.MailAlertVM {
	return views.MailAlertVM{Alert: a.Alert(), FiredAt: a.FiredAt, ClearedAt: a.ClearedAt}
}

// examples are a few of the registrations an alert is about, each a link to its page.
func (s *Service) examples(ctx context.Context, q *store.Queries, a schedule.Alert, now time.Time) ([]views.MailExampleVM, error) {
	var f store.RegistrationFilter
	switch a.Rule {
	case schedule.RuleNeedsPerson:
		f = store.RegistrationFilter{NeedsAdmin: true, Reasons: []schedule.Reason{schedule.Reason(a.Key)}}
	case schedule.RuleCourseNeedsPerson:
		f = store.RegistrationFilter{NeedsAdmin: true, CourseIDs: []string{a.CourseID}}
	case schedule.RuleUncertainAwaitingLookup:
		f = store.RegistrationFilter{States: []schedule.State{schedule.StateSubmissionUncertain}}
	case schedule.RuleStuckRegistrations:
		f = store.RegistrationFilter{Reasons: []schedule.Reason{schedule.ReasonStuckInState}, States: []schedule.State{schedule.State(a.Subject)}}
	case schedule.RuleMisregistrationsDetected:
		f = store.RegistrationFilter{States: []schedule.State{schedule.StateMisregistered}}
	default:
		return nil, nil
	}
	// The examples go to everyone the alert concerns (store.Subscriber.Concerns): a course's
	// alert to its teachers too, so it reads that course only; an alert of no single course goes
	// to support and admins alone, who see every course.
	f.Scope = store.AllCourses()
	if a.CourseID != "" {
		f.Scope = store.CoursesOnly([]string{a.CourseID})
	}
	rows, _, err := q.RegistrationList(ctx, now, f, nil, exampleCount)
	if err != nil {
		return nil, err
	}
	out := make([]views.MailExampleVM, 0, len(rows))
	for _, r := range rows {
		out = append(out, views.MailExampleVM{Label: r.StudentName + ", " + r.CourseName, Path: "/registrations/" + r.ID})
	}
	return out, nil
}

// digestSlot is the latest instant at or before now that is hour o'clock in Helsinki, and its
// Helsinki date.
func digestSlot(now time.Time, hour int) (time.Time, string) {
	loc := schedule.Helsinki()
	l := now.In(loc)
	slot := time.Date(l.Year(), l.Month(), l.Day(), hour, 0, 0, 0, loc)
	if slot.After(now) {
		slot = time.Date(l.Year(), l.Month(), l.Day()-1, hour, 0, 0, 0, loc)
	}
	return slot, slot.Format(time.DateOnly)
}

// digests writes each account's daily digest of the latest slot it has not had, if anything
// concerning it is firing. An account that has just chosen a digest gets the latest slot's at once,
// so a newcomer sees one without waiting for tomorrow.
func (s *Service) digests(ctx context.Context, now time.Time) error {
	subs, err := s.store.SubscriberList(ctx)
	if err != nil {
		return err
	}
	var firing []store.AlertRow
	loaded := false
	for _, sub := range subs {
		if sub.Settings.DigestHour != nil {
			_, day := digestSlot(now, *sub.Settings.DigestHour)
			key := "digest/" + sub.AccountID + "/" + day
			done, err := s.store.OutboxExists(ctx, key)
			if err != nil {
				return err
			}
			if !done {
				if !loaded {
					if firing, err = s.store.AlertListFiring(ctx); err != nil {
						return err
					}
					loaded = true
				}
				if err := s.digest(ctx, sub, key, firing, now); err != nil {
					return err
				}
			}
		}
		if sub.Settings.TeacherWeekly && sub.Role == store.AccountRoleTeacher {
			if err := s.weekly(ctx, sub, now); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) digest(ctx context.Context, sub store.Subscriber, key string, firing []store.AlertRow, now time.Time) error {
	tx, err := s.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var items []views.MailAlertVM
	for _, a := range firing {
		al := a.Alert()
		if !sub.Concerns(al) || !sub.Settings.WantsKind(al.Rule) {
			continue
		}
		ex, err := s.examples(ctx, tx.Queries, al, now)
		if err != nil {
			return err
		}
		vm := mailAlert(a)
		vm.Examples = ex
		items = append(items, vm)
	}
	if len(items) == 0 {
		return nil
	}
	m, err := views.DigestMail(localizer(sub.Language), s.site, items, now)
	if err != nil {
		return err
	}
	if _, err := tx.OutboxInsert(ctx, s.outbox(key, store.MailDigest, sub, "", m), now); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// weekly writes a teacher's weekly digest, Mondays from their digest hour (8 by default): the
// registrations of their courses whose students can move them on themselves.
func (s *Service) weekly(ctx context.Context, sub store.Subscriber, now time.Time) error {
	hour := store.DefaultDigestHour
	if sub.Settings.DigestHour != nil {
		hour = *sub.Settings.DigestHour
	}
	slot, _ := digestSlot(now, hour)
	for slot.In(schedule.Helsinki()).Weekday() != time.Monday {
		slot = slot.AddDate(0, 0, -1)
	}
	week := slot.Format(time.DateOnly)
	key := "weekly/" + sub.AccountID + "/" + week
	done, err := s.store.OutboxExists(ctx, key)
	if err != nil || done {
		return err
	}
	tx, err := s.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var items []views.MailStudentVM
	n := 0
	scope := store.CoursesOnly(sub.CourseIDs)
	for _, courseID := range sub.CourseIDs {
		rows, err := tx.RegistrationListByCourse(ctx, now, courseID, scope, 200)
		if err != nil {
			return err
		}
		for _, r := range rows {
			st := r.StudentStatus
			if st != schedule.StudentNeedsStudentNumber && st != schedule.StudentNeedsEnrolment {
				continue
			}
			n++
			if len(items) < 50 {
				items = append(items, views.MailStudentVM{Status: st, StudentID: r.StudentID, Name: r.StudentName, Course: r.CourseName})
			}
		}
	}
	if n == 0 {
		return nil
	}
	m, err := views.WeeklyMail(localizer(sub.Language), s.site, n, items, slot)
	if err != nil {
		return err
	}
	if _, err := tx.OutboxInsert(ctx, s.outbox(key, store.MailTeacherWeekly, sub, "", m), now); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// SendDue sends every mail due at now and returns how many went; it stops at the first mail the
// server refuses, since the next would likely meet the same fate, and leaves the rest to the
// backoff.
func (s *Service) SendDue(ctx context.Context) (int, error) {
	if s.sender == nil {
		return 0, nil
	}
	sent := 0
	for {
		now := s.clock()
		item, err := s.store.OutboxClaim(ctx, now)
		if errors.Is(err, store.ErrNotFound) {
			return sent, nil
		}
		if err != nil {
			return sent, err
		}
		msg, err := smtp.Message{From: s.from, To: item.To, MessageID: item.MessageID, Date: item.CreatedAt, Subject: item.Subject,
			Text: item.Text, HTML: item.HTML, Headers: item.Headers}.Bytes()
		if err == nil {
			err = s.sender.Send(ctx, s.envelope, item.To, msg)
		}
		done := s.clock()
		if err != nil {
			s.log.Warn("alerts: mail not sent; it waits and is tried again", "to", item.To, "attempt", item.AttemptCount, "err", err)
			if ferr := s.store.OutboxFailed(context.WithoutCancel(ctx), item, done, err.Error()); ferr != nil {
				return sent, ferr
			}
			return sent, nil
		}
		if err := s.store.OutboxSent(context.WithoutCancel(ctx), item, done); err != nil {
			return sent, err
		}
		sent++
	}
}
