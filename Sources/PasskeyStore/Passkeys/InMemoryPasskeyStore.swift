public import Foundation
public import WebAuthnCore
import AppleSignedData
import COSECrypto

/// A `PasskeyStore` in memory, for tests and single-process development. Time comes from an injected clock.
public actor InMemoryPasskeyStore: PasskeyStore {
    private var users: [[UInt8]: StoredUser] = [:]
    private var credentials: [[UInt8]: StoredCredential] = [:]
    private var ceremonies: [[UInt8]: PendingCeremony] = [:]
    private var events: [AuditEvent] = []
    /// Fingerprints of used sealed challenges → when their record may go (InMemoryPasskeyStore+Sealed.swift).
    var consumedChallenges: [[UInt8]: Date] = [:]
    /// ID-token sign-in (InMemoryPasskeyStore+Identities.swift).
    var identityRecords: [[UInt8]: StoredIdentity] = [:]
    /// Provider refresh tokens and their revocation queue (InMemoryPasskeyStore+ProviderTokens.swift).
    var providerTokens: [[UInt8]: SealedProviderToken] = [:]
    var tokenRevocations: [Int64: QueuedRevocation] = [:]
    var nextRevocationID: Int64 = 0
    /// Sessions, retired refresh tokens (hash → session id), handoff codes and signing keys
    /// (InMemoryPasskeyStore+Sessions.swift).
    var sessionRecords: [[UInt8]: SessionRecord] = [:]
    var retiredRefreshTokens: [[UInt8]: [UInt8]] = [:]
    var handoffRecords: [[UInt8]: StoredHandoff] = [:]
    var signingKeyRecords: [String: StoredSigningKey] = [:]
    /// App Store purchases (original transaction → owner), transactions, renewal information and notification UUIDs
    /// (InMemoryPasskeyStore+AppStore.swift).
    var appStorePurchaseOwners: [String: [UInt8]?] = [:]
    var appStoreTransactions: [String: AppStoreTransaction] = [:]
    var appStoreRenewals: [String: AppStoreRenewalInfo] = [:]
    /// Notification UUID → when it was received.
    var appStoreNotificationIDs: [String: Date] = [:]
    /// App Attest keys by key id (InMemoryPasskeyStore+AppAttest.swift).
    var appAttestKeys: [[UInt8]: StoredAppAttestKey] = [:]
    /// Ceremony keys by key id (CeremonyKeys/InMemoryPasskeyStore+CeremonyKeys.swift).
    var ceremonyKeyRecords: [UInt32: StoredCeremonyKey] = [:]
    /// Webhook endpoints and the deliveries fanned out to them (Events/InMemoryPasskeyStore+Events.swift).
    var webhookEndpointRecords: [String: WebhookEndpointState] = [:]
    var deliveryRecords: [Int64: DeliveryRecord] = [:]
    let revokeSessionsOnDelete: Bool
    let now: @Sendable () -> Date
    private let caps: CeremonyCaps

    /// - Parameters:
    ///   - caps: bounds on pending ceremonies.
    ///   - revokeSessionsOnDelete: deleting a credential or unlinking an identity revokes the sessions it started.
    ///   - now: the clock (expiry, timestamps; the revocations of deletions).
    public init(caps: CeremonyCaps = .none, revokeSessionsOnDelete: Bool = true, now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
        self.caps = caps
        self.revokeSessionsOnDelete = revokeSessionsOnDelete
    }

    public func user(named name: String) -> StoredUser? { users.values.first { $0.name == name } }
    public func user(handle: [UInt8]) -> StoredUser? { users[handle] }
    /// Every user's handle (the App Store part finds a user by the appAccountToken derived from it).
    func allUserHandles() -> [[UInt8]] { Array(users.keys) }

    public func credentials(ofUser handle: [UInt8]) -> [StoredCredential] {
        credentials.values.filter { $0.record.userHandle == handle }.sorted { $0.createdAt < $1.createdAt }
    }

    public func saveCeremony(_ ceremony: PendingCeremony) throws(StoreError) {
        if let total = caps.total(for: ceremony), ceremonies.count >= total {
            throw StoreError(.ceremonyCapacityReached, "\(ceremonies.count) pending ceremonies")
        }
        if let limit = ceremony.subjectCap ?? caps.perSubject, let subject = ceremony.subject {
            let current = now()
            let pending = ceremonies.values.filter { $0.subject == subject && $0.expiresAt > current }.count
            guard pending < limit else { throw StoreError(.tooManyPendingCeremonies, "\(pending) pending for this user") }
        }
        ceremonies[ceremony.challenge] = ceremony
    }

    public func takeCeremony(challenge: [UInt8], kind: CeremonyKind) -> PendingCeremony? {
        guard let ceremony = ceremonies[challenge], ceremony.kind == kind else { return nil }
        ceremonies[challenge] = nil
        return ceremony.expiresAt > now() ? ceremony : nil
    }

    public func takeAuthentication(challenge: [UInt8], credentialID: [UInt8]) -> AuthenticationLookup {
        let credential = credentials[credentialID]
        return AuthenticationLookup(
            ceremony: takeCeremony(challenge: challenge, kind: .authentication), credential: credential,
            user: credential.flatMap { users[$0.record.userHandle] },
            userCredentialIDs: credential.map { credentials(ofUser: $0.record.userHandle).map(\.record.id) } ?? [])
    }

    /// Appends an audit event and fans it out to the webhook endpoints, as the PostgreSQL trigger does; a
    /// `consequence` (see ``AuditConsequences``) is also reported to the caller (this store commits at once).
    func record(
        _ kind: AuditEventKind, _ audit: AuditContext, user: [UInt8]?, credential: [UInt8]?, identity: [UInt8]? = nil,
        details: [String: String] = [:], consequence: Bool = false
    ) {
        let event = AuditEvent(
            id: Int64(events.count + 1), occurredAt: now(), kind: kind, context: audit, userHandle: user, credentialID: credential,
            identityID: identity, details: details)
        events.append(event)
        fanOut(event)
        if consequence { audit.report(WrittenEvent(kind, user: user, credential: credential, identity: identity, details: details)) }
    }

    /// Adds a user (the identity sign-in's new users); the caller checked name and handle are free.
    func insertUser(_ user: StoredUser) { users[user.handle] = user }

    public func auditEvents(_ query: AuditQuery) -> [AuditEvent] {
        events.filter { event in
            (query.userHandle.map { event.userHandle == $0 } ?? true) && (query.since.map { event.occurredAt >= $0 } ?? true)
                && (query.until.map { event.occurredAt < $0 } ?? true) && (query.after.map { event.id > $0 } ?? true)
        }.prefix(max(0, query.limit)).map { $0 }
    }

    public func register(
        _ registration: VerifiedRegistration, nickname: String?, intent: RegistrationIntent, audit: AuditContext
    ) throws(StoreError) -> (user: StoredUser, credential: StoredCredential) {
        let entity = registration.user
        let user: StoredUser
        switch intent {
        case .newUser:
            guard users[entity.id] == nil, self.user(named: entity.name) == nil else {
                throw StoreError(.userExists, "name or handle taken")
            }
            user = StoredUser(handle: entity.id, name: entity.name, displayName: entity.displayName, createdAt: now())
        case .existingUser:
            guard let existing = users[entity.id] else { throw StoreError(.userUnknown, "no user with this handle") }
            user = existing
        }
        guard credentials[registration.credentialID] == nil else {
            throw StoreError(.duplicateCredential, "credential id already registered")
        }
        users[entity.id] = user
        let credential = StoredCredential(
            record: registration.credentialRecord, algorithm: registration.algorithm.rawValue, aaguid: registration.aaguid,
            nickname: nickname, createdAt: now(), lastUsedAt: nil, attestationObject: registration.attestationObject,
            clientDataJSON: registration.clientDataJSON, attestation: StoredAttestation(registration),
            createdBy: registration.mediation, extensions: CredentialExtensionProperties(registration))
        credentials[credential.id] = credential
        if intent == .newUser { record(.userCreated, audit, user: user.handle, credential: nil) }
        record(.credentialRegistered, audit, user: user.handle, credential: credential.id)
        return (user, credential)
    }

    public func apply(_ update: CredentialUpdate) -> CredentialUpdateResult {
        guard var credential = credentials[update.credentialID] else { return .gone }
        if update.advancesCounter {
            let stored = credential.record.signCount
            // A stored counter that already reached this one: a concurrent finish got there first.
            guard stored < update.signCount || (stored == 0 && update.signCount == 0) else { return .stale(credential) }
            credential.record.signCount = update.signCount
            credential.record.backupState = update.backupState
        }
        credential.record.uvInitialized = credential.record.uvInitialized || update.uvInitialized
        credential.lastUsedAt = now()
        credentials[update.credentialID] = credential
        return .applied(credential)
    }

    public func listUsers(nameFilter: String?, limit: Int, after: String?) -> [StoredUser] {
        users.values
            .filter { user in nameFilter.map { user.name.contains($0) } ?? true }
            .filter { user in after.map { user.name > $0 } ?? true }
            .sorted { $0.name < $1.name }
            .prefix(max(0, limit))
            .map { $0 }
    }

    public func credential(id: [UInt8]) -> StoredCredential? { credentials[id] }

    public func renameCredential(id: [UInt8], nickname: String?, audit: AuditContext) -> StoredCredential? {
        guard credentials[id] != nil else { return nil }
        credentials[id]?.nickname = nickname
        record(.credentialRenamed, audit, user: credentials[id]?.record.userHandle, credential: id)
        return credentials[id]
    }

    public func createUser(handle: [UInt8], name: String, displayName: String, audit: AuditContext) throws(StoreError) -> StoredUser {
        guard users[handle] == nil, user(named: name) == nil else { throw StoreError(.userExists, "name or handle taken") }
        let user = StoredUser(handle: handle, name: name, displayName: displayName, createdAt: now())
        users[handle] = user
        record(.userCreated, audit, user: handle, credential: nil)
        return user
    }

    public func renameCredential(id: [UInt8], ofUser owner: [UInt8], nickname: String?, audit: AuditContext) -> StoredCredential? {
        guard credentials[id]?.record.userHandle == owner else { return nil }
        return renameCredential(id: id, nickname: nickname, audit: audit)
    }

    public func removeCredential(
        id: [UInt8], ofUser owner: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) -> SignInMethodRemoval {
        guard credentials[id]?.record.userHandle == owner else { return .unknown }
        if keepingLastSignInMethod, signInMethodCount(ofUser: owner) <= 1 { return .lastSignInMethod }
        return deleteCredential(id: id, audit: audit) ? .removed : .unknown
    }

    public func deleteCredential(id: [UInt8], audit: AuditContext) -> Bool {
        guard let removed = credentials.removeValue(forKey: id) else { return false }
        record(.credentialDeleted, audit, user: removed.record.userHandle, credential: id)
        revokeSessions(startedBy: .credential(id), audit: audit)
        return true
    }

    public func deleteUser(handle: [UInt8], audit: AuditContext) -> Bool {
        guard users.removeValue(forKey: handle) != nil else { return false }
        deleteAppStorePurchases(ofUser: handle)
        for credential in credentials.values where credential.record.userHandle == handle {
            record(.credentialDeleted, audit, user: handle, credential: credential.id, consequence: true)
        }
        credentials = credentials.filter { $0.value.record.userHandle != handle }
        let identities = identityRecords.values.filter({ $0.userHandle == handle }).sorted(by: { $0.createdAt < $1.createdAt })
        for identity in identities {
            record(.identityUnlinked, audit, user: handle, credential: nil, identity: identity.id, consequence: true)
        }
        queueRevocations(ofIdentities: identities.map(\.id))
        identityRecords = identityRecords.filter { $0.value.userHandle != handle }
        removeSessionsAndHandoffs(ofUser: handle, audit: audit)
        removeAppAttestKeys(ofUser: handle)
        record(.userDeleted, audit, user: handle, credential: nil, consequence: true)
        return true
    }

    public func purgeExpiredCeremonies() -> Int {
        let before = ceremonies.count
        let current = now()
        ceremonies = ceremonies.filter { $0.value.expiresAt > current }
        let consumedBefore = consumedChallenges.count
        consumedChallenges = consumedChallenges.filter { $0.value > current }
        return before - ceremonies.count + consumedBefore - consumedChallenges.count
    }

    public func ping() {}
}
