// Self-service (/v1/me): the signed-in person's own passkeys and identities, with their access token.

public struct MeCredentialList: Sendable, Codable, Equatable {
    /// Oldest first.
    public var credentials: [Credential]
}

public struct MeCredentialResponse: Sendable, Codable, Equatable {
    public var credential: Credential
}

public struct MeIdentityList: Sendable, Codable, Equatable {
    public var identities: [Identity]
}

public struct MeRegistrationFinishResponse: Sendable, Codable, Equatable {
    public var user: User
    public var credential: Credential
}
