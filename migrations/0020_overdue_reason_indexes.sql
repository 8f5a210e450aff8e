-- The uncertain_overdue and partial_overdue filters read their few rows directly (issue 11).
--
-- Both reasons are a state and a time older than a cutoff, and the cutoff is an init plan
-- (store/classify.go's cutoff), so the planner cannot see how many rows it leaves. It chose 0001's
-- verification index (submitted_at over all three verification states) and dropped, row by row
-- from the heap, the 14,000 that were in another state or a different window: 30 to 40 ms at a
-- million rows for a list of 1,200, twice per page (the list and its capped count). An index per
-- reason that holds only that state's rows is the smallest one matching the condition, so the
-- planner takes it whatever it guesses about the cutoff (GoodJob's partial index per filter), and
-- the range is read in order: 2 ms. Each holds about 1,250 rows at a million.
CREATE INDEX idx_credit_registrations_uncertain_submitted ON credit_registrations (submitted_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND state = 'submission_uncertain';

CREATE INDEX idx_credit_registrations_partial_since ON credit_registrations (partially_registered_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND state = 'partially_registered';
