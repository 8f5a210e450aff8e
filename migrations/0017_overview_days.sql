-- The overview's reading of registered rows at a million rows (issue 14: cold within 150 ms).
--
-- Time to registration (30 days) and registrations per day (60 days) counted 107,000 and 178,000
-- index entries on every cold reading. A registered row never leaves that state, so its day and
-- its time to registration never change: the server counts every finished Helsinki day once into
-- registered_days, and the overview adds, live, only the rows that became registered since the
-- last counted day.
--
-- Rows are counted by the day they entered the registered state (state_entered_at), not by
-- registered_at: a person may mark a row registered today with a registration time in the past,
-- and that row must not be lost because its registration day was counted already. day and slot
-- are what the overview groups by: the Helsinki day of registered_at, and the time from
-- submission to registration in half hours (every bin edge of the overview's histogram is a whole
-- number of half hours), clamped to -1 (registered before its submission) and 672 (14 days or
-- more); -2 is a row without a submission time, which counts per day but in no bin.
--
-- registered_day_rolls marks each counted day; a server claims days by inserting their marks and
-- writes their counts in the same transaction, so each day is counted exactly once however many
-- instances run. The counted days are every day from the first registered row's on, with no gap.
CREATE TABLE registered_day_rolls (
  day date PRIMARY KEY,         -- the Helsinki day whose newly registered rows were counted
  rolled_at timestamptz NOT NULL
);

CREATE TABLE registered_days (
  entered_day date NOT NULL REFERENCES registered_day_rolls (day),
  day date NOT NULL,
  slot integer NOT NULL CHECK (slot BETWEEN -2 AND 672),
  n bigint NOT NULL CHECK (n > 0),
  PRIMARY KEY (day, slot, entered_day)
);

-- The live part: registered rows by the moment they entered the state, with what the counts need.
CREATE INDEX idx_credit_registrations_registered_entered ON credit_registrations (state_entered_at)
  INCLUDE (registered_at, submitted_at)
  WHERE deleted_at IS NULL AND state = 'registered';

-- The failures grouped read the rows failing now by their last activity: with the code, course,
-- message and id in the index the read is index-only (it visited 11,000 heap pages a reading).
CREATE INDEX idx_credit_registrations_failing_activity ON credit_registrations (updated_at)
  INCLUDE (error_code, course_id, id, error_message)
  WHERE deleted_at IS NULL AND superseded_by_id IS NULL AND error_code IS NOT NULL;
