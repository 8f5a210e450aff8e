-- A bulk apply of many rows is a job any instance runs (maintenance.BulkApply), not work held by
-- the request's process: the request writes the job with everything the apply needs (params),
-- and an instance claims it with SKIP LOCKED (claimed_at), as the outbox's mails are claimed. A
-- claimed job whose heartbeat stopped was cut short while the LMS may have been asked: the next
-- claimer ends it as interrupted, truthfully, and never runs it twice.

ALTER TABLE bulk_jobs
  ADD COLUMN params jsonb,
  ADD COLUMN claimed_at timestamptz,
  DROP CONSTRAINT bulk_jobs_outcome_check,
  ADD CONSTRAINT bulk_jobs_outcome_check CHECK (outcome IN ('applied', 'failed', 'interrupted'));

CREATE INDEX idx_bulk_jobs_open ON bulk_jobs (started_at) WHERE outcome IS NULL;
