-- Per-account tokens for the read-only JSON API, so scripts read without a browser session. Only
-- the SHA-256 of a token is kept: the token is shown once, when made, and a copy of this table
-- opens nothing. A token reads what its account may read, and stops with a revocation or when the
-- account is disabled.
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
