-- 0007_apple_tokens.sql: Sign in with Apple's refresh tokens, kept so they can be revoked when the account goes.
--
-- identity_tokens: the provider refresh token of an identity (one per identity; a newer one replaces it), sealed by
-- passkeyd with AES-256-GCM under the key-encryption key (PASSKEYD_KEY_ENCRYPTION_KEY_FILE) and the identity's id as
-- associated data: `nonce(12) || ciphertext || tag(16)`. The database never holds the plaintext. Deleting the
-- identity (unlink, or its user's deletion) deletes the row (cascade).
--
-- token_revocations: tokens waiting to be revoked at their provider. A trigger on identity_tokens queues every token
-- that leaves it (its identity unlinked or its user deleted, by cascade, or replaced by a newer token) in the same
-- transaction, so no path that deletes a token can forget to queue it, and the revocation survives a restart. (A
-- trigger rather than a CTE in each deleting statement: a token committed by a sign-in while a user deletion waits
-- on its lock is seen by the cascade, which reads the latest snapshot, but not by a CTE of the deleting statement.)
-- A background task of passkeyd claims due rows (attempts + 1, next_attempt_at moved ahead as a lease, FOR UPDATE
-- SKIP LOCKED so instances do not share a row), deletes a row when the provider confirms, and otherwise moves
-- next_attempt_at further out; after a bounded number of attempts the row is given up (deleted, logged). No foreign
-- key: the identity is usually gone by the time its token is revoked.
CREATE TABLE identity_tokens (
    identity_id  bytea       NOT NULL,
    provider     text        NOT NULL,
    client_id    text        NOT NULL,
    sealed_token bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT identity_tokens_pkey PRIMARY KEY (identity_id),
    CONSTRAINT identity_tokens_identity_id_fkey FOREIGN KEY (identity_id) REFERENCES identities (id) ON DELETE CASCADE,
    CONSTRAINT identity_tokens_sealed_length CHECK (octet_length(sealed_token) BETWEEN 29 AND 16384)
);

CREATE TABLE token_revocations (
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    identity_id     bytea       NOT NULL,
    provider        text        NOT NULL,
    client_id       text        NOT NULL,
    sealed_token    bytea       NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error      text        NULL,
    queued_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT token_revocations_pkey PRIMARY KEY (id)
);

CREATE INDEX token_revocations_due_idx ON token_revocations (next_attempt_at);

CREATE FUNCTION queue_identity_token_revocation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO token_revocations (identity_id, provider, client_id, sealed_token)
    VALUES (OLD.identity_id, OLD.provider, OLD.client_id, OLD.sealed_token);
    RETURN NULL;
END
$$;

CREATE TRIGGER identity_tokens_revoke_deleted AFTER DELETE ON identity_tokens
    FOR EACH ROW EXECUTE FUNCTION queue_identity_token_revocation();
CREATE TRIGGER identity_tokens_revoke_replaced AFTER UPDATE OF sealed_token ON identity_tokens
    FOR EACH ROW WHEN (OLD.sealed_token IS DISTINCT FROM NEW.sealed_token) EXECUTE FUNCTION queue_identity_token_revocation();
