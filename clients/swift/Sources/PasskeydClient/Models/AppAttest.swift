// App Attest (PASSKEYD_APPATTEST_*): challenges, attested keys and their assertions.

public struct AppAttestChallenge: Sendable, Codable, Equatable {
    /// 32 random bytes, base64url: the app's clientDataHash is SHA-256 of its bytes.
    public var challenge: String
    public var expiresAt: String
}

/// An attested key.
public struct AppAttestKey: Sendable, Codable, Equatable {
    /// The key identifier, base64.
    public var keyId: String
    /// `TEAMID.bundle.id` the key was attested for.
    public var appId: String
    /// `production` or `development`.
    public var environment: String
    /// The highest accepted assertion counter (0 right after attestation).
    public var counter: Int
    /// The user the key is attached to, when any.
    public var userId: String?
}
