-- The dense window's rows, read from one range (issue 11).
--
-- A verification row is in the dense window when it has no submission time or was submitted
-- between 10.5 and 4.5 hours ago. Written as "submitted_at IS NULL OR (window)", no index range
-- holds it: the queue's capped count for /?phase=dense_window walked 0001's submitted_at index
-- from its oldest entry, dropping 70,000 rows before the window at ten million (224 to 659 ms,
-- 25 ms at a million). With NULL read as infinity the window and the NULL rows are one range of
-- this expression, from the window's far end up; the rows submitted in the last 4.5 hours inside
-- that range are filtered out (store/classify.go's phaseCondition). Its columns make the count
-- an index-only scan: 0.5 ms at ten million. The expression is immutable (a constant for NULL),
-- so it can be indexed. PostgreSQL keeps no statistics for a partial index's expression, so the
-- planner guesses a third of the rows for the range: the index is still the cheapest way to it.
CREATE INDEX idx_credit_registrations_verification_due ON credit_registrations
  ((coalesce(submitted_at, 'infinity'::timestamptz))) INCLUDE (submitted_at, id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered');
