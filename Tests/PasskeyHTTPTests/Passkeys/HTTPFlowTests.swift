import PasskeyApp
import Foundation
import CoreMetrics
import Hummingbird
import HummingbirdTesting
import LibPQ
import NIOCore
import NIOPosix
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import PasskeyStorePostgres
import Synchronization
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// A clock tests can move.
final class TestClock: Sendable {
    private let current = Mutex(Date())
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

struct Harness {
    static let origin = "https://http.passkeyd.test"
    let clock = TestClock()
    let store: InMemoryPasskeyStore
    /// The instance, as `buildApplication` wires it from settings (``TestPasskeyd``).
    let passkeyd: PasskeydApplication
    var app: Application<RouterResponder<PasskeyRequestContext>> { passkeyd.http }

    init(
        apiKeys: [String] = [], adminKeys: [String] = [], environment: [String: String] = [:],
        metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance
    ) async throws {
        let clock = self.clock
        store = InMemoryPasskeyStore(now: { clock.now })
        var environment = environment
        if !apiKeys.isEmpty { environment["PASSKEYD_API_KEYS"] = apiKeys.joined(separator: ",") }
        if !adminKeys.isEmpty { environment["PASSKEYD_ADMIN_KEYS"] = adminKeys.joined(separator: ",") }
        passkeyd = try await TestPasskeyd.build(
            try TestPasskeyd.settings(environment), store: store, now: { clock.now }, metricsFactory: metricsFactory)
    }
}

/// One HTTP exchange's outcome.
struct Reply {
    let status: Int
    let body: [UInt8]
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

extension TestClientProtocol {
    func post(_ path: String, _ body: [UInt8], headers: HTTPFields = [:]) async throws -> Reply {
        try await execute(uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: body)) { response in
            Reply(status: Int(response.status.code), body: Array(response.body.readableBytesView))
        }
    }

    /// Any method, optional body.
    func send(_ method: HTTPRequest.Method, _ path: String, _ body: [UInt8]? = nil, headers: HTTPFields = [:]) async throws -> Reply {
        try await execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }) { response in
            Reply(status: Int(response.status.code), body: Array(response.body.readableBytesView))
        }
    }

    func post(_ path: String, json: some Encodable, headers: HTTPFields = [:]) async throws -> Reply {
        try await post(path, Array(try JSONEncoder().encode(json)), headers: headers)
    }
}

struct BeginRegistration: Encodable {
    /// `name` (+ `displayName`) for a new user, `id` for an existing one.
    struct User: Encodable {
        var name: String?
        var displayName: String?
        var id: String?
    }
    let user: User
}

struct FinishRegistration: Encodable {
    let credential: RegistrationResponseJSON
    let nickname: String?
}

struct BeginAuthentication: Encodable {
    struct User: Encodable { let name: String }
    let user: User?
}

struct FinishAuthentication: Encodable { var credential: AuthenticationResponseJSON }

struct PublicKeyWrapper<T: Decodable>: Decodable { let publicKey: T }

enum Flow {
    /// Begins the sign-up of a new user `name`.
    static func beginRegistration(_ client: some TestClientProtocol, name: String) async throws -> CreationOptionsJSON {
        try await beginRegistration(client, user: .init(name: name, displayName: name.capitalized))
    }

    /// The Authorization header of an API key, if any.
    static func headers(_ apiKey: String?) -> HTTPFields { apiKey.map { [.authorization: "Bearer \($0)"] } ?? [:] }

    /// Begins adding a passkey to the existing user with this user handle.
    static func beginRegistration(_ client: some TestClientProtocol, userHandle: [UInt8]) async throws -> CreationOptionsJSON {
        try await beginRegistration(client, user: .init(id: Base64URL.encode(userHandle)))
    }

    static func beginRegistration(
        _ client: some TestClientProtocol, user: BeginRegistration.User, apiKey: String? = nil
    ) async throws -> CreationOptionsJSON {
        let reply = try await client.post("/v1/registration/begin", json: BeginRegistration(user: user), headers: headers(apiKey))
        #expect(reply.status == 200, "\(reply.status) \(reply.errorCode ?? "-")")
        return try JSONDecoder().decode(PublicKeyWrapper<CreationOptionsJSON>.self, from: Data(reply.body)).publicKey
    }

