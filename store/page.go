package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file holds the reads of whole pages: each page's handler makes one store call, and the
// data it shows comes from one snapshot of the database, so what a page shows and what its forms
// carry (a row's version, the lookup an action rests on) can never come from two moments.

// RegistrationPage is everything a registration's page shows, read at one instant: the row with
// its preconditions, its history, the other attempts at its completion, its newest Sisu lookup,
// and every hand action's decision on it.
type RegistrationPage struct {
	Registration
	PreconditionColumns
	// Events are the row's history, newest first.
	Events []Event
	// Attempts are every attempt at the row's completion, this one included, oldest first.
	Attempts []RegistrationAttempt
	// Lookup is the newest Sisu lookup, which the decisions rest on; nil when there is none.
	Lookup *LookupSummary
	// Decisions has one entry per schedule.Actions(), in that order, decided one row at a time
	// (schedule.StrictnessAny) at the instant the page was read for.
	Decisions []schedule.Decision
	// Advice is what the newest lookup means for the row at that instant: its badge and the
	// resubmit decision the verdict region words, the same one Decisions holds.
	Advice schedule.Advice
}

// LookupID is the newest lookup's event id, "" when there is none: what the page's action forms
// carry, so an action is refused when a newer lookup has been made since.
func (p RegistrationPage) LookupID() string {
	if p.Lookup == nil {
		return ""
	}
	return p.Lookup.EventID
}

// registrationPageRow is the page read's one result row; the lists come as JSON arrays.
type registrationPageRow struct {
	Registration
	PreconditionColumns
	Events   []Event               `db:"events"`
	Attempts []RegistrationAttempt `db:"attempts"`
	// LookupMatchID and LookupVerifyID are the attainment ids the newest lookup names as its match
	// and as the verify answer's; Holders are the other live rows holding either as their Sisu
	// attainment.
	LookupMatchID  *string       `db:"lookup_match_id"`
	LookupVerifyID *string       `db:"lookup_verify_id"`
	Holders        []matchHolder `db:"holders"`
}

// matchHolder is a live row holding an attainment as its Sisu attainment.
type matchHolder struct {
	AttainmentID string `db:"attainment_id" json:"attainment_id"`
	RowID        string `db:"id" json:"id"`
}

// registrationPageSQL reads a registration's page in one statement, so in one snapshot. The
// history and the attempts are aggregated as JSON beside the row; so are the rows already holding
// the newest lookup's match (rules: an attainment backs one row only), looked up by the two ids a
// LookupRecord names a match by (the verdict's match_id, the verify answer's attainment_id).
func registrationPageSQL(linkingSince *time.Time) string {
	return `SELECT ` + registrationColumnsAt("$3") + `,
  ` + preconditionColumns + `,
  (SELECT coalesce(json_agg(ev ORDER BY ev.created_at DESC, ev.id DESC), '[]'::json) FROM (` + historySQL("cr.id") + `) ev) AS events,
  (SELECT coalesce(json_agg(att ORDER BY att.attempt_number, att.created_at), '[]'::json) FROM (SELECT ` + attemptColumns + `
    FROM credit_registrations cr2
    WHERE cr2.course_module_completion_id = cr.course_module_completion_id AND cr2.deleted_at IS NULL) att) AS attempts,
  lk.match_id AS lookup_match_id, lk.verify_id AS lookup_verify_id,
  (SELECT coalesce(json_agg(json_build_object('attainment_id', h.sisu_attainment_id, 'id', h.id::text) ORDER BY h.id), '[]'::json)
    FROM credit_registrations h
    WHERE h.sisu_attainment_id IN (lk.match_id, lk.verify_id) AND h.deleted_at IS NULL AND h.id <> cr.id) AS holders
FROM ` + strings.Replace(listFrom, `ledger_mirror cr`, liveLedger(linkingSince), 1) + `
  LEFT JOIN user_details da ON da.user_id = d.dismissed_by_user_id
  JOIN credit_registration_preconditions p ON p.credit_registration_id = cr.id
  LEFT JOIN LATERAL (SELECT l.details->'verdict'->>'match_id' AS match_id, l.details->'verify_call'->>'attainment_id' AS verify_id
    FROM lookups l
    WHERE l.credit_registration_id = cr.id
    ORDER BY l.created_at DESC, l.id DESC LIMIT 1) lk ON true
WHERE cr.id = $1 AND ` + liveSQL + ` AND ` + sqlInScope(2)
}

