package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file keeps ledger_mirror, regdesk's copy of the LMS's credit_registrations (migration
// 0005 says why there is one). The LMS's set_timestamp trigger stamps updated_at = now() on every
// write, so the copy follows updated_at: each refresh compares the rows written since the newest
// one it copied, less MirrorLookback, and copies those whose updated_at differs from the copy's.
//
// now() is the writing transaction's start, so a write committed after a refresh may carry an
// updated_at older than rows that refresh already copied. The lookback re-reads that span on every
// refresh, which catches any write whose transaction ran shorter than it; LedgerMirrorSweep
// compares every row and catches the rest (and rows the LMS deleted outright). Equal updated_at
// means an equal row: two writes of one row in one transaction commit as one version, and writes
// in two transactions carry their transactions' distinct starts.

// MirrorLookback is how far behind the newest copied write each refresh looks again.
const MirrorLookback = 5 * time.Minute

// mirrorBatch bounds the rows one refresh copies, so a first copy of a large ledger commits in
// steps and a page never waits behind one huge transaction.
const mirrorBatch = 20000

// mirrorLock is the advisory lock under which one refresh or sweep runs at a time, across every
// instance ("regdesk-mirror" folded to a bigint).
const mirrorLock int64 = 0x7267642d6d6972

// mirrorColumns are the mirror's columns copied from the ledger row "c"; mirrorDerived follows
// them in an insert.
var mirrorColumns = []string{
	"id", "created_at", "updated_at", "deleted_at", "course_module_completion_id", "user_id", "course_id",
	"course_module_id", "attempt_number", "superseded_by_id", "superseded_at", "pending_superseded_by_id", "state",
	"state_entered_at", "state_changed_at", "phase_started_at", "error_code", "error_message",
	"needs_admin_attention", "next_attempt_at", "first_failed_at", "last_attempt_at", "submit_retry_count",
	"verify_attempt_count", "not_registered_reimport_count", "terminal_at", "submitted_at", "registered_at",
	"partially_registered_at", "resubmit_not_before", "student_number", "uh_course_code", "sisu_attainment_id",
	"submitted_attainment_id",
}

// mirrorSelect reads the ledger rows "c" as the mirror keeps them, with the derived columns,
// given a WHERE clause over c and the LMS's account_linking_since (nil: off); the caller inserts
// them.
func mirrorSelect(where string, linkingSince *time.Time) string {
	cols := make([]string, 0, len(mirrorColumns))
	for _, c := range mirrorColumns {
		switch c {
		case "state", "error_code":
			cols = append(cols, "c."+c+"::text")
		default:
			cols = append(cols, "c."+c)
		}
	}
	return `SELECT ` + strings.Join(cols, ", ") + `,
  c.selected_enrolment_id IS NOT NULL,
  ` + sqlStudentRank + `,
  ` + linkingFactsColumns + `,
  ` + sqlNeedsPersonFrom + `,
  clock_timestamp()
FROM credit_registrations c
  LEFT JOIN credit_registration_preconditions p ON p.credit_registration_id = c.id
  ` + linkingFactsJoin(linkingSince) + `
WHERE ` + where
}

// mirrorDerived are the columns mirrorSelect derives, after mirrorColumns, in its order.
var mirrorDerived = []string{"enrolment_resolved", "student_rank", "linking_awaits", "linking_pressed_at",
	"linking_fetch_started_at", "linking_email_since_press", "needs_person_since", "mirrored_at"}

// linkingFactsJoin joins to the ledger row "c" and its preconditions "p" (the view
// credit_registration_preconditions) what student_number_stuck reads of a pending row, as "lf",
// the way the LMS's attention query reads it (models/src/credit_registrations/attention.rs,
// get_attention_items [71168911011]): whether the student awaits a number (the completion is
// eligible, the student has no verified number, and the completion is dated at or after the LMS's
// account_linking_since, a setting of the LMS's process that regdesk is given as its own,
// LMS_ACCOUNT_LINKING_SINCE: off when nil), the latest "I have enrolled" press (the live
// credit_registration_enrolment_routes row of the completion), when the latest fetch of the
// module's code's enrolment list that could claim linking mail started (the
// credit_registration_roster_schedules row of the module's trimmed code now, not the row's frozen
// one), and whether a linking email (credit_registration_account_linking_emails, live) went out at
// or after the press on a course that has a live module with that code. That last fact is looked
// up only where it decides (the student awaits a number and the fetch started an hour past the
// press); elsewhere it reads false, which changes no verdict. A row in any other state reads
// nothing.
func linkingFactsJoin(since *time.Time) string {
	return `LEFT JOIN LATERAL (SELECT la.awaits AS linking_awaits, la.pressed_at AS linking_pressed_at,
    la.fetch_started_at AS linking_fetch_started_at,
    CASE WHEN la.awaits AND la.fetch_started_at - la.pressed_at >= ` + interval(schedule.StudentNumberStuckAfterPress) + ` THEN EXISTS (
      SELECT 1 FROM credit_registration_account_linking_emails e
        JOIN course_modules code_module ON code_module.course_id = e.course_id AND code_module.deleted_at IS NULL
      WHERE trim(code_module.uh_course_code) = la.course_code AND e.sent_at >= la.pressed_at AND e.deleted_at IS NULL)
    ELSE false END AS linking_email_since_press
  FROM (SELECT coalesce(p.completion_eligible AND NOT p.has_verified_student_number
        AND cmc.completion_date >= ` + sqlTimestamptz(since) + `, false) AS awaits,
      route.enrolment_confirmed_at AS pressed_at, rs.last_mailing_fetch_started_at AS fetch_started_at, rs.course_code
    FROM course_module_completions cmc
      JOIN course_modules cm ON cm.id = c.course_module_id
      LEFT JOIN credit_registration_enrolment_routes route
        ON route.course_module_completion_id = c.course_module_completion_id AND route.deleted_at IS NULL
      LEFT JOIN credit_registration_roster_schedules rs ON rs.course_code = trim(cm.uh_course_code)
    WHERE cmc.id = c.course_module_completion_id AND c.state = 'pending') la) lf ON true`
}

// linkingFactsColumns selects what linkingFactsJoin joined, as ScheduleColumns names them.
const linkingFactsColumns = `coalesce(lf.linking_awaits, false) AS linking_awaits, lf.linking_pressed_at,
  lf.linking_fetch_started_at, coalesce(lf.linking_email_since_press, false) AS linking_email_since_press`

// sqlTimestamptz writes t into a statement as a literal (NULL for nil): a setting fixed for the
// process, so each statement keeps one text and pgx's cache one prepared statement.
func sqlTimestamptz(t *time.Time) string {
	if t == nil {
		return `NULL::timestamptz`
	}
	return `'` + t.UTC().Format("2006-01-02T15:04:05.999999Z07:00") + `'::timestamptz`
}

// mirrorUpsert writes what a mirrorSelect read. needs_person_since keeps the moment a row began to
// need a person (mirror_keep_waiting); after a person's settling action (settledAt, a parameter
// such as "$2"; "" for none) it counts from that action at the earliest. The rest is the row as
// read.
func mirrorUpsert(selectSQL, settledAt string) string {
	all := append(append([]string{}, mirrorColumns...), mirrorDerived...)
	sets := make([]string, 0, len(all))
	for _, c := range all[1:] {
		if c == "needs_person_since" {
			if settledAt != "" {
				sets = append(sets, `needs_person_since = CASE WHEN EXCLUDED.needs_person_since IS NULL THEN NULL
    ELSE greatest(EXCLUDED.needs_person_since, `+settledAt+`::timestamptz) END`)
				continue
			}
			sets = append(sets, `needs_person_since = mirror_keep_waiting(ledger_mirror.needs_person_since, EXCLUDED.needs_person_since,
    EXCLUDED.updated_at, EXCLUDED.terminal_at IS NOT NULL OR EXCLUDED.deleted_at IS NOT NULL OR EXCLUDED.superseded_by_id IS NOT NULL)`)
			continue
		}
		sets = append(sets, c+" = EXCLUDED."+c)
	}
	return `INSERT INTO ledger_mirror (` + strings.Join(all, ", ") + `)
` + selectSQL + `
ON CONFLICT (id) DO UPDATE SET ` + strings.Join(sets, ", ") + `
WHERE ledger_mirror.updated_at IS DISTINCT FROM EXCLUDED.updated_at
  OR ledger_mirror.student_rank IS DISTINCT FROM EXCLUDED.student_rank
  OR (ledger_mirror.linking_awaits, ledger_mirror.linking_pressed_at, ledger_mirror.linking_fetch_started_at,
    ledger_mirror.linking_email_since_press) IS DISTINCT FROM (EXCLUDED.linking_awaits, EXCLUDED.linking_pressed_at,
    EXCLUDED.linking_fetch_started_at, EXCLUDED.linking_email_since_press)` + map[bool]string{true: `
  OR true`, false: ``}[settledAt != ""]
}

// sqlStudentRank is the row's place in CourseListOrder (StudentRank) over the ledger row "c" and
// its preconditions "p".
var sqlStudentRank = func() string {
	statuses := make([]string, len(courseListOrder))
	for i, s := range courseListOrder {
		statuses[i] = "'" + string(s) + "'"
	}
	expr := strings.ReplaceAll(strings.ReplaceAll(sqlStudentStatus, "cr.enrolment_resolved", "(c.selected_enrolment_id IS NOT NULL)"), "cr.", "c.")
	return fmt.Sprintf(`coalesce(array_position(ARRAY[%s], %s), %d)::smallint`, strings.Join(statuses, ", "), expr, unknownStudentRank)
}()

// MirrorRefresh says what one refresh did.
type MirrorRefresh struct {
	// Copied is how many rows were written to the copy.
	Copied int64
	// More is true when the refresh stopped at its batch size with rows left to copy.
	More bool
	// Skipped is true when another refresh or sweep held the lock, so this one did nothing.
	Skipped bool
}

// LedgerMirrorRefresh copies the ledger rows written since the last refresh (less MirrorLookback)
// whose copy differs. One refresh runs at a time across every instance: a refresh that finds the
// lock taken returns at once with Skipped.
func (s *Store) LedgerMirrorRefresh(ctx context.Context) (MirrorRefresh, error) {
	return s.ledgerMirrorRefresh(ctx, mirrorBatch)
}

func (s *Store) ledgerMirrorRefresh(ctx context.Context, batch int) (MirrorRefresh, error) {
	var out MirrorRefresh
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, mirrorLock).Scan(&locked); err != nil {
			return err
		}
		if !locked {
			out.Skipped = true
			return nil
		}
		var watermark *time.Time
		if err := tx.QueryRow(ctx, `SELECT watermark FROM ledger_mirror_state`).Scan(&watermark); err != nil {
			return err
		}
		from := time.Time{}
		if watermark != nil {
			from = watermark.Add(-MirrorLookback)
		}
		// The candidates in updated_at order, up to a batch: the watermark moves only as far as
		// what was read, so a batch cut short resumes where it stopped.
		rows, err := tx.Query(ctx, `SELECT c.id, c.updated_at FROM credit_registrations c
WHERE c.updated_at >= $1
  AND NOT EXISTS (SELECT 1 FROM ledger_mirror m WHERE m.id = c.id AND m.updated_at = c.updated_at)
ORDER BY c.updated_at
LIMIT `+sqlLimit(batch), from)
		if err != nil {
			return err
		}
		type cand struct {
			id string
			at time.Time
		}
		var ids []string
		var newest time.Time
		n := 0
		for rows.Next() {
			var c cand
			if err := rows.Scan(&c.id, &c.at); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, c.id)
			if c.at.After(newest) {
				newest = c.at
			}
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		out.More = n == batch
		if len(ids) > 0 {
			tag, err := tx.Exec(ctx, mirrorUpsert(mirrorSelect(`c.id = ANY($1::uuid[])`, s.linkingSince), ""), ids)
			if err != nil {
				return err
			}
			out.Copied = tag.RowsAffected()
			if _, err := personSearchCopyForRows(ctx, tx, ids); err != nil {
				return err
			}
		}
		// The linking facts move without the ledger row: re-derive the rows they may have moved.
		tag, err := tx.Exec(ctx, mirrorUpsert(mirrorSelect(`c.id = ANY(ARRAY(`+linkingMovedSQL+`))`, s.linkingSince), ""), MirrorLookback)
		if err != nil {
			return err
		}
		out.Copied += tag.RowsAffected()
		// The watermark never moves back, and moves to the newest write read.
		_, err = tx.Exec(ctx, `UPDATE ledger_mirror_state SET refreshed_at = clock_timestamp(),
  watermark = CASE WHEN $1::timestamptz IS NULL THEN watermark ELSE greatest(watermark, $1) END`, nullTime(newest))
		return err
	})
	if err != nil {
		return MirrorRefresh{}, dbError("LedgerMirrorRefresh", err)
	}
	return out, nil
}

