import PasskeyApp
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport
import SettingsTestSupport

/// `PASSKEYD_APPLE_APP_IDS`, `PASSKEYD_ANDROID_APPS`, `PASSKEYD_RELATED_ORIGINS`: parsed and checked at start, served
/// under `/.well-known/` as the platforms expect, and the Android apps' origins accepted.
@Suite("Native-app association and related origins")
struct WellKnownTests {
    static func settings(_ extra: [String: String]) throws -> Settings { try Settings(SettingsFixtures.environment(extra)) }
    static func error(_ extra: [String: String]) -> ConfigurationError? { SettingsFixtures.error(extra) }

    /// A fingerprint as `keytool` prints it, and the same 32 bytes.
    static let fingerprintText = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    static let fingerprint: [UInt8] = [
        0x14, 0x6D, 0xE9, 0x83, 0xC5, 0x73, 0x06, 0x50, 0xD8, 0xEE, 0xB9, 0x95, 0x2F, 0x34, 0xFC, 0x64,
        0x16, 0xA0, 0x83, 0x42, 0xE6, 0x1D, 0xBE, 0xA8, 0x8A, 0x04, 0x96, 0xB2, 0x3F, 0xCF, 0x44, 0xE5,
    ]
    static let second = String(repeating: "ab", count: 32)

    static let configured: [String: String] = [
        "PASSKEYD_RP_ID": "example.com",
        "PASSKEYD_ORIGINS": "https://example.com,https://login.example.com,https://example.co.uk",
        "PASSKEYD_APPLE_APP_IDS": "ABCDE12345.com.example.app, ABCDE12345.com.example.app, FGHIJ67890.com.example.other",
        "PASSKEYD_ANDROID_APPS": "com.example.app=\(fingerprintText)|\(second), com.example.other_2=\(second.uppercased())",
    ]

    @Test("parsed: App IDs deduplicated, fingerprints in either form, Android origins accepted, related origins derived")
    func parsed() throws {
        let settings = try Self.settings(Self.configured)
        let association = settings.association
        #expect(association.appleAppIDs == ["ABCDE12345.com.example.app", "FGHIJ67890.com.example.other"])
        #expect(association.androidApps.map(\.packageName) == ["com.example.app", "com.example.other_2"])
        #expect(association.androidApps[0].fingerprints == [Self.fingerprint, Array(repeating: 0xAB, count: 32)])
        // android:apk-key-hash: + base64url without padding of the certificate's SHA-256.
        let origin = "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU"
        #expect(association.nativeOrigins.first == origin)
        #expect(settings.relyingParty.allowedOrigins.contains(origin))
        #expect(settings.relyingParty.allowedOrigins.count == 3 + 2, "three web origins, two distinct fingerprints")
        // The default list: the web origins outside the RP id (a subdomain is not one).
        #expect(association.relatedOrigins == ["https://example.co.uk"])
        #expect(!settings.warnings.contains { $0.hasPrefix("PASSKEYD_APPLE_APP_IDS") }, "\(settings.warnings)")
        #expect(settings.warnings.contains { $0.contains("https://example.co.uk") && $0.contains("/.well-known/webauthn") })

        let plain = try Self.settings([:])
        #expect(plain.association.appleAppIDs.isEmpty && plain.association.androidApps.isEmpty && plain.association.relatedOrigins.isEmpty)
    }

    @Test("every refusal names its variable")
    func refusals() {
        let cases: [(String, String, [String: String])] = [
            ("PASSKEYD_APPLE_APP_IDS", "team id too short", ["PASSKEYD_APPLE_APP_IDS": "ABCDE1234.com.example.app"]),
            ("PASSKEYD_APPLE_APP_IDS", "no bundle id", ["PASSKEYD_APPLE_APP_IDS": "ABCDE12345."]),
            ("PASSKEYD_APPLE_APP_IDS", "bundle id with a slash", ["PASSKEYD_APPLE_APP_IDS": "ABCDE12345.com/example"]),
            ("PASSKEYD_ANDROID_APPS", "no fingerprint", ["PASSKEYD_ANDROID_APPS": "com.example.app"]),
            ("PASSKEYD_ANDROID_APPS", "short fingerprint", ["PASSKEYD_ANDROID_APPS": "com.example.app=14:6D:E9"]),
            ("PASSKEYD_ANDROID_APPS", "not hex", ["PASSKEYD_ANDROID_APPS": "com.example.app=" + String(repeating: "zz", count: 32)]),
            ("PASSKEYD_ANDROID_APPS", "one-part package", ["PASSKEYD_ANDROID_APPS": "example=\(Self.second)"]),
            ("PASSKEYD_ANDROID_APPS", "package part starting with a digit", ["PASSKEYD_ANDROID_APPS": "com.1example=\(Self.second)"]),
            ("PASSKEYD_ANDROID_APPS", "package twice", ["PASSKEYD_ANDROID_APPS": "com.example.app=\(Self.second),com.example.app=\(Self.fingerprintText)"]),
            ("PASSKEYD_RELATED_ORIGINS", "not a web origin", [
                "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://example.com", "PASSKEYD_RELATED_ORIGINS": "example.co.uk",
            ]),
            ("PASSKEYD_RELATED_ORIGINS", "listed but not accepted", [
                "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://example.com", "PASSKEYD_RELATED_ORIGINS": "https://example.co.uk",
            ]),
            ("PASSKEYD_RELATED_ORIGINS", "an accepted foreign origin left out", [
                "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://example.com,https://example.co.uk,https://example.de",
                "PASSKEYD_RELATED_ORIGINS": "https://example.co.uk",
            ]),
        ]
        for (variable, what, environment) in cases {
            let error = Self.error(environment)
            #expect(error?.variable == variable, "\(what): \(String(describing: error))")
        }
    }

