import COSECrypto
import Foundation
import LibPQ
import PasskeyStore
import SealedState
import WebAuthnCore

/// Verified registrations of concurrent stateless finishes (sealed challenges), written in batches on few
/// connections: one statement and one commit for the whole batch (``writeBatch``) instead of one of each per
/// registration. The statement records every challenge's fingerprint and, for each one it recorded, inserts the new
/// user (or finds the existing one) and the credential with their audit events, like
/// ``PostgresPasskeyStore/recordAndRegisterStatement`` does for one.
///
/// Single-registration semantics are kept by falling back to that statement: a batch whose statement fails (a
/// deadlock, a constraint) or leaves a registration half done (its fingerprint recorded but its user or credential
/// skipped by a conflict: a name or credential id taken meanwhile, the existing user gone) is rolled back whole, and
/// each of its registrations then runs alone, getting its own error (`userExists`, `duplicateCredential`,
/// `userUnknown`) and still recording its challenge. A registration whose handle, name, credential id or challenge
/// repeats one earlier in the batch, or whose transports cannot be passed joined by commas, runs alone too. A
/// challenge recorded already (a replay, or a concurrent finish of the same challenge) is `ceremonyTaken`, as alone.
/// The batches come from ``BatchLanes``.
final class RegistrationFinishBatcher: Sendable {
    struct Request: Sendable {
        let registration: VerifiedRegistration
        let nickname: String?
        let intent: RegistrationIntent
        let audit: AuditContext
        let consumed: ConsumedFingerprint
    }

    typealias Stored = (user: StoredUser, credential: StoredCredential)

    private let lanes: BatchLanes<Request, Stored>

    init(pool: PGPool, lanes: Int, maximumBatch: Int = 32) {
        self.lanes = BatchLanes(pool: pool, lanes: lanes, maximumBatch: maximumBatch, run: Self.run)
    }

    func register(_ request: Request) async throws -> Stored {
        try await lanes.submit(request)
    }

