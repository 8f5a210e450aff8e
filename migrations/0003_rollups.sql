-- What the overview and the courses page count once and keep: settled rows never change, so a
-- finished day or week is counted once, in the transaction that claims it.

-- The needs-a-person pile, one row per Helsinki day, written by the first server to look that day.
CREATE TABLE attention_snapshots (
  day date PRIMARY KEY,
  taken_at timestamptz NOT NULL,
  needs_admin bigint NOT NULL CHECK (needs_admin >= 0),
  reasons jsonb NOT NULL,
  backfilled boolean NOT NULL DEFAULT false
);

CREATE TABLE course_module_week_rolls (
  week date PRIMARY KEY,        -- the Monday (Helsinki) the week starts on
  rolled_at timestamptz NOT NULL
);

-- Settled rows per LMS course module, Helsinki week and state (text: the LMS's state names).
CREATE TABLE course_module_weeks (
  course_module_id uuid NOT NULL,
  week date NOT NULL REFERENCES course_module_week_rolls (week),
  state text NOT NULL,
  n bigint NOT NULL CHECK (n > 0),
  last_registered_at timestamptz,
  PRIMARY KEY (course_module_id, week, state),
  CONSTRAINT course_module_weeks_settled CHECK (state IN ('registered', 'duplicate', 'not_improved', 'cancelled'))
);

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
