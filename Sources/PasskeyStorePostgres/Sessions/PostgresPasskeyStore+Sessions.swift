public import Foundation
import LibPQ
public import PasskeyStore

/// Sessions (refresh families), handoff codes and access-token signing keys (schema: `Migrations/0008_sessions.sql`).
/// Every SQL statement on those tables is here, including the one that credential deletion and unlinking run after
/// their own to revoke the sessions they started (``revokeSessions(startedBy:id:on:)``). Every time is the caller's
/// (`now` parameters), except in that statement, whose callers pass none.
///
/// `amr` is stored as `text[]` (LibPQ binds `[String]` as `text[]`).
extension PostgresPasskeyStore: SessionStore {
    // MARK: shapes shared by the statements

    /// Session columns in the order ``session(from:row:offset:)`` reads them, from `s` (sessions) and `u` (users).
    static let sessionColumns = """
        s.id, u.user_handle, s.origin, s.amr, s.auth_time, s.created_at, s.refreshed_at, s.generation, \
        s.idle_expires_at, s.absolute_expires_at, s.revoked_at, s.revoked_reason, s.credential_id, s.identity_id
        """

    /// `source` (a CTE of sessions rows, or `sessions` itself) as ``sessionColumns``, with `extra` columns first.
    static func selectSessions(_ extra: String = "", from source: String) -> String {
        "SELECT \(extra)\(sessionColumns) FROM \(source) s JOIN users u ON u.id = s.user_id"
    }

    static func session(from result: PGResult, row: Int, offset: Int = 0) throws -> StoredSession {
        func column(_ index: Int) -> Int { offset + index }
        var reason: SessionRevocationReason?
        if let text = try result.decode(String?.self, row: row, column: column(11)) { reason = try known(text) }
        return StoredSession(
            id: try result.decode([UInt8].self, row: row, column: column(0)),
            userHandle: try result.decode([UInt8].self, row: row, column: column(1)),
            origin: try known(try result.decode(String.self, row: row, column: column(2))),
            amr: try result.decode([String].self, row: row, column: column(3)),
            authTime: try result.decode(Date.self, row: row, column: column(4)),
            createdAt: try result.decode(Date.self, row: row, column: column(5)),
            refreshedAt: try result.decode(Date?.self, row: row, column: column(6)),
            generation: Int(try result.decode(Int32.self, row: row, column: column(7))),
            idleExpiresAt: try result.decode(Date.self, row: row, column: column(8)),
            absoluteExpiresAt: try result.decode(Date.self, row: row, column: column(9)),
            revokedAt: try result.decode(Date?.self, row: row, column: column(10)), revokedReason: reason,
            credentialID: try result.decode([UInt8]?.self, row: row, column: column(12)),
            identityID: try result.decode([UInt8]?.self, row: row, column: column(13)))
    }

    /// A stored enum value (the schema's CHECK constraints allow only known ones).
    static func known<Value: RawRepresentable<String>>(_ text: String) throws(StoreError) -> Value {
        guard let value = Value(rawValue: text) else { throw StoreError(.unavailable, "unknown \(Value.self) \(text)") }
        return value
    }

    /// What started a session, for revoking the sessions of a deleted credential or unlinked identity.
    enum SessionStarter {
        case credential, identity

        var column: String {
            switch self {
            case .credential: "credential_id"
            case .identity: "identity_id"
            }
        }

        var reason: SessionRevocationReason {
            switch self {
            case .credential: .credentialDeleted
            case .identity: .identityUnlinked
            }
        }
    }

    /// The `session.revoked` events of the sessions in `source` (a CTE with `id` and `user_id`), one per session in id
    /// order, as an INSERT for a CTE: `reason` an SQL text expression, `audit` the three parameters of the context.
    /// With `returning`, the CTE returns `user_handle` and `session_id` (base64url) of each event
    /// (``revokedEvents(from:row:reason:)``).
    static func sessionRevokedEvents(from source: String, reason: String, audit: (String, String, String), returning: Bool = false) -> String {
        """
        INSERT INTO audit_events (event, request_id, actor, user_handle, client_address, details)
        SELECT 'session.revoked', \(audit.0), \(audit.1), u.user_handle, \(audit.2),
               jsonb_build_object('session_id', \(SQLDetails.base64url("r.id")), 'reason', \(reason))
          FROM \(source) r JOIN users u ON u.id = r.user_id ORDER BY r.id
        \(returning ? "RETURNING user_handle, details ->> 'session_id' AS session_id" : "")
        """
    }

