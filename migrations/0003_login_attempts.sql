-- Every sign-in attempt, successful or not: when, from which address, the e-mail address typed,
-- the account it named (when one exists) and what came of it. Read when an account is locked out
-- or probed; rows are only ever added.

CREATE TYPE login_outcome AS ENUM (
  'success',
  'wrong_password',
  'unknown_account',
  -- The account exists but has no password: it signs in through the single sign-on proxy only.
  'no_password',
  'disabled',
  -- Refused before the password was checked: too many recent failures from the address or for the account.
  'rate_limited'
);

CREATE TABLE login_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  created_at timestamptz NOT NULL,
  address text NOT NULL,
  email text NOT NULL,
  account_id uuid REFERENCES accounts (id) ON DELETE SET NULL,
  outcome login_outcome NOT NULL
);
CREATE INDEX login_attempts_created ON login_attempts (created_at DESC, id DESC);
CREATE INDEX login_attempts_account ON login_attempts (account_id, created_at DESC) WHERE account_id IS NOT NULL;
