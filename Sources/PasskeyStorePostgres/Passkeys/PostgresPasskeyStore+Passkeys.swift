import Foundation
import LibPQ
import Synchronization
public import PasskeyStore
import WebAuthnCore

/// Users, credentials and pending ceremonies: the passkey ceremonies' statements.
extension PostgresPasskeyStore {
    // MARK: users and credentials

    static let userNamed = PGPreparedStatement(
        name: "passkeyd_user_named", sql: "SELECT \(userColumns) FROM users WHERE name = $1", parameterTypes: [.text],
        isIdempotent: true)

    /// Begin (both ceremonies) looks the user up by name: prepared.
    public func user(named name: String) async throws(StoreError) -> StoredUser? {
        try await run { connection in
            let result = try connection.executePrepared(Self.userNamed, [name])
            return result.rowCount == 0 ? nil : try Self.user(from: result, row: 0)
        }
    }

    public func user(handle: [UInt8]) async throws(StoreError) -> StoredUser? {
        try await run { connection in
            let result = try connection.execute("SELECT user_handle, name, display_name, created_at FROM users WHERE user_handle = \(handle)")
            return result.rowCount == 0 ? nil : try Self.user(from: result, row: 0)
        }
    }

    static let credentialsOfUser = PGPreparedStatement(
        name: "passkeyd_credentials_of_user",
        sql: "SELECT \(credentialColumns) FROM credentials c JOIN users u ON u.id = c.user_id WHERE u.user_handle = $1 ORDER BY c.created_at, c.id",
        parameterTypes: [.bytea], isIdempotent: true)

    /// Begin with a known user lists their credentials (allow/exclude lists): prepared.
    public func credentials(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredCredential] {
        try await run { connection in
            let result = try connection.executePrepared(Self.credentialsOfUser, [handle])
            return try (0..<result.rowCount).compactMap { try Self.credential(from: result, row: $0) }
        }
    }

