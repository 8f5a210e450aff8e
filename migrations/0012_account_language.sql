-- The language a person chose for regdesk with the header's switch: 'fi', 'sv' or 'en'. NULL
-- means they never chose, and pages follow the browser's Accept-Language. language_set_at is when
-- they last chose, the record of that change (the person is the account itself).
ALTER TABLE accounts
  ADD COLUMN language text CHECK (language IN ('fi', 'sv', 'en')),
  ADD COLUMN language_set_at timestamptz;
