import PasskeyApp
import AsyncHTTPClient
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import IdentityTestSupport
import JOSE
import LibPQ
import Logging
import PasskeyHTTP
import PasskeyStore
import PasskeyStorePostgres
import Prometheus
import ProviderKeys
import PostgresTestSupport
import Testing
import WebAuthnModel

/// Sign in with Apple's authorization code over HTTP on PostgreSQL, with the test provider server as Apple's
/// `/auth/token` and `/auth/revoke`: the exchange and its form, the sealed refresh token, refusals, and revocation
/// through the queue.
@Suite("Apple authorization code over HTTP", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct AppleCodeHTTPTests {
    static let idp = TestIDP.shared
    static let appleKey = try! PrivateKey.generate(for: .es256)
    static let kek = SecureRandom.bytes(count: 32)
    static let quiet: Logger = {
        var logger = Logger(label: "apple-code-tests")
        logger.logLevel = .critical
        return logger
    }()

    struct Harness: Sendable {
        let schema: HTTPTestSchema
        let server: TestProviderServer
        let store: PostgresPasskeyStore

        /// The drain's metrics.
        let registry = PrometheusCollectorRegistry()

        /// The drain main.swift runs, on this instance's store.
        func drain() throws -> TokenRevocationDrain {
            var drain = TokenRevocationDrain(
                exchange: try AppleCodeHTTPTests.exchange(server: server, store: store), logger: AppleCodeHTTPTests.quiet,
                metricsFactory: PrometheusMetricsFactory(registry: registry))
            drain.baseDelay = 60
            return drain
        }
    }

    static func exchange(server: TestProviderServer, store: PostgresPasskeyStore) throws -> AppleCodeExchange {
        let endpoint = try AppleTokenClient(
            tokenURL: server.baseURL + "/auth/token", revokeURL: server.baseURL + "/auth/revoke", httpClient: .shared,
            timeout: 2, logger: quiet)
        return try AppleCodeExchange(
            clientSecret: try AppleClientSecret(teamID: "TEAM123456", keyID: "APPLEKEY01", privateKey: appleKey),
            endpoint: endpoint, tokens: store, keyEncryptionKey: kek)
    }

    static func withApple(
        configured: Bool = true, _ body: @escaping @Sendable (Harness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let server = try await TestProviderServer.start(provider: TestIdentityProvider(
            issuer: "https://appleid.apple.com", audience: "com.example.app", keys: [try .generate(.es256, keyID: "unused")]))
        let schema = try await HTTPTestSchema.create(baseURL: try #require(PostgresHTTP.databaseURL))
        let make: (@Sendable (PostgresPasskeyStore) -> AppleCodeExchange)? =
            configured ? { @Sendable store in try! AppleCodeHTTPTests.exchange(server: server, store: store) } : nil
        let instance = PostgresHTTPInstance(
            url: schema.url, configuration: HTTPConfiguration(adminKeys: [PostgresHTTP.adminKey]),
            identityProviders: idp.providers(), appleCodeExchange: make)
        let harness = try await Harness(schema: schema, server: server, store: instance.store)
        do {
            try await instance.app.test(.router) { client in try await body(harness, client) }
        } catch {
            await instance.shutdown()
            await schema.drop()
            await server.shutdown()
            throw error
        }
        await instance.shutdown()
        await schema.drop()
        await server.shutdown()
    }

    static func signIn(_ client: some TestClientProtocol, code: String?, subject: String = "000111.subject.2222") async throws -> Reply {
        let begun = try await IDTokenHTTPTests.begin(client)
        var body: [String: Any] = [
            "session": begun.session, "provider": "apple", "idToken": idp.token(nonce: begun.providerNonce, subject: subject),
        ]
        if let code { body["authorizationCode"] = code }
        return try await client.post("/v1/idtoken/finish", Array(try JSONSerialization.data(withJSONObject: body)))
    }

    /// The client secret's claims after checking its header and signature against the Apple key.
    static func secretClaims(_ secret: String?) throws -> [String: JSONValue] {
        let jws = try CompactJWS(compact: Array(try #require(secret).utf8), maxLength: 4096)
        #expect(jws.algorithmName == "ES256" && jws.keyID == "APPLEKEY01")
        try JWSVerifier.verify(jws, algorithm: .es256, key: .publicKey(appleKey.publicKey))
        guard case .object(let claims) = try JSONReader.parse(jws.payload, maxDepth: 4) else { return [:] }
        return claims
    }

    static func storedToken(_ schema: HTTPTestSchema) async throws -> (identityID: [UInt8], sealed: [UInt8])? {
        let result = try await schema.query(PGQuery(unsafeSQL: "SELECT identity_id, sealed_token FROM identity_tokens"))
        guard result.rowCount == 1 else { return nil }
        return (try result.decode([UInt8].self, row: 0, column: 0), try result.decode([UInt8].self, row: 0, column: 1))
    }

    @Test("the code is exchanged with the right form and a client secret naming the token's audience; the refresh token is kept sealed")
    func exchange() async throws {
        try await Self.withApple { harness, client in
            let reply = try await Self.signIn(client, code: "c0de.1")
            #expect(reply.status == 201, "\(reply.status) \(reply.errorCode ?? "-")")
            let form = try #require(harness.server.record.tokenRequests.first)
            #expect(harness.server.record.tokenRequests.count == 1)
            #expect(form.fields["client_id"] == "com.example.app" && form.fields["code"] == "c0de.1")
            #expect(form.fields["grant_type"] == "authorization_code")
            #expect(Set(form.fields.keys) == ["client_id", "client_secret", "code", "grant_type"])
            let claims = try Self.secretClaims(form.fields["client_secret"])
            #expect(Set(claims.keys) == ["iss", "iat", "exp", "aud", "sub"])
            #expect(claims["iss"] == .string("TEAM123456") && claims["aud"] == .string("https://appleid.apple.com"))
            #expect(claims["sub"] == .string("com.example.app"))
            if case .number(let iat)? = claims["iat"], case .number(let exp)? = claims["exp"] {
                #expect(exp > iat && exp - iat <= 900 && abs(iat - Date().timeIntervalSince1970) < 60)
            } else {
                Issue.record("iat/exp missing")
            }

            let stored = try #require(try await Self.storedToken(harness.schema))
            let identityID = try #require(Base64URL.decodeStrict((reply.json["identity"] as? [String: Any])?["id"] as? String ?? ""))
            #expect(stored.identityID == identityID)
            let plaintext = Array("test-refresh-token".utf8)
            #expect(!(0...(stored.sealed.count - plaintext.count)).contains { Array(stored.sealed[$0..<($0 + plaintext.count)]) == plaintext })
            #expect(try AEAD.open(stored.sealed, key: Self.kek, associatedData: identityID) == plaintext)
            #expect(throws: CryptoError.decryptionFailed) { try AEAD.open(stored.sealed, key: Self.kek, associatedData: [0]) }

            // A later sign-in with a new code replaces the token and queues the old one for revocation.
            harness.server.update { $0.tokenResponse = .init(json: .object(["refresh_token": .string("second-refresh-token")])) }
            let again = try await Self.signIn(client, code: "c0de.2")
            #expect(again.status == 200)
            let replaced = try #require(try await Self.storedToken(harness.schema))
            #expect(try AEAD.open(replaced.sealed, key: Self.kek, associatedData: identityID) == Array("second-refresh-token".utf8))
            #expect(try await harness.schema.count("token_revocations") == 1)
            // Without a code nothing is exchanged and the token stays.
            #expect(try await Self.signIn(client, code: nil).status == 200)
            #expect(harness.server.record.tokenRequests.count == 2)
        }
    }

    @Test("invalid_grant is 422 apple_authorization_code_invalid: nobody is created, nothing kept, the session used up")
    func invalidGrant() async throws {
        try await Self.withApple { harness, client in
            harness.server.update { $0.tokenResponse = .init(status: 400, json: .object(["error": .string("invalid_grant")])) }
            let begun = try await IDTokenHTTPTests.begin(client)
            let body: [String: Any] = [
                "session": begun.session, "provider": "apple", "idToken": Self.idp.token(nonce: begun.providerNonce),
                "authorizationCode": "expired-code",
            ]
            let reply = try await client.post("/v1/idtoken/finish", Array(try JSONSerialization.data(withJSONObject: body)))
            #expect(reply.status == 422 && reply.errorCode == "apple_authorization_code_invalid")
            #expect(try await harness.schema.count("identity_tokens") == 0)
            #expect(try await harness.schema.count("users") == 0)
            #expect(try await harness.schema.count("identities") == 0)
            let again = try await client.post("/v1/idtoken/finish", Array(try JSONSerialization.data(withJSONObject: body)))
            #expect(again.status == 400 && again.errorCode == "idtoken_session_unknown")

            // Apple's answer names another account: refused the same way.
            harness.server.update { $0.tokenResponse = .init(json: .object([
                "refresh_token": .string("r"), "id_token": .string(try! JSONSigning.sign(["sub": .string("someone.else")], key: Self.idp.key)),
            ])) }
            let crossed = try await Self.signIn(client, code: "someone-elses-code")
            #expect(crossed.status == 422 && crossed.errorCode == "apple_authorization_code_invalid")
            #expect(try await harness.schema.count("identity_tokens") == 0)
        }
    }

    @Test("Apple unreachable or failing is 503 provider_unavailable; a malformed code is 400")
    func unavailable() async throws {
        try await Self.withApple { harness, client in
            harness.server.update { $0.tokenResponse = .init(status: 502, body: []) }
            let failing = try await Self.signIn(client, code: "c")
            #expect(failing.status == 503 && failing.errorCode == "provider_unavailable")
            #expect(try await harness.schema.count("identity_tokens") == 0)
            #expect(try await harness.schema.count("users") == 0)
            await harness.server.shutdown()
            let down = try await Self.signIn(client, code: "c")
            #expect(down.status == 503 && down.errorCode == "provider_unavailable")
            let begun = try await IDTokenHTTPTests.begin(client)
            let body: [String: Any] = ["session": begun.session, "provider": "apple", "idToken": "x", "authorizationCode": 5]
            let malformed = try await client.post("/v1/idtoken/finish", Array(try JSONSerialization.data(withJSONObject: body)))
            #expect(malformed.status == 400 && malformed.errorCode == "malformed_json")
        }
    }

    @Test("without the exchange configured the code is accepted and ignored")
    func notConfigured() async throws {
        try await Self.withApple(configured: false) { harness, client in
            let reply = try await Self.signIn(client, code: "c")
            #expect(reply.status == 201)
            #expect(harness.server.record.tokenRequests.isEmpty)
            let kept = try await harness.schema.count("identity_tokens")
            #expect(kept == 0)
        }
    }

    @Test("deleting the user queues the token in the same transaction; the drain revokes it; a failed revoke stays queued and is retried")
    func revocation() async throws {
        try await Self.withApple { harness, client in
            let reply = try await Self.signIn(client, code: "c")
            #expect(reply.status == 201)
            let userID = try #require((reply.json["user"] as? [String: Any])?["id"] as? String)
            let drain = try harness.drain()
            #expect(try await drain.drainOnce().claimed == 0)

            harness.server.update { $0.revokeResponse = .init(status: 503, body: []) }
            let deleted = try await client.send(.delete, "/v1/admin/users/\(userID)", headers: PostgresHTTP.adminAuth)
            #expect(deleted.status == 204)
            #expect(try await harness.schema.count("identity_tokens") == 0)
            #expect(try await harness.schema.count("token_revocations") == 1)

            let failed = try await drain.drainOnce()
            #expect(failed.retrying == 1 && failed.revoked == 0)
            var metrics = harness.registry.emitToString()
            #expect(metrics.contains(#"passkeyd_provider_token_revocations_total{outcome="retrying"} 1"#))
            #expect(metrics.contains("passkeyd_provider_token_revocations_pending 1"))
            #expect(try await harness.schema.count("token_revocations", where: "attempts = 1 AND last_error IS NOT NULL AND next_attempt_at > now()") == 1)
            #expect(try await drain.drainOnce().claimed == 0, "not due yet")

            _ = try await harness.schema.query(PGQuery(unsafeSQL: "UPDATE token_revocations SET next_attempt_at = now()"))
            harness.server.update { $0.revokeResponse = .init(body: []) }
            let revoked = try await drain.drainOnce()
            #expect(revoked.revoked == 1)
            #expect(try await harness.schema.count("token_revocations") == 0)
            metrics = harness.registry.emitToString()
            #expect(metrics.contains(#"passkeyd_provider_token_revocations_total{outcome="revoked"} 1"#))
            #expect(metrics.contains("passkeyd_provider_token_revocations_pending 0"))
            let requests = harness.server.record.revokeRequests
            #expect(requests.count == 2)
            let form = try #require(requests.last)
            #expect(form.fields["token"] == "test-refresh-token" && form.fields["token_type_hint"] == "refresh_token")
            #expect(form.fields["client_id"] == "com.example.app")
            #expect(try Self.secretClaims(form.fields["client_secret"])["sub"] == .string("com.example.app"))
        }
    }

    @Test("a token saved by a sign-in that commits while the user's deletion waits on it is queued, not lost")
    func saveRacingDeletion() async throws {
        try await Self.withApple { harness, client in
            let reply = try await Self.signIn(client, code: nil)
            #expect(reply.status == 201)
            let userID = try #require((reply.json["user"] as? [String: Any])?["id"] as? String)
            let identityText = try #require((reply.json["identity"] as? [String: Any])?["id"] as? String)
            let identityID = try #require(Base64URL.decodeStrict(identityText))
            #expect(try await harness.schema.count("identity_tokens") == 0)

            // What saveProviderToken does, held open: the identity locked, the token inserted, not yet committed.
            let saver = try PGConnection.connect(url: harness.schema.url)
            try saver.simpleQuery("BEGIN")
            _ = try saver.execute(PGQuery(unsafeSQL: "SELECT 1 FROM identities WHERE id = $1 FOR KEY SHARE", bindings: [identityID]))
            var bindings = PGBindings()
            bindings.append(identityID)
            bindings.append(Array(repeating: UInt8(7), count: 40))
            _ = try saver.execute(PGQuery(
                unsafeSQL: "INSERT INTO identity_tokens (identity_id, provider, client_id, sealed_token) VALUES ($1, 'apple', 'com.example.app', $2)",
                bindings: bindings))
            let deletion = Task { try await client.send(.delete, "/v1/admin/users/\(userID)", headers: PostgresHTTP.adminAuth).status }
            // Until the deletion is blocked on the saver's lock (a lock wait on the identity row).
            var waited = false
            for _ in 0..<100 where !waited {
                try await Task.sleep(for: .milliseconds(50))
                waited = try await harness.schema.count(
                    "pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid", where: "NOT l.granted AND a.query LIKE '%DELETE FROM users%'") > 0
            }
            #expect(waited, "the deletion waits for the saver")
            try saver.simpleQuery("COMMIT")
            try saver.close()
            #expect(try await deletion.value == 204)
            #expect(try await harness.schema.count("identity_tokens") == 0)
            #expect(try await harness.schema.count("token_revocations", where: "sealed_token = decode(repeat('07', 40), 'hex')") == 1)
        }
    }

    @Test("the drain loop passkeyd runs revokes what is queued while it runs, and ends when cancelled")
    func drainLoop() async throws {
        try await Self.withApple { harness, client in
            let loop = Task { try await (try! harness.drain()).service(every: .milliseconds(50)).run() }
            let reply = try await Self.signIn(client, code: "c")
            let userID = try #require((reply.json["user"] as? [String: Any])?["id"] as? String)
            #expect(try await client.send(.delete, "/v1/admin/users/\(userID)", headers: PostgresHTTP.adminAuth).status == 204)
            var left = 1
            for _ in 0..<100 where left > 0 {
                try await Task.sleep(for: .milliseconds(50))
                left = try await harness.schema.count("token_revocations")
            }
            #expect(left == 0)
            #expect(harness.server.record.revokeRequests.count == 1)
            loop.cancel()
            try await loop.value  // returns (no error) when cancelled
        }
    }

    @Test("unlinking the identity queues its token too; attempts are bounded")
    func unlinkAndGiveUp() async throws {
        try await Self.withApple { harness, client in
            let reply = try await Self.signIn(client, code: "c")
            let userID = try #require((reply.json["user"] as? [String: Any])?["id"] as? String)
            let identityID = try #require((reply.json["identity"] as? [String: Any])?["id"] as? String)
            let unlinked = try await client.send(.delete, "/v1/admin/users/\(userID)/identities/\(identityID)", headers: PostgresHTTP.adminAuth)
            #expect(unlinked.status == 204)
            #expect(try await harness.schema.count("token_revocations") == 1)
            #expect(try await harness.schema.count("identity_tokens") == 0)

            harness.server.update { $0.revokeResponse = .init(status: 500, body: []) }
            var drain = try harness.drain()
            drain.maxAttempts = 2
            #expect(try await drain.drainOnce().retrying == 1)
            _ = try await harness.schema.query(PGQuery(unsafeSQL: "UPDATE token_revocations SET next_attempt_at = now()"))
            #expect(try await drain.drainOnce().givenUp == 1)
            #expect(harness.registry.emitToString().contains(#"passkeyd_provider_token_revocations_total{outcome="given_up"} 1"#))
            #expect(try await harness.schema.count("token_revocations") == 0)
            #expect(harness.server.record.revokeRequests.count == 2)
        }
    }
}
