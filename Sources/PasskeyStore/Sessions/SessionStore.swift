public import Foundation

/// How a session began (the first sign-in of its refresh family), kept for the admin API and the `amr` claim.
public enum SessionOrigin: String, Sendable, Hashable, CaseIterable {
    /// A passkey authentication finish.
    case passkey
    /// A passkey registration finish (when sessions are issued on registration).
    case registration
    /// An ID-token sign-in (Apple, LINE, Google, OpenID Connect).
    case idToken = "idtoken"
    /// A web view's exchange of a handoff code from a signed-in native app.
    case handoff
}

/// A session to create: the first refresh token of a new refresh family. All times come from the caller's clock.
public struct NewSession: Sendable, Hashable {
    /// 16 random bytes (the `sid` claim, base64url).
    public let id: [UInt8]
    public let userHandle: [UInt8]
    /// SHA-256 of the refresh token; the token itself is never stored.
    public let refreshHash: [UInt8]
    public let origin: SessionOrigin
    /// RFC 8176 `amr` values of the sign-in.
    public let amr: [String]
    /// When the person actually signed in (for a handoff: the native session's sign-in).
    public let authTime: Date
    public let createdAt: Date
    /// The refresh token stops working at the earlier of these two.
    public let idleExpiresAt: Date
    public let absoluteExpiresAt: Date
    /// The passkey or provider identity that started it (deleting that can revoke the session).
    public let credentialID: [UInt8]?
    public let identityID: [UInt8]?

    public init(
        id: [UInt8], userHandle: [UInt8], refreshHash: [UInt8], origin: SessionOrigin, amr: [String], authTime: Date, createdAt: Date,
        idleExpiresAt: Date, absoluteExpiresAt: Date, credentialID: [UInt8]? = nil, identityID: [UInt8]? = nil
    ) {
        self.id = id
        self.userHandle = userHandle
        self.refreshHash = refreshHash
        self.origin = origin
        self.amr = amr
        self.authTime = authTime
        self.createdAt = createdAt
        self.idleExpiresAt = idleExpiresAt
        self.absoluteExpiresAt = absoluteExpiresAt
        self.credentialID = credentialID
        self.identityID = identityID
    }
}

/// Why a session ended early.
public enum SessionRevocationReason: String, Sendable, Hashable, CaseIterable {
    /// The person signed out.
    case signOut = "sign_out"
    /// A retired refresh token was presented again: the family is treated as stolen.
    case refreshTokenReused = "refresh_token_reused"
    /// An administrator revoked it.
    case admin
    /// The passkey that started it was deleted.
    case credentialDeleted = "credential_deleted"
    /// The identity that started it was unlinked.
    case identityUnlinked = "identity_unlinked"
}

/// The `reason` of a `session.revoked` event: a ``SessionRevocationReason``'s raw value, or `user_deleted` (the
/// sessions deleted with their user; the session row is gone, so that reason is never stored on one).
public enum SessionRevokedEvent {
    public static let userDeleted = "user_deleted"
}

/// A stored session (never its refresh token).
public struct StoredSession: Sendable, Hashable {
    public let id: [UInt8]
    public let userHandle: [UInt8]
    public let origin: SessionOrigin
    public let amr: [String]
    public let authTime: Date
    public let createdAt: Date
    /// The last rotation of its refresh token; nil before the first.
    public let refreshedAt: Date?
    /// How many times the refresh token was rotated.
    public let generation: Int
    public let idleExpiresAt: Date
    public let absoluteExpiresAt: Date
    public let revokedAt: Date?
    public let revokedReason: SessionRevocationReason?
    public let credentialID: [UInt8]?
    public let identityID: [UInt8]?

