public import Foundation
public import LibPQ
public import PasskeyStore
public import WebAuthnCore
import COSECrypto
import Synchronization

/// The outcome a batched finish's verification leaves for its caller.
final class OutcomeBox<Outcome: Sendable>: Sendable {
    let value = Mutex<Outcome?>(nil)
}

/// `PasskeyStore` on PostgreSQL through LibPQ (schema: `Migrations/0001_initial.sql`). Any number of service
/// instances can share one database: ceremonies are consumed with one `DELETE … RETURNING`, uniqueness is the
/// database's constraints, and the counter update is conditional.
public final class PostgresPasskeyStore: PasskeyStore {
    let pool: PGPool
    let caps: CeremonyCaps
    /// Whether deleting a credential or unlinking an identity revokes the sessions it started (``SessionStore``).
    let revokeSessionsOnDelete: Bool
    /// The ceremony table's row count as of the last ``refreshCeremonyCount()`` (capped at the precise threshold).
    private let approximateCeremonies = Atomic<Int>(0)
    /// Authentication finishes in batches (``AuthenticationFinishBatcher``); nil: one finish per lease.
    let finishBatcher: AuthenticationFinishBatcher?
    /// Uncapped begins' ceremonies inserted in batches (``insertCeremoniesBatch``); nil: one insert per begin.
    let ceremonyBatcher: BatchLanes<PendingCeremony, Void>?

    /// - Parameters:
    ///   - pool: connections to a database migrated with `Migrations/`.
    ///   - caps: bounds on pending ceremonies. The per-user cap is checked by the statement that saves each
    ///     ceremony. The global cap is checked by that statement only while the table may be near it: from the
    ///     moment the last ``refreshCeremonyCount()`` plus the ceremonies this instance saved since reach 80% of
    ///     the anonymous cap; below, begins do not count the table. (Other instances' saves since the last refresh
    ///     are not seen: with N instances the table can pass the cap by what N - 1 of them save in 5 s.)
    ///   - revokeSessionsOnDelete: deleting a credential or unlinking an identity revokes the sessions it started, in
    ///     the same statement.
    ///   - batchLanes: with N > 0, concurrent authentication finishes run in batches on at most N connections at a
    ///     time (``AuthenticationFinishBatcher``: one read statement and one write statement per batch), and so do
    ///     the inserts of begins that no cap has to count (discoverable sign-ins, while the table is below 80% of its
    ///     cap), on N more; 0 runs each on its own lease.
    public init(pool: PGPool, caps: CeremonyCaps = .none, revokeSessionsOnDelete: Bool = true, batchLanes: Int = 0) {
        self.pool = pool
        self.caps = caps
        self.revokeSessionsOnDelete = revokeSessionsOnDelete
        finishBatcher = batchLanes > 0 ? AuthenticationFinishBatcher(pool: pool, lanes: batchLanes) : nil
        ceremonyBatcher = batchLanes > 0 ? BatchLanes(pool: pool, lanes: batchLanes, run: Self.insertCeremonies) : nil
    }

    /// Where the save statement starts counting the whole table: 80 % of the anonymous cap.
    var preciseThreshold: Int? { caps.anonymousTotal.map { max(0, $0 * 4 / 5) } }

    /// Counts the ceremony table (at most up to the precise threshold) for the global cap; the executable calls it
    /// every few seconds. Returns the count.
    @discardableResult
    public func refreshCeremonyCount() async throws(StoreError) -> Int {
        guard let threshold = preciseThreshold else { return 0 }
        let count = try await run { connection in
            let result = try connection.executePrepared(Self.countCeremonies, [Int64(threshold)])
            return Int(try result.decode(Int64.self, row: 0, column: 0))
        }
        approximateCeremonies.store(count, ordering: .relaxed)
        return count
    }

    static let countCeremonies = PGPreparedStatement(
        name: "passkeyd_count_ceremonies", sql: "SELECT count(*) FROM (SELECT 1 FROM ceremonies LIMIT $1) AS bounded",
        parameterTypes: [.int8], isIdempotent: true)

