-- Two reasons show an uncertain row on the needs-a-person list from its first moment, as the LMS
-- lists every submission_uncertain row at once: outcome_uncertain (sent under a day ago; it
-- escalates to uncertain_overdue a day after sending) and submission_time_missing (no
-- submitted_at, so it never escalates). Dismissals store reasons in this enum.
ALTER TYPE credit_registration_attention_reason ADD VALUE IF NOT EXISTS 'outcome_uncertain' BEFORE 'uncertain_overdue';
ALTER TYPE credit_registration_attention_reason ADD VALUE IF NOT EXISTS 'submission_time_missing' BEFORE 'uncertain_overdue';
