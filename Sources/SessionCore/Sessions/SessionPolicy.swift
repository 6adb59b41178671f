public import Foundation

/// What passkeyd's sessions look like: a value with safe defaults, checked once (``validated()``).
public struct SessionPolicy: Sendable, Hashable {
    /// The access token's `iss` (and what its verifiers compare with).
    public var issuer: String
    /// The access token's `aud`: one value is written as a string, several as an array.
    public var audiences: [String]
    /// Access tokens live this long (`exp - iat`). Default 10 minutes.
    public var accessTokenLifetime: TimeInterval = 600
    /// A refresh token unused this long stops working (each refresh starts the idle period again). Default 30 days.
    public var refreshIdleLifetime: TimeInterval = 30 * 86_400
    /// No refresh works this long after the session's sign-in, however often it is refreshed. Default 90 days.
    public var refreshAbsoluteLifetime: TimeInterval = 90 * 86_400
    /// A handoff code lives this long: 1-60 s. Default 30 s.
    public var handoffLifetime: TimeInterval = 30
    /// The signing algorithm of new keys: ES256 (default) or EdDSA.
    public var signingAlgorithm: SessionSigningAlgorithm = .es256

    public init(issuer: String, audiences: [String]) {
        self.issuer = issuer
        self.audiences = audiences
    }

    /// The policy, or why it cannot work.
    public func validated() throws(SessionPolicyError) -> SessionPolicy {
        guard !issuer.isEmpty else { throw SessionPolicyError("the issuer is empty") }
        guard !audiences.isEmpty, audiences.allSatisfy({ !$0.isEmpty }) else { throw SessionPolicyError("no audience") }
        guard accessTokenLifetime >= 1, accessTokenLifetime <= 86_400 else {
            throw SessionPolicyError("the access token lifetime must be 1 s to 24 h")
        }
        guard refreshIdleLifetime >= 60, refreshAbsoluteLifetime >= refreshIdleLifetime else {
            throw SessionPolicyError("the refresh idle lifetime must be at least 60 s and at most the absolute lifetime")
        }
        guard handoffLifetime >= 1, handoffLifetime <= 60 else { throw SessionPolicyError("the handoff lifetime must be 1-60 s") }
        return self
    }
}

/// A session policy that cannot work (configuration).
public struct SessionPolicyError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The JWS algorithms passkeyd signs its access tokens with.
public enum SessionSigningAlgorithm: String, Sendable, Hashable, CaseIterable {
    case es256 = "ES256"
    case edDSA = "EdDSA"
}

/// How the person signed in, for the access token's `amr` (RFC 8176) and the admin API.
public enum SignInMethod: Sendable, Hashable {
    /// A passkey assertion (or a registration, when sessions are issued on registration).
    case passkey(userVerified: Bool, backupEligible: Bool)
    /// A provider's ID token (the configured provider name).
    case idToken(provider: String)

    /// RFC 8176 values. A passkey: `hwk` (a device-bound key) or `swk` (a synced, backup-eligible key: the key is
    /// not confined to one device's hardware), `user` (user presence), and `mfa` when the authenticator verified
    /// the user (possession plus PIN or biometric). An ID token: `fed` (federated sign-in; not in the IANA registry,
    /// which has no value for it, as RFC 8176 §2 permits).
    public var amr: [String] {
        switch self {
        case .passkey(let userVerified, let backupEligible):
            [backupEligible ? "swk" : "hwk", "user"] + (userVerified ? ["mfa"] : [])
        case .idToken:
            ["fed"]
        }
    }
}
