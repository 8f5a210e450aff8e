-- The overview reads registered rows by registered_at over 30 and 60 days (time to registration,
-- registrations per day): 0010's index on registered_at leaves state and submitted_at in the
-- table, so each of those 180,000 rows of a million-row ledger was a heap visit and the planner
-- preferred the whole table. This one holds exactly the registered rows with their submission
-- time, so both reads are index-only ranges.
CREATE INDEX idx_credit_registrations_registered_latency ON credit_registrations (registered_at) INCLUDE (submitted_at)
  WHERE deleted_at IS NULL AND state = 'registered';
