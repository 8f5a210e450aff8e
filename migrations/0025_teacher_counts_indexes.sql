-- A teacher's queue counts from indexes alone (issue 11).
--
-- A teacher's counts are scoped to their courses (course_id = ANY(...)). The verification
-- windows' capped counts read 0001's submitted_at index and went to the heap for every entry to
-- learn its course, and the superseded phase's read 0004's superseded_by index the same way: 41 ms
-- for the phases of the largest course at a million rows. With course_id in the submitted_at index
-- (an INCLUDE column: the window is still one range, and the unscoped counts read it as before)
-- and a small index of the superseded rows by course, every phase of a teacher's counts is an
-- index-only scan: 8 ms. Built in the migration's transaction: the verification rows are a few per
-- cent of the ledger (under a second at a million rows).
DROP INDEX idx_credit_registrations_verification;
CREATE INDEX idx_credit_registrations_verification ON credit_registrations (submitted_at) INCLUDE (course_id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered');
CREATE INDEX idx_credit_registrations_superseded_course ON credit_registrations (course_id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NOT NULL;
