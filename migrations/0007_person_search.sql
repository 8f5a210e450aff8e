-- The students' search columns as the header's student search reads them: a copy of the LMS's
-- user_details.name_search_helper and email_search_helper, with trigram indexes of regdesk's own.
-- The LMS indexes those columns with GiST, which answers a common name at a million registrations
-- in a third of a second (thousands of matches, each checked again); GIN answers it in a few
-- milliseconds, and regdesk may not add an index to the LMS's table. The copy is kept by the
-- ledger copy's job: a student's row is copied with their registrations' rows, and its sweep
-- compares every student (store.personSearchSweep), which catches a rename and a student with no
-- registration yet.

CREATE TABLE person_search (
  user_id uuid PRIMARY KEY,
  updated_at timestamptz NOT NULL,
  name_search text NOT NULL,
  email_search text NOT NULL
);

-- pg_trgm's operator classes live in whatever schema a DBA installed it in (the LMS's database
-- has it in public); regdesk's migrations see only their own schema, so it is named here.
DO $$
DECLARE
  trgm text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm');
BEGIN
  IF trgm IS NULL THEN
    RAISE EXCEPTION 'regdesk needs the pg_trgm extension, which the LMS''s database has: a DBA runs CREATE EXTENSION pg_trgm';
  END IF;
  EXECUTE format('CREATE INDEX idx_person_search_name ON person_search USING gin (name_search %I.gin_trgm_ops)', trgm);
  EXECUTE format('CREATE INDEX idx_person_search_email ON person_search USING gin (email_search %I.gin_trgm_ops)', trgm);
END
$$;
