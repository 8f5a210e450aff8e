package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/store"
	"regdesk/store/lmsdb"
)

// Prepare readies a fixture database for Write, as make run and the seeder build theirs: the
// LMS's tables (lmsdb.Apply) when the database has none, then regdesk's migrations. lms writes
// the LMS's schema; nil uses st's own pool. It reports whether it created the LMS's tables and
// which migrations it applied. A database an earlier regdesk laid out for itself (its own copy of
// the ledger in public) gives store.ErrOldLayout: nothing in it is kept or changed.
//
// Only for fixture databases: beside the real LMS its tables exist already and regdesk's role may
// not create them.
func Prepare(ctx context.Context, st *store.Store, lms *pgxpool.Pool) (createdLMS bool, migrations []string, err error) {
	if lms == nil {
		lms = st.Pool()
	}
	// Before anything is created: the LMS's tables are not to land beside an old layout's.
	if err := st.RefuseOldLayout(ctx); err != nil {
		return false, nil, err
	}
	var missing bool
	if err := lms.QueryRow(ctx, `SELECT to_regclass('credit_registrations') IS NULL`).Scan(&missing); err != nil {
		return false, nil, fmt.Errorf("demo: look for the LMS's tables: %w", err)
	}
	if missing {
		// In one transaction with the lock that keeps a second preparer (make run and make seed
		// started together) from applying them twice.
		err := pgx.BeginFunc(ctx, lms, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('regdesk demo lms'))`); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT to_regclass('credit_registrations') IS NULL`).Scan(&missing); err != nil || !missing {
				return err
			}
			return lmsdb.Apply(ctx, tx)
		})
		if err != nil {
			return false, nil, fmt.Errorf("demo: create the LMS's tables: %w", err)
		}
		createdLMS = missing
	}
	applied, err := st.Migrate(ctx)
	if err != nil {
		return createdLMS, applied, err
	}
	return createdLMS, applied, nil
}

// StaffUserIDs finds the LMS users made for staff (Summary.Staff), by e-mail address in any letter
// case: for a demo written on an earlier run. Addresses without such a user are left out.
func StaffUserIDs(ctx context.Context, st *store.Store, emails []string) (map[string]string, error) {
	lower := make([]string, len(emails))
	for i, e := range emails {
		lower[i] = strings.ToLower(e)
	}
	rows, _ := st.Pool().Query(ctx, `SELECT lower(d.email), d.user_id::text FROM user_details d
WHERE lower(d.email) = ANY($1)
  AND EXISTS (SELECT 1 FROM roles r WHERE r.user_id = d.user_id AND r.role = 'credit_registration_admin'
    AND r.is_global AND r.deleted_at IS NULL)`, lower)
	out := map[string]string{}
	var email, id string
	if _, err := pgx.ForEachRow(rows, []any{&email, &id}, func() error { out[email] = id; return nil }); err != nil {
		return nil, fmt.Errorf("demo: find the staff's LMS users: %w", err)
	}
	byGiven := make(map[string]string, len(out))
	for i, e := range emails {
		if id, ok := out[lower[i]]; ok {
			byGiven[e] = id
		}
	}
	return byGiven, nil
}
