-- The audit shows the role a person had when they acted, not the one they have now: a support
-- person who changed an account and was made an admin later must still read as support on that
-- line. Hand actions keep their actor's role since 0001 (credit_registration_admin_actions.
-- actor_role); account changes kept none, and the audit read the actor's current role.
--
-- NULL for the server's command line (nobody signed in) and for the rows written before this
-- migration: those are read with the role the account's own recorded role changes say it had at
-- the time (store.auditFrom), the table being append-only and every role change since 0014 in it.
ALTER TABLE account_changes ADD COLUMN actor_role account_role;
