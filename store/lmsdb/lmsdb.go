// Package lmsdb builds, in a database of its own, the LMS's tables that regdesk reads: the
// credit-registration ledger and everything around it in the shape the LMS
// (rage/secret-project-331) gives them, with minimal stubs of the LMS's users, courses, modules
// and completions. It exists for regdesk's tests and demo, which need a database that looks like
// the one regdesk runs on in production.
//
// In production these objects belong to the LMS; regdesk's migrations never create or alter them,
// and nothing outside tests and the demo calls Apply. schema.sql says, object by object, which LMS
// migration or model each fact came from.
package lmsdb

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed schema.sql
var schema string

// Schema returns the DDL that Apply runs, for a caller that wants to show or diff it.
func Schema() string { return schema }

// Execer is what Apply and GrantReadOnly need of a connection: *pgx.Conn, *pgxpool.Pool and pgx.Tx
// all have it.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Apply creates the LMS's objects in schema public of db's database: the extensions, the
// trigger_set_timestamp function, the enums, tables, indexes, triggers and views, and the seeded
// phase rows. The database must not have them yet. The DDL runs as one multi-statement Exec, which
// PostgreSQL runs as one transaction, so a failure leaves nothing behind. Inside a caller's
// transaction it takes part in that one, and the transaction's search_path stays public until it
// ends.
func Apply(ctx context.Context, db Execer) error {
	if _, err := db.Exec(ctx, schema); err != nil {
		return fmt.Errorf("lmsdb: apply the LMS schema: %w", err)
	}
	return nil
}

// GrantReadOnly lets role read every table and view in schema public: USAGE on the schema and
// SELECT on the relations that exist now, nothing else. Tests run regdesk under such a role, the
// way it runs beside the LMS, to prove it never writes the LMS's tables. The role must exist; call
// this after Apply, since later tables are not covered.
func GrantReadOnly(ctx context.Context, db Execer, role string) error {
	ident := pgx.Identifier{role}.Sanitize()
	if _, err := db.Exec(ctx, `GRANT USAGE ON SCHEMA public TO `+ident+`;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO `+ident); err != nil {
		return fmt.Errorf("lmsdb: grant read-only access to %s: %w", role, err)
	}
	return nil
}

// The pipeline phases, as seeded into credit_registration_phase_state (phase) from the LMS's
// migrations: the base migration's twelve, less product-token-refresh, plus ledger-snapshot.
const (
	PhaseMaterialize          = "materialize"
	PhasePreconditions        = "preconditions"
	PhaseResolveEnrolments    = "resolve-enrolments"
	PhaseImport               = "import"
	PhaseVerify               = "verify"
	PhaseLegacyMirror         = "legacy-mirror"
	PhaseStudentNotifications = "student-notifications"
	PhaseEnrolmentDiscovery   = "enrolment-discovery"
	PhaseLinkEmails           = "link-emails"
	PhaseConfigValidation     = "config-validation"
	PhaseRetentionSweep       = "retention-sweep"
	PhaseLedgerSnapshot       = "ledger-snapshot"
)

// Phases returns the seeded phase names in the order the LMS's migrations insert them.
func Phases() []string {
	return []string{
		PhaseMaterialize, PhasePreconditions, PhaseResolveEnrolments, PhaseImport, PhaseVerify,
		PhaseLegacyMirror, PhaseStudentNotifications, PhaseEnrolmentDiscovery, PhaseLinkEmails,
		PhaseConfigValidation, PhaseRetentionSweep, PhaseLedgerSnapshot,
	}
}

// The worker processes that own the phases (credit_registration_phase_state.process_name).
const (
	ProcessCreditRegistrar = "credit-registrar"
	ProcessSuotarSyncer    = "suotar-syncer"
)

// RoleCreditRegistrationAdmin is the user_role value the LMS added for staff of the
// credit-registration admin pages. The LMS authorizes those pages with a global roles row
// (is_global, deleted_at IS NULL).
const RoleCreditRegistrationAdmin = "credit_registration_admin"

// The values the LMS writes into credit_registration_admin_actions.actor_role.
const (
	ActorRoleGlobalAdmin   = "global_admin"
	ActorRoleCourseTeacher = "course_teacher"
)
