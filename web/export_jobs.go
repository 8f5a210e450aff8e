package web

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
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
// job; it and its file live in this process for exportJobKeep after the end, in the instance's
// folder (export_dir.go), so behind several instances the page needs sticky sessions, and after a
// restart the export is asked for again (its page says so).

// DefaultExportInlineRows is how many rows an export may hold and still stream straight to the
// browser: a few seconds' download at most.
const DefaultExportInlineRows = 10_000

// exportJobKeep is how long a finished export's file stays to be downloaded.
const exportJobKeep = 30 * time.Minute

// ExportsPerPerson is how many long exports one person may hold on an instance at once, written
// or being written: each file is megabytes of names and student numbers. A person asking for
// another makes room by dropping their oldest finished one; with that many still being written,
// they are asked to wait.
const ExportsPerPerson = 3

// exportsKey is the session value listing the person's latest long exports as "id@instance", so
// that after a restart the page of an export this instance never knew can say what became of it
// instead of "not found".
const exportsKey = "exports"

// exportsRemembered bounds that list.
const exportsRemembered = 10

// exportJob is one export written in the background.
type exportJob struct {
	id, owner string
	path      string // the file
	seq       uint64 // the order it was asked for in, among this process's jobs
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
	// asked numbers the jobs in the order they were asked for (exportJob.seq).
	asked uint64
}

// errExportsRunning refuses a long export to a person whose ExportsPerPerson exports are all
// still being written.
var errExportsRunning = &Error{Status: http.StatusTooManyRequests, Key: "export.job.tooMany", Args: []any{"Max", ExportsPerPerson}}

// add keeps j, and forgets (deleting their files) the jobs finished more than exportJobKeep ago.
// When j's owner already holds perPerson jobs, their oldest finished one is forgotten to make
// room; when none of them has finished, j is refused (errExportsRunning).
func (b *exportJobs) add(j *exportJob, now time.Time, perPerson int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.jobs == nil {
		b.jobs = map[string]*exportJob{}
	}
	held := 0
	var oldest *exportJob
	for id, old := range b.jobs {
		old.mu.Lock()
		finished, ended := old.finished, old.endedAt
		old.mu.Unlock()
		if finished && now.Sub(ended) > exportJobKeep {
			_ = os.Remove(old.path)
			delete(b.jobs, id)
			continue
		}
		if old.owner != j.owner {
			continue
		}
		held++
		if finished && (oldest == nil || old.seq < oldest.seq) {
			oldest = old
		}
	}
	if held >= perPerson {
		if oldest == nil {
			return errExportsRunning
		}
		_ = os.Remove(oldest.path)
		delete(b.jobs, oldest.id)
	}
	b.asked++
	j.seq = b.asked
	b.jobs[j.id] = j
	return nil
}

// forget drops j without a trace, as if it had never been added.
func (b *exportJobs) forget(j *exportJob) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.jobs, j.id)
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
	if s.exportFolder == nil {
		return errors.New("long exports: no folder to write them in (see the log at start)")
	}
	j := &exportJob{id: store.NewID(), owner: actor.ID}
	if err := s.exportJobs.add(j, s.clock(), ExportsPerPerson); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.exportFolder.dir, "export-*")
	if err != nil {
		s.exportJobs.forget(j)
		return err
	}
	j.path = f.Name()
	s.rememberExport(r, j.id)
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

// rememberExport adds the job id to the person's list of long exports (exportsKey), with this
// instance's name.
func (s *Server) rememberExport(r *http.Request, id string) {
	list := strings.Fields(s.sessions.GetString(r.Context(), exportsKey))
	list = append(list, id+"@"+s.instance)
	s.sessions.Put(r.Context(), exportsKey, strings.Join(list[max(len(list)-exportsRemembered, 0):], " "))
}

// exportGone is what became of one of the person's exports this instance does not hold: the
// catalogue key of the words saying so, and their arguments; "" for an id the person never had.
func (s *Server) exportGone(r *http.Request, id string) (string, []any) {
	for _, e := range strings.Fields(s.sessions.GetString(r.Context(), exportsKey)) {
		jobID, instance, _ := strings.Cut(e, "@")
		if jobID != id {
			continue
		}
		if instance != s.instance {
			// Made by a process before this one: its file was swept when this one started.
			return "export.job.lost", nil
		}
		return "export.job.gone", []any{"Minutes", int(exportJobKeep.Minutes()), "Max", ExportsPerPerson}
	}
	return "", nil
}

// exportJobFor is the job id of the person asking, or errNotFound; or, for one of theirs this
// instance no longer holds, a 410 whose words say what became of it (exportGone).
func (s *Server) exportJobFor(r *http.Request) (*exportJob, error) {
	id, err := pathID(r)
	if err != nil {
		return nil, err
	}
	j := s.exportJobs.get(id)
	actor := actorFrom(r.Context())
	if actor == nil || j != nil && j.owner != actor.ID {
		return nil, errNotFound
	}
	if j == nil {
		if key, args := s.exportGone(r, id); key != "" {
			return nil, &Error{Status: http.StatusGone, Key: key, Args: args}
		}
		return nil, errNotFound
	}
	return j, nil
}

// exportJobShow is a long export: the rows written of the total while it runs, then the file to
// download (or that it failed). GET /exports/{id}; htmx's poll gets the progress fragment, or a
// redirect to the page once the job is done. Only the person who asked sees it; anyone else is
// 404. One of theirs this process no longer holds (made before a restart, or dropped after its
// time or for a newer one) is a 410 saying which, and to ask again.
func (s *Server) exportJobShow(w http.ResponseWriter, r *http.Request) error {
	j, err := s.exportJobFor(r)
	loc := i18n.From(r.Context())
	if e, ok := errors.AsType[*Error](err); ok && e.Status == http.StatusGone {
		// The page says what became of the export where its progress was; the poll is sent there.
		if wantsFragment(r) {
			redirect(w, r, r.URL.Path)
			return nil
		}
		vm := views.ExportJobVM{Page: s.page(r, loc.T("export.job.title")), Failed: e.text(r.Context())}
		return s.render(w, r, http.StatusGone, views.ExportJobPage(vm), nil)
	}
	if err != nil {
		return err
	}
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
