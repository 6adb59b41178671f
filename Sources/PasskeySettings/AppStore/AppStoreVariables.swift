import AppleSignedData

// The variables of App Store signed data, each declared once; AppStoreSettings.swift reads them.

extension ConfigurationCatalog {
    static let appStoreVariables: [ConfigVariable] = [
        .appStoreBundleID, .appStoreRootFiles, .appStoreEnvironments, .appStoreAppAppleID, .appStoreProductIDs, .appStoreNotificationRetention,
        .appStoreUnsafeAllowLocalEnvironments,
    ]
}

extension ConfigVariable {
    public static let appStoreBundleID = ConfigVariable(
        "PASSKEYD_APPSTORE_BUNDLE_ID", .appStore, .text("a bundle id (at most 255 bytes)"), default: .unset("none (no App Store routes)"),
        "the app's bundle id: turns on [App Store purchases](app-store.md); the other `PASSKEYD_APPSTORE_*` variables are ignored (with a warning) while unset")
    public static let appStoreRootFiles = ConfigVariable(
        "PASSKEYD_APPSTORE_ROOT_FILES", .appStore, .list("PEM files"), default: .unset("(required with the bundle id)"),
        "the roots App Store JWS must chain to: Apple Root CA - G3 (`AppleRootCA-G3.cer` from apple.com/certificateauthority, SHA-256 `"
            + Settings.colonHex(AppStoreSettings.appleRootG3Fingerprint.prefix(4)) + ":…:" + Settings.colonHex(AppStoreSettings.appleRootG3Fingerprint.suffix(3))
            + "`, converted with `openssl x509 -inform der`); another root is a start-up warning")
    public static let appStoreEnvironments = ConfigVariable(
        "PASSKEYD_APPSTORE_ENVIRONMENTS", .appStore,
        .list("environments: " + AppStoreEnvironment.allCases.filter(\.isAppleSigned).map { "`\($0.rawValue)`" }.joined(separator: ", ")),
        default: .value(AppStoreEnvironment.production.rawValue),
        "the environments whose data is accepted (App Review and TestFlight buy in Sandbox)")
    public static let appStoreAppAppleID = ConfigVariable(
        "PASSKEYD_APPSTORE_APP_APPLE_ID", .appStore, .text("a number"), default: .unset("(required while Production is accepted)"),
        "the app's Apple ID (App Store Connect › App Information), checked on Production notifications")
    public static let appStoreProductIDs = ConfigVariable(
        "PASSKEYD_APPSTORE_PRODUCT_IDS", .appStore, .list("product ids"), default: .unset("none (any product)"),
        "the products whose transactions are accepted; others are refused (`appstore_product_unknown`)")
    public static let appStoreNotificationRetention = ConfigVariable(
        "PASSKEYD_APPSTORE_NOTIFICATION_RETENTION", .appStore, .integer((7 * 86_400)...(3650 * 86_400), .seconds), default: .value("2592000"),
        "seconds a notification's UUID is kept to recognise Apple's retries (Apple retries for about three days); purged hourly")
    public static let appStoreUnsafeAllowLocalEnvironments = ConfigVariable(
        "PASSKEYD_APPSTORE_UNSAFE_ALLOW_LOCAL_ENVIRONMENTS", .appStore, .onOff, default: .value("off"),
        "`on` accepts Xcode and LocalTesting data WITHOUT Apple's signature (StoreKit Testing in Xcode); anyone can mint such purchases: development only, warned about at start, refused while Production is accepted")
}
