import PasskeyApp
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LibPQ
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Prometheus
import SessionCore
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// Automatic passkey upgrades and the self-service API over HTTP on the real PostgreSQL, with a clock the test sets.
@Suite("Upgrades and self-service on PostgreSQL", .serialized)
struct UpgradeHTTPTests {
    static let apiKey = "upgrade-tests-api-key-0123456789"
    static var api: HTTPFields { [.authorization: "Bearer \(apiKey)"] }
    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// A fresh schema and one instance with sessions (issuer https://http.passkeyd.test, audience https://api.example,
    /// access tokens for an hour), the API key, its own metrics and `clock`, under `environment`; dropped afterwards.
    static func withInstance(
        clock: TestClock, environment: [String: String] = [:],
        _ body: (HTTPTestSchema, PostgresHTTPInstance, PrometheusCollectorRegistry) async throws -> Void
    ) async throws {
        guard let url = PostgresHTTP.databaseURL else { return }
        let settings = try TestPasskeyd.unboundedSettings([
            "PASSKEYD_API_KEYS": apiKey, "PASSKEYD_SESSIONS": "on", "PASSKEYD_SESSION_AUDIENCES": "https://api.example",
            "PASSKEYD_SESSION_ACCESS_TTL": "3600", "PASSKEYD_SESSION_KEY_ROTATION": "86400",
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try TestFiles.keyEncryptionKey(),
        ].merging(environment) { $1 })
        let schema = try await HTTPTestSchema.create(baseURL: url)
        let registry = PrometheusCollectorRegistry()
        let instance: PostgresHTTPInstance
        do {
            instance = try await PostgresHTTPInstance(
                url: schema.url, settings: settings, metricsFactory: PrometheusMetricsFactory(registry: registry), now: { clock.now })
        } catch {
            await schema.drop()
            throw error
        }
        do {
            try await body(schema, instance, registry)
        } catch {
            await instance.shutdown()
            await schema.drop()
            throw error
        }
        await instance.shutdown()
        await schema.drop()
    }

    /// A clock at a whole second near real time (the database checks ceremony expiry with its own `now()`), so that
    /// an access token's `auth_time` is exactly the clock's time.
    static func clock() -> TestClock {
        let clock = TestClock()
        clock.advance(clock.now.timeIntervalSince1970.rounded(.down) - clock.now.timeIntervalSince1970)
        return clock
    }

