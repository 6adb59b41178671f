-- 0003_registration_intent.sql: what a registration does with its user, decided at begin.
--
-- new_user       the finish creates the user; a name or handle taken by then is refused (409 user_exists) by
--                users_name_key / users_user_handle_key, so two sign-ups of one new name make exactly one user
-- existing_user  the finish adds a passkey to the user with the ceremony's handle, who must still exist; it never
--                creates one
--
-- The default is the refusing choice: a registration ceremony saved by an older instance (no intent) that named an
-- existing user's handle is refused at finish instead of attaching a passkey to that account. Authentication
-- ceremonies ignore the column. Constant default: ADD COLUMN changes only the catalog.
ALTER TABLE ceremonies
    ADD COLUMN intent text NOT NULL DEFAULT 'new_user',
    ADD CONSTRAINT ceremonies_intent_known CHECK (intent IN ('new_user', 'existing_user'));
