import AppleSignedData
import COSECrypto
import Foundation
import PasskeySettings
import Testing
import SettingsTestSupport

/// `PASSKEYD_APPSTORE_*`: off by default, safe defaults when on (Production only), every refusal naming its variable.
@Suite("Settings: App Store")
struct AppStoreSettingsTests {
    static func settings(_ extra: [String: String]) throws -> Settings { try Settings(SettingsFixtures.environment(extra)) }
    static func error(_ extra: [String: String]) -> ConfigurationError? { SettingsFixtures.error(extra) }
    static let root = SettingsFixtures.storeKitVectors.appendingPathComponent("certs/AppleRootCA-G3.pem").path

    @Test("off by default (its variables then warned about); on: Production only, the root file, the app's Apple ID")
    func defaults() throws {
        #expect(try Self.settings([:]).appStore == nil)
        let off = try Self.settings(["PASSKEYD_APPSTORE_ROOT_FILES": Self.root])
        #expect(off.appStore == nil)
        #expect(off.warnings.contains { $0.hasPrefix("PASSKEYD_APPSTORE_ROOT_FILES: ignored while PASSKEYD_APPSTORE_BUNDLE_ID is unset") })
        let on = try #require(try Self.settings([
            "PASSKEYD_APPSTORE_BUNDLE_ID": "com.example.app", "PASSKEYD_APPSTORE_ROOT_FILES": Self.root, "PASSKEYD_APPSTORE_APP_APPLE_ID": "1234",
        ]).appStore)
        #expect(on.policy.bundleID == "com.example.app" && on.policy.appAppleID == 1234)
        #expect(on.policy.environments == [.production] && on.policy.productIDs == nil && !on.policy.acceptsUnsignedLocalEnvironments)
        #expect(on.policy.roots.certificates.count == 1)
        #expect(on.notificationRetention == 30 * 86_400)
    }

    @Test("every variable is read: environments, product ids, the unsafe local environments (with a warning)")
    func everything() throws {
        let settings = try Self.settings([
            "PASSKEYD_APPSTORE_BUNDLE_ID": "com.example.app", "PASSKEYD_APPSTORE_ROOT_FILES": Self.root,
            "PASSKEYD_APPSTORE_ENVIRONMENTS": "Sandbox", "PASSKEYD_APPSTORE_PRODUCT_IDS": "a.monthly, a.yearly",
            "PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS": "on", "PASSKEYD_APPSTORE_NOTIFICATION_RETENTION": "864000",
        ])
        let on = try #require(settings.appStore)
        #expect(on.notificationRetention == 864_000)
        #expect(on.policy.environments == [.sandbox, .xcode, .localTesting] && on.policy.acceptsUnsignedLocalEnvironments)
        #expect(on.policy.productIDs == ["a.monthly", "a.yearly"] && on.policy.appAppleID == nil)
        #expect(settings.warnings.contains { $0.hasPrefix("PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS:") })
        #expect(!settings.warnings.contains { $0.contains("unknown variable") })
    }

    @Test("warnings: a root that is not Apple Root CA - G3; the routes open without API keys")
    func warnings() throws {
        let test = SettingsFixtures.storeKitVectors.appendingPathComponent("certs/testCA.pem").path
        let base = ["PASSKEYD_APPSTORE_BUNDLE_ID": "com.example", "PASSKEYD_APPSTORE_ENVIRONMENTS": "Sandbox"]
        let open = try Self.settings(base.merging(["PASSKEYD_APPSTORE_ROOT_FILES": test]) { $1 })
        #expect(open.warnings.contains { $0.hasPrefix("PASSKEYD_APPSTORE_ROOT_FILES: not Apple Root CA - G3") })
        #expect(open.warnings.contains { $0.hasPrefix("PASSKEYD_API_KEYS: unset, so the App Store and App Attest routes are open") })
        let keyed = try Self.settings(base.merging(["PASSKEYD_APPSTORE_ROOT_FILES": Self.root, "PASSKEYD_API_KEYS": "a-long-enough-api-key-123"]) { $1 })
        #expect(!keyed.warnings.contains { $0.hasPrefix("PASSKEYD_APPSTORE_ROOT_FILES") || $0.hasPrefix("PASSKEYD_API_KEYS") })
    }

    @Test("refusals name their variable")
    func refusals() throws {
        let bundle = ["PASSKEYD_APPSTORE_BUNDLE_ID": "com.example.app"]
        #expect(Self.error(bundle)?.variable == "PASSKEYD_APPSTORE_ROOT_FILES")
        #expect(Self.error(bundle.merging(["PASSKEYD_APPSTORE_ROOT_FILES": "/nonexistent.pem"]) { $1 })?.variable == "PASSKEYD_APPSTORE_ROOT_FILES")
        let rooted = bundle.merging(["PASSKEYD_APPSTORE_ROOT_FILES": Self.root]) { $1 }
        #expect(Self.error(rooted)?.variable == "PASSKEYD_APPSTORE_APP_APPLE_ID", "Production needs the app's Apple ID")
        #expect(Self.error(rooted.merging(["PASSKEYD_APPSTORE_APP_APPLE_ID": "abc"]) { $1 })?.variable == "PASSKEYD_APPSTORE_APP_APPLE_ID")
        #expect(Self.error(rooted.merging(["PASSKEYD_APPSTORE_ENVIRONMENTS": "Xcode"]) { $1 })?.variable == "PASSKEYD_APPSTORE_ENVIRONMENTS")
        #expect(Self.error(rooted.merging(["PASSKEYD_APPSTORE_ENVIRONMENTS": "Sandbox", "PASSKEYD_APPSTORE_NOTIFICATION_RETENTION": "3600"]) { $1 })?.variable
            == "PASSKEYD_APPSTORE_NOTIFICATION_RETENTION", "shorter than Apple's retries")
        #expect(Self.error(rooted.merging([
            "PASSKEYD_APPSTORE_APP_APPLE_ID": "1", "PASSKEYD_APPSTORE_ENVIRONMENTS": "Production,Sandbox",
            "PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS": "on",
        ]) { $1 })?.variable == "PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS", "unsigned Xcode data never next to real purchases")
        #expect(Self.error(rooted.merging(["PASSKEYD_APPSTORE_ENVIRONMENTS": "Sandbox", "PASSKEYD_APPSTORE_BUNDLE_ID": String(repeating: "a", count: 300)]) { $1 })?.variable
            == "PASSKEYD_APPSTORE_BUNDLE_ID")
    }
}