    /// The `session.revoked` events in the rows of `result` (user handle, session id), as written with `reason`.
    static func revokedEvents(from result: PGResult, reason: String) throws -> [WrittenEvent] {
        try (0..<result.rowCount).map { row in
            WrittenEvent(
                .sessionRevoked, user: try result.decode([UInt8].self, row: row, column: 0),
                details: ["session_id": try result.decode(String.self, row: row, column: 1), "reason": reason])
        }
    }

    /// After a statement that deleted the credential or identity `id`, in the same transaction (when the store is
    /// configured to revoke): revokes the sessions it started, with their `session.revoked` events. A statement of
    /// its own, not a CTE of the deletion: its snapshot is taken after the deletion waited for any sign-in that held
    /// the row (``createSessionStatement`` locks it), so a session committed meanwhile is revoked too. Revokes every
    /// session not yet revoked, expired or not, with the database's clock (the deletions have no `now` of the caller's).
    /// Returns the events written, for the caller to report once the transaction committed.
    func revokeSessions(
        startedBy starter: SessionStarter, id: [UInt8], audit: AuditContext, on connection: PGConnection
    ) throws -> [WrittenEvent] {
        guard revokeSessionsOnDelete else { return [] }
        let result = try connection.execute(PGQuery(
            unsafeSQL: """
                WITH revoked AS (
                    UPDATE sessions SET revoked_at = now(), revoked_reason = '\(starter.reason.rawValue)'
                     WHERE \(starter.column) = $1 AND revoked_at IS NULL
                    RETURNING id, user_id
                ), audit AS (
                    \(Self.sessionRevokedEvents(
                        from: "revoked", reason: "'\(starter.reason.rawValue)'", audit: ("$2", "$3", "$4"), returning: true))
                )
                SELECT user_handle, session_id FROM audit
                """,
            bindings: PGBindings.audited(id, audit)))
        return try Self.revokedEvents(from: result, reason: starter.reason.rawValue)
    }

    /// Runs an `INSERT ... SELECT ... FROM users WHERE user_handle = ...`: whether it inserted the row. A user deleted
    /// between the statement's read and its insert (a foreign-key violation) is `false`, like a user already gone.
    func insertForUser(_ statement: PGPreparedStatement, _ bindings: PGBindings) async throws(StoreError) -> Bool {
        try await run { connection in
            do {
                return try connection.executePrepared(statement, bindings).affectedRows == 1
            } catch let error as PGError where error.sqlState == .foreignKeyViolation {
                return false
            }
        }
    }

    // MARK: sessions

    static let createSessionStatement = PGPreparedStatement(
        name: "passkeyd_session_create",
        sql: """
            INSERT INTO sessions (id, user_id, refresh_hash, origin, amr, auth_time, created_at, idle_expires_at,
                                  absolute_expires_at, credential_id, identity_id)
            SELECT $1, id, $3, $4, $5, $6, $7, $8, $9, $10, $11 FROM users WHERE user_handle = $2
               AND ($10::bytea IS NULL OR EXISTS (SELECT 1 FROM credentials WHERE id = $10 FOR KEY SHARE))
               AND ($11::bytea IS NULL OR EXISTS (SELECT 1 FROM identities WHERE id = $11 FOR KEY SHARE))
            """,
        parameterTypes: [.bytea, .bytea, .bytea, .text, .textArray, .timestamptz, .timestamptz, .timestamptz, .timestamptz, .bytea, .bytea])

    public func createSession(_ session: NewSession) async throws(StoreError) -> Bool {
        var bindings: PGBindings = [
            session.id, session.userHandle, session.refreshHash, session.origin.rawValue, session.amr, session.authTime, session.createdAt,
            session.idleExpiresAt, session.absoluteExpiresAt,
        ]
        bindings.append(session.credentialID)
        bindings.append(session.identityID)
        return try await insertForUser(Self.createSessionStatement, bindings)
    }

