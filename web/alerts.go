package web

// This file is the alerts as pages show them: the /alerts page and its acknowledging, and the
// banners every page carries (the firing alerts, how far behind the ledger copy is). The
// ?alerted_at banner of a page an alert mail links to is alerted_at.go's.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// DefaultAlertsTTL is how stale the banner may be: the alerts are evaluated every minute anyway.
const DefaultAlertsTTL = 15 * time.Second

// concerns reports whether a is an alert a's person is told of: a teacher of their courses'
// alerts only, everyone else of those that concern no single course (store.Subscriber's rule).
func concerns(a *Actor, al schedule.Alert) bool {
	return store.Subscriber{Role: string(a.Role), CourseIDs: a.CourseIDs}.Concerns(al)
}

// alertLink is the view that fixes an alert, carrying the instant it fired so the page says what
// changed since.
func alertLink(row store.AlertRow) string {
	u, err := url.Parse(row.Path)
	if err != nil || !strings.HasPrefix(row.Path, "/") {
		return "/alerts"
	}
	q := u.Query()
	q.Set("alerted_at", row.FiredAt.UTC().Format(time.RFC3339))
	u.RawQuery = q.Encode()
	return u.String()
}

func (s *Server) alertVM(loc *i18n.Localizer, row store.AlertRow, a *Actor, now time.Time) views.HealthAlertVM {
	al := row.Alert()
	title, summary, explain := views.AlertText(loc, al)
	vm := views.HealthAlertVM{ID: row.ID, Severity: al.Severity.String(), SeverityLabel: loc.Code("severity", al.Severity.String()),
		Title: title, Summary: summary, Explanation: explain, URL: alertLink(row),
		FiredAt: loc.AtDated(row.FiredAt, now), LastSeen: loc.At(row.LastSeenAt, now),
		Peak: loc.Count(int64(row.PeakCount)), CanAcknowledge: a.CanAct() && row.ClearedAt == nil}
	if row.ClearedAt != nil {
		vm.ClearedAt = loc.AtDated(*row.ClearedAt, now)
	}
	if row.AcknowledgedAt != nil {
		vm.Acknowledged = loc.T("health.seenBy", "Name", store.Deref(row.AcknowledgedBy), "At", loc.AtDated(*row.AcknowledgedAt, now))
	}
	return vm
}

// bannerAlerts are the firing alerts that concern the person, from the in-process cache. A
// failed read shows no banner rather than no page: the page's own reads will say what is wrong.
func (s *Server) bannerAlerts(r *http.Request, a *Actor) []views.HealthAlertVM {
	if s.alerts == nil || s.store == nil {
		return nil // a Server put together by hand in a test, without New
	}
	// Read on the process's own clock, not the page's (which tests stop): the banner's freshness
	// is about the reading, not about what happened when.
	list, _, err := s.alerts.get(r.Context(), "", time.Now(), func(ctx context.Context, _ time.Time) ([]store.AlertRow, error) {
		return s.store.AlertListFiring(ctx)
	})
	if err != nil {
		s.dbTrouble.note(r.Context(), s, "banner alerts not read", err)
	}
	now := s.clock()
	loc := i18n.From(r.Context())
	var out []views.HealthAlertVM
	for _, row := range list {
		if concerns(a, row.Alert()) {
			out = append(out, s.alertVM(loc, row, a, now))
		}
	}
	return out
}

// alertsHistoryWindow is how far back /alerts reaches: "what happened last night" and a month of
// context.
const alertsHistoryWindow = 30 * 24 * time.Hour

// alertsShow lists what fires now and what fired in the last 30 days: GET /alerts.
func (s *Server) alertsShow(w http.ResponseWriter, r *http.Request) error {
	return s.renderAlerts(w, r, http.StatusOK, "")
}

