package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file streams whole lists for exports: every matching row, not a page, read row by row from
// the database's answer and handed to the caller one at a time, so an export of a hundred
// thousand rows holds one row in memory, not the list. Each export runs in one read-only
// snapshot, first counting (up to the cap) and then reading, so the count it states and the rows
// it writes agree.

// ExportMaxRows is the most rows one export writes; the answer says when there were more.
const ExportMaxRows = 100_000

// ExportStatementTimeout bounds an export's statements, longer than a page's: it reads many rows,
// once, on a person's request.
const ExportStatementTimeout = 2 * time.Minute

// ExportHead is what an export knows before its first row.
type ExportHead struct {
	// Rows is how many rows it will write; Truncated is set when more matched than the cap.
	Rows      int
	Truncated bool
}

// inExport runs fn in a read-only snapshot with the export's statement timeout.
func (s *Store) inExport(ctx context.Context, fn func(q *Queries) error) error {
	return s.InReadTx(ctx, func(q *Queries) error {
		if _, err := q.db.Exec(ctx, fmt.Sprintf(`SET LOCAL statement_timeout = %d`, ExportStatementTimeout.Milliseconds())); err != nil {
			return dbError("export timeout", err)
		}
		return fn(q)
	})
}

// eachRow scans every row of rows as T and hands it to fn, stopping at fn's first error.
func eachRow[T any](rows pgx.Rows, op string, fn func(T) error) error {
	defer rows.Close()
	for rows.Next() {
		v, err := pgx.RowToStructByName[T](rows)
		if err != nil {
			return dbError(op, err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return dbError(op, err)
	}
	return nil
}

// RegistrationExport streams the rows matching f, in f.Sort's order, up to limit (at most
// ExportMaxRows): head first, then each row.
func (s *Store) RegistrationExport(ctx context.Context, now time.Time, f RegistrationFilter, limit int, head func(ExportHead) error, row func(RegistrationListRow) error) error {
	limit = min(max(limit, 1), ExportMaxRows)
	return s.inExport(ctx, func(q *Queries) error {
		if err := q.resolve(ctx, now, &f); err != nil {
			return err
		}
		n, err := q.RegistrationCountCapped(ctx, now, f, limit+1)
		if err != nil {
			return err
		}
		if err := head(ExportHead{Rows: min(n, limit), Truncated: n > limit}); err != nil {
			return err
		}
		w := newWhere(now)
		w.apply(f)
		order := `cr.updated_at DESC, cr.id DESC`
		if f.Sort == SortWaiting {
			order = sqlWaitingSince + `, cr.id`
		}
		rows, err := q.db.Query(ctx, `SELECT `+listColumnsAt("$1")+`
FROM `+listFrom+`
WHERE `+w.sql()+`
ORDER BY `+order+`
LIMIT `+sqlLimit(limit), w.queryArgs()...)
		if err != nil {
			return dbError("RegistrationExport", err)
		}
		return eachRow(rows, "RegistrationExport", row)
	})
}

// RegistrationExportByCourse streams a course's registrations in scope as the course page lists
// them (RegistrationListByCourse), up to limit: head first, then each row. A course not in scope
// writes none.
func (s *Store) RegistrationExportByCourse(ctx context.Context, now time.Time, courseID string, scope Scope, limit int, head func(ExportHead) error, row func(RegistrationOverview) error) error {
	limit = min(max(limit, 1), ExportMaxRows)
	if !IsUUID(courseID) {
		return fmt.Errorf("RegistrationExportByCourse: %w", ErrNotFound)
	}
	return s.inExport(ctx, func(q *Queries) error {
		if _, err := q.CourseGet(ctx, courseID, scope); err != nil {
			return err
		}
		var n int
		if err := q.db.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM ledger_mirror cr
WHERE cr.course_id = $1 AND `+liveSQL+` AND cr.superseded_by_id IS NULL AND `+sqlInScope(2)+` LIMIT `+sqlLimit(limit+1)+`) c`,
			courseID, scope.arg()).Scan(&n); err != nil {
			return dbError("RegistrationExportByCourse count", err)
		}
		if err := head(ExportHead{Rows: min(n, limit), Truncated: n > limit}); err != nil {
			return err
		}
		rows, err := q.db.Query(ctx, `SELECT `+overviewColumnsAt("$3")+`
FROM `+overviewFrom+`
WHERE cr.course_id = $1 AND `+liveSQL+` AND cr.superseded_by_id IS NULL AND `+sqlInScope(2)+`
ORDER BY cr.student_rank, cr.updated_at DESC, cr.id DESC
LIMIT `+sqlLimit(limit), courseID, scope.arg(), now)
		if err != nil {
			return dbError("RegistrationExportByCourse", err)
		}
		return eachRow(rows, "RegistrationExportByCourse", row)
	})
}

// AuditExport streams the audit entries matching f, newest first, up to limit: head first, then
// each entry.
func (s *Store) AuditExport(ctx context.Context, f AuditFilter, limit int, head func(ExportHead) error, row func(AuditEntry) error) error {
	limit = min(max(limit, 1), ExportMaxRows)
	return s.inExport(ctx, func(q *Queries) error {
		where, args, ok := auditWhere(f, nil)
		if !ok {
			return head(ExportHead{})
		}
		var n int
		if err := q.db.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+auditFrom+` a WHERE `+where+
			fmt.Sprintf(` LIMIT %d) c`, limit+1), args...).Scan(&n); err != nil {
			return dbError("AuditExport count", err)
		}
		if err := head(ExportHead{Rows: min(n, limit), Truncated: n > limit}); err != nil {
			return err
		}
		rows, err := q.db.Query(ctx, auditSelect(auditPage(where, limit))+fmt.Sprintf(` LIMIT %d`, limit), args...)
		if err != nil {
			return dbError("AuditExport", err)
		}
		return eachRow(rows, "AuditExport", row)
	})
}
