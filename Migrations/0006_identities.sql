-- 0006_identities.sql: sign-in with a provider's ID token (Apple, LINE, Google, any OpenID Connect provider).
--
-- Pending ID-token sessions are ceremonies of kind 'idtoken': the challenge column holds the session id, the state
-- holds the provider and the nonce. They are saved, capped, taken once (DELETE ... RETURNING, also when the token
-- then fails) and purged exactly like passkey ceremonies, and a passkey challenge is never a session (kind differs).
--
-- identities: the provider identities attached to users. (issuer, subject) is unique across all users: the first
-- sign-in of an identity attaches it (creating its user, or to the user the backend named by id), every later one
-- signs that user in. E-mail and the provider's flags are kept for display only; nothing links by e-mail. Deleting
-- a user deletes their identities (cascade). The audit trail gains identity.linked / identity.unlinked with the
-- identity's id.
ALTER TABLE ceremonies DROP CONSTRAINT ceremonies_kind_check,
    ADD CONSTRAINT ceremonies_kind_check CHECK (kind IN ('registration', 'authentication', 'idtoken'));

CREATE TABLE identities (
    id               bytea       NOT NULL,
    user_id          bigint      NOT NULL,
    provider         text        NOT NULL,
    issuer           text        NOT NULL,
    subject          text        NOT NULL,
    audience         text        NOT NULL,
    email            text        NULL,
    email_verified   boolean     NULL,
    is_private_email boolean     NULL,
    real_user_status smallint    NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_used_at     timestamptz NULL,
    CONSTRAINT identities_pkey PRIMARY KEY (id),
    CONSTRAINT identities_issuer_subject_key UNIQUE (issuer, subject),
    CONSTRAINT identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT identities_id_length CHECK (octet_length(id) = 16),
    CONSTRAINT identities_subject_length CHECK (octet_length(subject) BETWEEN 1 AND 255)
) WITH (fillfactor = 90);

CREATE INDEX identities_user_id_idx ON identities (user_id);

ALTER TABLE audit_events ADD COLUMN identity_id bytea NULL;
ALTER TABLE audit_events DROP CONSTRAINT audit_events_event_known,
    ADD CONSTRAINT audit_events_event_known CHECK (event IN
        ('user.created', 'user.deleted', 'credential.registered', 'credential.renamed', 'credential.deleted',
         'identity.linked', 'identity.unlinked'));
