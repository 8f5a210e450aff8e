-- A row's updated_at and the history event that explains its change must carry the same instant,
-- or nobody can tell which event a write belongs to: regdesk's hand actions date both from the
-- application's clock (tests move that clock a year away). The touch trigger therefore stamps the
-- database clock only when a write leaves updated_at as it was, as the pipeline's writes do. It
-- still moves version on every write, whoever makes it, so the optimistic check of a person's
-- page (version as the page showed it) cannot be bypassed by a writer that forgets to.
CREATE OR REPLACE FUNCTION credit_registrations_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at = clock_timestamp();
  END IF;
  NEW.version = OLD.version + 1;
  RETURN NEW;
END;
$$;
