-- 0002_attestation_verdict.sql: what registration proved about the authenticator, stored with each credential.
--
-- attestation_type  the §6.5.4 attestation type the format established: none, self, basic, attca, anonca
-- attestation_trust none (no attestation), self, untrusted (a chain that reaches no configured or metadata root;
--                   only stored under a policy that accepts it), trusted (the chain ends at a root)
-- trust_anchor      the subject of that root, when trusted
-- authenticator_description  the authenticator's name from FIDO metadata (MDS3), when known at registration
--
-- Constant defaults make ADD COLUMN a catalog-only change (no table rewrite); credentials registered before this
-- migration read as "none".
ALTER TABLE credentials
    ADD COLUMN attestation_type text NOT NULL DEFAULT 'none',
    ADD COLUMN attestation_trust text NOT NULL DEFAULT 'none',
    ADD COLUMN trust_anchor text,
    ADD COLUMN authenticator_description text,
    ADD CONSTRAINT credentials_attestation_type_known
        CHECK (attestation_type IN ('none', 'self', 'basic', 'attca', 'anonca')),
    ADD CONSTRAINT credentials_attestation_trust_known
        CHECK (attestation_trust IN ('none', 'self', 'untrusted', 'trusted')),
    ADD CONSTRAINT credentials_trust_anchor_only_when_trusted
        CHECK (trust_anchor IS NULL OR attestation_trust = 'trusted');
