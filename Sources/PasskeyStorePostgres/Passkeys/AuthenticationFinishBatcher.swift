import Foundation
import LibPQ
import PasskeyStore
import SealedState
import Synchronization
import WebAuthnCore

/// Authentication finishes of concurrent requests, run in batches on few connections: per batch one read of every
/// ceremony and credential (`unnest` of the challenges and credential ids), the engine's verification of each,
/// then one write statement for the whole batch (``writeBatch``): it consumes every ceremony found (verified or
/// refused) and applies each verified finish's counter update only if it took that finish's ceremony. A finish
/// keeps the single-finish semantics (single use, consumed also when refused, the conditional counter; a finish
/// that loses its ceremony to another, in the same batch or elsewhere, writes nothing and gets `ceremonyTaken`),
/// while the database sees two statements, two round trips and one commit per batch instead of two statements and
/// a commit per finish.
/// The batches come from ``BatchLanes``.
final class AuthenticationFinishBatcher: Sendable {
    struct Request: Sendable {
        /// The table ceremony's challenge, or a sealed challenge's fingerprint (with ``consumed``).
        let challenge: [UInt8]
        let credentialID: [UInt8]
        /// A sealed challenge: its fingerprint is recorded in `consumed_challenges` instead of a ceremony deleted.
        let consumed: ConsumedFingerprint?
        /// The caller's verification (pure); returns the update to apply, nil when refused.
        let verify: @Sendable (AuthenticationLookup) -> CredentialUpdate?
    }

    private let lanes: BatchLanes<Request, (lookup: AuthenticationLookup, applied: CredentialUpdateResult?)>

    init(pool: PGPool, lanes: Int, maximumBatch: Int = 32) {
        self.lanes = BatchLanes(pool: pool, lanes: lanes, maximumBatch: maximumBatch, run: Self.run)
    }

    func finish(
        challenge: [UInt8], credentialID: [UInt8], consumed: ConsumedFingerprint? = nil,
        verify: @escaping @Sendable (AuthenticationLookup) -> CredentialUpdate?
    ) async throws -> (lookup: AuthenticationLookup, applied: CredentialUpdateResult?) {
        try await lanes.submit(Request(challenge: challenge, credentialID: credentialID, consumed: consumed, verify: verify))
    }

    /// Every ceremony and credential of the batch in one statement, in the batch's order; the last column says
    /// whether the challenge is a recorded sealed fingerprint (a replay).
    ///
    /// The ceremony and the record are looked up per row by LATERAL … LIMIT 1 subqueries, which PostgreSQL can only
    /// run as a probe of the primary key, whatever it estimates: the statement is prepared once per connection, and
    /// a generic plan made while `consumed_challenges` (or `ceremonies`) was still empty, with a plain join or
    /// EXISTS, hashed the whole table on every call once it had grown, until autovacuum's first ANALYZE replanned
    /// it (16 ms per batch of ~27 in the durable benchmark's fresh database).
    static let readBatch = PGPreparedStatement(
        name: "passkeyd_read_authentication_batch",
        sql: """
            SELECT t.user_handle, t.state, t.expires_at, t.expires_at > now(), \(PostgresPasskeyStore.credentialColumnsForSignIn), u.name, u.display_name, u.created_at,
                   \(PostgresPasskeyStore.ownerCredentialIDs),
                   r.used IS NOT NULL
              FROM unnest($1::bytea[], $2::bytea[]) WITH ORDINALITY AS i(challenge, credential_id, position)
              LEFT JOIN LATERAL (
                  SELECT user_handle, state, expires_at FROM ceremonies
                   WHERE challenge = i.challenge AND kind = 'authentication' LIMIT 1
              ) t ON true
              LEFT JOIN LATERAL (SELECT true AS used FROM consumed_challenges x WHERE x.fingerprint = i.challenge LIMIT 1) r ON true
              LEFT JOIN (credentials c JOIN users u ON u.id = c.user_id) ON c.id = i.credential_id
             ORDER BY i.position
            """,
        parameterTypes: [.byteaArray, .byteaArray], isIdempotent: true)

