// Sessions (PASSKEYD_SESSIONS=on): tokens, introspection, the handoff to a web view, the signing keys.

/// A session: an access token (a JWT signed with a key of ``JWKS``) and the refresh token that renews it.
public struct Session: Sendable, Codable, Equatable {
    public var accessToken: String
    /// `Bearer`.
    public var tokenType: String
    /// Seconds until the access token's `exp`.
    public var expiresIn: Int
    /// `pkd_rt_…`; nil when it travels in the session cookie instead.
    public var refreshToken: String?
    /// Seconds the refresh token works if it is not used.
    public var refreshExpiresIn: Int
    /// The session (the same across refreshes): the `sid` claim and the admin API's id.
    public var sessionId: String
}

public struct SessionResponse: Sendable, Codable, Equatable {
    public var session: Session
}

/// RFC 7662 introspection: `active` false alone, or an active access token's claims.
public struct Introspection: Sendable, Codable, Equatable {
    public var active: Bool
    public var amr: [String]?
    public var aud: [String]?
    public var authTime: Int?
    public var exp: Int?
    public var iat: Int?
    public var iss: String?
    public var jti: String?
    /// The session id.
    public var sid: String?
    /// The user id.
    public var sub: String?
    /// `access_token`.
    public var tokenType: String?

    enum CodingKeys: String, CodingKey {
        case active, amr, aud, exp, iat, iss, jti, sid, sub
        case authTime = "auth_time"
        case tokenType = "token_type"
    }
}

/// Who a handoff code is for.
public enum HandoffSubject: Sendable, Equatable {
    /// The signed-in app's session, by its access token.
    case accessToken(String)
    /// A user your backend vouches for (with the API key): no native session needed.
    case user(id: String)
}

/// A one-time handoff code for a web view; exchange it with ``PasskeydClient/exchangeHandoffCode(_:codeVerifier:cookie:)``.
public struct HandoffResponse: Sendable, Codable, Equatable {
    /// `pkd_hc_…`.
    public var code: String
    /// Seconds the code can be exchanged.
    public var expiresIn: Int
}

/// A public key of passkeyd's access tokens (RFC 7517): P-256 for ES256, Ed25519 for EdDSA.
public struct JWK: Sendable, Codable, Equatable {
    /// `EC` or `OKP`.
    public var kty: String
    /// `P-256` or `Ed25519`.
    public var crv: String
    public var x: String
    /// EC keys only.
    public var y: String?
    /// The RFC 7638 thumbprint: the access token header's `kid`.
    public var kid: String
    /// `ES256` or `EdDSA`.
    public var alg: String
    public var use: String
}

public struct JWKS: Sendable, Codable, Equatable {
    public var keys: [JWK]
}