    /// $1-$30: one array per column of a registration (as ``PostgresPasskeyStore/registerParameters(_:nickname:intent:audit:)``,
    /// the transports joined by commas), then the fingerprints and their expiries. Rows, one per registration in
    /// order: position, whether this statement recorded its fingerprint, whether it created its user, the user's
    /// columns and the credential's (NULL when not inserted).
    static let writeBatch = PGPreparedStatement(
        name: "passkeyd_write_registration_batch",
        sql: """
            WITH input AS (
                SELECT * FROM unnest(
                    $1::bytea[], $2::text[], $3::text[], $4::bytea[], $5::bytea[], $6::int4[], $7::int8[], $8::bool[], $9::bool[],
                    $10::bool[], $11::text[], $12::uuid[], $13::text[], $14::bytea[], $15::bytea[], $16::text[], $17::text[],
                    $18::text[], $19::text[], $20::text[], $21::bool[], $22::text[], $23::text[], $24::text[], $25::text[],
                    $26::bool[], $27::bool[], $28::bool[], $29::bytea[], $30::timestamptz[]
                ) WITH ORDINALITY AS i(handle, name, display_name, credential_id, public_key, algorithm, sign_count,
                    backup_eligible, backup_state, uv_initialized, transports, aaguid, attestation_format,
                    attestation_object, client_data_json, nickname, attestation_type, attestation_trust, trust_anchor,
                    authenticator_description, new_user, request_id, actor, client_address, created_by, cred_props_rk,
                    prf_enabled, large_blob_supported, fingerprint, expires_at, position)
            ), taken AS (
                INSERT INTO consumed_challenges (fingerprint, expires_at)
                SELECT fingerprint, expires_at FROM input ORDER BY fingerprint
                ON CONFLICT DO NOTHING
                RETURNING fingerprint
            ), new_user AS (
                INSERT INTO users (user_handle, name, display_name)
                SELECT i.handle, i.name, i.display_name FROM input i JOIN taken t ON t.fingerprint = i.fingerprint
                 WHERE i.new_user ORDER BY i.name
                ON CONFLICT DO NOTHING
                RETURNING id, \(PostgresPasskeyStore.userColumns)
            ), owner AS (
                SELECT id, \(PostgresPasskeyStore.userColumns) FROM new_user
                UNION ALL
                SELECT u.id, u.user_handle, u.name, u.display_name, u.created_at
                  FROM input i JOIN taken t ON t.fingerprint = i.fingerprint JOIN users u ON u.user_handle = i.handle
                 WHERE NOT i.new_user
            ), inserted AS (
                INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, backup_eligible, backup_state,
                    uv_initialized, transports, aaguid, attestation_format, attestation_object, client_data_json, nickname,
                    attestation_type, attestation_trust, trust_anchor, authenticator_description, created_by,
                    cred_props_rk, prf_enabled, large_blob_supported)
                SELECT i.credential_id, o.id, i.public_key, i.algorithm, i.sign_count, i.backup_eligible, i.backup_state,
                       i.uv_initialized, string_to_array(i.transports, ','), i.aaguid, i.attestation_format,
                       i.attestation_object, i.client_data_json, i.nickname, i.attestation_type, i.attestation_trust,
                       i.trust_anchor, i.authenticator_description, i.created_by, i.cred_props_rk, i.prf_enabled,
                       i.large_blob_supported
                  FROM input i JOIN owner o ON o.user_handle = i.handle
                 ORDER BY i.credential_id
                ON CONFLICT DO NOTHING
                RETURNING *
            ), audit AS (
                INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, client_address)
                SELECT e.event, i.request_id, i.actor, e.user_handle, e.credential_id, i.client_address FROM (
                    SELECT 1 AS step, 'user.created' AS event, user_handle, NULL::bytea AS credential_id FROM new_user
                    UNION ALL
                    SELECT 2, 'credential.registered', o.user_handle, c.id FROM inserted c JOIN owner o ON o.id = c.user_id
                ) AS e JOIN input i ON i.handle = e.user_handle
                 ORDER BY i.position, e.step
            )
            SELECT i.position, t.fingerprint IS NOT NULL, n.id IS NOT NULL, u.user_handle, u.name, u.display_name, u.created_at,
                   \(PostgresPasskeyStore.credentialColumns)
              FROM input i
              LEFT JOIN taken t ON t.fingerprint = i.fingerprint
              LEFT JOIN new_user n ON i.new_user AND n.user_handle = i.handle
              LEFT JOIN owner u ON u.user_handle = i.handle
              LEFT JOIN inserted c ON c.id = i.credential_id AND c.user_id = u.id
             ORDER BY i.position
            """,
        parameterTypes: [
            .byteaArray, .textArray, .textArray, .byteaArray, .byteaArray, .int4Array, .int8Array, .boolArray, .boolArray,
            .boolArray, .textArray, .uuidArray, .textArray, .byteaArray, .byteaArray, .textArray, .textArray, .textArray,
            .textArray, .textArray, .boolArray, .textArray, .textArray, .textArray, .textArray, .boolArray, .boolArray,
            .boolArray, .byteaArray, .timestamptzArray,
        ])

    /// A batch whose statement left a registration half done: rolled back, then each registration alone.
    private struct HalfDone: Error {}

    /// One batch on one connection: the registrations that can share the statement in it (in one transaction, so a
    /// half-done one can undo it), the others (and all of them after a rollback) alone.
    static func run(_ batch: [Request], _ connection: PGConnection) throws -> [Result<Stored, any Error>] {
        var together: [Int] = []
        var alone: [Int] = []
        var handles = Set<[UInt8]>(), names = Set<String>(), credentials = Set<[UInt8]>(), fingerprints = Set<[UInt8]>()
        for (index, request) in batch.enumerated() {
            let registration = request.registration
            let fresh = handles.insert(registration.user.id).inserted && names.insert(registration.user.name).inserted
                && credentials.insert(registration.credentialRecord.id).inserted && fingerprints.insert(request.consumed.bytes).inserted
            let joinable = registration.credentialRecord.transports.allSatisfy { !$0.isEmpty && !$0.contains(",") }
            if fresh && joinable { together.append(index) } else { alone.append(index) }
        }
        var results = [Result<Stored, any Error>?](repeating: nil, count: batch.count)
        if together.count == 1 {
            alone.insert(together[0], at: 0)
        } else if !together.isEmpty {
            do {
                let written = try connection.transaction { connection in
                    try write(together.map { batch[$0] }, on: connection)
                }
                for (index, result) in zip(together, written) { results[index] = result }
            } catch {
                // Rolled back (half done, or the statement failed): each alone, with its own outcome.
                alone = together + alone
            }
        }
        for index in alone.sorted() {
            let request = batch[index]
            results[index] = Result {
                try PostgresPasskeyStore.recordAndRegister(
                    request.registration, nickname: request.nickname, intent: request.intent, audit: request.audit,
                    consumed: request.consumed, on: connection)
            }
        }
        return results.map { $0 ?? .failure(StoreError(.unavailable, "a registration of the batch was not run")) }
    }

