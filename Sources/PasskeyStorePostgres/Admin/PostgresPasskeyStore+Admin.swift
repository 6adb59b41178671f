import Foundation
import LibPQ
public import PasskeyStore
import WebAuthnCore

/// The admin API's statements: listing users, renaming and deleting credentials, deleting users.
extension PostgresPasskeyStore {
    // MARK: administration

    public func listUsers(nameFilter: String?, limit: Int, after: String?) async throws(StoreError) -> [StoredUser] {
        try await run { connection in
            let result = try connection.execute("""
                SELECT user_handle, name, display_name, created_at FROM users
                 WHERE (\(nameFilter)::text IS NULL OR strpos(name, \(nameFilter)) > 0)
                   AND (\(after)::text IS NULL OR name > \(after))
                 ORDER BY name LIMIT \(Int64(max(0, limit)))
                """)
            return try (0..<result.rowCount).map { try Self.user(from: result, row: $0) }
        }
    }

    /// Each change and its audit event in one statement ($3 request id, $4 actor, $5 client address).
    public func renameCredential(id: [UInt8], nickname: String?, audit: AuditContext) async throws(StoreError) -> StoredCredential? {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    WITH updated AS (UPDATE credentials SET nickname = $2 WHERE id = $1 RETURNING *),
                    audit AS (
                        INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, client_address)
                        SELECT 'credential.renamed', $3, $4, u.user_handle, c.id, $5 FROM updated c JOIN users u ON u.id = c.user_id
                    )
                    SELECT \(Self.credentialColumns) FROM updated c JOIN users u ON u.id = c.user_id
                    """,
                bindings: {
                    var bindings = PGBindings()
                    bindings.append(id)
                    bindings.append(nickname)
                    bindings.append(contentsOf: audit)
                    return bindings
                }()))
            return result.rowCount == 0 ? nil : try Self.credential(from: result, row: 0)
        }
    }

    /// The credential and its audit event in one statement, then (when configured) the revocation of the sessions it
    /// started, in the same transaction.
    public func deleteCredential(id: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool {
        let (deleted, revoked) = try await run(transaction: revokeSessionsOnDelete) { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    WITH deleted AS (DELETE FROM credentials WHERE id = $1 RETURNING id, user_id),
                    audit AS (
                        INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, client_address)
                        SELECT 'credential.deleted', $2, $3, u.user_handle, d.id, $4 FROM deleted d JOIN users u ON u.id = d.user_id
                    )
                    SELECT count(*) FROM deleted
                    """,
                bindings: PGBindings.audited(id, audit)))
            guard try result.decode(Int64.self, row: 0, column: 0) > 0 else { return (false, [WrittenEvent]()) }
            return (true, try self.revokeSessions(startedBy: .credential, id: id, audit: audit, on: connection))
        }
        audit.report(revoked)
        return deleted
    }

    /// The user, their credentials, identities, sessions, handoff codes (cascade) and one audit event for each credential,
    /// identity and active session (`session.revoked`, `user_deleted`), then `user.deleted`, in one statement; all of
    /// them reported (``AuditConsequences``).
    public func deleteUser(handle: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool {
        let (deleted, consequences) = try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    WITH deleted AS (DELETE FROM users WHERE user_handle = $1 RETURNING id, user_handle),
                    audit AS (
                        INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, identity_id, client_address, details)
                        SELECT e.event, $2, $3, e.user_handle, e.credential_id, e.identity_id, $4, e.details FROM (
                            SELECT 1 AS position, c.created_at AS at, 'credential.deleted' AS event, d.user_handle,
                                   c.id AS credential_id, NULL::bytea AS identity_id, NULL::bytea AS session_id, NULL::jsonb AS details
                              FROM deleted d JOIN credentials c ON c.user_id = d.id
                            UNION ALL
                            SELECT 2, i.created_at, 'identity.unlinked', d.user_handle, NULL, i.id, NULL, NULL
                              FROM deleted d JOIN identities i ON i.user_id = d.id
                            UNION ALL
                            SELECT 3, NULL, 'session.revoked', d.user_handle, NULL, NULL, s.id,
                                   jsonb_build_object('session_id', \(SQLDetails.base64url("s.id")), 'reason', '\(SessionRevokedEvent.userDeleted)')
                              FROM deleted d JOIN sessions s ON s.user_id = d.id
                             WHERE s.revoked_at IS NULL AND now() < s.idle_expires_at AND now() < s.absolute_expires_at
                            UNION ALL
                            SELECT 4, NULL, 'user.deleted', user_handle, NULL, NULL, NULL, NULL FROM deleted
                        ) AS e ORDER BY e.position, e.at, e.credential_id, e.identity_id, e.session_id
                        RETURNING id, event, credential_id, identity_id, details ->> 'session_id' AS session_id
                    )
                    SELECT (SELECT count(*) FROM deleted), a.event, a.credential_id, a.identity_id, a.session_id
                      FROM (SELECT 1) AS one LEFT JOIN audit a ON true ORDER BY a.id
                    """,
                bindings: PGBindings.audited(handle, audit)))
            guard try result.decode(Int64.self, row: 0, column: 0) > 0 else { return (false, [WrittenEvent]()) }
            let events = try (0..<result.rowCount).compactMap { row throws -> WrittenEvent? in
                guard !(try result.isNull(row: row, column: 1)) else { return nil }
                let kind: AuditEventKind = try Self.known(try result.decode(String.self, row: row, column: 1))
                let session = try result.decode(String?.self, row: row, column: 4)
                return WrittenEvent(
                    kind, user: handle, credential: try result.decode([UInt8]?.self, row: row, column: 2),
                    identity: try result.decode([UInt8]?.self, row: row, column: 3),
                    details: session.map { ["session_id": $0, "reason": SessionRevokedEvent.userDeleted] } ?? [:])
            }
            return (true, events)
        }
        audit.report(consequences)
        return deleted
    }
}
