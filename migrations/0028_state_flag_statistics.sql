-- The planner learns how often a state and the pipeline's flag go together (issue 11).
--
-- Taken for independent, "failed_permanent" and "flagged" made one row in ten thousand of their
-- product: the planner guessed six flagged failed_permanent rows where ten million rows hold
-- 32,500. Five executions on, the capped count of /?reason=permanent_error (the bulk bar's) went
-- to a generic plan that merge-joined those "six" rows with the dismissals, sorting all 32,500
-- first: 140 ms a page, against 2 ms planned for the values. With the pairs' most common values
-- the guess is 1,167 and the plan stops at the cap.
CREATE STATISTICS credit_registrations_state_flag (mcv) ON state, needs_admin_attention FROM credit_registrations;
ANALYZE credit_registrations;
