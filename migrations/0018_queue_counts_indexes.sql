-- The queue's counts read a million-row ledger in milliseconds (issue 11).

-- 1. The attention candidates (0004), covering every column a reason reads. 0004's index held only
-- the state, so each reason's count fetched every candidate row from the heap to test its times and
-- counters: the uncertain_overdue, partial_overdue, running_late and needs-a-person counts each
-- fetched 9,000 to 14,000 rows, 20 to 40 ms apiece at a million rows. With the columns in the
-- index, every count of the queue is an index-only scan that stops at store.QueueCountCap, and
-- submitted_at as the second key makes uncertain_overdue and outcome_uncertain ranges of it.
-- course_id is there for a teacher's scope. The predicate is still store/classify.go's
-- sqlAttentionCandidate word for word, so the planner can prove a query implies it.
CREATE INDEX idx_credit_registrations_attention_covering ON credit_registrations (state, submitted_at)
  INCLUDE (course_id, needs_admin_attention, error_code, partially_registered_at, first_failed_at,
           state_entered_at, state_changed_at, submit_retry_count, not_registered_reimport_count)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3)
        AND state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled')));
DROP INDEX idx_credit_registrations_attention_candidates;

-- 2. The verification phases (waiting, dense_window, late_window, backing_off, past_give_up_age)
-- in the queue's order. A window is a range of submitted_at (0001's verification index), but the
-- queue wants it newest activity first: a window holding many rows (backing_off) is best read in
-- that order, stopping at a page, and without this index that order was the whole live ledger's
-- (124 ms for backing_off at a million rows, walking past every settled row).
CREATE INDEX idx_credit_registrations_verification_activity ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('awaiting_verification', 'partially_registered', 'submission_uncertain');

-- 3. A teacher's counts are the same counts within their courses. No index held the state within
-- a course, so counting a course's registered rows read the whole ledger sequentially, and every
-- other state's count fetched its rows to test the course. Few distinct keys: deduplicated, the
-- index is small.
CREATE INDEX idx_credit_registrations_course_state ON credit_registrations (course_id, state)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
