public import Foundation
import LibPQ
public import PasskeyStore

/// Reading the audit trail (schema: `Migrations/0005_audit_events.sql`, details from `0015_events.sql`). Events are
/// written by the statements that make each change (in PostgresPasskeyStore.swift and PostgresPasskeyStore+Identities.swift),
/// never here.
extension PostgresPasskeyStore {
    /// Audit columns of `e` (audit_events) in the order ``auditEvent(from:row:offset:)`` reads them.
    static let auditColumns = """
        e.id, e.occurred_at, e.event, e.request_id, e.actor, e.user_handle, e.credential_id, e.client_address, e.identity_id, \
        e.details::text
        """
    static let auditColumnCount = 10

    static func auditEvent(from result: PGResult, row: Int, offset: Int = 0) throws -> AuditEvent {
        func column(_ index: Int) -> Int { offset + index }
        return AuditEvent(
            id: try result.decode(Int64.self, row: row, column: column(0)), occurredAt: try result.decode(Date.self, row: row, column: column(1)),
            kind: try known(try result.decode(String.self, row: row, column: column(2))),
            context: AuditContext(
                requestID: try result.decode(String?.self, row: row, column: column(3)),
                actor: try result.decode(String.self, row: row, column: column(4)),
                clientAddress: try result.decode(String?.self, row: row, column: column(7))),
            userHandle: try result.decode([UInt8]?.self, row: row, column: column(5)),
            credentialID: try result.decode([UInt8]?.self, row: row, column: column(6)),
            identityID: try result.decode([UInt8]?.self, row: row, column: column(8)),
            details: details(try result.decode(String?.self, row: row, column: column(9))))
    }

    /// The `details` object (string values only; other values are written as their JSON text).
    static func details(_ text: String?) -> [String: String] {
        guard let text, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return [:] }
        return object.mapValues { value in
            if let string = value as? String { return string }
            if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
                return String(decoding: data, as: UTF8.self)
            }
            return "\(value)"
        }
    }

    public func auditEvents(_ query: AuditQuery) async throws(StoreError) -> [AuditEvent] {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    SELECT \(Self.auditColumns)
                      FROM audit_events e
                     WHERE ($1::bytea IS NULL OR e.user_handle = $1) AND ($2::timestamptz IS NULL OR e.occurred_at >= $2)
                       AND ($3::timestamptz IS NULL OR e.occurred_at < $3) AND ($4::bigint IS NULL OR e.id > $4)
                     ORDER BY e.id LIMIT $5
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
            return try (0..<result.rowCount).map { row in try Self.auditEvent(from: result, row: row) }
        }
    }
}

/// SQL for the `details` of the events written by statements: base64url of a bytea expression (no padding).
enum SQLDetails {
    static func base64url(_ expression: String) -> String {
        "rtrim(translate(encode(\(expression), 'base64'), E'+/\\n', '-_'), '=')"
    }
}
