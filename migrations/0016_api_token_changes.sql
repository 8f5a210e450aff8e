-- Making and revoking an API token are changes to an account's credentials, recorded with the
-- account's other changes.
ALTER TABLE account_changes DROP CONSTRAINT account_changes_change_check;
ALTER TABLE account_changes ADD CONSTRAINT account_changes_change_check CHECK (change IN ('created', 'role_changed',
  'courses_changed', 'disabled', 'enabled', 'password_link_issued', 'password_set', 'api_token_created', 'api_token_revoked'));
