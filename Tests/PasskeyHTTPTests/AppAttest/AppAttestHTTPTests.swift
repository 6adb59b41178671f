import PasskeyApp
import AppleSignedData
import COSECrypto
import Foundation
import Hummingbird
import HummingbirdTesting
import LibPQ
import Logging
import NIOPosix
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import PasskeyStorePostgres
import Prometheus
import PostgresTestSupport
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// One passkeyd with App Attest on, on a fresh schema of the test database; the software App Attest device's test
/// root is the configured root.
struct AppAttestInstance: Sendable {
    static let apiKey = "appattest-tests-api-key-0123456789"
    static let appID = "ABCDE12345.com.example.passkeyd"
    static var api: HTTPFields { [.authorization: "Bearer \(apiKey)"] }

    let schema: HTTPTestSchema
    let threadPool: NIOThreadPool
    let pool: PGPool
    let device: SoftAppAttest
    let clock: RealTimeClock
    let registry = PrometheusCollectorRegistry()
    let app: Application<RouterResponder<PasskeyRequestContext>>

    init(schema: HTTPTestSchema, allowDevelopment: Bool = false) async throws {
        self.schema = schema
        threadPool = NIOThreadPool(numberOfThreads: 8)
        threadPool.start()
        pool = PGPool(url: schema.url, size: 8, threadPool: threadPool)
        let store = PostgresPasskeyStore(pool: pool)
        let device = try SoftAppAttest()
        self.device = device
        let clock = RealTimeClock()
        self.clock = clock
        do {
            app = try await TestPasskeyd.build(
                try Self.settings(device: device, allowDevelopment: allowDevelopment), store: store, now: { clock.now },
                metricsFactory: PrometheusMetricsFactory(registry: registry)).http
        } catch {
            await pool.shutdown()
            try? await threadPool.shutdownGracefully()
            throw error
        }
    }

    /// The settings of an instance with the API key and App Attest on for `apps`, with `device`'s test root as the root.
    static func settings(device: SoftAppAttest, apps: [String] = [appID], allowDevelopment: Bool) throws -> Settings {
        try TestPasskeyd.unboundedSettings([
            "PASSKEYD_API_KEYS": apiKey, "PASSKEYD_APPATTEST_APP_IDS": apps.joined(separator: ","),
            "PASSKEYD_APPATTEST_ROOT_FILE": try TestFiles.pem(device.trustAnchors.certificates),
            "PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT": allowDevelopment ? "on" : "off",
        ])
    }

    func shutdown() async {
        await pool.shutdown()
        try? await threadPool.shutdownGracefully()
    }

    static func run(
        allowDevelopment: Bool = false, _ body: @Sendable (AppAttestInstance, any TestClientProtocol) async throws -> Void
    ) async throws {
        let baseURL = try #require(PostgresHTTP.databaseURL)
        let schema = try await HTTPTestSchema.create(baseURL: baseURL)
        let instance: AppAttestInstance
        do {
            instance = try await AppAttestInstance(schema: schema, allowDevelopment: allowDevelopment)
        } catch {
            await schema.drop()
            throw error
        }
        do {
            try await instance.app.test(.router) { client in try await body(instance, client) }
        } catch {
            await instance.shutdown()
            await schema.drop()
            throw error
        }
        await instance.shutdown()
        await schema.drop()
    }