    /// Credential columns, in the order ``credential(from:row:offset:)`` reads them.
    static let credentialColumns = """
        c.id, u.user_handle, c.public_key, c.algorithm, c.sign_count, c.backup_eligible, c.backup_state, \
        c.uv_initialized, c.transports, c.aaguid, c.attestation_format, c.attestation_object, c.client_data_json, \
        c.nickname, c.created_at, c.last_used_at, c.attestation_type, c.attestation_trust, c.trust_anchor, \
        c.authenticator_description
        """
    /// `credentialColumns` without the audit columns (attestation object, clientDataJSON: kilobytes per row that
    /// no ceremony needs), for the statements on the sign-in path. Same column positions.
    static let credentialColumnsForSignIn = credentialColumns
        .replacingOccurrences(of: "c.attestation_object", with: "NULL::bytea")
        .replacingOccurrences(of: "c.client_data_json", with: "NULL::bytea")
    /// How many columns `credentialColumns` has.
    static let credentialColumnCount = 20
    static let userColumns = "user_handle, name, display_name, created_at"

    /// Runs `body` on a pooled connection, mapping database failures to `StoreError`.
    func run<T: Sendable>(transaction: Bool = false, _ body: @escaping @Sendable (PGConnection) throws -> T) async throws(StoreError) -> T {
        do {
            return transaction ? try await pool.withTransaction(body) : try await pool.withConnection(body)
        } catch let error as StoreError {
            throw error
        } catch let error as PGError {
            throw Self.map(error)
        } catch {
            throw StoreError(.unavailable, "\(error)")
        }
    }

    /// SQLSTATE + constraint → store error, in one place.
    static func map(_ error: PGError) -> StoreError {
        if error.sqlState == .uniqueViolation {
            switch error.constraintName {
            case "credentials_pkey": return StoreError(.duplicateCredential, "credential id already registered")
            case "users_name_key", "users_user_handle_key": return StoreError(.userExists, "user name or handle taken")
            default: break
            }
        }
        // The user of an existing-user registration was deleted between the statement's read and its insert.
        if error.sqlState == .foreignKeyViolation, error.constraintName == "credentials_user_id_fkey" {
            return StoreError(.userUnknown, "the user was deleted during registration")
        }
        return StoreError(.unavailable, String(reflecting: error))
    }

    static func user(from result: PGResult, row: Int, offset: Int = 0) throws -> StoredUser {
        StoredUser(
            handle: try result.decode([UInt8].self, row: row, column: offset),
            name: try result.decode(String.self, row: row, column: offset + 1),
            displayName: try result.decode(String.self, row: row, column: offset + 2),
            createdAt: try result.decode(Date.self, row: row, column: offset + 3))
    }

    static func credential(from result: PGResult, row: Int, offset: Int = 0) throws -> StoredCredential? {
        guard try !result.isNull(row: row, column: offset) else { return nil }
        func column(_ index: Int) -> Int { offset + index }
        let aaguid = try result.decode(UUID.self, row: row, column: column(9)).uuid
        let record = CredentialRecord(
            id: try result.decode([UInt8].self, row: row, column: column(0)),
            userHandle: try result.decode([UInt8].self, row: row, column: column(1)),
            publicKey: try result.decode([UInt8].self, row: row, column: column(2)),
            signCount: UInt32(clamping: try result.decode(Int64.self, row: row, column: column(4))),
            backupEligible: try result.decode(Bool.self, row: row, column: column(5)),
            backupState: try result.decode(Bool.self, row: row, column: column(6)),
            uvInitialized: try result.decode(Bool.self, row: row, column: column(7)),
            transports: try result.decode([String].self, row: row, column: column(8)),
            attestationFormat: try result.decode(String.self, row: row, column: column(10)))
        return StoredCredential(
            record: record, algorithm: Int(try result.decode(Int32.self, row: row, column: column(3))),
            aaguid: withUnsafeBytes(of: aaguid) { Array($0) },
            nickname: try result.decode(String?.self, row: row, column: column(13)),
            createdAt: try result.decode(Date.self, row: row, column: column(14)),
            lastUsedAt: try result.decode(Date?.self, row: row, column: column(15)),
            attestationObject: try result.decode([UInt8]?.self, row: row, column: column(11)),
            clientDataJSON: try result.decode([UInt8]?.self, row: row, column: column(12)),
            attestation: StoredAttestation(
                type: try result.decode(String.self, row: row, column: column(16)),
                trust: try result.decode(String.self, row: row, column: column(17)),
                trustAnchor: try result.decode(String?.self, row: row, column: column(18)),
                authenticatorDescription: try result.decode(String?.self, row: row, column: column(19))))
    }

