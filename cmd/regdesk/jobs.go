package main

import (
	"log/slog"
	"time"

	"regdesk/alerting"
	"regdesk/maintenance"
	"regdesk/store"
)

// backgroundJobs is every job a server runs outside requests (package maintenance), listed in
// this one place: what each does, how often, and how it keeps to one instance or why it need not
// is in its file. standIns are make run's stand-ins for the LMS's own processes (demo.go), which a
// server beside the real LMS never runs.
//
// One kind of work a request starts runs beside the request instead, in package web: a long
// export (written to regdesk's own folder, lost in a restart, whose page then says so). It is the
// one exception: a person waits for their file, and a file on one instance's disk cannot move to
// another.
func backgroundJobs(st *store.Store, alerts *alerting.Service, bulk *maintenance.BulkApply, cfg config, now func() time.Time, log *slog.Logger, standIns []maintenance.Job) []maintenance.Job {
	jobs := []maintenance.Job{
		// The bulk applies requests queued, each claimed with SKIP LOCKED by any instance; the
		// request that queued one wakes this instance's (web.Deps.BulkQueued).
		bulk,
		// regdesk's copies of the LMS's ledger and students' search columns, which the lists read.
		&maintenance.LedgerMirror{Store: st, Log: log},
		// The alert rules, evaluated on one instance at a time; their mails go to the outbox.
		&maintenance.Alerts{Service: alerts, Every: cfg.AlertInterval},
		// The outbox, sent by any instance, each mail claimed with SKIP LOCKED.
		&maintenance.Mail{Service: alerts},
		// The overview's history: the day's snapshot, the modules' weeks, the registered days.
		&maintenance.Rollups{Store: st, Log: log, Now: now},
		// Expired sessions.
		&maintenance.Sessions{Store: st},
	}
	return append(jobs, standIns...)
}
