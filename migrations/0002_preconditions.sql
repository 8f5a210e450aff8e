-- What the LMS derives a pending row's reason from (domain.md §3.2, §3.7): the per-module Suotar
-- configuration and the credit_registration_preconditions view, with the LMS's names.

-- Per module: the pause and the result of the daily course-code check. A module without a row is
-- unpaused and its code allowed.
CREATE TABLE course_module_suotar_configurations (
  course_module_id uuid PRIMARY KEY REFERENCES course_modules (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  paused_at timestamptz,
  paused_by_user_id uuid REFERENCES accounts (id),
  pause_reason text,
  config_checked_at timestamptz,
  course_code_allowed boolean NOT NULL DEFAULT true,
  -- The trimmed course code the check ran on: a rejection holds rows only while the module still
  -- carries that code, so fixing the code releases them before the next check.
  checked_course_code text,
  course_code_rejection text,
  config_check_message text
);
CREATE TRIGGER course_module_suotar_configurations_set_timestamp BEFORE UPDATE ON course_module_suotar_configurations
  FOR EACH ROW EXECUTE FUNCTION set_timestamp();

-- One row per ledger row: the facts the preconditions phase checks, so a page can say which one a
-- pending row waits on. Deleted and superseded ledger rows are included; callers filter.
CREATE VIEW credit_registration_preconditions AS
SELECT
  cr.id AS credit_registration_id,
  cmc.deleted_at IS NOT NULL AS completion_deleted,
  (cmc.deleted_at IS NULL AND cmc.passed AND cmc.eligible_for_ects AND cmc.prerequisite_modules_completed
    AND NOT cmc.needs_to_be_reviewed) AS completion_eligible,
  s.student_number IS NOT NULL AS has_verified_student_number,
  -- The row froze a number that is no longer the one linked to the account.
  (cr.student_number IS NOT NULL AND cr.student_number IS DISTINCT FROM s.student_number) AS frozen_identity_stale,
  NOT coalesce(NOT cfg.course_code_allowed AND btrim(cfg.checked_course_code) = btrim(m.uh_course_code), false) AS course_code_allowed
FROM credit_registrations cr
  JOIN course_module_completions cmc ON cmc.id = cr.course_module_completion_id
  JOIN students s ON s.id = cr.user_id
  JOIN course_modules m ON m.id = cr.course_module_id
  LEFT JOIN course_module_suotar_configurations cfg ON cfg.course_module_id = cr.course_module_id;
