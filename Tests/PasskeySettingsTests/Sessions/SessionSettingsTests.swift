import COSECrypto
import Foundation
import PasskeySettings
import SessionCore
import Testing
import SettingsTestSupport

/// `PASSKEYD_SESSION*`: off by default, the defaults when on, key sources, and every refusal naming its variable.
@Suite("Settings: sessions")
struct SessionSettingsTests {
    static func settings(_ extra: [String: String]) throws -> Settings { try Settings(SettingsFixtures.environment(extra)) }
    static func error(_ extra: [String: String]) -> ConfigurationError? { SettingsFixtures.error(extra) }

    /// A file under the temporary directory holding `text`.
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-session-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func kek() throws -> String { try file(Data(SecureRandom.bytes(count: 32)).base64EncodedString()) }

    static func pem(_ key: PrivateKey) -> String {
        "-----BEGIN PRIVATE KEY-----\n" + Data(key.pkcs8DER()).base64EncodedString(options: [.lineLength64Characters]) + "\n-----END PRIVATE KEY-----\n"
    }

    @Test("off by default (its variables are then warned about); on: issuer from the RP id, the documented defaults")
    func defaults() throws {
        #expect(try Self.settings([:]).sessions == nil)
        let off = try Self.settings(["PASSKEYD_SESSION_ISSUER": "https://x.example"])
        #expect(off.sessions == nil && off.warnings.contains { $0.hasPrefix("PASSKEYD_SESSION_ISSUER: ignored while PASSKEYD_SESSIONS is off") })
        let on = try #require(try Self.settings(["PASSKEYD_SESSIONS": "on", "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.kek()]).sessions)
        #expect(on.policy.issuer == "https://localhost" && on.policy.audiences == ["https://localhost"])
        #expect(on.policy.accessTokenLifetime == 600 && on.policy.refreshIdleLifetime == 30 * 86_400 && on.policy.refreshAbsoluteLifetime == 90 * 86_400)
        #expect(on.policy.handoffLifetime == 30 && on.policy.signingAlgorithm == .es256)
        #expect(!on.issueOnRegistration && on.revokeOnDelete && on.cookieName == "passkeyd_refresh")
        guard case .database(let kek, let rotation) = on.keys else { Issue.record("database keys expected"); return }
        #expect(kek.count == 32 && rotation == 30 * 86_400)
    }

    @Test("every variable is read: issuer, audiences, lifetimes, algorithm, registration, revocation, handoff, cookie")
    func everything() throws {
        let on = try #require(try Self.settings([
            "PASSKEYD_SESSIONS": "on", "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.kek(),
            "PASSKEYD_SESSION_ISSUER": "https://login.example.com", "PASSKEYD_SESSION_AUDIENCES": "https://a.example, https://b.example",
            "PASSKEYD_SESSION_ACCESS_TTL": "300", "PASSKEYD_SESSION_IDLE_TTL": "3600", "PASSKEYD_SESSION_MAX_TTL": "7200",
            "PASSKEYD_SESSION_ALGORITHM": "EdDSA", "PASSKEYD_SESSION_KEY_ROTATION": "86400", "PASSKEYD_SESSION_ON_REGISTRATION": "on",
            "PASSKEYD_SESSION_REVOKE_ON_DELETE": "off", "PASSKEYD_HANDOFF_TTL": "10", "PASSKEYD_SESSION_COOKIE": "app_session",
        ]).sessions)
        #expect(on.policy.issuer == "https://login.example.com" && on.policy.audiences == ["https://a.example", "https://b.example"])
        #expect(on.policy.accessTokenLifetime == 300 && on.policy.refreshIdleLifetime == 3600 && on.policy.refreshAbsoluteLifetime == 7200)
        #expect(on.policy.signingAlgorithm == .edDSA && on.issueOnRegistration && !on.revokeOnDelete)
        #expect(on.policy.handoffLifetime == 10 && on.cookieName == "app_session")
        guard case .database(_, let rotation) = on.keys else { Issue.record("database keys expected"); return }
        #expect(rotation == 86_400)
    }

    @Test("key files instead of the database: P-256 and Ed25519 PEM keys, the first signs; no key-encryption key needed")
    func keyFiles() throws {
        let es = try PrivateKey.generate(for: .es256)
        let ed = try PrivateKey.generate(for: .edDSA)
        let settings = try Self.settings([
            "PASSKEYD_SESSIONS": "on", "PASSKEYD_SESSION_KEY_FILES": "\(try Self.file(Self.pem(es))),\(try Self.file(Self.pem(ed)))",
            "PASSKEYD_SESSION_KEY_ROTATION": "86400",
        ])
        guard case .files(let keys)? = settings.sessions?.keys else { Issue.record("key files expected"); return }
        #expect(keys.map(\.algorithm) == [.es256, .edDSA])
        #expect(keys[0].privateKey.publicKey.isEqual(to: es.publicKey))
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_SESSION_KEY_ROTATION: ignored with PASSKEYD_SESSION_KEY_FILES") })
    }

    @Test("refusals name their variable")
    func refusals() throws {
        let kek = try Self.kek()
        let on = ["PASSKEYD_SESSIONS": "on", "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": kek]
        func refused(_ extra: [String: String], _ variable: String, base: [String: String] = on) {
            let error = Self.error(base.merging(extra) { $1 })
            #expect(error?.variable == variable, "\(extra): \(String(describing: error))")
        }
        refused(["PASSKEYD_SESSIONS": "maybe"], "PASSKEYD_SESSIONS")
        refused([:], "PASSKEYD_KEY_ENCRYPTION_KEY_FILE", base: ["PASSKEYD_SESSIONS": "on"])
        refused(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.file("c2hvcnQ=")], "PASSKEYD_KEY_ENCRYPTION_KEY_FILE")
        refused(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": "/nonexistent/kek"], "PASSKEYD_KEY_ENCRYPTION_KEY_FILE")
        refused(["PASSKEYD_SESSION_ACCESS_TTL": "59"], "PASSKEYD_SESSION_ACCESS_TTL")
        refused(["PASSKEYD_SESSION_IDLE_TTL": "7200", "PASSKEYD_SESSION_MAX_TTL": "3600"], "PASSKEYD_SESSION_MAX_TTL")
        refused(["PASSKEYD_SESSION_ALGORITHM": "HS256"], "PASSKEYD_SESSION_ALGORITHM")
        refused(["PASSKEYD_SESSION_KEY_ROTATION": "60"], "PASSKEYD_SESSION_KEY_ROTATION")
        refused(["PASSKEYD_HANDOFF_TTL": "61"], "PASSKEYD_HANDOFF_TTL")
        refused(["PASSKEYD_SESSION_COOKIE": "a;b"], "PASSKEYD_SESSION_COOKIE")
        refused(["PASSKEYD_SESSION_KEY_FILES": try Self.file("not a key")], "PASSKEYD_SESSION_KEY_FILES")
        let rsa = try PrivateKey.generate(for: .rs256)
        refused(["PASSKEYD_SESSION_KEY_FILES": try Self.file(Self.pem(rsa))], "PASSKEYD_SESSION_KEY_FILES")
    }
}
