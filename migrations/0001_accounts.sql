-- regdesk's own schema. regdesk runs beside the LMS, in the LMS's database: everything regdesk
-- keeps lives in the schema "regdesk" (store.Migrate creates it when missing and runs every file
-- with search_path = regdesk, so no file can reach an LMS object by name). Rows of the LMS (users,
-- courses, modules, registrations) are referred to by plain uuid columns, never by a foreign key:
-- a foreign key onto an LMS table would put triggers on it and needs a privilege regdesk's role
-- does not have. States and error codes are kept as text, never as the LMS's enum types, so an
-- LMS migration that rebuilds an enum finds nothing of regdesk's depending on it.
--
-- This file: staff accounts, their sessions, sign-in attempts, account changes, password links and
-- API tokens.

-- Roles decide what a person may see and do; teachers see their courses only.
CREATE TYPE account_role AS ENUM ('admin', 'support', 'teacher');

CREATE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at = clock_timestamp();
  RETURN NEW;
END;
$$;

CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  name text NOT NULL,
  email text NOT NULL,
  role account_role NOT NULL,
  password_hash text,
  disabled_at timestamptz,
  language text CHECK (language IN ('fi', 'sv', 'en')),
  language_set_at timestamptz,
  -- The LMS user (users.id) this person is: regdesk shows "you" on the LMS's audit rows that name
  -- it, and acts through the LMS's admin endpoints as that user. NULL: no LMS user, so no action.
  lms_user_id uuid
);
CREATE TRIGGER accounts_set_updated_at BEFORE UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));
CREATE UNIQUE INDEX accounts_lms_user ON accounts (lms_user_id) WHERE lms_user_id IS NOT NULL;

-- A teacher's courses: LMS course ids.
CREATE TABLE account_courses (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  course_id uuid NOT NULL,
  PRIMARY KEY (account_id, course_id)
);

-- scs's session table, as its pgxstore's README gives it (tokens are stored hashed, store.SessionStore).
CREATE TABLE sessions (
  token text PRIMARY KEY,
  data bytea NOT NULL,
  expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

CREATE TYPE login_outcome AS ENUM (
  'success',
  'wrong_password',
  'unknown_account',
  -- The account exists but has no password: it signs in through the single sign-on proxy only.
  'no_password',
  'disabled',
  -- Refused before the password was checked: too many recent failures from the address or for the account.
  'rate_limited',
  -- Counted before the password is checked, under a lock, and rewritten with the outcome after.
  'checking'
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
CREATE INDEX login_attempts_address ON login_attempts (address, created_at DESC);
CREATE INDEX login_attempts_email ON login_attempts (lower(email), created_at DESC);

-- Every change to an account, with who made it and why: append-only.
CREATE TABLE account_changes (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id),
  actor_user_id uuid REFERENCES accounts (id),
  actor_role account_role,
  change text NOT NULL CHECK (change IN ('created', 'role_changed', 'courses_changed', 'disabled', 'enabled',
    'password_link_issued', 'password_set', 'api_token_created', 'api_token_revoked', 'lms_user_changed')),
  reason text NOT NULL CHECK (btrim(reason) <> ''),
  details jsonb
);
CREATE INDEX idx_account_changes_account ON account_changes (account_id, created_at DESC);
CREATE INDEX idx_account_changes_created ON account_changes (created_at DESC, id DESC);

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER account_changes_append_only BEFORE UPDATE OR DELETE ON account_changes
  FOR EACH ROW EXECUTE FUNCTION refuse_change();

CREATE TABLE account_password_links (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  created_by uuid REFERENCES accounts (id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  superseded boolean NOT NULL DEFAULT false,
  CONSTRAINT account_password_links_expiry CHECK (expires_at > created_at)
);
CREATE INDEX idx_account_password_links_account ON account_password_links (account_id) WHERE used_at IS NULL;

CREATE TABLE api_tokens (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  name text NOT NULL CHECK (btrim(name) <> ''),
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX idx_api_tokens_account ON api_tokens (account_id, created_at DESC);
