import PasskeyApp
import HTTPTypes
import Hummingbird
import NIOCore
import PasskeyStore
import SessionCore
import WebAuthnModel

/// Sessions (present with `PASSKEYD_SESSIONS=on`):
///
///     GET  /.well-known/jwks.json       public keys of the access tokens (public, cached 5 minutes)
///     POST /v1/sessions/refresh         {"refreshToken"} or the cookie → a new session answer (public)
///     POST /v1/sessions/revoke          {"refreshToken"}, the cookie, or Bearer access token → 204 (public)
///     POST /v1/sessions/introspect      {"token"} → RFC 7662 answer (API key)
///     POST /v1/handoff                  Bearer access token {"codeChallenge"?}, or API key {"userId", "codeChallenge"?}
///     POST /v1/handoff/exchange         {"code", "codeVerifier"?, "cookie"?} → a new session (public)
func addSessionRoutes(to router: Router<PasskeyRequestContext>, api: API, service: SessionService) {
    api.route(router, .sessionJWKS) { _, _, _ in
        let bytes = try await service.jwks()
        return Response(
            status: .ok,
            headers: [.contentType: "application/jwk-set+json", .cacheControl: "public, max-age=\(SessionKeys.jwksMaxAge)"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
    api.route(router, .sessionRefresh) { request, body, _ in
        let (token, fromCookie) = try api.refreshToken(body, request: request, cookie: service.cookie)
        do {
            let issued = try await service.refresh(token, audit: RequestScope.audit)
            return api.sessionResponse(issued, status: .ok, cookie: fromCookie ? service.cookie : nil)
        } catch let error as SessionError where fromCookie {
            // A dead cookie is cleared, so the page stops sending it.
            var response = api.failure(APIError(error))
            response.headers[.setCookie] = service.cookie.cleared()
            return response
        }
    }
    api.route(router, .sessionRevoke) { request, body, _ in
        if let bearer = API.bearer(request), body.isEmpty || (try? api.object(body))?.isEmpty == true {
            if try await service.signOut(accessToken: bearer, audit: RequestScope.audit) {
                RequestScope.log(.sessionRevoked, user: nil, details: ["reason": SessionRevocationReason.signOut.rawValue])
            }
        } else {
            let (token, fromCookie) = try api.refreshToken(body, request: request, cookie: service.cookie)
            do {
                if try await service.signOut(refreshToken: token, audit: RequestScope.audit) {
                    RequestScope.log(.sessionRevoked, user: nil, details: ["reason": SessionRevocationReason.signOut.rawValue])
                }
            } catch let error as SessionError where fromCookie && error.code == .refreshTokenMalformed {
                // A cookie that is not a refresh token: nothing to revoke; it is cleared below (RFC 7009: an
                // invalid token is not an error of a revocation).
            }
        }
        // As RFC 7009: the same answer whether the session was active, so the call reveals nothing.
        var response = Response(status: .noContent)
        response.headers[.setCookie] = service.cookie.cleared()
        return response
    }
    api.route(router, .sessionIntrospect) { _, body, _ in
        guard case .string(let token)? = try api.object(body)["token"] else {
            throw APIError(status: 400, code: "malformed_json", message: "token is required.")
        }
        return api.rawJSON(status: .ok, API.introspection(await service.introspect(token)))
    }
    api.route(router, .handoffCreate) { request, body, _ in try await api.handoff(body, request: request, service: service) }
    api.route(router, .handoffExchange) { _, body, _ in
        let members = try api.object(body)
        guard case .string(let code)? = members["code"] else {
            throw APIError(status: 400, code: "malformed_json", message: "code is required.")
        }
        var verifier: String?
        switch members["codeVerifier"] {
        case nil, .null?: break
        case .string(let text)?: verifier = text
        default: throw APIError(status: 400, code: "malformed_json", message: "codeVerifier must be a string.")
        }
        var useCookie = false
        switch members["cookie"] {
        case nil, .null?: break
        case .bool(let flag)?: useCookie = flag
        default: throw APIError(status: 400, code: "malformed_json", message: "cookie must be true or false.")
        }
        let issued = try await service.exchange(code: code, verifier: verifier)
        return api.sessionResponse(issued, status: .ok, cookie: useCookie ? service.cookie : nil)
    }
}


extension API {
    /// The bearer value of the Authorization header.
    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst("Bearer ".count))
    }

    /// The refresh token of a refresh or sign-out: `{"refreshToken"}` in the body, else the session cookie.
    func refreshToken(_ body: [UInt8], request: Request, cookie: SessionCookie) throws -> (token: String, fromCookie: Bool) {
        let members = body.isEmpty ? [:] : try object(body)
        switch members["refreshToken"] {
        case .string(let token)?: return (token, false)
        case nil, .null?:
            if let token = Self.cookie(named: cookie.name, in: request.headers) { return (token, true) }
            throw APIError(status: 400, code: "malformed_json", message: "refreshToken is required (or the session cookie).")
        default: throw APIError(status: 400, code: "malformed_json", message: "refreshToken must be a string.")
        }
    }

    /// The value of a cookie in the request's Cookie headers.
    static func cookie(named name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }

    /// `{"session": {...}}`, the refresh token in a cookie instead of the body when asked.
    func sessionResponse(_ issued: SessionService.Issued, status: HTTPResponse.Status, cookie: SessionCookie?) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("session"); SessionJSON(issued).write(to: &writer, includeRefreshToken: cookie == nil)
        writer.endObject()
        var response = rawJSON(status: status, writer.bytes)
        if let cookie { response.headers[.setCookie] = cookie.set(issued.refreshToken, maxAge: issued.refreshExpiresIn) }
        return response
    }

    /// RFC 7662: `{"active": false}` for anything not active; for an access token whose session is active, its claims.
    static func introspection(_ active: (claims: AccessTokenClaims, session: StoredSession)?) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        if let (claims, session) = active {
            writer.key("active"); writer.bool(true)
            writer.key("amr"); writer.beginArray(); for value in claims.amr { writer.string(value) }; writer.endArray()
            writer.key("aud"); writer.beginArray(); for value in claims.audiences { writer.string(value) }; writer.endArray()
            writer.key("auth_time"); writer.integer(Int(claims.authTime))
            writer.key("exp"); writer.integer(Int(claims.expiresAt))
            writer.key("iat"); writer.integer(Int(claims.issuedAt))
            writer.key("iss"); writer.string(claims.issuer)
            writer.key("jti"); writer.string(claims.tokenID)
            writer.key("sid"); writer.string(claims.sessionID)
            writer.key("sub"); writer.string(Base64URL.encode(session.userHandle))
            writer.key("token_type"); writer.string("access_token")
        } else {
            writer.key("active"); writer.bool(false)
        }
        writer.endObject()
        return writer.bytes
    }

    /// `POST /v1/handoff`: with an API key (or with none configured) for `{"userId"}`, otherwise for the user of the
    /// bearer access token, whose session must be active.
    func handoff(_ body: [UInt8], request: Request, service: SessionService) async throws -> Response {
        let members = body.isEmpty ? [:] : try object(body)
        var challenge: String?
        switch members["codeChallenge"] {
        case nil, .null?: break
        case .string(let text)?: challenge = text
        default: throw APIError(status: 400, code: "malformed_json", message: "codeChallenge must be a string.")
        }
        switch members["codeChallengeMethod"] {
        case nil, .null?, .string("S256")?: break
        default: throw APIError(status: 400, code: "malformed_json", message: "codeChallengeMethod must be S256 (plain is not accepted).")
        }
        let result: (code: String, expiresIn: Int)
        switch members["userId"] {
        case .string(let userText)?:
            // The backend speaks for the user: its API key is required whenever keys are configured, and its
            // per-key rate limit applies as on the ceremony routes.
            if let key = try authorize(request, .ceremony) { try RateLimiter.check(limiter.perAPIKey, "key\(key)", scope: "api_key") }
            guard let handle = Base64URL.decode(userText), (1...64).contains(handle.count) else {
                throw APIError(status: 400, code: "malformed_json", message: "userId must be a user id (base64url).")
            }
            result = try await service.createHandoff(forUser: handle, codeChallenge: challenge)
        case nil, .null?:
            guard let bearer = Self.bearer(request) else {
                throw APIError(status: 401, code: "unauthorized", message: "A Bearer access token (or the API key with userId) is required.")
            }
            result = try await service.createHandoff(accessToken: bearer, codeChallenge: challenge)
        default:
            throw APIError(status: 400, code: "malformed_json", message: "userId must be a string.")
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("code"); writer.string(result.code)
        writer.key("expiresIn"); writer.integer(result.expiresIn)
        writer.endObject()
        return rawJSON(status: .created, writer.bytes)
    }
}

