import Foundation
public import LibPQ
public import PasskeyStore
import WebAuthnCore
import COSECrypto
import Synchronization
import Tracing

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
    let approximateCeremonies = Atomic<Int>(0)
    /// Authentication finishes in batches (``AuthenticationFinishBatcher``); nil: one finish per lease.
    let finishBatcher: AuthenticationFinishBatcher?
    /// Verified stateless registrations written in batches (``RegistrationFinishBatcher``); nil: one statement each.
    let registrationBatcher: RegistrationFinishBatcher?
    /// Uncapped begins' ceremonies inserted in batches (``insertCeremoniesBatch``); nil: one insert per begin.
    let ceremonyBatcher: BatchLanes<PendingCeremony, Void>?
    /// Stateless begins' reads of the user they name, in batches (``UserReadBatcher``); nil: one statement each.
    let userReadBatcher: BatchLanes<UserLookup, UserWithCredentials?>?
    /// Each store call in a child span of the request's (``traced(_:batched:_:)``); off: no span is built.
    let tracing: Bool

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
    ///     cap), on N more, and the verified registrations of sealed challenges (``RegistrationFinishBatcher``: one
    ///     statement and one commit per batch), on N more, and the user reads of stateless begins (``UserReadBatcher``:
    ///     one statement per batch), on N more; 0 runs each on its own lease.
    ///   - tracing: each store call in a span (the executable's choice: on when traces are exported).
    public init(pool: PGPool, caps: CeremonyCaps = .none, revokeSessionsOnDelete: Bool = true, batchLanes: Int = 0, tracing: Bool = false) {
        self.tracing = tracing
        self.pool = pool
        self.caps = caps
        self.revokeSessionsOnDelete = revokeSessionsOnDelete
        finishBatcher = batchLanes > 0 ? AuthenticationFinishBatcher(pool: pool, lanes: batchLanes) : nil
        ceremonyBatcher = batchLanes > 0 ? BatchLanes(pool: pool, lanes: batchLanes, run: Self.insertCeremonies) : nil
        registrationBatcher = batchLanes > 0 ? RegistrationFinishBatcher(pool: pool, lanes: batchLanes) : nil
        userReadBatcher = batchLanes > 0 ? UserReadBatcher.makeLanes(pool: pool, lanes: batchLanes) : nil
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

    /// Runs `body` on a pooled connection, mapping database failures to `StoreError`; with tracing on, in a span
    /// named after the calling store method (`function`, the caller's `#function`).
    func run<T: Sendable>(
        transaction: Bool = false, function: String = #function, _ body: @escaping @Sendable (PGConnection) throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await traced(function) {
                transaction ? try await pool.withTransaction(body) : try await pool.withConnection(body)
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// With tracing on, `body` in a `client` child span of the current one named `store.<method>` (the store method's
    /// name without its labels: `store.finishSignIn`), with `db.system.name` `postgresql`, `db.operation.name` the
    /// method and, for a call answered in a batch (sign-in finishes, ceremony inserts, registrations, begins' user
    /// reads), `passkeyd.store.batched` true (the span then covers the wait for the batch too). Neither statement text nor bind values are recorded. Off: `body` alone.
    func traced<T>(_ function: String, batched: Bool = false, _ body: () async throws -> T) async throws -> T {
        guard tracing else { return try await body() }
        let method = function.prefix { $0 != "(" }
        return try await withSpan("store." + method, ofKind: .client) { span in
            span.attributes["db.system.name"] = "postgresql"
            span.attributes["db.operation.name"] = String(method)
            if batched { span.attributes["passkeyd.store.batched"] = true }
            do {
                return try await body()
            } catch {
                span.setStatus(SpanStatus(code: .error))
                throw error
            }
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

    public func ping() async throws(StoreError) {
        _ = try await run { connection in _ = try connection.execute("SELECT 1") }
    }

    /// The user, their credentials, identities, sessions and handoff codes (cascade) and one audit event for each
    /// credential and identity, in one statement (every part reads the same snapshot, so the events name exactly what
    /// the cascade deletes).
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