    static func bytes(_ members: [String: Any]) throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: members)) }
    static func object(_ value: some Encodable) throws -> Any { try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) }

    /// The options of a begin answer.
    static func creationOptions(_ reply: Reply) throws -> CreationOptionsJSON {
        try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(reply.body)).publicKey
    }

    /// Signs `name` up and in: the user id, the passkey and the sign-in's access token.
    static func signUpAndIn(_ client: some TestClientProtocol, name: String) async throws -> (user: String, credential: SoftCredential, token: String) {
        var (registered, credential) = try await Flow.register(client, name: name, apiKey: apiKey)
        try #require(registered.status == 201)
        let assertion = try await Flow.assertion(client, name: name, credential: &credential, apiKey: apiKey)
        let signedIn = try await client.post("/v1/authentication/finish", json: assertion, headers: api)
        try #require(signedIn.status == 200, "\(signedIn.errorCode ?? "-")")
        let token = try #require((signedIn.json["session"] as? [String: Any])?["accessToken"] as? String)
        let user = try #require((signedIn.json["user"] as? [String: Any])?["id"] as? String)
        return (user, credential, token)
    }

    /// A begin of an upgrade for `user` (the API key's route).
    static func beginUpgrade(_ client: some TestClientProtocol, user: String) async throws -> Reply {
        try await client.post("/v1/registration/begin", try bytes(["user": ["id": user], "mediation": "conditional"]), headers: api)
    }

    @Test("the whole upgrade: UP=0/UV=0 accepted for the conditional ceremony only, UV established by the first UV sign-in, metrics")
    func upgradeFlow() async throws {
        let clock = Self.clock()
        try await Self.withInstance(clock: clock) { schema, instance, registry in
            try await instance.app.test(.router) { client in
                var (_, credential, _) = try await Self.signUpAndIn(client, name: "ann")
                let user = try #require(try await Self.userID(client, name: "ann", credential: &credential))

                let begun = try await Self.beginUpgrade(client, user: user)
                #expect(begun.status == 200 && begun.json["mediation"] as? String == "conditional")
                let options = try Self.creationOptions(begun)
                #expect(options.authenticatorSelection?.userVerification == "preferred", "browsers refuse a conditional create requiring UV")
                var knobs = RegistrationKnobs(origin: Harness.origin)
                knobs.userPresent = false
                knobs.userVerified = false
                var (response, upgraded) = try SoftAuthenticator.register(options: options, knobs: knobs)
                let finished = try await client.post(
                    "/v1/registration/finish", try Self.bytes(["credential": try Self.object(response)]), headers: Self.api)
                #expect(finished.status == 201, "\(finished.errorCode ?? "-")")
                let stored = try #require(finished.json["credential"] as? [String: Any])
                #expect(stored["createdBy"] as? String == "conditional" && stored["userVerified"] as? Bool == false)
                let row = try await schema.query("SELECT created_by, uv_initialized FROM credentials WHERE id = \(upgraded.id)")
                #expect(try row.decode(String.self, row: 0, column: 0) == "conditional" && !(try row.decode(Bool.self, row: 0, column: 1)))

                // UV is required here: the upgraded passkey signs in only with UV=1, and that first sign-in establishes it.
                let optionsForUV0 = try await Flow.beginAuthentication(client, name: "ann", apiKey: Self.apiKey)
                var noUV = AssertionKnobs(origin: Harness.origin)
                noUV.userVerified = false
                let refused = try await client.post(
                    "/v1/authentication/finish",
                    json: FinishAuthentication(credential: try SoftAuthenticator.authenticate(options: optionsForUV0, credential: &upgraded, knobs: noUV)),
                    headers: Self.api)
                #expect(refused.status == 422 && refused.errorCode == "user_not_verified")
                let signIn = try await Flow.assertion(client, name: "ann", credential: &upgraded, apiKey: Self.apiKey)
                let accepted = try await client.post("/v1/authentication/finish", json: signIn, headers: Self.api)
                #expect(accepted.status == 200 && (accepted.json["credential"] as? [String: Any])?["userVerified"] as? Bool == true)
                let after = try await schema.query("SELECT uv_initialized FROM credentials WHERE id = \(upgraded.id)")
                #expect(try after.decode(Bool.self, row: 0, column: 0))
                response = try SoftAuthenticator.register(options: try Self.creationOptions(try await Self.beginUpgrade(client, user: user)), knobs: knobs).response
                _ = response  // a begun, unfinished upgrade: counted as begun only

                let metrics = registry.emitToString()
                #expect(metrics.contains(#"passkeyd_upgrades_total{event="begun"} 2"#))
                #expect(metrics.contains(#"passkeyd_upgrades_total{event="registered"} 1"#))
                #expect(metrics.contains(#"passkeyd_upgrades_total{event="uv_established"} 1"#))
            }
        }
    }

    @Test("a normal ceremony still requires UP; a mediation smuggled into the finish body changes nothing and writes nothing")
    func smuggledMediation() async throws {
        try await Self.withInstance(clock: Self.clock()) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                var (_, credential, _) = try await Self.signUpAndIn(client, name: "ben")
                let user = try #require(try await Self.userID(client, name: "ben", credential: &credential))
                let normal = try await client.post("/v1/registration/begin", try Self.bytes(["user": ["id": user]]), headers: Self.api)
                #expect(normal.status == 200 && normal.json["mediation"] == nil)
                var knobs = RegistrationKnobs(origin: Harness.origin)
                knobs.userPresent = false
                knobs.userVerified = false
                let (response, _) = try SoftAuthenticator.register(options: try Self.creationOptions(normal), knobs: knobs)
                var credentialJSON = try #require(try Self.object(response) as? [String: Any])
                credentialJSON["mediation"] = "conditional"
                let before = try await schema.snapshot()
                let finished = try await client.post(
                    "/v1/registration/finish", try Self.bytes(["credential": credentialJSON, "mediation": "conditional"]), headers: Self.api)
                #expect(finished.status == 422 && finished.errorCode == "user_not_present")
                #expect(try await schema.count("credentials") == 1)
                #expect(try await schema.count("ceremonies", where: "kind = 'registration'") == 0, "the failed finish consumed its ceremony")
                _ = before
            }
        }
    }

    @Test("upgrades only for existing users by id, under their own cap, and not when turned off")
    func upgradeRules() async throws {
        // Pending-ceremony caps exist only on the ceremony table (stateless begins save nothing).
        try await TestPasskeyd.$ceremonyTable.withValue(true) {
        try await Self.withInstance(clock: Self.clock(), environment: ["PASSKEYD_UPGRADE_PENDING_PER_USER": "2"]) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                let signUp = try await client.post(
                    "/v1/registration/begin", try Self.bytes(["user": ["name": "cleo"], "mediation": "conditional"]), headers: Self.api)
                #expect(signUp.status == 400 && signUp.errorCode == "conditional_create_needs_user_id")
                #expect(try await schema.count("ceremonies") == 0)
                let odd = try await client.post(
                    "/v1/registration/begin", try Self.bytes(["user": ["name": "cleo"], "mediation": "silent"]), headers: Self.api)
                #expect(odd.status == 400 && odd.errorCode == "malformed_json")

                var (_, credential, _) = try await Self.signUpAndIn(client, name: "cleo")
                let user = try #require(try await Self.userID(client, name: "cleo", credential: &credential))
                #expect(try await Self.beginUpgrade(client, user: user).status == 200)
                #expect(try await Self.beginUpgrade(client, user: user).status == 200)
                let third = try await Self.beginUpgrade(client, user: user)
                #expect(third.status == 429 && third.errorCode == "too_many_pending_ceremonies")
                // The cap is the upgrades' own: a normal begin for the same user still goes through.
                #expect(try await client.post("/v1/registration/begin", try Self.bytes(["user": ["id": user]]), headers: Self.api).status == 200)
            }
        }
        try await Self.withInstance(clock: Self.clock(), environment: ["PASSKEYD_CONDITIONAL_CREATE": "off"]) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                var (_, credential, _) = try await Self.signUpAndIn(client, name: "dan")
                let user = try #require(try await Self.userID(client, name: "dan", credential: &credential))
                let refused = try await Self.beginUpgrade(client, user: user)
                #expect(refused.status == 400 && refused.errorCode == "conditional_create_disabled")
                #expect(try await schema.count("ceremonies", where: "kind = 'registration'") == 0)
            }
        }
        }
    }

    @Test("extension inputs are validated on both begins; outputs are recorded, PRF results and blobs never stored")
    func extensions() async throws {
        try await Self.withInstance(clock: Self.clock()) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                let salt = Base64URL.encode(Array(repeating: 7, count: 32))
                let begun = try await client.post(
                    "/v1/registration/begin",
                    try Self.bytes([
                        "user": ["name": "eve"],
                        "extensions": ["prf": ["eval": ["first": salt]], "largeBlob": ["support": "preferred"], "credProps": true],
                    ]),
                    headers: Self.api)
                #expect(begun.status == 200)
                let options = try Self.creationOptions(begun)
                #expect(options.extensions?["prf"] != nil && options.extensions?["largeBlob"] != nil)
                var knobs = RegistrationKnobs(origin: Harness.origin)
                let secret = "UFJGLW91dHB1dC1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg"
                knobs.client.clientExtensionResults = [
                    "credProps": .object(["rk": .bool(true)]),
                    "prf": .object(["enabled": .bool(true), "results": .object(["first": .string(secret)])]),
                    "largeBlob": .object(["supported": .bool(true), "blob": .string(secret)]),
                ]
                let (response, _) = try SoftAuthenticator.register(options: options, knobs: knobs)
                let finished = try await client.post("/v1/registration/finish", json: FinishRegistration(credential: response, nickname: nil), headers: Self.api)
                #expect(finished.status == 201)
                let extensions = try #require((finished.json["credential"] as? [String: Any])?["extensions"] as? [String: Any])
                #expect(extensions["discoverable"] as? Bool == true && extensions["prfEnabled"] as? Bool == true)
                #expect(extensions["largeBlobSupported"] as? Bool == true)
                let dump = try await schema.snapshot()
                #expect(!dump.contains(secret) && !dump.contains(Base64URL.encode(Base64URL.decode(secret) ?? [])), "no PRF output or blob in any table")

                for (path, extensions, code) in [
                    ("/v1/registration/begin", ["appid": "https://x.test"] as [String: Any], "extension_unsupported"),
                    ("/v1/registration/begin", ["largeBlob": ["read": true]], "extension_input_invalid"),
                    ("/v1/authentication/begin", ["credProps": true], "extension_input_invalid"),
                    ("/v1/authentication/begin", ["prf": ["eval": ["first": Base64URL.encode(Array(repeating: 1, count: 65))]]], "extension_input_invalid"),
                ] {
                    var members: [String: Any] = ["extensions": extensions]
                    if path.hasPrefix("/v1/registration") { members["user"] = ["name": "frank"] }
                    let reply = try await client.post(path, try Self.bytes(members), headers: Self.api)
                    #expect(reply.status == 400 && reply.errorCode == code, "\(path) \(extensions) → \(reply.errorCode ?? "-")")
                }
                let read = try await client.post(
                    "/v1/authentication/begin", try Self.bytes(["extensions": ["largeBlob": ["read": true], "prf": ["eval": ["first": salt]]]]),
                    headers: Self.api)
                #expect(read.status == 200)
                // Without a user (no allowCredentials) no evalByCredential entry is kept: the client would refuse any.
                let discoverable = try await client.post(
                    "/v1/authentication/begin", try Self.bytes(["extensions": ["prf": ["evalByCredential": [salt: ["first": salt]]]]]), headers: Self.api)
                let prf = try #require(((discoverable.json["publicKey"] as? [String: Any])?["extensions"] as? [String: Any])?["prf"] as? [String: Any])
                #expect(discoverable.status == 200 && (prf["evalByCredential"] as? [String: Any])?.isEmpty == true)
                #expect(try await schema.count("users", where: "name = 'frank'") == 0)
            }
        }
    }

    @Test("self-service: list, rename and delete own passkeys; another user's ids are 404; the last method stays; audited as the user")
    func selfService() async throws {
        try await Self.withInstance(clock: Self.clock()) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                let (alice, aliceKey, aliceToken) = try await Self.signUpAndIn(client, name: "alice")
                let (_, _, bobToken) = try await Self.signUpAndIn(client, name: "bob")
                let aliceCredential = Base64URL.encode(aliceKey.id)

                #expect(try await client.get("/v1/me/credentials").errorCode == "unauthorized")
                #expect(try await client.get("/v1/me/credentials", headers: Self.api).status == 401, "the API key is not an access token")
                let listed = try await client.get("/v1/me/credentials", headers: Self.bearer(aliceToken))
                let credentials = try #require(listed.json["credentials"] as? [[String: Any]])
                #expect(listed.status == 200 && credentials.map { $0["id"] as? String } == [aliceCredential])

                let before = try await schema.snapshot()
                let path = "/v1/me/credentials/" + aliceCredential
                let stolenRename = try await client.send(.patch, path, try Self.bytes(["nickname": "pwned"]), headers: Self.bearer(bobToken))
                let stolenDelete = try await client.send(.delete, path, headers: Self.bearer(bobToken))
                let unknownDelete = try await client.send(
                    .delete, "/v1/me/credentials/" + Base64URL.encode(Array(repeating: 3, count: 32)), headers: Self.bearer(aliceToken))
                #expect(stolenRename.status == 404 && stolenRename.errorCode == "credential_unknown")
                #expect(stolenDelete.status == 404 && stolenDelete.errorCode == "credential_unknown")
                #expect(unknownDelete.status == stolenDelete.status && unknownDelete.body == stolenDelete.body, "no existence oracle")
                let last = try await client.send(.delete, path, headers: Self.bearer(aliceToken))
                #expect(last.status == 409 && last.errorCode == "last_sign_in_method")
                #expect(try await schema.snapshot() == before, "refusals changed nothing")

                let renamed = try await client.send(.patch, path, try Self.bytes(["nickname": "laptop"]), headers: Self.bearer(aliceToken))
                #expect(renamed.status == 200 && (renamed.json["credential"] as? [String: Any])?["nickname"] as? String == "laptop")
                let actor = try await schema.query(
                    PGQuery(unsafeSQL: "SELECT actor FROM audit_events WHERE event = 'credential.renamed'", bindings: []))
                #expect(try actor.decode(String.self, row: 0, column: 0) == "user:" + alice)

                // A second passkey through /v1/me, then the first can go.
                let begun = try await client.post("/v1/me/registration/begin", [], headers: Self.bearer(aliceToken))
                #expect(begun.status == 200, "\(begun.errorCode ?? "-")")
                let (response, _) = try SoftAuthenticator.register(options: try Self.creationOptions(begun), knobs: RegistrationKnobs(origin: Harness.origin))
                let added = try await client.post(
                    "/v1/me/registration/finish", json: FinishRegistration(credential: response, nickname: "phone"), headers: Self.bearer(aliceToken))
                #expect(added.status == 201 && added.json["session"] == nil)
                #expect(try await client.send(.delete, path, headers: Self.bearer(aliceToken)).status == 204)
                #expect(try await schema.query("SELECT 1 FROM credentials WHERE id = \(aliceKey.id)").rowCount == 0)
                let events = try await schema.query(
                    PGQuery(unsafeSQL: "SELECT event FROM audit_events WHERE actor = $1 ORDER BY id", bindings: ["user:" + alice]))
                #expect(try (0..<events.rowCount).map { try events.decode(String.self, row: $0, column: 0) }
                    == ["credential.renamed", "credential.registered", "credential.deleted", "session.revoked"])
                // Deleting the passkey this session signed in with ended the session.
                #expect(try await client.get("/v1/me/credentials", headers: Self.bearer(aliceToken)).errorCode == "session_revoked")
            }
        }
    }

    @Test("a /v1/me registration finish takes only the signed-in user's own ceremony")
    func meFinishIsScoped() async throws {
        try await Self.withInstance(clock: Self.clock()) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                let (_, _, aliceToken) = try await Self.signUpAndIn(client, name: "amy")
                let (_, _, bobToken) = try await Self.signUpAndIn(client, name: "bo")
                let begun = try await client.post("/v1/me/registration/begin", [], headers: Self.bearer(bobToken))
                let (response, _) = try SoftAuthenticator.register(options: try Self.creationOptions(begun), knobs: RegistrationKnobs(origin: Harness.origin))
                let crossed = try await client.post(
                    "/v1/me/registration/finish", json: FinishRegistration(credential: response, nickname: nil), headers: Self.bearer(aliceToken))
                #expect(crossed.status == 400 && crossed.errorCode == "challenge_unknown_or_expired")
                #expect(try await schema.count("credentials") == 2)
                let withUser = try await client.post("/v1/me/registration/begin", try Self.bytes(["user": ["name": "x"]]), headers: Self.bearer(aliceToken))
                #expect(withUser.status == 400 && withUser.errorCode == "malformed_json")
            }
        }
    }

    @Test("the reauthentication window, at its boundary: beginning an addition and deleting need auth_time at most 300 s old; listing and finishing a begun addition do not")
    func reauthenticationWindow() async throws {
        let clock = Self.clock()
        try await Self.withInstance(clock: clock) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                let (_, key, token) = try await Self.signUpAndIn(client, name: "gail")
                clock.advance(300)
                let atBoundary = try await client.post("/v1/me/registration/begin", [], headers: Self.bearer(token))
                #expect(atBoundary.status == 200, "exactly 300 s after sign-in is still recent")
                clock.advance(1)
                let late = try await client.post("/v1/me/registration/begin", [], headers: Self.bearer(token))
                #expect(late.status == 401 && late.errorCode == "reauthentication_required")
                let lateFinish = try await client.post(
                    "/v1/me/registration/finish",
                    json: FinishRegistration(
                        credential: try SoftAuthenticator.register(options: try Self.creationOptions(atBoundary), knobs: RegistrationKnobs(origin: Harness.origin)).response,
                        nickname: nil),
                    headers: Self.bearer(token))
                #expect(lateFinish.status == 201, "the window is checked at begin: a passkey made in time is not orphaned")
                let lateDelete = try await client.send(.delete, "/v1/me/credentials/" + Base64URL.encode(key.id), headers: Self.bearer(token))
                #expect(lateDelete.status == 401 && lateDelete.errorCode == "reauthentication_required")
                #expect(try await client.get("/v1/me/credentials", headers: Self.bearer(token)).status == 200, "reading needs no recent sign-in")
                #expect(try await schema.count("credentials") == 2)
            }
        }
    }

    /// The user id of `name` (a sign-in answer's user).
    static func userID(_ client: some TestClientProtocol, name: String, credential: inout SoftCredential) async throws -> String? {
        let assertion = try await Flow.assertion(client, name: name, credential: &credential, apiKey: apiKey)
        let reply = try await client.post("/v1/authentication/finish", json: assertion, headers: api)
        return (reply.json["user"] as? [String: Any])?["id"] as? String
    }
}
