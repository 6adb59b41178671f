-- 0009_appstore.sql: verified App Store data per user (StoreKit 2 signed transactions and renewal information, App
-- Store Server Notifications V2). Only data whose JWS passkeyd verified is written here; the payloads are kept as
-- signed (jsonb) next to the columns entitlements are computed from. Dates are Apple's: Unix milliseconds.
--
-- users.app_account_token: the UUID apps set as StoreKit's appAccountToken so that a purchase names its passkeyd user:
-- SHA-256('passkeyd-app-account-token:' || user_handle), first 16 bytes, with the RFC 9562 version 8 and variant
-- bits set (AppleSignedData's AppAccountToken computes the same). A notification finds the user of a purchase nobody
-- posted yet through it. (Adding a stored generated column rewrites the users table once.)
--
-- appstore_purchases: one row per original transaction (a purchase and all its renewals). user_id is set by the
-- first post for a user, or by a notification whose transaction names a user's appAccountToken, and never changes
-- afterwards: a purchase belongs to one user. A purchase nobody claimed yet has no user. Deleting a user deletes their
-- purchases (cascade: transactions and renewal information go with them).
--
-- appstore_transactions: every verified transaction, by transactionId. A copy replaces the kept one only when its
-- signedDate is not older (an upsert with that WHERE), so a refund's re-signed transaction (revocationDate) wins and
-- a replayed old copy changes nothing.
--
-- appstore_renewals: the latest renewal information per purchase, by the same rule.
--
-- appstore_notifications: the UUIDs of applied notifications. A notification is inserted (ON CONFLICT DO NOTHING)
-- in the transaction that applies it: a retry or a replay with the same UUID finds it and applies nothing. Apple
-- retries for about three days; UUIDs older than the retention are purged (a later replay of one is applied again,
-- which changes nothing: its data loses to what is kept unless its signedDate is newer).
ALTER TABLE users ADD COLUMN app_account_token uuid GENERATED ALWAYS AS (
    encode(
        set_byte(
            set_byte(
                substring(sha256('passkeyd-app-account-token:'::bytea || user_handle) FROM 1 FOR 16),
                6, (get_byte(sha256('passkeyd-app-account-token:'::bytea || user_handle), 6) & 15) | 128),
            8, (get_byte(sha256('passkeyd-app-account-token:'::bytea || user_handle), 8) & 63) | 128),
        'hex')::uuid
) STORED;
CREATE UNIQUE INDEX users_app_account_token_key ON users (app_account_token);

CREATE TABLE appstore_purchases (
    original_transaction_id text        NOT NULL,
    user_id                 bigint      NULL,
    environment             text        NOT NULL,
    created_at              timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT appstore_purchases_pkey PRIMARY KEY (original_transaction_id),
    CONSTRAINT appstore_purchases_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    CONSTRAINT appstore_purchases_id_length CHECK (octet_length(original_transaction_id) BETWEEN 1 AND 128)
);
CREATE INDEX appstore_purchases_user_id_idx ON appstore_purchases (user_id);

CREATE TABLE appstore_transactions (
    transaction_id          text        NOT NULL,
    original_transaction_id text        NOT NULL,
    bundle_id               text        NOT NULL,
    product_id              text        NOT NULL,
    type                    text        NOT NULL,
    environment             text        NOT NULL,
    purchase_date           bigint      NOT NULL,
    original_purchase_date  bigint      NULL,
    expires_date            bigint      NULL,
    revocation_date         bigint      NULL,
    revocation_reason       bigint      NULL,
    app_account_token       uuid        NULL,
    ownership_type          text        NULL,
    is_upgraded             boolean     NOT NULL,
    signed_date             bigint      NULL,
    payload                 jsonb       NOT NULL,
    updated_at              timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT appstore_transactions_pkey PRIMARY KEY (transaction_id),
    CONSTRAINT appstore_transactions_purchase_fkey FOREIGN KEY (original_transaction_id)
        REFERENCES appstore_purchases (original_transaction_id) ON DELETE CASCADE
);
CREATE INDEX appstore_transactions_original_idx ON appstore_transactions (original_transaction_id);

CREATE TABLE appstore_renewals (
    original_transaction_id  text        NOT NULL,
    product_id               text        NULL,
    auto_renew_product_id    text        NULL,
    auto_renew_status        bigint      NULL,
    expiration_intent        bigint      NULL,
    is_in_billing_retry      boolean     NULL,
    grace_period_expires_date bigint     NULL,
    renewal_date             bigint      NULL,
    environment              text        NOT NULL,
    signed_date              bigint      NULL,
    payload                  jsonb       NOT NULL,
    updated_at               timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT appstore_renewals_pkey PRIMARY KEY (original_transaction_id),
    CONSTRAINT appstore_renewals_purchase_fkey FOREIGN KEY (original_transaction_id)
        REFERENCES appstore_purchases (original_transaction_id) ON DELETE CASCADE
);

CREATE TABLE appstore_notifications (
    notification_uuid       text        NOT NULL,
    notification_type       text        NOT NULL,
    subtype                 text        NULL,
    environment             text        NOT NULL,
    original_transaction_id text        NULL,
    signed_date             bigint      NULL,
    received_at             timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT appstore_notifications_pkey PRIMARY KEY (notification_uuid)
);
-- The purge (PASSKEYD_APPSTORE_NOTIFICATION_RETENTION) deletes UUIDs received before a time, on this index.
CREATE INDEX appstore_notifications_received_at_idx ON appstore_notifications (received_at);
