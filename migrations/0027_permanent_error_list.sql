-- permanent_error's list reads its rows in the queue's order (issue 11).
--
-- The reason is "a flagged failed_permanent row" (not one whose code is retry_window_expired).
-- The planner takes the flag and the state for independent and, with the attention candidates'
-- condition beside them, guesses one such row; it read all of them through the attention
-- candidates' index and sorted them for the page: 3,250 rows and 13 ms at a million, 32,500 and
-- 200 ms at ten million. This index holds just those rows, newest first, so the page is its first
-- fifty entries whatever the estimate: 0.8 ms at a million.
CREATE INDEX idx_credit_registrations_permanent_error_activity ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state = 'failed_permanent' AND needs_admin_attention;
