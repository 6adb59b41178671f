import COSECrypto
import Foundation
import PasskeySettings
import Testing
import SettingsTestSupport

@Suite("Settings: Sign in with Apple's code exchange")
struct AppleExchangeSettingsTests {
    /// Files for one test: an Apple .p8, a key-encryption key, and a few wrong ones.
    struct Files {
        let directory: URL
        var p8: String { directory.appendingPathComponent("AuthKey.p8").path }
        var rsa: String { directory.appendingPathComponent("rsa.p8").path }
        var kek: String { directory.appendingPathComponent("kek").path }
        var shortKEK: String { directory.appendingPathComponent("short-kek").path }
        var notPEM: String { directory.appendingPathComponent("not.pem").path }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-settings-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            func pem(_ key: PrivateKey) -> String {
                "-----BEGIN PRIVATE KEY-----\n\(Data(key.pkcs8DER()).base64EncodedString(options: .lineLength64Characters))\n-----END PRIVATE KEY-----\n"
            }
            try pem(try PrivateKey.generate(for: .es256)).write(toFile: p8, atomically: true, encoding: .utf8)
            try pem(try PrivateKey.generate(for: .rs256)).write(toFile: rsa, atomically: true, encoding: .utf8)
            try (Data(SecureRandom.bytes(count: 32)).base64EncodedString() + "\n").write(toFile: kek, atomically: true, encoding: .utf8)
            try Data(SecureRandom.bytes(count: 16)).base64EncodedString().write(toFile: shortKEK, atomically: true, encoding: .utf8)
            try "hello".write(toFile: notPEM, atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        func environment(_ changes: [String: String?] = [:]) -> [String: String] {
            var environment = [
                "PASSKEYD_IDTOKEN_PROVIDERS": "apple", "PASSKEYD_IDTOKEN_APPLE_CLIENT_IDS": "com.example.app",
                "PASSKEYD_IDTOKEN_APPLE_TEAM_ID": "TEAM123456", "PASSKEYD_IDTOKEN_APPLE_KEY_ID": "KEY1234567",
                "PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE": p8, "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": kek,
            ]
            for (name, value) in changes { environment[name] = value }
            return SettingsFixtures.environment(environment)
        }
    }

    @Test("configured: the key, the key-encryption key and Apple's default URLs; none of it: no exchange")
    func configured() throws {
        let files = try Files()
        defer { files.remove() }
        let settings = try Settings(files.environment())
        let apple = try #require(settings.identity.appleCodeExchange)
        #expect(apple.teamID == "TEAM123456" && apple.keyID == "KEY1234567" && apple.privateKey.algorithm == .es256)
        #expect(apple.keyEncryptionKey.count == 32)
        #expect(apple.tokenURL == "https://appleid.apple.com/auth/token" && apple.revokeURL == "https://appleid.apple.com/auth/revoke")
        #expect(settings.warnings.isEmpty, "\(settings.warnings)")

        let local = try Settings(files.environment([
            "PASSKEYD_IDTOKEN_APPLE_TOKEN_URL": "http://127.0.0.1:9/auth/token", "PASSKEYD_IDTOKEN_APPLE_REVOKE_URL": "https://apple.test/r",
        ]))
        #expect(local.identity.appleCodeExchange?.tokenURL == "http://127.0.0.1:9/auth/token")
        #expect(local.identity.appleCodeExchange?.revokeURL == "https://apple.test/r")

        let none = try Settings(files.environment([
            "PASSKEYD_IDTOKEN_APPLE_TEAM_ID": nil, "PASSKEYD_IDTOKEN_APPLE_KEY_ID": nil, "PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE": nil,
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": nil,
        ]))
        #expect(none.identity.appleCodeExchange == nil && none.warnings.isEmpty)
    }

    @Test("all or none of team, key id and key file; the key-encryption key required; each file checked; naming the variable")
    func errors() throws {
        let files = try Files()
        defer { files.remove() }
        let cases: [([String: String?], String)] = [
            (["PASSKEYD_IDTOKEN_APPLE_TEAM_ID": nil], "PASSKEYD_IDTOKEN_APPLE_TEAM_ID"),
            (["PASSKEYD_IDTOKEN_APPLE_KEY_ID": nil], "PASSKEYD_IDTOKEN_APPLE_KEY_ID"),
            (["PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE": nil], "PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE"),
            (["PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE": "/nonexistent/AuthKey.p8"], "PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE"),
            (["PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE": files.notPEM], "PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE"),
            (["PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE": files.rsa], "PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE"),
            (["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": nil], "PASSKEYD_KEY_ENCRYPTION_KEY_FILE"),
            (["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": "/nonexistent/kek"], "PASSKEYD_KEY_ENCRYPTION_KEY_FILE"),
            (["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": files.shortKEK], "PASSKEYD_KEY_ENCRYPTION_KEY_FILE"),
            (["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": files.notPEM], "PASSKEYD_KEY_ENCRYPTION_KEY_FILE"),
            (["PASSKEYD_IDTOKEN_APPLE_TOKEN_URL": "http://appleid.apple.com/auth/token"], "PASSKEYD_IDTOKEN_APPLE_TOKEN_URL"),
            (["PASSKEYD_IDTOKEN_APPLE_REVOKE_URL": "ftp://x/"], "PASSKEYD_IDTOKEN_APPLE_REVOKE_URL"),
            (["PASSKEYD_IDTOKEN_APPLE_TEAM_ID": ""], "PASSKEYD_IDTOKEN_APPLE_TEAM_ID"),
        ]
        for (changes, variable) in cases {
            do {
                _ = try Settings(files.environment(changes))
                Issue.record("no error for \(changes)")
            } catch {
                #expect(error.variable == variable, "\(changes): \(error)")
            }
        }
    }

    @Test("Apple-only variables on another provider, or without apple listed, are warned about")
    func warnings() throws {
        let files = try Files()
        defer { files.remove() }
        let line = try Settings(SettingsFixtures.environment([
            "PASSKEYD_IDTOKEN_PROVIDERS": "line", "PASSKEYD_IDTOKEN_LINE_CLIENT_IDS": "1", "PASSKEYD_IDTOKEN_LINE_TEAM_ID": "T",
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": files.kek,
        ]))
        #expect(line.identity.appleCodeExchange == nil)
        #expect(line.warnings.contains { $0.hasPrefix("PASSKEYD_IDTOKEN_LINE_TEAM_ID") })
        // The key-encryption key seals the ceremony keys; only with ceremony key files (and no sessions) is it unused.
        #expect(!line.warnings.contains { $0.hasPrefix("PASSKEYD_KEY_ENCRYPTION_KEY_FILE") })
        let unused = try Settings(SettingsFixtures.environment([
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": files.kek, "PASSKEYD_CEREMONY_KEY_FILES": files.kek,
        ]))
        #expect(unused.warnings.contains { $0.hasPrefix("PASSKEYD_KEY_ENCRYPTION_KEY_FILE: ignored") })
    }
}
