-- The verification phases' and running_late's lists read only an index (issue 11).
--
-- A verification phase's list (waiting, the two windows, backing off, past give-up age) walks
-- 0018's index of the verification rows newest first and keeps the rows whose submitted_at is in
-- the phase's range; it went to the heap for every entry to read submitted_at (past_give_up_age:
-- 12.7 ms for 51 rows at a million). With submitted_at included, the walk is index-only.
DROP INDEX idx_credit_registrations_verification_activity;
CREATE INDEX idx_credit_registrations_verification_activity ON credit_registrations (updated_at DESC, id DESC)
  INCLUDE (submitted_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered');
-- running_late's list is "in one of the four states that have a threshold, and in it longer than
-- the threshold", newest first. It read the four states from the state index, fetched each of
-- their 15,000 rows (at a million) from the heap for state_changed_at, and sorted the 2,870 that
-- were late: 19 ms. This index yields those states' rows newest first with what the condition
-- reads, so the list stops at its page.
CREATE INDEX idx_credit_registrations_late_activity ON credit_registrations (updated_at DESC, id DESC)
  INCLUDE (state, state_changed_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('ready_to_submit', 'submitting', 'awaiting_verification', 'failed_retryable');
