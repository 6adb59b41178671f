import AppleSignedData
import COSECrypto
import Foundation
import PasskeySettings
import Testing
import WebAuthnTestSupport
import SettingsTestSupport

/// `PASSKEYD_APPATTEST_*`: off until the app ids are set, the root file required, development off by default, and
/// every refusal naming its variable.
@Suite("Settings: App Attest")
struct AppAttestSettingsTests {
    static func settings(_ extra: [String: String]) throws -> Settings { try Settings(SettingsFixtures.environment(extra)) }
    static func error(_ extra: [String: String]) -> ConfigurationError? { SettingsFixtures.error(extra) }

    /// Apple's root from the shared vectors (`../shared/vectors/apple/appattest/certs`).
    static let appleRoot = SettingsFixtures.repository.deletingLastPathComponent()
        .appendingPathComponent("shared/vectors/apple/appattest/certs/Apple_App_Attestation_Root_CA.pem").path

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-appattest-\(UUID().uuidString).pem").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("off by default (its other variables are then warned about); on with the app ids and the root")
    func defaults() throws {
        #expect(try Self.settings([:]).appAttest == nil)
        let off = try Self.settings(["PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT": "on"])
        #expect(off.appAttest == nil)
        #expect(off.warnings.contains { $0.hasPrefix("PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT: ignored") })
        let on = try Self.settings([
            "PASSKEYD_APPATTEST_APP_IDS": "ABCDE12345.com.example.app, ABCDE12345.com.example.other",
            "PASSKEYD_APPATTEST_ROOT_FILE": Self.appleRoot,
        ])
        let appAttest = try #require(on.appAttest)
        #expect(appAttest.configuration.apps.map(\.appID) == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"])
        #expect(appAttest.configuration.environments == [.production])
        #expect(appAttest.challengeTimeout == 300)
        #expect(appAttest.configuration.roots.certificates.count == 1)
        #expect(!on.warnings.contains { $0.hasPrefix("PASSKEYD_APPATTEST") }, "\(on.warnings)")
    }

    @Test("development and the challenge lifetime; a root that is not Apple's is a warning")
    func options() throws {
        let root = try Self.file(try SoftAppAttest().root.anchor.pemEncoded)
        let settings = try Self.settings([
            "PASSKEYD_APPATTEST_APP_IDS": "ABCDE12345.com.example.app", "PASSKEYD_APPATTEST_ROOT_FILE": root,
            "PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT": "on", "PASSKEYD_APPATTEST_CHALLENGE_TTL": "60",
        ])
        let appAttest = try #require(settings.appAttest)
        #expect(appAttest.configuration.environments == [.production, .development])
        #expect(appAttest.challengeTimeout == 60)
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT:") })
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_APPATTEST_ROOT_FILE: not Apple App Attestation Root CA") })
        #expect(!settings.warnings.contains { $0.contains("unknown variable") }, "\(settings.warnings)")
    }

    @Test("every refusal names its variable")
    func refusals() throws {
        let ids = "ABCDE12345.com.example.app"
        #expect(Self.error(["PASSKEYD_APPATTEST_APP_IDS": ids])?.variable == "PASSKEYD_APPATTEST_ROOT_FILE")
        #expect(Self.error(["PASSKEYD_APPATTEST_APP_IDS": "com.example.app", "PASSKEYD_APPATTEST_ROOT_FILE": Self.appleRoot])?.variable
            == "PASSKEYD_APPATTEST_APP_IDS")
        #expect(Self.error(["PASSKEYD_APPATTEST_APP_IDS": ids, "PASSKEYD_APPATTEST_ROOT_FILE": "/nonexistent/root.pem"])?.variable
            == "PASSKEYD_APPATTEST_ROOT_FILE")
        #expect(Self.error(["PASSKEYD_APPATTEST_APP_IDS": ids, "PASSKEYD_APPATTEST_ROOT_FILE": try Self.file("not a pem")])?.variable
            == "PASSKEYD_APPATTEST_ROOT_FILE")
        #expect(Self.error([
            "PASSKEYD_APPATTEST_APP_IDS": ids, "PASSKEYD_APPATTEST_ROOT_FILE": Self.appleRoot, "PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT": "maybe",
        ])?.variable == "PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT")
        #expect(Self.error([
            "PASSKEYD_APPATTEST_APP_IDS": ids, "PASSKEYD_APPATTEST_ROOT_FILE": Self.appleRoot, "PASSKEYD_APPATTEST_CHALLENGE_TTL": "5",
        ])?.variable == "PASSKEYD_APPATTEST_CHALLENGE_TTL")
        // A misspelt variable is an unknown-variable warning.
        #expect(try Self.settings(["PASSKEYD_APPATTEST_APPIDS": ids]).warnings.contains { $0.hasPrefix("PASSKEYD_APPATTEST_APPIDS: unknown variable") })
    }
}
