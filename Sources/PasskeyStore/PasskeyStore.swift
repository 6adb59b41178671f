import COSECrypto
public import Foundation
public import PasskeyErrors
public import WebAuthnCore

/// An account.
public struct StoredUser: Sendable, Hashable {
    /// The WebAuthn user handle (1...64 random bytes).
    public let handle: [UInt8]
    public let name: String
    public let displayName: String
    public let createdAt: Date

    public init(handle: [UInt8], name: String, displayName: String, createdAt: Date) {
        self.handle = handle
        self.name = name
        self.displayName = displayName
        self.createdAt = createdAt
    }
}

/// A registered credential with its bookkeeping.
public struct StoredCredential: Sendable, Hashable {
    /// What the engine needs to verify assertions.
    public var record: CredentialRecord
    public var algorithm: Int
    public var aaguid: [UInt8]
    public var nickname: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The raw attestation object and clientDataJSON from registration (audit, re-verification); nil when the read
    /// did not load them (the authentication path leaves these kilobytes in the database).
    public var attestationObject: [UInt8]?
    public var clientDataJSON: [UInt8]?
    /// What registration proved about the authenticator.
    public var attestation: StoredAttestation
    /// `.conditional` when an automatic upgrade created it (UP and UV may have been 0; `record.uvInitialized` says
    /// whether UV has been established since); nil for a normal registration.
    public var createdBy: CredentialMediation?
    /// What the registration's client extension results said about the credential.
    public var extensions: CredentialExtensionProperties

    public var id: [UInt8] { record.id }

    public init(
        record: CredentialRecord, algorithm: Int, aaguid: [UInt8], nickname: String?, createdAt: Date, lastUsedAt: Date?,
        attestationObject: [UInt8]?, clientDataJSON: [UInt8]?, attestation: StoredAttestation = .none,
        createdBy: CredentialMediation? = nil, extensions: CredentialExtensionProperties = .init()
    ) {
        self.attestation = attestation
        self.createdBy = createdBy
        self.extensions = extensions
        self.record = record
        self.algorithm = algorithm
        self.aaguid = aaguid
        self.nickname = nickname
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.attestationObject = attestationObject
        self.clientDataJSON = clientDataJSON
    }
}

/// The client extension outputs registration records (each nil when the client did not report it): `credProps.rk`,
/// `prf.enabled`, `largeBlob.supported`. PRF outputs and large blobs are never stored.
public struct CredentialExtensionProperties: Sendable, Hashable {
    public var discoverable: Bool?
    public var prfEnabled: Bool?
    public var largeBlobSupported: Bool?

    public init(discoverable: Bool? = nil, prfEnabled: Bool? = nil, largeBlobSupported: Bool? = nil) {
        self.discoverable = discoverable
        self.prfEnabled = prfEnabled
        self.largeBlobSupported = largeBlobSupported
    }

    /// What a verified registration reported.
    public init(_ registration: VerifiedRegistration) {
        self.init(
            discoverable: registration.discoverable, prfEnabled: registration.prfEnabled,
            largeBlobSupported: registration.largeBlobSupported)
    }
}

/// The attestation verdict stored with a credential: what registration could prove about the authenticator.
public struct StoredAttestation: Sendable, Hashable {
    /// The §6.5.4 attestation type: `none`, `self`, `basic`, `attca`, `anonca`.
    public var type: String
    /// `none`, `self`, `untrusted` (a chain reaching no configured or metadata root) or `trusted`.
    public var trust: String
    /// The subject of the root the chain ends at, when trusted.
    public var trustAnchor: String?
    /// The authenticator's description from FIDO metadata, when it was known at registration.
    public var authenticatorDescription: String?

    public init(type: String, trust: String, trustAnchor: String? = nil, authenticatorDescription: String? = nil) {
        self.type = type
        self.trust = trust
        self.trustAnchor = trustAnchor
        self.authenticatorDescription = authenticatorDescription
    }

