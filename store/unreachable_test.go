package store_test

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"regdesk/store"
)

// PostgreSQL going away (a fast stop, a crash, a start, a failed connection) is the database
// being unreachable, which a person is told to wait out; the statement timeout and every error of
// a statement are not.
func TestUnreachableReadsTheServerGoingAway(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]bool{
		"57P01": true,  // admin_shutdown: pg_ctl stop -m fast, a restart
		"57P02": true,  // crash_shutdown
		"57P03": true,  // cannot_connect_now: starting or stopping
		"57P05": true,  // idle_session_timeout
		"08006": true,  // connection_failure
		"08P01": true,  // protocol_violation
		"57014": false, // query_canceled: the statement timeout
		"23505": false, // unique_violation
		"40001": false, // serialization_failure
		"42P01": false, // undefined_table
	} {
		err := fmt.Errorf("SessionFind: %w", &pgconn.PgError{Severity: "FATAL", Code: code})
		if got := store.Unreachable(err); got != want {
			t.Errorf("Unreachable(%s) = %v, want %v", code, got, want)
		}
	}
	if !store.Unreachable(fmt.Errorf("commit: %w", pgconn.ErrConnClosed)) {
		t.Errorf("a connection the driver closed is not read as unreachable")
	}
}
