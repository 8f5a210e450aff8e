package web

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is a long bulk apply's progress. A bulk action of more than BulkInlineRows rows runs in
// the background (still one transaction, as every bulk action is), and the person is sent to
// /bulk/jobs/{id}, which shows how many rows have been gone through and then the result. With
// htmx the page polls a small fragment; without JavaScript it reloads itself. The jobs live in
// this process's memory: a server with several instances needs sticky sessions for the page to
// find its job, and a restart forgets the page (the action itself is committed or not at all, and
// the audit has it either way).

// DefaultBulkInlineRows is how many rows a bulk apply may hold and still answer with its result at
// once: a few seconds at most, under which a progress page would only flicker.
const DefaultBulkInlineRows = 50

// bulkJobKeep is how long a finished job's result stays reachable at its address.
const bulkJobKeep = 30 * time.Minute

// bulkJob is one background bulk apply.
type bulkJob struct {
	id      string
	owner   string // the account that applied; nobody else sees the job
	action  schedule.Action
	reason  string
	total   int
	done    atomic.Int64
	started time.Time

	mu       sync.Mutex
	finished bool
	endedAt  time.Time
	res      store.BulkResult
	err      error
}

func (j *bulkJob) progress(done, total int) { j.done.Store(int64(done)) }

func (j *bulkJob) finish(res store.BulkResult, err error, at time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.finished, j.res, j.err, j.endedAt = true, res, err, at
}

// outcome is the job's end, if it has one.
func (j *bulkJob) outcome() (finished bool, res store.BulkResult, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.finished, j.res, j.err
}

// bulkJobs holds the jobs of this process.
type bulkJobs struct {
	mu   sync.Mutex
	jobs map[string]*bulkJob
}

func (b *bulkJobs) add(j *bulkJob, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.jobs == nil {
		b.jobs = map[string]*bulkJob{}
	}
	for id, old := range b.jobs {
		if f, _, _ := old.outcome(); f && now.Sub(old.endedAt) > bulkJobKeep {
			delete(b.jobs, id)
		}
	}
	b.jobs[j.id] = j
}

func (b *bulkJobs) get(id string) *bulkJob {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.jobs[id]
}

// bulkApplyInBackground starts the apply of p and sends the person to its progress page. The work
// outlives the request (a person closing the tab does not undo their action half-way; it is one
// transaction anyway), and Close waits for it.
func (s *Server) bulkApplyInBackground(w http.ResponseWriter, r *http.Request, p store.BulkApplyParams, now time.Time) error {
	j := &bulkJob{id: store.NewID(), owner: p.Actor.ID, action: p.Action, reason: p.Reason, total: len(p.Rows), started: now}
	p.Progress = j.progress
	s.jobs.add(j, now)
	ctx := context.WithoutCancel(r.Context())
	s.background.Go(func() {
		res, err := s.store.RegistrationBulkApply(ctx, now, p)
		if err != nil {
			s.log.ErrorContext(ctx, "bulk apply failed", "err", err, "job", j.id, "request_id", requestIDFrom(ctx))
		}
		j.finish(res, err, s.clock())
	})
	redirect(w, r, "/bulk/jobs/"+j.id)
	return nil
}

// bulkJobShow is a background bulk apply: its progress while it runs, its result once done.
// GET /bulk/jobs/{id}. htmx's poll gets the progress fragment, or a redirect to the page once the
// job is done. Only the person who applied sees it; anyone else, or a job this process does not
// know (long finished, or before a restart), is 404.
func (s *Server) bulkJobShow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	j := s.jobs.get(id)
	actor := actorFrom(r.Context())
	if j == nil || actor == nil || j.owner != actor.ID {
		return errNotFound
	}
	finished, res, err := j.outcome()
	now := s.clock()
	if finished {
		if wantsFragment(r) {
			redirect(w, r, "/bulk/jobs/"+id)
			return nil
		}
		if err != nil {
			return err
		}
		vm, err := s.bulkResultVM(r, j.action, j.reason, res, now)
		if err != nil {
			return err
		}
		return s.render(w, r, http.StatusOK, views.BulkResultPage(vm), nil)
	}
	loc := i18n.From(r.Context())
	done := int(j.done.Load())
	vm := views.BulkProgressVM{
		Page:        s.page(r, loc.T("bulk.progress.title", "Action", loc.Code("action", string(j.action)))),
		ActionLabel: loc.Code("action", string(j.action)),
		Done:        strconv.Itoa(done),
		Total:       strconv.Itoa(j.total),
		Words:       loc.T("bulk.progress.words", "Done", int64(done), "Count", int64(j.total)),
		PollURL:     "/bulk/jobs/" + id,
	}
	vm.Page.Refresh = "2"
	return s.render(w, r, http.StatusOK, views.BulkProgressPage(vm), views.BulkProgress(vm))
}
