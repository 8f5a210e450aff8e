-- The courses page counts each course module's rows that need a person from the attention
-- candidates' covering index (issue 14: /courses for support within 100 ms cold at a million rows).
--
-- 0018's index holds every column a reason reads but not the course module, so the count per
-- module fetched all 22,000 candidates from the heap (37 ms of the page's 100 at a million rows).
-- With course_module_id among its columns the count is an index-only scan, and the few rows a
-- dismissal covers are taken off in Go, as the queue's counts do. The predicate stays
-- store/classify.go's sqlAttentionCandidate word for word.
DROP INDEX idx_credit_registrations_attention_covering;
CREATE INDEX idx_credit_registrations_attention_covering ON credit_registrations (state, submitted_at)
  INCLUDE (course_id, needs_admin_attention, error_code, partially_registered_at, first_failed_at,
           state_entered_at, state_changed_at, submit_retry_count, not_registered_reimport_count,
           course_module_id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3)
        AND state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled')));
