import PasskeyApp
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import JOSE
import Logging
import NIOCore
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Prometheus
import SessionCore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// An in-process passkeyd with sessions on (database keys, rotated daily; refresh tokens idle for at most an hour,
/// two hours in all), the test ID-token providers, the in-memory store and a clock the test moves.
struct SessionHarness {
    static let apiKey = "session-tests-api-key-0123456789"
    static let adminKey = "session-tests-admin-key-0123456789"
    static let environment = TestIDP.environment.merging([
        "PASSKEYD_API_KEYS": apiKey, "PASSKEYD_ADMIN_KEYS": adminKey,
        "PASSKEYD_SESSIONS": "on", "PASSKEYD_SESSION_ISSUER": "https://http.passkeyd.test", "PASSKEYD_SESSION_AUDIENCES": "https://api.example",
        "PASSKEYD_SESSION_IDLE_TTL": "3600", "PASSKEYD_SESSION_MAX_TTL": "7200", "PASSKEYD_SESSION_KEY_ROTATION": "86400",
    ]) { $1 }
    let clock = TestClock()
    let store: InMemoryPasskeyStore
    let sessions: SessionService
    let registry = PrometheusCollectorRegistry()
    let app: Application<RouterResponder<PasskeyRequestContext>>

    init(issueOnRegistration: Bool = false, revokeOnDelete: Bool = true, algorithm: SessionSigningAlgorithm = .es256) async throws {
        let clock = self.clock
        let settings = try TestPasskeyd.unboundedSettings(Self.environment.merging([
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try TestFiles.keyEncryptionKey(),
            "PASSKEYD_SESSION_ALGORITHM": algorithm == .edDSA ? "EdDSA" : "ES256",
            "PASSKEYD_SESSION_ON_REGISTRATION": issueOnRegistration ? "on" : "off",
            "PASSKEYD_SESSION_REVOKE_ON_DELETE": revokeOnDelete ? "on" : "off",
        ]) { $1 })
        store = TestPasskeyd.store(for: settings, now: { clock.now })
        let passkeyd = try await TestPasskeyd.build(
            settings, store: store, now: { clock.now }, metricsFactory: PrometheusMetricsFactory(registry: registry),
            providerKeys: TestIDP.shared.providerKeys())
        sessions = try #require(passkeyd.sessions)
        app = passkeyd.http
    }

    static var api: HTTPFields { [.authorization: "Bearer \(apiKey)"] }
    static var admin: HTTPFields { [.authorization: "Bearer \(adminKey)"] }
    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// Signs up `name` and signs in with the passkey: the sign-in answer's session.
    func signIn(_ client: some TestClientProtocol, name: String) async throws -> (session: [String: Any], user: String, credential: SoftCredential) {
        var (registered, credential) = try await Flow.register(client, name: name, apiKey: Self.apiKey)
        #expect(registered.status == 201)
        #expect(registered.json["session"] == nil, "no session on registration unless configured")
        let assertion = try await Flow.assertion(client, name: name, credential: &credential, apiKey: Self.apiKey)
        let reply = try await client.post("/v1/authentication/finish", json: assertion, headers: Self.api)
        #expect(reply.status == 200)
        let session = try #require(reply.json["session"] as? [String: Any])
        let user = try #require((reply.json["user"] as? [String: Any])?["id"] as? String)
        return (session, user, credential)
    }
}

/// Verifies an access token without passkeyd's verifier: the JWKS served at /.well-known/jwks.json, the key found by
/// kid, the signature checked by OpenSSL through the wrapper; returns the claims.
func independentlyVerified(_ token: String, jwks: [UInt8]) throws -> [String: JSONValue] {
    let pieces = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    try #require(pieces.count == 3)
    guard case .object(let header) = try JSONReader.parse(try #require(Base64URL.decodeStrict(pieces[0]))),
          case .string(let kid)? = header["kid"], case .string(let alg)? = header["alg"],
          case .object(let set) = try JSONReader.parse(jwks), case .array(let keys)? = set["keys"]
    else { throw JOSEError(.malformed, "header or JWKS") }
    let jwk = try #require(keys.compactMap { key -> [String: JSONValue]? in
        guard case .object(let members) = key, members["kid"] == .string(kid) else { return nil }
        return members
    }.first)
    let publicKey = try JWK(members: jwk).publicKey
    let signature = try #require(Base64URL.decodeStrict(pieces[2]))
    let message = Array((pieces[0] + "." + pieces[1]).utf8)
    let valid = alg == "ES256"
        ? try publicKey.verify(signature: try ECDSASignatureEncoding.derFromRaw(signature), message: message, algorithm: .es256)
        : try publicKey.verify(signature: signature, message: message, algorithm: .edDSA)
    try #require(valid, "signature")
    guard case .object(let claims) = try JSONReader.parse(try #require(Base64URL.decodeStrict(pieces[1]))) else { return [:] }
    return claims
}

