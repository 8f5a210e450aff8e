-- What the student search sorts by, in its copy: the names' sort keys, the live verified student
-- number and whether the LMS deleted the user. With them the search ranks and cuts to a page from
-- person_search alone and reads the LMS's tables for the page's rows only; reading them for every
-- match (7,645 for a common name at 421,000 students) was most of its 150 ms. The student number
-- and the deletion move without user_details.updated_at moving, so the sweep compares every
-- column (store.personSearchSweep).

ALTER TABLE person_search
  ADD COLUMN first_name text,
  ADD COLUMN last_name text,
  ADD COLUMN student_number text,
  ADD COLUMN deleted boolean NOT NULL DEFAULT false;

-- Copied again with the new columns by the next sweep.
UPDATE person_search SET updated_at = '-infinity';
