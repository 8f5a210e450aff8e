-- Accounts managed in the browser by admins: the record of every change to an account, and the
-- one-time links that let a person set a new password.

-- Every change to an account, written in the same transaction as the change: who made it (NULL:
-- the command line on the server, where nobody signs in), when, why, and what changed. Never
-- updated or deleted: the trigger refuses both.
CREATE TABLE account_changes (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id),
  actor_user_id uuid REFERENCES accounts (id),
  change text NOT NULL CHECK (change IN ('created', 'role_changed', 'courses_changed', 'disabled', 'enabled',
    'password_link_issued', 'password_set')),
  reason text NOT NULL CHECK (btrim(reason) <> ''),
  details jsonb
);
CREATE INDEX idx_account_changes_account ON account_changes (account_id, created_at DESC);
CREATE INDEX idx_account_changes_created ON account_changes (created_at DESC, id DESC);

CREATE FUNCTION account_changes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'account_changes is append-only';
END;
$$;
CREATE TRIGGER account_changes_append_only BEFORE UPDATE OR DELETE ON account_changes
  FOR EACH ROW EXECUTE FUNCTION account_changes_append_only();

-- A link that sets a new password once. Only the SHA-256 of its random token is kept: the link is
-- shown once, to the admin who made it, and a copy of this table opens nothing. A newer link for
-- the same account replaces older unused ones (used_at is then set with superseded).
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