// RegistrationPageGet reads the registration's page and decides every hand action on it at now,
// in one statement. A registration that does not exist, or lies outside scope, is
// ErrNotFound: a teacher asking for another course's row learns nothing.
func (q *Queries) RegistrationPageGet(ctx context.Context, now time.Time, id string, scope Scope) (RegistrationPage, error) {
	op := fmt.Sprintf("RegistrationPageGet %s", id)
	if !IsUUID(id) {
		return RegistrationPage{}, fmt.Errorf("RegistrationPageGet %q: %w", id, ErrNotFound)
	}
	rows, _ := q.db.Query(ctx, registrationPageSQL(q.linkingSince), id, scope.arg(), now)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[registrationPageRow])
	if err != nil {
		return RegistrationPage{}, dbError(op, err)
	}
	page := RegistrationPage{Registration: r.Registration, PreconditionColumns: r.PreconditionColumns, Events: r.Events, Attempts: r.Attempts}
	for i := range page.Events {
		if string(page.Events[i].Details) == "null" {
			page.Events[i].Details = nil // as a NULL column scans
		}
	}
	if i := slices.IndexFunc(page.Events, func(e Event) bool { return e.Kind == KindLookup }); i >= 0 {
		e := page.Events[i]
		page.Lookup = &LookupSummary{EventID: e.ID, At: e.CreatedAt, ActorName: Deref(e.ActorName), LookupDetails: ParseLookupDetails(e.Details)}
	}
	holders := r.Holders
	if m := page.Lookup.matchID(); m != "" && m != Deref(r.LookupMatchID) && m != Deref(r.LookupVerifyID) {
		// The rules read a match the SQL did not see by those two keys (a record whose keys differ
		// in case, say): ask for its holders by the id the rules read.
		if holders, err = q.matchHolders(ctx, []string{m}); err != nil {
			return RegistrationPage{}, fmt.Errorf("%s: %w", op, err)
		}
	}
	facts := schedule.Facts{
		Row:                   page.ScheduleRow(),
		SubmittedAttainmentID: Deref(page.SubmittedAttempt),
		Lookup:                page.Lookup.ScheduleLookup(),
		MatchLinkedTo:         linkedTo(holders, page.Lookup.matchID(), page.ID),
	}
	page.Decisions = schedule.DecideAll(facts, schedule.StrictnessAny, now)
	page.Advice = schedule.Advise(facts, now)
	return page, nil
}

// matchHolders returns the live rows holding any of the attainments as their Sisu attainment, in
// id order.
func (q *Queries) matchHolders(ctx context.Context, attainmentIDs []string) ([]matchHolder, error) {
	rows, _ := q.db.Query(ctx, `SELECT cr.sisu_attainment_id AS attainment_id, cr.id::text AS id FROM credit_registrations cr
WHERE cr.sisu_attainment_id = ANY($1::text[]) AND `+liveSQL+` ORDER BY cr.id`, attainmentIDs)
	holders, err := pgx.CollectRows(rows, pgx.RowToStructByName[matchHolder])
	if err != nil {
		return nil, dbError("matchHolders", err)
	}
	return holders, nil
}

// linkedTo is the row other than rowID that holds the lookup's match, "" when none does.
func linkedTo(holders []matchHolder, matchID, rowID string) string {
	if matchID == "" {
		return ""
	}
	for _, h := range holders {
		if h.AttainmentID == matchID && h.RowID != rowID {
			return h.RowID
		}
	}
	return ""
}

// StudentPage is everything a student's page shows, read in one snapshot.
type StudentPage struct {
	Student
	// Registrations are the student's live registrations in scope, superseded attempts too,
	// newest first.
	Registrations []RegistrationOverview
	// Changes are what happened to each registration after the alert time asked for, oldest first,
	// by registration id; nil when none was asked for.
	Changes map[string][]RegistrationChange
}

