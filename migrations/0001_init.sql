-- The registration ledger as regdesk reads it: the LMS's credit_registrations with its history and
-- audit tables, and small tables for what the LMS keeps elsewhere (students, courses, modules,
-- completions). Column and enum names are the LMS's own, so a reader of its docs recognises them.

CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE FUNCTION set_timestamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at = clock_timestamp();
  RETURN NEW;
END;
$$;

-- Students: the LMS's users, reduced to what support staff and teachers look people up by.
-- student_number is the verified student number linked to the account (NULL: none linked yet).
CREATE TABLE students (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text NOT NULL,
  student_number varchar(32),
  -- Lower-cased and accent-free "first last email number", kept by a trigger, so the search box
  -- matches "Äijälä" when typed "aijala" through one trigram index.
  search_text text NOT NULL DEFAULT ''
);
CREATE TRIGGER students_set_timestamp BEFORE UPDATE ON students FOR EACH ROW EXECUTE FUNCTION set_timestamp();

-- Folds text the way the search box compares it: accents off, lower case.
CREATE FUNCTION regdesk_fold(t text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT lower(public.unaccent('public.unaccent'::regdictionary, coalesce(t, '')))
$$;

CREATE FUNCTION students_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_text = regdesk_fold(NEW.first_name || ' ' || NEW.last_name || ' ' || NEW.email || ' ' || coalesce(NEW.student_number, ''));
  RETURN NEW;
END;
$$;
CREATE TRIGGER students_search_text BEFORE INSERT OR UPDATE OF first_name, last_name, email, student_number ON students
  FOR EACH ROW EXECUTE FUNCTION students_search_text();
CREATE INDEX students_search_text_trgm ON students USING gin (search_text gin_trgm_ops);
CREATE UNIQUE INDEX students_student_number ON students (student_number) WHERE deleted_at IS NULL;
CREATE INDEX students_email ON students (lower(email));

CREATE TABLE courses (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  name text NOT NULL,
  slug text NOT NULL UNIQUE
);
CREATE TRIGGER courses_set_timestamp BEFORE UPDATE ON courses FOR EACH ROW EXECUTE FUNCTION set_timestamp();

CREATE TABLE course_instances (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  course_id uuid NOT NULL REFERENCES courses (id),
  name text NOT NULL
);

-- A module is the unit that carries the Sisu course code and credits.
CREATE TABLE course_modules (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  course_id uuid NOT NULL REFERENCES courses (id),
  name text NOT NULL,
  order_number int NOT NULL DEFAULT 0,
  uh_course_code text,
  ects_credits real,
  enable_credit_registration_via_suotar boolean NOT NULL DEFAULT true
);
CREATE TRIGGER course_modules_set_timestamp BEFORE UPDATE ON course_modules FOR EACH ROW EXECUTE FUNCTION set_timestamp();
CREATE INDEX course_modules_course ON course_modules (course_id);

CREATE TABLE course_module_completions (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  user_id uuid NOT NULL REFERENCES students (id),
  course_id uuid NOT NULL REFERENCES courses (id),
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  course_instance_id uuid NOT NULL REFERENCES course_instances (id),
  completion_date timestamptz NOT NULL,
  grade int,
  passed boolean NOT NULL,
  eligible_for_ects boolean NOT NULL DEFAULT true,
  prerequisite_modules_completed boolean NOT NULL DEFAULT true,
  needs_to_be_reviewed boolean NOT NULL DEFAULT false,
  register_credits_via_suotar boolean NOT NULL DEFAULT true
);
CREATE TRIGGER course_module_completions_set_timestamp BEFORE UPDATE ON course_module_completions FOR EACH ROW EXECUTE FUNCTION set_timestamp();
CREATE INDEX course_module_completions_user ON course_module_completions (user_id);

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
  'service_temporarily_unavailable',
  'transport_error',
  'not_registered',
  'unauthorized',
  'malformed_request',
  'unexpected_response',
  'sisu_timeout',
  'person_not_found',
  'enrolment_not_found',
  'enrolment_not_accepted',
  'study_right_not_valid',
  'course_code_not_found',
  'course_not_allowed',
  'invalid_grade_for_grade_scale',
  'grade_scale_mismatch',
  'invalid_credits',
  'no_grade_scale_mapping',
  'missing_uh_course_code',
  'missing_ects_credits',
  'sisu_validation_failed',
  'misregistered',
  'retry_window_expired',
  'unknown'
);