    /// Signs up a new user `name` with one passkey.
    static func register(
        _ client: some TestClientProtocol, name: String, apiKey: String? = nil, configure: (inout RegistrationKnobs) -> Void = { _ in }
    ) async throws -> (reply: Reply, credential: SoftCredential) {
        try await register(client, user: .init(name: name, displayName: name.capitalized), apiKey: apiKey, configure: configure)
    }

    /// Adds a passkey to the existing user with this handle.
    static func register(
        _ client: some TestClientProtocol, userHandle: [UInt8], configure: (inout RegistrationKnobs) -> Void = { _ in }
    ) async throws -> (reply: Reply, credential: SoftCredential) {
        try await register(client, user: .init(id: Base64URL.encode(userHandle)), configure: configure)
    }

    static func register(
        _ client: some TestClientProtocol, user: BeginRegistration.User, apiKey: String? = nil, configure: (inout RegistrationKnobs) -> Void
    ) async throws -> (reply: Reply, credential: SoftCredential) {
        let options = try await beginRegistration(client, user: user, apiKey: apiKey)
        var knobs = RegistrationKnobs(origin: Harness.origin)
        configure(&knobs)
        let (response, credential) = try SoftAuthenticator.register(options: options, knobs: knobs)
        let reply = try await client.post(
            "/v1/registration/finish", json: FinishRegistration(credential: response, nickname: "phone"), headers: headers(apiKey))
        return (reply, credential)
    }

    static func beginAuthentication(_ client: some TestClientProtocol, name: String?, apiKey: String? = nil) async throws -> RequestOptionsJSON {
        let reply = try await client.post(
            "/v1/authentication/begin", json: BeginAuthentication(user: name.map { .init(name: $0) }), headers: headers(apiKey))
        #expect(reply.status == 200)
        return try JSONDecoder().decode(PublicKeyWrapper<RequestOptionsJSON>.self, from: Data(reply.body)).publicKey
    }

    static func assertion(
        _ client: some TestClientProtocol, name: String?, credential: inout SoftCredential, apiKey: String? = nil
    ) async throws -> FinishAuthentication {
        let options = try await beginAuthentication(client, name: name, apiKey: apiKey)
        return FinishAuthentication(
            credential: try SoftAuthenticator.authenticate(options: options, credential: &credential, knobs: AssertionKnobs(origin: Harness.origin)))
    }
}

@Suite("HTTP ceremonies")
struct HTTPFlowTests {
    @Test("register, sign in with a user name and discoverably, second registration excludes the first")
    func fullFlow() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            var (reply, credential) = try await Flow.register(client, name: "alice")
            #expect(reply.status == 201)
            let created = reply.json
            #expect((created["user"] as? [String: Any])?["name"] as? String == "alice")
            #expect((created["credential"] as? [String: Any])?["nickname"] as? String == "phone")

            let signIn = try await Flow.assertion(client, name: "alice", credential: &credential)
            let ok = try await client.post("/v1/authentication/finish", json: signIn)
            #expect(ok.status == 200)
            #expect(ok.json["userVerified"] as? Bool == true)
            #expect((ok.json["user"] as? [String: Any])?["name"] as? String == "alice")

            let discoverable = try await Flow.assertion(client, name: nil, credential: &credential)
            #expect(try await client.post("/v1/authentication/finish", json: discoverable).status == 200)

