-- Sign-in limits live in the database, so every instance behind a load balancer enforces the same
-- ones, and an attempt is reserved before its password is checked: 'checking' is an attempt whose
-- bcrypt is still running. It counts as a failure until it is finished, so twenty wrong passwords
-- sent at once cannot all pass a limit of ten. An attempt left 'checking' by a process that died
-- ages out of the window like any failure.
ALTER TYPE login_outcome ADD VALUE IF NOT EXISTS 'checking';

CREATE INDEX login_attempts_address ON login_attempts (address, created_at DESC);
CREATE INDEX login_attempts_email ON login_attempts (lower(email), created_at DESC);