func (s *Server) renderAlerts(w http.ResponseWriter, r *http.Request, status int, notice string) error {
	a := actorFrom(r.Context())
	now := s.clock()
	loc := i18n.From(r.Context())
	vm := views.HealthPageVM{Page: s.page(r, loc.T("health.title")), Mailing: s.mailing, Notice: notice}
	err := s.store.InReadTx(r.Context(), func(q *store.Queries) error {
		firing, err := q.AlertListFiring(r.Context())
		if err != nil {
			return err
		}
		hist, err := q.AlertListSince(r.Context(), now.Add(-alertsHistoryWindow), 500)
		if err != nil {
			return err
		}
		for _, row := range firing {
			if concerns(a, row.Alert()) {
				vm.Firing = append(vm.Firing, s.alertVM(loc, row, a, now))
			}
		}
		for _, row := range hist {
			if concerns(a, row.Alert()) {
				vm.History = append(vm.History, s.alertVM(loc, row, a, now))
			}
		}
		if a.CanAct() && s.mailing {
			st, err := q.OutboxStatsGet(r.Context())
			if err != nil {
				return err
			}
			vm.Outbox = " " + loc.T("health.outbox", "Sent", st.Sent, "Waiting", st.Waiting)
			if st.Waiting > 0 && st.LastError != nil {
				vm.Outbox += " " + loc.T("health.outboxError", "Error", *st.LastError)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.render(w, r, status, views.HealthPage(vm), views.HealthFiring(vm.Firing))
}

// alertAcknowledge records that the person has seen a firing alert: POST /alerts/{id}/acknowledge.
func (s *Server) alertAcknowledge(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	a := actorFrom(r.Context())
	err = s.store.AlertAcknowledge(r.Context(), id, a.ID, r.PostForm.Get("note"), s.clock())
	if errors.Is(err, store.ErrNotFound) {
		return &Error{Status: http.StatusConflict, Message: i18n.T(r.Context(), "health.ackConflict")}
	}
	if err != nil {
		return err
	}
	s.alerts.expire("")
	s.setFlash(r, i18n.T(r.Context(), "health.ackDone"))
	redirect(w, r, "/alerts")
	return nil
}

// DefaultMirrorStaleAfter is how far behind the LMS's ledger regdesk's copy may be before the
// pages say so: the copy is refreshed every two seconds, so ten is a refresh failing repeatedly.
const DefaultMirrorStaleAfter = 10 * time.Second

// mirrorStatusTTL is how often the banner reads how far behind the copy is.
const mirrorStatusTTL = 2 * time.Second

// mirrorBehind says, in words, that the lists show the ledger as it was a while ago, when the copy
// is further behind than mirrorStaleAfter (or was never refreshed at all); empty when it is not.
func (s *Server) mirrorBehind(r *http.Request) views.MirrorVM {
	if s.mirror == nil || s.store == nil || s.mirrorStaleAfter < 0 {
		return views.MirrorVM{}
	}
	// Read on the process's own clock, not the page's (which tests stop): how far behind is
	// a span measured since the reading.
	st, readAt, err := s.mirror.get(r.Context(), "", time.Now(), func(ctx context.Context, _ time.Time) (store.MirrorStatus, error) {
		return s.store.LedgerMirrorStatus(ctx)
	})
	if err != nil {
		s.dbTrouble.note(r.Context(), s, "ledger copy status not read", err)
	}
	if readAt.IsZero() {
		return views.MirrorVM{}
	}
	loc := i18n.From(r.Context())
	if st.Behind == nil {
		return views.MirrorVM{Short: loc.T("mirror.never.short"), Full: loc.T("mirror.never")}
	}
	behind := *st.Behind + time.Since(readAt)
	if behind <= s.mirrorStaleAfter {
		return views.MirrorVM{}
	}
	span := loc.Span(behind)
	return views.MirrorVM{Short: loc.T("mirror.behind.short", "Span", span), Full: loc.T("mirror.behind", "Span", span)}
}