    public func credential(id: [UInt8]) async throws(StoreError) -> StoredCredential? {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: "SELECT \(Self.credentialColumns) FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = $1",
                bindings: [id]))
            return result.rowCount == 0 ? nil : try Self.credential(from: result, row: 0)
        }
    }

    // MARK: ceremonies

    /// Counts and inserts in one statement: the ceremony goes in only while fewer than $8 unexpired ceremonies share
    /// its subject $7 (none when $7 is NULL) and, when $9, while the table holds fewer than $10 rows. Returns whether
    /// it went in, and the two counts. Concurrent begins for one subject can each see the count below the cap, so
    /// the cap can be passed by at most the number of begins in flight at once.
    static let saveCeremonyStatement = PGPreparedStatement(
        name: "passkeyd_save_ceremony_capped",
        sql: """
            WITH counts AS (
                SELECT CASE WHEN $7::bytea IS NULL THEN 0
                            ELSE (SELECT count(*) FROM ceremonies WHERE subject = $7 AND expires_at > now()) END AS per_subject,
                       CASE WHEN $9 THEN (SELECT count(*) FROM (SELECT 1 FROM ceremonies LIMIT $10) AS bounded) ELSE 0 END AS total
            ), inserted AS (
                INSERT INTO ceremonies (challenge, kind, user_handle, state, expires_at, intent, subject)
                SELECT $1, $2, $3, $4, $5, $6, $7 FROM counts WHERE per_subject < $8 AND total < $10
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM inserted), per_subject, total FROM counts
            """,
        parameterTypes: [.bytea, .text, .bytea, .bytea, .timestamptz, .text, .bytea, .int8, .bool, .int8])

    /// Every begin: prepared.
    public func saveCeremony(_ ceremony: PendingCeremony) async throws(StoreError) {
        let limits = saveLimits
        try await run { connection in try Self.save(ceremony, limits: limits, on: connection) }
        approximateCeremonies.wrappingAdd(1, ordering: .relaxed)
    }

    /// $8, $9 and the two values of $10 (known user, anonymous) of the save statement as of now.
    var saveLimits: SaveLimits {
        let precise = preciseThreshold.map { approximateCeremonies.load(ordering: .relaxed) >= $0 } ?? false
        return SaveLimits(
            perSubject: caps.perSubject.map(Int64.init) ?? Int64.max, precise: precise,
            total: caps.total.map(Int64.init) ?? Int64.max, anonymousTotal: caps.anonymousTotal.map(Int64.init) ?? Int64.max)
    }

    struct SaveLimits: Sendable {
        let perSubject: Int64
        let precise: Bool
        let total: Int64
        let anonymousTotal: Int64
    }

    /// A user by name with their credentials (sign-in columns), in one statement: one row per credential, or one
    /// row with NULL credential columns for a user without any, or none for an unknown name.
    static let userWithCredentials = PGPreparedStatement(
        name: "passkeyd_user_with_credentials",
        sql: """
            SELECT u.user_handle, u.name, u.display_name, u.created_at, \(credentialColumnsForSignIn)
              FROM users u LEFT JOIN credentials c ON c.user_id = u.id
             WHERE u.name = $1 ORDER BY c.created_at, c.id
            """,
        parameterTypes: [.text], isIdempotent: true)
    /// ``userWithCredentials`` by user handle.
    static let userWithCredentialsByHandle = PGPreparedStatement(
        name: "passkeyd_user_with_credentials_by_handle",
        sql: """
            SELECT u.user_handle, u.name, u.display_name, u.created_at, \(credentialColumnsForSignIn)
              FROM users u LEFT JOIN credentials c ON c.user_id = u.id
             WHERE u.user_handle = $1 ORDER BY c.created_at, c.id
            """,
        parameterTypes: [.bytea], isIdempotent: true)

    /// Many uncapped begins' ceremonies in one statement (``ceremonyBatcher``).
    static let insertCeremoniesBatch = PGPreparedStatement(
        name: "passkeyd_insert_ceremonies_batch",
        sql: """
            INSERT INTO ceremonies (challenge, kind, state, expires_at, intent)
            SELECT * FROM unnest($1::bytea[], $2::text[], $3::bytea[], $4::timestamptz[], $5::text[])
            """,
        parameterTypes: [.byteaArray, .textArray, .byteaArray, .timestamptzArray, .textArray])

    static func insertCeremonies(_ batch: [PendingCeremony], on connection: PGConnection) throws -> [Result<Void, any Error>] {
        _ = try connection.executePrepared(
            insertCeremoniesBatch,
            [batch.map(\.challenge), batch.map(\.kind.rawValue), batch.map(\.state), batch.map(\.expiresAt), batch.map(\.intent.rawValue)])
        return batch.map { _ in .success(()) }
    }

    /// A ceremony the batched insert may store: no user handle and no subject (nothing for a cap to count per user),
    /// while the whole table is not being counted.
    static func batchable(_ ceremony: PendingCeremony, _ limits: SaveLimits) -> Bool {
        ceremony.userHandle == nil && ceremony.subject == nil && !limits.precise
    }

    /// Lookup, `build` and insert on one leased connection, in one job on its thread (see the protocol). A begin
    /// without a user to look up whose ceremony no cap counts goes through the batched insert instead.
    public func beginCeremony<Outcome: Sendable>(
        user lookup: UserLookup?,
        build: @escaping @Sendable (StoredUser?, [StoredCredential]) -> (outcome: Outcome, ceremony: PendingCeremony?)
    ) async throws(StoreError) -> Outcome {
        let limits = saveLimits
        if lookup == nil, let ceremonyBatcher {
            let (outcome, ceremony) = build(nil, [])
            guard let ceremony else { return outcome }
            if Self.batchable(ceremony, limits) {
                do {
                    try await traced(#function, batched: true) { try await ceremonyBatcher.submit(ceremony) }
                } catch {
                    throw Self.storeError(error)
                }
            } else {
                try await run { connection in try Self.save(ceremony, limits: limits, on: connection) }
            }
            approximateCeremonies.wrappingAdd(1, ordering: .relaxed)
            return outcome
        }
        let saved = try await run { connection in
            var user: StoredUser?
            var credentials: [StoredCredential] = []
            if let lookup, let found = try Self.readUser(lookup, on: connection) {
                user = found.user
                credentials = found.credentials
            }
            let (outcome, ceremony) = build(user, credentials)
            if let ceremony { try Self.save(ceremony, limits: limits, on: connection) }
            return (outcome, ceremony != nil)
        }
        if saved.1 { approximateCeremonies.wrappingAdd(1, ordering: .relaxed) }
        return saved.0
    }

    static func save(_ ceremony: PendingCeremony, limits: SaveLimits, on connection: PGConnection) throws {
        let total = ceremony.forKnownUser ? limits.total : limits.anonymousTotal
        var bindings = PGBindings()
        bindings.append(ceremony.challenge)
        bindings.append(ceremony.kind.rawValue)
        bindings.append(ceremony.userHandle)
        bindings.append(ceremony.state)
        bindings.append(ceremony.expiresAt)
        bindings.append(ceremony.intent.rawValue)
        bindings.append(ceremony.subject)
        let perSubjectCap = ceremony.subjectCap.map(Int64.init) ?? limits.perSubject
        bindings.append(perSubjectCap)
        bindings.append(limits.precise)
        bindings.append(total)
        let result = try connection.executePrepared(Self.saveCeremonyStatement, bindings)
        guard try result.decode(Int64.self, row: 0, column: 0) == 0 else { return }
        let perSubject = try result.decode(Int64.self, row: 0, column: 1)
        if perSubject >= perSubjectCap {
            throw StoreError(.tooManyPendingCeremonies, "\(perSubject) unexpired ceremonies for this user")
        }
        throw StoreError(.ceremonyCapacityReached, "\(try result.decode(Int64.self, row: 0, column: 2)) ceremonies in the table")
    }

    /// Deletes expired ceremonies in batches (``deleteInBatches(_:_:)``).
    public func purgeExpiredCeremonies() async throws(StoreError) -> Int {
        try await deleteInBatches(Self.purgeBatch) + deleteInBatches(Self.purgeConsumedBatch)
    }

    /// Records of used sealed challenges past their expiry (plus skew): such a challenge no longer opens.
    static let purgeConsumedBatch = PGPreparedStatement(
        name: "passkeyd_purge_consumed_batch",
        sql: """
            DELETE FROM consumed_challenges
             WHERE fingerprint IN (SELECT fingerprint FROM consumed_challenges WHERE expires_at <= now() LIMIT $1)
            """,
        parameterTypes: [.int8])

    static let purgeBatchSize = 10_000
    static let purgeBatch = PGPreparedStatement(
        name: "passkeyd_purge_batch",
        sql: "DELETE FROM ceremonies WHERE challenge IN (SELECT challenge FROM ceremonies WHERE expires_at <= now() LIMIT $1)",
        parameterTypes: [.int8])

    /// Runs `statement`, a DELETE of at most its last parameter's rows (`bindings` are the ones before it), with
    /// batches of 10,000 (short transactions, each on an index) until fewer than a batch remain; how many in all.
    func deleteInBatches(_ statement: PGPreparedStatement, _ bindings: PGBindings = []) async throws(StoreError) -> Int {
        var batch = bindings
        batch.append(Int64(Self.purgeBatchSize))
        var total = 0
        while true {
            let deleted = try await run { [batch] connection in try connection.executePrepared(statement, batch).affectedRows ?? 0 }
            total += deleted
            guard deleted >= Self.purgeBatchSize else { return total }
        }
    }
}
