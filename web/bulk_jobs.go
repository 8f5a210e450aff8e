package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is a long bulk apply's progress. A bulk action of more than BulkInlineRows rows is
// queued as a job (store.BulkJobCreate) that any instance's maintenance.BulkApply claims and runs,
// and the person is sent to /bulk/jobs/{id}, which shows that it waits, that it runs, and then
// its result. With htmx the page polls a small fragment; without JavaScript it reloads itself. The
// job is kept in the database, so any instance shows its page and a restart does not lose it; a
// job whose instance stopped while it ran is ended as interrupted, never run twice.

// DefaultBulkInlineRows is how many rows a bulk apply may hold and still answer with its result at
// once: a few seconds at most, under which a progress page would only flicker.
const DefaultBulkInlineRows = 50

// bulkApplyInBackground queues the apply of p and sends the person to its progress page. The
// work is the job's, not the request's: a person closing the tab does not stop it.
func (s *Server) bulkApplyInBackground(w http.ResponseWriter, r *http.Request, p store.BulkApplyParams, now time.Time) error {
	id := store.NewID()
	if err := s.store.BulkJobCreate(r.Context(), id, p, now); err != nil {
		return err
	}
	if s.bulkQueued != nil {
		s.bulkQueued()
	}
	redirect(w, r, "/bulk/jobs/"+id)
	return nil
}

// bulkJobState is where a job stands at now: its outcome once it has one, interrupted when its
// instance stopped beating (which the next claim will write), waiting while no instance has
// taken it up, else running.
func bulkJobState(outcome store.BulkJobOutcome, claimedAt *time.Time, heartbeatAt, now time.Time) string {
	switch {
	case outcome != "":
		return string(outcome)
	case claimedAt == nil:
		return "waiting"
	case now.Sub(heartbeatAt) > store.BulkJobStale:
		return string(store.BulkJobInterrupted)
	}
	return "running"
}

// bulkJobShow is a background bulk apply: its progress while it runs, its result once done, and
// what became of it when it failed or was cut short. GET /bulk/jobs/{id}. htmx's poll gets the
// progress fragment, or a redirect to the page once the job has ended. Only the person who applied
// sees it; anyone else, or a job long gone, is 404.
func (s *Server) bulkJobShow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	actor := actorFrom(r.Context())
	if actor == nil {
		return errNotFound
	}
	j, err := s.store.BulkJobGet(r.Context(), id, actor.ID)
	if errors.Is(err, store.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	now := s.clock()
	loc := i18n.From(r.Context())
	label := loc.Code("action", string(j.Action))
	state := bulkJobState(j.Outcome, j.ClaimedAt, j.HeartbeatAt, now)
	if state != "waiting" && state != "running" {
		if wantsFragment(r) {
			redirect(w, r, "/bulk/jobs/"+id)
			return nil
		}
		if j.Outcome == store.BulkJobApplied && j.Result != nil {
			vm, err := s.bulkResultVM(r, j.Action, j.Reason, *j.Result, now)
			if err != nil {
				return err
			}
			return s.render(w, r, http.StatusOK, views.BulkResultPage(vm), nil)
		}
		vm := views.BulkEndedVM{Page: s.page(r, loc.T("bulk.progress.title", "Action", label)), ActionLabel: label,
			Outcome: state, QueueURL: "/", AuditURL: "/audit"}
		if state == string(store.BulkJobInterrupted) {
			// Its instance stopped while the LMS may have been asked: the audit's record of the
			// attempt, written before the LMS was asked, names the rows.
			vm.Words = loc.T("bulk.job.interrupted", "Count", int64(j.Total))
		} else {
			// The LMS refused the whole action or could not be reached: nothing was changed.
			vm.Words = loc.T("bulk.job.failed", "Count", int64(j.Total))
		}
		return s.render(w, r, http.StatusOK, views.BulkEndedPage(vm), nil)
	}
	words := loc.T("bulk.progress.words", "Done", int64(j.Done), "Count", int64(j.Total))
	if state == "waiting" {
		words = loc.T("bulk.job.waiting", "Count", int64(j.Total))
	}
	vm := views.BulkProgressVM{
		Page:        s.page(r, loc.T("bulk.progress.title", "Action", label)),
		ActionLabel: label,
		Done:        strconv.Itoa(j.Done),
		Total:       strconv.Itoa(j.Total),
		Words:       words,
		PollURL:     "/bulk/jobs/" + id,
	}
	vm.Page.Refresh = "2"
	return s.render(w, r, http.StatusOK, views.BulkProgressPage(vm), views.BulkProgress(vm))
}

// bulkJobsListed is how many jobs /bulk/jobs shows: a week of background applies is a handful.
const bulkJobsListed = 100

// bulkJobsShow lists the background bulk applies of the last week, everyone's, newest first: who
// started each, on how many rows, and what came of it (GET /bulk/jobs). Each person opens their
// own job's page from it. While a job runs the list refreshes itself: htmx polls the list alone,
// and without JavaScript the page reloads.
func (s *Server) bulkJobsShow(w http.ResponseWriter, r *http.Request) error {
	jobs, err := s.store.BulkJobList(r.Context(), bulkJobsListed)
	if err != nil {
		return err
	}
	now := s.clock()
	loc := i18n.From(r.Context())
	me := actorFrom(r.Context()).ID
	var list views.BulkJobsListVM
	for _, j := range jobs {
		row := views.BulkJobRowVM{ID: j.ID, Started: loc.When(&j.StartedAt, now), By: j.OwnerName, Mine: j.OwnerID == me,
			ActionLabel: loc.Code("action", string(j.Action)), Rows: loc.Count(int64(j.Total)), Reason: j.Reason,
			Done: strconv.Itoa(j.Done), Total: strconv.Itoa(j.Total)}
		if row.Mine {
			row.URL = "/bulk/jobs/" + j.ID
		}
		switch bulkJobState(j.Outcome, j.ClaimedAt, j.HeartbeatAt, now) {
		case string(store.BulkJobApplied):
			applied := 0
			if j.Applied != nil {
				applied = *j.Applied
			}
			row.Status, row.StatusLabel, row.Words = "applied", loc.T("bulk.jobs.status.applied"), loc.T("bulk.jobs.applied", "Applied", loc.Count(int64(applied)), "Count", int64(j.Total))
		case string(store.BulkJobFailed):
			row.Status, row.StatusLabel, row.Words = "failed", loc.T("bulk.jobs.status.failed"), loc.T("bulk.jobs.nothingChanged")
		case string(store.BulkJobInterrupted):
			// As the job's own page says: it stopped part-way, and the audit names what was asked.
			row.Status, row.StatusLabel, row.Words = "interrupted", loc.T("bulk.jobs.status.interrupted"), loc.T("bulk.jobs.interrupted")
		case "waiting":
			row.Status, row.StatusLabel, row.Words = "waiting", loc.T("bulk.jobs.status.waiting"), loc.T("bulk.job.waiting", "Count", int64(j.Total))
			list.PollURL = "/bulk/jobs"
		default:
			row.Status, row.StatusLabel, row.Words = "running", loc.T("bulk.jobs.status.running"), loc.T("bulk.progress.words", "Done", int64(j.Done), "Count", int64(j.Total))
			list.PollURL = "/bulk/jobs"
		}
		list.Jobs = append(list.Jobs, row)
	}
	vm := views.BulkJobsVM{Page: s.page(r, loc.T("bulk.jobs.title")), List: list}
	if list.PollURL != "" {
		vm.Page.Refresh = "5"
	}
	return s.render(w, r, http.StatusOK, views.BulkJobsPage(vm), views.BulkJobsList(list))
}
