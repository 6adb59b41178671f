public import Foundation
public import LibPQ
public import PasskeyStore
import SealedState
public import WebAuthnCore
import COSECrypto
import Synchronization

// The finishes of both ceremonies (read, verify, one write) and the other writes of the ceremony steps.
extension PostgresPasskeyStore {
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
            SELECT t.user_handle, t.state, t.expires_at, t.fresh, \(credentialColumnsForSignIn), u.name, u.display_name, u.created_at,
                   \(ownerCredentialIDs)
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
            SELECT t.user_handle, t.state, t.expires_at, t.expires_at > now(), \(credentialColumnsForSignIn), u.name, u.display_name, u.created_at,
                   \(ownerCredentialIDs)
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
        sql: consumeAndApplySQL(taking: "DELETE FROM ceremonies WHERE challenge = $6 AND kind = 'authentication' RETURNING 1"),
        parameterTypes: [.bytea, .int8, .bool, .bool, .bool, .bytea])

    /// ``consumeAndApply`` for a sealed challenge: records its fingerprint ($6, kept until $7) instead of deleting a
    /// ceremony. A concurrent finish that recorded it first makes this INSERT wait for its commit and then insert
    /// nothing (ON CONFLICT DO NOTHING): column 0 is 0 and nothing is written.
    static let recordAndApply = PGPreparedStatement(
        name: "passkeyd_record_and_apply",
        sql: consumeAndApplySQL(taking: "\(recordConsumed(fingerprint: "$6", expiresAt: "$7")) RETURNING 1"),
        parameterTypes: [.bytea, .int8, .bool, .bool, .bool, .bytea, .timestamptz])

    /// The INSERT that records a used sealed challenge, nothing when it is recorded already.
    static func recordConsumed(fingerprint: String, expiresAt: String) -> String {
        "INSERT INTO consumed_challenges (fingerprint, expires_at) VALUES (\(fingerprint), \(expiresAt)) ON CONFLICT DO NOTHING"
    }

    static func consumeAndApplySQL(taking: String) -> String {
        """
        WITH taken AS (
            \(taking)
        ), updated AS (
            \(conditionalUpdate) AND EXISTS (SELECT 1 FROM taken)
            RETURNING sign_count, backup_state, uv_initialized, last_used_at
        )
        SELECT (SELECT count(*) FROM taken), w.sign_count, w.backup_state, w.uv_initialized, w.last_used_at
          FROM (SELECT 1) AS one LEFT JOIN updated w ON true
        """
    }

    /// Read, verify, then one write on one leased connection, in one job on its thread: one durable commit per
    /// finish (the read takes no transaction id and writes no WAL). A verified finish consumes the ceremony and
    /// applies the counter in one statement (``consumeAndApply``); a refused one only consumes the ceremony; an
    /// unknown challenge writes nothing. See the protocol for the contract.
    public func finishAuthentication<Outcome: Sendable>(
        challenge: [UInt8], credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?) {
        try await finishSignIn(challenge: challenge, consumed: nil, credentialID: credentialID, verify: verify)
    }

    /// Both sign-in finishes, table (`consumed` nil: the ceremony row of `challenge` is read, then deleted) and sealed
    /// (the fingerprint `consumed` is checked, then recorded): handed to the batcher when there is one, otherwise
    /// read, verify and one write on one leased connection, in one job on its thread.
    func finishSignIn<Outcome: Sendable>(
        challenge: [UInt8], consumed: ConsumedFingerprint?, credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?) {
        if let finishBatcher {
            let outcome = OutcomeBox<Outcome>()
            do {
                let (lookup, applied) = try await traced(#function, batched: true) {
                    try await finishBatcher.finish(challenge: challenge, credentialID: credentialID, consumed: consumed) { lookup in
                        let (result, update) = verify(lookup)
                        outcome.value.withLock { $0 = result }
                        return update
                    }
                }
                guard let result = outcome.value.withLock({ $0 }) else { throw StoreError(.unavailable, "the batch did not verify") }
                return (lookup, result, applied)
            } catch {
                throw Self.storeError(error)
            }
        }
        return try await run { connection in
            let lookup: AuthenticationLookup
            let found: Bool
            if let consumed {
                let read = try connection.executePrepared(Self.readSealedAuthentication, [consumed.bytes, credentialID])
                guard try !read.decode(Bool.self, row: 0, column: 3) else {
                    throw StoreError(.ceremonyTaken, "the challenge was used")
                }
                (lookup, found) = (try Self.authenticationLookup(from: read, row: 0, challenge: challenge), true)
            } else {
                let read = try connection.executePrepared(Self.readAuthentication, [challenge, credentialID])
                (lookup, found) = (try Self.authenticationLookup(from: read, row: 0, challenge: challenge), try !read.isNull(row: 0, column: 1))
            }
            let (outcome, update) = verify(lookup)
            guard let update else {
                // Refused: used up all the same (single use whatever the outcome); an unknown table challenge writes nothing.
                if let consumed {
                    _ = try connection.executePrepared(Self.recordConsumedOnly, [consumed.bytes, consumed.expiresAt])
                } else if found {
                    _ = try connection.executePrepared(Self.consumeCeremony, [challenge, CeremonyKind.authentication.rawValue])
                }
                return (lookup, outcome, nil)
            }
            let written: PGResult
            if let consumed {
                var bindings = Self.consumeAndApplyBindings(update, challenge: consumed.bytes)
                bindings.append(consumed.expiresAt)
                written = try connection.executePrepared(Self.recordAndApply, bindings)
            } else {
                written = try connection.executePrepared(Self.consumeAndApply, Self.consumeAndApplyBindings(update, challenge: challenge))
            }
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
            credential: credential, user: user,
            userCredentialIDs: credential == nil ? [] : try result.decode([[UInt8]].self, row: row, column: 4 + Self.credentialColumnCount + 3))
    }

    /// The last column of the sign-in reads: the ids of all credentials of the asserted credential's owner (`c`),
    /// oldest first (one more scan of `credentials_user_id_idx`; an empty array when `c` is absent).
    static let ownerCredentialIDs = "ARRAY(SELECT o.id FROM credentials o WHERE o.user_id = c.user_id ORDER BY o.created_at, o.id)"

    // MARK: writes

    /// One statement, one round trip. With $21 (a new user): insert the user (a name or handle already taken, also
    /// by a concurrent sign-up that commits first, is a unique violation: `userExists`), then the credential.
    /// Without: the owner is the existing user with handle $1 (none: no row, `userUnknown`; deleted after the read:
    /// a foreign-key violation, `userUnknown`), then the credential. A duplicate credential id is a unique violation
    /// (mapped by ``map(_:)``). Nothing is written on any error.
    static let registerStatement = PGPreparedStatement(
        name: "passkeyd_register_with_intent", sql: registerSQL(taking: nil), parameterTypes: registerParameterTypes)

    /// ``registerStatement`` that first consumes the registration ceremony with challenge $25 and writes only if its
    /// DELETE took it (a concurrent finish of the same challenge that deleted it first leaves nothing to take):
    /// a verified registration's one write and one commit. Column 0 is how many ceremonies it took (0 or 1), then
    /// the user and credential columns, NULL when nothing was inserted (no such user for an existing-user intent, or
    /// no ceremony taken). On an error the whole statement, the DELETE included, is undone.
    static let consumeAndRegisterStatement = PGPreparedStatement(
        name: "passkeyd_consume_and_register",
        sql: registerSQL(taking: "DELETE FROM ceremonies WHERE challenge = $29 AND kind = 'registration' RETURNING 1"),
        parameterTypes: registerParameterTypes + [.bytea])

    /// ``consumeAndRegisterStatement`` for a sealed challenge: records its fingerprint ($29, kept until $30) instead
    /// of deleting a ceremony, and writes only if it recorded it.
    static let recordAndRegisterStatement = PGPreparedStatement(
        name: "passkeyd_record_and_register",
        sql: registerSQL(taking: "\(recordConsumed(fingerprint: "$29", expiresAt: "$30")) RETURNING 1"),
        parameterTypes: registerParameterTypes + [.bytea, .timestamptz])

    static let registerParameterTypes: [PGType] = [
        .bytea, .text, .text, .bytea, .bytea, .int4, .int8, .bool, .bool, .bool, .textArray, .uuid, .text, .bytea, .bytea,
        .text, .text, .text, .text, .text, .bool, .text, .text, .text, .text, .bool, .bool, .bool,
    ]

    /// The registration statement; with `taking` (a data-modifying statement returning a row when it took the
    /// challenge) it writes only if that took it, and column 0 says so.
    static func registerSQL(taking: String?) -> String {
        let consuming = taking != nil
        let taken = consuming ? " AND EXISTS (SELECT 1 FROM taken)" : ""
        return """
            WITH \(taking.map { "taken AS (\($0)), " } ?? "")new_user AS (
                INSERT INTO users (user_handle, name, display_name) SELECT $1, $2, $3 WHERE $21\(taken)
                RETURNING id, \(userColumns)
            ), owner AS (
                SELECT id, \(userColumns) FROM new_user
                UNION ALL
                SELECT id, \(userColumns) FROM users WHERE NOT $21 AND user_handle = $1\(taken)
            ), inserted AS (
                INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, backup_eligible, backup_state,
                    uv_initialized, transports, aaguid, attestation_format, attestation_object, client_data_json, nickname,
                    attestation_type, attestation_trust, trust_anchor, authenticator_description, created_by,
                    cred_props_rk, prf_enabled, large_blob_supported)
                SELECT $4, id, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $25, $26, $27, $28
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
        bindings.append(registration.mediation == .conditional ? "conditional" : "modal")
        bindings.append(registration.discoverable)
        bindings.append(registration.prfEnabled)
        bindings.append(registration.largeBlobSupported)
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
}
