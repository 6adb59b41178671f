public import Foundation
import LibPQ
public import PasskeyStore

/// Reading the audit trail (schema: `Migrations/0005_audit_events.sql`). Events are written by the statements that
/// make each change (in PostgresPasskeyStore.swift and PostgresPasskeyStore+Identities.swift), never here.
extension PostgresPasskeyStore {
    public func auditEvents(_ query: AuditQuery) async throws(StoreError) -> [AuditEvent] {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    SELECT id, occurred_at, event, request_id, actor, user_handle, credential_id, client_address, identity_id
                      FROM audit_events
                     WHERE ($1::bytea IS NULL OR user_handle = $1) AND ($2::timestamptz IS NULL OR occurred_at >= $2)
                       AND ($3::timestamptz IS NULL OR occurred_at < $3) AND ($4::bigint IS NULL OR id > $4)
                     ORDER BY id LIMIT $5
                    """,
                bindings: {
                    var bindings = PGBindings()
                    bindings.append(query.userHandle)
                    bindings.append(query.since)
                    bindings.append(query.until)
                    bindings.append(query.after)
                    bindings.append(Int64(max(0, query.limit)))
                    return bindings
                }()))
            return try (0..<result.rowCount).map { row in
                AuditEvent(
                    id: try result.decode(Int64.self, row: row, column: 0), occurredAt: try result.decode(Date.self, row: row, column: 1),
                    kind: AuditEventKind(rawValue: try result.decode(String.self, row: row, column: 2)) ?? .credentialRegistered,
                    context: AuditContext(
                        requestID: try result.decode(String?.self, row: row, column: 3), actor: try result.decode(String.self, row: row, column: 4),
                        clientAddress: try result.decode(String?.self, row: row, column: 7)),
                    userHandle: try result.decode([UInt8]?.self, row: row, column: 5),
                    credentialID: try result.decode([UInt8]?.self, row: row, column: 6),
                    identityID: try result.decode([UInt8]?.self, row: row, column: 8))
            }
        }
    }
}
