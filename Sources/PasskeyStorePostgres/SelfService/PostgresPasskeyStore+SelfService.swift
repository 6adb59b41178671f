import LibPQ
public import PasskeyStore
import WebAuthnCore

// The self-service API's storage (and POST /v1/users): accounts created without a sign-in method, and renames and
// removals scoped to their owner, the last sign-in method kept under the owner's row lock.
extension PostgresPasskeyStore {
    /// The user and its `user.created` event in one statement (a taken name or handle is the unique violation).
    public func createUser(handle: [UInt8], name: String, displayName: String, audit: AuditContext) async throws(StoreError) -> StoredUser {
        try await run { connection in
            var bindings = PGBindings.audited(handle, audit)
            bindings.append(name)
            bindings.append(displayName)
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    WITH created AS (
                        INSERT INTO users (user_handle, name, display_name) VALUES ($1, $5, $6) RETURNING \(Self.userColumns)
                    ), audit AS (
                        INSERT INTO audit_events (event, request_id, actor, user_handle, client_address)
                        SELECT 'user.created', $2, $3, user_handle, $4 FROM created
                    )
                    SELECT \(Self.userColumns) FROM created
                    """,
                bindings: bindings))
            return try Self.user(from: result, row: 0)
        }
    }

    public func renameCredential(
        id: [UInt8], ofUser owner: [UInt8], nickname: String?, audit: AuditContext
    ) async throws(StoreError) -> StoredCredential? {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(id)
            bindings.append(nickname)
            bindings.append(contentsOf: audit)
            bindings.append(owner)
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    WITH updated AS (
                        UPDATE credentials c SET nickname = $2 FROM users u
                         WHERE c.id = $1 AND u.id = c.user_id AND u.user_handle = $6 RETURNING c.*
                    ), audit AS (
                        INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, client_address)
                        SELECT 'credential.renamed', $3, $4, $6, c.id, $5 FROM updated c
                    )
                    SELECT \(Self.credentialColumns) FROM updated c JOIN users u ON u.id = c.user_id
                    """,
                bindings: bindings))
            return result.rowCount == 0 ? nil : try Self.credential(from: result, row: 0)
        }
    }

    /// In one transaction: ``removeSignInMethod(_:id:owner:keepingLast:audit:on:)``.
    public func removeCredential(
        id: [UInt8], ofUser owner: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) async throws(StoreError) -> SignInMethodRemoval {
        let (removal, revoked) = try await run(transaction: true) { connection in
            try self.removeSignInMethod(.credential, id: id, owner: owner, keepingLast: keepingLastSignInMethod, audit: audit, on: connection)
        }
        audit.report(revoked)
        return removal
    }

    /// Removes the passkey or identity `id` of `owner`, inside the caller's transaction: with `keepingLast`, the
    /// owner's row is locked first (``lockOwner(_:on:)``); then one statement deletes it only if the owner owns it
    /// and, when asked, still has another sign-in method, with its audit event; then the sessions it started are
    /// revoked (when configured): their events, for the caller to report once the transaction committed.
    func removeSignInMethod(
        _ kind: SessionStarter, id: [UInt8], owner: [UInt8], keepingLast: Bool, audit: AuditContext, on connection: PGConnection
    ) throws -> (SignInMethodRemoval, [WrittenEvent]) {
        if keepingLast {
            // The guard relies on each statement's fresh snapshot after the lock: READ COMMITTED, whatever the
            // server's default_transaction_isolation says.
            _ = try connection.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
            guard try Self.lockOwner(owner, on: connection) else { return (.unknown, []) }
        }
        let (table, event, column) = switch kind {
        case .credential: ("credentials", "credential.deleted", "credential_id")
        case .identity: ("identities", "identity.unlinked", "identity_id")
        }
        var bindings = PGBindings.audited(id, audit)
        bindings.append(owner)
        bindings.append(keepingLast)
        let result = try connection.execute(PGQuery(
            unsafeSQL: """
                WITH owner AS (SELECT id, user_handle FROM users WHERE user_handle = $5),
                target AS (SELECT t.id FROM \(table) t JOIN owner o ON o.id = t.user_id WHERE t.id = $1),
                deleted AS (
                    DELETE FROM \(table) WHERE id IN (SELECT id FROM target) AND (NOT $6 OR \(Self.signInMethodCount) > 1)
                    RETURNING id
                ), audit AS (
                    INSERT INTO audit_events (event, request_id, actor, user_handle, \(column), client_address)
                    SELECT '\(event)', $2, $3, $5, d.id, $4 FROM deleted d
                )
                SELECT (SELECT count(*) FROM target), (SELECT count(*) FROM deleted)
                """,
            bindings: bindings))
        guard try result.decode(Int64.self, row: 0, column: 0) > 0 else { return (.unknown, []) }
        guard try result.decode(Int64.self, row: 0, column: 1) > 0 else { return (.lastSignInMethod, []) }
        return (.removed, try revokeSessions(startedBy: kind, id: id, audit: audit, on: connection))
    }

    /// The passkeys plus provider identities of the user in the CTE `owner`, as an SQL expression.
    static let signInMethodCount = """
        ((SELECT count(*) FROM credentials c2 JOIN owner o2 ON o2.id = c2.user_id) \
        + (SELECT count(*) FROM identities i2 JOIN owner o2 ON o2.id = i2.user_id))
        """

    /// Locks the user's row for the transaction (false when there is no such user), so that two removals of their
    /// last two sign-in methods are serialised and the second one's statement, with a new snapshot, counts what the
    /// first left; registrations and links of that user wait on the lock (their foreign key takes a share lock).
    static func lockOwner(_ owner: [UInt8], on connection: PGConnection) throws -> Bool {
        try connection.execute("SELECT 1 FROM users WHERE user_handle = \(owner) FOR UPDATE").rowCount > 0
    }
}
