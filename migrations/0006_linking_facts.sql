-- What the LMS's student_number_stuck reads of a pending row, kept in regdesk's copy of the ledger:
-- facts of the LMS's tables other than the ledger (the completion's eligibility and the student's
-- verified number through credit_registration_preconditions, the completion's date against the
-- LMS's account_linking_since, the "I have enrolled" press, the code's roster schedule, the
-- linking emails), derived when a row is copied (store.linkingFactsJoin says which is which). They
-- move without the ledger row moving, so each refresh re-derives the rows they may have moved (a
-- stuck row, a row on a code whose roster schedule was written) and the sweep every pending row.
-- Copied rather than joined at read time: the counts read every attention candidate from one index,
-- and these joins would cost five lookups for each of a million-row ledger's fifty thousand pending
-- rows on every count. false and NULL for a row in any other state.
ALTER TABLE ledger_mirror
  ADD COLUMN linking_awaits boolean NOT NULL DEFAULT false,
  ADD COLUMN linking_pressed_at timestamptz,
  ADD COLUMN linking_fetch_started_at timestamptz,
  ADD COLUMN linking_email_since_press boolean NOT NULL DEFAULT false;

-- A stuck student's row is an attention candidate: the candidates' indexes take it in
-- (store.sqlAttentionCandidate, word for word), and the covering one carries the facts, so the
-- counts still read the candidates from the index alone.
DROP INDEX idx_ledger_mirror_attention_covering;
DROP INDEX idx_ledger_mirror_waiting;
CREATE INDEX idx_ledger_mirror_attention_covering ON ledger_mirror (state, submitted_at)
  INCLUDE (course_id, needs_admin_attention, error_code, partially_registered_at, first_failed_at,
           state_entered_at, state_changed_at, submit_retry_count, not_registered_reimport_count,
           course_module_id, terminal_at, linking_awaits, linking_pressed_at, linking_fetch_started_at,
           linking_email_since_press)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3) AND terminal_at IS NULL)
    OR (state = 'pending' AND linking_awaits AND NOT linking_email_since_press
        AND linking_fetch_started_at - linking_pressed_at >= interval '3600000000 microseconds'));
CREATE INDEX idx_ledger_mirror_waiting ON ledger_mirror
  ((coalesce(needs_person_since, '9999-01-01T00:00:00Z'::timestamptz)), id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3) AND terminal_at IS NULL)
    OR (state = 'pending' AND linking_awaits AND NOT linking_email_since_press
        AND linking_fetch_started_at - linking_pressed_at >= interval '3600000000 microseconds'));
