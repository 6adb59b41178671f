import Foundation
import IdentityCore
import JOSE
import PasskeySettings
import Testing
import SettingsTestSupport

/// `PASSKEYD_IDTOKEN_*`: presets, generic providers, key locations, and every refusal naming its variable.
@Suite("Settings: ID-token providers")
struct IdentitySettingsTests {
    static func settings(_ extra: [String: String]) throws -> Settings { try Settings(SettingsFixtures.environment(extra)) }
    static func error(_ extra: [String: String]) -> ConfigurationError? { SettingsFixtures.error(extra) }

    @Test("none configured: no providers; the presets get their issuers, algorithms, nonce rules and published JWKS URLs")
    func presets() throws {
        #expect(try Self.settings([:]).identity.providers.isEmpty)
        let settings = try Self.settings([
            "PASSKEYD_IDTOKEN_PROVIDERS": "apple,line,google",
            "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "com.example.app, com.example.web",
            "PASSKEYD_IDTOKEN_LINE_CLIENT_IDS": "1234567890",
            "PASSKEYD_IDTOKEN_GOOGLE_CLIENT_IDS": "123-abc.apps.googleusercontent.com",
            "PASSKEYD_IDTOKEN_CLOCK_SKEW": "30", "PASSKEYD_IDTOKEN_SESSION_TIMEOUT": "120",
        ])
        let providers = settings.identity.providers
        #expect(providers.map(\.profile.name) == ["apple", "line", "google"])
        #expect(providers[0].profile.audiences == ["com.example.app", "com.example.web"])
        #expect(providers[0].profile.nonceRule == .sha256Hex && providers[0].profile.algorithms == [.rs256])
        #expect(providers[0].keys == .url("https://appleid.apple.com/auth/keys"))
        #expect(providers[1].profile.algorithms == [.es256] && providers[1].profile.nonceRule == .raw)
        #expect(providers[2].profile.issuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(providers.allSatisfy { $0.profile.clockSkew == 30 } && settings.identity.sessionTimeout == 120)
        #expect(settings.warnings.isEmpty, "\(settings.warnings)")
    }

    @Test("a generic provider: its issuer, discovery by default, a JWKS file or URL, algorithms and nonce rule")
    func generic() throws {
        let discovered = try Self.settings([
            "PASSKEYD_IDTOKEN_PROVIDERS": "acme-id", "PASSKEYD_IDTOKEN_ACME_ID_CLIENT_IDS": "client-1",
            "PASSKEYD_IDTOKEN_ACME_ID_ISSUER": "https://id.acme.test", "PASSKEYD_IDTOKEN_ACME_ID_ALGORITHMS": "ES256,PS256",
            "PASSKEYD_IDTOKEN_ACME_ID_NONCE": "sha256",
        ]).identity.providers[0]
        #expect(discovered.keys == .discovery(issuer: "https://id.acme.test"))
        #expect(discovered.profile.algorithms == [.es256, .ps256] && discovered.profile.nonceRule == .sha256Hex)
        let filed = try Self.settings([
            "PASSKEYD_IDTOKEN_PROVIDERS": "apple", "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "a", "PASSKEYD_IDTOKEN_APPLE_JWKS_FILE": "/etc/keys.json",
        ]).identity.providers[0]
        #expect(filed.keys == .file("/etc/keys.json"))
        let loopback = try Self.settings([
            "PASSKEYD_IDTOKEN_PROVIDERS": "apple", "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "a",
            "PASSKEYD_IDTOKEN_APPLE_JWKS_URL": "http://127.0.0.1:9000/jwks",
        ]).identity.providers[0]
        #expect(loopback.keys == .url("http://127.0.0.1:9000/jwks"))
    }

    @Test("refusals name the variable: no client ids, a bad name, a duplicate, both key sources, plain http, HMAC, a bad nonce rule")
    func refusals() {
        let apple = ["PASSKEYD_IDTOKEN_PROVIDERS": "apple", "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "a"]
        let cases: [([String: String], String)] = [
            (["PASSKEYD_IDTOKEN_PROVIDERS": "apple"], "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS"),
            (["PASSKEYD_IDTOKEN_PROVIDERS": "Apple!"], "PASSKEYD_IDTOKEN_PROVIDERS"),
            (apple.merging(["PASSKEYD_IDTOKEN_PROVIDERS": "apple,apple"]) { $1 }, "PASSKEYD_IDTOKEN_PROVIDERS"),
            (apple.merging(["PASSKEYD_IDTOKEN_APPLE_JWKS_URL": "https://x/j", "PASSKEYD_IDTOKEN_APPLE_JWKS_FILE": "/k"]) { $1 },
             "PASSKEYD_IDTOKEN_APPLE_JWKS_FILE"),
            (apple.merging(["PASSKEYD_IDTOKEN_APPLE_JWKS_URL": "http://keys.example.com/jwks"]) { $1 }, "PASSKEYD_IDTOKEN_APPLE_JWKS_URL"),
            (apple.merging(["PASSKEYD_IDTOKEN_APPLE_ALGORITHMS": "HS256"]) { $1 }, "PASSKEYD_IDTOKEN_APPLE_ALGORITHMS"),
            (apple.merging(["PASSKEYD_IDTOKEN_APPLE_ALGORITHMS": "none"]) { $1 }, "PASSKEYD_IDTOKEN_APPLE_ALGORITHMS"),
            (apple.merging(["PASSKEYD_IDTOKEN_APPLE_NONCE": "md5"]) { $1 }, "PASSKEYD_IDTOKEN_APPLE_NONCE"),
            (["PASSKEYD_IDTOKEN_PROVIDERS": "acme", "PASSKEYD_IDTOKEN_ACME_CLIENT_IDS": "c"], "PASSKEYD_IDTOKEN_ACME_ISSUER"),
            (["PASSKEYD_IDTOKEN_PROVIDERS": "line", "PASSKEYD_IDTOKEN_LINE_CLIENT_IDS": "1",
              "PASSKEYD_IDTOKEN_LINE_CHANNEL_SECRET_FILE": "/nonexistent/secret"], "PASSKEYD_IDTOKEN_LINE_CHANNEL_SECRET_FILE"),
            (apple.merging(["PASSKEYD_IDTOKEN_CLOCK_SKEW": "3600"]) { $1 }, "PASSKEYD_IDTOKEN_CLOCK_SKEW"),
        ]
        for (environment, variable) in cases {
            #expect(Self.error(environment)?.variable == variable, "\(environment) → \(Self.error(environment)?.description ?? "accepted")")
        }
    }

    @Test("LINE's channel secret file enables HS256 with that secret; variables of unlisted providers are warned about")
    func channelSecretAndWarnings() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("line-secret-\(UUID().uuidString)")
        try Data("a-channel-secret-of-32-characters\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let settings = try Self.settings([
            "PASSKEYD_IDTOKEN_PROVIDERS": "line", "PASSKEYD_IDTOKEN_LINE_CLIENT_IDS": "1",
            "PASSKEYD_IDTOKEN_LINE_CHANNEL_SECRET_FILE": file.path, "PASSKEYD_IDTOKEN_GOOGLE_CLIENT_IDS": "g",
        ])
        let line = settings.identity.providers[0].profile
        #expect(line.effectiveAlgorithms == [.es256, .hs256] && line.hmacSecret == Array("a-channel-secret-of-32-characters".utf8))
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_IDTOKEN_GOOGLE_CLIENT_IDS: unknown variable") }, "\(settings.warnings)")
    }
}
