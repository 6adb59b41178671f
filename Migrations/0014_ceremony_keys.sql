-- 0014_ceremony_keys.sql: the ceremony keys of stateless ceremonies (issue 29), shared by every instance.
--
-- A begin seals the ceremony's state into the challenge with AES-256-GCM under a ceremony key and writes nothing; the
-- finish opens it on whichever instance it reaches, so every instance must hold every key that may still open a box in
-- flight. The keys live here, each secret (32 bytes) sealed with AES-256-GCM under the key-encryption key
-- (PASSKEYD_KEY_ENCRYPTION_KEY_FILE, never in the database) with the key id bound as associated data:
-- `nonce(12) || ciphertext(32) || tag(16)`, so a sealed secret cannot be moved to another key id. (With
-- PASSKEYD_CEREMONY_KEY_FILES the keys come from files and this table is not used.)
--
-- key_id is the 32-bit id every box carries (a random UInt32, hence bigint with a range check). A key seals from
-- activates_at (the newest key already active seals) until the next key activates, and opens until retires_at =
-- activates_at + the rotation interval + the longest challenge lifetime + the allowed clock skew, when every box it
-- sealed has expired. Every time here is the caller's clock, never the database's now().
--
-- Activation slots: instances add the key of a slot (activates_at a multiple of PASSKEYD_CEREMONY_KEY_ROTATION since
-- 1970) before the slot begins, 150 s plus the clock skew ahead, so every instance (rereading the keys every 60 s) holds
-- it before anyone seals with it. Instances compute the same slots from their clocks, and activates_at is UNIQUE: of
-- two instances racing to add the next key, one inserts (INSERT ... ON CONFLICT DO NOTHING) and the other finds the
-- winner's key and uses it. Retired keys are deleted by the instances' maintenance.
CREATE TABLE ceremony_keys (
    key_id        bigint      NOT NULL,
    sealed_secret bytea       NOT NULL,
    activates_at  timestamptz NOT NULL,
    retires_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL,
    CONSTRAINT ceremony_keys_pkey PRIMARY KEY (key_id),
    -- One key per activation slot.
    CONSTRAINT ceremony_keys_activates_at_key UNIQUE (activates_at),
    CONSTRAINT ceremony_keys_key_id_range CHECK (key_id BETWEEN 0 AND 4294967295),
    -- nonce (12) + a 32-byte secret + tag (16).
    CONSTRAINT ceremony_keys_sealed_length CHECK (octet_length(sealed_secret) = 60),
    CONSTRAINT ceremony_keys_schedule CHECK (retires_at > activates_at)
);