    @Test("an explicit related-origins list is served as given; more than five labels and a missing iOS origin are warnings")
    func relatedOriginsAndWarnings() throws {
        let explicit = try Self.settings([
            "PASSKEYD_RP_ID": "example.com",
            "PASSKEYD_ORIGINS": "https://example.com,https://example.co.uk,https://shop.example.de",
            "PASSKEYD_RELATED_ORIGINS": "https://shop.example.de,https://example.co.uk,https://example.com",
        ])
        #expect(explicit.association.relatedOrigins == ["https://shop.example.de", "https://example.co.uk", "https://example.com"])
        #expect(!explicit.warnings.contains { $0.hasPrefix("PASSKEYD_RELATED_ORIGINS") })

        let brands = ["alpha.com", "beta.co.uk", "gamma.de", "delta.com.au", "epsilon.fr", "zeta.io"]
        let many = try Self.settings([
            "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": (["https://example.com"] + brands.map { "https://\($0)" }).joined(separator: ","),
        ])
        #expect(many.association.relatedOrigins.count == 6)
        #expect(many.warnings.contains { $0.hasPrefix("PASSKEYD_RELATED_ORIGINS: 6 distinct domain labels (alpha, beta, gamma, delta, epsilon, zeta)") },
            "\(many.warnings)")
        // Five labels, one of them twice (example.com and example.co.uk share "example"): no warning.
        let five = try Self.settings([
            "PASSKEYD_RP_ID": "example.com",
            "PASSKEYD_ORIGINS": "https://example.com,https://example.co.uk,https://alpha.com,https://beta.de,https://gamma.fr,https://delta.io",
        ])
        #expect(!five.warnings.contains { $0.hasPrefix("PASSKEYD_RELATED_ORIGINS") }, "\(five.warnings)")

        let noWebOrigin = try Self.settings([
            "PASSKEYD_RP_ID": "example.com", "PASSKEYD_ORIGINS": "https://login.example.com", "PASSKEYD_APPLE_APP_IDS": "ABCDE12345.com.example.app",
        ])
        #expect(noWebOrigin.warnings.contains { $0.hasPrefix("PASSKEYD_APPLE_APP_IDS: iOS apps send the origin https://example.com") })
    }

    /// The instance of a configuration, in memory, without rate limits.
    static func app(_ settings: Settings) async throws -> some ApplicationProtocol {
        var settings = settings
        settings.rateLimits = .off
        return try await TestPasskeyd.build(settings, store: InMemoryPasskeyStore()).http
    }

    @Test("served as the platforms expect: JSON, 200, no redirect, no key; absent (404) when not configured")
    func served() async throws {
        let settings = try Self.settings(Self.configured.merging(["PASSKEYD_API_KEYS": String(repeating: "k", count: 32)]) { $1 })
        try await Self.app(settings).test(.router) { client in
            let apple = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get)
            #expect(apple.status == .ok && apple.headers[.contentType] == "application/json" && apple.headers[.location] == nil)
            #expect(String(buffer: apple.body) == #"{"webcredentials":{"apps":["ABCDE12345.com.example.app","FGHIJ67890.com.example.other"]}}"#)

            let android = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get)
            #expect(android.status == .ok && android.headers[.contentType] == "application/json")
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(android.body.readableBytesView)) as? [[String: Any]])
            #expect(statements.count == 2)
            #expect(statements.allSatisfy { ($0["relation"] as? [String]) == ["delegate_permission/common.get_login_creds"] })
            let target = try #require(statements[0]["target"] as? [String: Any])
            #expect(target["namespace"] as? String == "android_app" && target["package_name"] as? String == "com.example.app")
            #expect(target["sha256_cert_fingerprints"] as? [String] == [Self.fingerprintText, Array(repeating: "AB", count: 32).joined(separator: ":")])

            let related = try await client.execute(uri: "/.well-known/webauthn", method: .get)
            #expect(related.status == .ok && related.headers[.contentType] == "application/json")
            #expect(String(buffer: related.body) == #"{"origins":["https://example.co.uk"]}"#)
            #expect(related.headers[.cacheControl] == "public, max-age=3600")
        }
        try await Self.app(try Self.settings([:])).test(.router) { client in
            for path in ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/.well-known/webauthn"] {
                let reply = try await client.execute(uri: path, method: .get)
                #expect(reply.status == .notFound, "\(path)")
            }
        }
    }

    @Test("an Android app's ceremony, with the origin derived from its fingerprint, verifies; another fingerprint's does not")
    func androidOrigin() throws {
        let settings = try Self.settings(Self.configured)
        let rp = settings.relyingParty
        let now = Date()
        let user = try UserEntity(id: Array(repeating: 7, count: 16), name: "ada", displayName: "Ada")
        for (origin, accepted) in [
            ("android:apk-key-hash:" + Base64URL.encode(Self.fingerprint), true),
            ("android:apk-key-hash:" + Base64URL.encode(Array(repeating: 0xCD, count: 32)), false),
        ] {
            let (options, state) = rp.beginRegistration(user: user, excludeCredentials: [], now: now)
            let (response, _) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: origin))
            do {
                _ = try rp.finishRegistration(response, state: state, now: now)
                #expect(accepted, "\(origin) accepted")
            } catch {
                #expect(!accepted && error.code == .originNotAllowed, "\(origin): \(error)")
            }
        }
    }
}
