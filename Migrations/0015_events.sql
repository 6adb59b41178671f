-- 0015_events.sql: the outbox of events for the app backend's webhooks (issue 30).
--
-- The audit trail IS the event log: each change already writes its audit_events row in the same statement, so an
-- event exists exactly when its change committed. This migration adds the events' details (ids and states, never a
-- token, key or secret), three new kinds (session.revoked, appstore.entitlement_changed, appattest.key_registered),
-- the webhook endpoints (synchronised from the settings at start-up; the signing secret stays in the settings) and
-- one delivery per (event, endpoint), fanned out by a statement-level trigger in the transaction of the change.
ALTER TABLE audit_events ADD COLUMN details jsonb NULL;
ALTER TABLE audit_events DROP CONSTRAINT audit_events_event_known,
    ADD CONSTRAINT audit_events_event_known CHECK (event IN
        ('user.created', 'user.deleted', 'credential.registered', 'credential.renamed', 'credential.deleted',
         'identity.linked', 'identity.unlinked', 'session.revoked', 'appstore.entitlement_changed',
         'appattest.key_registered'));

-- Never deleted: an endpoint no longer in the settings is marked removed (its deliveries are kept, not sent).
-- events NULL: every event type.
CREATE TABLE webhook_endpoints (
    id         text        NOT NULL,
    url        text        NOT NULL,
    events     text[]      NULL,
    paused     boolean     NOT NULL DEFAULT false,
    removed    boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_endpoints_id_format CHECK (id ~ '^[A-Za-z0-9_-]{1,64}$')
);

-- One event for one endpoint. user_handle is the event's, copied so that the lease can keep one user's events in
-- order per endpoint (events without a user are not ordered). Times are the database's (now()), except
-- next_attempt_at after a failed attempt, which the dispatcher's retry policy chooses. Deleting old audit events
-- (the operator's retention, see 0005) deletes their deliveries (cascade).
CREATE TABLE webhook_deliveries (
    id               bigserial   NOT NULL,
    endpoint_id      text        NOT NULL,
    event_id         bigint      NOT NULL,
    user_handle      bytea       NULL,
    status           text        NOT NULL DEFAULT 'pending',
    attempts         integer     NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    next_attempt_at  timestamptz NULL DEFAULT now(),
    last_attempt_at  timestamptz NULL,
    last_status_code integer     NULL,
    last_error       text        NULL,
    delivered_at     timestamptz NULL,
    lease_owner      text        NULL,
    lease_until      timestamptz NULL,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_deliveries_event_endpoint_key UNIQUE (event_id, endpoint_id),
    CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id),
    CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES audit_events (id) ON DELETE CASCADE,
    CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
    CONSTRAINT webhook_deliveries_pending_due CHECK (status <> 'pending' OR next_attempt_at IS NOT NULL),
    CONSTRAINT webhook_deliveries_last_error_length CHECK (char_length(last_error) <= 500)
);

-- The admin listing: an endpoint's deliveries in id order (optionally of one status).
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);
-- The lease's scan: the due pending deliveries, oldest first.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
-- The lease's ordering probe: an earlier pending delivery of the same (endpoint, user).
CREATE INDEX webhook_deliveries_user_order_idx ON webhook_deliveries (endpoint_id, user_handle, event_id)
    WHERE status = 'pending' AND user_handle IS NOT NULL;

-- The fan-out: after each statement that inserted audit events, one delivery per new event and per endpoint that is
-- not removed and whose filter names the event's type, in the same transaction (so an event and its deliveries
-- exist exactly when the change committed). With no endpoint configured this is one empty join per statement.
-- Paused endpoints still receive deliveries (sent once resumed).
CREATE FUNCTION audit_events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_deliveries (endpoint_id, event_id, user_handle)
    SELECT w.id, e.id, e.user_handle
      FROM new_events e JOIN webhook_endpoints w ON NOT w.removed AND (w.events IS NULL OR e.event = ANY (w.events))
     ORDER BY e.id, w.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER audit_events_fan_out AFTER INSERT ON audit_events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_fan_out();
