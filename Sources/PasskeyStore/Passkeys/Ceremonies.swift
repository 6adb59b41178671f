import COSECrypto
public import Foundation
import WebAuthnCore

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
