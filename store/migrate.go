package store

import (
	"context"
	"errors"
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

// Migrate applies every embedded migration not yet recorded in regdesk.schema_migration, each in
// its own transaction with search_path = regdesk (so a migration cannot reach an LMS object by
// name), in name order, under an advisory lock. It creates the schema regdesk when it is missing;
// a DBA may create it beforehand and give it to regdesk's role, which then needs no right to
// create schemas.
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
	if err := refuseOldLayout(ctx, conn.Conn()); err != nil {
		return nil, err
	}
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, Schema).Scan(&exists); err != nil {
		return nil, fmt.Errorf("Migrate: look for schema %s: %w", Schema, err)
	}
	if !exists {
		// Checked first: CREATE SCHEMA IF NOT EXISTS needs the right to create schemas even when
		// the schema is there, which a DBA's regdesk role need not have.
		if _, err := conn.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{Schema}.Sanitize()); err != nil {
			return nil, fmt.Errorf("Migrate: create schema %s (or have a DBA create it and give it to this role): %w", Schema, err)
		}
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+pgx.Identifier{Schema, "schema_migration"}.Sanitize()+` (
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
			if _, err := tx.Exec(ctx, `SELECT set_config('search_path', $1, true)`, pgx.Identifier{Schema}.Sanitize()); err != nil {
				return err
			}
			// No arguments: pgx sends this over the simple protocol, so a file may hold many statements.
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO `+pgx.Identifier{Schema, "schema_migration"}.Sanitize()+` (name) VALUES ($1)`, name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("Migrate: apply %s: %w", name, err)
		}
		applied = append(applied, name)
	}
	return applied, nil
}

// ErrOldLayout reports a database an earlier regdesk made for itself, with its own copy of the
// LMS's tables in public: nothing in it is worth keeping, and regdesk does not upgrade it.
var ErrOldLayout = errors.New("this database holds an earlier regdesk's own copy of the ledger (public.schema_migration, public.students); " +
	"regdesk now runs beside the LMS in a schema of its own and does not upgrade it: for the development database, run `make db/reset` and then `make run`")

// refuseOldLayout returns ErrOldLayout for a database an earlier regdesk laid out in public.
func refuseOldLayout(ctx context.Context, conn *pgx.Conn) error {
	var old bool
	err := conn.QueryRow(ctx, `SELECT to_regclass('public.schema_migration') IS NOT NULL AND to_regclass('public.students') IS NOT NULL`).Scan(&old)
	if err != nil {
		return fmt.Errorf("Migrate: look for an earlier layout: %w", err)
	}
	if old {
		return ErrOldLayout
	}
	return nil
}

// CheckSchema returns an error naming the embedded migrations the database lacks, so a server
// never runs against a schema older than its code.
func (s *Store) CheckSchema(ctx context.Context) error {
	names, err := migrationNames()
	if err != nil {
		return err
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('regdesk.schema_migration') IS NOT NULL`).Scan(&exists); err != nil {
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
	rows, _ := conn.Query(ctx, `SELECT name FROM regdesk.schema_migration`)
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
