-- The health rules count over the last day or week of endings, registrations and completions:
-- without these, each evaluation (every minute) would read the whole ledger.
CREATE INDEX idx_credit_registrations_terminal_at ON credit_registrations (terminal_at)
  WHERE terminal_at IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX idx_credit_registrations_registered_at ON credit_registrations (registered_at)
  WHERE registered_at IS NOT NULL AND submitted_at IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX idx_course_module_completions_date ON course_module_completions (completion_date)
  WHERE deleted_at IS NULL;
