import COSECrypto
import Foundation
public import SealedState
public import WebAuthnCore

/// Persistence for users, credentials and pending ceremonies. Implementations: ``InMemoryPasskeyStore`` (tests,
/// single-process development) and the PostgreSQL store (any number of instances sharing one database).
///
/// Every method is atomic. Single use and expiry of ceremonies are the store's job: a ceremony is returned by
/// `take…` at most once, and never after it expired.
///
/// A stateless begin (sealed challenges) only reads: ``PasskeyReadStore/userWithCredentials(_:)``.
public protocol PasskeyStore: PasskeyReadStore {
    func user(named name: String) async throws(StoreError) -> StoredUser?
    func user(handle: [UInt8]) async throws(StoreError) -> StoredUser?
    func credentials(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredCredential]

    /// Records a begun ceremony.
    func saveCeremony(_ ceremony: PendingCeremony) async throws(StoreError)
    /// Begin as one unit: loads the user `lookup` names with their credentials (no lookup when `lookup` is nil; nil
    /// and no credentials when unknown), calls `build` with them, and saves the ceremony `build` returns (nothing
    /// when nil). `build` must be pure (no I/O, no blocking): an implementation may run it on its own thread while
    /// it holds a database connection, so a begin is one lease and one trip to that thread. The default
    /// implementation calls ``user(named:)`` or ``user(handle:)``, ``credentials(ofUser:)`` and
    /// ``saveCeremony(_:)`` in turn.
    func beginCeremony<Outcome: Sendable>(
        user lookup: UserLookup?,
        build: @escaping @Sendable (StoredUser?, [StoredCredential]) -> (outcome: Outcome, ceremony: PendingCeremony?)
    ) async throws(StoreError) -> Outcome
    /// Removes and returns the unexpired ceremony with this challenge and kind (single use; nil if unknown,
    /// expired, of the other kind, or already taken).
    func takeCeremony(challenge: [UInt8], kind: CeremonyKind) async throws(StoreError) -> PendingCeremony?
    /// Authentication finish in one step: takes the ceremony (as ``takeCeremony(challenge:kind:)``) and loads the
    /// credential with its owner. The ceremony is consumed even when the credential is unknown.
    func takeAuthentication(
        challenge: [UInt8], credentialID: [UInt8]
    ) async throws(StoreError) -> AuthenticationLookup

    /// Authentication finish as one unit: ``takeAuthentication(challenge:credentialID:)``, then `verify` on what it
    /// loaded, then ``apply(_:)`` of the update `verify` returns (nothing is applied when it returns nil; `applied`
    /// is then nil). `verify` must be pure (no I/O, no blocking): an implementation may run it on its own thread
    /// while it holds a database connection, so that the whole finish is one lease and one trip to that thread.
    /// The default implementation calls the three steps in turn.
    ///
    /// An implementation may instead read the ceremony without consuming it, verify, and then consume it in the
    /// same atomic write as the update (one durable commit per finish). The contract is the same either way: a
    /// ceremony is used at most once, it is consumed also when `verify` returns nil, and when a concurrent finish
    /// consumed it between the read and the write nothing is written and the call throws `ceremonyTaken`.
    func finishAuthentication<Outcome: Sendable>(
        challenge: [UInt8], credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?)

    /// Registration finish as one unit: ``takeCeremony(challenge:kind:)`` (registration), then `verify` on what it
    /// took, then ``register(_:nickname:intent:)`` of the registration `verify` returns, with the intent stored with
    /// the ceremony (nothing is stored when `verify` returns nil; `stored` is then nil). `verify` must be pure, as
    /// for ``finishAuthentication(challenge:credentialID:verify:)``, and the same freedom applies: read, verify,
    /// then consume and store in one atomic write (`ceremonyTaken` when a concurrent finish consumed it first).
    /// The ceremony is consumed whatever the outcome, also when storing fails (`duplicateCredential`, …).
    func finishRegistration<Outcome: Sendable>(
        challenge: [UInt8], nickname: String?, audit: AuditContext,
        verify: @escaping @Sendable (PendingCeremony?) -> (outcome: Outcome, registration: VerifiedRegistration?)
    ) async throws(StoreError) -> (outcome: Outcome, stored: (user: StoredUser, credential: StoredCredential)?)