    /// The refresh: $1 presented hash, $2 replacement, $3 now, $4 now + idle lifetime. Matches only the current token
    /// of an active session; a concurrent rotation of the same token waits for this one's row lock, re-checks the
    /// WHERE clause on the new row (another hash) and matches nothing.
    static let rotateStatement = PGPreparedStatement(
        name: "passkeyd_session_rotate",
        sql: """
            WITH rotated AS (
                UPDATE sessions
                   SET refresh_hash = $2, generation = generation + 1, refreshed_at = $3,
                       idle_expires_at = LEAST($4, absolute_expires_at)
                 WHERE refresh_hash = $1 AND revoked_at IS NULL AND $3 < idle_expires_at AND $3 < absolute_expires_at
                RETURNING *
            ), retired AS (
                INSERT INTO session_retired_tokens (token_hash, session_id, retired_at) SELECT $1, id, $3 FROM rotated
            )
            \(selectSessions(from: "rotated"))
            """,
        parameterTypes: [.bytea, .bytea, .timestamptz, .timestamptz])

    /// After a refresh that rotated nothing ($1 presented hash, $2 now, $3-$5 the audit context), in a statement of
    /// its own so its snapshot includes a concurrent rotation that just committed: a retired token revokes its
    /// session with its `session.revoked` event (unless revoked already: then no event, and the row is returned as
    /// this statement's snapshot has it), first column true, the second the event's session id if this statement
    /// revoked it; the current token of an inactive session returns it unchanged, first column false, second null; no
    /// row: unknown.
    static let presentedAgainStatement = PGPreparedStatement(
        name: "passkeyd_session_presented_again",
        sql: """
            WITH retired AS (
                SELECT session_id FROM session_retired_tokens WHERE token_hash = $1
            ), newly AS (
                UPDATE sessions SET revoked_at = $2, revoked_reason = '\(SessionRevocationReason.refreshTokenReused.rawValue)'
                 WHERE id IN (SELECT session_id FROM retired) AND revoked_at IS NULL
                RETURNING *
            ), audit AS (
                \(sessionRevokedEvents(
                    from: "newly", reason: "'\(SessionRevocationReason.refreshTokenReused.rawValue)'", audit: ("$3", "$4", "$5"), returning: true))
            ), reused AS (
                SELECT * FROM newly
                UNION ALL
                SELECT * FROM sessions WHERE id IN (SELECT session_id FROM retired) AND NOT EXISTS (SELECT 1 FROM newly)
            )
            \(selectSessions("true, (SELECT session_id FROM audit), ", from: "reused"))
            UNION ALL
            \(selectSessions("false, NULL::text, ", from: "sessions")) WHERE s.refresh_hash = $1 AND NOT EXISTS (SELECT 1 FROM retired)
            """,
        parameterTypes: [.bytea, .timestamptz, .text, .text, .text])

    public func rotateRefreshToken(
        presented: [UInt8], replacement: [UInt8], now: Date, idleLifetime: TimeInterval, audit: AuditContext
    ) async throws(StoreError) -> RefreshRotation {
        var bindings = PGBindings()
        bindings.append(presented)
        bindings.append(replacement)
        bindings.append(now)
        bindings.append(now.addingTimeInterval(idleLifetime))
        let (rotation, revoked) = try await run { [bindings] connection -> (RefreshRotation, WrittenEvent?) in
            let rotated = try connection.executePrepared(Self.rotateStatement, bindings)
            if rotated.rowCount == 1 { return (.rotated(try Self.session(from: rotated, row: 0)), nil) }
            var again = PGBindings()
            again.append(presented)
            again.append(now)
            again.append(contentsOf: audit)
            let found = try connection.executePrepared(Self.presentedAgainStatement, again)
            guard found.rowCount == 1 else { return (.unknown, nil) }
            let session = try Self.session(from: found, row: 0, offset: 2)
            guard try found.decode(Bool.self, row: 0, column: 0) else { return (.inactive(session), nil) }
            let revoked = try found.decode(String?.self, row: 0, column: 1).map { id in
                WrittenEvent(
                    .sessionRevoked, user: session.userHandle,
                    details: ["session_id": id, "reason": SessionRevocationReason.refreshTokenReused.rawValue])
            }
            return (.reused(session), revoked)
        }
        audit.report(revoked)
        return rotation
    }

