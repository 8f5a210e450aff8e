-- A long bulk apply runs in the background (web/bulk_jobs.go) and the person watches
-- /bulk/jobs/{id}. The job was kept in the server's memory, so a restart lost the page, and a job
-- cut short by one left no word of what became of it. Here it is kept in the database: the page
-- survives a restart and is found by any instance.
--
-- The apply is one transaction (store.RegistrationBulkApply), and the job's end (outcome
-- 'applied' with its result) is written in that same transaction, so a job whose rows were changed
-- always says so. A job with no outcome whose heartbeat has stopped was cut short before its
-- commit: none of its rows was changed, and its page says that. 'failed' is an apply that ended in
-- an error, rolled back, nothing changed either.
CREATE TABLE bulk_jobs (
  id uuid PRIMARY KEY,
  owner_id uuid NOT NULL REFERENCES accounts (id),
  action text NOT NULL,
  reason text NOT NULL,
  total integer NOT NULL CHECK (total >= 0),
  -- Rows gone through so far, as the last heartbeat saw them (uncommitted work: nothing to see
  -- in the rows until the outcome is 'applied').
  done integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL,
  heartbeat_at timestamptz NOT NULL,
  ended_at timestamptz,
  outcome text CHECK (outcome IN ('applied', 'failed')),
  -- store.BulkResult as JSON, with the outcome 'applied'.
  result jsonb,
  CHECK ((outcome IS NULL) = (ended_at IS NULL))
);
-- Old jobs are deleted by age when a new one starts.
CREATE INDEX idx_bulk_jobs_started ON bulk_jobs (started_at);
