public import Foundation
public import IdentityCore

/// A provider identity attached to a user: (issuer, subject) is unique across all users.
public struct StoredIdentity: Sendable, Hashable {
    /// passkeyd's id of the link (16 random bytes; base64url in the API).
    public let id: [UInt8]
    public let userHandle: [UInt8]
    public let provider: String
    public let issuer: String
    public let subject: String
    /// The client id the last token was issued to.
    public let audience: String
    /// What the provider said at the last sign-in. Kept for the backend to show; never used to link accounts.
    public let email: String?
    public let emailVerified: Bool?
    public let isPrivateEmail: Bool?
    public let realUserStatus: Int?
    public let createdAt: Date
    public let lastUsedAt: Date?

    public init(
        id: [UInt8], userHandle: [UInt8], provider: String, issuer: String, subject: String, audience: String, email: String?,
        emailVerified: Bool?, isPrivateEmail: Bool?, realUserStatus: Int?, createdAt: Date, lastUsedAt: Date?
    ) {
        self.id = id
        self.userHandle = userHandle
        self.provider = provider
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.realUserStatus = realUserStatus
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// What an ID-token sign-in does with the verified identity, decided by the calling backend (never by the token).
public enum IdentityLink: Sendable, Hashable {
    /// Sign in the identity's user; if the identity is new, create a user for it (`name` / `displayName` from the
    /// request or the claims, `handle` fresh random bytes). A name that is taken gets a random suffix when it was
    /// made up by passkeyd (`nameIsDefault`), and is ``StoreError/Code/userExists`` when the backend chose it.
    case signInOrCreate(handle: [UInt8], name: String, displayName: String, nameIsDefault: Bool)
    /// Attach the identity to the existing user with this handle (the backend authenticated that person). If the
    /// identity already belongs to that user this is a sign-in; if it belongs to another user,
    /// ``StoreError/Code/identityLinkedElsewhere``; an unknown handle is ``StoreError/Code/userUnknown``.
    case attach(toUser: [UInt8])
}

/// The outcome of ``IdentityStore/signIn(_:link:identityID:audit:)``.
public struct IdentitySignInResult: Sendable, Hashable {
    public let user: StoredUser
    public let identity: StoredIdentity
    /// Whether this sign-in created the user.
    public let createdUser: Bool
    /// Whether this sign-in attached the identity (first use of it).
    public let linkedIdentity: Bool

    public init(user: StoredUser, identity: StoredIdentity, createdUser: Bool, linkedIdentity: Bool) {
        self.user = user
        self.identity = identity
        self.createdUser = createdUser
        self.linkedIdentity = linkedIdentity
    }
}

extension StoreError.Code {
    /// The identity is already attached to a different user than the one the backend named.
    public static let identityLinkedElsewhere = StoreError.Code(rawValue: "identity_linked_elsewhere")
}

/// Persistence of the identities attached to users. Implemented by ``InMemoryPasskeyStore`` and the PostgreSQL store,
/// beside ``PasskeyStore`` (deleting a user deletes their identities). Pending ID-token sessions are ceremonies of
/// kind ``CeremonyKind/idToken`` in the ``PasskeyStore`` (saved, taken once, capped and purged like passkey ones).
public protocol IdentityStore: Sendable {
    /// Signs the verified identity in under `link`: one atomic step (a concurrent first sign-in of one identity
    /// creates exactly one user). Records `user.created` / `identity.linked` audit events as they happen.
    func signIn(_ identity: VerifiedIdentity, link: IdentityLink, identityID: [UInt8], audit: AuditContext) async throws(StoreError) -> IdentitySignInResult
    /// A user's identities, oldest first.
    func identities(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredIdentity]
    /// Detaches an identity from its user (`identity.unlinked`): `.unknown` when the user has none with that id; with
    /// `keepingLastSignInMethod`, `.lastSignInMethod` when it is the user's only way to sign in (no passkey, no other
    /// identity), atomically as ``PasskeyStore/removeCredential(id:ofUser:keepingLastSignInMethod:audit:)``.
    func unlinkIdentity(
        id: [UInt8], ofUser handle: [UInt8], keepingLastSignInMethod: Bool, audit: AuditContext
    ) async throws(StoreError) -> SignInMethodRemoval
}

extension IdentityStore {
    /// Detaches an identity whatever else the user has (the admin API); `false` when there is none with that id.
    public func unlinkIdentity(id: [UInt8], ofUser handle: [UInt8], audit: AuditContext) async throws(StoreError) -> Bool {
        try await unlinkIdentity(id: id, ofUser: handle, keepingLastSignInMethod: false, audit: audit) == .removed
    }
}