    /// A fresh challenge (base64url) and its bytes.
    func challenge(_ client: some TestClientProtocol) async throws -> (text: String, bytes: [UInt8]) {
        let reply = try await client.post("/v1/appattest/challenge", Array("{}".utf8), headers: Self.api)
        #expect(reply.status == 200)
        let text = try #require(reply.json["challenge"] as? String)
        return (text, try #require(Base64URL.decode(text)))
    }

    /// `POST /v1/appattest/attestations` for `key` with a fresh challenge (or the one given).
    func attest(
        _ client: some TestClientProtocol, _ key: SoftAppAttest.Key, options: SoftAppAttest.Options = .init(),
        challenge: (text: String, bytes: [UInt8])? = nil, userID: String? = nil
    ) async throws -> Reply {
        var challenge = challenge
        if challenge == nil { challenge = try await self.challenge(client) }
        guard let challenge else { throw AppAttestInstanceFailure.noChallenge }
        let object = try device.attest(
            key, appID: Self.appID, clientDataHash: Digest.sha256(challenge.bytes), now: clock.now, options: options)
        var body: [String: String] = [
            "keyId": Data(key.keyID).base64EncodedString(), "attestationObject": Data(object).base64EncodedString(),
            "challenge": challenge.text,
        ]
        if let userID { body["userId"] = userID }
        return try await client.post("/v1/appattest/attestations", json: body, headers: Self.api)
    }

    /// The JSON `clientData` for a challenge.
    static func clientData(_ challenge: String, action: String = "buy") -> [UInt8] {
        Array(#"{"action":"\#(action)","challenge":"\#(challenge)"}"#.utf8)
    }

    /// `POST /v1/appattest/assertions` with a fresh challenge in `clientData` (or the clientData given).
    func assert(
        _ client: some TestClientProtocol, _ key: SoftAppAttest.Key, counter: UInt32, clientData: [UInt8]? = nil,
        appID: String = appID
    ) async throws -> Reply {
        var data = clientData ?? []
        if clientData == nil { data = Self.clientData(try await challenge(client).text) }
        let assertion = try device.assert(key, appID: appID, clientData: data, counter: counter)
        return try await client.post(
            "/v1/appattest/assertions",
            json: [
                "keyId": Data(key.keyID).base64EncodedString(), "assertion": Data(assertion).base64EncodedString(),
                "clientData": Base64URL.encode(data),
            ], headers: Self.api)
    }

    func storedCounter(_ key: SoftAppAttest.Key) async throws -> Int64? {
        let result = try await schema.query("SELECT counter FROM app_attest_keys WHERE key_id = \(key.keyID)")
        return result.rowCount == 1 ? try result.decode(Int64.self, row: 0, column: 0) : nil
    }

    /// Every App Attest key row, pending challenge and used sealed challenge, for before/after comparisons.
    func snapshot() async throws -> String {
        let result = try await schema.query("""
            SELECT coalesce((SELECT json_agg(k ORDER BY k.key_id)::text FROM app_attest_keys k), '[]')
                || ' ' || (SELECT count(*) FROM ceremonies WHERE kind = 'appattest')::text
                || ' ' || (SELECT count(*) FROM consumed_challenges)::text
            """)
        return try result.decode(String.self, row: 0, column: 0)
    }
}

enum AppAttestInstanceFailure: Error { case noChallenge }

@Suite("App Attest over HTTP on PostgreSQL", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct AppAttestHTTPTests {
    @Test("full flow: challenge, attestation (201, stored with its receipt), assertions advance the counter; metrics")
    func fullFlow() async throws {
        try await AppAttestInstance.run { instance, client in
            let key = try SoftAppAttest.Key()
            let attested = try await instance.attest(client, key)
            #expect(attested.status == 201)
            #expect(attested.json["keyId"] as? String == Data(key.keyID).base64EncodedString())
            #expect(attested.json["environment"] as? String == "production")
            #expect(attested.json["appId"] as? String == AppAttestInstance.appID)
            #expect(attested.json["counter"] as? Int == 0)
            let row = try await instance.schema.query("SELECT receipt, environment, app_id FROM app_attest_keys WHERE key_id = \(key.keyID)")
            #expect(try row.decode([UInt8].self, row: 0, column: 0) == SoftAppAttest.Options().receipt)
            #expect(try row.decode(String.self, row: 0, column: 1) == "production")

            let first = try await instance.assert(client, key, counter: 1)
            #expect(first.status == 200)
            #expect(first.json["counter"] as? Int == 1)
            #expect(try await instance.assert(client, key, counter: 7).json["counter"] as? Int == 7)
            #expect(try await instance.storedCounter(key) == 7)
            // Attested again: 409, nothing changed.
            let again = try await instance.attest(client, key)
            #expect(again.status == 409 && again.errorCode == "appattest_key_exists")
            #expect(try await instance.storedCounter(key) == 7)

            let text = instance.registry.emitToString()
            #expect(text.contains(#"passkeyd_appattest_total{operation="attestation",outcome="accepted"} 1"#))
            #expect(text.contains(#"passkeyd_appattest_total{operation="assertion",outcome="accepted"} 2"#))
            #expect(text.contains(#"passkeyd_appattest_total{operation="attestation",outcome="appattest_key_exists"} 1"#))
        }
    }

    @Test("with development allowed: a development key is stored as development and its assertions work")
    func developmentAllowed() async throws {
        try await AppAttestInstance.run(allowDevelopment: true) { instance, client in
            var options = SoftAppAttest.Options()
            options.development = true
            let key = try SoftAppAttest.Key()
            let reply = try await instance.attest(client, key, options: options)
            #expect(reply.status == 201 && reply.json["environment"] as? String == "development")
            #expect(try await instance.assert(client, key, counter: 1).status == 200)
            let production = try SoftAppAttest.Key()
            #expect(try await instance.attest(client, production).json["environment"] as? String == "production")
        }
    }

    @Test("attestation with a userId: attached to that user; an unknown user is 404 user_unknown and stores nothing")
    func userAttachment() async throws {
        try await AppAttestInstance.run { instance, client in
            let handle = randomBytes(32)
            _ = try await instance.schema.query("INSERT INTO users (user_handle, name, display_name) VALUES (\(handle), 'ann', 'Ann')")
            let key = try SoftAppAttest.Key()
            let unknown = try await instance.attest(client, key, userID: Base64URL.encode(randomBytes(32)))
            #expect(unknown.status == 404 && unknown.errorCode == "user_unknown")
            #expect(try await instance.storedCounter(key) == nil)
            let attached = try await instance.attest(client, key, userID: Base64URL.encode(handle))
            #expect(attached.status == 201)
            #expect(attached.json["userId"] as? String == Base64URL.encode(handle))
        }
    }

    @Test("each attestation refusal has its code over HTTP and stores nothing")
    func attestationRefusals() async throws {
        try await AppAttestInstance.run { instance, client in
            func refused(_ configure: (inout SoftAppAttest.Options) -> Void) async throws -> Reply {
                var options = SoftAppAttest.Options()
                configure(&options)
                let key = try SoftAppAttest.Key()
                let reply = try await instance.attest(client, key, options: options)
                #expect(try await instance.storedCounter(key) == nil)
                return reply
            }
            let cases: [(String, Int, (inout SoftAppAttest.Options) -> Void)] = [
                ("appattest_format_invalid", 422, { $0.format = "apple" }),
                ("appattest_nonce_mismatch", 422, { $0.nonce = Array(repeating: 1, count: 32) }),
                ("appattest_nonce_extension_invalid", 422, { $0.omitNonceExtension = true }),
                ("appattest_counter_not_zero", 422, { $0.counter = 1 }),
                ("appattest_aaguid_mismatch", 422, { $0.development = true }),
                ("appattest_credential_id_mismatch", 422, { $0.credentialID = Array(repeating: 2, count: 32) }),
                ("appattest_chain_invalid", 422, { $0.notAfter = Date().addingTimeInterval(-60); $0.notBefore = Date().addingTimeInterval(-3600) }),
            ]
            for (code, status, configure) in cases {
                let reply = try await refused(configure)
                #expect(reply.status == status && reply.errorCode == code, "\(code): \(reply.status) \(reply.errorCode ?? "-")")
            }
            // Another root's chain.
            let other = try SoftAppAttest()
            let key = try SoftAppAttest.Key()
            let challenge = try await instance.challenge(client)
            let object = try other.attest(key, appID: AppAttestInstance.appID, clientDataHash: Digest.sha256(challenge.bytes), now: Date())
            let reply = try await client.post(
                "/v1/appattest/attestations",
                json: ["keyId": Data(key.keyID).base64EncodedString(), "attestationObject": Data(object).base64EncodedString(), "challenge": challenge.text],
                headers: AppAttestInstance.api)
            #expect(reply.status == 422 && reply.errorCode == "appattest_chain_invalid")
            // A key id that is not the certificate key's.
            let fresh = try await instance.challenge(client)
            let attestation = try instance.device.attest(
                key, appID: AppAttestInstance.appID, clientDataHash: Digest.sha256(fresh.bytes), now: Date())
            let wrongKey = try await client.post(
                "/v1/appattest/attestations",
                json: [
                    "keyId": Data(Array(repeating: UInt8(5), count: 32)).base64EncodedString(),
                    "attestationObject": Data(attestation).base64EncodedString(), "challenge": fresh.text,
                ], headers: AppAttestInstance.api)
            #expect(wrongKey.status == 422 && wrongKey.errorCode == "appattest_key_id_mismatch")
            #expect(try await instance.schema.count("app_attest_keys") == 0)
        }
    }

    @Test("a reused, unknown or expired challenge is 400 appattest_challenge_invalid")
    func challenges() async throws {
        try await AppAttestInstance.run { instance, client in
            let challenge = try await instance.challenge(client)
            let first = try await instance.attest(client, try SoftAppAttest.Key(), challenge: challenge)
            #expect(first.status == 201)
            let reused = try await instance.attest(client, try SoftAppAttest.Key(), challenge: challenge)
            #expect(reused.status == 400 && reused.errorCode == "appattest_challenge_invalid")
            let unknown = try await instance.attest(client, try SoftAppAttest.Key(), challenge: (Base64URL.encode(randomBytes(32)), randomBytes(32)))
            #expect(unknown.errorCode == "appattest_challenge_invalid")
            // A refused attestation used its challenge up too.
            var bad = SoftAppAttest.Options()
            bad.counter = 3
            let failing = try await instance.challenge(client)
            #expect(try await instance.attest(client, try SoftAppAttest.Key(), options: bad, challenge: failing).errorCode == "appattest_counter_not_zero")
            #expect(try await instance.attest(client, try SoftAppAttest.Key(), challenge: failing).errorCode == "appattest_challenge_invalid")
            // Issued 331 s ago with a 300 s lifetime: expired (a sealed one past the 30 s clock skew too).
            instance.clock.advance(-331)
            let old = try await instance.challenge(client)
            instance.clock.advance(331)
            #expect(try await instance.attest(client, try SoftAppAttest.Key(), challenge: old).errorCode == "appattest_challenge_invalid")

            // Assertions: the challenge inside clientData is used once.
            let key = try SoftAppAttest.Key()
            #expect(try await instance.attest(client, key).status == 201)
            let data = AppAttestInstance.clientData(try await instance.challenge(client).text)
            #expect(try await instance.assert(client, key, counter: 1, clientData: data).status == 200)
            let replay = try await instance.assert(client, key, counter: 2, clientData: data)
            #expect(replay.status == 400 && replay.errorCode == "appattest_challenge_invalid")
            #expect(try await instance.storedCounter(key) == 1)
        }
    }

    @Test("assertion refusals: counter not increasing, signature, rpIdHash, unknown key, clientData; the counter unchanged")
    func assertionRefusals() async throws {
        try await AppAttestInstance.run { instance, client in
            let key = try SoftAppAttest.Key()
            #expect(try await instance.attest(client, key).status == 201)
            #expect(try await instance.assert(client, key, counter: 5).status == 200)
            let equal = try await instance.assert(client, key, counter: 5)
            #expect(equal.status == 422 && equal.errorCode == "appattest_counter_not_increasing")
            let lower = try await instance.assert(client, key, counter: 4)
            #expect(lower.errorCode == "appattest_counter_not_increasing")
            let rp = try await instance.assert(client, key, counter: 6, appID: "ABCDE12345.com.example.other")
            #expect(rp.status == 422 && rp.errorCode == "appattest_rp_id_mismatch")
            // Signed by another key, sent under this key id.
            let other = try SoftAppAttest.Key()
            let data = AppAttestInstance.clientData(try await instance.challenge(client).text)
            let forged = try instance.device.assert(other, appID: AppAttestInstance.appID, clientData: data, counter: 9)
            let signature = try await client.post(
                "/v1/appattest/assertions",
                json: ["keyId": Data(key.keyID).base64EncodedString(), "assertion": Data(forged).base64EncodedString(), "clientData": Base64URL.encode(data)],
                headers: AppAttestInstance.api)
            #expect(signature.status == 422 && signature.errorCode == "appattest_signature_invalid")
            let unknown = try await instance.assert(client, other, counter: 1)
            #expect(unknown.status == 404 && unknown.errorCode == "appattest_key_unknown")
            let noChallenge = try await instance.assert(client, key, counter: 10, clientData: Array(#"{"action":"buy"}"#.utf8))
            #expect(noChallenge.status == 400 && noChallenge.errorCode == "appattest_client_data_invalid")
            #expect(try await instance.storedCounter(key) == 5)
        }
    }

    @Test("malformed JSON, base64 or CBOR: 4xx JSON with a code, and nothing changed")
    func malformed() async throws {
        try await AppAttestInstance.run { instance, client in
            let key = try SoftAppAttest.Key()
            #expect(try await instance.attest(client, key).status == 201)
            let challenge = try await instance.challenge(client).text
            let before = try await instance.snapshot()
            let keyID = Data(key.keyID).base64EncodedString()
            let bodies: [(String, [UInt8], String)] = [
                ("/v1/appattest/attestations", Array("not json".utf8), "malformed_json"),
                ("/v1/appattest/attestations", Array("[]".utf8), "malformed_json"),
                ("/v1/appattest/attestations", Array(#"{"keyId":"!!","attestationObject":"AA","challenge":"AA"}"#.utf8), "malformed_json"),
                ("/v1/appattest/attestations", Array(#"{"keyId":"\#(keyID)","attestationObject":"%%%","challenge":"\#(challenge)"}"#.utf8), "malformed_json"),
                ("/v1/appattest/assertions", Array(#"{"keyId":"\#(keyID)","assertion":5,"clientData":"AA"}"#.utf8), "malformed_json"),
                ("/v1/appattest/assertions", Array(#"{"keyId":"\#(keyID)"}"#.utf8), "malformed_json"),
            ]
            for (path, body, code) in bodies {
                let reply = try await client.post(path, body, headers: AppAttestInstance.api)
                #expect(reply.status == 400 && reply.errorCode == code, "\(String(decoding: body, as: UTF8.self))")
            }
            #expect(try await instance.snapshot() == before, "the challenge was not taken by requests that never named it validly")
            // Not CBOR (a valid challenge is used up, nothing else changes).
            let notCBOR = try await client.post(
                "/v1/appattest/attestations",
                json: ["keyId": Data(randomBytes(32)).base64EncodedString(), "attestationObject": Data([0xFF, 0x01]).base64EncodedString(), "challenge": challenge],
                headers: AppAttestInstance.api)
            #expect(notCBOR.status == 400 && notCBOR.errorCode == "appattest_malformed")
            let data = AppAttestInstance.clientData(try await instance.challenge(client).text)
            let badAssertion = try await client.post(
                "/v1/appattest/assertions",
                json: ["keyId": keyID, "assertion": Data([0xA0]).base64EncodedString(), "clientData": Base64URL.encode(data)],
                headers: AppAttestInstance.api)
            #expect(badAssertion.status == 400 && badAssertion.errorCode == "appattest_malformed")
            #expect(try await instance.schema.count("app_attest_keys") == 1)
            #expect(try await instance.storedCounter(key) == 0)
            // Without the API key: 401.
            #expect(try await client.post("/v1/appattest/challenge", Array("{}".utf8)).status == 401)
        }
    }

    @Test("concurrent assertions with one key: the counter never goes down, and of two equal counters exactly one wins")
    func concurrentAssertions() async throws {
        try await AppAttestInstance.run { instance, client in
            let key = try SoftAppAttest.Key()
            #expect(try await instance.attest(client, key).status == 201)
            for counter in UInt32(1)...6 {
                // Two assertions with the same counter (each with its own challenge), sent at once.
                let first = AppAttestInstance.clientData(try await instance.challenge(client).text)
                let second = AppAttestInstance.clientData(try await instance.challenge(client).text)
                async let a = instance.assert(client, key, counter: counter, clientData: first)
                async let b = instance.assert(client, key, counter: counter, clientData: second)
                let replies = try await [a, b]
                #expect(replies.filter { $0.status == 200 }.count == 1, "counter \(counter)")
                #expect(replies.filter { $0.errorCode == "appattest_counter_not_increasing" }.count == 1)
                #expect(try await instance.storedCounter(key) == Int64(counter))
            }
            // Many at once, mixed counters: the stored counter ends at the highest accepted and never went down.
            var data: [[UInt8]] = []
            for _ in 0..<8 { data.append(AppAttestInstance.clientData(try await instance.challenge(client).text)) }
            let counters: [UInt32] = [12, 9, 11, 10, 12, 8, 7, 9]
            let accepted = try await withThrowingTaskGroup(of: (UInt32, Int).self) { group in
                for (index, counter) in counters.enumerated() {
                    let clientData = data[index]
                    group.addTask { (counter, try await instance.assert(client, key, counter: counter, clientData: clientData).status) }
                }
                var accepted: [UInt32] = []
                for try await (counter, status) in group where status == 200 { accepted.append(counter) }
                return accepted
            }
            #expect(accepted.contains(12))
            #expect(accepted.filter { $0 == 12 }.count == 1)
            #expect(try await instance.storedCounter(key) == 12)
        }
    }
}
