public import AppleSignedData
import COSECrypto
public import Foundation

/// App Attest from `PASSKEYD_APPATTEST_*` (declared in AppAttestVariables.swift; off until `PASSKEYD_APPATTEST_APP_IDS`
/// is set).
public struct AppAttestSettings: Sendable {
    /// Apps, environments and the root.
    public var configuration: AppAttestConfiguration
    /// How long a challenge stays usable.
    public var challengeTimeout: TimeInterval

    /// nil when App Attest is off (a variable set anyway is a warning).
    static func load(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) -> AppAttestSettings? {
        guard let ids = reader.list(.appAttestAppIDs) else {
            for variable in ConfigurationCatalog.appAttestVariables where variable != .appAttestAppIDs && reader.isSet(variable) {
                warnings.append("\(variable.name): ignored while PASSKEYD_APPATTEST_APP_IDS is unset")
            }
            return nil
        }
        var apps: [AppAttestApp] = []
        for id in ids {
            guard let app = AppAttestApp(appID: id) else {
                throw ConfigurationError(
                    .appAttestAppIDs, "\"\(id)\" is not an App ID: TEAMID (ten letters or digits), a dot, the bundle id")
            }
            if !apps.contains(app) { apps.append(app) }
        }
        guard let path = reader.value(.appAttestRootFile) else {
            throw ConfigurationError(
                .appAttestRootFile, "required with PASSKEYD_APPATTEST_APP_IDS: Apple App Attestation Root CA (PEM)")
        }
        let roots = try Settings.loadTrustRoots(ConfigVariable.appAttestRootFile.name, path: path)
        let development = try reader.boolean(.appAttestAllowDevelopment)
        if development {
            warnings.append("PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT: keys from development builds are accepted; not for production")
        }
        let fingerprint = roots.map { Digest.sha256($0.derEncoded) }
        if !fingerprint.contains(appleRootFingerprint) {
            warnings.append("PASSKEYD_APPATTEST_ROOT_FILE: not Apple App Attestation Root CA (SHA-256 1C:B9:82:3B:…); real devices will fail")
        }
        let ttl = try reader.integer(.appAttestChallengeTTL)
        return AppAttestSettings(
            configuration: AppAttestConfiguration(apps: apps, allowDevelopment: development, roots: TrustAnchors(roots)),
            challengeTimeout: TimeInterval(ttl))
    }

    /// SHA-256 of Apple App Attestation Root CA's DER (1C:B9:82:3B:A2:8B:A6:AD:2D:33:A0:06:94:1D:E2:AE:4F:51:3E:F1:D4:E8:31:B9:F7:E0:FA:7B:62:42:C9:32).
    static let appleRootFingerprint: [UInt8] = [
        0x1C, 0xB9, 0x82, 0x3B, 0xA2, 0x8B, 0xA6, 0xAD, 0x2D, 0x33, 0xA0, 0x06, 0x94, 0x1D, 0xE2, 0xAE,
        0x4F, 0x51, 0x3E, 0xF1, 0xD4, 0xE8, 0x31, 0xB9, 0xF7, 0xE0, 0xFA, 0x7B, 0x62, 0x42, 0xC9, 0x32,
    ]
}
