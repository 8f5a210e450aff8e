-- What a million-row ledger needs to answer every page in milliseconds (issue 11).

-- 1. A course page lists its registrations by student-facing status, then newest activity first,
-- and counts them per status. Computing the status per request read every row of the course with
-- its completion, student and module (267k rows for the largest course: 2.5 s). The status's
-- place in that order (store.CourseListOrder, 1-based; 99 for a state regdesk does not know) is
-- kept on the row instead, so the page is a range scan with a LIMIT and its counts are bounded
-- index-only scans. store's TestStudentRankFollowsStudentStatus holds this SQL to
-- schedule.StudentStatusOf.
ALTER TABLE credit_registrations ADD COLUMN student_rank smallint;

-- A pending row's status is its first unmet precondition (credit_registration_preconditions):
-- completion gone, completion not eligible, no verified student number, course code rejected.
CREATE FUNCTION credit_registration_pending_rank(completion uuid, student uuid, module uuid) RETURNS smallint
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN cmc.deleted_at IS NOT NULL THEN 11
    WHEN NOT (cmc.passed AND cmc.eligible_for_ects AND cmc.prerequisite_modules_completed AND NOT cmc.needs_to_be_reviewed) THEN 3
    WHEN s.student_number IS NULL THEN 1
    WHEN coalesce(NOT cfg.course_code_allowed AND btrim(cfg.checked_course_code) = btrim(m.uh_course_code), false) THEN 4
    ELSE 6 END::smallint
  FROM course_module_completions cmc
    JOIN students s ON s.id = student
    JOIN course_modules m ON m.id = module
    LEFT JOIN course_module_suotar_configurations cfg ON cfg.course_module_id = module
  WHERE cmc.id = completion
$$;

-- Ranks: 1 needs_student_number, 2 needs_enrolment, 3 waiting_for_completion, 4 held_for_course_setup,
-- 5 failed, 6 looking_for_enrolment, 7 sending, 8 waiting_for_sisu, 9 partly_registered,
-- 10 registered, 11 not_registering.
CREATE FUNCTION credit_registration_student_rank(st credit_registration_state, enrolment_resolved boolean, submitted boolean,
    completion uuid, student uuid, module uuid) RETURNS smallint
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN st = 'pending' THEN credit_registration_pending_rank(completion, student, module)
    WHEN st IN ('ready_to_submit', 'resolving_enrolment', 'checking_enrolment') THEN 6
    WHEN st = 'no_usable_enrolment' THEN 2
    WHEN st = 'submitting' THEN 7
    WHEN st = 'failed_retryable' THEN CASE WHEN enrolment_resolved OR submitted THEN 7 ELSE 6 END
    WHEN st IN ('submission_uncertain', 'awaiting_verification') THEN 8
    WHEN st = 'partially_registered' THEN 9
    WHEN st IN ('registered', 'duplicate', 'not_improved') THEN 10
    WHEN st IN ('misregistered', 'failed_permanent') THEN 5
    WHEN st IN ('blocked', 'cancelled') THEN 11
    ELSE 99 END::smallint
$$;

CREATE FUNCTION credit_registrations_student_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.student_rank = credit_registration_student_rank(NEW.state, NEW.selected_enrolment_id IS NOT NULL,
    NEW.submitted_attainment_id IS NOT NULL, NEW.course_module_completion_id, NEW.user_id, NEW.course_module_id);
  RETURN NEW;
END;
$$;
CREATE TRIGGER credit_registrations_student_rank
  BEFORE INSERT OR UPDATE OF state, selected_enrolment_id, submitted_attainment_id, course_module_completion_id, user_id, course_module_id
  ON credit_registrations FOR EACH ROW EXECUTE FUNCTION credit_registrations_student_rank();

