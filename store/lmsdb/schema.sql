-- The LMS's own tables, in the shape the LMS (rage/secret-project-331) gives them, for regdesk's
-- tests and demo only. regdesk's migrations never apply this file: in production these objects
-- belong to the LMS and already exist.
--
-- Written for regdesk from the facts of the LMS's migrations (names, types, nullability, defaults,
-- enum values in their final order, CHECKs, foreign keys among the tables here, indexes,
-- triggers); no LMS file is copied. A number in brackets is the stored-text id of the LMS file the
-- fact was read from (see /work/shared/lms-database.md §0); paths are under
-- services/headless-lms/ in the LMS repository. Where a file exists in several versions, the
-- newest was used.
--
-- Sources, object by object:
--   extensions uuid-ossp, pg_trgm   migrations/20210216125447_setup_db.up.sql [12822632997];
--                                   gist_trgm_ops in the user_details search indexes [56669853704]
--   trigger_set_timestamp()         migrations/20210216125447_setup_db.up.sql [12822632997]
--   users (stub)                    models/src/users.rs [56467916682]; email_domain [3137196705]
--   user_details (stub)             [3137196705] (table), [56645016628] (search_helper),
--                                   [56298049466]/[56176118055] (name_/email_search_helper and
--                                   their GiST indexes, which replaced search_helper's own index),
--                                   [60803375201] (email_verified_at/_method), model
--                                   models/src/user_details.rs [56296200182]
--   email_verification_method       [60803375201]
--   roles (stub), user_role         migrations/20210607201656_create-roles.up.sql [12362401094],
--                                   20210611092622_add_timestamps_to_user_roles.up.sql
--                                   [12554597950], models/src/roles.rs [2763279393];
--                                   credit_registration_admin [71367552670]; value order from its
--                                   down migration [71084481204]
--   courses (stub)                  models/src/courses.rs [12182435808], setup_db [12822632997],
--                                   20210416062216_add_slugs.up.sql [12543039962]
--   course_instances (stub)         models/src/course_instances.rs [2981046427]
--   course_modules (stub)           [2979698021], [12033691419] (default module), uh_course_code
--                                   [3042768867], completion_registration_link_override
--                                   [2496048625], ects_credits [3246864322] (REAL per
--                                   [60803375201]), enable_credit_registration_via_suotar
--                                   [60803375201], register_eligible_new_completions_via_suotar
--                                   [69566211898]
--   course_module_completions       [3042768867] (table), needs_to_be_reviewed [3106902459],
--     (stub)                        register_credits_via_suotar [67159228286], course_instance_id
--                                   dropped [34120982172], models/src/course_module_completions.rs
--                                   [2409940398] (prerequisite_modules_completed,
--                                   completion_granter_user_id)
--   study_registry_registrars,      [3042768867]; registrar nullable [60947754120] (its down);
--     course_module_completion_     registrar/user index [69566211898]
--     registered_to_study_registries
--     (stubs)
--   email_deliveries (stub)         [60803375201] (user_id nullable, recipient_email)
--   ledger enums                    [60803375201], state [61086656936] + partially_registered
--                                   [71542775304], error_code and suotar_endpoint [69566211898],
--                                   admin_action/_target additions [71065364207] [71204060542],
--                                   suotar_answer [71367552670], enrolment_check_* [69566211898],
--                                   attention_reason/timeline_step/engagement [71065364207],
--                                   enrolment_route [67159228286]
--   credit_registrations            [60803375201] [60801992535] [61086656936] [69566211898]
--                                   [71026410769] [71065364207] [71378720443]
--   credit_registration_events      [60803375201] [69566211898] [71367552670]
--   credit_registration_admin_actions [60803375201]
--   credit_registration_attention_dismissals [71065364207]
--   credit_registration_phase_state [60803375201] [60801992535] [69566211898]
--   suotar_api_calls                [60803375201] [61086656936] [69566211898]
--   suotar_endpoint_rate_limits     [69566211898]
--   credit_registration_daily_snapshots [60803375201]
--   credit_registration_daily_step_snapshots, _daily_attention_snapshots [71065364207]
--   credit_registration_enrolment_routes [67159228286]
--   credit_registration_enrolment_check_signals [69566211898] [71204060542]
--   credit_registration_enrolment_check_outcomes [69566211898]
--   credit_registration_roster_schedules [69566211898] [71204060542]
--   credit_registration_account_linking_emails [60803375201] [71204060542]
--   verified_student_numbers        [60803375201] [69566211898]
--   student_number_verification_tokens [60803375201]
--   study_registry_student_number_conflicts [69566211898] [71204060542]
--   course_module_suotar_configurations  model models/src/course_module_suotar_configurations/
--                                   configuration.rs [71033737740] with the ALTERs in
--                                   [69566211898] [71204060542]; its creating migration is not in
--                                   the index, so the types of the columns it took over from
--                                   course_modules follow [60803375201]
--   is_usable_verification_token(), restarted_ladder_anchor() [71204060542]
--   views credit_registration_eligible_completions [67159228286],
--         credit_registration_registrable_completions, credit_registration_active_course_modules
--         [61086656936], credit_registration_preconditions and
--         study_registry_reported_student_numbers [69566211898]
--
-- Stubs keep only what the ledger, its views, the attention query
-- (models/src/credit_registrations/attention.rs [71168911011]) and the dashboard read, plus the
-- NOT NULL columns an INSERT must fill. Their foreign keys to tables outside this file
-- (organizations, course_language_groups, exams, email_templates) are left out.

CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- The LMS's shared updated_at trigger: a write that changes something stamps now(); a write that
-- changes nothing keeps the old row, updated_at included.
CREATE FUNCTION public.trigger_set_timestamp() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF row(NEW.*) IS NOT DISTINCT FROM row(OLD.*) THEN
    RETURN OLD;
  END IF;
  NEW.updated_at = now();
  RETURN NEW;
END;
$$;

-- Everything below lands in public whatever the connection's search path: SET LOCAL lasts only
-- until the transaction that Apply's one multi-statement Exec runs in ends.
SET LOCAL search_path = public;

----------------------------------------------------------------------------------------------------
-- Accounts (stubs)

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  upstream_id integer,
  email_domain varchar(255) CHECK (trim(email_domain) <> '')
);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON users
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

