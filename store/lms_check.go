package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// lmsRelations are the LMS's tables and views regdesk reads, all of them; it writes none.
var lmsRelations = []string{
	"courses", "course_modules", "course_module_completions",
	"users", "user_details", "verified_student_numbers", "roles",
	"credit_registrations", "credit_registration_events", "credit_registration_admin_actions",
	"credit_registration_attention_dismissals", "credit_registration_preconditions",
	"credit_registration_phase_state", "course_module_suotar_configurations",
	// What student_number_stuck reads besides the preconditions (linkingFactsJoin).
	"credit_registration_enrolment_routes", "credit_registration_roster_schedules",
	"credit_registration_account_linking_emails",
}

// CheckLMS makes sure regdesk can read what it reads of the LMS: every table and view it uses
// exists in the LMS's schema and the connection may SELECT from it. The error names each one
// missing or unreadable and the grant that fixes the latter, so an operator who points regdesk at
// the wrong database, or forgot a grant, is told at start rather than by a page that fails.
func (s *Store) CheckLMS(ctx context.Context) error {
	var usable bool
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(has_schema_privilege($1, 'USAGE'), false)
FROM pg_namespace WHERE nspname = $1`, s.lmsSchema).Scan(&usable); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return dbError("CheckLMS", err)
	}
	if !usable {
		return fmt.Errorf("regdesk cannot read the LMS: the LMS's schema %s is missing, or regdesk's role lacks USAGE on it (GRANT USAGE ON SCHEMA %s TO it)",
			s.lmsSchema, s.lmsSchema)
	}
	var missing, unreadable []string
	for _, rel := range lmsRelations {
		var exists, readable bool
		err := s.pool.QueryRow(ctx, `SELECT to_regclass(format('%I.%I', $1::text, $2::text)) IS NOT NULL,
  coalesce(has_table_privilege(to_regclass(format('%I.%I', $1::text, $2::text)), 'SELECT'), false)`, s.lmsSchema, rel).Scan(&exists, &readable)
		if err != nil {
			return dbError("CheckLMS", err)
		}
		switch {
		case !exists:
			missing = append(missing, s.lmsSchema+"."+rel)
		case !readable:
			unreadable = append(unreadable, s.lmsSchema+"."+rel)
		}
	}
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("the LMS's database lacks %s: is DATABASE_URL the LMS's database, and its tables in schema %s?",
			strings.Join(missing, ", "), s.lmsSchema))
	}
	if len(unreadable) > 0 {
		problems = append(problems, fmt.Sprintf("regdesk's role may not read %s: GRANT SELECT ON ALL TABLES IN SCHEMA %s TO it",
			strings.Join(unreadable, ", "), s.lmsSchema))
	}
	if len(problems) > 0 {
		return fmt.Errorf("regdesk cannot read the LMS: %s", strings.Join(problems, "; "))
	}
	return nil
}
