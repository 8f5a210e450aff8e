package store

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"regdesk/migrations"
)

// migrationLock is the advisory lock key that keeps two servers from migrating at once
// (an arbitrary constant: "regdesk" in ASCII, truncated to fit a bigint).
const migrationLock int64 = 0x72656764657368

// Migrate applies every embedded migration not yet recorded in schema_migration, each in its own
// transaction, in name order, under an advisory lock.
func (s *Store) Migrate(ctx context.Context) (applied []string, err error) {
	names, err := migrationNames()
	if err != nil {
		return nil, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("Migrate: acquire: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return nil, fmt.Errorf("Migrate: lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migration (
		name text PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("Migrate: create schema_migration: %w", err)
	}
	done, err := appliedMigrations(ctx, conn.Conn())
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if done[name] {
			continue
		}
		sql, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return applied, fmt.Errorf("Migrate: read %s: %w", name, err)
		}
		err = pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			// No arguments: pgx sends this over the simple protocol, so a file may hold many statements.
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migration (name) VALUES ($1)`, name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("Migrate: apply %s: %w", name, err)
		}
		applied = append(applied, name)
	}
	return applied, nil
}

// CheckSchema returns an error naming the embedded migrations the database lacks, so a server
// never runs against a schema older than its code.
func (s *Store) CheckSchema(ctx context.Context) error {
	names, err := migrationNames()
	if err != nil {
		return err
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('schema_migration') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("CheckSchema: %w", err)
	}
	done := map[string]bool{}
	if exists {
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("CheckSchema: acquire: %w", err)
		}
		defer conn.Release()
		if done, err = appliedMigrations(ctx, conn.Conn()); err != nil {
			return err
		}
	}
	var missing []string
	for _, n := range names {
		if !done[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the database schema is behind: %s not applied (run `regdesk migrate` or set RUN_MIGRATIONS=1)", strings.Join(missing, ", "))
	}
	return nil
}

func migrationNames() ([]string, error) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	slices.Sort(names)
	return names, nil
}

func appliedMigrations(ctx context.Context, conn *pgx.Conn) (map[string]bool, error) {
	rows, _ := conn.Query(ctx, `SELECT name FROM schema_migration`)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list applied migrations: %w", err)
	}
	done := make(map[string]bool, len(names))
	for _, n := range names {
		done[n] = true
	}
	return done, nil
}