    /// Columns 0-3: user_handle, state, expires_at, fresh; column 4 the registration intent when `hasIntent`.
    static func ceremony(
        from result: PGResult, row: Int, challenge: [UInt8], kind: CeremonyKind, hasIntent: Bool = false
    ) throws -> PendingCeremony? {
        guard try !result.isNull(row: row, column: 1), try result.decode(Bool.self, row: row, column: 3) else { return nil }
        var intent = RegistrationIntent.existingUser
        if hasIntent {
            // Unknown text (a newer instance's intent) refuses like a new user would: it never attaches.
            intent = RegistrationIntent(rawValue: try result.decode(String.self, row: row, column: 4)) ?? .newUser
        }
        return PendingCeremony(
            challenge: challenge, kind: kind, userHandle: try result.decode([UInt8]?.self, row: row, column: 0),
            state: try result.decode([UInt8].self, row: row, column: 1), expiresAt: try result.decode(Date.self, row: row, column: 2),
            intent: intent)
    }

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
                    try await ceremonyBatcher.submit(ceremony)
                } catch let error as PGError {
                    throw Self.map(error)
                } catch {
                    throw StoreError(.unavailable, "\(error)")
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
            if let lookup {
                let result = switch lookup {
                case .name(let name): try connection.executePrepared(Self.userWithCredentials, [name])
                case .handle(let handle): try connection.executePrepared(Self.userWithCredentialsByHandle, [handle])
                }
                if result.rowCount > 0 {
                    user = try Self.user(from: result, row: 0)
                    credentials = try (0..<result.rowCount).compactMap { try Self.credential(from: result, row: $0, offset: 4) }
                }
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
        bindings.append(limits.perSubject)
        bindings.append(limits.precise)
        bindings.append(total)
        let result = try connection.executePrepared(Self.saveCeremonyStatement, bindings)
        guard try result.decode(Int64.self, row: 0, column: 0) == 0 else { return }
        let perSubject = try result.decode(Int64.self, row: 0, column: 1)
        if perSubject >= limits.perSubject {
            throw StoreError(.tooManyPendingCeremonies, "\(perSubject) unexpired ceremonies for this user")
        }
        throw StoreError(.ceremonyCapacityReached, "\(try result.decode(Int64.self, row: 0, column: 2)) ceremonies in the table")
    }

    /// Deletes the ceremony whatever its age (single use) and returns it only if it has not expired (database clock).
    static let takeCeremonyStatement = PGPreparedStatement(
        name: "passkeyd_take_ceremony",
        sql: "DELETE FROM ceremonies WHERE challenge = $1 AND kind = $2 RETURNING user_handle, state, expires_at, expires_at > now(), intent",
        parameterTypes: [.bytea, .text])

    /// Registration finish: prepared.
    public func takeCeremony(challenge: [UInt8], kind: CeremonyKind) async throws(StoreError) -> PendingCeremony? {
        try await run { connection in
            let result = try connection.executePrepared(Self.takeCeremonyStatement, [challenge, kind.rawValue])
            return result.rowCount == 0 ? nil : try Self.ceremony(from: result, row: 0, challenge: challenge, kind: kind, hasIntent: true)
        }
    }

    /// One statement: consume the authentication ceremony and load the credential.
    static let takeAuthentication = PGPreparedStatement(
        name: "passkeyd_take_authentication",
        sql: """
            WITH taken AS (
                DELETE FROM ceremonies WHERE challenge = $1 AND kind = 'authentication'
                RETURNING user_handle, state, expires_at, expires_at > now() AS fresh
            )
            SELECT t.user_handle, t.state, t.expires_at, t.fresh, \(credentialColumnsForSignIn), u.name, u.display_name, u.created_at
              FROM (SELECT 1) AS one
              LEFT JOIN taken t ON true
              LEFT JOIN (credentials c JOIN users u ON u.id = c.user_id) ON c.id = $2
            """,
        parameterTypes: [.bytea, .bytea])

    public func takeAuthentication(
        challenge: [UInt8], credentialID: [UInt8]
    ) async throws(StoreError) -> AuthenticationLookup {
        try await run { connection in try Self.takeAuthentication(challenge: challenge, credentialID: credentialID, on: connection) }
    }

    /// Finish without writing first: the ceremony (fresh or not; nothing consumed) and the credential with its owner.
    static let readAuthentication = PGPreparedStatement(
        name: "passkeyd_read_authentication",
        sql: """
            SELECT t.user_handle, t.state, t.expires_at, t.expires_at > now(), \(credentialColumnsForSignIn), u.name, u.display_name, u.created_at
              FROM (SELECT 1) AS one
              LEFT JOIN ceremonies t ON t.challenge = $1 AND t.kind = 'authentication'
              LEFT JOIN (credentials c JOIN users u ON u.id = c.user_id) ON c.id = $2
            """,
        parameterTypes: [.bytea, .bytea], isIdempotent: true)

    /// Consumes a ceremony without anything else: a finish whose verification failed (single use whatever the outcome).
    static let consumeCeremony = PGPreparedStatement(
        name: "passkeyd_consume_ceremony", sql: "DELETE FROM ceremonies WHERE challenge = $1 AND kind = $2",
        parameterTypes: [.bytea, .text])

    /// A verified authentication's one write, one transaction: consume the ceremony ($6) and apply the counter update,
    /// the update only if this statement's DELETE took the ceremony. A concurrent finish of the same challenge that
    /// deletes it first makes this DELETE wait for its commit and then find nothing: column 0 is 0 and nothing is
    /// written. Columns 1-4 are the four updated columns, NULL when the counter check refused (stale) or the
    /// credential is gone.
    static let consumeAndApply = PGPreparedStatement(
        name: "passkeyd_consume_and_apply",
        sql: """
            WITH taken AS (
                DELETE FROM ceremonies WHERE challenge = $6 AND kind = 'authentication' RETURNING 1
            ), updated AS (
                \(conditionalUpdate) AND EXISTS (SELECT 1 FROM taken)
                RETURNING sign_count, backup_state, uv_initialized, last_used_at
            )
            SELECT (SELECT count(*) FROM taken), w.sign_count, w.backup_state, w.uv_initialized, w.last_used_at
              FROM (SELECT 1) AS one LEFT JOIN updated w ON true
            """,
        parameterTypes: [.bytea, .int8, .bool, .bool, .bool, .bytea])

    /// Read, verify, then one write on one leased connection, in one job on its thread: one durable commit per
    /// finish (the read takes no transaction id and writes no WAL). A verified finish consumes the ceremony and
    /// applies the counter in one statement (``consumeAndApply``); a refused one only consumes the ceremony; an
    /// unknown challenge writes nothing. See the protocol for the contract.
    public func finishAuthentication<Outcome: Sendable>(
        challenge: [UInt8], credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?) {
        if let finishBatcher {
            let outcome = OutcomeBox<Outcome>()
            do {
                let (lookup, applied) = try await finishBatcher.finish(challenge: challenge, credentialID: credentialID) { lookup in
                    let (result, update) = verify(lookup)
                    outcome.value.withLock { $0 = result }
                    return update
                }
                guard let result = outcome.value.withLock({ $0 }) else { throw StoreError(.unavailable, "the batch did not verify") }
                return (lookup, result, applied)
            } catch let error as StoreError {
                throw error
            } catch let error as PGError {
                throw Self.map(error)
            } catch {
                throw StoreError(.unavailable, "\(error)")
            }
        }
        return try await run { connection in
            let read = try connection.executePrepared(Self.readAuthentication, [challenge, credentialID])
            let found = try !read.isNull(row: 0, column: 1)
            let lookup = try Self.authenticationLookup(from: read, row: 0, challenge: challenge)
            let (outcome, update) = verify(lookup)
            guard let update else {
                if found { _ = try connection.executePrepared(Self.consumeCeremony, [challenge, CeremonyKind.authentication.rawValue]) }
                return (lookup, outcome, nil)
            }
            let written = try connection.executePrepared(Self.consumeAndApply, Self.consumeAndApplyBindings(update, challenge: challenge))
            return (lookup, outcome, try Self.applied(written, update: update, loaded: lookup.credential, on: connection))
        }
    }

    static func consumeAndApplyBindings(_ update: CredentialUpdate, challenge: [UInt8]) -> PGBindings {
        [update.credentialID, Int64(update.signCount), update.backupState, update.uvInitialized, update.advancesCounter, challenge]
    }

    /// What a ``consumeAndApply`` result means: `ceremonyTaken` when its DELETE found nothing; otherwise the
    /// credential as written (the `loaded` one with the four updated columns), or, when nothing was written
    /// (stale or gone, both rare) or the read loaded another credential, read again to tell which.
    static func applied(
        _ written: PGResult, update: CredentialUpdate, loaded: StoredCredential?, on connection: PGConnection
    ) throws -> CredentialUpdateResult {
        guard try written.decode(Int64.self, row: 0, column: 0) == 1 else {
            throw StoreError(.ceremonyTaken, "the ceremony was consumed by a concurrent finish")
        }
        guard try !written.isNull(row: 0, column: 1), var updated = loaded, updated.id == update.credentialID else {
            let current = try connection.executePrepared(Self.credentialForSignIn, [update.credentialID])
            guard current.rowCount == 1, let credential = try Self.credential(from: current, row: 0) else { return .gone }
            return try written.isNull(row: 0, column: 1) ? .stale(credential) : .applied(credential)
        }
        updated.record.signCount = UInt32(clamping: try written.decode(Int64.self, row: 0, column: 1))
        updated.record.backupState = try written.decode(Bool.self, row: 0, column: 2)
        updated.record.uvInitialized = try written.decode(Bool.self, row: 0, column: 3)
        updated.lastUsedAt = try written.decode(Date.self, row: 0, column: 4)
        return .applied(updated)
    }

    /// The counter update both apply statements share: with $5 (advancesCounter) only while the stored counter is
    /// below $2 (or both are zero); $4 only ever turns uv_initialized on.
    static let conditionalUpdate = """
        UPDATE credentials
           SET sign_count = CASE WHEN $5 THEN $2 ELSE sign_count END,
               backup_state = CASE WHEN $5 THEN $3 ELSE backup_state END,
               uv_initialized = uv_initialized OR $4,
               last_used_at = now()
         WHERE id = $1 AND (NOT $5 OR sign_count < $2 OR ($2 = 0 AND sign_count = 0))
        """

    static let credentialForSignIn = PGPreparedStatement(
        name: "passkeyd_credential_for_sign_in",
        sql: "SELECT \(credentialColumnsForSignIn) FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = $1",
        parameterTypes: [.bytea], isIdempotent: true)

    static func takeAuthentication(
        challenge: [UInt8], credentialID: [UInt8], on connection: PGConnection
    ) throws -> AuthenticationLookup {
        let result = try connection.executePrepared(Self.takeAuthentication, [challenge, credentialID])
        guard result.rowCount == 1 else { return AuthenticationLookup(ceremony: nil, credential: nil, user: nil) }
        return try authenticationLookup(from: result, row: 0, challenge: challenge)
    }

    /// ``takeAuthentication`` and ``readAuthentication`` rows: the ceremony's four columns, the credential's, its
    /// owner's name, display name and creation time.
    static func authenticationLookup(from result: PGResult, row: Int, challenge: [UInt8]) throws -> AuthenticationLookup {
        let credential = try Self.credential(from: result, row: row, offset: 4)
        var user: StoredUser?
        if let credential {
            let owner = 4 + Self.credentialColumnCount
            user = StoredUser(
                handle: credential.record.userHandle, name: try result.decode(String.self, row: row, column: owner),
                displayName: try result.decode(String.self, row: row, column: owner + 1),
                createdAt: try result.decode(Date.self, row: row, column: owner + 2))
        }
        return AuthenticationLookup(
            ceremony: try Self.ceremony(from: result, row: row, challenge: challenge, kind: .authentication),
            credential: credential, user: user)
    }

    /// Deletes expired ceremonies in batches (``deleteInBatches(_:_:)``).
    public func purgeExpiredCeremonies() async throws(StoreError) -> Int {
        try await deleteInBatches(Self.purgeBatch)
    }

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

    // MARK: writes

    /// One statement, one round trip. With $21 (a new user): insert the user (a name or handle already taken, also
    /// by a concurrent sign-up that commits first, is a unique violation: `userExists`), then the credential.
    /// Without: the owner is the existing user with handle $1 (none: no row, `userUnknown`; deleted after the read:
    /// a foreign-key violation, `userUnknown`), then the credential. A duplicate credential id is a unique violation
    /// (mapped by ``map(_:)``). Nothing is written on any error.
    static let registerStatement = PGPreparedStatement(
        name: "passkeyd_register_with_intent", sql: registerSQL(consuming: false), parameterTypes: registerParameterTypes)

    /// ``registerStatement`` that first consumes the registration ceremony with challenge $25 and writes only if its
    /// DELETE took it (a concurrent finish of the same challenge that deleted it first leaves nothing to take):
    /// a verified registration's one write and one commit. Column 0 is how many ceremonies it took (0 or 1), then
    /// the user and credential columns, NULL when nothing was inserted (no such user for an existing-user intent, or
    /// no ceremony taken). On an error the whole statement, the DELETE included, is undone.
    static let consumeAndRegisterStatement = PGPreparedStatement(
        name: "passkeyd_consume_and_register", sql: registerSQL(consuming: true), parameterTypes: registerParameterTypes + [.bytea])

    static let registerParameterTypes: [PGType] = [
        .bytea, .text, .text, .bytea, .bytea, .int4, .int8, .bool, .bool, .bool, .textArray, .uuid, .text, .bytea, .bytea,
        .text, .text, .text, .text, .text, .bool, .text, .text, .text,
    ]

    static func registerSQL(consuming: Bool) -> String {
        let taken = consuming ? " AND EXISTS (SELECT 1 FROM taken)" : ""
        return """
            WITH \(consuming ? "taken AS (DELETE FROM ceremonies WHERE challenge = $25 AND kind = 'registration' RETURNING 1), " : "")new_user AS (
                INSERT INTO users (user_handle, name, display_name) SELECT $1, $2, $3 WHERE $21\(taken)
                RETURNING id, \(userColumns)
            ), owner AS (
                SELECT id, \(userColumns) FROM new_user
                UNION ALL
                SELECT id, \(userColumns) FROM users WHERE NOT $21 AND user_handle = $1\(taken)
            ), inserted AS (
                INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, backup_eligible, backup_state,
                    uv_initialized, transports, aaguid, attestation_format, attestation_object, client_data_json, nickname,
                    attestation_type, attestation_trust, trust_anchor, authenticator_description)
                SELECT $4, id, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20
                  FROM owner LIMIT 1
                RETURNING *
            ), audit AS (
                INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, client_address)
                SELECT e.event, $22, $23, e.user_handle, e.credential_id, $24 FROM (
                    SELECT 1 AS position, 'user.created' AS event, user_handle, NULL::bytea AS credential_id FROM new_user
                    UNION ALL
                    SELECT 2, 'credential.registered', o.user_handle, i.id FROM inserted i JOIN owner o ON o.id = i.user_id
                ) AS e ORDER BY e.position
            )
            \(consuming ? "SELECT (SELECT count(*) FROM taken), " : "SELECT ")u.user_handle, u.name, u.display_name, u.created_at, \(credentialColumns)
              \(consuming ? "FROM (SELECT 1) AS one LEFT JOIN (inserted c JOIN owner u ON u.id = c.user_id) ON true" : "FROM inserted c JOIN owner u ON u.id = c.user_id")
            """
    }

    public func register(
        _ registration: VerifiedRegistration, nickname: String?, intent: RegistrationIntent, audit: AuditContext
    ) async throws(StoreError) -> (user: StoredUser, credential: StoredCredential) {
        let parameters = Self.registerParameters(registration, nickname: nickname, intent: intent, audit: audit)
        return try await run { connection in try Self.register(parameters, on: connection) }
    }

    /// Finish without writing first: the ceremony, fresh or not (nothing consumed).
    static let readCeremonyStatement = PGPreparedStatement(
        name: "passkeyd_read_ceremony",
        sql: "SELECT user_handle, state, expires_at, expires_at > now(), intent FROM ceremonies WHERE challenge = $1 AND kind = $2",
        parameterTypes: [.bytea, .text], isIdempotent: true)

    /// Read, verify, then one write on one leased connection, in one job on its thread: one durable commit per
    /// finish. A verified registration consumes the ceremony and stores user and credential in one statement
    /// (``consumeAndRegisterStatement``); a refused one only consumes the ceremony. See the protocol.
    public func finishRegistration<Outcome: Sendable>(
        challenge: [UInt8], nickname: String?, audit: AuditContext,
        verify: @escaping @Sendable (PendingCeremony?) -> (outcome: Outcome, registration: VerifiedRegistration?)
    ) async throws(StoreError) -> (outcome: Outcome, stored: (user: StoredUser, credential: StoredCredential)?) {
        let kind = CeremonyKind.registration.rawValue
        return try await run { connection in
            let read = try connection.executePrepared(Self.readCeremonyStatement, [challenge, kind])
            let ceremony = read.rowCount == 0
                ? nil : try Self.ceremony(from: read, row: 0, challenge: challenge, kind: .registration, hasIntent: true)
            let (outcome, registration) = verify(ceremony)
            guard let registration, let ceremony else {
                if read.rowCount > 0 { _ = try connection.executePrepared(Self.consumeCeremony, [challenge, kind]) }
                return (outcome, nil)
            }
            var parameters = Self.registerParameters(registration, nickname: nickname, intent: ceremony.intent, audit: audit)
            parameters.append(challenge)
            let result: PGResult
            do {
                result = try connection.executePrepared(Self.consumeAndRegisterStatement, parameters)
            } catch {
                // Nothing was written, the DELETE included: consume the ceremony on its own (single use whatever the
                // outcome), then report the error (duplicate credential, name taken meanwhile, …).
                _ = try? connection.executePrepared(Self.consumeCeremony, [challenge, kind])
                throw error
            }
            guard try result.decode(Int64.self, row: 0, column: 0) == 1 else {
                throw StoreError(.ceremonyTaken, "the ceremony was consumed by a concurrent finish")
            }
            guard let credential = try Self.credential(from: result, row: 0, offset: 5) else {
                throw StoreError(.userUnknown, "no user with this handle")
            }
            return (outcome, (try Self.user(from: result, row: 0, offset: 1), credential))
        }
    }

    static func registerParameters(
        _ registration: VerifiedRegistration, nickname: String?, intent: RegistrationIntent, audit: AuditContext
    ) -> PGBindings {
        let entity = registration.user
        let record = registration.credentialRecord
        let verdict = StoredAttestation(registration)
        var bindings: PGBindings = [
            entity.id, entity.name, entity.displayName, record.id, record.publicKey, Int32(registration.algorithm.rawValue),
            Int64(record.signCount), record.backupEligible, record.backupState, record.uvInitialized, record.transports,
            Self.uuid(registration.aaguid), record.attestationFormat, registration.attestationObject, registration.clientDataJSON,
        ]
        bindings.append(nickname)
        bindings.append(verdict.type)
        bindings.append(verdict.trust)
        bindings.append(verdict.trustAnchor)
        bindings.append(verdict.authenticatorDescription)
        bindings.append(intent == .newUser)
        bindings.append(contentsOf: audit)
        return bindings
    }

    static func register(_ parameters: PGBindings, on connection: PGConnection) throws -> (user: StoredUser, credential: StoredCredential) {
        let result = try connection.executePrepared(Self.registerStatement, parameters)
        guard result.rowCount == 1, let credential = try Self.credential(from: result, row: 0, offset: 4) else {
            throw StoreError(.userUnknown, "no user with this handle")
        }
        return (try Self.user(from: result, row: 0), credential)
    }

    /// One statement, one round trip: with $5 (advancesCounter) the row is written only while its counter is below
    /// $2 (or both are zero). Under READ COMMITTED a concurrent update of the row makes PostgreSQL re-check the
    /// WHERE clause on the newest version, so two finishes can never both pass with the same or a lower counter.
    /// The first column says whether the row was written; when it was not, the second SELECT returns the row as
    /// read (stale), and no row at all means the credential is gone.
    static let applyUpdate = PGPreparedStatement(
        name: "passkeyd_apply_update",
        sql: """
            WITH updated AS (
                \(conditionalUpdate) RETURNING *
            )
            SELECT true, \(credentialColumnsForSignIn) FROM updated c JOIN users u ON u.id = c.user_id
            UNION ALL
            SELECT false, \(credentialColumnsForSignIn) FROM credentials c JOIN users u ON u.id = c.user_id
             WHERE c.id = $1 AND NOT EXISTS (SELECT 1 FROM updated)
            """,
        parameterTypes: [.bytea, .int8, .bool, .bool, .bool])

    public func apply(_ update: CredentialUpdate) async throws(StoreError) -> CredentialUpdateResult {
        try await run { connection in try Self.apply(update, on: connection) }
    }

    static func apply(_ update: CredentialUpdate, on connection: PGConnection) throws -> CredentialUpdateResult {
        let result = try connection.executePrepared(
            Self.applyUpdate,
            [update.credentialID, Int64(update.signCount), update.backupState, update.uvInitialized, update.advancesCounter])
        guard result.rowCount > 0, let credential = try Self.credential(from: result, row: 0, offset: 1) else { return .gone }
        return try result.decode(Bool.self, row: 0, column: 0) ? .applied(credential) : .stale(credential)
    }

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
        try await run(transaction: revokeSessionsOnDelete) { connection in
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
            guard try result.decode(Int64.self, row: 0, column: 0) > 0 else { return false }
            try self.revokeSessions(startedBy: .credential, id: id, on: connection)
            return true
        }
    }

    public func ping() async throws(StoreError) {
        _ = try await run { connection in _ = try connection.execute("SELECT 1") }
    }

    /// The user, their credentials, identities, sessions and handoff codes (cascade) and one audit event for each
    /// credential and identity, in one statement (every part reads the same snapshot, so the events name exactly what
    /// the cascade deletes).
    public func deleteUser(handle: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool {
        try await run { connection in
            let result = try connection.execute(PGQuery(
                unsafeSQL: """
                    WITH deleted AS (DELETE FROM users WHERE user_handle = $1 RETURNING id, user_handle),
                    audit AS (
                        INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, identity_id, client_address)
                        SELECT e.event, $2, $3, e.user_handle, e.credential_id, e.identity_id, $4 FROM (
                            SELECT 1 AS position, c.created_at AS at, 'credential.deleted' AS event, d.user_handle,
                                   c.id AS credential_id, NULL::bytea AS identity_id
                              FROM deleted d JOIN credentials c ON c.user_id = d.id
                            UNION ALL
                            SELECT 2, i.created_at, 'identity.unlinked', d.user_handle, NULL, i.id
                              FROM deleted d JOIN identities i ON i.user_id = d.id
                            UNION ALL
                            SELECT 3, NULL, 'user.deleted', user_handle, NULL, NULL FROM deleted
                        ) AS e ORDER BY e.position, e.at, e.credential_id, e.identity_id
                    )
                    SELECT count(*) FROM deleted
                    """,
                bindings: PGBindings.audited(handle, audit)))
            return try result.decode(Int64.self, row: 0, column: 0) > 0
        }
    }

    static func uuid(_ bytes: [UInt8]) -> UUID {
        var value = [UInt8](repeating: 0, count: 16)
        for (index, byte) in bytes.prefix(16).enumerated() { value[index] = byte }
        return UUID(uuid: (value[0], value[1], value[2], value[3], value[4], value[5], value[6], value[7],
                           value[8], value[9], value[10], value[11], value[12], value[13], value[14], value[15]))
    }
}

extension PGBindings {
    /// `$1` = `key`, then `$2`-`$4` the audit context: the bindings of the delete statements.
    static func audited(_ key: [UInt8], _ audit: AuditContext) -> PGBindings {
        var bindings = PGBindings()
        bindings.append(key)
        bindings.append(contentsOf: audit)
        return bindings
    }

    /// An audit context as three parameters: request id, actor, client address.
    mutating func append(contentsOf audit: AuditContext) {
        append(audit.requestID)
        append(audit.actor)
        append(audit.clientAddress)
    }
}