    /// One batch's writes in one statement and one transaction, deadlock-free against other batches (here or on
    /// other instances) because it locks in one global order: the ceremonies of $7 sorted by challenge, then the
    /// credentials to update sorted by id. Every ceremony of $7 that still exists is consumed (verified or refused);
    /// a credential is updated only for a finish whose ceremony this statement took, and only while the stored
    /// counter is below the new one (or both are zero), re-checked on the newest row version as in
    /// ``PostgresPasskeyStore/consumeAndApply``. Sealed challenges' fingerprints ($8, kept until $9) are recorded
    /// in `consumed_challenges` (sorted, so batches insert in one order too) and count as taken when this statement
    /// inserted them. A batch passes each challenge and each credential at most once (later duplicates go to the
    /// next round). Rows: (0, challenge or fingerprint) for each one taken, (1, credential id and the four updated
    /// columns) for each credential written.
    static let writeBatch = PGPreparedStatement(
        name: "passkeyd_write_authentication_batch",
        sql: """
            WITH input AS (
                SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::int8[], $4::bool[], $5::bool[], $6::bool[])
                    AS i(challenge, credential_id, sign_count, backup_state, uv_initialized, advances)
            ), locked AS (
                SELECT challenge FROM ceremonies WHERE challenge = ANY($7::bytea[]) AND kind = 'authentication'
                 ORDER BY challenge FOR UPDATE
            ), deleted AS (
                DELETE FROM ceremonies c USING locked l WHERE c.challenge = l.challenge AND c.kind = 'authentication'
                RETURNING c.challenge
            ), recorded AS (
                INSERT INTO consumed_challenges (fingerprint, expires_at)
                SELECT f.fingerprint, f.expires_at FROM unnest($8::bytea[], $9::timestamptz[]) AS f(fingerprint, expires_at)
                 ORDER BY f.fingerprint
                ON CONFLICT DO NOTHING
                RETURNING fingerprint
            ), taken AS (
                SELECT challenge FROM deleted UNION ALL SELECT fingerprint FROM recorded
            ), to_update AS (
                SELECT c.id FROM credentials c
                 WHERE c.id IN (SELECT i.credential_id FROM input i JOIN taken t ON t.challenge = i.challenge)
                 ORDER BY c.id FOR UPDATE
            ), updated AS (
                UPDATE credentials AS c
                   SET sign_count = CASE WHEN i.advances THEN i.sign_count ELSE c.sign_count END,
                       backup_state = CASE WHEN i.advances THEN i.backup_state ELSE c.backup_state END,
                       uv_initialized = c.uv_initialized OR i.uv_initialized,
                       last_used_at = now()
                  FROM input i JOIN to_update k ON k.id = i.credential_id
                 WHERE c.id = i.credential_id
                   AND (NOT i.advances OR c.sign_count < i.sign_count OR (i.sign_count = 0 AND c.sign_count = 0))
                RETURNING c.id, c.sign_count, c.backup_state, c.uv_initialized, c.last_used_at
            )
            SELECT 0, challenge, NULL::int8, NULL::bool, NULL::bool, NULL::timestamptz FROM taken
            UNION ALL
            SELECT 1, id, sign_count, backup_state, uv_initialized, last_used_at FROM updated
            """,
        parameterTypes: [
            .byteaArray, .byteaArray, .int8Array, .boolArray, .boolArray, .boolArray, .byteaArray, .byteaArray, .timestamptzArray,
        ])

    private enum Write {
        /// Unknown challenge: nothing to write.
        case none
        /// A sealed challenge already recorded: refused unverified, nothing to write.
        case replayed
        /// Refused: the ceremony is consumed (in this round).
        case consume(round: Int)
        /// Verified: consume and apply (in this round).
        case apply(CredentialUpdate, round: Int)
    }

