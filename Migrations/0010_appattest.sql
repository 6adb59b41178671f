-- 0010_appattest.sql: App Attest keys (POST /v1/appattest/attestations, /v1/appattest/assertions).
--
-- App Attest challenges are ceremonies of kind 'appattest': the challenge column holds the 32 random bytes, the state
-- is empty. They are saved, capped, taken once (DELETE ... RETURNING, also when the attestation or assertion that
-- names them then fails) and purged exactly like passkey ceremonies; a passkey challenge is never one (kind differs).
--
-- app_attest_keys: one row per attested key. key_id is SHA-256 of the key's uncompressed P-256 point (the credential
-- id App Attest reports); public_key its DER SubjectPublicKeyInfo; counter the highest assertion counter accepted,
-- advanced only by a conditional UPDATE ... WHERE counter < $new, so the counter never goes down and of two
-- assertions with equal counters exactly one wins. user_id is the optional user the backend attached the key to
-- (deleting the user deletes their keys). receipt is Apple's receipt as received (for the fraud-metric service).
ALTER TABLE ceremonies DROP CONSTRAINT ceremonies_kind_check,
    ADD CONSTRAINT ceremonies_kind_check CHECK (kind IN ('registration', 'authentication', 'idtoken', 'appattest'));

CREATE TABLE app_attest_keys (
    key_id       bytea       NOT NULL,
    user_id      bigint      NULL,
    app_id       text        NOT NULL,
    environment  text        NOT NULL,
    public_key   bytea       NOT NULL,
    counter      bigint      NOT NULL DEFAULT 0,
    receipt      bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz NULL,
    CONSTRAINT app_attest_keys_pkey PRIMARY KEY (key_id),
    CONSTRAINT app_attest_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT app_attest_keys_key_id_length CHECK (octet_length(key_id) = 32),
    CONSTRAINT app_attest_keys_environment_known CHECK (environment IN ('production', 'development')),
    CONSTRAINT app_attest_keys_app_id_length CHECK (octet_length(app_id) BETWEEN 12 AND 266),
    -- The authenticator data's counter is an unsigned 32-bit integer.
    CONSTRAINT app_attest_keys_counter_range CHECK (counter BETWEEN 0 AND 4294967295)
) WITH (fillfactor = 90);

CREATE INDEX app_attest_keys_user_id_idx ON app_attest_keys (user_id);