    static let sessionByID = PGPreparedStatement(
        name: "passkeyd_session_by_id", sql: "\(selectSessions(from: "sessions")) WHERE s.id = $1", parameterTypes: [.bytea],
        isIdempotent: true)

    public func session(id: [UInt8]) async throws(StoreError) -> StoredSession? {
        try await run { connection in
            let result = try connection.executePrepared(Self.sessionByID, [id])
            return result.rowCount == 1 ? try Self.session(from: result, row: 0) : nil
        }
    }

    static let sessionsOfUser = PGPreparedStatement(
        name: "passkeyd_sessions_of_user",
        sql: "\(selectSessions(from: "sessions")) WHERE u.user_handle = $1 ORDER BY s.created_at DESC, s.id DESC",
        parameterTypes: [.bytea], isIdempotent: true)

    public func sessions(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredSession] {
        try await run { connection in
            let result = try connection.executePrepared(Self.sessionsOfUser, [handle])
            return try (0..<result.rowCount).map { row in try Self.session(from: result, row: row) }
        }
    }

    /// $1 id, $2 the user's handle or NULL, $3 reason, $4 now, $5-$7 the audit context: the count revoked.
    static let revokeByID = PGPreparedStatement(
        name: "passkeyd_session_revoke_by_id",
        sql: """
            WITH revoked AS (
                UPDATE sessions SET revoked_at = $4, revoked_reason = $3
                 WHERE id = $1 AND revoked_at IS NULL
                   AND ($2::bytea IS NULL OR user_id = (SELECT id FROM users WHERE user_handle = $2))
                RETURNING id, user_id
            ), audit AS (
                \(sessionRevokedEvents(from: "revoked", reason: "$3", audit: ("$5", "$6", "$7")))
            )
            SELECT count(*) FROM revoked
            """,
        parameterTypes: [.bytea, .bytea, .text, .timestamptz, .text, .text, .text])

    public func revokeSession(
        id: [UInt8], ofUser handle: [UInt8]?, reason: SessionRevocationReason, now: Date, audit: AuditContext
    ) async throws(StoreError) -> Bool {
        var bindings = PGBindings()
        bindings.append(id)
        bindings.append(handle)
        bindings.append(reason.rawValue)
        bindings.append(now)
        bindings.append(contentsOf: audit)
        return try await run { [bindings] connection in
            try connection.executePrepared(Self.revokeByID, bindings).decode(Int64.self, row: 0, column: 0) == 1
        }
    }

    /// $1 the current refresh hash, $2 reason, $3 now, $4-$6 the audit context. A session revoked earlier keeps its
    /// revocation, writes no event and is returned (as this statement's snapshot has it).
    static let revokeByRefreshHash = PGPreparedStatement(
        name: "passkeyd_session_revoke_by_refresh_hash",
        sql: """
            WITH revoked AS (
                UPDATE sessions SET revoked_at = $3, revoked_reason = $2 WHERE refresh_hash = $1 AND revoked_at IS NULL
                RETURNING *
            ), audit AS (
                \(sessionRevokedEvents(from: "revoked", reason: "$2", audit: ("$4", "$5", "$6")))
            )
            \(selectSessions(from: "revoked"))
            UNION ALL
            \(selectSessions(from: "sessions")) WHERE s.refresh_hash = $1 AND NOT EXISTS (SELECT 1 FROM revoked)
            """,
        parameterTypes: [.bytea, .text, .timestamptz, .text, .text, .text])

    public func revokeSession(
        refreshHash: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext
    ) async throws(StoreError) -> StoredSession? {
        var bindings = PGBindings()
        bindings.append(refreshHash)
        bindings.append(reason.rawValue)
        bindings.append(now)
        bindings.append(contentsOf: audit)
        return try await run { [bindings] connection in
            let result = try connection.executePrepared(Self.revokeByRefreshHash, bindings)
            return result.rowCount == 1 ? try Self.session(from: result, row: 0) : nil
        }
    }

