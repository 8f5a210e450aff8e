-- "I'm on it": who is working a registration, so two support people do not look up the same row.
-- A claim warns, never locks: nothing refuses an action because of it. A claim idle longer than the
-- configured lapse (touched_at, moved by the claimer's own claiming and actions) no longer counts;
-- readers judge that at read time, so no sweep is needed and the row stays as a record of who was
-- last on it until someone claims again.
CREATE TABLE credit_registration_claims (
  credit_registration_id uuid PRIMARY KEY REFERENCES credit_registrations (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  claimed_at timestamptz NOT NULL,
  touched_at timestamptz NOT NULL
);
CREATE INDEX idx_credit_registration_claims_account ON credit_registration_claims (account_id, touched_at DESC);

-- Claiming and releasing are audited beside the hand actions. A new enum value cannot be used in
-- the transaction that adds it; nothing here uses it.
ALTER TYPE credit_registration_admin_action ADD VALUE IF NOT EXISTS 'claim';
ALTER TYPE credit_registration_admin_action ADD VALUE IF NOT EXISTS 'release';

