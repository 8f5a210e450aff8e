-- The ledger as regdesk's pages search, sort and count it: a copy of the LMS's credit_registrations,
-- narrowed to what classification and the lists read, with regdesk's own indexes and what regdesk
-- derives from the rows (each row's place in a course page's order, since when it has needed a
-- person). regdesk may not index, alter or trigger on the LMS's table, and the pages need both: a
-- million-row queue answers in milliseconds from these indexes. The copy is kept fresh by one
-- background reader (store.LedgerMirrorRefresh, run by the mirror job) that follows the ledger's
-- updated_at; a registration's own page and every hand action read the LMS's live row instead.
--
-- Every column but the derived ones at the end holds the LMS row's value as it was read; enum
-- values are text. The indexes are the queue's: each list is a prefix of one, so a page never
-- scans the copy (store's plan tests hold them).

CREATE TABLE ledger_mirror (
  id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  course_module_completion_id uuid NOT NULL,
  user_id uuid NOT NULL,
  course_id uuid NOT NULL,
  course_module_id uuid NOT NULL,
  attempt_number int NOT NULL,
  superseded_by_id uuid,
  superseded_at timestamptz,
  pending_superseded_by_id uuid,
  state text NOT NULL,
  state_entered_at timestamptz NOT NULL,
  state_changed_at timestamptz NOT NULL,
  phase_started_at timestamptz NOT NULL,
  error_code text,
  error_message text,
  needs_admin_attention boolean NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  first_failed_at timestamptz,
  last_attempt_at timestamptz,
  submit_retry_count int NOT NULL,
  verify_attempt_count int NOT NULL,
  not_registered_reimport_count int NOT NULL,
  terminal_at timestamptz,
  submitted_at timestamptz,
  registered_at timestamptz,
  partially_registered_at timestamptz,
  resubmit_not_before timestamptz,
  student_number text,
  uh_course_code text,
  sisu_attainment_id text,
  submitted_attainment_id text,
  enrolment_resolved boolean NOT NULL,
  -- Derived by regdesk when the row is copied:
  -- the row's place in a course page's order (store.CourseListOrder; 99 for a state regdesk does
  -- not know). A pending row's rank follows its preconditions, which the sweep re-reads.
  student_rank smallint NOT NULL,
  -- When the row first needed a person since it was last settled (store.sqlNeedsPersonFrom); it
  -- may lie ahead, when a time rule will fire then. NULL: it does not.
  needs_person_since timestamptz,
  -- When regdesk copied this version of the row.
  mirrored_at timestamptz NOT NULL,
  -- With updated_at, so the sweep's comparison of every row reads the copy's side from the key
  -- alone (store.LedgerMirrorSweep), and the refresh's probe of a row's copy too.
  PRIMARY KEY (id) INCLUDE (updated_at)
);

-- Where the reader is: the newest updated_at it has copied, and when it last ran.
CREATE TABLE ledger_mirror_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  -- Rows with updated_at at or after watermark − the lookback are compared on every refresh.
  watermark timestamptz,
  refreshed_at timestamptz,
  -- The last full comparison of every row, which catches a write whose transaction ran longer
  -- than the lookback and rows the LMS deleted.
  swept_at timestamptz
);
INSERT INTO ledger_mirror_state (id) VALUES (true);

CREATE INDEX idx_ledger_mirror_updated ON ledger_mirror (updated_at);
CREATE INDEX idx_ledger_mirror_user ON ledger_mirror (user_id, created_at DESC);
CREATE INDEX idx_ledger_mirror_completion ON ledger_mirror (course_module_completion_id);
CREATE INDEX idx_ledger_mirror_course_module ON ledger_mirror (course_module_id, state);
CREATE INDEX idx_ledger_mirror_superseded_by ON ledger_mirror (superseded_by_id) WHERE superseded_by_id IS NOT NULL;
CREATE INDEX idx_ledger_mirror_student_number ON ledger_mirror (student_number) WHERE student_number IS NOT NULL;
CREATE INDEX idx_ledger_mirror_submitted_attainment ON ledger_mirror (submitted_attainment_id) WHERE submitted_attainment_id IS NOT NULL;
CREATE INDEX idx_ledger_mirror_sisu_attainment ON ledger_mirror (sisu_attainment_id) WHERE sisu_attainment_id IS NOT NULL;

