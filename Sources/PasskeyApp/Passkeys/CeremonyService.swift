import COSECrypto
public import SealedState
import Synchronization
public import Foundation
public import PasskeyStore
public import WebAuthnCore
public import WebAuthnModel

/// The passkey ceremonies as use cases: engine + store, no HTTP. Routes only decode, call one of these and encode.
public struct CeremonyService: Sendable {
    /// Identity and policies, as of now (the FIDO metadata inside may be replaced while the service runs).
    public var relyingParty: RelyingParty { current.withLock { $0 } }
    public let store: any PasskeyStore
    /// The relying party, behind a lock so ``replaceMetadata(_:)`` can swap the metadata index between requests.
    private let current: RelyingPartyBox
    let keyCache: PublicKeyCache
    /// Provider names by AAGUID (`PASSKEYD_PROVIDER_NAMES_FILE`), replaceable like the metadata.
    private let providers = ProviderNamesBox()
    let challengeSource: any ChallengeSource
    /// The clock the use case reads (injected; tests set it).
    public let now: @Sendable () -> Date
    /// Unexpired automatic-upgrade ceremonies one user may have (`PASSKEYD_UPGRADE_PENDING_PER_USER`), counted apart
    /// from their other ceremonies; past it a begin is 429 `too_many_pending_ceremonies`.
    public var pendingUpgradesPerUser = 3
    /// The ceremony keys (``CeremonyKeyRing``) when ceremonies are stateless: begins seal their state into the
    /// challenge and write nothing, finishes open it and record it as used. Nil: the pending-ceremony table (a
    /// passkeyd without a key-encryption key or ceremony key files). Read once per request.
    public var keyRing: (@Sendable () -> CeremonyKeyRing?)?
    /// The ring begins seal with, when set (the executable's ``CeremonyKeys/sealingRing()``: refreshed first when it
    /// went stale); nil: ``keyRing``.
    public var sealingKeyRing: (@Sendable () async -> CeremonyKeyRing?)?
    /// How far instances' clocks may disagree (`PASSKEYD_CLOCK_SKEW`): a sealed challenge is refused as expired only
    /// this long after its expiry.
    public var clockSkew: TimeInterval = 30
    /// Rereads the ceremony keys now (rate-limited by its owner) when a challenge names a key id the ring lacks: a key
    /// another instance added since this one last read them.
    public var reloadKeyRing: (@Sendable () async -> CeremonyKeyRing)?
    /// Where stateless begins (with ``keyRing``) read the user they name: a read-only store on a hot standby
    /// (``ReplicaReads``: its answers for the lag, the primary for the rest); nil: the store. Begins on the ceremony
    /// table write, and read the store whatever this is.
    public var replicaReads: ReplicaReads?
    /// The finishes' WebAuthn verification in a span (``VerificationTrace``); the executable turns it on when traces
    /// are exported. Off: no span is built.
    public var tracing = false