CREATE TYPE credit_registration_enrolment_kind AS ENUM ('degree', 'open_university');

CREATE TYPE enrolment_check_group AS ENUM ('completed', 'visited', 'check_requested');

CREATE TABLE credit_registrations (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  -- Bumped by the trigger on every write: the optimistic-concurrency token a page carries, so a
  -- person's action applies only to the row they looked at.
  version bigint NOT NULL DEFAULT 1,

  -- Identity and links
  course_module_completion_id uuid NOT NULL REFERENCES course_module_completions (id),
  user_id uuid NOT NULL REFERENCES students (id),
  course_id uuid NOT NULL REFERENCES courses (id),
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  course_instance_id uuid NOT NULL REFERENCES course_instances (id),
  attempt_number int NOT NULL DEFAULT 1,
  superseded_by_id uuid REFERENCES credit_registrations (id) DEFERRABLE INITIALLY DEFERRED,
  superseded_at timestamptz,
  pending_superseded_by_id uuid REFERENCES credit_registrations (id) DEFERRABLE INITIALLY DEFERRED,

  -- State and bookkeeping
  state credit_registration_state NOT NULL DEFAULT 'pending',
  state_entered_at timestamptz NOT NULL DEFAULT now(),
  state_changed_at timestamptz NOT NULL DEFAULT now(),
  phase_started_at timestamptz NOT NULL DEFAULT now(),
  error_code credit_registration_error_code,
  error_message text,
  needs_admin_attention boolean NOT NULL DEFAULT false,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  first_failed_at timestamptz,
  last_attempt_at timestamptz,
  submit_retry_count int NOT NULL DEFAULT 0,
  verify_attempt_count int NOT NULL DEFAULT 0,
  not_registered_reimport_count int NOT NULL DEFAULT 0,
  terminal_at timestamptz,
  enrolment_banner_dismissed_at timestamptz,

  -- Lifecycle timestamps
  submitted_at timestamptz,
  registered_at timestamptz,
  enrolment_checked_at timestamptz,
  partially_registered_at timestamptz,
  resubmit_not_before timestamptz,
  no_usable_enrolment_since timestamptz,

  -- Frozen payload: written once before leaving checking_enrolment, never changed by regrades.
  student_number varchar(32),
  sisu_person_id text,
  uh_course_code text,
  selected_enrolment_id text,
  selected_enrolment_kind credit_registration_enrolment_kind,
  selected_enrolment_realisation_id text,
  selected_enrolment_realisation_name jsonb,
  attainment_language text,
  grade_scale_id text,
  grade_id text,
  credits real,
  -- Its date in Helsinki is the attainment date Sisu records.
  attained_at timestamptz,

  -- Suotar handles
  submitted_attainment_id text,
  submitted_attainment_type text,
  sisu_attainment_id text,
  sisu_attainment_type text,

  -- Enrolment check schedule (the part the dashboard shows)
  enrolment_check_group enrolment_check_group,
  enrolment_check_step int,
  enrolment_check_due_at timestamptz,
  enrolment_checks_stopped_at timestamptz,

  CONSTRAINT credit_registrations_superseded_pair CHECK ((superseded_by_id IS NULL) = (superseded_at IS NULL)),
  CONSTRAINT credit_registrations_superseded_by_not_self CHECK (superseded_by_id IS NULL OR superseded_by_id <> id),
  CONSTRAINT credit_registrations_pending_superseded_by_not_self CHECK (pending_superseded_by_id IS NULL OR pending_superseded_by_id <> id),
  CONSTRAINT credit_registrations_superseded_or_pending CHECK (superseded_by_id IS NULL OR pending_superseded_by_id IS NULL),
  CONSTRAINT credit_registrations_registered_at_set CHECK (state <> 'registered' OR registered_at IS NOT NULL),
  CONSTRAINT credit_registrations_attempt_counts_nonnegative CHECK (submit_retry_count >= 0 AND verify_attempt_count >= 0 AND attempt_number >= 1),
  CONSTRAINT credit_registrations_reimport_count_nonnegative CHECK (not_registered_reimport_count >= 0)
);