-- The queue lists newest activity first and pages by keyset on (updated_at, id).
CREATE INDEX idx_ledger_mirror_live_activity ON ledger_mirror (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
CREATE INDEX idx_ledger_mirror_state_activity ON ledger_mirror (state, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
CREATE INDEX idx_ledger_mirror_course_activity ON ledger_mirror (course_id, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
CREATE INDEX idx_ledger_mirror_error_code_activity ON ledger_mirror (error_code, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND error_code IS NOT NULL;
CREATE INDEX idx_ledger_mirror_course_rank_activity ON ledger_mirror (course_id, student_rank, updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;
CREATE INDEX idx_ledger_mirror_superseded_activity ON ledger_mirror (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NOT NULL;
CREATE INDEX idx_ledger_mirror_superseded_course ON ledger_mirror (course_id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NOT NULL;
CREATE INDEX idx_ledger_mirror_flagged_activity ON ledger_mirror (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND needs_admin_attention;
CREATE INDEX idx_ledger_mirror_too_many_attempts ON ledger_mirror (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND submit_retry_count >= 5 AND terminal_at IS NULL;
CREATE INDEX idx_ledger_mirror_repeatedly_not_registered ON ledger_mirror (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND not_registered_reimport_count >= 3 AND terminal_at IS NULL;
CREATE INDEX idx_ledger_mirror_permanent_error_activity ON ledger_mirror (updated_at DESC, id DESC)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND state = 'failed_permanent' AND needs_admin_attention;
CREATE INDEX idx_ledger_mirror_course_state ON ledger_mirror (course_id, state)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL;

-- The overview's and the health rules' reads.
CREATE INDEX idx_ledger_mirror_terminal_at ON ledger_mirror (terminal_at)
  WHERE terminal_at IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX idx_ledger_mirror_registered_at ON ledger_mirror (registered_at)
  WHERE registered_at IS NOT NULL AND submitted_at IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX idx_ledger_mirror_outcome_entered ON ledger_mirror (state_entered_at) INCLUDE (state)
  WHERE deleted_at IS NULL AND state IN ('partially_registered', 'submission_uncertain', 'failed_permanent', 'cancelled');
CREATE INDEX idx_ledger_mirror_module_unsettled ON ledger_mirror (course_module_id, state)
  INCLUDE (error_code, superseded_by_id)
  WHERE deleted_at IS NULL AND state NOT IN ('registered', 'duplicate', 'not_improved', 'cancelled');
CREATE INDEX idx_ledger_mirror_registered_latency ON ledger_mirror (registered_at) INCLUDE (submitted_at)
  WHERE deleted_at IS NULL AND state = 'registered';
CREATE INDEX idx_ledger_mirror_registered_entered ON ledger_mirror (state_entered_at)
  INCLUDE (registered_at, submitted_at)
  WHERE deleted_at IS NULL AND state = 'registered';
CREATE INDEX idx_ledger_mirror_failing_activity ON ledger_mirror (updated_at)
  INCLUDE (error_code, course_id, id, error_message)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND error_code IS NOT NULL;

-- Rows in verification are placed in their window by submitted_at.
CREATE INDEX idx_ledger_mirror_verification ON ledger_mirror (submitted_at) INCLUDE (course_id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered');
CREATE INDEX idx_ledger_mirror_verification_due ON ledger_mirror
  ((coalesce(submitted_at, 'infinity'::timestamptz))) INCLUDE (submitted_at, id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered');
CREATE INDEX idx_ledger_mirror_verification_activity ON ledger_mirror (updated_at DESC, id DESC)
  INCLUDE (submitted_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL
    AND state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered');
CREATE INDEX idx_ledger_mirror_late_activity ON ledger_mirror (updated_at DESC, id DESC)
  INCLUDE (state, state_changed_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND terminal_at IS NULL
    AND state IN ('ready_to_submit', 'submitting', 'awaiting_verification', 'failed_retryable');
CREATE INDEX idx_ledger_mirror_uncertain_submitted ON ledger_mirror (submitted_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND state = 'submission_uncertain';
CREATE INDEX idx_ledger_mirror_partial_since ON ledger_mirror (partially_registered_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND state = 'partially_registered';

-- Every row an attention reason can pick: a few per cent of the ledger, so computing reasons over
-- it stays cheap at a million rows. The predicate is store.sqlAttentionCandidate, word for word.
CREATE INDEX idx_ledger_mirror_attention_covering ON ledger_mirror (state, submitted_at)
  INCLUDE (course_id, needs_admin_attention, error_code, partially_registered_at, first_failed_at,
           state_entered_at, state_changed_at, submit_retry_count, not_registered_reimport_count,
           course_module_id, terminal_at)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3) AND terminal_at IS NULL));
CREATE INDEX idx_ledger_mirror_waiting ON ledger_mirror
  ((coalesce(needs_person_since, '9999-01-01T00:00:00Z'::timestamptz)), id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3) AND terminal_at IS NULL));

-- How often a state and the flag go together: the planner's estimate of the flagged
-- failed_permanent rows was off by four orders of magnitude without it.
CREATE STATISTICS ledger_mirror_state_flag (mcv) ON state, needs_admin_attention FROM ledger_mirror;

-- The moment a copied row began to need a person: a moment already reached is kept, whatever the
-- pipeline does next, until the row is settled (it ends with nothing asking a person: terminal,
-- deleted or superseded); a moment still ahead (a time rule that had not fired) is dropped when the
-- row moves on, and the row's own rules decide again. After a person's settling hand action the
-- count starts again (store.LedgerMirrorRowsAfterAction).
CREATE FUNCTION mirror_keep_waiting(kept timestamptz, onset timestamptz, written_at timestamptz, settled boolean) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT least(CASE WHEN kept > written_at OR (onset IS NULL AND settled) THEN NULL ELSE kept END, onset)
$$;