// linkingMovedSQL lists the copied rows whose linking facts (linkingFactsJoin) may have moved since
// the last refresh without their ledger row moving, for each refresh to derive again; $1 is how far
// before the last refresh to look (MirrorLookback). The ways in which a row leaves
// student_number_stuck all move a fact of a row that is stuck now (a linking email goes out, the
// student links a number, presses again, or the completion changes), so every stuck row is
// derived again: a handful. The one usual way in is a fetch of the code's enrolment list
// starting (the rule measures time in fetches), which writes the code's roster schedule, so the
// pending rows of the modules of a code whose schedule was written since are derived again. The
// rarer ways in (a verified number removed, a completion made eligible again, a module's code
// changed, a linking email deleted) wait for the sweep.
var linkingMovedSQL = `SELECT m.id FROM ledger_mirror m
WHERE m.deleted_at IS NULL AND m.superseded_by_id IS NULL AND m.state = 'pending' AND (` + linkingStuck("m") + `
  OR m.course_module_id = ANY(ARRAY(SELECT cm.id FROM course_modules cm
    JOIN credit_registration_roster_schedules rs ON rs.course_code = trim(cm.uh_course_code)
    WHERE rs.updated_at >= (SELECT st.refreshed_at - $1::interval FROM ledger_mirror_state st))))`

