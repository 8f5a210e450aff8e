package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is "I'm on it": claiming and releasing rows, from a registration's page and in bulk
// from the queue, and how a claim and a row's waiting time are drawn wherever the row appears.
// A claim warns and never blocks; the store ends it when a hand action settles the row.

// registrationClaim puts the person on one row: POST /registrations/{id}/claim. Someone else's
// claim is taken over, and the flash says whose it was. Support and admins only (requireRole).
func (s *Server) registrationClaim(w http.ResponseWriter, r *http.Request) error {
	return s.claimOrRelease(w, r, true)
}

// registrationRelease takes the person off one row: POST /registrations/{id}/release.
func (s *Server) registrationRelease(w http.ResponseWriter, r *http.Request) error {
	return s.claimOrRelease(w, r, false)
}

func (s *Server) claimOrRelease(w http.ResponseWriter, r *http.Request, claim bool) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	p := s.claimParams(r, []string{id})
	loc := i18n.From(r.Context())
	msg := ""
	if claim {
		res, err := s.store.RegistrationClaim(r.Context(), s.clock(), p)
		if err := claimError(err); err != nil {
			return err
		}
		msg = loc.T("claim.done")
		if from := res.TakenFrom[id]; from != "" {
			msg = loc.T("claim.takenOver", "Name", from)
		}
	} else {
		res, err := s.store.RegistrationRelease(r.Context(), s.clock(), p)
		if err := claimError(err); err != nil {
			return err
		}
		msg = loc.T("claim.released")
		if len(res.IDs) == 0 {
			msg = loc.T("claim.notYours")
		}
	}
	s.setFlash(r, msg)
	redirect(w, r, "/registrations/"+id)
	return nil
}

// bulkClaim puts the person on every ticked row of the queue: POST /bulk/claim, from the bulk
// bar's "I'm on the ticked rows". It returns to the queue view the form came from.
func (s *Server) bulkClaim(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(w, r); err != nil {
		return err
	}
	qp, err := parseQueueParams(r.PostForm)
	if err != nil {
		return err
	}
	back := "/?" + qp.values().Encode()
	ids := r.PostForm["id"]
	if len(ids) == 0 {
		s.setFlash(r, i18n.T(r.Context(), "claim.tickFirst"))
		redirect(w, r, back)
		return nil
	}
	res, err := s.store.RegistrationClaim(r.Context(), s.clock(), s.claimParams(r, ids))
	if err := claimError(err); err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	msg := loc.T("claim.bulkDone", "Count", len(res.IDs))
	if len(res.TakenFrom) > 0 {
		seen := map[string]bool{}
		var names []string
		for _, n := range res.TakenFrom {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		msg += " " + loc.T("claim.bulkTakenOver", "Count", len(res.TakenFrom), "Names", strings.Join(names, ", "))
	}
	s.setFlash(r, msg)
	redirect(w, r, back)
	return nil
}

func (s *Server) claimParams(r *http.Request, ids []string) store.ClaimParams {
	a := actorFrom(r.Context())
	return store.ClaimParams{IDs: ids, Actor: store.ActionActor{ID: a.ID, Role: string(a.Role)}, Reason: r.PostForm.Get("reason"),
		Scope: s.courseScope(r), Lapse: s.claimLapse}
}

// claimError turns a bad note into a 422 page in words; other errors pass through.
func claimError(err error) error {
	if ve, ok := errors.AsType[*store.ValidationError](err); ok {
		if ve.Key != "" {
			return &Error{Status: http.StatusUnprocessableEntity, Key: "claim.nothingChanged", Args: []any{"Problem", validationName(ve)}, Err: err}
		}
		return &Error{Status: http.StatusUnprocessableEntity, Message: ve.Message + " Nothing changed.", Err: err}
	}
	return err
}

// claimVM draws a row's claim for the person looking at now.
func (s *Server) claimVM(r *http.Request, c store.ClaimColumns, now time.Time) views.ClaimVM {
	claim := c.Claim(now, s.claimLapse)
	if claim == nil {
		return views.ClaimVM{}
	}
	loc := i18n.From(r.Context())
	vm := views.ClaimVM{Set: true, Who: claim.AccountName, Since: loc.When(&claim.ClaimedAt, now)}
	since := loc.At(claim.ClaimedAt, now)
	if !sameHelsinkiDay(claim.ClaimedAt, now) {
		since = vm.Since.Abs
	}
	if a := actorFrom(r.Context()); a != nil && a.ID == claim.AccountID {
		vm.Mine, vm.Who = true, loc.T("claim.you")
		vm.Words = loc.T("claim.mineSince", "Since", since)
		return vm
	}
	vm.Words = loc.T("claim.theirsSince", "Name", claim.AccountName, "Since", since)
	return vm
}

func sameHelsinkiDay(a, b time.Time) bool {
	return schedule.HelsinkiDate(a) == schedule.HelsinkiDate(b)
}

// claimPanelVM is the registration page's claim panel.
func (s *Server) claimPanelVM(r *http.Request, id string, c store.ClaimColumns, now time.Time) *views.ClaimPanelVM {
	loc := i18n.From(r.Context())
	p := &views.ClaimPanelVM{Claim: s.claimVM(r, c, now), ClaimURL: "/registrations/" + id + "/claim", ClaimLabel: loc.T("claim.button")}
	if p.Claim.Set && !p.Claim.Mine {
		p.ClaimLabel = loc.T("claim.takeOver")
	}
	if p.Claim.Mine {
		p.ReleaseURL = "/registrations/" + id + "/release"
	}
	return p
}

// waitingSince is when a row that needs a person began to: the first moment it needed one since it
// was last settled, which the ledger keeps (store.ScheduleColumns.NeedsPersonSince). A row written
// before anything stamped it falls back to the entry into its state, the old measure, rather than
// losing its badge.
func waitingSince(row store.ScheduleColumns) time.Time {
	if row.NeedsPersonSince != nil {
		return *row.NeedsPersonSince
	}
	return row.StateChangedAt
}

// waitingVM draws how long a row that needs a person has waited, marked past the target.
func (s *Server) waitingVM(loc *i18n.Localizer, st schedule.Status, row store.ScheduleColumns, now time.Time) views.WaitingVM {
	if !st.NeedsAdmin {
		return views.WaitingVM{}
	}
	since := waitingSince(row)
	// "waiting for 4 min": how long, not when; past a week, since which day.
	label := loc.T("claim.waiting", "Span", loc.Span(now.Sub(since)))
	if now.Sub(since) >= i18n.DatedAfter {
		label = loc.T("claim.waitingSince", "Day", loc.Day(since, now))
	}
	return views.WaitingVM{
		Label:   label,
		Since:   loc.When(&since, now),
		Overdue: schedule.PastWaitingTarget(since, now, s.waitingTarget),
		Target:  loc.T("claim.waitingTarget", "Since", loc.Abs(since, now), "Count", int64(s.waitingTarget)),
	}
}