    public init(
        id: [UInt8], userHandle: [UInt8], origin: SessionOrigin, amr: [String], authTime: Date, createdAt: Date, refreshedAt: Date?,
        generation: Int, idleExpiresAt: Date, absoluteExpiresAt: Date, revokedAt: Date?, revokedReason: SessionRevocationReason?,
        credentialID: [UInt8]?, identityID: [UInt8]?
    ) {
        self.id = id
        self.userHandle = userHandle
        self.origin = origin
        self.amr = amr
        self.authTime = authTime
        self.createdAt = createdAt
        self.refreshedAt = refreshedAt
        self.generation = generation
        self.idleExpiresAt = idleExpiresAt
        self.absoluteExpiresAt = absoluteExpiresAt
        self.revokedAt = revokedAt
        self.revokedReason = revokedReason
        self.credentialID = credentialID
        self.identityID = identityID
    }

    /// Active at `now`: not revoked and `now` before both expiries (a time equal to an expiry is expired).
    public func isActive(at now: Date) -> Bool {
        revokedAt == nil && now < idleExpiresAt && now < absoluteExpiresAt
    }
}

/// The outcome of presenting a refresh token (``SessionStore/rotateRefreshToken(presented:replacement:now:idleLifetime:)``).
public enum RefreshRotation: Sendable, Hashable {
    /// The presented token was the session's current one and the session active: it is retired, `replacement`
    /// is now current, the idle expiry moved to `min(now + idleLifetime, absoluteExpiresAt)`.
    case rotated(StoredSession)
    /// The presented token was retired earlier (an earlier rotation): the session is revoked now with
    /// ``SessionRevocationReason/refreshTokenReused`` (or was already revoked). Nothing is issued.
    case reused(StoredSession)
    /// The token is the current one of a session that is revoked or expired at `now`. Nothing changes.
    case inactive(StoredSession)
    /// No session knows this token.
    case unknown
}

/// A handoff code waiting for its exchange: stored only as a hash, taken once.
public struct StoredHandoff: Sendable, Hashable {
    /// SHA-256 of the code.
    public let codeHash: [UInt8]
    public let userHandle: [UInt8]
    /// The native session it was made from (nil when the backend made it with the API key).
    public let sessionID: [UInt8]?
    /// The PKCE S256 challenge (base64url, 43 characters), when the web page sent one.
    public let codeChallenge: String?
    /// `amr` and `auth_time` carried to the web view's session.
    public let amr: [String]
    public let authTime: Date
    public let createdAt: Date
    public let expiresAt: Date

