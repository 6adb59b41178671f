public import Foundation
import LibPQ
public import PasskeyStore

/// The outbox (schema and fan-out trigger: `Migrations/0015_events.sql`). Deliveries are created by the trigger on
/// `audit_events`, never here; every time below is the database's clock (`now()`), except a retry's time, which the
/// caller's retry policy chooses.
extension PostgresPasskeyStore: EventStore {
    static let endpointColumns = "id, url, events, paused, removed"

    static func endpoint(from result: PGResult, row: Int) throws -> WebhookEndpointState {
        WebhookEndpointState(
            id: try result.decode(String.self, row: row, column: 0), url: try result.decode(String.self, row: row, column: 1),
            events: try eventKinds(try result.decode([String]?.self, row: row, column: 2)),
            paused: try result.decode(Bool.self, row: row, column: 3), removed: try result.decode(Bool.self, row: row, column: 4))
    }

    static func eventKinds(_ names: [String]?) throws(StoreError) -> Set<AuditEventKind>? {
        guard let names else { return nil }
        var kinds = Set<AuditEventKind>()
        for name in names { kinds.insert(try known(name)) }
        return kinds
    }

    /// Delivery columns of `d` (webhook_deliveries) followed by the event's (``auditColumns`` of `e`).
    static let deliveryColumns = """
        d.id, d.endpoint_id, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.last_error, \
        d.delivered_at, d.pending_since, \(auditColumns)
        """

    static func delivery(from result: PGResult, row: Int) throws -> WebhookDelivery {
        WebhookDelivery(
            id: try result.decode(Int64.self, row: row, column: 0), endpointID: try result.decode(String.self, row: row, column: 1),
            event: try auditEvent(from: result, row: row, offset: 10),
            status: try known(try result.decode(String.self, row: row, column: 2)),
            attempts: Int(try result.decode(Int32.self, row: row, column: 3)),
            nextAttemptAt: try result.decode(Date?.self, row: row, column: 4),
            lastAttemptAt: try result.decode(Date?.self, row: row, column: 5),
            lastStatusCode: try result.decode(Int32?.self, row: row, column: 6).map(Int.init),
            lastError: try result.decode(String?.self, row: row, column: 7),
            deliveredAt: try result.decode(Date?.self, row: row, column: 8),
            pendingSince: try result.decode(Date.self, row: row, column: 9))
    }

    // MARK: endpoints

    /// $1 id, $2 url, $3 events (NULL: all). The paused flag is kept; a removed endpoint that is back is not removed.
    static let upsertEndpoint = PGPreparedStatement(
        name: "passkeyd_webhook_endpoint_upsert",
        sql: """
            INSERT INTO webhook_endpoints (id, url, events) VALUES ($1, $2, $3)
            ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, events = EXCLUDED.events, removed = false, updated_at = now()
             WHERE (webhook_endpoints.url, webhook_endpoints.events, webhook_endpoints.removed)
                   IS DISTINCT FROM (EXCLUDED.url, EXCLUDED.events, false)
            """,
        parameterTypes: [.text, .text, .textArray])

    /// $1 the ids in the settings.
    static let removeOtherEndpoints = PGPreparedStatement(
        name: "passkeyd_webhook_endpoints_remove_others",
        sql: "UPDATE webhook_endpoints SET removed = true, updated_at = now() WHERE NOT removed AND NOT (id = ANY ($1))",
        parameterTypes: [.textArray])

    /// Whether the fan-out trigger is enabled, and whether this role may change that (it owns `audit_events`).
    static let fanOutTriggerState = """
        SELECT t.tgenabled <> 'D', pg_has_role(c.relowner, 'MEMBER')
          FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE t.tgrelid = 'audit_events'::regclass AND t.tgname = 'audit_events_fan_out'
        """

