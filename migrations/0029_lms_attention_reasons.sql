-- The attention reasons are the LMS's eleven, with the LMS's rules (issue 25, item 4): a row is on
-- regdesk's needs-a-person list exactly when it is on the LMS's Needs attention queue, and a
-- dismissal written in either place hides the same reasons in both. schedule/reason.go holds the
-- vocabulary and store/classify.go the SQL; the names and their order are the LMS's enum
-- credit_registration_attention_reason (migration 71065364207, models/.../attention.rs).
--
-- 1. Dismissals store the LMS's reasons. Nobody runs regdesk on real data, so the old rows are
-- mapped where the LMS has the same meaning and otherwise dropped: the three uncertain reasons are
-- outcome_uncertain, partial_overdue is partly_registered_overdue, running_late is stuck_in_state,
-- and stuck_past_recovery_grace has no LMS reason (a dismissal left covering nothing is deleted).
ALTER TABLE credit_registration_attention_dismissals ADD COLUMN lms_reasons text[];
UPDATE credit_registration_attention_dismissals d SET lms_reasons = ARRAY(
  SELECT DISTINCT m.lms FROM unnest(d.dismissed_reasons::text[]) AS r (old)
    JOIN (VALUES ('outcome_uncertain', 'outcome_uncertain'), ('submission_time_missing', 'outcome_uncertain'),
                 ('uncertain_overdue', 'outcome_uncertain'), ('partial_overdue', 'partly_registered_overdue'),
                 ('verification_gave_up', 'verification_gave_up'), ('repeatedly_not_registered', 'repeatedly_not_registered'),
                 ('retry_window_expired', 'retry_window_expired'), ('misregistered', 'misregistered'),
                 ('permanent_error', 'permanent_error'), ('too_many_attempts', 'too_many_attempts'),
                 ('running_late', 'stuck_in_state'), ('flagged_by_pipeline', 'flagged_by_pipeline')) AS m (old, lms)
      ON m.old = r.old
  ORDER BY m.lms);
DELETE FROM credit_registration_attention_dismissals WHERE cardinality(lms_reasons) = 0;
ALTER TABLE credit_registration_attention_dismissals DROP COLUMN dismissed_reasons;
DROP TYPE credit_registration_attention_reason;
CREATE TYPE credit_registration_attention_reason AS ENUM (
  'stuck_in_state',
  'permanent_error',
  'retry_window_expired',
  'misregistered',
  'too_many_attempts',
  'outcome_uncertain',
  'partly_registered_overdue',
  'verification_gave_up',
  'repeatedly_not_registered',
  'student_number_stuck',
  'flagged_by_pipeline'
);
ALTER TABLE credit_registration_attention_dismissals
  ADD COLUMN dismissed_reasons credit_registration_attention_reason[];
UPDATE credit_registration_attention_dismissals SET dismissed_reasons = lms_reasons::credit_registration_attention_reason[];
ALTER TABLE credit_registration_attention_dismissals
  ALTER COLUMN dismissed_reasons SET NOT NULL,
  ADD CONSTRAINT credit_registration_attention_dismissals_dismissed_reasons_check CHECK (cardinality(dismissed_reasons) > 0),
  DROP COLUMN lms_reasons;

-- 2. The daily snapshots count the needs-a-person rows per reason by name: the same mapping, the
-- counts of reasons that become one added up (the three uncertain ones never applied together).
UPDATE attention_snapshots s SET reasons = coalesce((
  SELECT jsonb_object_agg(x.lms, x.n) FROM (
    SELECT m.lms, sum(e.value::bigint) AS n FROM jsonb_each_text(s.reasons) AS e
      JOIN (VALUES ('outcome_uncertain', 'outcome_uncertain'), ('submission_time_missing', 'outcome_uncertain'),
                   ('uncertain_overdue', 'outcome_uncertain'), ('partial_overdue', 'partly_registered_overdue'),
                   ('verification_gave_up', 'verification_gave_up'), ('repeatedly_not_registered', 'repeatedly_not_registered'),
                   ('retry_window_expired', 'retry_window_expired'), ('misregistered', 'misregistered'),
                   ('permanent_error', 'permanent_error'), ('too_many_attempts', 'too_many_attempts'),
                   ('running_late', 'stuck_in_state'), ('flagged_by_pipeline', 'flagged_by_pipeline')) AS m (old, lms)
        ON m.old = e.key
    GROUP BY m.lms) x), '{}'::jsonb);

