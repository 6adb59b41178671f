import COSECrypto
import Foundation
import PasskeySettings
import SettingsTestSupport
import Testing

/// `PASSKEYD_CEREMONY_KEY_ROTATION`, `PASSKEYD_CEREMONY_KEY_FILES` and `PASSKEYD_CLOCK_SKEW`: stored ceremonies without
/// a key-encryption key or key files, database keys with one, key files over it, and every refusal naming its variable.
@Suite("Settings: ceremony keys")
struct CeremonyKeySettingsTests {
    static func settings(_ extra: [String: String]) throws -> Settings { try Settings(SettingsFixtures.environment(extra)) }
    static func error(_ extra: [String: String]) -> ConfigurationError? { SettingsFixtures.error(extra) }

    /// A file under the temporary directory holding `text`.
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-ceremony-key-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A file with 32 bytes in base64 (a trailing newline, as `openssl rand -base64 32` writes it), and those bytes.
    static func key() throws -> (path: String, bytes: [UInt8]) {
        let bytes = SecureRandom.bytes(count: 32)
        return (try file(Data(bytes).base64EncodedString() + "\n"), bytes)
    }

    @Test("neither a key-encryption key nor key files: stored ceremonies, clock skew 30 s; the rotation is then warned about")
    func storedByDefault() throws {
        let plain = try Self.settings([:])
        #expect(plain.ceremonyKeys == nil && plain.clockSkew == 30)
        #expect(!plain.warnings.contains { $0.hasPrefix("PASSKEYD_CEREMONY_KEY") })
        let rotation = try Self.settings(["PASSKEYD_CEREMONY_KEY_ROTATION": "7200"])
        #expect(rotation.ceremonyKeys == nil)
        #expect(rotation.warnings.contains { $0.hasPrefix("PASSKEYD_CEREMONY_KEY_ROTATION: ignored without PASSKEYD_KEY_ENCRYPTION_KEY_FILE") })
    }

    @Test("a key-encryption key: keys in the database, rotated daily by default or as set; the clock skew as set")
    func database() throws {
        let kek = try Self.key()
        let daily = try #require(try Self.settings(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": kek.path]).ceremonyKeys)
        #expect(!(try Self.settings(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": kek.path])).warnings.contains { $0.hasPrefix("PASSKEYD_KEY_ENCRYPTION_KEY_FILE") },
                "it seals the ceremony keys")
        guard case .database(let key, let rotation) = daily.keys else { Issue.record("database keys expected"); return }
        #expect(key == kek.bytes && rotation == 86_400)

        let set = try Self.settings([
            "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": kek.path, "PASSKEYD_CEREMONY_KEY_ROTATION": "3600", "PASSKEYD_CLOCK_SKEW": "0",
        ])
        guard case .database(_, let hourly) = set.ceremonyKeys?.keys else { Issue.record("database keys expected"); return }
        #expect(hourly == 3600 && set.clockSkew == 0 && !set.warnings.contains { $0.hasPrefix("PASSKEYD_CEREMONY") })
        #expect(try Self.settings(["PASSKEYD_CEREMONY_KEY_ROTATION": "2678400", "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": kek.path])
            .ceremonyKeys != nil, "31 days")
        #expect(try Self.settings(["PASSKEYD_CLOCK_SKEW": "300"]).clockSkew == 300)
    }

    @Test("key files: in the order listed, with or without a key-encryption key; the rotation is then warned about")
    func files() throws {
        let (first, second) = (try Self.key(), try Self.key())
        let settings = try Self.settings([
            "PASSKEYD_CEREMONY_KEY_FILES": "\(first.path), \(second.path)", "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.key().path,
            "PASSKEYD_CEREMONY_KEY_ROTATION": "3600",
        ])
        guard case .files(let secrets) = settings.ceremonyKeys?.keys else { Issue.record("key files expected"); return }
        #expect(secrets == [first.bytes, second.bytes])
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_CEREMONY_KEY_ROTATION: ignored with PASSKEYD_CEREMONY_KEY_FILES") })
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_KEY_ENCRYPTION_KEY_FILE: ignored") }, "it seals nothing here")
        guard case .files(let alone) = try Self.settings(["PASSKEYD_CEREMONY_KEY_FILES": first.path]).ceremonyKeys?.keys else {
            Issue.record("key files expected")
            return
        }
        #expect(alone == [first.bytes])
    }

    @Test("refusals name their variable and never quote a key", arguments: [
        ("PASSKEYD_CEREMONY_KEY_ROTATION", "3599"), ("PASSKEYD_CEREMONY_KEY_ROTATION", "2678401"), ("PASSKEYD_CEREMONY_KEY_ROTATION", "1d"),
        ("PASSKEYD_CLOCK_SKEW", "-1"), ("PASSKEYD_CLOCK_SKEW", "301"), ("PASSKEYD_CLOCK_SKEW", "soon"),
    ])
    func rangeRefusals(_ name: String, _ value: String) throws {
        let kek = try Self.key().path
        #expect(Self.error([name: value, "PASSKEYD_KEY_ENCRYPTION_KEY_FILE": kek])?.variable == name)
        // Checked without keys too: a wrong value is wrong whatever the mode.
        #expect(Self.error([name: value])?.variable == name)
    }

    @Test("key files that are missing, not base64, not 32 bytes, or the same key twice are refused")
    func fileRefusals() throws {
        let secret = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
        let good = try Self.file(secret)
        let cases: [String] = [
            "/nonexistent/ceremony.key", try Self.file("not base64!"), try Self.file(Data(SecureRandom.bytes(count: 16)).base64EncodedString()),
            try Self.file(Data(SecureRandom.bytes(count: 33)).base64EncodedString()), "\(good),\(try Self.file(secret))",
        ]
        for files in cases {
            let error = Self.error(["PASSKEYD_CEREMONY_KEY_FILES": files])
            #expect(error?.variable == "PASSKEYD_CEREMONY_KEY_FILES", "\(files)")
            #expect(error.map { !$0.problem.contains(secret) } ?? false, "the key is never quoted")
        }
        // A key-encryption key file that does not hold a key is refused when it would seal the ceremony keys.
        #expect(Self.error(["PASSKEYD_KEY_ENCRYPTION_KEY_FILE": try Self.file("short")])?.variable == "PASSKEYD_KEY_ENCRYPTION_KEY_FILE")
    }
}