    /// Also enables the fan-out trigger when an endpoint remains, and disables it when none does (it costs every
    /// statement that writes events, `Migrations/0016_webhook_pending_since.sql`), in the same transaction; only
    /// when that changes its state, and only as the table's owner (otherwise it stays as it is: correct, slower).
    public func syncWebhookEndpoints(_ endpoints: [WebhookEndpointConfig]) async throws(StoreError) {
        try await run(transaction: true) { connection in
            for endpoint in endpoints {
                var bindings = PGBindings()
                bindings.append(endpoint.id)
                bindings.append(endpoint.url)
                bindings.append(endpoint.events.map { $0.map(\.rawValue).sorted() })
                _ = try connection.executePrepared(Self.upsertEndpoint, bindings)
            }
            _ = try connection.executePrepared(Self.removeOtherEndpoints, [endpoints.map(\.id)])
            let state = try connection.execute(PGQuery(unsafeSQL: Self.fanOutTriggerState))
            guard state.rowCount == 1 else { return }
            let enabled = try state.decode(Bool.self, row: 0, column: 0), owner = try state.decode(Bool.self, row: 0, column: 1)
            if owner, enabled == endpoints.isEmpty {
                let change = endpoints.isEmpty ? "DISABLE" : "ENABLE"
                _ = try connection.execute(PGQuery(unsafeSQL: "ALTER TABLE audit_events \(change) TRIGGER audit_events_fan_out"))
            }
        }
    }

    /// Whether the fan-out trigger is enabled (tests, diagnostics).
    public func webhookFanOutEnabled() async throws(StoreError) -> Bool {
        try await run { connection in
            try connection.execute(PGQuery(unsafeSQL: Self.fanOutTriggerState)).decode(Bool.self, row: 0, column: 0)
        }
    }

    public func webhookEndpoints() async throws(StoreError) -> [WebhookEndpointState] {
        try await run { connection in
            let result = try connection.execute(PGQuery(unsafeSQL: "SELECT \(Self.endpointColumns) FROM webhook_endpoints ORDER BY id"))
            return try (0..<result.rowCount).map { row in try Self.endpoint(from: result, row: row) }
        }
    }

