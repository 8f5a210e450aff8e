-- How long a row has needed a person counts from the moment it FIRST needed one, not from when it
-- last entered its state: a row the pipeline keeps retrying (failed_retryable → ready_to_submit →
-- submitting → failed_retryable …) or moves on and back (uncertain → awaiting verification →
-- gave up) would otherwise start again at every move. needs_person_since holds that moment,
-- stamped by the trigger below on every write, the pipeline's included, so the queue sorts by a
-- column (and its index) instead of reading every row's history on each request.
--
-- The rules, which docs and tests (store/waiting_test.go) hold the trigger to:
-- - regdesk_needs_person_from is the earliest instant at which the row, as written, asks a person
--   (schedule.Classify's NeedsAdmin, dismissals aside): the entry into submission_uncertain or
--   misregistered; the write that raised the pipeline's flag, the retry-window code or a counter
--   past its threshold; or, for the rules that fire with time, the instant they will fire
--   (partial for 3 days, unconfirmed for 14, retried for 7, stuck past the recovery grace). That
--   instant may lie ahead: readers show a row as waiting only while it needs a person, which
--   they judge themselves, and by then the stamp is behind them.
-- - A stamp already reached is kept, whatever the pipeline does next, until the row is settled:
--   it reaches a terminal state with nothing asking a person (registered, found a duplicate,
--   cancelled …), or a person's settling hand action clears it. A row that needed a person, was
--   retried and needs one again therefore keeps its first moment.
-- - After a settlement the count starts again: a registered row Sisu later reverses waits from
--   the reversal, and a row a person resubmitted, marked or cleared waits, if it needs someone
--   again, from that action at the earliest. A stamp not yet reached (a time rule that had not
--   fired) is dropped when the row moves on, and the new row's rules decide.
-- The windows are schedule's constants as of this migration (backoff.go); the agreement test
-- fails if schedule moves one without a migration that moves it here.

ALTER TABLE credit_registrations ADD COLUMN needs_person_since timestamptz;

-- The hours below are absolute (72 hours, not 3 days): a calendar interval would move by an hour
-- across a change of clocks, and schedule counts durations.
CREATE FUNCTION regdesk_needs_person_from(cr credit_registrations, written_at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN cr.deleted_at IS NOT NULL OR cr.superseded_by_id IS NOT NULL THEN NULL ELSE least(
    -- outcome_uncertain, submission_time_missing, uncertain_overdue; misregistered
    CASE WHEN cr.state IN ('submission_uncertain', 'misregistered') THEN least(cr.state_changed_at, written_at) END,
    -- flagged_by_pipeline, permanent_error, retry_window_expired by code, too_many_attempts,
    -- repeatedly_not_registered: no column says when they began, so the write that carries them
    CASE WHEN cr.needs_admin_attention OR cr.error_code = 'retry_window_expired'
      OR (cr.state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled')
        AND (cr.submit_retry_count >= 5 OR cr.not_registered_reimport_count >= 3)) THEN written_at END,
    -- partial_overdue (PartialRegistrationAdminAfter)
    CASE WHEN cr.state = 'partially_registered' THEN cr.partially_registered_at + interval '72 hours' END,
    -- verification_gave_up (VerifyMaxAge)
    CASE WHEN cr.state IN ('submission_uncertain', 'awaiting_verification', 'partially_registered')
      THEN cr.submitted_at + interval '336 hours' END,
    -- retry_window_expired by age (SubmitMaxRetryAge)
    CASE WHEN cr.state = 'failed_retryable' THEN cr.first_failed_at + interval '168 hours' END,
    -- stuck_past_recovery_grace, strictly past the grace (SubmittingRecoveryGrace, ResolvingRecoveryGrace)
    CASE WHEN cr.state = 'submitting' THEN coalesce(cr.submitted_at, cr.state_entered_at) + interval '75 minutes 1 microsecond' END,
    CASE WHEN cr.state = 'resolving_enrolment' THEN cr.state_entered_at + interval '30 minutes 1 microsecond' END
  ) END
$$;

-- Runs after credit_registrations_touch (see the trigger's name below), so updated_at is the
-- write's instant: the application's clock for regdesk's writes, the database's for the pipeline's.
CREATE FUNCTION credit_registrations_needs_person() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  written_at timestamptz := coalesce(NEW.updated_at, clock_timestamp());
  onset timestamptz;
  kept timestamptz;
BEGIN
  IF current_setting('regdesk.derived_write', true) = 'on' THEN
    RETURN NEW;
  END IF;
  onset := regdesk_needs_person_from(NEW, written_at);
  IF TG_OP = 'UPDATE' AND NEW.needs_person_since IS DISTINCT FROM OLD.needs_person_since AND NEW.needs_person_since IS NULL THEN
    -- A person's settling action: whatever still or later needs a person counts from it.
    NEW.needs_person_since := CASE WHEN onset IS NULL THEN NULL ELSE greatest(onset, written_at) END;
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    kept := OLD.needs_person_since;
  ELSE
    kept := NEW.needs_person_since;
  END IF;
  IF kept > written_at THEN
    kept := NULL; -- a time rule that never fired before the row moved on
  END IF;
  IF onset IS NULL AND (NEW.state IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled')
      OR NEW.deleted_at IS NOT NULL OR NEW.superseded_by_id IS NOT NULL) THEN
    kept := NULL; -- settled: nobody is asked any more
  END IF;
  NEW.needs_person_since := least(kept, onset);
  RETURN NEW;
END;
$$;

-- The rows already written, from their history: the first entry into a state that asks a person
-- since the row was last settled (reached a settled state, or a person's hand action other than
-- "check now"), or what the row asks as it stands, counted from when it entered its state. A
-- derived write: version and updated_at stay, so open pages and the queue's order are untouched.
SELECT set_config('regdesk.derived_write', 'on', true);
UPDATE credit_registrations cr SET needs_person_since = x.since
FROM (
  SELECT c.id, CASE WHEN o.onset IS NULL AND c.state IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled') THEN NULL
    ELSE least(o.onset, h.first_need) END AS since
  FROM credit_registrations c
    CROSS JOIN LATERAL (SELECT max(s.created_at) AS at FROM credit_registration_events s
      WHERE s.credit_registration_id = c.id
        AND (s.to_state IN ('registered', 'duplicate', 'not_improved', 'cancelled')
          OR (s.kind = 'admin_action' AND s.actor_user_id IS NOT NULL AND coalesce(s.details->>'action', '') <> 'check_now'))) settled
    CROSS JOIN LATERAL (SELECT CASE WHEN f.at IS NULL THEN NULL ELSE greatest(f.at, settled.at) END AS onset
      FROM (SELECT regdesk_needs_person_from(c, c.state_changed_at) AS at) f) o
    CROSS JOIN LATERAL (SELECT min(e.created_at) AS first_need FROM credit_registration_events e
      WHERE e.credit_registration_id = c.id AND e.to_state IN ('submission_uncertain', 'misregistered')
        AND e.created_at > coalesce(settled.at, '-infinity') AND e.created_at <= c.updated_at) h
  WHERE c.deleted_at IS NULL AND c.superseded_by_id IS NULL
    AND (c.state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled') OR c.needs_admin_attention
      OR c.error_code = 'retry_window_expired')
) x
WHERE cr.id = x.id AND x.since IS NOT NULL;
SELECT set_config('regdesk.derived_write', 'off', true);

-- Named to sort after credit_registrations_touch: BEFORE triggers fire in name order. ALWAYS: a
-- bulk load that skips foreign key checks (session_replication_role = replica, as the demo
-- writes its ledger) must still stamp its rows, and the stamp is a function of the row alone.
CREATE TRIGGER credit_registrations_wait_since BEFORE INSERT OR UPDATE ON credit_registrations
  FOR EACH ROW EXECUTE FUNCTION credit_registrations_needs_person();
ALTER TABLE credit_registrations ENABLE ALWAYS TRIGGER credit_registrations_wait_since;

-- The queue's "longest waiting first" (store.sqlWaitingSince, word for word) over the rows a
-- reason can pick: the predicate is 0004's, which every needs-a-person and reason filter implies,
-- so such a page walks this index in order and stops at the page's end. A few per cent of the
-- ledger; the full list sorted by waiting still sorts, as it did by state_changed_at.
CREATE INDEX idx_credit_registrations_waiting ON credit_registrations
  ((coalesce(needs_person_since, '9999-01-01T00:00:00Z'::timestamptz)), id)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND (
    state IN ('submission_uncertain', 'partially_registered', 'awaiting_verification', 'misregistered',
              'submitting', 'resolving_enrolment', 'failed_retryable', 'ready_to_submit')
    OR needs_admin_attention OR error_code = 'retry_window_expired'
    OR ((submit_retry_count >= 5 OR not_registered_reimport_count >= 3)
        AND state NOT IN ('registered', 'duplicate', 'not_improved', 'failed_permanent', 'cancelled')));
