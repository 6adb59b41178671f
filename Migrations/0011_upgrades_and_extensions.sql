-- Automatic passkey upgrades (conditional create) and the client extension outputs registration records.

-- How the credential was created: 'modal' (a normal registration) or 'conditional' (an automatic upgrade, created
-- without a prompt; its UP and UV may have been 0). Whether UV is established is uv_initialized, as for any
-- credential: an upgrade's first sign-in with UV=1 sets it.
ALTER TABLE credentials
    ADD COLUMN created_by text NOT NULL DEFAULT 'modal',
    -- NOT VALID: every existing row has the default, so the check needs no scan of the table under this lock; new
    -- and updated rows are checked.
    ADD CONSTRAINT credentials_created_by_check CHECK (created_by IN ('modal', 'conditional')) NOT VALID,
    -- From the registration's client extension results (NULL when the client did not report them). Never PRF
    -- outputs or large blobs: those are the client's secrets and are not stored.
    ADD COLUMN cred_props_rk boolean NULL,
    ADD COLUMN prf_enabled boolean NULL,
    ADD COLUMN large_blob_supported boolean NULL;
