public import PasskeyStore
import SessionCore

/// Signing in with a provider's ID token: ``IdentityService``'s finish, then, when sessions are on, a session for
/// the signed-in user (`origin` `idtoken`, `amr` `fed`, the identity used recorded so unlinking it revokes the session).
/// The sign-in commits before the session starts; a session that fails to start leaves the sign-in standing, so it is
/// reported apart (``SignedIn/session()``).
public struct IdentitySignIn: Sendable {
    public let identity: IdentityService
    /// nil: sessions are off (no outcome carries a session).
    public let sessions: SessionService?

    public init(identity: IdentityService, sessions: SessionService?) {
        self.identity = identity
        self.sessions = sessions
    }

    /// A finished ID-token sign-in, and the session it started with sessions on.
    public struct SignedIn: Sendable {
        public let user: StoredUser
        public let identity: StoredIdentity
        /// Whether this sign-in created the user.
        public let createdUser: Bool
        /// Whether this sign-in attached the identity (its first use).
        public let linkedIdentity: Bool
        let started: Result<SessionService.Issued, any Error>?

        /// The session this sign-in started; nil with sessions off. Throws what starting it threw (the sign-in itself
        /// is stored either way, so a caller records it first, then asks).
        public func session() throws -> SessionService.Issued? { try started?.get() }
    }

    /// ``IdentityService/finish(sessionID:provider:token:link:authorizationCode:audit:)``, then the session.
    /// - Throws: what the finish throws; never a session's failure (see ``SignedIn/session()``).
    public func finish(
        sessionID: [UInt8], provider: String, token: [UInt8], link: IdentityLinkRequest, authorizationCode: String? = nil,
        audit: AuditContext
    ) async throws -> SignedIn {
        let result = try await identity.finish(
            sessionID: sessionID, provider: provider, token: token, link: link, authorizationCode: authorizationCode, audit: audit)
        var started: Result<SessionService.Issued, any Error>?
        if let sessions {
            started = await sessions.start(
                signedInWith: .idToken(provider: provider), user: result.user.handle, origin: .idToken, identityID: result.identity.id)
        }
        return SignedIn(
            user: result.user, identity: result.identity, createdUser: result.createdUser, linkedIdentity: result.linkedIdentity,
            started: started)
    }
}