            let again = try await Flow.beginRegistration(client, userHandle: credential.userHandle)
            #expect(again.excludeCredentials.map(\.id) == [Base64URL.encode(credential.id)])
            #expect(again.user.id == Base64URL.encode(credential.userHandle), "a known user keeps their handle")
        }
    }

    @Test("a replayed finish and an expired challenge are refused")
    func replayAndExpiry() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            var (_, credential) = try await Flow.register(client, name: "bob")
            let signIn = try await Flow.assertion(client, name: "bob", credential: &credential)
            #expect(try await client.post("/v1/authentication/finish", json: signIn).status == 200)
            let replay = try await client.post("/v1/authentication/finish", json: signIn)
            #expect(replay.status == 400 && replay.errorCode == "challenge_unknown_or_expired")

            let late = try await Flow.assertion(client, name: "bob", credential: &credential)
            // Past the expiry and the clock skew a sealed challenge allows (PASSKEYD_CLOCK_SKEW, 30 s).
            harness.clock.advance(331)
            let expired = try await client.post("/v1/authentication/finish", json: late)
            if TestPasskeyd.sealed {
                #expect(expired.status == 410 && expired.errorCode == "challenge_expired")
            } else {
                #expect(expired.status == 400 && expired.errorCode == "challenge_unknown_or_expired")
            }
        }
    }

    @Test("a failed finish consumes its challenge")
    func failureConsumesChallenge() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            var (_, credential) = try await Flow.register(client, name: "carol")
            var signIn = try await Flow.assertion(client, name: "carol", credential: &credential)
            let goodSignature = signIn.credential.response.signature
            signIn.credential.response.signature = Base64URL.encode(Array(repeating: 1, count: 70))
            let bad = try await client.post("/v1/authentication/finish", json: signIn)
            #expect(bad.status == 422 && bad.errorCode == "signature_invalid")
            signIn.credential.response.signature = goodSignature
            #expect(try await client.post("/v1/authentication/finish", json: signIn).errorCode == "challenge_unknown_or_expired")
        }
    }

    @Test("two concurrent finishes for one challenge: exactly one succeeds")
    func concurrentFinishes() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            var (_, credential) = try await Flow.register(client, name: "dave")
            let signIn = try await Flow.assertion(client, name: "dave", credential: &credential)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await client.post("/v1/authentication/finish", json: signIn).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 400 }.count == 7)
        }
    }

    @Test("a credential id registered twice is a 409 and changes nothing")
    func duplicateCredential() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            let id = Array(repeating: UInt8(0x33), count: 32)
            let (first, _) = try await Flow.register(client, name: "erin") { $0.credentialID = id }
            #expect(first.status == 201)
            let (second, _) = try await Flow.register(client, name: "frank") { $0.credentialID = id }
            #expect(second.status == 409 && second.errorCode == "credential_already_registered")
            #expect(try await harness.store.user(named: "frank") == nil)
            #expect(try await harness.store.credential(id: id)?.record.userHandle == (try await harness.store.user(named: "erin"))?.handle)
        }
    }

    @Test("an unknown user name gets options shaped like a known one")
    func noEnumeration() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            let options = try await Flow.beginAuthentication(client, name: "nobody")
            #expect(options.allowCredentials.count == 1)
            #expect(options.userVerification == "required")
        }
    }

    @Test("authentication/begin: userVerification null or absent means the policy's; a weaker request never lowers it")
    func userVerificationRequest() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            for body in [#"{"userVerification":null}"#, "{}", #"{"userVerification":"discouraged"}"#, #"{"userVerification":7}"#] {
                let reply = try await client.post("/v1/authentication/begin", Array(body.utf8))
                if body.contains("7") {
                    #expect(reply.status == 400 && reply.errorCode == "malformed_json")
                } else {
                    #expect(reply.status == 200, "\(body)")
                    let options = try JSONDecoder().decode(PublicKeyWrapper<RequestOptionsJSON>.self, from: Data(reply.body)).publicKey
                    #expect(options.userVerification == "required", "\(body)")
                }
            }
        }
    }

    @Test("malformed bodies get a 4xx JSON error and change nothing")
    func malformedBodies() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            let cases: [(String, [UInt8])] = [
                ("/v1/registration/begin", Array("{".utf8)),
                ("/v1/registration/begin", Array(#"{"user":{"name":5}}"#.utf8)),
                ("/v1/registration/begin", Array(#"{"user":{"name":"x"},"hints":"nope"}"#.utf8)),
                ("/v1/registration/begin", Array("[]".utf8)),
                ("/v1/registration/finish", Array(#"{"credential":{"id":"AA"}}"#.utf8)),
                ("/v1/registration/finish", Array(#"{"credential":{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"!!","attestationObject":"AA"}}}"#.utf8)),
                ("/v1/registration/finish", Array(#"{"credential":{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"_____w"}}}"#.utf8)),
                ("/v1/authentication/begin", Array(#"{"user":"alice"}"#.utf8)),
                ("/v1/authentication/begin", Array(#"{"userVerification":"sometimes"}"#.utf8)),
                ("/v1/authentication/finish", Array("null".utf8)),
                ("/v1/authentication/finish", Array(#"{"credential":{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}}"#.utf8)),
                ("/v1/authentication/finish", Array(#"{"credential":{"id":"%%","rawId":"%%","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}}"#.utf8)),
                ("/v1/authentication/finish", [0xFF, 0xFE, 0x00]),
            ]
            for (path, body) in cases {
                let reply = try await client.post(path, body)
                #expect((400..<500).contains(reply.status), "\(path) \(String(decoding: body, as: UTF8.self)) → \(reply.status)")
                #expect(reply.errorCode != nil, "\(path) → JSON error body")
            }
            let huge = try await client.post("/v1/registration/finish", Array(repeating: UInt8(ascii: " "), count: 200_000))
            #expect(huge.status == 413 && huge.errorCode == "body_too_large")
            #expect(try await harness.store.listUsers(nameFilter: nil, limit: 10, after: nil).isEmpty)
            // Still serving, and ready.
            #expect(try await client.execute(uri: "/healthz", method: .get) { Int($0.status.code) } == 200)
            #expect(try await client.execute(uri: "/readyz", method: .get) { Int($0.status.code) } == 200)
        }
    }

    @Test("readiness is 503 with a JSON error while the database cannot be reached")
    func notReady() async throws {
        // A real PostgreSQL store whose server is not there (nothing listens on port 1).
        let pool = PGPool(url: "postgresql://postgres@127.0.0.1:1/passkeyd?connect_timeout=2", size: 1, threadPool: .singleton)
        let app = try await TestPasskeyd.build(try TestPasskeyd.unboundedSettings(), store: PostgresPasskeyStore(pool: pool)).http
        try await app.test(.router) { client in
            let reply = try await client.execute(uri: "/readyz", method: .get) { response in
                Reply(status: Int(response.status.code), body: Array(response.body.readableBytesView))
            }
            #expect(reply.status == 503 && reply.errorCode == "storage_unavailable")
            #expect(try await client.execute(uri: "/healthz", method: .get) { Int($0.status.code) } == 200)
            let begin = try await client.post("/v1/authentication/begin", Array("{}".utf8))
            if TestPasskeyd.sealed {
                // Stateless: a discoverable begin touches no database, so sign-ins can begin; a named one reads the user.
                #expect(begin.status == 200, "a discoverable begin needs no storage")
                let named = try await client.post("/v1/authentication/begin", Array(#"{"user":{"name":"amy"}}"#.utf8))
                #expect(named.status == 503 && named.errorCode == "storage_unavailable")
            } else {
                #expect(begin.status == 503, "no ceremony starts without storage")
            }
        }
        await pool.shutdown()
    }

    @Test("API keys, when configured, are required")
    func apiKeys() async throws {
        let harness = try await Harness(apiKeys: ["s3cret"])
        try await harness.app.test(.router) { client in
            let body = Array(try JSONEncoder().encode(BeginRegistration(user: .init(name: "g", displayName: "G"))))
            #expect(try await client.post("/v1/registration/begin", body).status == 401)
            #expect(try await client.post("/v1/registration/begin", body, headers: [.authorization: "Bearer wrong"]).status == 401)
            #expect(try await client.post("/v1/registration/begin", body, headers: [.authorization: "Bearer s3cret"]).status == 200)
        }
    }
}
