package web

// This file is the banner of a page an alert's link lands on (?alerted_at): what changed since
// the alert fired. The alerts themselves, their page and the every-page banners, are alerts.go's.

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// alertedAtKey is the query parameter an alert e-mail's link carries: the alert's instant in
// RFC 3339. The pages it lands on say what changed since.
const alertedAtKey = "alerted_at"

// alertChangesLimit bounds how many changed registrations a course's banner reads and lists.
const alertChangesLimit = 20

// alertTime is the alert time a link carries.
type alertTime struct {
	// set is true when the link carries one.
	set bool
	at  time.Time
	// note says why the time cannot be used (a catalogue key, noteArgs its values); then nothing
	// is compared.
	note     string
	noteArgs []any
	// noteAt is the unusable time, for a note that quotes it.
	noteAt *time.Time
}

// noteText is the note in the reader's language, with moments as seen at now.
func (a alertTime) noteText(loc *i18n.Localizer, now time.Time) string {
	if a.note == "" {
		return ""
	}
	args := a.noteArgs
	if a.noteAt != nil {
		args = append(args, "At", loc.AtDated(*a.noteAt, now))
	}
	return loc.T(a.note, args...)
}

// unusable is the banner of a link whose alert time cannot be used: only the note.
func (a alertTime) unusable(loc *i18n.Localizer, now time.Time) views.AlertBannerVM {
	return views.AlertBannerVM{Show: a.set, Note: a.noteText(loc, now)}
}

// parseAlertedAt reads ?alerted_at=. A time that cannot be used does not fail the page: the
// person came for the registration, student or course, so they get it as it stands now, with a
// note saying why nothing was compared.
func parseAlertedAt(q url.Values, now time.Time) alertTime {
	raw := strings.TrimSpace(q.Get(alertedAtKey))
	if raw == "" {
		return alertTime{}
	}
	a := alertTime{set: true}
	var t time.Time
	err := fmt.Errorf("alerted_at %d bytes long", len(raw))
	if len(raw) <= 64 {
		t, err = time.Parse(time.RFC3339, raw)
		if err != nil && strings.Contains(raw, " ") {
			// An offset such as +02:00 written into a link unescaped arrives as " 02:00": a query
			// string reads "+" as a space.
			t, err = time.Parse(time.RFC3339, strings.ReplaceAll(raw, " ", "+"))
		}
	}
	switch {
	case err != nil:
		a.note, a.noteArgs = "alert.note.unreadable", []any{"Value", shown(raw)}
	case t.After(now.Add(time.Minute)):
		a.note, a.noteAt = "alert.note.future", &t
	default:
		a.at = t.UTC()
	}
	return a
}

// shown is a person's input made safe and short enough to quote back to them.
func shown(s string) string {
	s = strings.ToValidUTF8(s, "�")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return s
}

// sinceAlert summarises changes, what happened to a registration after at; sum is where it
// stands now.
func sinceAlert(changes []store.RegistrationChange, sum schedule.StudentSummary, at time.Time) schedule.AlertSummary {
	events := make([]schedule.AlertEvent, len(changes))
	for i, c := range changes {
		events[i] = c.AlertEvent()
	}
	return schedule.SinceAlert(events, sum, at)
}

// since is the instant a page reads changes after: the link's alert time, when it carries
// one that can be used; nil otherwise.
func (a alertTime) since() *time.Time {
	if !a.set || a.note != "" {
		return nil
	}
	return &a.at
}

// registrationAlert is the banner of a registration's page, from the page's own read of the row;
// only the changes since the alert are read besides.
func (s *Server) registrationAlert(r *http.Request, q url.Values, page store.RegistrationPage, now time.Time) (views.AlertBannerVM, error) {
	a := parseAlertedAt(q, now)
	loc := i18n.From(r.Context())
	if !a.set || a.note != "" {
		return a.unusable(loc, now), nil
	}
	changes, err := s.store.EventListSince(r.Context(), page.ID, a.at, s.courseScope(r))
	if err != nil {
		return views.AlertBannerVM{}, err
	}
	sum := sinceAlert(changes, page.StudentView(page.Preconditions(), now), a.at)
	return views.AlertBannerVM{
		Show:             true,
		Headline:         loc.SinceAlert(sum, now),
		Changed:          len(sum.Changes) > 0,
		StillNeedsAction: sum.StillNeedsAction,
	}, nil
}

