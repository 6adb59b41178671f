-- Issue 30: the retry window of a webhook delivery counts from when it last became pending, not from its event.
-- A delivery redelivered by the admin API (POST /v1/admin/webhooks/deliveries/{id}/redeliver) long after its
-- event is then retried for the whole window again instead of failing after one attempt. It is also what the
-- passkeyd_webhook_oldest_pending_seconds gauge measures.
--
-- pending_since: the delivery's creation (the fan-out trigger's now(), equal to created_at), or the redelivery
-- that made a delivered or failed delivery pending again (a pending one keeps its value). Rows of 0015 that are
-- pending get their created_at; for delivered or failed rows it is the time of this migration until a redelivery
-- sets it (nothing reads it while they are not pending).
ALTER TABLE webhook_deliveries ADD COLUMN pending_since timestamptz NOT NULL DEFAULT now();
UPDATE webhook_deliveries SET pending_since = created_at WHERE status = 'pending';

-- The fan-out trigger of 0015 costs PostgreSQL about 90 µs of CPU per statement that writes audit events (a
-- registration, measured with pgbench on the durable cluster), even with no endpoint to fan out to: the transition
-- table and the empty join. It is therefore enabled exactly while an endpoint that is not removed exists:
-- syncWebhookEndpoints (at every start, configured or not) enables or disables it in the transaction that changes
-- the endpoints, and this migration disables it where there is none. With it disabled an event gets no delivery,
-- which is what the join would have produced.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE NOT removed) THEN
        ALTER TABLE audit_events DISABLE TRIGGER audit_events_fan_out;
    END IF;
END
$$;
