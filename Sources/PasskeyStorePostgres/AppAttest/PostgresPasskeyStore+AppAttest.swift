public import AppleSignedData
import Foundation
import LibPQ
public import PasskeyStore

/// App Attest keys (schema: `Migrations/0010_appattest.sql`). Challenges are ceremonies of kind `appattest` and use
/// the ceremony statements (saved, taken once with DELETE ... RETURNING, purged).
extension PostgresPasskeyStore: AppAttestStore {
    /// Key columns as the lookup returns them.
    static let appAttestColumns = """
        k.key_id, u.user_handle, k.app_id, k.environment, k.public_key, k.counter, k.receipt, k.created_at, k.last_used_at
        """

    /// Insert a key (counter 0) attached to the user with handle $2 when $2 is set, with its audit event ($7-$9 the
    /// context); one row: the new key's created_at (NULL when nothing was inserted) and whether the named user exists
    /// (true when none was named).
    static let appAttestSave = PGPreparedStatement(
        name: "passkeyd_appattest_save",
        sql: """
            WITH u AS (
                SELECT id FROM users WHERE user_handle = $2
            ), ins AS (
                INSERT INTO app_attest_keys (key_id, user_id, app_id, environment, public_key, counter, receipt)
                SELECT $1, (SELECT id FROM u), $3, $4, $5, 0, $6
                 WHERE $2::bytea IS NULL OR EXISTS (SELECT 1 FROM u)
                ON CONFLICT (key_id) DO NOTHING
                RETURNING created_at
            ), audit AS (
                INSERT INTO audit_events (event, request_id, actor, user_handle, client_address, details)
                SELECT 'appattest.key_registered', $7, $8, $2, $9, jsonb_build_object('key_id', \(SQLDetails.base64url("$1::bytea")))
                  FROM ins
            )
            SELECT (SELECT created_at FROM ins), ($2::bytea IS NULL OR EXISTS (SELECT 1 FROM u))
            """,
        parameterTypes: [.bytea, .bytea, .text, .text, .bytea, .bytea, .text, .text, .text])

    static let appAttestKeyByID = PGPreparedStatement(
        name: "passkeyd_appattest_key",
        sql: """
            SELECT \(appAttestColumns)
              FROM app_attest_keys k LEFT JOIN users u ON u.id = k.user_id
             WHERE k.key_id = $1
            """,
        parameterTypes: [.bytea], isIdempotent: true)

    /// The assertion counter's conditional update, the same shape as the passkey counter's: written only while the
    /// stored counter is below $2, so it never goes down and of two equal counters exactly one row is updated.
    static let appAttestAdvance = PGPreparedStatement(
        name: "passkeyd_appattest_advance",
        sql: """
            UPDATE app_attest_keys SET counter = $2, last_used_at = now()
             WHERE key_id = $1 AND counter < $2
            RETURNING 1
            """,
        parameterTypes: [.bytea, .int8])

    public func saveAppAttestKey(
        _ key: AttestedAppAttestKey, userHandle: [UInt8]?, audit: AuditContext
    ) async throws(StoreError) -> AppAttestKeySave {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(key.keyID)
            bindings.append(userHandle)
            bindings.append(key.appID)
            bindings.append(key.environment.rawValue)
            bindings.append(key.publicKeySPKI)
            bindings.append(key.receipt)
            bindings.append(contentsOf: audit)
            let result: PGResult
            do {
                result = try connection.executePrepared(Self.appAttestSave, bindings)
            } catch let error as PGError where error.sqlState == .foreignKeyViolation {
                // The user was deleted between the statement's read and its insert.
                return .userUnknown
            }
            guard result.rowCount == 1 else { throw StoreError(.unavailable, "appattest save returned \(result.rowCount) rows") }
            if let createdAt = try result.decode(Date?.self, row: 0, column: 0) {
                return .saved(StoredAppAttestKey(
                    keyID: key.keyID, userHandle: userHandle, appID: key.appID, environment: key.environment,
                    publicKey: key.publicKeySPKI, counter: 0, receipt: key.receipt, createdAt: createdAt, lastUsedAt: nil))
            }
            return try result.decode(Bool.self, row: 0, column: 1) ? .exists : .userUnknown
        }
    }

    public func appAttestKey(id: [UInt8]) async throws(StoreError) -> StoredAppAttestKey? {
        try await run { connection in
            let result = try connection.executePrepared(Self.appAttestKeyByID, [id])
            guard result.rowCount == 1 else { return nil }
            let environmentText = try result.decode(String.self, row: 0, column: 3)
            guard let environment = AppAttestEnvironment(rawValue: environmentText) else {
                throw StoreError(.unavailable, "unknown App Attest environment \(environmentText.debugDescription)")
            }
            let counter = try result.decode(Int64.self, row: 0, column: 5)
            return StoredAppAttestKey(
                keyID: try result.decode([UInt8].self, row: 0, column: 0),
                userHandle: try result.decode([UInt8]?.self, row: 0, column: 1),
                appID: try result.decode(String.self, row: 0, column: 2), environment: environment,
                publicKey: try result.decode([UInt8].self, row: 0, column: 4), counter: UInt32(clamping: counter),
                receipt: try result.decode([UInt8].self, row: 0, column: 6),
                createdAt: try result.decode(Date.self, row: 0, column: 7),
                lastUsedAt: try result.decode(Date?.self, row: 0, column: 8))
        }
    }

    public func advanceAppAttestCounter(keyID: [UInt8], to counter: UInt32) async throws(StoreError) -> Bool {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(keyID)
            bindings.append(Int64(counter))
            return try connection.executePrepared(Self.appAttestAdvance, bindings).rowCount == 1
        }
    }
}