// studentAlert is the banner of a student's page: each registration that changed since the alert
// or still needs action, in a short list. sums are where the page's registrations stand now.
func studentAlert(loc *i18n.Localizer, a alertTime, page store.StudentPage, sums []schedule.StudentSummary, now time.Time) views.AlertBannerVM {
	if a.since() == nil {
		return a.unusable(loc, now)
	}
	vm := views.AlertBannerVM{Show: true}
	changed, needs := 0, 0
	for i, reg := range page.Registrations {
		sum := sinceAlert(page.Changes[reg.ID], sums[i], a.at)
		if len(sum.Changes) == 0 && !sum.StillNeedsAction {
			continue
		}
		if len(sum.Changes) > 0 {
			changed++
		}
		if sum.StillNeedsAction {
			needs++
		}
		vm.Items = append(vm.Items, views.AlertItemVM{
			// The status tells apart two registrations of one module, such as a replaced attempt.
			ID: reg.ID, URL: "#reg-" + reg.ID,
			Label:    loc.T("alert.itemLabel", "Course", reg.CourseName, "Module", moduleLabel(loc, reg.ModuleName), "Status", loc.Code("studentStatus", string(sums[i].Status))),
			Sentence: loc.SinceAlert(sum, now), StillNeedsAction: sum.StillNeedsAction,
		})
	}
	vm.Changed, vm.StillNeedsAction = changed > 0, needs > 0
	vm.Headline = alertHeadline(loc, loc.At(a.at, now), changed, needs, "alert.head.student.", page.FirstName)
	return vm
}

// courseAlert is the banner of a course's page: the registrations that changed since the alert,
// most recent first, at most alertChangesLimit of them. sums are where the page's registrations
// stand now.
func courseAlert(loc *i18n.Localizer, a alertTime, page store.CoursePage, sums []schedule.StudentSummary, now time.Time) views.AlertBannerVM {
	if a.since() == nil {
		return a.unusable(loc, now)
	}
	vm := views.AlertBannerVM{Show: true}
	ids := page.ChangedIDs
	more := len(ids) > alertChangesLimit
	if more {
		ids = ids[:alertChangesLimit]
	}
	rows := page.Registrations
	index := make(map[string]int, len(rows))
	needs := 0
	for i, row := range rows {
		index[row.ID] = i
		if sums[i].Classified.NeedsAdmin {
			needs++
		}
	}
	changed := 0
	for _, id := range ids {
		i, ok := index[id]
		if !ok {
			continue // beyond the page's list; the count below says there is more
		}
		sum := sinceAlert(page.Changes[id], sums[i], a.at)
		if len(sum.Changes) == 0 {
			continue // only moves SinceAlert leaves out, such as passing through an in-flight state
		}
		changed++
		row := rows[i]
		vm.Items = append(vm.Items, views.AlertItemVM{
			ID: id, URL: "/students/" + row.StudentID + "#reg-" + id, Label: studentLabel(loc, row.StudentName) + " · " + moduleLabel(loc, row.ModuleName),
			Sentence: loc.SinceAlert(sum, now), StillNeedsAction: sum.StillNeedsAction,
		})
	}
	vm.Changed, vm.StillNeedsAction = changed > 0, needs > 0
	vm.Headline = alertHeadline(loc, loc.At(a.at, now), changed, needs, "alert.head.course.", "")
	if more {
		// A second whole sentence, not a piece of the first.
		vm.Headline += " " + loc.T("alert.head.more", "Count", alertChangesLimit)
	}
	return vm
}

// alertHeadline sums a banner up: "Since the alert at 09:14: 2 of Anna’s registrations changed;
// 1 still needs action." family is the student's or the course's sentences, name the student's.
func alertHeadline(loc *i18n.Localizer, alertedAt string, changed, needs int, family, name string) string {
	switch {
	case changed == 0 && needs == 0:
		return loc.T("alert.head.nothing", "At", alertedAt)
	case changed == 0:
		return loc.T("alert.head.unchangedNeeds", "At", alertedAt, "Count", needs)
	case needs == 0:
		return loc.T(family+"changed", "At", alertedAt, "Count", changed, "Name", name)
	}
	return loc.T(family+"changedNeeds", "At", alertedAt, "Changed", changed, "Count", needs, "Name", name)
}

// queueAlert is the banner of the queue: the queue cannot tell how a view looked at the alert, so
// it says how it looks now and links to the view itself.
func queueAlert(loc *i18n.Localizer, q url.Values, p queueParams, results views.QueueResultsVM, counts views.CountsVM, now time.Time) views.AlertBannerVM {
	a := parseAlertedAt(q, now)
	if !a.set || a.note != "" {
		return a.unusable(loc, now)
	}
	at := loc.At(a.at, now)
	n := len(results.Rows)
	var lists string
	switch {
	case results.NextURL != "":
		lists = loc.T("alert.queue.more", "At", at, "Count", n)
	case n == 0:
		lists = loc.T("alert.queue.none", "At", at)
	default:
		lists = loc.T("alert.queue.rows", "At", at, "Count", n)
	}
	return views.AlertBannerVM{
		Show:             true,
		Headline:         lists + " " + loc.T("alert.queue.needs", "Count", counts.NeedsAdmin.Value),
		StillNeedsAction: !counts.NeedsAdmin.Zero,
		ViewURL:          "/?" + p.values().Encode(),
		ViewLabel:        loc.T("alert.queue.view"),
	}
}