    /// $1 handle, $2 reason, $3 now, $4-$6 the audit context: the sessions active at $3; how many.
    static let revokeAllOfUser = PGPreparedStatement(
        name: "passkeyd_sessions_revoke_of_user",
        sql: """
            WITH revoked AS (
                UPDATE sessions SET revoked_at = $3, revoked_reason = $2
                 WHERE user_id = (SELECT id FROM users WHERE user_handle = $1)
                   AND revoked_at IS NULL AND $3 < idle_expires_at AND $3 < absolute_expires_at
                RETURNING id, user_id
            ), audit AS (
                \(sessionRevokedEvents(from: "revoked", reason: "$2", audit: ("$4", "$5", "$6")))
            )
            SELECT count(*) FROM revoked
            """,
        parameterTypes: [.bytea, .text, .timestamptz, .text, .text, .text])

    public func revokeSessions(
        ofUser handle: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext
    ) async throws(StoreError) -> Int {
        var bindings = PGBindings()
        bindings.append(handle)
        bindings.append(reason.rawValue)
        bindings.append(now)
        bindings.append(contentsOf: audit)
        return try await run { [bindings] connection in
            Int(try connection.executePrepared(Self.revokeAllOfUser, bindings).decode(Int64.self, row: 0, column: 0))
        }
    }

    // MARK: handoff codes

    static let saveHandoffStatement = PGPreparedStatement(
        name: "passkeyd_handoff_save",
        sql: """
            INSERT INTO handoff_codes (code_hash, user_id, amr, auth_time, created_at, expires_at, session_id, code_challenge)
            SELECT $1, id, $3, $4, $5, $6, $7, $8 FROM users WHERE user_handle = $2
            """,
        parameterTypes: [.bytea, .bytea, .textArray, .timestamptz, .timestamptz, .timestamptz, .bytea, .text])

    public func saveHandoff(_ handoff: StoredHandoff) async throws(StoreError) -> Bool {
        var bindings: PGBindings = [handoff.codeHash, handoff.userHandle, handoff.amr, handoff.authTime, handoff.createdAt, handoff.expiresAt]
        bindings.append(handoff.sessionID)
        bindings.append(handoff.codeChallenge)
        return try await insertForUser(Self.saveHandoffStatement, bindings)
    }

    /// The consume-once shape: a concurrent second take waits for the first's row lock, then finds the row gone.
    static let takeHandoffStatement = PGPreparedStatement(
        name: "passkeyd_handoff_take",
        sql: """
            DELETE FROM handoff_codes h USING users u WHERE h.code_hash = $1 AND u.id = h.user_id
            RETURNING h.code_hash, u.user_handle, h.session_id, h.code_challenge, h.amr, h.auth_time, h.created_at, h.expires_at
            """,
        parameterTypes: [.bytea])

    public func takeHandoff(codeHash: [UInt8]) async throws(StoreError) -> StoredHandoff? {
        try await run { connection in
            let result = try connection.executePrepared(Self.takeHandoffStatement, [codeHash])
            guard result.rowCount == 1 else { return nil }
            return StoredHandoff(
                codeHash: try result.decode([UInt8].self, row: 0, column: 0), userHandle: try result.decode([UInt8].self, row: 0, column: 1),
                sessionID: try result.decode([UInt8]?.self, row: 0, column: 2), codeChallenge: try result.decode(String?.self, row: 0, column: 3),
                amr: try result.decode([String].self, row: 0, column: 4), authTime: try result.decode(Date.self, row: 0, column: 5),
                createdAt: try result.decode(Date.self, row: 0, column: 6), expiresAt: try result.decode(Date.self, row: 0, column: 7))
        }
    }

    // MARK: purge

    /// $1 before, $2 batch size: sessions past their absolute expiry or revoked before $1 (their retired tokens by
    /// cascade).
    static let purgeSessionsBatch = PGPreparedStatement(
        name: "passkeyd_sessions_purge_batch",
        sql: """
            DELETE FROM sessions WHERE id IN (
                SELECT id FROM sessions WHERE absolute_expires_at < $1 UNION SELECT id FROM sessions WHERE revoked_at < $1 LIMIT $2)
            """,
        parameterTypes: [.timestamptz, .int8])

    /// Codes expired at $1 (a time equal to the expiry is expired).
    static let purgeHandoffs = PGPreparedStatement(
        name: "passkeyd_handoff_purge", sql: "DELETE FROM handoff_codes WHERE expires_at <= $1", parameterTypes: [.timestamptz])

