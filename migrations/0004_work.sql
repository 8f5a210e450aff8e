-- What people do in regdesk that the LMS does not keep: who is on a row, what they looked up in
-- Sisu, what regdesk itself did on their behalf, and bulk jobs.

-- "I'm on it": one live claim per LMS registration.
CREATE TABLE claims (
  credit_registration_id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  claimed_at timestamptz NOT NULL,
  touched_at timestamptz NOT NULL
);
CREATE INDEX idx_claims_account ON claims (account_id, touched_at DESC);

-- A person's Sisu lookup of a registration. Recorded, never a change to the row: the LMS's events
-- have no kind for it. details is store.LookupRecord; the suotar_* columns describe its
-- attainments call, as the LMS's events describe the pipeline's calls.
CREATE TABLE lookups (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL,
  credit_registration_id uuid NOT NULL,
  account_id uuid REFERENCES accounts (id),
  -- The row's state when it was looked up.
  state text,
  message text,
  details jsonb NOT NULL,
  suotar_endpoint text,
  suotar_requested_at timestamptz,
  suotar_answered_at timestamptz,
  suotar_answer text
);
CREATE INDEX idx_lookups_registration ON lookups (credit_registration_id, created_at DESC);
CREATE INDEX idx_lookups_created ON lookups (created_at DESC);

-- regdesk's own audit: what a person did through regdesk (claims; hand actions asked of the LMS,
-- with the LMS's answer), append-only. The LMS keeps its own audit of what it applied
-- (credit_registration_admin_actions); regdesk's pages show both.
CREATE TABLE actions (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id),
  actor_role account_role NOT NULL,
  -- The hand action (schedule.Action values) or 'claim' / 'release'.
  action text NOT NULL,
  target_kind text NOT NULL CHECK (target_kind IN ('credit_registration', 'course_module', 'course', 'phase')),
  target_id uuid,
  target_phase text,
  reason text NOT NULL CHECK (btrim(reason) <> ''),
  before_state text,
  after_state text,
  details jsonb,
  affected_row_count int NOT NULL DEFAULT 1,
  CONSTRAINT actions_target CHECK ((target_kind = 'phase') = (target_phase IS NOT NULL) AND (target_kind = 'phase' OR target_id IS NOT NULL))
);
CREATE INDEX idx_actions_created ON actions (created_at DESC, id DESC);
CREATE INDEX idx_actions_target ON actions (target_id, created_at DESC);
CREATE INDEX idx_actions_account ON actions (account_id, created_at DESC);
CREATE TRIGGER actions_append_only BEFORE UPDATE OR DELETE ON actions
  FOR EACH ROW EXECUTE FUNCTION refuse_change();

-- The LMS's answer to a hand action regdesk asked it for (actions). regdesk records its attempt
-- before the call and the answer after it, outside the LMS's transaction: an attempt without an
-- answer (a crash, a timeout) is one whose outcome nobody knows, and pages say "look at the row".
CREATE TABLE action_answers (
  action_id uuid PRIMARY KEY REFERENCES actions (id),
  answered_at timestamptz NOT NULL,
  -- applied, refused or no_change as the LMS answered; failed when the LMS turned the call down
  -- before acting (an error answer: nothing was applied).
  outcome text NOT NULL CHECK (outcome IN ('applied', 'refused', 'no_change', 'failed')),
  -- The LMS's refusal, or the LMS's error message for failed.
  refusal text,
  -- The row's state as the LMS answered it.
  state_after text,
  -- The LMS's answer as it came (its counts and skips for a bulk action).
  answer jsonb
);
CREATE TRIGGER action_answers_append_only BEFORE UPDATE OR DELETE ON action_answers
  FOR EACH ROW EXECUTE FUNCTION refuse_change();

CREATE TABLE bulk_jobs (
  id uuid PRIMARY KEY,
  owner_id uuid NOT NULL REFERENCES accounts (id),
  action text NOT NULL,
  reason text NOT NULL,
  total integer NOT NULL CHECK (total >= 0),
  done integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL,
  heartbeat_at timestamptz NOT NULL,
  ended_at timestamptz,
  outcome text CHECK (outcome IN ('applied', 'failed')),
  result jsonb,
  CHECK ((outcome IS NULL) = (ended_at IS NULL))
);
CREATE INDEX idx_bulk_jobs_started ON bulk_jobs (started_at);
