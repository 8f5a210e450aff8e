package main

import (
	"log/slog"

	"regdesk/maintenance"
	"regdesk/store"
)

// backgroundJobs is every job a server runs outside requests (package maintenance), listed in
// this one place: what each does, how often, and how it keeps to one instance is in its file.
// standIns are make run's stand-ins for the LMS's own processes (demo.go), which a server beside
// the real LMS never runs.
func backgroundJobs(st *store.Store, log *slog.Logger, standIns []maintenance.Job) []maintenance.Job {
	jobs := []maintenance.Job{
		// regdesk's copy of the LMS's ledger, which the lists read.
		&maintenance.LedgerMirror{Store: st, Log: log},
	}
	return append(jobs, standIns...)
}