CREATE FUNCTION credit_registrations_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at = clock_timestamp();
  NEW.version = OLD.version + 1;
  RETURN NEW;
END;
$$;
CREATE TRIGGER credit_registrations_touch BEFORE UPDATE ON credit_registrations FOR EACH ROW EXECUTE FUNCTION credit_registrations_touch();

-- The LMS's own indexes that the dashboard's reads can use.
CREATE UNIQUE INDEX uq_credit_registrations_completion ON credit_registrations (course_module_completion_id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND state NOT IN ('registered', 'duplicate', 'not_improved');
CREATE UNIQUE INDEX uq_credit_registrations_completion_attempt ON credit_registrations (course_module_completion_id, attempt_number)
  WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX uq_credit_registrations_sisu_attainment ON credit_registrations (sisu_attainment_id)
  WHERE sisu_attainment_id IS NOT NULL AND deleted_at IS NULL;
CREATE UNIQUE INDEX uq_credit_registrations_person_module ON credit_registrations (sisu_person_id, course_module_id)
  WHERE sisu_person_id IS NOT NULL AND deleted_at IS NULL AND superseded_by_id IS NULL AND pending_superseded_by_id IS NULL
    AND state IN ('submitting', 'submission_uncertain', 'awaiting_verification', 'partially_registered', 'registered', 'duplicate', 'not_improved');
CREATE INDEX idx_credit_registrations_user ON credit_registrations (user_id, created_at DESC);
CREATE INDEX idx_credit_registrations_course_module ON credit_registrations (course_module_id, state);
CREATE INDEX idx_credit_registrations_superseded_by ON credit_registrations (superseded_by_id) WHERE superseded_by_id IS NOT NULL;
CREATE INDEX idx_credit_registrations_pending_superseded_by ON credit_registrations (pending_superseded_by_id) WHERE pending_superseded_by_id IS NOT NULL;

-- The dashboard's own indexes. The queue lists newest activity first and pages by keyset on
-- (updated_at, id); every filter is a prefix of one of these, so a page never scans the ledger.
CREATE INDEX idx_credit_registrations_live_activity ON credit_registrations (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
CREATE INDEX idx_credit_registrations_state_activity ON credit_registrations (state, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
CREATE INDEX idx_credit_registrations_course_activity ON credit_registrations (course_id, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
CREATE INDEX idx_credit_registrations_error_code_activity ON credit_registrations (error_code, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND error_code IS NOT NULL;
-- Rows in verification are placed in their window by submitted_at.
CREATE INDEX idx_credit_registrations_verification ON credit_registrations (submitted_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('awaiting_verification', 'partially_registered', 'submission_uncertain');
-- Every row an attention reason can pick: unfinished, flagged, or expired. A small share of the
-- ledger, so computing reasons over it stays cheap at a million rows.
CREATE INDEX idx_credit_registrations_attention ON credit_registrations (state)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND (state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled')
      OR needs_admin_attention OR error_code = 'retry_window_expired');
CREATE INDEX idx_credit_registrations_student_number ON credit_registrations (student_number) WHERE student_number IS NOT NULL;
CREATE INDEX idx_credit_registrations_submitted_attainment ON credit_registrations (submitted_attainment_id) WHERE submitted_attainment_id IS NOT NULL;

CREATE TYPE credit_registration_event_kind AS ENUM (
  'created',
  'state_changed',
  'suotar_response',
  'retry_scheduled',
  'admin_action',
  'student_action',
  'cancelled',
  -- regdesk's addition: a person looked the row up in Sisu. Recorded, never a state change.
  'sisu_lookup'
);

CREATE TYPE suotar_endpoint AS ENUM (
  'resolve_persons',
  'resolve_enrolments',
  'import_attainments',
  'verify_attainments',
  'list_by_course',
  'validate_course_codes'
);

CREATE TYPE suotar_answer AS ENUM ('answered', 'unanswered', 'refused');

-- Staff accounts. Roles decide what a person may see and do; teachers see their courses only.
CREATE TYPE account_role AS ENUM ('admin', 'support', 'teacher');

CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  name text NOT NULL,
  email text NOT NULL,
  role account_role NOT NULL,
  password_hash text,
  disabled_at timestamptz
);
CREATE TRIGGER accounts_set_timestamp BEFORE UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION set_timestamp();
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE account_courses (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  course_id uuid NOT NULL REFERENCES courses (id),
  PRIMARY KEY (account_id, course_id)
);

-- Append-only history of a row. actor_user_id names the staff account of a person's action.
CREATE TABLE credit_registration_events (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  credit_registration_id uuid NOT NULL REFERENCES credit_registrations (id) ON DELETE RESTRICT,
  kind credit_registration_event_kind NOT NULL DEFAULT 'state_changed',
  from_state credit_registration_state,
  to_state credit_registration_state,
  error_code credit_registration_error_code,
  message text,
  actor_user_id uuid REFERENCES accounts (id),
  details jsonb,
  request_item_id text,
  suotar_endpoint suotar_endpoint,
  suotar_requested_at timestamptz,
  suotar_answered_at timestamptz,
  suotar_answer suotar_answer
);
CREATE INDEX idx_credit_registration_events_registration ON credit_registration_events (credit_registration_id, created_at DESC);
CREATE INDEX idx_credit_registration_events_kind ON credit_registration_events (kind, created_at DESC);

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

-- The audit of every hand action, written in the same transaction as its effect. Never updated or
-- deleted: the trigger below refuses both.
CREATE TABLE credit_registration_admin_actions (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  action credit_registration_admin_action NOT NULL,
  target_kind credit_registration_admin_action_target NOT NULL,
  target_id uuid,
  target_phase text,
  actor_user_id uuid NOT NULL REFERENCES accounts (id),
  actor_role text NOT NULL,
  actor_course_id uuid REFERENCES courses (id),
  reason text NOT NULL CHECK (btrim(reason) <> ''),
  before_state credit_registration_state,
  after_state credit_registration_state,
  details jsonb,
  affected_row_count int NOT NULL DEFAULT 1,
  CONSTRAINT credit_registration_admin_actions_target CHECK ((target_kind = 'phase') = (target_phase IS NOT NULL) AND (target_kind = 'phase' OR target_id IS NOT NULL))
);
CREATE INDEX idx_credit_registration_admin_actions_created ON credit_registration_admin_actions (created_at DESC, id DESC);
CREATE INDEX idx_credit_registration_admin_actions_target ON credit_registration_admin_actions (target_id, created_at DESC);
CREATE INDEX idx_credit_registration_admin_actions_actor ON credit_registration_admin_actions (actor_user_id, created_at DESC);

CREATE FUNCTION refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit_registration_admin_actions is append-only';
END;
$$;
CREATE TRIGGER credit_registration_admin_actions_append_only BEFORE UPDATE OR DELETE ON credit_registration_admin_actions
  FOR EACH ROW EXECUTE FUNCTION refuse_audit_change();

CREATE TYPE credit_registration_attention_reason AS ENUM (
  'uncertain_overdue',
  'partial_overdue',
  'verification_gave_up',
  'repeatedly_not_registered',
  'retry_window_expired',
  'misregistered',
  'permanent_error',
  'stuck_past_recovery_grace',
  'too_many_attempts',
  'running_late',
  'flagged_by_pipeline'
);

-- A person's "seen it" on a row's attention reasons: they stay dismissed until a different reason
-- fires. One live dismissal per row; a new one soft-deletes the old.
CREATE TABLE credit_registration_attention_dismissals (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  credit_registration_id uuid NOT NULL REFERENCES credit_registrations (id),
  dismissed_reasons credit_registration_attention_reason[] NOT NULL CHECK (cardinality(dismissed_reasons) > 0),
  dismissed_by_user_id uuid NOT NULL REFERENCES accounts (id),
  reason text NOT NULL CHECK (btrim(reason) <> '')
);
CREATE UNIQUE INDEX uq_credit_registration_attention_dismissals_live ON credit_registration_attention_dismissals (credit_registration_id)
  WHERE deleted_at IS NULL;

-- scs/pgxstore's session table, as its README gives it.
CREATE TABLE sessions (
  token text PRIMARY KEY,
  data bytea NOT NULL,
  expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);