@Suite("Sessions over HTTP")
struct SessionHTTPTests {
    static func json(_ object: [String: Any]) throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: object)) }

    @Test("sessions off: sign-in answers carry no session and the session routes do not exist")
    func off() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            var (_, credential) = try await Flow.register(client, name: "olga")
            let assertion = try await Flow.assertion(client, name: "olga", credential: &credential)
            let reply = try await client.post("/v1/authentication/finish", json: assertion)
            #expect(reply.status == 200 && reply.json["session"] == nil)
            #expect(try await client.post("/v1/sessions/refresh", Array("{}".utf8)).status == 404)
            #expect(try await client.send(.get, "/.well-known/jwks.json").status == 404)
        }
    }

    @Test("a passkey sign-in answers a session whose access token verifies independently against the served JWKS")
    func passkeySignIn() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, user, credential) = try await harness.signIn(client, name: "alice")
            #expect(session["tokenType"] as? String == "Bearer" && session["expiresIn"] as? Int == 600)
            #expect(session["refreshExpiresIn"] as? Int == 3600)
            let refresh = try #require(session["refreshToken"] as? String)
            #expect(refresh.hasPrefix("pkd_rt_") && refresh.utf8.count == 50)

            let jwks = try await client.execute(uri: "/.well-known/jwks.json", method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=300")
                #expect(response.headers[.contentType] == "application/jwk-set+json")
                return Array(response.body.readableBytesView)
            }
            #expect(!String(decoding: jwks, as: UTF8.self).contains("\"d\""), "no private members")
            let claims = try independentlyVerified(try #require(session["accessToken"] as? String), jwks: jwks)
            let now = Int64(harness.clock.now.timeIntervalSince1970)
            #expect(claims["iss"] == .string("https://http.passkeyd.test") && claims["aud"] == .string("https://api.example"))
            let sid = try #require(session["sessionId"] as? String)
            #expect(claims["sub"] == .string(user) && claims["sid"] == .string(sid))
            #expect(claims["iat"] == .number(Double(now)) && claims["exp"] == .number(Double(now + 600)))
            #expect(claims["auth_time"] == .number(Double(now)))
            #expect(claims["amr"] == .array([.string(credential.backupEligible ? "swk" : "hwk"), .string("user"), .string("mfa")]))
            #expect(harness.registry.emitToString().contains(#"passkeyd_sessions_total{event="issued"} 1"#))
        }
    }

    @Test("with EdDSA configured, tokens are signed with Ed25519 and published as an OKP key")
    func edDSA() async throws {
        let harness = try await SessionHarness(algorithm: .edDSA)
        try await harness.app.test(.router) { client in
            let (session, user, _) = try await harness.signIn(client, name: "ed")
            let token = try #require(session["accessToken"] as? String)
            let header = try JSONReader.parse(try #require(Base64URL.decodeStrict(String(token.split(separator: ".")[0]))))
            #expect(header["alg"] == .string("EdDSA"))
            let jwks = try await client.send(.get, "/.well-known/jwks.json").body
            #expect(String(decoding: jwks, as: UTF8.self).contains(#""crv":"Ed25519""#))
            #expect(try independentlyVerified(token, jwks: jwks)["sub"] == .string(user))
        }
    }

    @Test("fixed key files: the first signs, all are published, nothing is rotated")
    func keyFiles() async throws {
        let first = try SessionSigningKey.generate(.es256, now: Date(), activatesAt: Date())
        let second = try SessionSigningKey.generate(.edDSA, now: Date(), activatesAt: Date())
        var environment = SessionHarness.environment
        environment["PASSKEYD_SESSION_KEY_ROTATION"] = nil
        environment["PASSKEYD_SESSION_KEY_FILES"] = try [first, second].map { try TestFiles.pem($0.privateKey) }.joined(separator: ",")
        let passkeyd = try await TestPasskeyd.build(
            try TestPasskeyd.unboundedSettings(environment), store: InMemoryPasskeyStore(), providerKeys: TestIDP.shared.providerKeys())
        let keys = try #require(passkeyd.sessions).keys
        #expect(try await keys.signer()?.keyID == first.keyID)
        #expect(try await keys.current().published(at: Date()).map(\.keyID).sorted() == [first.keyID, second.keyID].sorted())
        #expect(try await keys.rotateIfDue(force: true) == nil)
    }

    @Test("refresh rotates; the retired token revokes the session (reuse detection); idle expiry at the exact second")
    func refreshAndReuse() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, _, _) = try await harness.signIn(client, name: "bob")
            let first = try #require(session["refreshToken"] as? String)
            harness.clock.advance(100)
            let rotated = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": first]))
            #expect(rotated.status == 200)
            let next = try #require((rotated.json["session"] as? [String: Any])?["refreshToken"] as? String)
            #expect(next != first)
            #expect((rotated.json["session"] as? [String: Any])?["sessionId"] as? String == session["sessionId"] as? String)

            // Idle expiry is 3600 s after the last refresh: one second before it works, at it the session is over.
            harness.clock.advance(3599)
            let third = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": next]))
            #expect(third.status == 200)
            let latest = try #require((third.json["session"] as? [String: Any])?["refreshToken"] as? String)
            harness.clock.advance(3600)
            let idle = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": latest]))
            #expect(idle.status == 401 && idle.errorCode == "session_inactive")

            // A fresh session: presenting a retired token revokes it, and its current token then fails too.
            let (other, _, _) = try await harness.signIn(client, name: "bob2")
            let old = try #require(other["refreshToken"] as? String)
            let current = try #require(
                (try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": old]))).json["session"] as? [String: Any])["refreshToken"] as? String
            let reused = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": old]))
            #expect(reused.status == 401 && reused.errorCode == "refresh_token_reused")
            let afterReuse = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": try #require(current)]))
            #expect(afterReuse.status == 401 && afterReuse.errorCode == "session_inactive")
            #expect(harness.registry.emitToString().contains(#"passkeyd_sessions_total{event="reused"} 1"#))

            let unknown = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": "pkd_rt_" + String(repeating: "A", count: 43)]))
            #expect(unknown.status == 401 && unknown.errorCode == "refresh_token_unknown")
            let malformed = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": "nope"]))
            #expect(malformed.status == 400 && malformed.errorCode == "refresh_token_malformed")
            #expect(try await client.post("/v1/sessions/refresh", Array("{".utf8)).errorCode == "malformed_json")
        }
    }

    @Test("the absolute lifetime ends a session however often it is refreshed")
    func absoluteLifetime() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, _, _) = try await harness.signIn(client, name: "abe")
            var token = try #require(session["refreshToken"] as? String)
            for _ in 0..<2 {
                harness.clock.advance(3000)
                let reply = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": token]))
                #expect(reply.status == 200)
                token = try #require((reply.json["session"] as? [String: Any])?["refreshToken"] as? String)
                #expect(((reply.json["session"] as? [String: Any])?["refreshExpiresIn"] as? Int ?? 0) <= 7200 - 3000)
            }
            harness.clock.advance(1200)  // 7200 s after sign-in
            let ended = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": token]))
            #expect(ended.status == 401 && ended.errorCode == "session_inactive")
        }
    }

    @Test("concurrent refreshes with one token: exactly one succeeds")
    func concurrentRefresh() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, _, _) = try await harness.signIn(client, name: "cara")
            let token = try #require(session["refreshToken"] as? String)
            let body = try Self.json(["refreshToken": token])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await client.post("/v1/sessions/refresh", body).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1 && statuses.filter { $0 == 401 }.count == 7)
        }
    }

    @Test("sign-out with the refresh token or the access token; introspection (API key) sees it")
    func revokeAndIntrospect() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, user, _) = try await harness.signIn(client, name: "dora")
            let access = try #require(session["accessToken"] as? String)
            #expect(try await client.post("/v1/sessions/introspect", try Self.json(["token": access])).status == 401, "API key required")
            let active = try await client.post("/v1/sessions/introspect", try Self.json(["token": access]), headers: SessionHarness.api)
            #expect(active.status == 200 && active.json["active"] as? Bool == true && active.json["sub"] as? String == user)
            #expect(active.json["token_type"] as? String == "access_token" && active.json["sid"] as? String == session["sessionId"] as? String)
            let garbage = try await client.post("/v1/sessions/introspect", try Self.json(["token": "x.y.z"]), headers: SessionHarness.api)
            #expect(garbage.status == 200 && garbage.json.count == 1 && garbage.json["active"] as? Bool == false)

            let out = try await client.post("/v1/sessions/revoke", try Self.json(["refreshToken": try #require(session["refreshToken"] as? String)]))
            #expect(out.status == 204)
            let inactive = try await client.post("/v1/sessions/introspect", try Self.json(["token": access]), headers: SessionHarness.api)
            #expect(inactive.json["active"] as? Bool == false, "revoked: inactive although the JWT has not expired")
            let refresh = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": try #require(session["refreshToken"] as? String)]))
            #expect(refresh.errorCode == "session_inactive")

            // Sign-out with the access token.
            let (second, _, _) = try await harness.signIn(client, name: "dora2")
            let secondAccess = try #require(second["accessToken"] as? String)
            #expect(try await client.send(.post, "/v1/sessions/revoke", headers: SessionHarness.bearer(secondAccess)).status == 204)
            let gone = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": try #require(second["refreshToken"] as? String)]))
            #expect(gone.errorCode == "session_inactive")

            // An expired access token is inactive (exactly at exp).
            let (third, _, _) = try await harness.signIn(client, name: "dora3")
            harness.clock.advance(600)
            let expired = try await client.post("/v1/sessions/introspect", try Self.json(["token": try #require(third["accessToken"] as? String)]), headers: SessionHarness.api)
            #expect(expired.json["active"] as? Bool == false)
        }
    }

    @Test("handoff: a native session's code, exchanged once by the web page for a session of its own; PKCE, expiry, replay")
    func handoff() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, user, _) = try await harness.signIn(client, name: "erin")
            let access = try #require(session["accessToken"] as? String)
            #expect(try await client.post("/v1/handoff", Array("{}".utf8)).status == 401)
            let made = try await client.post("/v1/handoff", Array("{}".utf8), headers: SessionHarness.bearer(access))
            #expect(made.status == 201 && made.json["expiresIn"] as? Int == 30)
            let code = try #require(made.json["code"] as? String)
            #expect(code.hasPrefix("pkd_hc_"))
            let exchanged = try await client.post("/v1/handoff/exchange", try Self.json(["code": code]))
            #expect(exchanged.status == 200)
            let web = try #require(exchanged.json["session"] as? [String: Any])
            #expect(web["sessionId"] as? String != session["sessionId"] as? String, "its own refresh family")
            let jwks = try await client.send(.get, "/.well-known/jwks.json").body
            let claims = try independentlyVerified(try #require(web["accessToken"] as? String), jwks: jwks)
            let native = try independentlyVerified(access, jwks: jwks)
            #expect(claims["sub"] == .string(user) && claims["amr"] == native["amr"] && claims["auth_time"] == native["auth_time"])
            let replay = try await client.post("/v1/handoff/exchange", try Self.json(["code": code]))
            #expect(replay.status == 400 && replay.errorCode == "handoff_code_unknown")

            // PKCE: bound codes need the verifier; a wrong one uses the code up.
            let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
            func bound() async throws -> String {
                let reply = try await client.post(
                    "/v1/handoff", try Self.json(["codeChallenge": PKCE.challenge(for: verifier), "codeChallengeMethod": "S256"]),
                    headers: SessionHarness.bearer(access))
                return try #require(reply.json["code"] as? String)
            }
            let missing = try await client.post("/v1/handoff/exchange", try Self.json(["code": try await bound()]))
            #expect(missing.errorCode == "handoff_verifier_required")
            let wrongCode = try await bound()
            let wrong = try await client.post("/v1/handoff/exchange", try Self.json(["code": wrongCode, "codeVerifier": String(repeating: "x", count: 43)]))
            #expect(wrong.errorCode == "handoff_verifier_mismatch")
            #expect(try await client.post("/v1/handoff/exchange", try Self.json(["code": wrongCode, "codeVerifier": verifier])).errorCode == "handoff_code_unknown")
            let right = try await client.post("/v1/handoff/exchange", try Self.json(["code": try await bound(), "codeVerifier": verifier]))
            #expect(right.status == 200)
            let plain = try await client.post("/v1/handoff", try Self.json(["codeChallenge": verifier, "codeChallengeMethod": "plain"]), headers: SessionHarness.bearer(access))
            #expect(plain.status == 400)

            // Expiry at the exact second.
            let late = try await bound()
            harness.clock.advance(29)
            let ok = try await client.post("/v1/handoff/exchange", try Self.json(["code": late, "codeVerifier": verifier]))
            #expect(ok.status == 200)
            let expiring = try await client.post("/v1/handoff", Array("{}".utf8), headers: SessionHarness.bearer(access))
            harness.clock.advance(30)
            let expired = try await client.post("/v1/handoff/exchange", try Self.json(["code": try #require(expiring.json["code"] as? String)]))
            #expect(expired.status == 400 && expired.errorCode == "handoff_code_expired")

            // From the backend: API key and a user id.
            let fromBackend = try await client.post("/v1/handoff", try Self.json(["userId": user]), headers: SessionHarness.api)
            #expect(fromBackend.status == 201)
            let noKey = try await client.post("/v1/handoff", try Self.json(["userId": user]))
            #expect(noKey.status == 401)
            let notString = try await client.post("/v1/handoff", Array(#"{"userId":7}"#.utf8), headers: SessionHarness.bearer(access))
            #expect(notString.status == 400 && notString.errorCode == "malformed_json", "a malformed userId never falls through to the token")
            let badID = try await client.post("/v1/handoff", try Self.json(["userId": "!!"]), headers: SessionHarness.api)
            #expect(badID.status == 400 && badID.errorCode == "malformed_json")
        }
    }

    @Test("a handoff never outlives the native session: the web session ends with it, follows its passkey, and a code from an ended session hands nothing over")
    func handoffInheritsTheNativeSession() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, user, credential) = try await harness.signIn(client, name: "kim")
            harness.clock.advance(3000)
            let kept = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": try #require(session["refreshToken"] as? String)]))
            harness.clock.advance(2000)  // 5000 s after sign-in; the absolute lifetime is 7200 s
            let keptRefresh = try #require((kept.json["session"] as? [String: Any])?["refreshToken"] as? String)
            let again = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": keptRefresh]))
            let native = try #require(again.json["session"] as? [String: Any])
            #expect(native["refreshExpiresIn"] as? Int == 2200)
            let nativeAccess = try #require(native["accessToken"] as? String)
            let nativeRefresh = try #require(native["refreshToken"] as? String)
            let code = try #require((try await client.post("/v1/handoff", Array("{}".utf8), headers: SessionHarness.bearer(nativeAccess))).json["code"] as? String)
            let web = try #require((try await client.post("/v1/handoff/exchange", try Self.json(["code": code]))).json["session"] as? [String: Any])
            #expect(web["refreshExpiresIn"] as? Int == 2200, "capped at the native session's end, not a fresh 3600")
            let listed = try #require((try await client.send(.get, "/v1/admin/users/\(user)/sessions", headers: SessionHarness.admin)).json["sessions"] as? [[String: Any]])
            #expect(listed.first { $0["origin"] as? String == "handoff" }?["credentialId"] as? String == Base64URL.encode(credential.id))

            // A code whose native session is revoked before the exchange.
            let late = try #require((try await client.post("/v1/handoff", Array("{}".utf8), headers: SessionHarness.bearer(nativeAccess))).json["code"] as? String)
            #expect(try await client.post("/v1/sessions/revoke", try Self.json(["refreshToken": nativeRefresh])).status == 204)
            let refused = try await client.post("/v1/handoff/exchange", try Self.json(["code": late]))
            #expect(refused.status == 401 && refused.errorCode == "session_revoked")

            // Deleting the passkey ends the web view's session too.
            #expect(try await client.send(.delete, "/v1/admin/credentials/\(Base64URL.encode(credential.id))", headers: SessionHarness.admin).status == 204)
            let webRefresh = try #require(web["refreshToken"] as? String)
            let after = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": webRefresh]))
            #expect(after.errorCode == "session_inactive")
        }
    }

    @Test("concurrent exchanges of one code: exactly one wins")
    func concurrentExchange() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (_, user, _) = try await harness.signIn(client, name: "fay")
            let code = try #require((try await client.post("/v1/handoff", try Self.json(["userId": user]), headers: SessionHarness.api)).json["code"] as? String)
            let body = try Self.json(["code": code])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await client.post("/v1/handoff/exchange", body).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200] + Array(repeating: 400, count: 7))
        }
    }

    @Test("a web page's session in an HttpOnly, Secure, SameSite=Strict cookie; refresh and sign-out read the cookie")
    func cookie() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (_, user, _) = try await harness.signIn(client, name: "gus")
            let code = try #require((try await client.post("/v1/handoff", try Self.json(["userId": user]), headers: SessionHarness.api)).json["code"] as? String)
            let (body, cookie) = try await client.execute(
                uri: "/v1/handoff/exchange", method: .post, body: ByteBuffer(bytes: try Self.json(["code": code, "cookie": true]))
            ) { response in (Array(response.body.readableBytesView), response.headers[.setCookie] ?? "") }
            #expect(!String(decoding: body, as: UTF8.self).contains("refreshToken"), "the refresh token only in the cookie")
            #expect(cookie.hasPrefix("passkeyd_refresh=pkd_rt_") && cookie.contains("; HttpOnly") && cookie.contains("; Secure"))
            #expect(cookie.contains("; SameSite=Strict") && cookie.contains("; Path=/v1/sessions") && cookie.contains("; Max-Age=3600"))
            let value = String(cookie.split(separator: ";")[0])
            let (status, renewed) = try await client.execute(
                uri: "/v1/sessions/refresh", method: .post, headers: [.cookie: value], body: ByteBuffer(bytes: Array("{}".utf8))
            ) { response in (Int(response.status.code), response.headers[.setCookie] ?? "") }
            #expect(status == 200 && renewed.hasPrefix("passkeyd_refresh=pkd_rt_") && !renewed.hasPrefix(value + ";"))
            let (outStatus, cleared) = try await client.execute(
                uri: "/v1/sessions/revoke", method: .post, headers: [.cookie: String(renewed.split(separator: ";")[0])]
            ) { response in (Int(response.status.code), response.headers[.setCookie] ?? "") }
            #expect(outStatus == 204 && cleared.hasPrefix("passkeyd_refresh=;") && cleared.contains("Max-Age=0"))
            // A cookie that is not a refresh token is cleared by a sign-out too, not answered with an error.
            let (junkStatus, junkCleared) = try await client.execute(
                uri: "/v1/sessions/revoke", method: .post, headers: [.cookie: "passkeyd_refresh=garbage"]
            ) { response in (Int(response.status.code), response.headers[.setCookie] ?? "") }
            #expect(junkStatus == 204 && junkCleared.hasPrefix("passkeyd_refresh=;"))
        }
    }

    @Test("admin: a user's sessions, revoke one, revoke all; deleting the passkey revokes the sessions it started")
    func admin() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (first, user, credential) = try await harness.signIn(client, name: "hal")
            var signer = credential
            let assertion = try await Flow.assertion(client, name: "hal", credential: &signer, apiKey: SessionHarness.apiKey)
            let second = try #require((try await client.post("/v1/authentication/finish", json: assertion, headers: SessionHarness.api)).json["session"] as? [String: Any])
            let listed = try await client.send(.get, "/v1/admin/users/\(user)/sessions", headers: SessionHarness.admin)
            let sessions = try #require(listed.json["sessions"] as? [[String: Any]])
            #expect(sessions.count == 2 && sessions.allSatisfy { $0["active"] as? Bool == true && $0["origin"] as? String == "passkey" })
            #expect(!String(decoding: listed.body, as: UTF8.self).contains("pkd_rt_"), "never a token")
            let sid = try #require(first["sessionId"] as? String)
            #expect(try await client.send(.delete, "/v1/admin/users/\(user)/sessions/\(sid)", headers: SessionHarness.admin).status == 204)
            #expect(try await client.send(.delete, "/v1/admin/users/\(user)/sessions/\(sid)", headers: SessionHarness.admin).errorCode == "session_unknown")
            let refreshed = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": try #require(first["refreshToken"] as? String)]))
            #expect(refreshed.errorCode == "session_inactive")

            // Deleting the passkey revokes the second session (it started it).
            let credentialID = Base64URL.encode(credential.id)
            #expect(try await client.send(.delete, "/v1/admin/credentials/\(credentialID)", headers: SessionHarness.admin).status == 204)
            let afterDelete = try await client.post("/v1/sessions/refresh", try Self.json(["refreshToken": try #require(second["refreshToken"] as? String)]))
            #expect(afterDelete.errorCode == "session_inactive")
            let reasons = try #require((try await client.send(.get, "/v1/admin/users/\(user)/sessions", headers: SessionHarness.admin)).json["sessions"] as? [[String: Any]])
            #expect(Set(reasons.compactMap { $0["revokedReason"] as? String }) == ["admin", "credential_deleted"])

            let all = try await client.send(.delete, "/v1/admin/users/\(user)/sessions", headers: SessionHarness.admin)
            #expect(all.status == 200 && all.json["revoked"] as? Int == 0)
        }
    }

    @Test("key rotation: the new key is published first, signs after the publish-ahead; old tokens verify until their key leaves")
    func rotation() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let (session, _, _) = try await harness.signIn(client, name: "ivy")
            let oldToken = try #require(session["accessToken"] as? String)
            let added = try #require(try await harness.sessions.keys.rotateIfDue(force: true))
            let jwks = try await client.send(.get, "/.well-known/jwks.json").body
            #expect(String(decoding: jwks, as: UTF8.self).contains(added.keyID))
            _ = try independentlyVerified(oldToken, jwks: jwks)
            // Before the new key activates, tokens still come from the old one.
            func kid(_ token: String) throws -> JSONValue? {
                try JSONReader.parse(try #require(Base64URL.decodeStrict(String(token.split(separator: ".")[0]))))["kid"]
            }
            let (before, _, _) = try await harness.signIn(client, name: "ivy2")
            let beforeToken = try #require(before["accessToken"] as? String)
            _ = try independentlyVerified(beforeToken, jwks: jwks)
            #expect(try kid(beforeToken) == kid(oldToken) && kid(oldToken) != .string(added.keyID))
            harness.clock.advance(SessionKeys.publishAhead)
            let (after, _, _) = try await harness.signIn(client, name: "ivy3")
            let afterToken = try #require(after["accessToken"] as? String)
            #expect(try kid(afterToken) == .string(added.keyID))
            _ = try independentlyVerified(afterToken, jwks: try await client.send(.get, "/.well-known/jwks.json").body)
            // The old key stays for the access-token lifetime (+60 s) after it retired, then leaves the JWKS.
            harness.clock.advance(600 + 60)
            let later = try await client.send(.get, "/.well-known/jwks.json").body
            guard case .object(let set) = try JSONReader.parse(later), case .array(let keys)? = set["keys"] else { Issue.record("jwks"); return }
            #expect(keys.count == 1)
            let introspected = try await client.post("/v1/sessions/introspect", try Self.json(["token": oldToken]), headers: SessionHarness.api)
            #expect(introspected.json["active"] as? Bool == false)
        }
    }

    @Test("an ID-token sign-in answers a session with amr fed; registration answers one when configured")
    func otherSignIns() async throws {
        let harness = try await SessionHarness(issueOnRegistration: true)
        try await harness.app.test(.router) { client in
            let begun = try await client.post("/v1/idtoken/begin", Array(#"{"provider":"apple"}"#.utf8), headers: SessionHarness.api)
            let nonce = try #require(begun.json["providerNonce"] as? String)
            let finished = try await client.post("/v1/idtoken/finish", try Self.json([
                "session": try #require(begun.json["session"] as? String), "provider": "apple", "idToken": TestIDP.shared.token(nonce: nonce, issuedAt: harness.clock.now),
            ]), headers: SessionHarness.api)
            #expect(finished.status == 201)
            let session = try #require(finished.json["session"] as? [String: Any])
            let jwks = try await client.send(.get, "/.well-known/jwks.json").body
            let claims = try independentlyVerified(try #require(session["accessToken"] as? String), jwks: jwks)
            #expect(claims["amr"] == .array([.string("fed")]))
            #expect(claims["sub"] == .string(try #require((finished.json["user"] as? [String: Any])?["id"] as? String)))

            let (registered, _) = try await Flow.register(client, name: "jo", apiKey: SessionHarness.apiKey)
            let registration = try #require(registered.json["session"] as? [String: Any])
            _ = try independentlyVerified(try #require(registration["accessToken"] as? String), jwks: jwks)

            // An automatic upgrade's finish starts no session: nobody made a gesture (UP=0).
            let jo = try #require((registered.json["user"] as? [String: Any])?["id"] as? String)
            let upgrade = try await client.post(
                "/v1/registration/begin", try Self.json(["user": ["id": jo], "mediation": "conditional"]), headers: SessionHarness.api)
            var silent = RegistrationKnobs(origin: Harness.origin)
            silent.userPresent = false
            silent.userVerified = false
            let (response, _) = try SoftAuthenticator.register(
                options: try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(upgrade.body)).publicKey, knobs: silent)
            let upgraded = try await client.post(
                "/v1/registration/finish", json: FinishRegistration(credential: response, nickname: nil), headers: SessionHarness.api)
            #expect(upgraded.status == 201 && upgraded.json["session"] == nil)
        }
    }

    @Test("self-service identities: listed, the last method kept, unlinked once a passkey exists, another user's id 404")
    func selfServiceIdentities() async throws {
        let harness = try await SessionHarness()
        try await harness.app.test(.router) { client in
            let begun = try await client.post("/v1/idtoken/begin", Array(#"{"provider":"apple"}"#.utf8), headers: SessionHarness.api)
            let nonce = try #require(begun.json["providerNonce"] as? String)
            let finished = try await client.post("/v1/idtoken/finish", try Self.json([
                "session": try #require(begun.json["session"] as? String), "provider": "apple", "idToken": TestIDP.shared.token(nonce: nonce, issuedAt: harness.clock.now),
            ]), headers: SessionHarness.api)
            #expect(finished.status == 201)
            let token = try #require((finished.json["session"] as? [String: Any])?["accessToken"] as? String)
            let user = try #require((finished.json["user"] as? [String: Any])?["id"] as? String)
            let listed = try await client.get("/v1/me/identities", headers: SessionHarness.bearer(token))
            let identities = try #require(listed.json["identities"] as? [[String: Any]])
            let identity = try #require(identities.first?["id"] as? String)
            #expect(identities.count == 1 && identities.first?["provider"] as? String == "apple")
            let last = try await client.send(.delete, "/v1/me/identities/\(identity)", headers: SessionHarness.bearer(token))
            #expect(last.status == 409 && last.errorCode == "last_sign_in_method")

            // Another person cannot see or unlink it.
            let (other, _, _) = try await harness.signIn(client, name: "olga")
            let otherToken = try #require(other["accessToken"] as? String)
            let stolen = try await client.send(.delete, "/v1/me/identities/\(identity)", headers: SessionHarness.bearer(otherToken))
            #expect(stolen.status == 404 && stolen.errorCode == "identity_unknown")
            #expect((try await client.get("/v1/me/identities", headers: SessionHarness.bearer(otherToken))).json["identities"] as? [Any] != nil)

            // A passkey added through /v1/me, then the identity can go; its session ends with it.
            let options = try await client.post("/v1/me/registration/begin", [], headers: SessionHarness.bearer(token))
            let creation = try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(options.body)).publicKey
            let (response, _) = try SoftAuthenticator.register(options: creation, knobs: RegistrationKnobs(origin: Harness.origin))
            let added = try await client.post(
                "/v1/me/registration/finish", json: FinishRegistration(credential: response, nickname: nil), headers: SessionHarness.bearer(token))
            #expect(added.status == 201 && (added.json["user"] as? [String: Any])?["id"] as? String == user)
            #expect(try await client.send(.delete, "/v1/me/identities/\(identity)", headers: SessionHarness.bearer(token)).status == 204)
            #expect(try await harness.store.identities(ofUser: try #require(Base64URL.decode(user))).isEmpty)
            let events = try await harness.store.auditEvents(AuditQuery(userHandle: try #require(Base64URL.decode(user))))
            // The unlink, then the revocation of the session the identity started (same actor, same transaction).
            #expect(events.suffix(2).map(\.kind) == [.identityUnlinked, .sessionRevoked])
            #expect(events.suffix(2).allSatisfy { $0.context.actor == "user:" + user })
            #expect(events.last?.details["reason"] == "identity_unlinked")
            #expect(try await client.get("/v1/me/identities", headers: SessionHarness.bearer(token)).errorCode == "session_revoked")
        }
    }
}
