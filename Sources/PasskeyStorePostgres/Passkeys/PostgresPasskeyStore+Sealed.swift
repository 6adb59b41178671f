public import LibPQ
public import PasskeyStore
public import SealedState
public import WebAuthnCore
import Synchronization

// The stateless finishes (sealed challenges): read, verify, one write that records the challenge's fingerprint in
// the same statement as the counter update or the registration (one durable commit per finish).
extension PostgresPasskeyStore {
    /// The credential with its owner, like ``readAuthentication``, without a ceremony (its state came out of the
    /// challenge): columns 0-2 are NULL, column 3 says whether fingerprint $1 is recorded already (a replay).
    static let readSealedAuthentication = PGPreparedStatement(
        name: "passkeyd_read_sealed_authentication",
        sql: """
            SELECT NULL::bytea, NULL::bytea, NULL::timestamptz,
                   EXISTS (SELECT 1 FROM consumed_challenges WHERE fingerprint = $1),
                   \(credentialColumnsForSignIn), u.name, u.display_name, u.created_at, \(ownerCredentialIDs)
              FROM (SELECT 1) AS one
              LEFT JOIN (credentials c JOIN users u ON u.id = c.user_id) ON c.id = $2
            """,
        parameterTypes: [.bytea, .bytea], isIdempotent: true)

    /// Records a used sealed challenge and nothing else: a finish whose verification failed.
    static let recordConsumedOnly = PGPreparedStatement(
        name: "passkeyd_record_consumed",
        sql: recordConsumed(fingerprint: "$1", expiresAt: "$2"),
        parameterTypes: [.bytea, .timestamptz])

    /// Records a used sealed challenge: one row when this statement recorded it, none when it was recorded already.
    static let consumeChallengeStatement = PGPreparedStatement(
        name: "passkeyd_consume_challenge",
        sql: "\(recordConsumed(fingerprint: "$1", expiresAt: "$2")) RETURNING 1",
        parameterTypes: [.bytea, .timestamptz])

    public func consumeChallenge(_ consumed: ConsumedFingerprint) async throws(StoreError) -> Bool {
        try await run { connection in
            try connection.executePrepared(Self.consumeChallengeStatement, [consumed.bytes, consumed.expiresAt]).rowCount == 1
        }
    }

    public func finishSealedAuthentication<Outcome: Sendable>(
        consumed: ConsumedFingerprint, credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?) {
        try await finishSignIn(challenge: consumed.bytes, consumed: consumed, credentialID: credentialID, verify: verify)
    }

    public func finishSealedRegistration<Outcome: Sendable>(
        consumed: ConsumedFingerprint, nickname: String?, intent: RegistrationIntent, audit: AuditContext,
        verify: @escaping @Sendable () -> (outcome: Outcome, registration: VerifiedRegistration?)
    ) async throws(StoreError) -> (outcome: Outcome, stored: (user: StoredUser, credential: StoredCredential)?) {
        // No read: a replay verifies, then its write finds the fingerprint recorded and writes nothing. One statement,
        // one round trip, one commit; with batch lanes, one statement and one commit for every registration that
        // finished meanwhile (``RegistrationFinishBatcher``).
        let (outcome, registration) = verify()
        if let registration, let registrationBatcher {
            do {
                let stored = try await traced(#function, batched: true) {
                    try await registrationBatcher.register(RegistrationFinishBatcher.Request(
                        registration: registration, nickname: nickname, intent: intent, audit: audit, consumed: consumed))
                }
                return (outcome, stored)
            } catch {
                throw Self.storeError(error)
            }
        }
        return try await run { connection in
            guard let registration else {
                _ = try connection.executePrepared(Self.recordConsumedOnly, [consumed.bytes, consumed.expiresAt])
                return (outcome, nil)
            }
            return (outcome, try Self.recordAndRegister(
                registration, nickname: nickname, intent: intent, audit: audit, consumed: consumed, on: connection))
        }
    }

    /// One verified registration of a sealed challenge, alone: records the fingerprint and stores user and
    /// credential in one statement (``recordAndRegisterStatement``). If the statement fails, nothing was written, the
    /// record included: the fingerprint is then recorded on its own (single use whatever the outcome) and the
    /// error reported (duplicate credential, name taken meanwhile, …).
    static func recordAndRegister(
        _ registration: VerifiedRegistration, nickname: String?, intent: RegistrationIntent, audit: AuditContext,
        consumed: ConsumedFingerprint, on connection: PGConnection
    ) throws -> (user: StoredUser, credential: StoredCredential) {
        var parameters = registerParameters(registration, nickname: nickname, intent: intent, audit: audit)
        parameters.append(consumed.bytes)
        parameters.append(consumed.expiresAt)
        let result: PGResult
        do {
            result = try connection.executePrepared(recordAndRegisterStatement, parameters)
        } catch {
            _ = try? connection.executePrepared(recordConsumedOnly, [consumed.bytes, consumed.expiresAt])
            throw error
        }
        guard try result.decode(Int64.self, row: 0, column: 0) == 1 else {
            throw StoreError(.ceremonyTaken, "the challenge was used by a concurrent finish")
        }
        guard let credential = try credential(from: result, row: 0, offset: 5) else {
            throw StoreError(.userUnknown, "no user with this handle")
        }
        return (try user(from: result, row: 0, offset: 1), credential)
    }
}
