-- Single use of stateless ceremonies (issue 29). A begin seals its state into the challenge and writes nothing; the
-- finish records the challenge here, in the same statement that applies the counter (sign-in) or inserts the
-- credential and user (registration), and only writes that change if its INSERT took the fingerprint. A second
-- finish with the same challenge finds the row (ON CONFLICT DO NOTHING inserts nothing, so it writes nothing and is
-- refused); a concurrent one waits for the first's commit and then finds it. A refused finish records it too.
--
-- fingerprint: the first 16 bytes of SHA-256 over the sealed challenge (128 random bits inside make it unique).
-- expires_at: the challenge's expiry plus the clock skew; past it the challenge no longer opens, so the row can go
-- (purged in the background with the expired ceremonies:
--     DELETE FROM consumed_challenges WHERE expires_at <= now()
-- through consumed_challenges_expires_at_idx).
CREATE TABLE consumed_challenges (
    fingerprint bytea NOT NULL,
    expires_at timestamptz NOT NULL,
    CONSTRAINT consumed_challenges_pkey PRIMARY KEY (fingerprint),
    CONSTRAINT consumed_challenges_fingerprint_length CHECK (octet_length(fingerprint) = 16)
);

CREATE INDEX consumed_challenges_expires_at_idx ON consumed_challenges (expires_at);