    /// No attestation (also what credentials stored before verdicts were kept read as).
    public static let none = StoredAttestation(type: "none", trust: "none")

    /// The verdict of a verified registration.
    public init(_ registration: VerifiedRegistration) {
        let trust: String
        var anchor: String?
        switch registration.attestationTrust {
        case .none: trust = "none"
        case .selfAttested: trust = "self"
        case .untrusted: trust = "untrusted"
        case .trusted(let subject):
            trust = "trusted"
            anchor = subject
        }
        self.init(
            type: registration.attestationType.rawValue, trust: trust, trustAnchor: anchor,
            authenticatorDescription: registration.attestationVerdict.authenticatorDescription)
    }
}

/// Which ceremony a pending challenge belongs to.
public enum CeremonyKind: String, Sendable, Hashable, Codable {
    case registration, authentication
    /// A pending ID-token sign-in (the challenge is the session id; the state is the provider and the nonce): the
    /// same single-use row, caps and purge as a passkey ceremony, and a passkey challenge is never a session.
    case idToken = "idtoken"
    /// An App Attest challenge (`POST /v1/appattest/challenge`): the challenge is the row's key, the state is empty;
    /// taken once by the attestation or assertion that names it.
    case appAttest = "appattest"
}

/// What a registration does with its user, decided at begin and kept with the ceremony (never taken from the
/// finish request).
public enum RegistrationIntent: String, Sendable, Hashable {
    /// Creates the user: a name (or handle) that is taken by then is ``StoreError/Code/userExists`` and nothing is
    /// written. Two sign-ups of one new name: the database's unique constraint lets exactly one through.
    case newUser = "new_user"
    /// Adds a passkey to the user with the ceremony's handle, who must still exist (``StoreError/Code/userUnknown``
    /// otherwise); never creates one.
    case existingUser = "existing_user"
}

/// A begun ceremony waiting for its finish: keyed by its challenge, single use, expiring.
public struct PendingCeremony: Sendable, Hashable {
    public let challenge: [UInt8]
    public let kind: CeremonyKind
    /// The user the ceremony is for, when known.
    public let userHandle: [UInt8]?
    /// The engine's state value, encoded by the caller (`RegistrationState` / `AuthenticationState`).
    public let state: [UInt8]
    public let expiresAt: Date
    /// Registration: whether the finish creates the user or adds to an existing one. Authentication: unused
    /// (`.existingUser`).
    public let intent: RegistrationIntent
    /// Whom the ceremony is for, for the per-user cap on pending ceremonies (``CeremonyCaps``): see
    /// ``PendingCeremony/subject(handle:)`` and ``PendingCeremony/subject(name:)``; nil for a discoverable sign-in.
    public let subject: [UInt8]?
    /// For a user who exists (a named sign-in, a passkey added by id): may use the part of the global cap held back
    /// from anonymous begins (``CeremonyCaps/anonymousTotal``), so a flood of anonymous begins does not lock them out.
    public let forKnownUser: Bool
    /// The cap on unexpired ceremonies of this ``subject``, instead of ``CeremonyCaps/perSubject`` (automatic upgrades
    /// have their own subject per user and their own, smaller cap).
    public let subjectCap: Int?

    public init(
        challenge: [UInt8], kind: CeremonyKind, userHandle: [UInt8]?, state: [UInt8], expiresAt: Date,
        intent: RegistrationIntent = .existingUser, subject: [UInt8]? = nil, forKnownUser: Bool = false, subjectCap: Int? = nil
    ) {
        self.subjectCap = subjectCap
        self.subject = subject
        self.forKnownUser = forKnownUser
        self.challenge = challenge
        self.kind = kind
        self.userHandle = userHandle
        self.state = state
        self.expiresAt = expiresAt
        self.intent = intent
    }
}