    /// A stateless (sealed-challenge) authentication finish as one unit: refuses with `ceremonyTaken` a challenge
    /// whose fingerprint is already recorded (without calling `verify`), loads the credential with its owner (the
    /// lookup has no ceremony: its state came out of the challenge), calls `verify`, then records the fingerprint and
    /// applies the update `verify` returns in one atomic write, the update only if this write took the fingerprint
    /// (a concurrent finish of the same challenge that recorded it first makes this one write nothing and throw
    /// `ceremonyTaken`). The fingerprint is recorded also when `verify` returns nil (single use whatever the outcome).
    func finishSealedAuthentication<Outcome: Sendable>(
        consumed: ConsumedFingerprint, credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?)

    /// A stateless registration finish as one unit: calls `verify` (no read first), then records the fingerprint and
    /// stores the registration `verify` returns as ``register(_:nickname:intent:audit:)`` does, in one atomic write
    /// that stores nothing and throws `ceremonyTaken` when the fingerprint was recorded already (a replay, or a
    /// concurrent finish that recorded it first). The fingerprint is recorded whatever the outcome, also when
    /// `verify` returns nil (then `stored` is nil and no error is thrown, replay or not) and when storing fails
    /// (`duplicateCredential`, …).
    func finishSealedRegistration<Outcome: Sendable>(
        consumed: ConsumedFingerprint, nickname: String?, intent: RegistrationIntent, audit: AuditContext,
        verify: @escaping @Sendable () -> (outcome: Outcome, registration: VerifiedRegistration?)
    ) async throws(StoreError) -> (outcome: Outcome, stored: (user: StoredUser, credential: StoredCredential)?)

    /// Records a used sealed challenge on its own (an ID-token session or an App Attest challenge, whose finish
    /// writes nothing else here): true when this call recorded `consumed`, false when it was recorded already (a
    /// replay, or a concurrent use that got there first). Atomic: of concurrent calls with one fingerprint exactly one
    /// returns true.
    func consumeChallenge(_ consumed: ConsumedFingerprint) async throws(StoreError) -> Bool

    /// Stores a verified registration: with `.newUser` creates the user (`userExists` when its name or handle is
    /// taken), with `.existingUser` adds to the user with the registration's handle (`userUnknown` when there is
    /// none); then inserts the credential. A credential id that is already registered throws `duplicateCredential`.
    /// Any error changes nothing. Records `user.created` (for a new user) and `credential.registered` with the change.
    func register(
        _ registration: VerifiedRegistration, nickname: String?, intent: RegistrationIntent, audit: AuditContext
    ) async throws(StoreError) -> (user: StoredUser, credential: StoredCredential)
    /// Applies an assertion's update atomically. When `update.advancesCounter`, it is written only while the stored
    /// counter is still below the new one (or both are zero); otherwise a concurrent finish got there first and
    /// the result is `.stale` with nothing written. Without `advancesCounter` (a regression accepted by policy),
    /// only the use is recorded. uvInitialized only ever turns true.
    func apply(_ update: CredentialUpdate) async throws(StoreError) -> CredentialUpdateResult

    /// Creates an account without a sign-in method yet (a backend's existing user about to get a passkey by an
    /// automatic upgrade): `userExists` when the name or handle is taken. Records `user.created`.
    func createUser(handle: [UInt8], name: String, displayName: String, audit: AuditContext) async throws(StoreError) -> StoredUser