    /// The arrays of one round's ``writeBatch``.
    private struct Round {
        var challenges: Set<[UInt8]> = []
        var credentialIDs: Set<[UInt8]> = []
        var applyChallenges: [[UInt8]] = []
        var applyCredentialIDs: [[UInt8]] = []
        var signCounts: [Int64] = []
        var backupStates: [Bool] = []
        var uvInitialized: [Bool] = []
        var advances: [Bool] = []
        var consumed: [[UInt8]] = []
        var fingerprints: [[UInt8]] = []
        var fingerprintExpiries: [Date] = []

        var bindings: PGBindings {
            [applyChallenges, applyCredentialIDs, signCounts, backupStates, uvInitialized, advances, consumed, fingerprints, fingerprintExpiries]
        }
    }

    /// What one round's statement did.
    private struct Written {
        var taken: Set<[UInt8]> = []
        var updated: [[UInt8]: (signCount: Int64, backupState: Bool, uvInitialized: Bool, lastUsedAt: Date)] = [:]

        init(_ result: PGResult) throws {
            for row in 0..<result.rowCount {
                let key = try result.decode([UInt8].self, row: row, column: 1)
                if try result.decode(Int32.self, row: row, column: 0) == 0 {
                    taken.insert(key)
                } else {
                    updated[key] = (
                        try result.decode(Int64.self, row: row, column: 2), try result.decode(Bool.self, row: row, column: 3),
                        try result.decode(Bool.self, row: row, column: 4), try result.decode(Date.self, row: row, column: 5))
                }
            }
        }
    }