extension PendingCeremony {
    /// The subject of a known user's ceremonies, however the request named them.
    public static func subject(handle: [UInt8]) -> [UInt8] { Digest.sha256(Array("u:".utf8) + handle) }
    /// The subject of a sign-up or of an unknown name's sign-in.
    public static func subject(name: String) -> [UInt8] { Digest.sha256(Array("n:\(name)".utf8)) }
    /// The subject of a known user's automatic-upgrade ceremonies (counted apart from their other ceremonies).
    public static func subject(upgradeOf handle: [UInt8]) -> [UInt8] { Digest.sha256(Array("g:".utf8) + handle) }
}

/// Bounds on pending ceremonies, enforced by the store when it saves one.
public struct CeremonyCaps: Sendable, Hashable {
    /// Unexpired ceremonies per subject (user); past it a begin is ``StoreError/Code/tooManyPendingCeremonies``.
    public var perSubject: Int?
    /// Ceremonies in the table, expired or not; past it a begin is ``StoreError/Code/ceremonyCapacityReached``.
    /// Begins that name no existing user (discoverable sign-ins, unknown names, sign-ups) stop at
    /// ``anonymousTotal``: the last tenth is held for users who exist, who are bounded by ``perSubject`` each.
    public var total: Int?

    /// Where begins without a known user stop: 90 % of ``total``.
    public var anonymousTotal: Int? { total.map { $0 - max(1, $0 / 10) } }

    /// The cap that applies to `ceremony`.
    public func total(for ceremony: PendingCeremony) -> Int? { ceremony.forKnownUser ? total : anonymousTotal }

    public init(perSubject: Int? = nil, total: Int? = nil) {
        self.perSubject = perSubject
        self.total = total
    }

    /// No caps.
    public static let none = CeremonyCaps()
}

/// Who asked for a change, recorded with its audit event.
public struct AuditContext: Sendable, Hashable {
    /// The request's id (the same as in its log lines).
    public var requestID: String?
    /// `api:<fingerprint>`, `admin:<fingerprint>` (first 16 hex digits of SHA-256 of the key), `api:open`, `demo`,
    /// `conformance`, or a tool's name.
    public var actor: String
    /// The client's address as the rate limits see it.
    public var clientAddress: String?

    public init(requestID: String? = nil, actor: String, clientAddress: String? = nil) {
        self.requestID = requestID
        self.actor = actor
        self.clientAddress = clientAddress
    }

    /// For calls outside a request (tests, tools).
    public static let system = AuditContext(actor: "system")
}

/// What an audit event records.
public enum AuditEventKind: String, Sendable, Hashable, CaseIterable {
    case userCreated = "user.created"
    case userDeleted = "user.deleted"
    case credentialRegistered = "credential.registered"
    case credentialRenamed = "credential.renamed"
    case credentialDeleted = "credential.deleted"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
}

/// One row of the append-only audit trail.
public struct AuditEvent: Sendable, Hashable {
    /// Increasing with time; the paging cursor.
    public let id: Int64
    public let occurredAt: Date
    public let kind: AuditEventKind
    public let context: AuditContext
    public let userHandle: [UInt8]?
    public let credentialID: [UInt8]?
    /// The provider identity an `identity.*` event is about.
    public let identityID: [UInt8]?

    public init(
        id: Int64, occurredAt: Date, kind: AuditEventKind, context: AuditContext, userHandle: [UInt8]?, credentialID: [UInt8]?,
        identityID: [UInt8]? = nil
    ) {
        self.id = id
        self.occurredAt = occurredAt
        self.kind = kind
        self.context = context
        self.userHandle = userHandle
        self.credentialID = credentialID
        self.identityID = identityID
    }
}

/// Which audit events to list: all filters optional; ordered by id, after the cursor `after`.
public struct AuditQuery: Sendable, Hashable {
    public var userHandle: [UInt8]?
    public var since: Date?
    public var until: Date?
    public var after: Int64?
    public var limit: Int

    public init(userHandle: [UInt8]? = nil, since: Date? = nil, until: Date? = nil, after: Int64? = nil, limit: Int = 50) {
        self.userHandle = userHandle
        self.since = since
        self.until = until
        self.after = after
        self.limit = limit
    }
}

