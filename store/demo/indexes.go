package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// bulkTables are the LMS's tables a demo run fills with one row or more per ledger row: the ones
// whose index upkeep is the copying time.
var bulkTables = []string{
	"users", "user_details", "verified_student_numbers", "course_module_completions", "credit_registrations",
	"credit_registration_events",
}

// mirrorTables are regdesk's tables a demo run fills as large: its copy of the ledger.
var mirrorTables = []string{"ledger_mirror"}

// indexDef is an index the run dropped and must build again.
type indexDef struct {
	name, create string
}

// dropSecondaryIndexes drops the indexes of tables (in schema) that are not unique (primary keys
// and unique indexes stay, so the copy is checked as before) and returns how to build them again,
// largest table first. Every copied row updated dozens of indexes one entry at a time, the LMS's
// trigram indexes of names and addresses dearest; built once over the finished table, each is a
// sort. pg_get_indexdef gives each index's full definition, schema-qualified, so it comes back
// identical.
func dropSecondaryIndexes(ctx context.Context, conn *pgxpool.Conn, schema string, tables []string) ([]indexDef, error) {
	rows, err := conn.Query(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
FROM pg_index i
  JOIN pg_class t ON t.oid = i.indrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = $2
WHERE t.relname = ANY($1)
  AND NOT i.indisunique
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
ORDER BY array_position($1, t.relname::text) DESC, i.indexrelid`, tables, schema)
	if err != nil {
		return nil, fmt.Errorf("demo: list the indexes to build after copying: %w", err)
	}
	var defs []indexDef
	for rows.Next() {
		var d indexDef
		if err := rows.Scan(&d.name, &d.create); err != nil {
			return nil, fmt.Errorf("demo: list the indexes to build after copying: %w", err)
		}
		defs = append(defs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("demo: list the indexes to build after copying: %w", err)
	}
	// One transaction: the indexes are all gone, or none is.
	err = pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
		for _, d := range defs {
			if _, err := tx.Exec(ctx, `DROP INDEX `+d.name); err != nil {
				return fmt.Errorf("demo: drop index %s: %w", d.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return defs, nil
}

// buildIndexes builds defs again, on two connections at once (the copy's two cores), each
// with the memory to sort a large index in one pass. An index already there is left as it is,
// so a build cut short can be run again.
func buildIndexes(ctx context.Context, pool *pgxpool.Pool, defs []indexDef) error {
	if len(defs) == 0 {
		return nil
	}
	// Queued whole first: a worker that cannot get a connection leaves its share to the other.
	work := make(chan indexDef, len(defs))
	for _, d := range defs {
		work <- d
	}
	close(work)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
		}
	}
	for range min(2, len(defs)) {
		wg.Go(func() {
			conn, err := pool.Acquire(ctx)
			if err != nil {
				fail(fmt.Errorf("demo: build indexes: acquire a connection: %w", err))
				return
			}
			defer conn.Release()
			if _, err := conn.Exec(ctx, `SET maintenance_work_mem = '512MB'`); err != nil {
				fail(fmt.Errorf("demo: build indexes: %w", err))
			}
			for d := range work {
				create := strings.Replace(d.create, " INDEX ", " INDEX IF NOT EXISTS ", 1)
				if _, err := conn.Exec(ctx, create); err != nil {
					fail(fmt.Errorf("demo: build index %s: %w", d.name, err))
				}
			}
			// Leave the connection as the pool lent it.
			_, _ = conn.Exec(context.WithoutCancel(ctx), `RESET maintenance_work_mem`)
		})
	}
	wg.Wait()
	return firstErr
}
