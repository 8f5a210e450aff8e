package lmsfake

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// Execer is what RelaxAuditTargetCheck needs of a connection: *pgx.Conn, *pgxpool.Pool and pgx.Tx
// all have it.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// RelaxAuditTargetCheck changes the LMS's audit table the way regdesk asks the LMS team to, so the
// LMS's own bulk-transition and unscoped requeue-retryable can record their audit rows: the CHECK
// target_id_kind ((target_id IS NULL) = (target_kind = 'phase')) refuses a row about a selection
// of registrations, which has no single target. After this a phase row still names no target_id,
// and any other row may name one or not. Call it on a database built by lmsdb.Apply, as the LMS's
// owner, before the fake serves a bulk transition; without it the fake answers such calls as the
// LMS as read does, with 400 and nothing written.
func RelaxAuditTargetCheck(ctx context.Context, db Execer) error {
	_, err := db.Exec(ctx, `
ALTER TABLE credit_registration_admin_actions
  DROP CONSTRAINT credit_registration_admin_actions_target_id_kind,
  ADD CONSTRAINT credit_registration_admin_actions_target_id_kind
    CHECK (target_kind <> 'phase' OR target_id IS NULL)`)
	if err != nil {
		return fmt.Errorf("lmsfake: relax the audit table's target check: %w", err)
	}
	return nil
}

// FollowClock makes the LMS's set_timestamp trigger stamp updated_at with the fake's clock
// (Options.Now) in the transactions the fake writes, and with now() in every other one: a test on
// a clock of its own then sees a hand action's updated_at, events and audit rows at one instant, as
// the LMS's own clock dates them all. Call it on a database built by lmsdb.Apply, as the LMS's
// owner. It changes only the trigger function's body; nothing else of the LMS's shape.
func FollowClock(ctx context.Context, db Execer) error {
	_, err := db.Exec(ctx, `
CREATE OR REPLACE FUNCTION trigger_set_timestamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at = coalesce(nullif(current_setting('lmsfake.now', true), '')::timestamptz, now());
  RETURN NEW;
END;
$$`)
	if err != nil {
		return fmt.Errorf("lmsfake: make set_timestamp follow the fake's clock: %w", err)
	}
	return nil
}
