-- 0005_audit_events.sql: an append-only trail of changes to users and credentials.
--
-- One row per event, written by the same statement as the change it records (so an event exists exactly when its
-- change committed): user.created, user.deleted, credential.registered, credential.renamed, credential.deleted.
-- actor is who asked: "api:<fingerprint>" / "admin:<fingerprint>" (the first 16 hex digits of SHA-256 of the bearer
-- key, never the key), "api:open" when no API keys are configured, "demo" or "conformance". Ids are kept as bytes,
-- not foreign keys, so events outlive what they describe. Nothing about a sign-in's secrets is stored here.
--
-- UPDATE, DELETE and TRUNCATE are refused by triggers. Retention is an operator's decision: to drop old events,
-- ALTER TABLE audit_events DISABLE TRIGGER USER, delete, and enable the triggers again (an audited action of its own).
CREATE TABLE audit_events (
    id             bigserial   NOT NULL,
    occurred_at    timestamptz NOT NULL DEFAULT now(),
    event          text        NOT NULL,
    request_id     text        NULL,
    actor          text        NOT NULL,
    user_handle    bytea       NULL,
    credential_id  bytea       NULL,
    client_address text        NULL,
    CONSTRAINT audit_events_pkey PRIMARY KEY (id),
    CONSTRAINT audit_events_event_known CHECK (event IN
        ('user.created', 'user.deleted', 'credential.registered', 'credential.renamed', 'credential.deleted'))
);

-- Paging by user (the admin API's ?user=) and by time (?since=/&until=), both in id order.
CREATE INDEX audit_events_user_idx ON audit_events (user_handle, id);
CREATE INDEX audit_events_time_idx ON audit_events (occurred_at, id);

CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
