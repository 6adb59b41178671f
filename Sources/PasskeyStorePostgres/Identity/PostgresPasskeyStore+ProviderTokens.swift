public import Foundation
import LibPQ
public import PasskeyStore

/// Provider refresh tokens and their revocation queue (schema: `Migrations/0007_apple_tokens.sql`). Every SQL shape
/// that touches these tables is here. Queueing is the schema's: a trigger on `identity_tokens` queues each token that
/// is deleted (unlink, user deletion, by cascade) or replaced, so the deleting statements need not name the table.
extension PostgresPasskeyStore: ProviderTokenStore {
    /// Keep a token for an identity (a replaced token is queued by the table's trigger); for an identity that is gone,
    /// queue the token for revocation instead. Runs after `SELECT ... FOR KEY SHARE` on the identity in the same
    /// transaction, so the identity cannot go between the check and the insert, and a deletion that waits for this
    /// transaction cascades to the saved token (and queues it).
    static let saveToken = PGPreparedStatement(
        name: "passkeyd_provider_token_save",
        sql: """
            WITH i AS (
                SELECT id FROM identities WHERE id = $1
            ), saved AS (
                INSERT INTO identity_tokens (identity_id, provider, client_id, sealed_token)
                SELECT id, $2, $3, $4 FROM i
                ON CONFLICT (identity_id) DO UPDATE
                   SET provider = EXCLUDED.provider, client_id = EXCLUDED.client_id,
                       sealed_token = EXCLUDED.sealed_token, created_at = now()
                RETURNING 1
            ), orphaned AS (
                INSERT INTO token_revocations (identity_id, provider, client_id, sealed_token)
                SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM i)
            )
            SELECT count(*) FROM saved
            """,
        parameterTypes: [.bytea, .text, .text, .bytea])

    /// Claim due revocations: attempts + 1 and a lease, skipping rows another instance holds.
    static let claimRevocations = PGPreparedStatement(
        name: "passkeyd_token_revocations_claim",
        sql: """
            UPDATE token_revocations r
               SET attempts = r.attempts + 1, next_attempt_at = now() + make_interval(secs => $2::float8 / 1000)
             WHERE r.id IN (SELECT id FROM token_revocations WHERE next_attempt_at <= now()
                             ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING r.id, r.identity_id, r.provider, r.client_id, r.sealed_token, r.attempts
            """,
        parameterTypes: [.int8, .int8])

    public func saveProviderToken(_ token: SealedProviderToken) async throws(StoreError) -> Bool {
        try await run(transaction: true) { connection in
            // Holds the identity until commit: a concurrent deletion waits, then its cascade sees (and queues) the token.
            _ = try connection.execute(PGQuery(
                unsafeSQL: "SELECT 1 FROM identities WHERE id = $1 FOR KEY SHARE", bindings: [token.identityID]))
            var bindings = PGBindings()
            bindings.append(token.identityID)
            bindings.append(token.provider)
            bindings.append(token.clientID)
            bindings.append(token.sealedToken)
            let result = try connection.executePrepared(Self.saveToken, bindings)
            return try result.decode(Int64.self, row: 0, column: 0) > 0
        }
    }

    public func providerToken(identityID: [UInt8]) async throws(StoreError) -> SealedProviderToken? {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: "SELECT identity_id, provider, client_id, sealed_token FROM identity_tokens WHERE identity_id = $1",
                bindings: [identityID]))
            guard result.rowCount == 1 else { return nil }
            return SealedProviderToken(
                identityID: try result.decode([UInt8].self, row: 0, column: 0), provider: try result.decode(String.self, row: 0, column: 1),
                clientID: try result.decode(String.self, row: 0, column: 2), sealedToken: try result.decode([UInt8].self, row: 0, column: 3))
        }
    }

    public func claimTokenRevocations(limit: Int, lease: TimeInterval) async throws(StoreError) -> [PendingTokenRevocation] {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(Int64(max(0, limit)))
            bindings.append(Int64(max(0, lease) * 1000))
            let result = try connection.executePrepared(Self.claimRevocations, bindings)
            return try (0..<result.rowCount).map { row in
                PendingTokenRevocation(
                    id: try result.decode(Int64.self, row: row, column: 0),
                    token: SealedProviderToken(
                        identityID: try result.decode([UInt8].self, row: row, column: 1),
                        provider: try result.decode(String.self, row: row, column: 2),
                        clientID: try result.decode(String.self, row: row, column: 3),
                        sealedToken: try result.decode([UInt8].self, row: row, column: 4)),
                    attempts: Int(try result.decode(Int32.self, row: row, column: 5)))
            }.sorted { $0.id < $1.id }
        }
    }

    public func completeTokenRevocation(id: Int64) async throws(StoreError) {
        try await run { connection in
            _ = try connection.execute(PGQuery(unsafeSQL: "DELETE FROM token_revocations WHERE id = $1", bindings: [id]))
        }
    }

    public func deferTokenRevocation(id: Int64, retryAfter: TimeInterval, error: String) async throws(StoreError) {
        try await run { connection in
            var bindings = PGBindings()
            bindings.append(id)
            bindings.append(Int64(max(0, retryAfter) * 1000))
            bindings.append(String(error.prefix(500)))
            _ = try connection.execute(PGQuery(
                unsafeSQL: """
                    UPDATE token_revocations SET next_attempt_at = now() + make_interval(secs => $2::float8 / 1000), last_error = $3
                     WHERE id = $1
                    """,
                bindings: bindings))
        }
    }

    public func pendingTokenRevocationCount() async throws(StoreError) -> Int {
        try await run { connection in
            let result = try connection.execute(PGQuery(unsafeSQL: "SELECT count(*) FROM token_revocations"))
            return Int(try result.decode(Int64.self, row: 0, column: 0))
        }
    }
}
