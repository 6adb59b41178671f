-- An identity is (the provider's canonical issuer, subject). Google signs its ID tokens with either spelling of its
-- issuer, `https://accounts.google.com` or `accounts.google.com`; before this migration each spelling was stored as it
-- came, so one Google account could hold two identities (and two users). From now on passkeyd stores the canonical
-- spelling, `https://accounts.google.com`, whichever the token carried, and this rewrites the rows stored under the
-- other one. A row whose canonical twin already exists (the same person signed in with both spellings and became two
-- users) is left as it is: merging two users is the operator's decision, not a migration's. Such rows are no longer
-- found by a sign-in; they are listed by
--     SELECT user_id, subject FROM identities WHERE provider = 'google' AND issuer = 'accounts.google.com';
UPDATE identities AS i
   SET issuer = 'https://accounts.google.com'
 WHERE i.provider = 'google'
   AND i.issuer = 'accounts.google.com'
   AND NOT EXISTS (SELECT 1 FROM identities AS c WHERE c.issuer = 'https://accounts.google.com' AND c.subject = i.subject);