    public func purgeSessions(before: Date) async throws(StoreError) -> Int {
        let purged = try await deleteInBatches(Self.purgeSessionsBatch, [before])
        _ = try await run { connection in try connection.executePrepared(Self.purgeHandoffs, [before]) }
        return purged
    }

    // MARK: signing keys

    /// The key of the advisory lock that serializes signing-key rotations across instances: the ASCII bytes of
    /// "signkeys" (the migrator's is "passkeyd").
    static let signingKeyLockKey: Int64 = 0x7369_676E_6B65_7973

    static let lockSigningKeys = PGPreparedStatement(
        name: "passkeyd_signing_keys_lock", sql: "SELECT pg_advisory_xact_lock(\(signingKeyLockKey))", parameterTypes: [])

    static let signingKeyColumns = "kid, algorithm, sealed_private_key, created_at, activates_at, retires_at, expires_at"

    static let signingKeysStatement = PGPreparedStatement(
        name: "passkeyd_signing_keys",
        sql: "SELECT \(signingKeyColumns) FROM session_signing_keys ORDER BY created_at, kid", parameterTypes: [], isIdempotent: true)

    /// $1-$7 the key's columns, $8 unlessCreatedAfter, $9 when the keys it retires leave the JWKS. Run under the
    /// advisory lock: a concurrent rotation that took it first has committed, and this statement's snapshot sees its key.
    static let addSigningKeyStatement = PGPreparedStatement(
        name: "passkeyd_signing_key_add",
        sql: """
            WITH newer AS (
                SELECT 1 FROM session_signing_keys WHERE created_at > $8 LIMIT 1
            ), retired AS (
                UPDATE session_signing_keys SET retires_at = $5, expires_at = $9
                 WHERE retires_at IS NULL AND NOT EXISTS (SELECT 1 FROM newer)
            ), added AS (
                INSERT INTO session_signing_keys (\(signingKeyColumns))
                SELECT $1, $2, $3, $4, $5, $6, $7 WHERE NOT EXISTS (SELECT 1 FROM newer)
                RETURNING 1
            )
            SELECT count(*) FROM added
            """,
        parameterTypes: [.text, .text, .bytea, .timestamptz, .timestamptz, .timestamptz, .timestamptz, .timestamptz, .timestamptz])

    static let purgeSigningKeysStatement = PGPreparedStatement(
        name: "passkeyd_signing_keys_purge", sql: "DELETE FROM session_signing_keys WHERE expires_at < $1", parameterTypes: [.timestamptz])

    public func signingKeys() async throws(StoreError) -> [StoredSigningKey] {
        try await run { connection in
            let result = try connection.executePrepared(Self.signingKeysStatement, [])
            return try (0..<result.rowCount).map { row in
                StoredSigningKey(
                    keyID: try result.decode(String.self, row: row, column: 0), algorithm: try result.decode(String.self, row: row, column: 1),
                    sealedPrivateKey: try result.decode([UInt8].self, row: row, column: 2),
                    createdAt: try result.decode(Date.self, row: row, column: 3), activatesAt: try result.decode(Date.self, row: row, column: 4),
                    retiresAt: try result.decode(Date?.self, row: row, column: 5), expiresAt: try result.decode(Date?.self, row: row, column: 6))
            }
        }
    }

    public func addSigningKey(
        _ key: StoredSigningKey, unlessCreatedAfter: Date, retiredKeyLifetime: TimeInterval
    ) async throws(StoreError) -> Bool {
        var bindings: PGBindings = [key.keyID, key.algorithm, key.sealedPrivateKey, key.createdAt, key.activatesAt]
        bindings.append(key.retiresAt)
        bindings.append(key.expiresAt)
        bindings.append(unlessCreatedAfter)
        bindings.append(key.activatesAt.addingTimeInterval(retiredKeyLifetime))
        return try await run(transaction: true) { [bindings] connection in
            _ = try connection.executePrepared(Self.lockSigningKeys, [])
            return try connection.executePrepared(Self.addSigningKeyStatement, bindings).decode(Int64.self, row: 0, column: 0) == 1
        }
    }

    public func purgeSigningKeys(before: Date) async throws(StoreError) -> Int {
        try await run { connection in try connection.executePrepared(Self.purgeSigningKeysStatement, [before]).affectedRows ?? 0 }
    }
}
