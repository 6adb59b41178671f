public import LibPQ
public import PasskeyStore
import Tracing

/// ``PasskeyReadStore`` on a pool of its own, for a hot standby (`PASSKEYD_DATABASE_READ_URL`): the begins' one read
/// and nothing else. It cannot write by construction (no write statement is reachable from it) and by configuration:
/// its pool should be read-only (`PGPool.Configuration.readOnly`, `default_transaction_read_only = on`), so a write
/// would fail even on a server that accepts them; a standby refuses them anyway.
public final class PostgresReadStore: PasskeyReadStore {
    let pool: PGPool
    /// The read in a span (`store.replicaUserWithCredentials`, like ``PostgresPasskeyStore/traced(_:batched:_:)``).
    let tracing: Bool

    /// - Parameters:
    ///   - pool: connections to a database with passkeyd's schema (a streaming replica of its primary).
    ///   - tracing: the read in a span (the executable's choice: on when traces are exported).
    public init(pool: PGPool, tracing: Bool = false) {
        self.pool = pool
        self.tracing = tracing
    }

    public func userWithCredentials(_ lookup: UserLookup) async throws(StoreError) -> UserWithCredentials? {
        do {
            guard tracing else {
                return try await pool.withConnection { connection in try PostgresPasskeyStore.readUser(lookup, on: connection) }
            }
            return try await withSpan("store.replicaUserWithCredentials", ofKind: .client) { span in
                span.attributes["db.system.name"] = "postgresql"
                span.attributes["db.operation.name"] = "replicaUserWithCredentials"
                return try await pool.withConnection { connection in try PostgresPasskeyStore.readUser(lookup, on: connection) }
            }
        } catch {
            throw PostgresPasskeyStore.storeError(error)
        }
    }
}

/// The primary answers the begins' read too (the fallback of a lagging or unreachable standby).
extension PostgresPasskeyStore {
    /// On the primary; with batch lanes, concurrent reads share one statement (``UserReadBatcher``).
    public func userWithCredentials(_ lookup: UserLookup) async throws(StoreError) -> UserWithCredentials? {
        guard let userReadBatcher else {
            return try await run { connection in try Self.readUser(lookup, on: connection) }
        }
        do {
            return try await traced(#function, batched: true) { try await userReadBatcher.submit(lookup) }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The user `lookup` names with their credentials (sign-in columns), in one statement.
    static func readUser(_ lookup: UserLookup, on connection: PGConnection) throws -> UserWithCredentials? {
        let result = switch lookup {
        case .name(let name): try connection.executePrepared(userWithCredentials, [name])
        case .handle(let handle): try connection.executePrepared(userWithCredentialsByHandle, [handle])
        }
        guard result.rowCount > 0 else { return nil }
        return UserWithCredentials(
            user: try user(from: result, row: 0),
            credentials: try (0..<result.rowCount).compactMap { try credential(from: result, row: $0, offset: 4) })
    }
}