    /// - Parameters:
    ///   - relyingParty: identity and policies.
    ///   - store: persistence.
    ///   - challengeSource: randomness (injectable for tests).
    ///   - now: the clock.
    public init(
        relyingParty: RelyingParty, store: any PasskeyStore, challengeSource: any ChallengeSource = SystemChallengeSource(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.current = RelyingPartyBox(relyingParty)
        self.store = store
        self.keyCache = PublicKeyCache(capacity: 100_000)
        self.challengeSource = challengeSource
        self.now = now
    }

    /// Returns when the store answers now (readiness: `/readyz`).
    /// - Throws: what the store's ping throws (``StoreError`` when it cannot be reached).
    public func checkReadiness() async throws {
        try await store.ping()
    }

    /// Replaces the FIDO metadata index used by registrations that begin verifying from now on (a reloaded BLOB).
    public func replaceMetadata(_ metadata: MetadataIndex?) {
        current.withLock { $0.attestation.metadata = metadata }
    }

    /// Replaces the provider names shown with credentials from now on (a reloaded file).
    public func replaceProviderNames(_ names: ProviderNames) {
        providers.replace(names)
    }

    /// The provider of a credential, for its JSON (``ProviderNames/provider(aaguid:metadataDescription:)``).
    public func provider(for credential: StoredCredential) -> ProviderNames.Provider? {
        providers.provider(aaguid: credential.aaguid, metadataDescription: credential.attestation.authenticatorDescription)
    }

    // MARK: registration

    /// Begins a registration. A new user (by name) gets a fresh random 32-byte handle and is refused with
    /// `user_exists` when the name is taken; an existing user (by handle) keeps theirs and gets their credentials
    /// excluded, and an unknown handle is `user_unknown`. The intent is saved with the ceremony, so the finish
    /// creates or adds exactly as begun. One store call: lookup, options, insert. With ceremony keys nothing is
    /// inserted, and the lookup may be answered by the read replica (``replicaReads``).
    ///
    /// An automatic upgrade (`request.mediation == .conditional`) is only for an existing user by id (400
    /// `conditional_create_needs_user_id` otherwise; 400 `conditional_create_disabled` when the relying party turns
    /// upgrades off), under its own per-user cap (``pendingUpgradesPerUser``).
    public func beginRegistration(
        for subject: RegistrationSubject, request: RegistrationRequest
    ) async throws -> CreationOptionsJSON {
        let (relyingParty, challengeSource, now) = (self.relyingParty, self.challengeSource, now())
        let upgrade = request.mediation == .conditional
        if upgrade {
            guard relyingParty.conditionalCreate else { throw CeremonyError(.conditionalCreateDisabled, "upgrades are turned off") }
            guard case .existingUser = subject else { throw CeremonyError(.conditionalCreateNeedsUserID, "an upgrade needs an existing user by id") }
        }
        let upgradeCap = pendingUpgradesPerUser
        let ring = await sealingRing()
        let service = self
        let source: any ChallengeSource = ring == nil ? challengeSource : SealedChallengePlaceholder()
        let lookup: UserLookup = switch subject {
        case .newUser(let name, _), .nameForConformanceTesting(let name, _): .name(name)
        case .existingUser(let handle): .handle(handle)
        }
        let build: @Sendable (StoredUser?, [StoredCredential]) -> (outcome: Result<CreationOptionsJSON, any Error>, ceremony: PendingCeremony?) = {
            existing, credentials in
            Self.ceremony(Result { () throws -> (CreationOptionsJSON, PendingCeremony?) in
                let user: UserEntity
                let intent: RegistrationIntent
                let capSubject: [UInt8]
                switch (subject, existing) {
                case (.newUser, _?):
                    throw CeremonyError(.userExists, "the name is taken")
                case (.existingUser, nil):
                    throw CeremonyError(.userUnknown, "no user has this id")
                case (.newUser(let name, let displayName), nil), (.nameForConformanceTesting(let name, let displayName), nil):
                    user = try UserEntity(id: SecureRandom.bytes(count: 32), name: name, displayName: displayName)
                    intent = .newUser
                    capSubject = PendingCeremony.subject(name: name)
                case (.existingUser, let existing?), (.nameForConformanceTesting, let existing?):
                    user = try UserEntity(id: existing.handle, name: existing.name, displayName: existing.displayName)
                    intent = .existingUser
                    capSubject = upgrade ? PendingCeremony.subject(upgradeOf: existing.handle) : PendingCeremony.subject(handle: existing.handle)
                }
                let (made, state) = relyingParty.beginRegistration(
                    user: user,
                    excludeCredentials: credentials.map { CredentialDescriptor(id: $0.id, transports: $0.record.transports) },
                    request: request, challengeSource: source, now: now)
                if let ring {
                    // Stateless: the state rides in the challenge, nothing is saved.
                    var options = made
                    options.challenge = Base64URL.encode(try service.seal(
                        SealedRegistration.payload(state, intent: intent), kind: SealedRegistration.kind(state),
                        rpID: relyingParty.id, expiresAt: state.expiresAt, ring: ring, now: now))
                    return (options, nil)
                }
                return (made, PendingCeremony(
                    challenge: state.challenge, kind: .registration, userHandle: user.id, state: state.stateBytes,
                    expiresAt: state.expiresAt, intent: intent, subject: capSubject, forKnownUser: existing != nil,
                    subjectCap: upgrade ? upgradeCap : nil))
            })
        }
        // Stateless: the read replica's answer when it lets the begin go on (a free name for a sign-up, a known user for
        // an addition); a refusal (a taken name, an unknown user) is the primary's to make.
        if ring != nil, let replicaReads {
            let usable: (UserWithCredentials?) -> Bool = switch subject {
            case .newUser: { $0 == nil }
            case .existingUser: { $0 != nil }
            case .nameForConformanceTesting: { _ in false }
            }
            if case .answered(let found) = await replicaReads.read(lookup, usable: usable) {
                return try build(found?.user, found?.credentials ?? []).outcome.get()
            }
        }
        if ring != nil {
            // Stateless: one read (batched with concurrent begins' on PostgreSQL), nothing saved.
            let found = try await store.userWithCredentials(lookup)
            return try build(found?.user, found?.credentials ?? []).outcome.get()
        }
        return try await store.beginCeremony(user: lookup, build: build).get()
    }

    /// A begin's `build` result: the options, and the ceremony to save only when they were made.
    private static func ceremony<Options: Sendable>(
        _ made: Result<(Options, PendingCeremony?), any Error>
    ) -> (outcome: Result<Options, any Error>, ceremony: PendingCeremony?) {
        switch made {
        case .success(let (options, ceremony)): (.success(options), ceremony)
        case .failure(let error): (.failure(error), nil)
        }
    }

    /// Finishes a registration in one store call: consumes the ceremony (also when verification fails), verifies
    /// (no I/O), stores.
    /// The change is recorded in the audit trail under `audit` (`user.created` for a sign-up, and
    /// `credential.registered`); `createdUser` says whether this finish created the user.
    /// With `requiredUser`, only a ceremony begun for that user is finished (any other is `challenge_unknown_or_expired`,
    /// and consumed like any failed finish).
    public func finishRegistration(
        _ response: RegistrationResponseJSON, nickname: String?, audit: AuditContext, requiredUser: [UInt8]? = nil
    ) async throws -> (user: StoredUser, credential: StoredCredential, verified: VerifiedRegistration, createdUser: Bool) {
        guard let challenge = response.unverifiedChallenge else {
            throw WebAuthnError(.malformedClientData, "no readable challenge")
        }
        let (relyingParty, now) = (self.relyingParty, now())
        if challenge.count != Self.tableChallengeLength, let ring = keyRing?() {
            return try await finishSealedRegistration(
                response, challenge: challenge, nickname: nickname, audit: audit, requiredUser: requiredUser,
                relyingParty: relyingParty, ring: ring, now: now)
        }
        let trace = VerificationTrace(enabled: tracing)
        let (outcome, stored) = try await store.finishRegistration(challenge: challenge, nickname: nickname, audit: audit) { ceremony in
            let verified = Result { () throws -> (VerifiedRegistration, RegistrationIntent) in
                guard let ceremony else { throw CeremonyError(.challengeUnknown, "no pending registration") }
                if let requiredUser, ceremony.userHandle != requiredUser {
                    throw CeremonyError(.challengeUnknown, "the ceremony was begun for another user")
                }
                let state = try RegistrationState(stateBytes: ceremony.state)
                let verified = try trace.run("webauthn.verify_registration") {
                    try relyingParty.finishRegistration(response, state: state, now: now)
                }
                return (verified, ceremony.intent)
            }
            return (verified, try? verified.get().0)
        }
        let (verified, intent) = try outcome.get()
        guard let (user, credential) = stored else { throw StoreError(.unavailable, "registration not stored") }
        return (user, credential, verified, intent == .newUser)
    }

    /// The ring a begin seals with (``sealingKeyRing``, else ``keyRing``); nil: the pending-ceremony table.
    func sealingRing() async -> CeremonyKeyRing? {
        if let sealingKeyRing { return await sealingKeyRing() }
        return keyRing?()
    }

    // MARK: authentication

    /// Begins an authentication: with a user (name or id), for that user's credentials; without, a discoverable
    /// request. An unknown user gets options indistinguishable in shape from a known one's (no allowCredentials
    /// leak). `extensions` are client extension inputs passed through to the options. One store call: lookup,
    /// insert.
    public func beginAuthentication(
        user lookup: UserLookup?, userVerification: UserVerificationRequirement?, extensions: [String: JSONValue]? = nil
    ) async throws -> RequestOptionsJSON {
        let (relyingParty, challengeSource, now) = (self.relyingParty, self.challengeSource, now())
        if let ring = await sealingRing() {
            return try await beginSealedAuthentication(
                user: lookup, userVerification: userVerification, extensions: extensions, relyingParty: relyingParty,
                ring: ring, now: now)
        }
        let outcome = try await store.beginCeremony(user: lookup) { user, credentials in
            var allow = credentials.map { CredentialDescriptor(id: $0.id, transports: $0.record.transports) }
            var handle = user?.handle
            let capSubject: [UInt8]? = switch (user, lookup) {
            case (let user?, _): PendingCeremony.subject(handle: user.handle)
            case (nil, .name(let name)?): PendingCeremony.subject(name: name)
            case (nil, .handle(let unknown)?): PendingCeremony.subject(handle: unknown)
            case (nil, nil): nil
            }
            if lookup != nil, handle == nil {
                // Unknown user: a random handle that owns nothing, and one imaginary credential id.
                handle = SecureRandom.bytes(count: 32)
                allow = [CredentialDescriptor(id: SecureRandom.bytes(count: 32))]
            }
            let (options, state) = relyingParty.beginAuthentication(
                allowCredentials: allow, userHandle: handle, userVerification: userVerification, extensions: extensions,
                challengeSource: challengeSource, now: now)
            return Self.ceremony(.success((options, PendingCeremony(
                challenge: state.challenge, kind: .authentication, userHandle: handle, state: state.stateBytes,
                expiresAt: state.expiresAt, subject: capSubject, forKnownUser: user != nil))))
        }
        return try outcome.get()
    }

    /// Finishes an authentication in one store call: the store consumes the ceremony and loads the credential
    /// (first round trip), the engine verifies (no I/O), and the store applies the update (second round trip) on
    /// the same connection.
    public func finishAuthentication(
        _ response: UnverifiedAuthenticationResponse
    ) async throws -> (
        user: StoredUser?, credential: StoredCredential, verified: VerifiedAuthentication, userCredentialIDs: [[UInt8]],
        establishedUpgradeUV: Bool
    ) {
        guard let challenge = response.challenge else {
            throw WebAuthnError(.malformedClientData, "no readable challenge")
        }
        let relyingParty = self.relyingParty  // one read of the shared value per request
        let keyCache = self.keyCache
        let now = now()
        if challenge.count != Self.tableChallengeLength, let ring = keyRing?() {
            return try await finishSealedAuthentication(
                response, challenge: challenge, relyingParty: relyingParty, ring: ring, now: now)
        }
        let trace = VerificationTrace(enabled: tracing)
        let (lookup, outcome, applied) = try await store.finishAuthentication(
            challenge: challenge, credentialID: response.credentialID
        ) { lookup -> (outcome: Result<VerifiedAuthentication, any Error>, update: CredentialUpdate?) in
            let verified = Result { () throws -> VerifiedAuthentication in
                guard let ceremony = lookup.ceremony else { throw CeremonyError(.challengeUnknown, "no pending authentication") }
                guard let stored = lookup.credential else {
                    throw CeremonyError.credentialUnknown(rpID: relyingParty.id, credentialID: response.credentialID)
                }
                let state = try AuthenticationState(stateBytes: ceremony.state)
                return try trace.run("webauthn.verify_authentication") {
                    let key = try? keyCache.publicKey(coseBytes: stored.record.publicKey, policy: relyingParty.keyPolicy)
                    return try relyingParty.finishAuthentication(
                        response, state: state, credential: stored.record, publicKey: key, now: now)
                }
            }
            return (verified, try? verified.get().update)
        }
        return try Self.signedIn(
            lookup: lookup, verified: outcome.get(), applied: applied, rpID: relyingParty.id, credentialID: response.credentialID)
    }

    /// What a verified sign-in's write did, as the finish's answer (shared by the table and the sealed finishes).
    static func signedIn(
        lookup: AuthenticationLookup, verified: VerifiedAuthentication, applied: CredentialUpdateResult?, rpID: String,
        credentialID: [UInt8]
    ) throws -> (
        user: StoredUser?, credential: StoredCredential, verified: VerifiedAuthentication, userCredentialIDs: [[UInt8]],
        establishedUpgradeUV: Bool
    ) {
        // Stale means a concurrent finish with this credential raised the counter to or past this assertion's: the
        // same signal as §7.2 step 22.
        switch applied {
        case .applied(let updated)?:
            // An automatic upgrade's passkey whose first sign-in with UV=1 this is.
            let established = updated.createdBy == .conditional && updated.record.uvInitialized
                && lookup.credential?.record.uvInitialized == false
            return (lookup.user, updated, verified, lookup.userCredentialIDs, established)
        case .stale(let current)?:
            throw WebAuthnError(
                .signCountRegressed,
                "counter \(verified.update.signCount) not above \(current.record.signCount) stored by a concurrent finish")
        case .gone?, nil:
            throw CeremonyError.credentialUnknown(rpID: rpID, credentialID: credentialID)
        }
    }
}

/// Whose passkey a registration creates; the intent is decided here, at begin, and kept with the ceremony.
public enum RegistrationSubject: Sendable, Hashable {
    /// A new account with this name (a sign-up): refused with 409 `user_exists` when the name is taken.
    case newUser(name: String, displayName: String)
    /// One more passkey for the existing user with this handle, which the calling backend sends only after it has
    /// authenticated that person: 404 `user_unknown` when there is none.
    case existingUser(handle: [UInt8])
    /// The FIDO conformance binding only (off by default, never for production): a taken name adds a passkey to
    /// that user, as the conformance test plan expects (a second options request for a registered username must
    /// exclude its credential); a free name creates the user.
    case nameForConformanceTesting(name: String, displayName: String)
}

/// A relying party shared by every copy of a ``CeremonyService``.
final class RelyingPartyBox: Sendable {
    private let value: Mutex<RelyingParty>

    init(_ relyingParty: RelyingParty) { value = Mutex(relyingParty) }

    func withLock<T>(_ body: (inout RelyingParty) -> T) -> T { value.withLock { body(&$0) } }
}
