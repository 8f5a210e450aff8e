package store_test

import (
	"context"
	"strings"
	"testing"

	"regdesk/store/storetest"
)

func TestMigrateIsIdempotentAndCheckSchemaPasses(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	applied, err := st.Migrate(ctx)
	if err != nil {
		t.Fatalf("Migrate() on a migrated database: %v", err)
	}
	if len(applied) != 0 {
		t.Errorf("Migrate() applied %v again, want nothing", applied)
	}
	if err := st.CheckSchema(ctx); err != nil {
		t.Errorf("CheckSchema() = %v, want nil", err)
	}
}

func TestCheckSchemaNamesMissingMigrations(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	if err := st.ExecForTest(ctx, `DELETE FROM schema_migration WHERE name = '0001_accounts.sql'`); err != nil {
		t.Fatal(err)
	}
	err := st.CheckSchema(ctx)
	if err == nil || !strings.Contains(err.Error(), "0001_accounts.sql") {
		t.Errorf("CheckSchema() = %v, want an error naming 0001_accounts.sql", err)
	}
}
