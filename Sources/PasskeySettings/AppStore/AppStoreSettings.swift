public import AppleSignedData
import COSECrypto
public import Foundation

/// App Store signed data (`PASSKEYD_APPSTORE_*`): off unless `PASSKEYD_APPSTORE_BUNDLE_ID` is set.
public struct AppStoreSettings: Sendable {
    public var policy: AppStorePolicy
    /// How long notification UUIDs are kept to recognise Apple's retries (`PASSKEYD_APPSTORE_NOTIFICATION_RETENTION`).
    public var notificationRetention: TimeInterval

    /// Reads the settings; nil when off (and then every other `PASSKEYD_APPSTORE_*` variable is warned about).
    static func load(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) -> AppStoreSettings? {
        guard let bundleID = reader.value(.appStoreBundleID) else {
            for variable in ConfigurationCatalog.appStoreVariables where variable != .appStoreBundleID && reader.isSet(variable) {
                warnings.append("\(variable.name): ignored while PASSKEYD_APPSTORE_BUNDLE_ID is unset")
            }
            return nil
        }
        guard !bundleID.isEmpty, bundleID.utf8.count <= 255 else {
            throw ConfigurationError(.appStoreBundleID, "must be the app's bundle id")
        }
        guard let files = reader.list(.appStoreRootFiles), !files.isEmpty else {
            throw ConfigurationError(
                .appStoreRootFiles,
                "required with PASSKEYD_APPSTORE_BUNDLE_ID: PEM file of Apple Root CA - G3 (https://www.apple.com/certificateauthority/)")
        }
        let roots: TrustAnchors
        do {
            roots = try TrustAnchors.loadPEMFiles(files)
        } catch {
            throw ConfigurationError(.appStoreRootFiles, "\(error)")
        }
        var environments: Set<AppStoreEnvironment> = []
        for name in reader.listOrDefault(.appStoreEnvironments) {
            guard let environment = AppStoreEnvironment(rawValue: name), environment.isAppleSigned else {
                throw ConfigurationError(
                    .appStoreEnvironments,
                    "must list Production and/or Sandbox, got \"\(name)\" (Xcode and LocalTesting: PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS)")
            }
            environments.insert(environment)
        }
        var appAppleID: Int64?
        if let text = reader.value(.appStoreAppAppleID) {
            guard let value = Int64(text), value > 0 else {
                throw ConfigurationError(.appStoreAppAppleID, "must be the app's numeric Apple ID")
            }
            appAppleID = value
        } else if environments.contains(.production) {
            throw ConfigurationError(
                .appStoreAppAppleID, "required while Production is accepted (App Store Connect › App Information › Apple ID)")
        }
        var policy = AppStorePolicy(
            roots: roots, bundleID: bundleID, appAppleID: appAppleID, environments: environments,
            productIDs: reader.list(.appStoreProductIDs).map(Set.init))
        if !roots.certificates.contains(where: { Digest.sha256($0.derEncoded) == appleRootG3Fingerprint }) {
            warnings.append("PASSKEYD_APPSTORE_ROOT_FILES: not Apple Root CA - G3 (SHA-256 63:34:3A:BF:…); real App Store data will fail")
        }
        if try reader.boolean(.appStoreUnsafeAllowLocalEnvironments) {
            // Unsigned Xcode data next to real purchases could overwrite them (a later signedDate wins): never both.
            guard !environments.contains(.production) else {
                throw ConfigurationError(
                    .appStoreUnsafeAllowLocalEnvironments, "cannot be on while PASSKEYD_APPSTORE_ENVIRONMENTS accepts Production")
            }
            policy = policy.unsafeAllowingLocalEnvironments()
            warnings.append(
                "PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS: Xcode and LocalTesting data is accepted WITHOUT Apple's signature: anyone can mint purchases; development only")
        }
        // Apple retries a notification for about three days: keep its UUID well past that.
        let retention = try reader.integer(.appStoreNotificationRetention)
        return AppStoreSettings(policy: policy, notificationRetention: TimeInterval(retention))
    }

    /// SHA-256 of Apple Root CA - G3 (DER): 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79.
    static let appleRootG3Fingerprint: [UInt8] = [
        0x63, 0x34, 0x3A, 0xBF, 0xB8, 0x9A, 0x6A, 0x03, 0xEB, 0xB5, 0x7E, 0x9B, 0x3F, 0x5F, 0xA7, 0xBE,
        0x7C, 0x4F, 0x5C, 0x75, 0x6F, 0x30, 0x17, 0xB3, 0xA8, 0xC4, 0x88, 0xC3, 0x65, 0x3E, 0x91, 0x79,
    ]
}