-- A pending row's rank follows its completion, student, module and module configuration. Such a
-- refresh is not a change to the ledger row: regdesk.derived_write tells the touch trigger to
-- leave updated_at and version be, so the queue's order and a person's open page stay valid.
CREATE FUNCTION credit_registrations_refresh_pending_rank() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  module uuid;
BEGIN
  PERFORM set_config('regdesk.derived_write', 'on', true);
  IF TG_TABLE_NAME = 'course_module_completions' THEN
    UPDATE credit_registrations cr SET student_rank = credit_registration_pending_rank(cr.course_module_completion_id, cr.user_id, cr.course_module_id)
      WHERE cr.course_module_completion_id = NEW.id AND cr.state = 'pending';
  ELSIF TG_TABLE_NAME = 'students' THEN
    UPDATE credit_registrations cr SET student_rank = credit_registration_pending_rank(cr.course_module_completion_id, cr.user_id, cr.course_module_id)
      WHERE cr.user_id = NEW.id AND cr.state = 'pending';
  ELSE
    IF TG_TABLE_NAME = 'course_modules' THEN
      module = NEW.id;
    ELSIF TG_OP = 'DELETE' THEN
      module = OLD.course_module_id;
    ELSE
      module = NEW.course_module_id;
    END IF;
    UPDATE credit_registrations cr SET student_rank = credit_registration_pending_rank(cr.course_module_completion_id, cr.user_id, cr.course_module_id)
      WHERE cr.course_module_id = module AND cr.state = 'pending';
  END IF;
  PERFORM set_config('regdesk.derived_write', 'off', true);
  RETURN NULL;
END;
$$;
CREATE TRIGGER course_module_completions_pending_rank
  AFTER UPDATE OF deleted_at, passed, eligible_for_ects, prerequisite_modules_completed, needs_to_be_reviewed ON course_module_completions
  FOR EACH ROW EXECUTE FUNCTION credit_registrations_refresh_pending_rank();
CREATE TRIGGER students_pending_rank AFTER UPDATE OF student_number ON students
  FOR EACH ROW EXECUTE FUNCTION credit_registrations_refresh_pending_rank();
CREATE TRIGGER course_modules_pending_rank AFTER UPDATE OF uh_course_code ON course_modules
  FOR EACH ROW EXECUTE FUNCTION credit_registrations_refresh_pending_rank();
CREATE TRIGGER course_module_suotar_configurations_pending_rank AFTER INSERT OR UPDATE OR DELETE ON course_module_suotar_configurations
  FOR EACH ROW EXECUTE FUNCTION credit_registrations_refresh_pending_rank();

CREATE OR REPLACE FUNCTION credit_registrations_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A derived column's refresh (credit_registrations_refresh_pending_rank) is no write to the row.
  IF current_setting('regdesk.derived_write', true) = 'on' THEN
    RETURN NEW;
  END IF;
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at = clock_timestamp();
  END IF;
  NEW.version = OLD.version + 1;
  RETURN NEW;
END;
$$;

-- The rows already written get their rank without counting as changed.
SELECT set_config('regdesk.derived_write', 'on', true);
UPDATE credit_registrations cr SET student_rank = credit_registration_student_rank(cr.state, cr.selected_enrolment_id IS NOT NULL,
  cr.submitted_attainment_id IS NOT NULL, cr.course_module_completion_id, cr.user_id, cr.course_module_id);
SELECT set_config('regdesk.derived_write', 'off', true);

CREATE INDEX idx_credit_registrations_course_rank_activity ON credit_registrations (course_id, student_rank, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;

-- 2. Partial indexes whose predicates are the queue's filters word for word (store/classify.go),
-- in the queue's order (GoodJob's way): a filter then reads its own rows newest first and stops
-- at a page, and its capped count reads at most the cap.
-- /?phase=superseded sorted 7,500 rows for every page: no index held them in order.
CREATE INDEX idx_credit_registrations_superseded_activity ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NOT NULL;
-- The pipeline's flag: flagged_by_pipeline and permanent_error start from these rows.
CREATE INDEX idx_credit_registrations_flagged_activity ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND needs_admin_attention;
-- too_many_attempts and repeatedly_not_registered: live rows past a counter's threshold.
CREATE INDEX idx_credit_registrations_too_many_attempts ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND submit_retry_count >= 5
    AND state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled');
CREATE INDEX idx_credit_registrations_repeatedly_not_registered ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND not_registered_reimport_count >= 3
    AND state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled');
