-- 0004_ceremony_subject.sql: whom a pending ceremony is for, so begin can cap pending ceremonies per user.
--
-- subject  SHA-256 of "u:" + the user handle for a known user, of "n:" + the name for a sign-up or an unknown name;
--          NULL for a discoverable sign-in (no user named). A begin inserts its ceremony only while fewer than the
--          configured number of unexpired ceremonies share its subject (one statement: count and insert), so a client
--          hammering one account cannot grow the table without limit; the global cap bounds the rest.
ALTER TABLE ceremonies ADD COLUMN subject bytea NULL;
CREATE INDEX ceremonies_subject_idx ON ceremonies (subject) WHERE subject IS NOT NULL;
