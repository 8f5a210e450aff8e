package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Course is a course as filters and pages name it.
type Course struct {
	ID   string `db:"id"`
	Name string `db:"name"`
	Slug string `db:"slug"`
}

// CourseList returns the live courses by name, only those in scope.
func (q *Queries) CourseList(ctx context.Context, scope Scope) ([]Course, error) {
	rows, _ := q.db.Query(ctx, `SELECT c.id::text AS id, c.name, c.slug FROM courses c
WHERE c.deleted_at IS NULL AND ($1::uuid[] IS NULL OR c.id = ANY($1::uuid[]))
ORDER BY c.name, c.id`, scope.arg())
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[Course])
	if err != nil {
		return nil, dbError("CourseList", err)
	}
	return list, nil
}

// CourseGet returns the live course with the given id, or ErrNotFound, also when scope does not
// hold it.
func (q *Queries) CourseGet(ctx context.Context, id string, scope Scope) (Course, error) {
	if !IsUUID(id) {
		return Course{}, fmt.Errorf("CourseGet %q: %w", id, ErrNotFound)
	}
	rows, _ := q.db.Query(ctx, `SELECT c.id::text AS id, c.name, c.slug FROM courses c
WHERE c.id = $1 AND c.deleted_at IS NULL AND ($2::uuid[] IS NULL OR c.id = ANY($2::uuid[]))`, id, scope.arg())
	c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Course])
	if err != nil {
		return Course{}, dbError(fmt.Sprintf("CourseGet %s", id), err)
	}
	return c, nil
}
