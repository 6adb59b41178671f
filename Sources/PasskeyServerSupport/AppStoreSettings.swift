public import AppleSignedData
import COSECrypto
import Foundation

/// App Store signed data (`PASSKEYD_APPSTORE_*`): off unless `PASSKEYD_APPSTORE_BUNDLE_ID` is set.
public struct AppStoreSettings: Sendable {
    public var policy: AppStorePolicy

    static let variables = [
        "PASSKEYD_APPSTORE_BUNDLE_ID", "PASSKEYD_APPSTORE_ROOT_FILES", "PASSKEYD_APPSTORE_ENVIRONMENTS",
        "PASSKEYD_APPSTORE_APP_APPLE_ID", "PASSKEYD_APPSTORE_PRODUCT_IDS", "PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS",
    ]

    /// Reads the settings; nil when off (and then every other `PASSKEYD_APPSTORE_*` variable is warned about).
    static func load(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) -> AppStoreSettings? {
        guard let bundleID = reader.value("PASSKEYD_APPSTORE_BUNDLE_ID") else {
            for variable in variables.dropFirst() where reader.value(variable) != nil {
                warnings.append("\(variable): ignored while PASSKEYD_APPSTORE_BUNDLE_ID is unset")
            }
            return nil
        }
        guard !bundleID.isEmpty, bundleID.utf8.count <= 255 else {
            throw ConfigurationError("PASSKEYD_APPSTORE_BUNDLE_ID", "must be the app's bundle id")
        }
        guard let files = reader.list("PASSKEYD_APPSTORE_ROOT_FILES"), !files.isEmpty else {
            throw ConfigurationError(
                "PASSKEYD_APPSTORE_ROOT_FILES",
                "required with PASSKEYD_APPSTORE_BUNDLE_ID: PEM file of Apple Root CA - G3 (https://www.apple.com/certificateauthority/)")
        }
        let roots: TrustAnchors
        do {
            roots = try TrustAnchors.loadPEMFiles(files)
        } catch {
            throw ConfigurationError("PASSKEYD_APPSTORE_ROOT_FILES", "\(error)")
        }
        var environments: Set<AppStoreEnvironment> = []
        for name in reader.list("PASSKEYD_APPSTORE_ENVIRONMENTS") ?? ["Production"] {
            guard let environment = AppStoreEnvironment(rawValue: name), environment.isAppleSigned else {
                throw ConfigurationError(
                    "PASSKEYD_APPSTORE_ENVIRONMENTS",
                    "must list Production and/or Sandbox, got \"\(name)\" (Xcode and LocalTesting: PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS)")
            }
            environments.insert(environment)
        }
        var appAppleID: Int64?
        if let text = reader.value("PASSKEYD_APPSTORE_APP_APPLE_ID") {
            guard let value = Int64(text), value > 0 else {
                throw ConfigurationError("PASSKEYD_APPSTORE_APP_APPLE_ID", "must be the app's numeric Apple ID")
            }
            appAppleID = value
        } else if environments.contains(.production) {
            throw ConfigurationError(
                "PASSKEYD_APPSTORE_APP_APPLE_ID", "required while Production is accepted (App Store Connect › App Information › Apple ID)")
        }
        var policy = AppStorePolicy(
            roots: roots, bundleID: bundleID, appAppleID: appAppleID, environments: environments,
            productIDs: reader.list("PASSKEYD_APPSTORE_PRODUCT_IDS").map(Set.init))
        if try reader.boolean("PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS", default: false) {
            policy = policy.unsafeAllowingLocalEnvironments()
            warnings.append(
                "PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS: Xcode and LocalTesting data is accepted WITHOUT Apple's signature: anyone can mint purchases; development only")
        }
        return AppStoreSettings(policy: policy)
    }
}
