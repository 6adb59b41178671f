import COSECrypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityCore
import JOSE
import PasskeyServerSupport
import PasskeyStore
import Synchronization
import Testing

/// `buildApplication(settings:store:dependencies:)`: what each domain's settings switch on (its use case, its
/// routes, its background services), and what stays off by default.
@Suite("buildApplication: settings to an instance")
struct BuildApplicationTests {
    static let vectors = AppleRoots()

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-build-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every domain on: sessions (database keys), an ID-token provider, App Store, App Attest, the admin API.
    static func everything() throws -> [String: String] {
        [
            "PASSKEYD_API_KEYS": "build-test-api-key-0123456789", "PASSKEYD_ADMIN_KEYS": "build-test-admin-key-0123456789",
            "PASSKEYD_SESSIONS": "on",
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try file(Data(SecureRandom.bytes(count: 32)).base64EncodedString()),
            "PASSKEYD_IDTOKEN_PROVIDERS": "google", "PASSKEYD_IDTOKEN_GOOGLE_CLIENT_IDS": "123-abc.apps.googleusercontent.com",
            "PASSKEYD_APPSTORE_BUNDLE_ID": "com.example.app", "PASSKEYD_APPSTORE_APP_APPLE_ID": "1234",
            "PASSKEYD_APPSTORE_ROOT_FILES": vectors.appStoreRoot,
            "PASSKEYD_APPATTEST_APP_IDS": "ABCDE12345.com.example.app", "PASSKEYD_APPATTEST_ROOT_FILE": vectors.appAttestRoot,
        ]
    }

    @Test("defaults: passkeys only; the other domains' routes are 404 and only the ceremony purge runs")
    func defaults() async throws {
        let passkeyd = try await TestPasskeyd.build(try TestPasskeyd.settings(), store: InMemoryPasskeyStore())
        #expect(passkeyd.identity == nil && passkeyd.sessions == nil && passkeyd.appStore == nil && passkeyd.appAttest == nil)
        #expect(passkeyd.background.map(\.description) == ["ceremony purge"])
        #expect(passkeyd.services.count == 2)
        try await passkeyd.http.test(.router) { (client: any TestClientProtocol) async throws in
            #expect(try await client.post("/v1/registration/begin", json: ["user": ["name": "ada"]]).status == 200)
            for path in ["/v1/idtoken/begin", "/v1/sessions/refresh", "/v1/appattest/challenge"] {
                #expect(try await client.post(path, Array("{}".utf8)).status == 404, "\(path)")
            }
            #expect(try await client.get("/v1/admin/users").status == 404)
            #expect(try await client.get("/metrics").status == 404, "no exporter given")
        }
    }

    @Test("every domain configured: each use case, its background service, its routes; provider keys from the dependency")
    func everything() async throws {
        let asked = Mutex<[String]>([])
        let passkeyd = try await TestPasskeyd.build(
            try TestPasskeyd.settings(Self.everything()), store: InMemoryPasskeyStore(),
            metricsExporter: { Array("# metrics\n".utf8) },
            providerKeys: { provider in
                asked.withLock { $0.append(provider.profile.name) }
                return StaticKeySource(JWKSet(keys: []))
            }, ceremonyKeyRing: nil)  // the ceremony keys the settings configure (the key-encryption key), in either test mode
        #expect(passkeyd.identity != nil && passkeyd.sessions != nil && passkeyd.appStore != nil && passkeyd.appAttest != nil)
        #expect(asked.withLock { $0 } == ["google"])
        #expect(Set(passkeyd.background.map(\.description)) == [
            "ceremony purge", "ceremony key refresh and purge", "session key rotation and purge", "App Store notification purge",
        ])
        let api: HTTPFields = [.authorization: "Bearer build-test-api-key-0123456789"]
        let admin: HTTPFields = [.authorization: "Bearer build-test-admin-key-0123456789"]
        try await passkeyd.http.test(.router) { (client: any TestClientProtocol) async throws in
            #expect(try await client.post("/v1/idtoken/begin", json: ["provider": "google"], headers: api).status == 200)
            #expect(try await client.post("/v1/appattest/challenge", Array("{}".utf8), headers: api).status == 200)
            let refresh = try await client.post("/v1/sessions/refresh", json: ["refreshToken": "x"])
            #expect(refresh.status == 400 && refresh.errorCode == "refresh_token_malformed", "\(refresh.status) \(refresh.errorCode ?? "-")")
            #expect(try await client.get("/.well-known/jwks.json").status == 200)
            #expect(try await client.get("/v1/admin/users", headers: admin).status == 200)
            #expect(try await client.get("/metrics").status == 200)
        }
    }

    @Test("PASSKEYD_METRICS=off: no /metrics route even with an exporter")
    func metricsOff() async throws {
        let passkeyd = try await TestPasskeyd.build(
            try TestPasskeyd.settings(["PASSKEYD_METRICS": "off"]), store: InMemoryPasskeyStore(), metricsExporter: { [] })
        try await passkeyd.http.test(.router) { (client: any TestClientProtocol) async throws in #expect(try await client.get("/metrics").status == 404) }
    }
}

/// The Apple roots in `../shared/vectors` the App Store and App Attest settings need.
struct AppleRoots {
    let appStoreRoot: String
    let appAttestRoot: String

    init() {
        let vectors = PostgresHTTP.repository.deletingLastPathComponent().appendingPathComponent("shared/vectors/apple")
        appStoreRoot = vectors.appendingPathComponent("storekit/certs/AppleRootCA-G3.pem").path
        appAttestRoot = vectors.appendingPathComponent("appattest/certs/Apple_App_Attestation_Root_CA.pem").path
    }
}