    // MARK: administration
    /// Users ordered by name, optionally those whose name contains `nameFilter`, after the name `after`.
    func listUsers(nameFilter: String?, limit: Int, after: String?) async throws(StoreError) -> [StoredUser]
    func credential(id: [UInt8]) async throws(StoreError) -> StoredCredential?
    /// Records `credential.renamed` with the change.
    func renameCredential(id: [UInt8], nickname: String?, audit: AuditContext) async throws(StoreError) -> StoredCredential?
    /// Records `credential.deleted` with the change.
    func deleteCredential(id: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool
    /// Self-service: renames the credential `id` only if `owner` owns it (nil otherwise, as for an unknown id).
    /// Records `credential.renamed`.
    func renameCredential(id: [UInt8], ofUser owner: [UInt8], nickname: String?, audit: AuditContext) async throws(StoreError) -> StoredCredential?
    /// Self-service: deletes the credential `id` only if `owner` owns it (`.unknown` otherwise) and, with
    /// `keepingLastSignInMethod`, only while the owner keeps another way to sign in (a passkey or a provider identity;
    /// `.lastSignInMethod` otherwise). Atomic against concurrent removals of the owner's other methods. Records
    /// `credential.deleted` and revokes the sessions it started, as ``deleteCredential(id:audit:)``.
    func removeCredential(
        id: [UInt8], ofUser owner: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) async throws(StoreError) -> SignInMethodRemoval
    /// Deletes a user and all their credentials; records `credential.deleted` for each and `user.deleted`.
    func deleteUser(handle: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool
    /// Audit events matching `query`, in id order.
    func auditEvents(_ query: AuditQuery) async throws(StoreError) -> [AuditEvent]
    /// Deletes expired ceremonies and expired records of used sealed challenges; returns how many.
    func purgeExpiredCeremonies() async throws(StoreError) -> Int
    /// Succeeds when the store can serve requests (readiness).
    func ping() async throws(StoreError)
}

extension PasskeyStore {
    public func finishRegistration<Outcome: Sendable>(
        challenge: [UInt8], nickname: String?, audit: AuditContext,
        verify: @escaping @Sendable (PendingCeremony?) -> (outcome: Outcome, registration: VerifiedRegistration?)
    ) async throws(StoreError) -> (outcome: Outcome, stored: (user: StoredUser, credential: StoredCredential)?) {
        let ceremony = try await takeCeremony(challenge: challenge, kind: .registration)
        let (outcome, registration) = verify(ceremony)
        guard let registration, let ceremony else { return (outcome, nil) }
        return (outcome, try await register(registration, nickname: nickname, intent: ceremony.intent, audit: audit))
    }

    public func beginCeremony<Outcome: Sendable>(
        user lookup: UserLookup?,
        build: @escaping @Sendable (StoredUser?, [StoredCredential]) -> (outcome: Outcome, ceremony: PendingCeremony?)
    ) async throws(StoreError) -> Outcome {
        var user: StoredUser?
        var credentials: [StoredCredential] = []
        let found: StoredUser?
        switch lookup {
        case .name(let name)?: found = try await self.user(named: name)
        case .handle(let handle)?: found = try await self.user(handle: handle)
        case nil: found = nil
        }
        if let found {
            user = found
            credentials = try await self.credentials(ofUser: found.handle)
        }
        let (outcome, ceremony) = build(user, credentials)
        if let ceremony { try await saveCeremony(ceremony) }
        return outcome
    }

    public func finishAuthentication<Outcome: Sendable>(
        challenge: [UInt8], credentialID: [UInt8],
        verify: @escaping @Sendable (AuthenticationLookup) -> (outcome: Outcome, update: CredentialUpdate?)
    ) async throws(StoreError) -> (lookup: AuthenticationLookup, outcome: Outcome, applied: CredentialUpdateResult?) {
        let lookup = try await takeAuthentication(challenge: challenge, credentialID: credentialID)
        let (outcome, update) = verify(lookup)
        guard let update else { return (lookup, outcome, nil) }
        return (lookup, outcome, try await apply(update))
    }
}
