-- The overview's pictures (issue 14).
--
-- A ledger of current states cannot be replayed, so the needs-a-person pile over time is kept as a
-- daily snapshot, as the LMS's snapshot phase keeps its history: one row per Helsinki day, written
-- by the first server to get there (INSERT … ON CONFLICT (day) DO NOTHING, so exactly once however
-- many instances run). reasons maps each attention reason to its count, as the queue counts it.
-- backfilled marks the rows the demo derived from its generated history rather than counted.
CREATE TABLE attention_snapshots (
  day date PRIMARY KEY,
  taken_at timestamptz NOT NULL,
  needs_admin bigint NOT NULL CHECK (needs_admin >= 0),
  reasons jsonb NOT NULL,
  backfilled boolean NOT NULL DEFAULT false
);

-- Time to registration and registrations per day read registered rows by registered_at over the
-- last 30 and 60 days, through 0010's idx_credit_registrations_registered_at.

-- The other outcomes per day, by the day the row entered the state it is in now.
CREATE INDEX idx_credit_registrations_outcome_entered ON credit_registrations (state_entered_at) INCLUDE (state)
  WHERE deleted_at IS NULL AND state IN ('partially_registered', 'submission_uncertain', 'failed_permanent', 'cancelled');