extension APIError {
    init(_ error: SessionError) {
        switch error.code {
        case .accessTokenMalformed, .accessTokenAlgorithm, .accessTokenKeyUnknown, .accessTokenSignature, .accessTokenIssuer,
             .accessTokenAudience, .accessTokenExpired, .sessionRevoked:
            self.init(status: 401, code: error.code.rawValue, message: "The access token is not valid here.")
        case .refreshTokenMalformed:
            self.init(status: 400, code: error.code.rawValue, message: "This is not a refresh token.")
        case .refreshTokenUnknown, .sessionInactive:
            self.init(status: 401, code: error.code.rawValue, message: "The session has ended; sign in again.")
        case .refreshTokenReused:
            self.init(status: 401, code: error.code.rawValue, message: "This refresh token was already used; the session is revoked. Sign in again.")
        case .handoffCodeMalformed, .handoffCodeUnknown, .handoffCodeExpired:
            self.init(status: 400, code: error.code.rawValue, message: "The handoff code is unknown, used or expired.")
        case .handoffVerifierRequired, .handoffVerifierMalformed, .handoffVerifierMismatch:
            self.init(status: 400, code: error.code.rawValue, message: "The code verifier does not match the handoff code's challenge.")
        case .handoffVerifierUnexpected:
            self.init(status: 400, code: error.code.rawValue, message: "The handoff code was issued without a code challenge; a code verifier is refused.")
        default:  // a code added without a mapping of its own (ErrorCodeStatusTests pins every code's answer)
            self.init(status: 401, code: error.code.rawValue, message: "The session is not valid here.")
        }
    }
}
