package web

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is a long export's progress. An export a person asks for (not the API's) of more rows
// than exportInlineRows is not streamed to the browser, whose downloads cannot say how far a file
// of unknown length has got: it is written to a file on this server, row by row as the database
// sends them (never the list in memory), by the same code, scope and cap as a streamed one, while
// the person watches /exports/{id} count the rows written of the total (htmx polls it; without
// JavaScript it reloads itself). Then the page offers the file. Only the person who asked sees the
// job; it and its file live in this process for exportJobKeep after the end, so behind several
// instances the page needs sticky sessions, and after a restart the export is asked for again.

// DefaultExportInlineRows is how many rows an export may hold and still stream straight to the
// browser: a few seconds' download at most.
const DefaultExportInlineRows = 10_000

// exportJobKeep is how long a finished export's file stays to be downloaded.
const exportJobKeep = 30 * time.Minute

// exportJob is one export written in the background.
type exportJob struct {
	id, owner string
	path      string // the file
	total     atomic.Int64
	written   atomic.Int64

	mu       sync.Mutex
	finished bool
	endedAt  time.Time
	err      error
	header   http.Header // the answer's headers, to serve the file with
	head     store.ExportHead
}

func (j *exportJob) finish(h http.Header, head store.ExportHead, err error, at time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.finished, j.header, j.head, j.err, j.endedAt = true, h, head, err, at
}

func (j *exportJob) outcome() (finished bool, h http.Header, head store.ExportHead, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.finished, j.header, j.head, j.err
}

// exportJobs holds the export jobs of this process.
type exportJobs struct {
	mu   sync.Mutex
	jobs map[string]*exportJob
}

// add keeps j, and forgets (deleting their files) the jobs finished more than exportJobKeep ago.
func (b *exportJobs) add(j *exportJob, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.jobs == nil {
		b.jobs = map[string]*exportJob{}
	}
	for id, old := range b.jobs {
		old.mu.Lock()
		expired := old.finished && now.Sub(old.endedAt) > exportJobKeep
		old.mu.Unlock()
		if expired {
			_ = os.Remove(old.path)
			delete(b.jobs, id)
		}
	}
	b.jobs[j.id] = j
}

func (b *exportJobs) get(id string) *exportJob {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.jobs[id]
}

// removeAll deletes every job's file; the server is closing, after its background work ended.
func (b *exportJobs) removeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, j := range b.jobs {
		_ = os.Remove(j.path)
		delete(b.jobs, id)
	}
}

// fileAnswer is an export's answer written to a file: its headers are kept to serve the file with.
type fileAnswer struct {
	f *os.File
	h http.Header
}

func (a *fileAnswer) Header() http.Header         { return a.h }
func (a *fileAnswer) Write(p []byte) (int, error) { return a.f.Write(p) }
func (a *fileAnswer) WriteHeader(int)             {}

// exportInBackground writes the export of write to a file in the background and sends the person
// to its progress page. The work holds one of the exports' slots, as a streamed export does, and
// has an export's time; Close waits for it.
func (s *Server) exportInBackground(w http.ResponseWriter, r *http.Request, name string, columns []exportColumn, write func(e *export) error) error {
	actor := actorFrom(r.Context())
	if actor == nil {
		return errNotFound
	}
	f, err := os.CreateTemp(s.exportDir, "regdesk-export-*")
	if err != nil {
		return err
	}
	j := &exportJob{id: store.NewID(), owner: actor.ID, path: f.Name()}
	s.exportJobs.add(j, s.clock())
	base := r.WithContext(context.WithoutCancel(r.Context()))
	s.background.Go(func() {
		s.exports.slots <- struct{}{}
		defer func() { <-s.exports.slots }()
		ctx, cancel := context.WithTimeout(base.Context(), exportTimeout)
		defer cancel()
		ans := &fileAnswer{f: f, h: http.Header{}}
		e := s.newExport(ans, base.WithContext(ctx), name, columns)
		var head store.ExportHead
		e.onHead = func(h store.ExportHead) { head = h; j.total.Store(int64(h.Rows)) }
		e.progress = func(n int) { j.written.Store(int64(n)) }
		err := write(e)
		if err == nil && e.started {
			err = e.enc.end()
		}
		err = errors.Join(err, f.Close())
		if err != nil {
			s.log.ErrorContext(ctx, "export job failed", "export", name, "err", err, "job", j.id, "request_id", requestIDFrom(ctx))
			_ = os.Remove(j.path)
		}
		j.finish(ans.h, head, err, s.clock())
	})
	redirect(w, r, "/exports/"+j.id)
	return nil
}

// exportJobFor is the job id of the person asking, or errNotFound.
func (s *Server) exportJobFor(r *http.Request) (*exportJob, error) {
	id, err := pathID(r)
	if err != nil {
		return nil, err
	}
	j := s.exportJobs.get(id)
	actor := actorFrom(r.Context())
	if j == nil || actor == nil || j.owner != actor.ID {
		return nil, errNotFound
	}
	return j, nil
}

// exportJobShow is a long export: the rows written of the total while it runs, then the file to
// download (or that it failed). GET /exports/{id}; htmx's poll gets the progress fragment, or a
// redirect to the page once the job is done. Only the person who asked sees it; anyone else, or a
// job this process does not know (long finished, or before a restart), is 404.
func (s *Server) exportJobShow(w http.ResponseWriter, r *http.Request) error {
	j, err := s.exportJobFor(r)
	if err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	finished, _, head, jobErr := j.outcome()
	vm := views.ExportJobVM{Page: s.page(r, loc.T("export.job.title")), PollURL: "/exports/" + j.id}
	if finished {
		if wantsFragment(r) {
			redirect(w, r, vm.PollURL)
			return nil
		}
		if jobErr != nil {
			vm.Failed = loc.T("export.job.failed")
		} else {
			vm.Ready = loc.T("export.job.ready", "Count", int64(head.Rows))
			vm.FileURL = "/exports/" + j.id + "/file"
			if head.Truncated {
				vm.Truncated = loc.T("export.job.truncated", "Limit", views.Count(int64(s.exportLimit)))
			}
		}
		return s.render(w, r, http.StatusOK, views.ExportJobPage(vm), nil)
	}
	done, total := j.written.Load(), j.total.Load()
	vm.Done, vm.Total = strconv.FormatInt(done, 10), strconv.FormatInt(total, 10)
	vm.Words = loc.T("export.job.words", "Done", done, "Count", total)
	vm.Page.Refresh = "2"
	return s.render(w, r, http.StatusOK, views.ExportJobPage(vm), views.ExportJobProgress(vm))
}

// exportJobFile is a finished long export's file, with the headers a streamed one has: GET
// /exports/{id}/file. Only for the person who asked; a job not finished, failed or forgotten is 404.
func (s *Server) exportJobFile(w http.ResponseWriter, r *http.Request) error {
	j, err := s.exportJobFor(r)
	if err != nil {
		return err
	}
	finished, h, _, jobErr := j.outcome()
	if !finished || jobErr != nil {
		return errNotFound
	}
	f, err := os.Open(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	for k, v := range h {
		w.Header()[k] = v
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(exportTimeout))
	http.ServeContent(w, r, "", st.ModTime(), f)
	return nil
}
