-- The queue's reasons are computed only on rows some reason can pick. 0001's attention index
-- covered every unfinished row (pending and enrolment-waiting rows too, most of the live ledger);
-- this one covers the rows a reason can actually pick, a few per cent, so counting and listing
-- what needs admin stay fast on a million rows. Its predicate is store/classify.go's
-- sqlAttentionCandidate, word for word, so the planner can prove a query implies it.
CREATE INDEX idx_credit_registrations_attention_candidates ON credit_registrations (state)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3)
        AND state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled')));

DROP INDEX idx_credit_registrations_attention;
