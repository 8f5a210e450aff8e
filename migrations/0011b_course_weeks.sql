-- The support list of course modules (issue 14) counts every attempt of every module, on a
-- million-row ledger, within a tenth of a second. Nearly all of those rows are settled
-- (registered, duplicate, not improved, cancelled) and never change again, so they are counted
-- once per Helsinki week, after the week ends, into course_module_weeks; a page adds the rows
-- those weeks do not hold: everything unsettled, and what settled since the last counted week.
--
-- course_module_week_rolls marks each counted week. A server claims a week by inserting its
-- mark and writes the week's counts in the same transaction; another server claiming the same
-- week waits for that one and then does nothing, so each week is counted exactly once.
CREATE TABLE course_module_week_rolls (
  week date PRIMARY KEY,        -- the Monday (Helsinki) the week starts on
  rolled_at timestamptz NOT NULL
);

CREATE TABLE course_module_weeks (
  course_module_id uuid NOT NULL REFERENCES course_modules (id),
  week date NOT NULL REFERENCES course_module_week_rolls (week),
  state credit_registration_state NOT NULL,
  -- Rows that settled (terminal_at) in the week, superseded attempts included.
  n bigint NOT NULL CHECK (n > 0),
  last_registered_at timestamptz,
  PRIMARY KEY (course_module_id, week, state),
  CONSTRAINT course_module_weeks_settled CHECK (state IN ('registered', 'duplicate', 'not_improved', 'cancelled'))
);

-- What the weeks do not hold: every row not settled, per module, with what the list shows of it.
CREATE INDEX idx_credit_registrations_module_unsettled ON credit_registrations (course_module_id, state)
  INCLUDE (error_code, superseded_by_id)
  WHERE deleted_at IS NULL AND state NOT IN ('registered', 'duplicate', 'not_improved', 'cancelled');