// StudentPageGet reads a student's page in one read-only transaction: the student, their
// registrations in scope and, when since is not nil, what happened to each after it. A student
// who does not exist, or has no registration in scope, is ErrNotFound.
func (s *Store) StudentPageGet(ctx context.Context, now time.Time, id string, scope Scope, since *time.Time) (StudentPage, error) {
	var page StudentPage
	err := s.InReadTx(ctx, func(q *Queries) error {
		var err error
		if page.Student, err = q.StudentGet(ctx, id, scope); err != nil {
			return err
		}
		if page.Registrations, err = q.RegistrationListByStudent(ctx, now, id, scope); err != nil {
			return err
		}
		if since != nil {
			ids := make([]string, len(page.Registrations))
			for i, r := range page.Registrations {
				ids[i] = r.ID
			}
			page.Changes, err = q.eventListSince(ctx, ids, *since)
		}
		return err
	})
	if err != nil {
		return StudentPage{}, err
	}
	return page, nil
}

// CoursePageParams selects a course page: its registrations up to Limit and, when Since is not
// nil, the ChangedLimit registrations that changed most recently after it.
type CoursePageParams struct {
	ID    string
	Scope Scope
	Limit int
	// Now is the instant the page is read at: its rows' blocking problems are judged at it.
	Now   time.Time
	Since *time.Time
	// ChangedLimit bounds CoursePage.ChangedIDs.
	ChangedLimit int
}

// CoursePage is everything a course's page shows, read in one snapshot.
type CoursePage struct {
	Course
	// Counts counts all the course's live, unsuperseded registrations per student-facing status.
	Counts map[schedule.StudentStatus]int64
	// Registrations are up to Limit of them, in the order RegistrationListByCourse gives.
	Registrations []RegistrationOverview
	// ChangedIDs are, when Since was asked for, the registrations with a change worth a mention
	// after it, most recent first (RegistrationListChangedSince); Changes holds what happened to
	// those of them among Registrations, by registration id.
	ChangedIDs []string
	Changes    map[string][]RegistrationChange
}

// CoursePageGet reads a course's page in one snapshot. A course that does not exist, or is not
// in scope, is ErrNotFound. The counts are read beside the list, on a second
// connection when the pool has one to spare (inOneSnapshot): for the largest course of the
// million-row ledger they take 6 ms and the list of 500 about 11, one after the other the page's
// 17.
func (s *Store) CoursePageGet(ctx context.Context, p CoursePageParams) (CoursePage, error) {
	var page CoursePage
	list := func(ctx context.Context, q *Queries) error {
		var err error
		if page.Course, err = q.CourseGet(ctx, p.ID, p.Scope); err != nil {
			return err
		}
		// The list's statement joins the preconditions view, which takes 25 to 50 ms to plan and
		// 10 to 20 to run for the largest course; PostgreSQL kept planning it for every execution
		// (the generic plan's estimate never beat the custom one's), though both plans are the
		// same range scan of the course's rank index. Its generic plan is used, for this statement
		// only: the rest of the transaction plans as usual.
		if _, err = q.db.Exec(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
			return dbError("CoursePageGet generic plan", err)
		}
		if page.Registrations, err = q.RegistrationListByCourse(ctx, p.Now, p.ID, p.Scope, p.Limit); err != nil {
			return err
		}
		if _, err = q.db.Exec(ctx, `SET LOCAL plan_cache_mode = auto`); err != nil {
			return dbError("CoursePageGet plans", err)
		}
		if p.Since == nil {
			return nil
		}
		if page.ChangedIDs, err = q.RegistrationListChangedSince(ctx, p.ID, *p.Since, p.Scope, p.ChangedLimit); err != nil {
			return err
		}
		listed := map[string]bool{}
		for _, r := range page.Registrations {
			listed[r.ID] = true
		}
		var ids []string
		for _, id := range page.ChangedIDs {
			if listed[id] {
				ids = append(ids, id)
			}
		}
		page.Changes, err = q.eventListSince(ctx, ids, *p.Since)
		return err
	}
	counts := func(ctx context.Context, q *Queries) error {
		var err error
		page.Counts, err = q.RegistrationCountsByStudentStatus(ctx, p.ID, p.Scope)
		return err
	}
	if err := s.inOneSnapshot(ctx, []func(context.Context, *Queries) error{list, counts}); err != nil {
		// A course that is not there is ErrNotFound alone, not joined with the counts' outcome.
		if errors.Is(err, ErrNotFound) {
			return CoursePage{}, ErrNotFound
		}
		return CoursePage{}, err
	}
	return page, nil
}