/// How a begin names its user.
public enum UserLookup: Sendable, Hashable {
    /// By name: what a sign-up form or a username sign-in gives.
    case name(String)
    /// By user handle (the id the API shows): what a backend sends for a person it has authenticated.
    case handle([UInt8])
}

/// What authentication finish loads in one step.
public struct AuthenticationLookup: Sendable, Hashable {
    /// The taken ceremony; nil if unknown, expired or already used.
    public let ceremony: PendingCeremony?
    /// The asserted credential; nil if not registered.
    public let credential: StoredCredential?
    /// The credential's owner.
    public let user: StoredUser?
    /// The ids of all the owner's credentials (this one included), oldest first, as read with the credential: what a
    /// successful sign-in tells the client to keep (the Signal API's `signalAllAcceptedCredentials`). Empty when
    /// the credential is unknown.
    public let userCredentialIDs: [[UInt8]]

    public init(ceremony: PendingCeremony?, credential: StoredCredential?, user: StoredUser?, userCredentialIDs: [[UInt8]] = []) {
        self.ceremony = ceremony
        self.credential = credential
        self.user = user
        self.userCredentialIDs = userCredentialIDs
    }
}

/// What a self-service removal of a sign-in method did.
public enum SignInMethodRemoval: Sendable, Hashable {
    case removed
    /// No such credential or identity of this user (another user's is the same: no existence oracle).
    case unknown
    /// Refused: it is the user's only way to sign in.
    case lastSignInMethod
}

/// What ``PasskeyStore/apply(_:)`` did.
public enum CredentialUpdateResult: Sendable, Hashable {
    /// Written; the credential as stored afterwards.
    case applied(StoredCredential)
    /// Not written: the stored counter had already reached the update's (a concurrent finish). The credential as
    /// it was read.
    case stale(StoredCredential)
    /// The credential no longer exists.
    case gone

    /// The stored credential, if any.
    public var credential: StoredCredential? {
        switch self {
        case .applied(let credential), .stale(let credential): credential
        case .gone: nil
        }
    }
}

/// The one error type of the storage layer; equality compares only the code.
public struct StoreError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The credential id is already registered (to any user): §7.1 step 26.
        public static let duplicateCredential = Code(rawValue: "credential_already_registered")
        /// A registration meant to create its user found the name (or handle) taken: by an earlier account, or by
        /// a concurrent sign-up of the same new name that committed first.
        public static let userExists = Code(rawValue: "user_exists")
        /// A registration meant to add a passkey to an existing user found no such user (deleted meanwhile).
        public static let userUnknown = Code(rawValue: "user_unknown")
        /// The user named by a begin already has the configured number of pending ceremonies.
        public static let tooManyPendingCeremonies = Code(rawValue: "too_many_pending_ceremonies")
        /// The ceremony table holds the configured maximum; begins are refused until the purge frees room.
        public static let ceremonyCapacityReached = Code(rawValue: "ceremony_capacity_reached")
        /// A finish found its ceremony, verified, and then lost it to a concurrent finish of the same challenge that
        /// consumed it first: nothing was written. Clients see it as any used challenge.
        public static let ceremonyTaken = Code(rawValue: "challenge_unknown_or_expired")
        /// The database cannot be reached or failed; the operation did not happen.
        public static let unavailable = Code(rawValue: "storage_unavailable")
    }

    public let code: Code
    /// Detail for logs only.
    public let reason: String

    public init(_ code: Code, _ reason: String = "") {
        self.code = code
        self.reason = reason
    }

    public var description: String { code.rawValue }
}

/// Persistence for users, credentials and pending ceremonies. Implementations: ``InMemoryPasskeyStore`` (tests,
/// single-process development) and the PostgreSQL store (any number of instances sharing one database).
///
/// Every method is atomic. Single use and expiry of ceremonies are the store's job: a ceremony is returned by
/// `take…` at most once, and never after it expired.
public protocol PasskeyStore: Sendable {
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
    /// Deletes expired ceremonies; returns how many.
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
