// Native sign-in with a provider's ID token (Sign in with Apple, Google, LINE, …).

public struct IDTokenBeginResponse: Sendable, Codable, Equatable {
    /// Opaque: send it back with the finish.
    public var session: String
    public var provider: String
    /// 256 random bits, base64url.
    public var nonce: String
    /// What the app passes to the provider SDK (the hex SHA-256 of `nonce` for Apple; `nonce` itself for others).
    public var providerNonce: String
    public var expiresAt: String
}

public struct IDTokenFinishResponse: Sendable, Codable, Equatable {
    public var user: User
    public var identity: Identity
    /// This sign-in created the user.
    public var created: Bool
    /// This sign-in attached the identity (its first use).
    public var linked: Bool
    /// With sessions on: a new session for the user.
    public var session: Session?
}

/// A provider identity linked to a user.
public struct Identity: Sendable, Codable, Equatable {
    public var id: String
    public var provider: String
    public var issuer: String
    public var subject: String
    /// As the provider said at the last sign-in; for display, never for linking.
    public var email: String?
    public var emailVerified: Bool?
    /// Apple: a private relay address.
    public var isPrivateEmail: Bool?
    /// Apple's real_user_status (0 unsupported, 1 unknown, 2 likely real).
    public var realUserStatus: Int?
    public var createdAt: String
    public var lastUsedAt: String?
}
