// Sessions (PASSKEYD_SESSIONS=on): refresh, sign-out, introspection, handoff to a web view, the signing keys.

extension PasskeydClient {
    /// The public keys of passkeyd's access tokens, to verify them in your backend.
    public func getSessionJWKS() async throws -> JWKS {
        try await call(.getSessionJWKS)
    }

    /// A new access token and refresh token for the session. The refresh token is single use: sending a retired one
    /// again is 401 `refresh_token_reused` and ends the session.
    public func refreshSession(refreshToken: String) async throws -> SessionResponse {
        try await call(.refreshSession, body: RefreshBody(refreshToken: refreshToken))
    }

    /// Signs a session out, by its refresh token or by an access token of it.
    public func revokeSession(refreshToken: String? = nil, accessToken: String? = nil) async throws {
        try await callWithoutAnswer(.revokeSession, bearer: accessToken, body: RefreshBody(refreshToken: refreshToken))
    }

    /// RFC 7662: whether an access token is active now (signature, expiry, session not revoked), and its claims.
    public func introspectAccessToken(_ token: String) async throws -> Introspection {
        try await call(.introspectAccessToken, body: IntrospectionBody(token: token))
    }

    /// A one-time code that hands a session over to a web view.
    /// - Parameters:
    ///   - subject: `.accessToken(_:)`: the signed-in app's session; `.user(id:)`: a user your backend vouches for
    ///     (with the API key).
    ///   - codeChallenge: the page's PKCE challenge, BASE64URL(SHA-256(verifier)); the exchange then needs the verifier.
    public func createHandoffCode(for subject: HandoffSubject, codeChallenge: String? = nil) async throws -> HandoffResponse {
        switch subject {
        case .accessToken(let token):
            try await call(.createHandoffCode, bearer: token, body: HandoffBody(codeChallenge: codeChallenge))
        case .user(let id):
            try await call(.createHandoffCode, body: HandoffBody(userId: id, codeChallenge: codeChallenge))
        }
    }

    /// Exchanges a handoff code (once) for a new session.
    /// - Parameter cookie: `true`: the refresh token in the session cookie (`Set-Cookie`) instead of the body.
    public func exchangeHandoffCode(_ code: String, codeVerifier: String? = nil, cookie: Bool? = nil) async throws -> SessionResponse {
        try await call(.exchangeHandoffCode, body: HandoffExchangeBody(code: code, codeVerifier: codeVerifier, cookie: cookie))
    }
}