    public func setWebhookEndpointPaused(id: String, paused: Bool) async throws(StoreError) -> Bool {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(id)
            bindings.append(paused)
            let result = try connection.execute(PGQuery(
                unsafeSQL: "UPDATE webhook_endpoints SET paused = $2, updated_at = now() WHERE id = $1 AND NOT removed",
                bindings: bindings))
            return result.affectedRows == 1
        }
    }

    // MARK: leases and attempts

    /// $1 owner, $2 limit, $3 lease seconds. One statement: the candidates are locked with SKIP LOCKED (a row another
    /// instance is leasing right now is skipped, and one it leased and committed is re-checked and no longer due), so
    /// two instances never lease the same delivery. Only the oldest pending delivery of each (endpoint, user) pair is
    /// a candidate (an earlier pending one, due or not, leased or not, holds the later ones back).
    static let leaseStatement = PGPreparedStatement(
        name: "passkeyd_webhook_lease",
        sql: """
            WITH leased AS (
                UPDATE webhook_deliveries d SET lease_owner = $1, lease_until = now() + $3 * interval '1 second'
                 WHERE d.id IN (
                    SELECT c.id FROM webhook_deliveries c JOIN webhook_endpoints w ON w.id = c.endpoint_id
                     WHERE c.status = 'pending' AND c.next_attempt_at <= now()
                       AND (c.lease_until IS NULL OR c.lease_until <= now())
                       AND NOT w.paused AND NOT w.removed
                       AND (c.user_handle IS NULL OR NOT EXISTS (
                            SELECT 1 FROM webhook_deliveries p
                             WHERE p.endpoint_id = c.endpoint_id AND p.user_handle = c.user_handle
                               AND p.status = 'pending' AND p.event_id < c.event_id))
                     ORDER BY c.id LIMIT $2
                       FOR UPDATE OF c SKIP LOCKED)
                RETURNING d.*
            )
            SELECT \(deliveryColumns) FROM leased d JOIN audit_events e ON e.id = d.event_id ORDER BY d.id
            """,
        parameterTypes: [.text, .int8, .int8])

    public func leaseWebhookDeliveries(owner: String, limit: Int, leaseSeconds: Int) async throws(StoreError) -> [WebhookDelivery] {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(owner)
            bindings.append(Int64(max(0, limit)))
            bindings.append(Int64(max(1, leaseSeconds)))
            let result = try connection.executePrepared(Self.leaseStatement, bindings)
            return try (0..<result.rowCount).map { row in try Self.delivery(from: result, row: row) }
        }
    }

    /// $1 id, $2 owner, $3 new status, $4 status code, $5 error, $6 retry time. Only while `owner` holds the lease.
    static let recordAttemptStatement = PGPreparedStatement(
        name: "passkeyd_webhook_record_attempt",
        sql: """
            UPDATE webhook_deliveries
               SET status = $3, attempts = attempts + 1, last_attempt_at = now(), last_status_code = $4, last_error = left($5, 500),
                   next_attempt_at = CASE WHEN $3 = 'pending' THEN $6 END,
                   delivered_at = CASE WHEN $3 = 'delivered' THEN now() END, lease_owner = NULL, lease_until = NULL
             WHERE id = $1 AND lease_owner = $2 AND status = 'pending'
            """,
        parameterTypes: [.int8, .text, .text, .int4, .text, .timestamptz])

    public func recordAttempt(delivery id: Int64, owner: String, outcome: WebhookAttemptOutcome) async throws(StoreError) -> Bool {
        let (status, code, error, retryAt): (WebhookDeliveryStatus, Int?, String?, Date?) = switch outcome {
        case .delivered(let code): (.delivered, code, nil, nil)
        case .retry(let at, let code, let error): (.pending, code, error, at)
        case .failed(let code, let error): (.failed, code, error, nil)
        }
        var bindings = PGBindings()
        bindings.append(id)
        bindings.append(owner)
        bindings.append(status.rawValue)
        bindings.append(code.map { Int32(clamping: $0) })
        bindings.append(error)
        bindings.append(retryAt)
        return try await run { [bindings] connection in
            try connection.executePrepared(Self.recordAttemptStatement, bindings).affectedRows == 1
        }
    }

    // MARK: administration

    public func webhookDeliveries(_ query: WebhookDeliveryQuery) async throws(StoreError) -> [WebhookDelivery] {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(query.endpointID)
            bindings.append(query.status?.rawValue)
            bindings.append(query.after)
            bindings.append(Int64(max(0, query.limit)))
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    SELECT \(Self.deliveryColumns) FROM webhook_deliveries d JOIN audit_events e ON e.id = d.event_id
                     WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2) AND ($3::bigint IS NULL OR d.id > $3)
                     ORDER BY d.id LIMIT $4
                    """,
                bindings: bindings))
            return try (0..<result.rowCount).map { row in try Self.delivery(from: result, row: row) }
        }
    }

    /// A delivered or failed delivery becomes pending and due now; a pending one is made due now (its lease, if any,
    /// is left alone). Attempts are kept.
    public func redeliver(delivery id: Int64) async throws(StoreError) -> Bool {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    UPDATE webhook_deliveries
                       SET next_attempt_at = CASE WHEN status = 'pending' THEN LEAST(next_attempt_at, now()) ELSE now() END,
                           pending_since = CASE WHEN status = 'pending' THEN pending_since ELSE now() END,
                           status = 'pending', delivered_at = NULL
                     WHERE id = $1
                    """,
                bindings: [id]))
            return result.affectedRows == 1
        }
    }

    public func outboxStats() async throws(StoreError) -> OutboxStats {
        try await run { connection in
            let result = try connection.execute(PGQuery(unsafeSQL: """
                SELECT count(*), min(d.pending_since) FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
                 WHERE d.status = 'pending' AND NOT w.paused AND NOT w.removed
                """))
            return OutboxStats(
                pending: Int(try result.decode(Int64.self, row: 0, column: 0)), oldestPendingSince: try result.decode(Date?.self, row: 0, column: 1))
        }
    }
}
