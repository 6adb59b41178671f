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
        c.authenticator_description, c.created_by, c.cred_props_rk, c.prf_enabled, c.large_blob_supported
        """
    /// `credentialColumns` without the audit columns (attestation object, clientDataJSON: kilobytes per row that
    /// no ceremony needs), for the statements on the sign-in path. Same column positions.
    static let credentialColumnsForSignIn = credentialColumns
        .replacingOccurrences(of: "c.attestation_object", with: "NULL::bytea")
        .replacingOccurrences(of: "c.client_data_json", with: "NULL::bytea")
    /// How many columns `credentialColumns` has.
    static let credentialColumnCount = 24
    static let userColumns = "user_handle, name, display_name, created_at"

    /// Runs `body` on a pooled connection, mapping database failures to `StoreError`.
    func run<T: Sendable>(transaction: Bool = false, _ body: @escaping @Sendable (PGConnection) throws -> T) async throws(StoreError) -> T {
        do {
            return transaction ? try await pool.withTransaction(body) : try await pool.withConnection(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Any failure of a store call as the store's error: a `StoreError` as it is, a database error mapped.
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as PGError: map(error)
        default: StoreError(.unavailable, "\(error)")
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
                authenticatorDescription: try result.decode(String?.self, row: row, column: column(19))),
            createdBy: try result.decode(String.self, row: row, column: column(20)) == "conditional" ? .conditional : nil,
            extensions: CredentialExtensionProperties(
                discoverable: try result.decode(Bool?.self, row: row, column: column(21)),
                prfEnabled: try result.decode(Bool?.self, row: row, column: column(22)),
                largeBlobSupported: try result.decode(Bool?.self, row: row, column: column(23))))
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
