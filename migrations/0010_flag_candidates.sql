-- The rows /?reason=flagged_by_pipeline can pick: flagged by the LMS's pipeline, and explained by
-- no reason that the row's columns alone decide (store.sqlFlagCandidate, whose condition this
-- predicate must stay). At a million rows they are 950 of the 5,700 flagged ones, and the list
-- walks them newest first instead of fetching every flagged row from the heap (30 ms).
CREATE INDEX idx_ledger_mirror_flag_candidates ON ledger_mirror (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND needs_admin_attention
    AND state NOT IN ('failed_permanent', 'misregistered', 'submission_uncertain')
    AND error_code IS DISTINCT FROM 'retry_window_expired'
    AND NOT (submit_retry_count >= 5 AND terminal_at IS NULL)
    AND NOT (not_registered_reimport_count >= 3 AND terminal_at IS NULL);