-- 3. needs_person_since (0019) follows the new rules, word for word schedule.Classify's
-- NeedsAdmin, dismissals aside (store/waiting_test.go holds the two together): the entry into
-- submission_uncertain or misregistered; the write that carries a person-level reason no column
-- dates (permanent_error, retry_window_expired, too_many_attempts, repeatedly_not_registered, the
-- flag alone); the instant a time rule fires (partly registered for 72 hours, unconfirmed for 336).
-- The retry window's end and the recovery graces are no longer reasons, only notes. The LMS tests
-- terminal_at, not the state. The flag asks a person only while stuck_in_state does not explain
-- it: a flagged row already past its state's threshold when written asks nobody, and one that
-- passes it later keeps its stamp, which readers show only while the row needs a person.
CREATE OR REPLACE FUNCTION regdesk_needs_person_from(cr credit_registrations, written_at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN cr.deleted_at IS NOT NULL OR cr.superseded_by_id IS NOT NULL THEN NULL ELSE least(
    -- outcome_uncertain; misregistered
    CASE WHEN cr.state IN ('submission_uncertain', 'misregistered') THEN least(cr.state_changed_at, written_at) END,
    -- permanent_error, retry_window_expired, too_many_attempts, repeatedly_not_registered
    CASE WHEN (cr.state = 'failed_permanent' AND cr.needs_admin_attention) OR cr.error_code = 'retry_window_expired'
      OR (cr.terminal_at IS NULL AND (cr.submit_retry_count >= 5 OR cr.not_registered_reimport_count >= 3)) THEN written_at END,
    -- flagged_by_pipeline, unless stuck_in_state applies at the write (schedule.StuckThreshold)
    CASE WHEN cr.needs_admin_attention AND NOT coalesce(cr.terminal_at IS NULL AND (
        (cr.state = 'ready_to_submit' AND cr.state_changed_at < written_at - interval '2 hours')
        OR (cr.state = 'submitting' AND cr.state_changed_at < written_at - interval '15 minutes')
        OR (cr.state = 'awaiting_verification' AND cr.state_changed_at < written_at - interval '24 hours')
        OR (cr.state = 'failed_retryable' AND cr.state_changed_at < written_at - interval '72 hours')), false)
      THEN written_at END,
    -- partly_registered_overdue (PartialRegistrationAdminAfter)
    CASE WHEN cr.state = 'partially_registered' THEN cr.partially_registered_at + interval '72 hours' END,
    -- verification_gave_up (VerifyMaxAge)
    CASE WHEN cr.state IN ('awaiting_verification', 'partially_registered') THEN cr.submitted_at + interval '336 hours' END
  ) END
$$;

-- A stamp still ahead was a time rule that has not fired; the retired ones (the retry window, the
-- recovery graces) never will, so those rows are stamped afresh. A derived write: version and
-- updated_at stay.
SELECT set_config('regdesk.derived_write', 'on', true);
UPDATE credit_registrations cr SET needs_person_since = regdesk_needs_person_from(cr, now())
WHERE cr.needs_person_since > now() AND cr.deleted_at IS NULL;
SELECT set_config('regdesk.derived_write', 'off', true);

-- 4. The indexes whose predicates are the rules' (store/classify.go, word for word): the counters
-- and stuck_in_state read terminal_at, so the attention candidates' condition does, and the
-- covering index holds terminal_at for the counts' index-only scan.
DROP INDEX idx_credit_registrations_attention_covering;
CREATE INDEX idx_credit_registrations_attention_covering ON credit_registrations (state, submitted_at)
  INCLUDE (course_id, needs_admin_attention, error_code, partially_registered_at, first_failed_at,
           state_entered_at, state_changed_at, submit_retry_count, not_registered_reimport_count,
           course_module_id, terminal_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3) AND terminal_at IS NULL));

DROP INDEX idx_credit_registrations_waiting;
CREATE INDEX idx_credit_registrations_waiting ON credit_registrations
  ((coalesce(needs_person_since, '9999-01-01T00:00:00Z'::timestamptz)), id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3) AND terminal_at IS NULL));

DROP INDEX idx_credit_registrations_too_many_attempts;
CREATE INDEX idx_credit_registrations_too_many_attempts ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND submit_retry_count >= 5 AND terminal_at IS NULL;
DROP INDEX idx_credit_registrations_repeatedly_not_registered;
CREATE INDEX idx_credit_registrations_repeatedly_not_registered ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND not_registered_reimport_count >= 3 AND terminal_at IS NULL;

-- stuck_in_state's list (0026's running_late list) walks the four threshold states newest first;
-- the rows are the ones with terminal_at NULL, which in those states is every row the pipeline
-- wrote.
DROP INDEX idx_credit_registrations_late_activity;
CREATE INDEX idx_credit_registrations_late_activity ON credit_registrations (updated_at DESC, id DESC)
  INCLUDE (state, state_changed_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND terminal_at IS NULL
    AND state IN ('ready_to_submit', 'submitting', 'awaiting_verification', 'failed_retryable');