    /// The statement for `requests` (distinct handles, names, credential ids and fingerprints); throws
    /// ``HalfDone`` when a recorded fingerprint's registration was not fully written.
    static func write(_ requests: [Request], on connection: PGConnection) throws -> [Result<Stored, any Error>] {
        let result = try connection.executePrepared(writeBatch, bindings(requests))
        guard result.rowCount == requests.count else {
            throw PGError(code: .protocolViolation, message: "the registration batch answered \(result.rowCount) of \(requests.count)")
        }
        return try requests.indices.map { row -> Result<Stored, any Error> in
            guard try result.decode(Bool.self, row: row, column: 1) else {
                return .failure(StoreError(.ceremonyTaken, "the challenge was used by a concurrent finish"))
            }
            let createdUser = try result.decode(Bool.self, row: row, column: 2)
            guard requests[row].intent != .newUser || createdUser,
                let credential = try PostgresPasskeyStore.credential(from: result, row: row, offset: 7)
            else { throw HalfDone() }
            return .success((try PostgresPasskeyStore.user(from: result, row: row, offset: 3), credential))
        }
    }

    static func bindings(_ requests: [Request]) -> PGBindings {
        let registrations = requests.map(\.registration)
        let records = registrations.map(\.credentialRecord)
        let verdicts = registrations.map(StoredAttestation.init)
        let audits = requests.map(\.audit)
        var bindings = PGBindings()
        bindings.append(registrations.map(\.user.id))
        bindings.append(registrations.map(\.user.name))
        bindings.append(registrations.map(\.user.displayName))
        bindings.append(records.map(\.id))
        bindings.append(records.map(\.publicKey))
        bindings.append(registrations.map { Int32($0.algorithm.rawValue) })
        bindings.append(records.map { Int64($0.signCount) })
        bindings.append(records.map(\.backupEligible))
        bindings.append(records.map(\.backupState))
        bindings.append(records.map(\.uvInitialized))
        bindings.append(records.map { $0.transports.joined(separator: ",") })
        bindings.append(registrations.map { PostgresPasskeyStore.uuid($0.aaguid) })
        bindings.append(records.map(\.attestationFormat))
        bindings.append(registrations.map(\.attestationObject))
        bindings.append(registrations.map(\.clientDataJSON))
        bindings.append(requests.map(\.nickname))
        bindings.append(verdicts.map(\.type))
        bindings.append(verdicts.map(\.trust))
        bindings.append(verdicts.map(\.trustAnchor))
        bindings.append(verdicts.map(\.authenticatorDescription))
        bindings.append(requests.map { $0.intent == .newUser })
        bindings.append(audits.map(\.requestID))
        bindings.append(audits.map(\.actor))
        bindings.append(audits.map(\.clientAddress))
        bindings.append(registrations.map { $0.mediation == .conditional ? "conditional" : "modal" })
        bindings.append(registrations.map(\.discoverable))
        bindings.append(registrations.map(\.prfEnabled))
        bindings.append(registrations.map(\.largeBlobSupported))
        bindings.append(requests.map(\.consumed.bytes))
        bindings.append(requests.map(\.consumed.expiresAt))
        return bindings
    }
}
