/// A provider's OAuth token and revocation endpoints (Sign in with Apple's `/auth/token` and `/auth/revoke`).
/// Implemented in the ProviderKeys module (the only network code); the HTTP layer knows only this protocol.
public protocol ProviderTokenEndpoint: Sendable {
    /// Redeems an authorization code (`grant_type=authorization_code`) issued to `clientID`.
    /// - Throws: ``ProviderTokenError``: ``ProviderTokenError/Kind/invalidGrant`` when the provider refuses the code,
    ///   ``ProviderTokenError/Kind/unavailable`` when it cannot be reached or fails.
    func exchange(code: String, clientID: String, clientSecret: String) async throws(ProviderTokenError) -> ProviderTokenGrant
    /// Revokes a refresh token (`token_type_hint=refresh_token`) issued to `clientID`.
    func revoke(token: String, clientID: String, clientSecret: String) async throws(ProviderTokenError)
}

/// What a successful code exchange returned.
public struct ProviderTokenGrant: Sendable, Hashable {
    /// The long-lived refresh token (what revocation needs).
    public let refreshToken: String
    /// The ID token of the exchange, when the provider sent one.
    public let idToken: String?

    public init(refreshToken: String, idToken: String?) {
        self.refreshToken = refreshToken
        self.idToken = idToken
    }
}

/// Why a token-endpoint call failed. ``reason`` is for logs (it never holds a code, a token or a secret).
public struct ProviderTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The provider refused the grant (OAuth `invalid_grant`): the code is unknown,
        /// expired, used, or was issued to another client. Retrying does not help.
        case invalidGrant = "invalid_grant"
        /// The provider could not be reached, timed out, answered 5xx or something unreadable. Retrying may help.
        case unavailable = "unavailable"
    }

    public let kind: Kind
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "provider token endpoint \(kind.rawValue): \(reason)" }

    public static func == (lhs: ProviderTokenError, rhs: ProviderTokenError) -> Bool { lhs.kind == rhs.kind }
}
