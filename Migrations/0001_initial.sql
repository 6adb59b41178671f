-- 0001_initial.sql: the passkeyd schema (users, their credentials, and pending ceremonies).
--
-- Applied by LibPQ's Migrator inside one transaction under an advisory lock; this file must therefore not
-- contain BEGIN/COMMIT or statements that cannot run in a transaction (CREATE INDEX CONCURRENTLY, VACUUM).
-- Constraints are named explicitly: the store maps PGError.constraintName + SQLSTATE to StoreError codes
-- (23505 on credentials_pkey -> .duplicate credential; on users_name_key / users_user_handle_key -> .duplicate
-- user). Uniqueness is enforced here, never by check-then-insert in the application.
--
-- How the store uses this schema (REFERENCE-security.md §5.1, §5.2):
--
-- 1. Single-use ceremony consume. A finish request takes its ceremony with ONE statement that both checks and
--    deletes, using the database clock for expiry:
--
--        DELETE FROM ceremonies
--         WHERE challenge = $1 AND kind = $2 AND expires_at > now()
--        RETURNING user_handle, state
--
--    Under READ COMMITTED a concurrent second DELETE of the same row waits for the first transaction, then
--    re-evaluates its WHERE clause against the committed state, finds the row gone and returns nothing. So of
--    two concurrent finishes with one challenge exactly one gets the row. Never SELECT and then DELETE.
--    (The store deletes the row whatever its expiry and returns `expires_at > now()` with it, so an expired
--    challenge is used up and refused; rows nobody finishes go to the purge job, which uses
--    ceremonies_expires_at_idx:)
--
--        DELETE FROM ceremonies WHERE expires_at <= now()
--
--    The consume happens even when verification later fails (a challenge is never reusable).
--
-- 2. Conditional signature-counter update. After a verified assertion, as its own statement (the consume is
--    already committed, so a failed finish still uses up its challenge):
--
--        UPDATE credentials
--           SET sign_count = $2, backup_state = $3, uv_initialized = $4, last_used_at = now()
--         WHERE id = $1 AND (sign_count < $2 OR ($2 = 0 AND sign_count = 0))
--
--    The counter never regresses, even with concurrent assertions of one credential: the second UPDATE waits,
--    re-reads the committed counter and matches no row if it is not strictly greater any more. Authenticators
--    that do not implement a counter always send 0; "0 stays 0" is the one allowed non-increase. Zero rows
--    updated means the credential is gone or the counter did not increase: the store reports which (stale or
--    gone), nothing is written, and the ceremony fails. If the statement fails, the ceremony fails (fail closed).

CREATE TABLE users (
    id           bigserial   NOT NULL,
    user_handle  bytea       NOT NULL,
    name         text        NOT NULL,
    display_name text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_pkey PRIMARY KEY (id),
    CONSTRAINT users_user_handle_key UNIQUE (user_handle),
    CONSTRAINT users_name_key UNIQUE (name),
    -- WebAuthn: the user handle is an opaque byte sequence of at most 64 bytes, and not empty.
    CONSTRAINT users_user_handle_length CHECK (octet_length(user_handle) BETWEEN 1 AND 64)
);

-- sign_count and last_used_at change on every sign-in and are not indexed: leave room on each page so those
-- updates stay HOT (heap-only, no index writes).
CREATE TABLE credentials (
    id                 bytea       NOT NULL,
    user_id            bigint      NOT NULL,
    public_key         bytea       NOT NULL,  -- COSE_Key as sent in the attested credential data
    algorithm          integer     NOT NULL,  -- COSE algorithm identifier, e.g. -7 (ES256)
    sign_count         bigint      NOT NULL,
    backup_eligible    boolean     NOT NULL,
    backup_state       boolean     NOT NULL,
    uv_initialized     boolean     NOT NULL,
    transports         text[]      NOT NULL DEFAULT '{}',
    aaguid             uuid        NOT NULL,
    attestation_format text        NOT NULL,
    attestation_object bytea       NOT NULL,
    client_data_json   bytea       NOT NULL,
    nickname           text        NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    last_used_at       timestamptz NULL,
    -- The credential id is unique across ALL users (a second registration of one id is a 23505).
    CONSTRAINT credentials_pkey PRIMARY KEY (id),
    CONSTRAINT credentials_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    -- WebAuthn: credential ids are at most 1023 bytes.
    CONSTRAINT credentials_id_length CHECK (octet_length(id) BETWEEN 1 AND 1023),
    -- The authenticator data's counter is an unsigned 32-bit integer.
    CONSTRAINT credentials_sign_count_range CHECK (sign_count BETWEEN 0 AND 4294967295),
    -- WebAuthn flags: BS (backed up) may only be set when BE (backup eligible) is.
    CONSTRAINT credentials_backup_state_requires_eligible CHECK (backup_eligible OR NOT backup_state),
    -- LibPQ decodes text[] without NULL elements; keep undecodable rows out.
    CONSTRAINT credentials_transports_no_nulls CHECK (array_position(transports, NULL) IS NULL)
) WITH (fillfactor = 90);

-- "List the credentials of a user" (excludeCredentials, allowCredentials, account page); also serves the
-- ON DELETE CASCADE from users, which would otherwise scan the table.
CREATE INDEX credentials_user_id_idx ON credentials (user_id);

CREATE TABLE ceremonies (
    challenge   bytea       NOT NULL,
    kind        text        NOT NULL,
    user_handle bytea       NULL,  -- NULL for discoverable-credential (username-less) authentication
    state       bytea       NOT NULL,  -- the engine's Codable ceremony state, server-side only
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ceremonies_pkey PRIMARY KEY (challenge),
    CONSTRAINT ceremonies_kind_check CHECK (kind IN ('registration', 'authentication')),
    -- Challenges are at least 16 random bytes (W3C WebAuthn "Cryptographic Challenges").
    CONSTRAINT ceremonies_challenge_length CHECK (octet_length(challenge) BETWEEN 16 AND 64),
    CONSTRAINT ceremonies_user_handle_length CHECK (user_handle IS NULL OR octet_length(user_handle) BETWEEN 1 AND 64)
);

-- For the purge of expired ceremonies (DELETE ... WHERE expires_at <= now()).
CREATE INDEX ceremonies_expires_at_idx ON ceremonies (expires_at);