    public init(
        codeHash: [UInt8], userHandle: [UInt8], sessionID: [UInt8]?, codeChallenge: String?, amr: [String], authTime: Date,
        createdAt: Date, expiresAt: Date
    ) {
        self.codeHash = codeHash
        self.userHandle = userHandle
        self.sessionID = sessionID
        self.codeChallenge = codeChallenge
        self.amr = amr
        self.authTime = authTime
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// One of passkeyd's access-token signing keys as kept in the database: the private key (PKCS#8) sealed with
/// AES-256-GCM under the key-encryption key, the `kid` as associated data. Instances share them through the store.
public struct StoredSigningKey: Sendable, Hashable {
    /// The JWK thumbprint (RFC 7638) of the public key.
    public let keyID: String
    /// The JWS `alg` (`ES256`, `EdDSA`).
    public let algorithm: String
    /// `nonce ‖ ciphertext ‖ tag` of the PKCS#8 DER.
    public let sealedPrivateKey: [UInt8]
    public let createdAt: Date
    /// Signs from this time on (published in the JWKS from ``createdAt``, so verifiers' caches have it first).
    public let activatesAt: Date
    /// Stops signing at this time (a newer key took over); nil while it is the newest.
    public let retiresAt: Date?
    /// Leaves the JWKS at this time (every token it signed has expired); nil while it signs.
    public let expiresAt: Date?

    public init(
        keyID: String, algorithm: String, sealedPrivateKey: [UInt8], createdAt: Date, activatesAt: Date, retiresAt: Date?, expiresAt: Date?
    ) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.sealedPrivateKey = sealedPrivateKey
        self.createdAt = createdAt
        self.activatesAt = activatesAt
        self.retiresAt = retiresAt
        self.expiresAt = expiresAt
    }
}

/// Sessions (refresh families), handoff codes and the access-token signing keys. Implemented by
/// ``InMemoryPasskeyStore`` and the PostgreSQL store. Deleting a user deletes their sessions and handoff codes.
/// Every revocation (by these methods, by a deletion or an unlink, and the deletion of a user's active sessions) writes
/// one `session.revoked` audit event per session it revoked, in the same atomic step, with `details` `session_id`
/// (base64url) and `reason`; a session already revoked is not revoked again and writes nothing.
/// Deleting a credential or unlinking an identity revokes the sessions it started when the store is configured to
/// (on by default), in the same atomic step as the deletion.
public protocol SessionStore: Sendable {
    /// Creates a session. `false` when the user, or the credential or identity that started it, no longer exists
    /// (deleted during the sign-in; nothing is created). A deletion that runs at the same time waits for this step and
    /// then revokes the session.
    func createSession(_ session: NewSession) async throws(StoreError) -> Bool
    /// Presents a refresh token (by hash) and, when it is current and its session active, replaces it with
    /// `replacement` in one atomic step: of concurrent presentations of one token exactly one is ``RefreshRotation/rotated(_:)``;
    /// the others find it retired (``RefreshRotation/reused(_:)``, which revokes the session).
    func rotateRefreshToken(
        presented: [UInt8], replacement: [UInt8], now: Date, idleLifetime: TimeInterval, audit: AuditContext
    ) async throws(StoreError) -> RefreshRotation
    /// The session with this id, active or not.
    func session(id: [UInt8]) async throws(StoreError) -> StoredSession?
    /// A user's sessions, newest first, including revoked and expired ones not yet purged.
    func sessions(ofUser handle: [UInt8]) async throws(StoreError) -> [StoredSession]
    /// Revokes a session by id (with `user`: only if it is that user's). `false` when there is no such session or it
    /// was already revoked.
    func revokeSession(id: [UInt8], ofUser handle: [UInt8]?, reason: SessionRevocationReason, now: Date, audit: AuditContext) async throws(StoreError) -> Bool
    /// Revokes the session whose current refresh token has this hash (sign-out with the refresh token). The
    /// session, or nil when no session has it as its current token.
    func revokeSession(refreshHash: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext) async throws(StoreError) -> StoredSession?
    /// Revokes every active session of a user; how many.
    func revokeSessions(ofUser handle: [UInt8], reason: SessionRevocationReason, now: Date, audit: AuditContext) async throws(StoreError) -> Int
    /// Keeps a handoff code. `false` when the user no longer exists.
    func saveHandoff(_ handoff: StoredHandoff) async throws(StoreError) -> Bool
    /// Takes a handoff code: returns and deletes it in one step (concurrent takes: exactly one gets it), expired or
    /// not (the caller checks the expiry, so an expired code is used up too).
    func takeHandoff(codeHash: [UInt8]) async throws(StoreError) -> StoredHandoff?
    /// Deletes sessions whose absolute expiry (or revocation) is older than `before`, with their retired tokens, and
    /// expired handoff codes; how many sessions.
    func purgeSessions(before: Date) async throws(StoreError) -> Int
    /// Every stored signing key, oldest first.
    func signingKeys() async throws(StoreError) -> [StoredSigningKey]
    /// Adds `key` unless a key was created after `unlessCreatedAfter` (another instance rotated first: `false`).
    /// Every key that still signs (`retiresAt` nil) gets `retiresAt = key.activatesAt` and
    /// `expiresAt = key.activatesAt + retiredKeyLifetime` in the same step.
    func addSigningKey(_ key: StoredSigningKey, unlessCreatedAfter: Date, retiredKeyLifetime: TimeInterval) async throws(StoreError) -> Bool
    /// Deletes keys whose `expiresAt` is before `before`; how many.
    func purgeSigningKeys(before: Date) async throws(StoreError) -> Int
}