// MirrorSweepStatementTimeout bounds each statement of a sweep, longer than a page's: its
// comparison reads the whole ledger and the whole copy (about 2 s at a million rows on a quiet
// machine, more under load), which a page's bound would cut off on every try.
const MirrorSweepStatementTimeout = 2 * time.Minute

// LedgerMirrorSweep compares every ledger row with its copy: it copies rows that differ or are
// missing, re-derives every pending row's rank and linking facts (a pending row's preconditions,
// press, roster schedule and linking emails change outside the ledger row: a student links a
// number, a completion is reviewed, an enrolment list is fetched), and removes copies of rows the
// LMS no longer has. It runs under the same lock as the refresh; Skipped when it was taken.
//
// The rows to copy and the copies to remove are found first, in one pass over the ledger and the
// copy joined by id, and copied in batches of mirrorBatch by id. As one statement, the comparison inside the copy's
// WHERE ("pending OR NOT EXISTS a copy with this updated_at") ran as a probe of the copy per ledger
// row, and the LMS's preconditions view was joined for every row: over 5 s at a million rows,
// so under serve's statement timeout the first sweep never finished and the job, retrying it,
// never refreshed.
func (s *Store) LedgerMirrorSweep(ctx context.Context) (MirrorRefresh, error) {
	var out MirrorRefresh
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, mirrorLock).Scan(&locked); err != nil {
			return err
		}
		if !locked {
			out.Skipped = true
			return nil
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL statement_timeout = %d`, MirrorSweepStatementTimeout.Milliseconds())); err != nil {
			return err
		}
		// The join hashes a million rows' ids and times: in 64 MB that is one pass, not eight
		// spilled to disk.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '64MB'`); err != nil {
			return err
		}
		// One pass over both: the rows to copy, and the copies whose row is gone. The copy's side
		// is read from its primary key, which carries updated_at (migration 0005).
		rows, err := tx.Query(ctx, `SELECT coalesce(c.id, m.id), c.id IS NULL FROM credit_registrations c
  FULL JOIN ledger_mirror m ON m.id = c.id
WHERE c.id IS NULL OR m.id IS NULL OR c.state = 'pending' OR m.updated_at <> c.updated_at`)
		if err != nil {
			return err
		}
		var copyIDs, goneIDs []string
		for rows.Next() {
			var id string
			var gone bool
			if err := rows.Scan(&id, &gone); err != nil {
				rows.Close()
				return err
			}
			if gone {
				goneIDs = append(goneIDs, id)
			} else {
				copyIDs = append(copyIDs, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		upsert := mirrorUpsert(mirrorSelect(`c.id = ANY($1::uuid[])`, s.linkingSince), "")
		for batch := range slices.Chunk(copyIDs, mirrorBatch) {
			tag, err := tx.Exec(ctx, upsert, batch)
			if err != nil {
				return err
			}
			out.Copied += tag.RowsAffected()
		}
		if len(goneIDs) > 0 {
			// Only what the ledger still lacks now: a row written since the pass stays.
			del, err := tx.Exec(ctx, `DELETE FROM ledger_mirror m WHERE m.id = ANY($1::uuid[])
  AND NOT EXISTS (SELECT 1 FROM credit_registrations c WHERE c.id = m.id)`, goneIDs)
			if err != nil {
				return err
			}
			out.Copied += del.RowsAffected()
		}
		if _, err := personSearchSweep(ctx, tx); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE ledger_mirror_state SET swept_at = clock_timestamp(), refreshed_at = clock_timestamp(),
  watermark = coalesce((SELECT max(updated_at) FROM ledger_mirror), watermark)`)
		return err
	})
	if err != nil {
		return MirrorRefresh{}, dbError("LedgerMirrorSweep", err)
	}
	return out, nil
}

// LedgerMirrorRows copies the given ledger rows now, whatever the refresh has reached: after a hand
// action, so the lists the person returns to show what the LMS did. It waits for a running refresh.
func (s *Store) LedgerMirrorRows(ctx context.Context, ids []string) error {
	return s.ledgerMirrorRows(ctx, ids, nil)
}

// LedgerMirrorRowsAfterAction is LedgerMirrorRows after a person's settling hand action at the
// given instant: if the rows need a person again, the wait counts from that action at the earliest.
func (s *Store) LedgerMirrorRowsAfterAction(ctx context.Context, ids []string, at time.Time) error {
	return s.ledgerMirrorRows(ctx, ids, &at)
}

func (s *Store) ledgerMirrorRows(ctx context.Context, ids []string, settledAt *time.Time) error {
	ids = onlyUUIDs(ids)
	if len(ids) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, mirrorLock); err != nil {
			return err
		}
		var err error
		if settledAt != nil {
			_, err = tx.Exec(ctx, mirrorUpsert(mirrorSelect(`c.id = ANY($1::uuid[])`, s.linkingSince), "$2"), ids, *settledAt)
		} else {
			_, err = tx.Exec(ctx, mirrorUpsert(mirrorSelect(`c.id = ANY($1::uuid[])`, s.linkingSince), ""), ids)
		}
		if err != nil {
			return err
		}
		_, err = personSearchCopyForRows(ctx, tx, ids)
		return err
	})
	if err != nil {
		return dbError("LedgerMirrorRows", err)
	}
	return nil
}

// MirrorStatus is how fresh the copy is.
type MirrorStatus struct {
	// RefreshedAt is when a refresh last finished; nil before the first.
	RefreshedAt *time.Time
	// SweptAt is when the last full comparison finished; nil before the first.
	SweptAt *time.Time
	// Behind is how long ago, by the database's clock as it was read, a refresh last finished:
	// the copy holds every write older than that. Nil before the first refresh.
	Behind *time.Duration
}

// LedgerMirrorStatus reads how fresh the copy is.
func (q *Queries) LedgerMirrorStatus(ctx context.Context) (MirrorStatus, error) {
	var st MirrorStatus
	var behindMicros *int64
	err := q.db.QueryRow(ctx, `SELECT refreshed_at, swept_at,
  (extract(epoch FROM clock_timestamp() - refreshed_at) * 1000000)::bigint
FROM ledger_mirror_state`).Scan(&st.RefreshedAt, &st.SweptAt, &behindMicros)
	if behindMicros != nil {
		d := time.Duration(*behindMicros) * time.Microsecond
		st.Behind = &d
	}
	if err != nil {
		return MirrorStatus{}, dbError("LedgerMirrorStatus", err)
	}
	return st, nil
}

// onlyUUIDs drops the ids that are not UUIDs, which no row has.
func onlyUUIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if IsUUID(id) {
			out = append(out, id)
		}
	}
	return out
}

// nullTime is t, or nil for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// sqlNeedsPersonFrom is the earliest instant at which the ledger row "c", as written (at its
// updated_at), asks a person by one of the LMS's person-level attention reasons, dismissals aside
// (schedule.Classify's NeedsAdmin; store/waiting_test.go holds the two together): the entry into
// submission_uncertain or misregistered; the write that carries a reason no column dates
// (permanent_error, retry_window_expired, too_many_attempts, repeatedly_not_registered, the flag
// alone while stuck_in_state does not explain it); the instant a time rule fires (partly
// registered for PartialRegistrationAdminAfter, unconfirmed for VerifyMaxAge); or, for a student
// stuck waiting for a number, StudentNumberStuckAfterPress after the press, the earliest a fetch
// could have found them stuck (the fetch itself moves on with every later fetch, and no column
// keeps the first). That instant may lie ahead: readers show a row as waiting only while it needs a person, which they judge themselves.
// mirror_keep_waiting (migration 0005) keeps an earlier moment already reached while the row still
// needs someone.
var sqlNeedsPersonFrom = func() string {
	var stuck []string
	for _, st := range schedule.States() {
		if d, ok := schedule.StuckThreshold(st); ok {
			stuck = append(stuck, fmt.Sprintf(`(c.state = '%s' AND c.state_changed_at < c.updated_at - %s)`, st, interval(d)))
		}
	}
	return `CASE WHEN c.deleted_at IS NOT NULL OR c.superseded_by_id IS NOT NULL THEN NULL ELSE least(
    CASE WHEN c.state IN ('submission_uncertain', 'misregistered') THEN least(c.state_changed_at, c.updated_at) END,
    CASE WHEN (c.state = 'failed_permanent' AND c.needs_admin_attention) OR c.error_code = 'retry_window_expired'
      OR (c.terminal_at IS NULL AND (c.submit_retry_count >= ` + fmt.Sprint(schedule.TooManySubmitRetries) +
		` OR c.not_registered_reimport_count >= ` + fmt.Sprint(schedule.NotRegisteredReimportAdminThreshold) + `)) THEN c.updated_at END,
    CASE WHEN c.needs_admin_attention AND NOT coalesce(c.terminal_at IS NULL AND (` + strings.Join(stuck, " OR ") + `), false)
      THEN c.updated_at END,
    CASE WHEN c.state = 'partially_registered' THEN c.partially_registered_at + ` + interval(schedule.PartialRegistrationAdminAfter) + ` END,
    CASE WHEN c.state IN ('awaiting_verification', 'partially_registered') THEN c.submitted_at + ` + interval(schedule.VerifyMaxAge) + ` END,
    CASE WHEN c.state = 'pending' AND ` + linkingStuck("lf") + ` THEN lf.linking_pressed_at + ` + interval(schedule.StudentNumberStuckAfterPress) + ` END
  ) END`
}()
