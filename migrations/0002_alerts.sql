-- Health alerts, who is mailed about them, and the mail outbox regdesk sends them from.

CREATE TYPE alert_severity AS ENUM ('info', 'warning', 'critical');

CREATE TABLE alerts (
  id uuid PRIMARY KEY,
  rule text NOT NULL,
  alert_key text NOT NULL DEFAULT '',
  severity alert_severity NOT NULL,
  -- The worst severity this firing reached, so a mail is sent when it rises past an account's
  -- threshold, and /alerts can say how bad it got.
  peak_severity alert_severity NOT NULL,
  row_count int NOT NULL,
  of_count int NOT NULL DEFAULT 0,
  peak_count int NOT NULL,
  subject text NOT NULL DEFAULT '',
  -- An LMS course id, when the alert is about one course.
  course_id uuid,
  path text NOT NULL,
  -- The rule's own instant (the last occurrence, or since when the oldest waited).
  occurred_at timestamptz,
  fired_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  cleared_at timestamptz,
  reminded_at timestamptz,
  acknowledged_at timestamptz,
  acknowledged_by uuid REFERENCES accounts (id),
  acknowledge_note text,
  CONSTRAINT alerts_acknowledged_pair CHECK ((acknowledged_at IS NULL) = (acknowledged_by IS NULL))
);
CREATE UNIQUE INDEX alerts_firing ON alerts (rule, alert_key) WHERE cleared_at IS NULL;
CREATE INDEX alerts_fired ON alerts (fired_at DESC, id DESC);
CREATE INDEX alerts_cleared ON alerts (cleared_at DESC) WHERE cleared_at IS NOT NULL;

CREATE TABLE alert_settings (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  -- NULL: no mail at once.
  immediate_min_severity alert_severity,
  -- Empty: every kind.
  rules text[] NOT NULL DEFAULT '{}',
  -- Helsinki hour of the daily digest; NULL: none.
  digest_hour int CHECK (digest_hour BETWEEN 0 AND 23),
  -- A teacher's weekly digest of their courses' students who can act themselves.
  teacher_weekly boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL,
  updated_by uuid NOT NULL REFERENCES accounts (id)
);

CREATE TABLE alert_setting_changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  changed_at timestamptz NOT NULL,
  changed_by uuid NOT NULL REFERENCES accounts (id),
  details jsonb NOT NULL
);
CREATE INDEX alert_setting_changes_account ON alert_setting_changes (account_id, changed_at DESC);

CREATE TYPE mail_kind AS ENUM ('alert_fired', 'alert_cleared', 'alert_reminder', 'digest', 'teacher_weekly');

CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL,
  dedupe_key text NOT NULL UNIQUE,
  kind mail_kind NOT NULL,
  account_id uuid REFERENCES accounts (id) ON DELETE SET NULL,
  to_address text NOT NULL,
  alert_id uuid REFERENCES alerts (id),
  message_id text NOT NULL UNIQUE,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}',
  next_attempt_at timestamptz NOT NULL,
  -- A sender holds a mail until this instant while it talks to the mail server; a sender that died
  -- mid-send lets it go when this passes.
  claimed_until timestamptz,
  attempt_count int NOT NULL DEFAULT 0,
  sent_at timestamptz,
  last_error text
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX mail_outbox_alert ON mail_outbox (alert_id, kind) WHERE alert_id IS NOT NULL;

CREATE TABLE mail_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  outbox_id uuid NOT NULL REFERENCES mail_outbox (id),
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  ok boolean,
  error text
);
CREATE INDEX mail_attempts_outbox ON mail_attempts (outbox_id, started_at);
