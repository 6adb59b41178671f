-- 0008_sessions.sql: passkeyd's own sessions after a sign-in (refresh families), handoff codes from a signed-in
-- native app to a web view, and the keys that sign passkeyd's access tokens.
--
-- Every time in these tables comes from the caller's clock (the store's methods take `now`), never from the
-- database's now(), so expiry is exact under an injected clock. A time equal to an expiry is expired: a row is
-- valid while `now < expires_at`. Secrets are stored only as SHA-256 hashes (refresh tokens, handoff codes) or
-- sealed under the key-encryption key (signing keys).
--
-- sessions: one row per refresh family. refresh_hash is the hash of the family's current refresh token (unique, so
-- a presented token finds its session by index). A refresh rotates it in ONE statement that matches the current
-- hash of an active session (not revoked, now before both expiries), replaces it, bumps generation, moves
-- idle_expires_at to LEAST(now + idle lifetime, absolute_expires_at) and files the old hash in
-- session_retired_tokens. Under READ COMMITTED a concurrent second rotation of the same token waits for the
-- first's row lock, re-checks its WHERE clause against the new row and matches nothing; the store then looks again
-- (a new statement, so a fresh snapshot) and finds the token retired: presenting a retired token revokes the whole
-- family (revoked_reason 'refresh_token_reused'). A revoked or expired session stays, with revoked_at and
-- revoked_reason, until the purge deletes it. credential_id / identity_id name the passkey or provider identity
-- that started the family, without foreign keys (the session, revoked, outlives them): deleting that credential or
-- unlinking that identity revokes the family in the same statement (when the store is configured to). Deleting a
-- user deletes their sessions (cascade).
--
-- session_retired_tokens: the earlier refresh tokens of each family, kept to recognise reuse. Deleted with their
-- session (cascade, also by the purge).
--
-- handoff_codes: a code a signed-in native app (or the backend with the API key) asks for, for a web view to
-- exchange for a session of its own. Stored as a hash, taken once with DELETE ... RETURNING (expired or not, so an
-- expired code is used up too; the caller checks the expiry). code_challenge is the web page's PKCE S256 challenge,
-- when it sent one; amr and auth_time are carried to the new session. session_id names the native session it came
-- from (no foreign key: the code does not depend on that session's row). Deleting a user deletes their codes
-- (cascade); expired codes nobody takes are purged.
--
-- session_signing_keys: passkeyd's access-token signing keys, shared by every instance. The private key is PKCS#8
-- sealed with AES-256-GCM under the key-encryption key, the kid as associated data: `nonce(12) || ciphertext ||
-- tag(16)`. A key is published from created_at, signs from activates_at until retires_at (when the next key
-- activates) and leaves the JWKS at expires_at. A rotation takes a transaction-scoped advisory lock, checks that no
-- other instance added a key meanwhile, retires every key that still signs and inserts the new one.
CREATE TABLE sessions (
    id                  bytea       NOT NULL,
    user_id             bigint      NOT NULL,
    refresh_hash        bytea       NOT NULL,
    origin              text        NOT NULL,
    amr                 text[]      NOT NULL,
    auth_time           timestamptz NOT NULL,
    created_at          timestamptz NOT NULL,
    refreshed_at        timestamptz NULL,
    generation          integer     NOT NULL DEFAULT 0,
    idle_expires_at     timestamptz NOT NULL,
    absolute_expires_at timestamptz NOT NULL,
    revoked_at          timestamptz NULL,
    revoked_reason      text        NULL,
    credential_id       bytea       NULL,
    identity_id         bytea       NULL,
    CONSTRAINT sessions_pkey PRIMARY KEY (id),
    CONSTRAINT sessions_refresh_hash_key UNIQUE (refresh_hash),
    CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT sessions_id_length CHECK (octet_length(id) = 16),
    CONSTRAINT sessions_refresh_hash_length CHECK (octet_length(refresh_hash) = 32),
    CONSTRAINT sessions_origin_known CHECK (origin IN ('passkey', 'registration', 'idtoken', 'handoff')),
    CONSTRAINT sessions_revoked_reason_known CHECK (revoked_reason IN
        ('sign_out', 'refresh_token_reused', 'admin', 'credential_deleted', 'identity_unlinked')),
    -- A revoked session always says why, and only a revoked one does.
    CONSTRAINT sessions_revocation_complete CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL))
);

CREATE INDEX sessions_user_id_idx ON sessions (user_id);
CREATE INDEX sessions_credential_id_idx ON sessions (credential_id) WHERE credential_id IS NOT NULL;
CREATE INDEX sessions_identity_id_idx ON sessions (identity_id) WHERE identity_id IS NOT NULL;
-- The purge deletes sessions past their absolute expiry, or revoked, before a given time.
CREATE INDEX sessions_absolute_expires_at_idx ON sessions (absolute_expires_at);
CREATE INDEX sessions_revoked_at_idx ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;

CREATE TABLE session_retired_tokens (
    token_hash bytea       NOT NULL,
    session_id bytea       NOT NULL,
    retired_at timestamptz NOT NULL,
    CONSTRAINT session_retired_tokens_pkey PRIMARY KEY (token_hash),
    CONSTRAINT session_retired_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);

-- The cascade from a purged session finds its retired tokens by this index (one row per rotation: it grows).
CREATE INDEX session_retired_tokens_session_id_idx ON session_retired_tokens (session_id);

CREATE TABLE handoff_codes (
    code_hash      bytea       NOT NULL,
    user_id        bigint      NOT NULL,
    session_id     bytea       NULL,
    code_challenge text        NULL,
    amr            text[]      NOT NULL,
    auth_time      timestamptz NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    CONSTRAINT handoff_codes_pkey PRIMARY KEY (code_hash),
    CONSTRAINT handoff_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT handoff_codes_code_hash_length CHECK (octet_length(code_hash) = 32)
);

CREATE INDEX handoff_codes_expires_at_idx ON handoff_codes (expires_at);
-- For the cascade of a user's deletion.
CREATE INDEX handoff_codes_user_id_idx ON handoff_codes (user_id);

CREATE TABLE session_signing_keys (
    kid                text        NOT NULL,
    algorithm          text        NOT NULL,
    sealed_private_key bytea       NOT NULL,
    created_at         timestamptz NOT NULL,
    activates_at       timestamptz NOT NULL,
    retires_at         timestamptz NULL,
    expires_at         timestamptz NULL,
    CONSTRAINT session_signing_keys_pkey PRIMARY KEY (kid),
    CONSTRAINT session_signing_keys_sealed_length CHECK (octet_length(sealed_private_key) BETWEEN 29 AND 16384)
);