    /// The verifications of a batch (pure, independent of each other), spread over the machine's cores when there
    /// is more than one: on the lane's thread alone they would serialise the batch (at 85 µs per ES256 verification
    /// a batch of 16 takes 1.4 ms of one core while the others wait for it).
    static func verifyAll(_ batch: [Request], _ lookups: [AuthenticationLookup], skipping: [Bool]) -> [CredentialUpdate?] {
        let count = batch.count
        guard count > 1, parallelism > 1 else {
            return batch.indices.map { skipping[$0] ? nil : batch[$0].verify(lookups[$0]) }
        }
        let results = UpdateSlots(count: count)
        let chunks = min(parallelism, count)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var index = chunk
            while index < count {
                if !skipping[index] { results.set(index, batch[index].verify(lookups[index])) }
                index += chunks
            }
        }
        return results.values
    }

    private static let parallelism = ProcessInfo.processInfo.activeProcessorCount

    /// One slot per finish of a batch, each written by one of `verifyAll`'s workers and read after
    /// `concurrentPerform` returns.
    private final class UpdateSlots: Sendable {
        private let slots: Mutex<[CredentialUpdate?]>

        init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

        func set(_ index: Int, _ value: CredentialUpdate?) { slots.withLock { $0[index] = value } }

        var values: [CredentialUpdate?] { slots.withLock { $0 } }
    }

    /// Read, verify, write for one batch on one connection (its thread): one read statement, then one write
    /// statement per round (one round unless a challenge or credential occurs twice), sent as one pipeline.
    static func run(
        _ batch: [Request], on connection: PGConnection
    ) throws -> [Result<(lookup: AuthenticationLookup, applied: CredentialUpdateResult?), any Error>] {
        let read = try connection.executePrepared(readBatch, [batch.map(\.challenge), batch.map(\.credentialID)])
        guard read.rowCount == batch.count else {
            throw PGError(code: .protocolViolation, message: "batched read returned \(read.rowCount) rows for \(batch.count) finishes")
        }
        var lookups: [AuthenticationLookup] = []
        var found: [Bool] = []
        var replayed: [Bool] = []
        lookups.reserveCapacity(batch.count)
        found.reserveCapacity(batch.count)
        replayed.reserveCapacity(batch.count)
        let usedColumn = 4 + PostgresPasskeyStore.credentialColumnCount + 4
        for (row, request) in batch.enumerated() {
            let sealed = request.consumed != nil
            // A sealed challenge always writes (its fingerprint), unless it is recorded already: then it is refused
            // unverified and writes nothing.
            let used = sealed ? try read.decode(Bool.self, row: row, column: usedColumn) : false
            replayed.append(used)
            found.append(sealed ? !used : try !read.isNull(row: row, column: 1))
            lookups.append(try PostgresPasskeyStore.authenticationLookup(from: read, row: row, challenge: request.challenge))
        }
        let updates = verifyAll(batch, lookups, skipping: replayed)
        var writes: [Write] = []
        var rounds: [Round] = []
        writes.reserveCapacity(batch.count)
        for (row, request) in batch.enumerated() {
            let update = updates[row]
            if replayed[row] {
                writes.append(.replayed)
                continue
            }
            guard found[row] || update != nil else {
                writes.append(Write.none)
                continue
            }
            // The first round that has neither this challenge nor (to update) this credential.
            var index = 0
            while index < rounds.count,
                rounds[index].challenges.contains(request.challenge)
                    || (update.map { rounds[index].credentialIDs.contains($0.credentialID) } ?? false)
            {
                index += 1
            }
            if index == rounds.count { rounds.append(Round()) }
            rounds[index].challenges.insert(request.challenge)
            if let consumed = request.consumed {
                rounds[index].fingerprints.append(consumed.bytes)
                rounds[index].fingerprintExpiries.append(consumed.expiresAt)
            } else {
                rounds[index].consumed.append(request.challenge)
            }
            if let update {
                rounds[index].credentialIDs.insert(update.credentialID)
                rounds[index].applyChallenges.append(request.challenge)
                rounds[index].applyCredentialIDs.append(update.credentialID)
                rounds[index].signCounts.append(Int64(update.signCount))
                rounds[index].backupStates.append(update.backupState)
                rounds[index].uvInitialized.append(update.uvInitialized)
                rounds[index].advances.append(update.advancesCounter)
                writes.append(.apply(update, round: index))
            } else {
                writes.append(.consume(round: index))
            }
        }
        let results = try connection.executePipelined(rounds.map { (writeBatch, $0.bindings) })
        let written: [Result<Written, any Error>] = results.map { result in
            Result { try Written(result.mapError { PostgresPasskeyStore.map($0) }.get()) }
        }
        var outcomes: [Result<(lookup: AuthenticationLookup, applied: CredentialUpdateResult?), any Error>] = []
        outcomes.reserveCapacity(batch.count)
        for (index, write) in writes.enumerated() {
            let lookup = lookups[index]
            switch write {
            case .none:
                outcomes.append(.success((lookup, nil)))
            case .replayed:
                outcomes.append(.failure(StoreError(.ceremonyTaken, "the challenge was used")))
            case .consume(let round):
                outcomes.append(written[round].map { _ in (lookup, nil) })
            case .apply(let update, let round):
                outcomes.append(Result {
                    let round = try written[round].get()
                    guard round.taken.contains(batch[index].challenge) else {
                        throw StoreError(.ceremonyTaken, "the ceremony was consumed by a concurrent finish")
                    }
                    guard let columns = round.updated[update.credentialID], var updated = lookup.credential,
                        updated.id == update.credentialID
                    else {
                        // Not written (stale or gone, both rare), or another credential than the one read: read it.
                        let current = try connection.executePrepared(PostgresPasskeyStore.credentialForSignIn, [update.credentialID])
                        guard current.rowCount == 1, let credential = try PostgresPasskeyStore.credential(from: current, row: 0)
                        else { return (lookup, .gone) }
                        return (lookup, round.updated[update.credentialID] == nil ? .stale(credential) : .applied(credential))
                    }
                    updated.record.signCount = UInt32(clamping: columns.signCount)
                    updated.record.backupState = columns.backupState
                    updated.record.uvInitialized = columns.uvInitialized
                    updated.lastUsedAt = columns.lastUsedAt
                    return (lookup, .applied(updated))
                })
            }
        }
        return outcomes
    }
}