CREATE TYPE email_verification_method AS ENUM (
  'emailed_code', 'password_reset_backfill', 'tmc_confirmed', 'admin_asserted'
);

-- No soft delete in the LMS: rows here are only ever hard-deleted. The LMS also has a
-- clear_email_verification trigger; it writes user_email_codes, which is not in this file.
CREATE TABLE user_details (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  first_name varchar(255) CHECK (trim(first_name) <> ''),
  last_name varchar(255) CHECK (trim(last_name) <> ''),
  email varchar(255) NOT NULL CHECK (email LIKE '%@%'),
  -- Both name orders on purpose, so a partial name matches either way round. No concat_ws: a stored
  -- generated column needs immutable expressions.
  search_helper text GENERATED ALWAYS AS (
    lower(replace(
      user_id::text || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' '
        || coalesce(last_name, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(email, ''),
      '  ', ' '))
  ) STORED,
  name_search_helper text GENERATED ALWAYS AS (
    lower(btrim(
      coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(last_name, '')
        || ' ' || coalesce(first_name, '')))
  ) STORED,
  email_search_helper text GENERATED ALWAYS AS (lower(coalesce(email, ''))) STORED,
  email_verified_at timestamptz,
  email_verified_method email_verification_method,
  CONSTRAINT user_details_email_verification_consistent
    CHECK ((email_verified_at IS NULL) = (email_verified_method IS NULL))
);
CREATE UNIQUE INDEX users_email ON user_details (lower(email));
CREATE INDEX user_details_name_search_helper_gist ON user_details
  USING gist (name_search_helper gist_trgm_ops);
CREATE INDEX user_details_email_search_helper_gist ON user_details
  USING gist (email_search_helper gist_trgm_ops);
CREATE INDEX user_details_email_trgm_idx ON user_details USING gist (lower(email::text) gist_trgm_ops);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON user_details
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

----------------------------------------------------------------------------------------------------
-- Courses (stubs)

CREATE TABLE courses (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  name varchar(255) NOT NULL,
  slug varchar(255) NOT NULL,
  organization_id uuid NOT NULL,
  language_code varchar(255) NOT NULL,
  course_language_group_id uuid NOT NULL,
  is_draft boolean NOT NULL DEFAULT false,
  is_test_mode boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX courses_slug_live ON courses (slug) WHERE deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON courses
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- name is NULL for a course's default instance.
CREATE TABLE course_instances (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_id uuid NOT NULL REFERENCES courses (id),
  name varchar(255),
  teacher_in_charge_name varchar(255) NOT NULL,
  teacher_in_charge_email varchar(255) NOT NULL
);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON course_instances
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- name is NULL exactly for a course's default module, which takes order_number 0.
CREATE TABLE course_modules (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_id uuid NOT NULL REFERENCES courses (id),
  name varchar(255),
  order_number integer NOT NULL,
  uh_course_code varchar(255),
  ects_credits real,
  completion_registration_link_override varchar(255),
  enable_registering_completion_to_uh_open_university boolean NOT NULL DEFAULT false,
  enable_credit_registration_via_suotar boolean NOT NULL DEFAULT false,
  register_eligible_new_completions_via_suotar boolean NOT NULL DEFAULT false,
  CONSTRAINT default_course_module_is_first_in_order CHECK ((name IS NULL) = (order_number = 0)),
  CONSTRAINT course_modules_register_new_completions_requires_suotar
    CHECK (NOT register_eligible_new_completions_via_suotar OR enable_credit_registration_via_suotar)
);
CREATE UNIQUE INDEX default_course_module_uniqueness ON course_modules (course_id)
  WHERE name IS NULL AND deleted_at IS NULL;
CREATE INDEX idx_course_modules_suotar_enabled ON course_modules (course_id, order_number)
  WHERE enable_credit_registration_via_suotar AND deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON course_modules
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- No course_instance_id: the LMS dropped it in 2025.
CREATE TABLE course_module_completions (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_id uuid NOT NULL REFERENCES courses (id),
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  user_id uuid NOT NULL REFERENCES users (id),
  completion_date timestamptz NOT NULL,
  completion_registration_attempt_date timestamptz,
  completion_language varchar(15) NOT NULL
    CHECK (completion_language ~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?-[A-Z]{2}$'),
  eligible_for_ects boolean NOT NULL,
  email varchar(255) NOT NULL,
  grade integer,
  passed boolean NOT NULL,
  prerequisite_modules_completed boolean NOT NULL DEFAULT false,
  completion_granter_user_id uuid REFERENCES users (id),
  needs_to_be_reviewed boolean NOT NULL DEFAULT false,
  register_credits_via_suotar boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX course_module_automatic_completion_uniqueness
  ON course_module_completions (course_module_id, course_id, user_id)
  WHERE completion_granter_user_id IS NULL AND deleted_at IS NULL;
CREATE INDEX course_module_completions_user_id_course_id_idx
  ON course_module_completions (user_id, course_id);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON course_module_completions
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

CREATE TYPE user_role AS ENUM (
  'admin', 'assistant', 'teacher', 'reviewer', 'course_or_exam_creator', 'material_viewer',
  'teaching_and_learning_services', 'stats_viewer', 'credit_registration_admin'
);

-- One row per grant. A global grant has is_global and no domain id; the others name one of
-- organization, course, course instance or exam.
CREATE TABLE roles (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  user_id uuid NOT NULL REFERENCES users (id),
  organization_id uuid,
  course_id uuid REFERENCES courses (id),
  course_instance_id uuid REFERENCES course_instances (id),
  exam_id uuid,
  role user_role NOT NULL,
  is_global boolean NOT NULL DEFAULT false
);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON roles
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- The pull path's registrars and what they report (stubs: the views and the conflicts table read
-- them).
CREATE TABLE study_registry_registrars (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  secret_key varchar(255) NOT NULL UNIQUE CONSTRAINT secret_key_minimum_length CHECK (length(secret_key) > 15),
  name varchar(255) NOT NULL
);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON study_registry_registrars
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- study_registry_registrar_id is NULL on the rows the push path mirrors itself.
CREATE TABLE course_module_completion_registered_to_study_registries (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_id uuid NOT NULL REFERENCES courses (id),
  course_module_completion_id uuid NOT NULL REFERENCES course_module_completions (id),
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  study_registry_registrar_id uuid REFERENCES study_registry_registrars (id),
  user_id uuid NOT NULL REFERENCES users (id),
  real_student_number varchar(255) NOT NULL
);
CREATE INDEX idx_cmc_registered_to_study_registries_registrar_user
  ON course_module_completion_registered_to_study_registries (user_id, created_at DESC)
  WHERE deleted_at IS NULL AND study_registry_registrar_id IS NOT NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON course_module_completion_registered_to_study_registries
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- Stub: the ledger and the linking mails point at their deliveries.
CREATE TABLE email_deliveries (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  user_id uuid REFERENCES users (id),
  recipient_email varchar(255),
  sent boolean NOT NULL DEFAULT false
);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON email_deliveries
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

----------------------------------------------------------------------------------------------------
-- Credit registration: enums, in their final order

CREATE TYPE credit_registration_state AS ENUM (
  'pending',
  'ready_to_submit',
  'resolving_enrolment',
  'checking_enrolment',
  'no_usable_enrolment',
  'submitting',
  'submission_uncertain',
  'awaiting_verification',
  'partially_registered',
  'registered',
  'duplicate',
  'not_improved',
  'misregistered',
  'failed_retryable',
  'failed_permanent',
  'blocked',
  'cancelled'
);

CREATE TYPE credit_registration_error_code AS ENUM (
  'person_not_found',
  'course_code_not_found',
  'enrolment_not_found',
  'enrolment_not_accepted',
  'invalid_grade_for_grade_scale',
  'grade_scale_mismatch',
  'course_not_allowed',
  'invalid_credits',
  'study_right_not_valid',
  'sisu_validation_failed',
  'sisu_timeout',
  'service_temporarily_unavailable',
  'misregistered',
  'not_registered',
  'unauthorized',
  'malformed_request',
  'transport_error',
  'unexpected_response',
  'no_grade_scale_mapping',
  'missing_uh_course_code',
  'missing_ects_credits',
  'retry_window_expired',
  'unknown'
);

CREATE TYPE credit_registration_event_kind AS ENUM (
  'created', 'state_changed', 'suotar_response', 'retry_scheduled', 'admin_action', 'student_action',
  'cancelled'
);

CREATE TYPE suotar_endpoint AS ENUM (
  'resolve_persons', 'resolve_enrolments', 'import_attainments', 'verify_attainments',
  'list_by_course', 'validate_course_codes'
);

CREATE TYPE suotar_answer AS ENUM ('answered', 'unanswered', 'refused');

CREATE TYPE credit_registration_admin_action AS ENUM (
  'retry_item',
  'retry_failed_for_course',
  'force_recheck',
  'mark_resolved',
  'requeue_batch',
  'transition_item',
  'cancel_registration',
  'pause_course_module',
  'resume_course_module',
  'pause_phase',
  'resume_phase',
  'run_phase_now',
  'resend_link_email',
  'unlink_student_number',
  'manual_link_student_number',
  'override_rate_cap',
  'dismiss_attention',
  'request_enrolment_list_fetch',
  'dismiss_study_registry_conflict'
);

CREATE TYPE credit_registration_admin_action_target AS ENUM (
  'credit_registration',
  'course_module',
  'course',
  'phase',
  'verified_student_number',
  'student_number_verification_token',
  'roster_schedule',
  'study_registry_student_number_conflict'
);

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

CREATE TYPE credit_registration_timeline_step AS ENUM (
  'course_not_registrable_yet',
  'waiting_for_student_number',
  'held_for_course_code',
  'looking_for_enrolment',
  'waiting_for_enrolment',
  'sending',
  'answer_unclear',
  'waiting_for_assessment_item',
  'waiting_for_course_unit',
  'registered',
  'already_in_sisu',
  'better_grade_in_sisu',
  'recorded_wrongly',
  'needs_a_person',
  'not_registering',
  'no_longer_registrable'
);

CREATE TYPE credit_registration_engagement AS ENUM ('pressed', 'visited', 'not_started');

CREATE TYPE enrolment_check_group AS ENUM ('completed', 'visited', 'check_requested');

CREATE TYPE enrolment_check_source AS ENUM (
  'schedule', 'student_request', 'teacher_request', 'admin_request', 'roster_listing', 'account_link'
);

CREATE TYPE credit_registration_enrolment_route AS ENUM ('university_of_helsinki', 'open_university');

CREATE TYPE student_number_verification_method AS ENUM ('emailed_link', 'admin_manual', 'study_registry');

----------------------------------------------------------------------------------------------------
-- Student numbers

-- One live row per account, per student number and per Sisu person. sisu_person_id is NULL only on
-- study_registry rows, whose registrar reports a number and no person.
CREATE TABLE verified_student_numbers (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  user_id uuid NOT NULL REFERENCES users (id),
  student_number varchar(32) NOT NULL,
  sisu_person_id varchar(255),
  first_names varchar(255),
  last_name varchar(255),
  verified_at timestamptz NOT NULL DEFAULT now(),
  verified_via student_number_verification_method NOT NULL DEFAULT 'emailed_link',
  verified_via_email varchar(255),
  linked_by_user_id uuid REFERENCES users (id),
  link_reason text,
  verified_from_course_id uuid REFERENCES courses (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT student_number_format CHECK (student_number ~ '^[0-9]{6,12}$'),
  CONSTRAINT verified_student_numbers_proof_address
    CHECK ((verified_via IN ('admin_manual', 'study_registry')) = (verified_via_email IS NULL)),
  CONSTRAINT verified_student_numbers_admin_linker
    CHECK ((verified_via = 'admin_manual') = (linked_by_user_id IS NOT NULL)),
  CONSTRAINT verified_student_numbers_link_reason
    CHECK (verified_via = 'admin_manual' OR link_reason IS NULL),
  CONSTRAINT verified_student_numbers_person_id
    CHECK (verified_via = 'study_registry' OR sisu_person_id IS NOT NULL)
);
CREATE UNIQUE INDEX uq_verified_student_numbers_user ON verified_student_numbers (user_id)
  WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX uq_verified_student_numbers_number ON verified_student_numbers (student_number)
  WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX uq_verified_student_numbers_person ON verified_student_numbers (sisu_person_id)
  WHERE deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON verified_student_numbers
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

CREATE TABLE student_number_verification_tokens (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  token varchar(255) NOT NULL,
  claimed_by_user_id uuid REFERENCES users (id),
  student_number varchar(32) NOT NULL,
  sisu_person_id varchar(255) NOT NULL,
  first_names varchar(255),
  last_name varchar(255),
  emailed_to varchar(255) NOT NULL,
  course_id uuid REFERENCES courses (id),
  expires_at timestamptz NOT NULL DEFAULT now() + interval '14 days',
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT student_number_verification_token_length CHECK (length(token) >= 128)
);
CREATE UNIQUE INDEX uq_student_number_verification_token
  ON student_number_verification_tokens (token, deleted_at) NULLS NOT DISTINCT WHERE used_at IS NULL;
CREATE INDEX idx_student_number_verification_tokens_number
  ON student_number_verification_tokens (student_number, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_student_number_verification_tokens_claimed_by
  ON student_number_verification_tokens (claimed_by_user_id, created_at DESC)
  WHERE claimed_by_user_id IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX idx_student_number_verification_tokens_expires
  ON student_number_verification_tokens (expires_at) WHERE used_at IS NULL AND deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON student_number_verification_tokens
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- Whether a token's link can still be claimed; FALSE for the all-NULL row of an outer join.
CREATE FUNCTION is_usable_verification_token(t student_number_verification_tokens) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT coalesce(t.deleted_at IS NULL AND t.used_at IS NULL AND t.expires_at > now(), false)
$$;

-- A row holds the dedup place for its person, course and address until replaced_at is set.
CREATE TABLE credit_registration_account_linking_emails (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  student_number varchar(32) NOT NULL,
  sisu_person_id varchar(255) NOT NULL,
  course_id uuid NOT NULL REFERENCES courses (id),
  emailed_to varchar(255) NOT NULL,
  student_number_verification_token_id uuid REFERENCES student_number_verification_tokens (id),
  email_delivery_id uuid REFERENCES email_deliveries (id),
  sent_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  replaced_at timestamptz
);
CREATE UNIQUE INDEX uq_account_linking_email_person_course_address
  ON credit_registration_account_linking_emails (sisu_person_id, course_id, lower(emailed_to))
  WHERE deleted_at IS NULL AND replaced_at IS NULL;
CREATE INDEX idx_account_linking_emails_course
  ON credit_registration_account_linking_emails (course_id, sent_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_account_linking_emails_person_sent
  ON credit_registration_account_linking_emails (sisu_person_id, sent_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_account_linking_emails_token
  ON credit_registration_account_linking_emails (student_number_verification_token_id)
  WHERE student_number_verification_token_id IS NOT NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_account_linking_emails
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

----------------------------------------------------------------------------------------------------
-- Per-module configuration

-- Keyed on course_module_id alone (the LMS upserts ON CONFLICT (course_module_id)); a deleted row is
-- resurrected rather than inserted beside.
CREATE TABLE course_module_suotar_configurations (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  paused_at timestamptz,
  paused_by_user_id uuid REFERENCES users (id),
  pause_reason text,
  config_checked_at timestamptz,
  -- NULL: not checked, or checked without a verdict from Suotar.
  course_code_allowed boolean,
  config_check_message text,
  checked_course_code varchar(255),
  course_code_rejection text,
  last_listing_attempted_at timestamptz,
  last_listed_at timestamptz,
  last_listing_error credit_registration_error_code,
  consecutive_listing_failures integer NOT NULL DEFAULT 0,
  CONSTRAINT course_module_suotar_configurations_check_result
    CHECK (config_checked_at IS NOT NULL OR course_code_allowed IS NULL)
);
CREATE UNIQUE INDEX uq_course_module_suotar_configurations
  ON course_module_suotar_configurations (course_module_id);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON course_module_suotar_configurations
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

----------------------------------------------------------------------------------------------------
-- The ledger

CREATE TABLE credit_registrations (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  course_module_completion_id uuid NOT NULL REFERENCES course_module_completions (id),
  user_id uuid NOT NULL REFERENCES users (id),
  course_id uuid NOT NULL REFERENCES courses (id),
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  course_instance_id uuid NOT NULL REFERENCES course_instances (id),
  state credit_registration_state NOT NULL DEFAULT 'pending',
  state_entered_at timestamptz NOT NULL DEFAULT now(),
  error_code credit_registration_error_code,
  error_message text,
  needs_admin_attention boolean NOT NULL DEFAULT false,
  enrolment_banner_dismissed_at timestamptz,
  -- The frozen payload: written while the enrolment is checked, never changed afterwards.
  student_number varchar(32),
  sisu_person_id varchar(255),
  uh_course_code varchar(255),
  selected_enrolment_id varchar(255),
  selected_enrolment_kind varchar(64),
  selected_enrolment_realisation_id varchar(255),
  attainment_language varchar(15),
  grade_scale_id varchar(64),
  grade_id varchar(16),
  credits real,
  submitted_attainment_id varchar(255),
  submitted_attainment_type varchar(64),
  sisu_attainment_id varchar(255),
  sisu_attainment_type varchar(64),
  submit_retry_count integer NOT NULL DEFAULT 0,
  verify_attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  first_failed_at timestamptz,
  last_attempt_at timestamptz,
  attempt_number integer NOT NULL DEFAULT 1,
  superseded_by_id uuid,
  superseded_at timestamptz,
  enrolment_checked_at timestamptz,
  submitted_at timestamptz,
  registered_at timestamptz,
  terminal_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  action_needed_email_delivery_id uuid REFERENCES email_deliveries (id),
  registered_email_delivery_id uuid REFERENCES email_deliveries (id),
  improvement_checked_completion_updated_at timestamptz,
  partially_registered_at timestamptz,
  not_registered_reimport_count integer NOT NULL DEFAULT 0,
  selected_enrolment_realisation_name jsonb,
  resubmit_not_before timestamptz,
  pending_superseded_by_id uuid,
  no_usable_enrolment_since timestamptz,
  -- The enrolment check schedule.
  enrolment_check_group enrolment_check_group NOT NULL DEFAULT 'completed',
  enrolment_check_anchor_at timestamptz,
  enrolment_check_step integer,
  enrolment_check_due_at timestamptz,
  is_enrolment_check_batched boolean NOT NULL DEFAULT false,
  enrolment_check_source enrolment_check_source NOT NULL DEFAULT 'schedule',
  enrolment_checks_stopped_at timestamptz,
  enrolment_check_requested_at timestamptz,
  enrolment_check_restart_window_started_at timestamptz,
  enrolment_check_restart_count integer NOT NULL DEFAULT 0,
  seen_enrolment_ids text[],
  enrolment_check_claimed_until timestamptz,
  state_changed_at timestamptz NOT NULL DEFAULT now(),
  phase_started_at timestamptz NOT NULL DEFAULT now(),
  attained_at timestamptz,

  -- Deferred, so an attempt can point at its successor before the successor is inserted.
  CONSTRAINT credit_registrations_superseded_by_id_fkey FOREIGN KEY (superseded_by_id)
    REFERENCES credit_registrations (id) DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT credit_registrations_pending_superseded_by_id_fkey FOREIGN KEY (pending_superseded_by_id)
    REFERENCES credit_registrations (id),
  CONSTRAINT credit_registrations_superseded_pair
    CHECK ((superseded_by_id IS NULL) = (superseded_at IS NULL)),
  CONSTRAINT credit_registrations_superseded_by_not_self CHECK (superseded_by_id <> id),
  CONSTRAINT credit_registrations_registered_at_set
    CHECK (state <> 'registered' OR registered_at IS NOT NULL),
  CONSTRAINT credit_registrations_attempt_counts_nonnegative
    CHECK (submit_retry_count >= 0 AND verify_attempt_count >= 0 AND attempt_number >= 1),
  CONSTRAINT credit_registrations_reimport_count_nonnegative CHECK (not_registered_reimport_count >= 0),
  CONSTRAINT credit_registrations_pending_superseded_by_not_self CHECK (pending_superseded_by_id <> id),
  CONSTRAINT credit_registrations_superseded_or_pending
    CHECK (superseded_by_id IS NULL OR pending_superseded_by_id IS NULL),
  -- The claim lease exists only while a lookup is out for a row parked in no_usable_enrolment.
  CONSTRAINT credit_registrations_enrolment_check_claimed
    CHECK (enrolment_check_claimed_until IS NULL OR state = 'no_usable_enrolment'),
  CONSTRAINT credit_registrations_enrolment_check_step CHECK (
    (enrolment_check_step IS NULL) = (enrolment_check_due_at IS NULL)
    AND (enrolment_check_step IS NULL OR (enrolment_check_step >= 0 AND enrolment_check_anchor_at IS NOT NULL))
  ),
  CONSTRAINT credit_registrations_enrolment_checks_stopped CHECK (
    enrolment_checks_stopped_at IS NULL
    OR (enrolment_check_step IS NULL AND enrolment_check_anchor_at IS NOT NULL)
  ),
  CONSTRAINT credit_registrations_enrolment_check_restart_count CHECK (enrolment_check_restart_count >= 0)
);

-- One live attempt per completion, except that a registered row stays live beside its regrade.
CREATE UNIQUE INDEX uq_credit_registrations_completion ON credit_registrations (course_module_completion_id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state NOT IN ('registered', 'duplicate', 'not_improved');
CREATE UNIQUE INDEX uq_credit_registrations_completion_attempt
  ON credit_registrations (course_module_completion_id, attempt_number) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX uq_credit_registrations_sisu_attainment ON credit_registrations (sisu_attainment_id)
  WHERE sisu_attainment_id IS NOT NULL AND deleted_at IS NULL;
-- The double-registration guard: one Sisu person, one module, one credit in or on its way to Sisu.
CREATE UNIQUE INDEX uq_credit_registrations_person_module
  ON credit_registrations (sisu_person_id, course_module_id)
  WHERE sisu_person_id IS NOT NULL AND deleted_at IS NULL AND superseded_by_id IS NULL
    AND pending_superseded_by_id IS NULL
    AND state IN ('submitting', 'submission_uncertain', 'awaiting_verification', 'partially_registered',
                  'registered', 'duplicate', 'not_improved');
CREATE INDEX idx_credit_registrations_due ON credit_registrations (state, next_attempt_at)
  WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_state_entered ON credit_registrations (state, state_entered_at)
  WHERE terminal_at IS NULL AND deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_terminal_at ON credit_registrations (terminal_at)
  WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_user ON credit_registrations (user_id, created_at DESC)
  WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_course_module ON credit_registrations (course_module_id, state)
  WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_course_state ON credit_registrations (course_id, state)
  WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_admin_attention ON credit_registrations (updated_at DESC)
  WHERE needs_admin_attention AND deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_superseded_by ON credit_registrations (superseded_by_id)
  WHERE superseded_by_id IS NOT NULL;
CREATE INDEX idx_credit_registrations_pending_superseded_by ON credit_registrations (pending_superseded_by_id)
  WHERE pending_superseded_by_id IS NOT NULL;
CREATE INDEX idx_credit_registrations_unnotified ON credit_registrations (state_entered_at)
  WHERE deleted_at IS NULL AND (
    (state = 'no_usable_enrolment' AND action_needed_email_delivery_id IS NULL)
    OR (state IN ('registered', 'duplicate', 'not_improved') AND registered_email_delivery_id IS NULL)
  );
CREATE INDEX idx_credit_registrations_module_error_code ON credit_registrations (course_module_id, error_code)
  WHERE error_code IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_batched_enrolment_checks ON credit_registrations (enrolment_check_due_at)
  WHERE state = 'no_usable_enrolment' AND is_enrolment_check_batched AND deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_module_created ON credit_registrations (course_module_id, created_at DESC)
  WHERE deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registrations
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- One row per HTTP call to Suotar; swept after 90 days.
CREATE TABLE suotar_api_calls (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  endpoint suotar_endpoint NOT NULL,
  request_item_count integer NOT NULL,
  http_status integer,
  duration_ms integer,
  succeeded boolean NOT NULL,
  ok_item_count integer NOT NULL DEFAULT 0,
  error_item_count integer NOT NULL DEFAULT 0,
  request_level_error_code varchar(64),
  error_message text,
  request_body_sample jsonb,
  response_body_sample jsonb,
  credit_registration_ids uuid[] NOT NULL DEFAULT '{}',
  worker_name varchar(64) NOT NULL,
  started_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  request_item_ids text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX idx_suotar_api_calls_endpoint_started ON suotar_api_calls (endpoint, started_at DESC);
CREATE INDEX idx_suotar_api_calls_started ON suotar_api_calls (started_at DESC);
CREATE INDEX idx_suotar_api_calls_failures ON suotar_api_calls (started_at DESC) WHERE NOT succeeded;
CREATE INDEX idx_suotar_api_calls_endpoint_successes ON suotar_api_calls (endpoint, started_at DESC)
  WHERE succeeded;
CREATE INDEX idx_suotar_api_calls_registration_ids ON suotar_api_calls USING gin (credit_registration_ids);
CREATE INDEX idx_suotar_api_calls_request_item_ids ON suotar_api_calls USING gin (request_item_ids);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON suotar_api_calls
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- The ledger's history. kind has no default: every writer names it.
CREATE TABLE credit_registration_events (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  credit_registration_id uuid NOT NULL REFERENCES credit_registrations (id) ON DELETE RESTRICT,
  kind credit_registration_event_kind NOT NULL,
  from_state credit_registration_state,
  to_state credit_registration_state,
  error_code credit_registration_error_code,
  message text,
  -- SET NULL: the call rows are swept, the events are kept.
  suotar_api_call_id uuid REFERENCES suotar_api_calls (id) ON DELETE SET NULL,
  actor_user_id uuid REFERENCES users (id),
  details jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  request_item_id varchar(255),
  suotar_endpoint suotar_endpoint,
  suotar_requested_at timestamptz,
  suotar_answered_at timestamptz,
  suotar_answer suotar_answer
);
CREATE INDEX idx_credit_registration_events_registration
  ON credit_registration_events (credit_registration_id, created_at DESC);
CREATE INDEX idx_credit_registration_events_kind_created ON credit_registration_events (kind, created_at DESC);
CREATE INDEX idx_credit_registration_events_error_code ON credit_registration_events (error_code, created_at DESC)
  WHERE error_code IS NOT NULL;
CREATE INDEX idx_credit_registration_events_api_call ON credit_registration_events (suotar_api_call_id)
  WHERE suotar_api_call_id IS NOT NULL;
CREATE INDEX idx_credit_registration_events_request_item_id ON credit_registration_events (request_item_id)
  WHERE request_item_id IS NOT NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_events
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- Every hand action on the pipeline. No append-only trigger in the LMS: it has set_timestamp, and
-- soft-deletes rows for personal-data erasure. actor_role is 'global_admin' or 'course_teacher'.
CREATE TABLE credit_registration_admin_actions (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  action credit_registration_admin_action NOT NULL,
  target_kind credit_registration_admin_action_target NOT NULL,
  target_id uuid,
  target_phase varchar(64),
  actor_user_id uuid NOT NULL REFERENCES users (id),
  actor_role varchar(32) NOT NULL,
  actor_course_id uuid REFERENCES courses (id),
  reason text,
  before_state credit_registration_state,
  after_state credit_registration_state,
  details jsonb,
  affected_row_count integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT credit_registration_admin_actions_target_id_kind
    CHECK ((target_id IS NULL) = (target_kind = 'phase')),
  CONSTRAINT credit_registration_admin_actions_target_phase_kind
    CHECK ((target_phase IS NOT NULL) = (target_kind = 'phase'))
);
CREATE INDEX idx_credit_registration_admin_actions_created
  ON credit_registration_admin_actions (created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registration_admin_actions_actor
  ON credit_registration_admin_actions (actor_user_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registration_admin_actions_target
  ON credit_registration_admin_actions (target_kind, target_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registration_admin_actions_course
  ON credit_registration_admin_actions (actor_course_id, created_at DESC)
  WHERE actor_course_id IS NOT NULL AND deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_admin_actions
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- An admin taking a row off the Needs attention queue, for as long as it carries only these reasons.
CREATE TABLE credit_registration_attention_dismissals (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  credit_registration_id uuid NOT NULL REFERENCES credit_registrations (id),
  dismissed_reasons credit_registration_attention_reason[] NOT NULL,
  dismissed_by_user_id uuid NOT NULL REFERENCES users (id),
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT credit_registration_attention_dismissals_reasons CHECK (cardinality(dismissed_reasons) > 0),
  CONSTRAINT credit_registration_attention_dismissals_reason CHECK (trim(reason) <> '')
);
CREATE UNIQUE INDEX uq_credit_registration_attention_dismissals_registration
  ON credit_registration_attention_dismissals (credit_registration_id) WHERE deleted_at IS NULL;
CREATE INDEX idx_credit_registration_attention_dismissals_created
  ON credit_registration_attention_dismissals (created_at DESC) WHERE deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_attention_dismissals
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

----------------------------------------------------------------------------------------------------
-- Operations

-- One row per pipeline phase, seeded here and only ever updated after.
CREATE TABLE credit_registration_phase_state (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  phase varchar(64) NOT NULL,
  process_name varchar(64) NOT NULL,
  expected_interval_secs integer NOT NULL,
  last_heartbeat_at timestamptz,
  last_run_started_at timestamptz,
  last_run_finished_at timestamptz,
  last_success_at timestamptz,
  next_run_at timestamptz,
  items_processed_last_run integer,
  items_failed_last_run integer,
  consecutive_failures integer NOT NULL DEFAULT 0,
  last_error text,
  paused_at timestamptz,
  paused_by_user_id uuid REFERENCES users (id),
  pause_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX uq_credit_registration_phase_state_phase
  ON credit_registration_phase_state (phase, deleted_at) NULLS NOT DISTINCT;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_phase_state
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- The phases as the LMS's migrations leave them: the base twelve, less product-token-refresh
-- (dropped with the product tokens), plus ledger-snapshot; enrolment-discovery runs every minute.
INSERT INTO credit_registration_phase_state (phase, process_name, expected_interval_secs) VALUES
  ('materialize', 'credit-registrar', 60),
  ('preconditions', 'credit-registrar', 10),
  ('resolve-enrolments', 'credit-registrar', 10),
  ('import', 'credit-registrar', 10),
  ('verify', 'credit-registrar', 60),
  ('legacy-mirror', 'credit-registrar', 60),
  ('student-notifications', 'credit-registrar', 60),
  ('enrolment-discovery', 'suotar-syncer', 60),
  ('link-emails', 'suotar-syncer', 1800),
  ('config-validation', 'suotar-syncer', 86400),
  ('retention-sweep', 'suotar-syncer', 3600),
  ('ledger-snapshot', 'suotar-syncer', 86400);

-- What the worker's in-memory limiter last reported per endpoint; the worker never reads it back.
CREATE TABLE suotar_endpoint_rate_limits (
  endpoint suotar_endpoint PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  rate_share real NOT NULL,
  full_rate_per_minute integer NOT NULL,
  available integer NOT NULL,
  is_breaker_open boolean NOT NULL,
  breaker_trip_count integer NOT NULL
);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON suotar_endpoint_rate_limits
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

CREATE TABLE credit_registration_daily_snapshots (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  snapshot_date date NOT NULL,
  state credit_registration_state NOT NULL,
  count integer NOT NULL,
  entered_count integer NOT NULL DEFAULT 0,
  left_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX uq_credit_registration_daily_snapshots
  ON credit_registration_daily_snapshots (snapshot_date, state, deleted_at) NULLS NOT DISTINCT;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_daily_snapshots
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

CREATE TABLE credit_registration_daily_step_snapshots (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  snapshot_date date NOT NULL,
  timeline_step credit_registration_timeline_step NOT NULL,
  engagement credit_registration_engagement,
  count integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT credit_registration_daily_step_snapshots_count CHECK (count >= 0)
);
CREATE UNIQUE INDEX uq_credit_registration_daily_step_snapshots
  ON credit_registration_daily_step_snapshots (snapshot_date, timeline_step, engagement, deleted_at)
  NULLS NOT DISTINCT;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_daily_step_snapshots
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

CREATE TABLE credit_registration_daily_attention_snapshots (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  snapshot_date date NOT NULL,
  needs_attention_count integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT credit_registration_daily_attention_snapshots_count CHECK (needs_attention_count >= 0)
);
CREATE UNIQUE INDEX uq_credit_registration_daily_attention_snapshots
  ON credit_registration_daily_attention_snapshots (snapshot_date, deleted_at) NULLS NOT DISTINCT;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_daily_attention_snapshots
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

----------------------------------------------------------------------------------------------------
-- Enrolment checks and rosters

-- What the student said about enrolling; advisory, the pipeline never waits for it.
CREATE TABLE credit_registration_enrolment_routes (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_module_completion_id uuid NOT NULL REFERENCES course_module_completions (id),
  user_id uuid NOT NULL REFERENCES users (id),
  route credit_registration_enrolment_route NOT NULL,
  enrolment_confirmed_at timestamptz
);
CREATE UNIQUE INDEX uq_credit_registration_enrolment_routes_completion
  ON credit_registration_enrolment_routes (course_module_completion_id, deleted_at) NULLS NOT DISTINCT;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_enrolment_routes
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- Visits and check requests per completion, kept whether or not a ledger row exists yet.
CREATE TABLE credit_registration_enrolment_check_signals (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_module_completion_id uuid NOT NULL REFERENCES course_module_completions (id),
  last_visited_at timestamptz,
  last_check_requested_at timestamptz,
  check_request_source enrolment_check_source,
  visit_ladder_anchor_at timestamptz,
  check_request_ladder_anchor_at timestamptz,
  CONSTRAINT credit_registration_enrolment_check_signals_request_source CHECK (
    (last_check_requested_at IS NULL) = (check_request_source IS NULL)
    AND check_request_source IS DISTINCT FROM 'schedule'
    AND check_request_source IS DISTINCT FROM 'roster_listing'
    AND check_request_source IS DISTINCT FROM 'admin_request'
  )
);
CREATE UNIQUE INDEX uq_credit_registration_enrolment_check_signals_completion
  ON credit_registration_enrolment_check_signals (course_module_completion_id) WHERE deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_enrolment_check_signals
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- The anchor a check ladder has after another signal now: kept while younger than the interval.
CREATE FUNCTION restarted_ladder_anchor(anchor_at timestamptz, min_restart_interval interval)
RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN anchor_at > now() - min_restart_interval THEN anchor_at ELSE now() END
$$;

-- One row per answered enrolment check, for tuning the schedules; no updated_at, never updated.
CREATE TABLE credit_registration_enrolment_check_outcomes (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  credit_registration_id uuid NOT NULL REFERENCES credit_registrations (id),
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  enrolment_check_group enrolment_check_group NOT NULL,
  enrolment_check_step integer,
  source enrolment_check_source NOT NULL,
  due_at timestamptz,
  checked_at timestamptz NOT NULL,
  previous_checked_at timestamptz,
  is_enrolment_found boolean NOT NULL,
  enrolled_at timestamptz
);
CREATE INDEX idx_credit_registration_enrolment_check_outcomes_checked
  ON credit_registration_enrolment_check_outcomes (checked_at DESC);
CREATE INDEX idx_credit_registration_enrolment_check_outcomes_registration
  ON credit_registration_enrolment_check_outcomes (credit_registration_id);

-- When each trimmed course code's enrolment list is fetched. No deleted_at: a row belongs to a code.
CREATE TABLE credit_registration_roster_schedules (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  course_code varchar(255) NOT NULL,
  last_attempted_at timestamptz,
  last_fetched_at timestamptz,
  last_fetch_duration_ms integer,
  last_listed_person_count integer,
  is_fetched_alone boolean NOT NULL DEFAULT false,
  consecutive_failures integer NOT NULL DEFAULT 0,
  retry_not_before timestamptz,
  last_error credit_registration_error_code,
  fetch_requested_at timestamptz,
  last_fetch_started_at timestamptz,
  last_mailing_fetch_started_at timestamptz,
  fetch_day date,
  fetch_day_count integer NOT NULL DEFAULT 0,
  linking_listed_count integer,
  linking_already_linked_count integer,
  linking_mailed_count integer,
  linking_suppressed_by_dedup_count integer,
  linking_suppressed_by_rate_cap_count integer,
  linking_no_address_count integer,
  CONSTRAINT credit_registration_roster_schedules_counts
    CHECK (consecutive_failures >= 0 AND fetch_day_count >= 0)
);
CREATE UNIQUE INDEX uq_credit_registration_roster_schedules_course_code
  ON credit_registration_roster_schedules (course_code);
CREATE TRIGGER set_timestamp BEFORE UPDATE ON credit_registration_roster_schedules
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

-- A number a registrar reported for an account that a live link kept from becoming its own.
CREATE TABLE study_registry_student_number_conflicts (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v4(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  user_id uuid NOT NULL REFERENCES users (id),
  student_number varchar(32) NOT NULL,
  registered_completion_id uuid NOT NULL
    REFERENCES course_module_completion_registered_to_study_registries (id),
  conflicting_verified_student_number_id uuid NOT NULL REFERENCES verified_student_numbers (id),
  dismissed_at timestamptz
);
CREATE UNIQUE INDEX uq_study_registry_student_number_conflicts
  ON study_registry_student_number_conflicts (user_id, student_number) WHERE deleted_at IS NULL;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON study_registry_student_number_conflicts
  FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();

----------------------------------------------------------------------------------------------------
-- Views

-- The completions the push path is responsible for. fully_eligible is the half that waiting can
-- still turn true.
CREATE VIEW credit_registration_eligible_completions AS
SELECT cmc.id AS course_module_completion_id,
  cmc.user_id,
  cmc.course_id,
  cmc.course_module_id,
  cmc.completion_date,
  cmc.created_at,
  cmc.prerequisite_modules_completed AND NOT cmc.needs_to_be_reviewed AS fully_eligible
FROM course_module_completions cmc
  JOIN course_modules cm ON cm.id = cmc.course_module_id
WHERE cm.enable_credit_registration_via_suotar
  AND cmc.register_credits_via_suotar
  AND cm.deleted_at IS NULL
  AND cmc.deleted_at IS NULL
  AND cmc.passed
  AND cmc.eligible_for_ects;

-- Eligible completions with no ledger row and not registered through the pull path.
CREATE VIEW credit_registration_registrable_completions AS
SELECT e.*
FROM credit_registration_eligible_completions e
WHERE NOT EXISTS (
    SELECT 1 FROM credit_registrations cr
    WHERE cr.course_module_completion_id = e.course_module_completion_id AND cr.deleted_at IS NULL
  )
  AND NOT EXISTS (
    SELECT 1 FROM course_module_completion_registered_to_study_registries r
    WHERE r.course_module_completion_id = e.course_module_completion_id AND r.deleted_at IS NULL
  );

-- What one ledger row waits on, as it stands now.
CREATE VIEW credit_registration_preconditions AS
SELECT cr.id AS credit_registration_id,
  cmc.deleted_at IS NOT NULL AS completion_deleted,
  cmc.deleted_at IS NULL
    AND cmc.passed
    AND cmc.eligible_for_ects
    AND cmc.prerequisite_modules_completed
    AND NOT cmc.needs_to_be_reviewed AS completion_eligible,
  vsn.id IS NOT NULL AS has_verified_student_number,
  cr.student_number IS NOT NULL
    AND (vsn.student_number IS DISTINCT FROM cr.student_number
      OR vsn.sisu_person_id IS DISTINCT FROM cr.sisu_person_id) AS frozen_identity_stale,
  NOT EXISTS (
    SELECT 1 FROM course_module_suotar_configurations conf
    WHERE conf.course_module_id = cr.course_module_id
      AND conf.deleted_at IS NULL
      AND NOT conf.course_code_allowed
      AND conf.checked_course_code = trim(cm.uh_course_code)
  ) AS course_code_allowed
FROM credit_registrations cr
  JOIN course_module_completions cmc ON cmc.id = cr.course_module_completion_id
  JOIN course_modules cm ON cm.id = cr.course_module_id
  LEFT JOIN verified_student_numbers vsn ON vsn.user_id = cr.user_id AND vsn.deleted_at IS NULL;

-- Modules whose credit registration is on and not paused.
CREATE VIEW credit_registration_active_course_modules AS
SELECT cm.id AS course_module_id,
  cm.course_id
FROM course_modules cm
  LEFT JOIN course_module_suotar_configurations conf
    ON conf.course_module_id = cm.id AND conf.deleted_at IS NULL
WHERE cm.enable_credit_registration_via_suotar
  AND cm.deleted_at IS NULL
  AND conf.paused_at IS NULL;

-- Per live account, the number a third-party registrar most recently reported, whitespace removed.
CREATE VIEW study_registry_reported_student_numbers AS
SELECT DISTINCT ON (r.user_id) r.id AS registered_completion_id,
  r.user_id,
  regexp_replace(r.real_student_number, '\s', '', 'g') AS student_number
FROM course_module_completion_registered_to_study_registries r
  JOIN users u ON u.id = r.user_id
  JOIN course_module_completions cmc ON cmc.id = r.course_module_completion_id
WHERE r.deleted_at IS NULL
  AND r.study_registry_registrar_id IS NOT NULL
  AND u.deleted_at IS NULL
  AND cmc.deleted_at IS NULL
ORDER BY r.user_id, r.created_at DESC, r.id DESC;
