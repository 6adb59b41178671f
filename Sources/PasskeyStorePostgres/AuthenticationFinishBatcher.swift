import Foundation
import LibPQ
import PasskeyStore
import Synchronization
import WebAuthnCore

/// Authentication finishes of concurrent requests, run in batches on few connections: per batch one read of every
/// ceremony and credential (`unnest` of the challenges and credential ids), the engine's verification of each,
/// then every finish's own write (``PostgresPasskeyStore/consumeAndApply`` or, when refused,
/// ``PostgresPasskeyStore/consumeCeremony``) sent in one libpq pipeline. Each write stays its own transaction,
/// so a finish keeps exactly the single-finish semantics (one durable commit, single use, the conditional
/// counter; a finish that loses its ceremony to another, in the same batch or elsewhere, writes nothing and gets
/// `ceremonyTaken`), while the database sees two round trips and one read statement per batch instead of two
/// round trips per finish.
///
/// No timer: a batch is whatever has queued while the lanes were busy, so a lone request runs at once and the
/// batches grow with the load. `lanes` bounds the connections batches hold at a time.
final class AuthenticationFinishBatcher: Sendable {
    struct Request: Sendable {
        let challenge: [UInt8]
        let credentialID: [UInt8]
        /// The caller's verification (pure); returns the update to apply, nil when refused.
        let verify: @Sendable (AuthenticationLookup) -> CredentialUpdate?
        let continuation: CheckedContinuation<(lookup: AuthenticationLookup, applied: CredentialUpdateResult?), any Error>
    }

    private struct Queue {
        var pending: [Request] = []
        var busyLanes = 0
    }

    private let queue = Mutex(Queue())
    private let pool: PGPool
    let lanes: Int
    let maximumBatch: Int

    init(pool: PGPool, lanes: Int, maximumBatch: Int = 32) {
        self.pool = pool
        self.lanes = max(1, lanes)
        self.maximumBatch = max(1, maximumBatch)
    }

    func finish(
        challenge: [UInt8], credentialID: [UInt8], verify: @escaping @Sendable (AuthenticationLookup) -> CredentialUpdate?
    ) async throws -> (lookup: AuthenticationLookup, applied: CredentialUpdateResult?) {
        try await withCheckedThrowingContinuation { continuation in
            let request = Request(challenge: challenge, credentialID: credentialID, verify: verify, continuation: continuation)
            let startLane = queue.withLock { queue -> Bool in
                queue.pending.append(request)
                guard queue.busyLanes < lanes else { return false }
                queue.busyLanes += 1
                return true
            }
            if startLane { Task { await self.drain() } }
        }
    }

    /// One lane: runs batches until the queue is empty.
    private func drain() async {
        while true {
            let batch = queue.withLock { queue -> [Request] in
                guard !queue.pending.isEmpty else {
                    queue.busyLanes -= 1
                    return []
                }
                let count = min(maximumBatch, queue.pending.count)
                let batch = Array(queue.pending.prefix(count))
                queue.pending.removeFirst(count)
                return batch
            }
            if batch.isEmpty { return }
            do {
                let outcomes = try await pool.withConnection { connection in try Self.run(batch, on: connection) }
                for (request, outcome) in zip(batch, outcomes) { request.continuation.resume(with: outcome) }
            } catch {
                for request in batch { request.continuation.resume(throwing: error) }
            }
        }
    }

    /// Every ceremony and credential of the batch in one statement, in the batch's order.
    static let readBatch = PGPreparedStatement(
        name: "passkeyd_read_authentication_batch",
        sql: """
            SELECT t.user_handle, t.state, t.expires_at, t.expires_at > now(), \(PostgresPasskeyStore.credentialColumnsForSignIn), u.name, u.display_name, u.created_at
              FROM unnest($1::bytea[], $2::bytea[]) WITH ORDINALITY AS i(challenge, credential_id, position)
              LEFT JOIN ceremonies t ON t.challenge = i.challenge AND t.kind = 'authentication'
              LEFT JOIN (credentials c JOIN users u ON u.id = c.user_id) ON c.id = i.credential_id
             ORDER BY i.position
            """,
        parameterTypes: [.byteaArray, .byteaArray], isIdempotent: true)

    private enum Write {
        /// Unknown challenge: nothing to write.
        case none
        /// Refused: the ceremony is consumed.
        case consume(Int)
        /// Verified: consume and apply, the update at this pipeline position.
        case apply(CredentialUpdate, Int)
    }

    /// Read, verify, write for one batch on one connection (its thread).
    static func run(
        _ batch: [Request], on connection: PGConnection
    ) throws -> [Result<(lookup: AuthenticationLookup, applied: CredentialUpdateResult?), any Error>] {
        let read = try connection.executePrepared(readBatch, [batch.map(\.challenge), batch.map(\.credentialID)])
        guard read.rowCount == batch.count else {
            throw PGError(code: .protocolViolation, message: "batched read returned \(read.rowCount) rows for \(batch.count) finishes")
        }
        var lookups: [AuthenticationLookup] = []
        var writes: [Write] = []
        var statements: [(statement: PGPreparedStatement, bindings: PGBindings)] = []
        lookups.reserveCapacity(batch.count)
        writes.reserveCapacity(batch.count)
        statements.reserveCapacity(batch.count)
        for (row, request) in batch.enumerated() {
            let found = try !read.isNull(row: row, column: 1)
            let lookup = try PostgresPasskeyStore.authenticationLookup(from: read, row: row, challenge: request.challenge)
            lookups.append(lookup)
            if let update = request.verify(lookup) {
                writes.append(.apply(update, statements.count))
                statements.append((PostgresPasskeyStore.consumeAndApply, PostgresPasskeyStore.consumeAndApplyBindings(update, challenge: request.challenge)))
            } else if found {
                writes.append(.consume(statements.count))
                statements.append((PostgresPasskeyStore.consumeCeremony, [request.challenge, CeremonyKind.authentication.rawValue]))
            } else {
                writes.append(Write.none)
            }
        }
        let written = try connection.executePipelined(statements)
        var outcomes: [Result<(lookup: AuthenticationLookup, applied: CredentialUpdateResult?), any Error>] = []
        outcomes.reserveCapacity(batch.count)
        for (index, write) in writes.enumerated() {
            let lookup = lookups[index]
            switch write {
            case .none:
                outcomes.append(.success((lookup, nil)))
            case .consume(let position):
                outcomes.append(written[position].map { _ in (lookup, nil) }.mapError { PostgresPasskeyStore.map($0) })
            case .apply(let update, let position):
                outcomes.append(Result {
                    let result = try written[position].mapError { PostgresPasskeyStore.map($0) }.get()
                    return (lookup, try PostgresPasskeyStore.applied(result, update: update, loaded: lookup.credential, on: connection))
                })
            }
        }
        return outcomes
    }
}
