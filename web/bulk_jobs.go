package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is a long bulk apply's progress. A bulk action of more than BulkInlineRows rows runs in
// the background (still one transaction, as every bulk action is), and the person is sent to
// /bulk/jobs/{id}, which shows how many rows have been gone through and then the result. With
// htmx the page polls a small fragment; without JavaScript it reloads itself. The job is kept in
// the database (store/bulk_job.go), so any instance shows its page and a restart does not lose
// it: the apply writes its result in its own transaction, and a job whose heartbeat stopped before
// that was cut short with none of its rows changed, which its page says.

// DefaultBulkInlineRows is how many rows a bulk apply may hold and still answer with its result at
// once: a few seconds at most, under which a progress page would only flicker.
const DefaultBulkInlineRows = 50

// bulkJobBeat is how often a running job records its progress and that it is alive.
const bulkJobBeat = time.Second

// bulkJobStale is how long a job may go without a heartbeat before its page calls it cut short: many
// beats, so a slow write or two does not make a live job read as stopped.
const bulkJobStale = 30 * time.Second

// bulkApplyInBackground starts the apply of p and sends the person to its progress page. The work
// outlives the request (a person closing the tab does not undo their action half-way; it is one
// transaction anyway), and Close waits for it.
func (s *Server) bulkApplyInBackground(w http.ResponseWriter, r *http.Request, p store.BulkApplyParams, now time.Time) error {
	id := store.NewID()
	if err := s.store.BulkJobCreate(r.Context(), store.BulkJob{ID: id, OwnerID: p.Actor.ID, Action: p.Action, Reason: p.Reason,
		Total: len(p.Rows), StartedAt: now}); err != nil {
		return err
	}
	var done atomic.Int64
	p.JobID = id
	ctx := context.WithoutCancel(r.Context())
	stop := make(chan struct{})
	s.background.Go(func() {
		// The heartbeat: the rows gone through, and that this process still works on the job.
		t := time.NewTicker(bulkJobBeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			n := done.Load()
			if err := s.store.BulkJobBeat(ctx, id, int(n), s.clock()); err != nil {
				s.log.WarnContext(ctx, "bulk job heartbeat", "err", err, "job", id)
			}
		}
	})
	s.background.Go(func() {
		defer close(stop)
		_, err := s.actions.ApplyBulk(ctx, now, p)
		if err != nil {
			s.log.ErrorContext(ctx, "bulk apply failed", "err", err, "job", id, "request_id", requestIDFrom(ctx))
			if err := s.store.BulkJobFail(ctx, id, s.clock()); err != nil {
				s.log.ErrorContext(ctx, "bulk job not marked failed", "err", err, "job", id)
			}
		}
	})
	redirect(w, r, "/bulk/jobs/"+id)
	return nil
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
	stopped := j.Outcome == "" && now.Sub(j.HeartbeatAt) > bulkJobStale
	if j.Outcome != "" || stopped {
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
		// Failed or cut short: the apply is one transaction, so none of its rows was changed.
		vm := views.BulkEndedVM{Page: s.page(r, loc.T("bulk.progress.title", "Action", label)), ActionLabel: label,
			Outcome: string(j.Outcome), QueueURL: "/"}
		if stopped {
			vm.Outcome = "interrupted"
			vm.Words = loc.T("bulk.job.interrupted", "Done", int64(j.Done), "Count", int64(j.Total))
		} else {
			vm.Words = loc.T("bulk.job.failed", "Count", int64(j.Total))
		}
		return s.render(w, r, http.StatusOK, views.BulkEndedPage(vm), nil)
	}
	vm := views.BulkProgressVM{
		Page:        s.page(r, loc.T("bulk.progress.title", "Action", label)),
		ActionLabel: label,
		Done:        strconv.Itoa(j.Done),
		Total:       strconv.Itoa(j.Total),
		Words:       loc.T("bulk.progress.words", "Done", int64(j.Done), "Count", int64(j.Total)),
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
		switch {
		case j.Outcome == store.BulkJobApplied:
			applied := 0
			if j.Applied != nil {
				applied = *j.Applied
			}
			row.Status, row.StatusLabel, row.Words = "applied", loc.T("bulk.jobs.status.applied"), loc.T("bulk.jobs.applied", "Applied", loc.Count(int64(applied)), "Count", int64(j.Total))
		case j.Outcome == store.BulkJobFailed:
			row.Status, row.StatusLabel, row.Words = "failed", loc.T("bulk.jobs.status.failed"), loc.T("bulk.jobs.nothingChanged")
		case now.Sub(j.HeartbeatAt) > bulkJobStale:
			// As the job's own page says: its heartbeat stopped before it wrote a result, so the
			// apply, one transaction, changed nothing.
			row.Status, row.StatusLabel, row.Words = "interrupted", loc.T("bulk.jobs.status.interrupted"), loc.T("bulk.jobs.nothingChanged")
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
