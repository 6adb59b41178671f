public import PasskeyApp
public import WebAuthnCore

/// Automatic passkey upgrades, the self-service API and the extension limits:
///
///     PASSKEYD_CONDITIONAL_CREATE=on                   registration begin accepts "mediation": "conditional" (default on)
///     PASSKEYD_UPGRADE_PENDING_PER_USER=3              unexpired upgrade ceremonies per user (1-100)
///     PASSKEYD_REAUTHENTICATION_WINDOW=300             seconds since sign-in within which /v1/me may add or remove a
///                                                      sign-in method (30-86400)
///     PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD=off  let /v1/me remove a person's only way to sign in
///     PASSKEYD_LARGE_BLOB_MAX_BYTES=4096               largest largeBlob.write a sign-in begin passes through (1-32768:
///                                                      its base64url must fit in a begin body)
public struct UpgradeSettings: Sendable, Hashable {
    public var conditionalCreate = true
    public var pendingUpgradesPerUser = 3
    public var selfService = SelfServicePolicy()
    public var extensionLimits = ExtensionLimits.default

    public init() {}

    static let variables = [
        "PASSKEYD_CONDITIONAL_CREATE", "PASSKEYD_UPGRADE_PENDING_PER_USER", "PASSKEYD_REAUTHENTICATION_WINDOW",
        "PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD", "PASSKEYD_LARGE_BLOB_MAX_BYTES",
    ]

    init(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) {
        conditionalCreate = try reader.boolean("PASSKEYD_CONDITIONAL_CREATE", default: true)
        pendingUpgradesPerUser = try reader.integer("PASSKEYD_UPGRADE_PENDING_PER_USER", default: 3, in: 1...100)
        selfService.reauthenticationWindow = .seconds(try reader.integer("PASSKEYD_REAUTHENTICATION_WINDOW", default: 300, in: 30...86_400))
        selfService.allowRemovingLastSignInMethod = try reader.boolean("PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD", default: false)
        if selfService.allowRemovingLastSignInMethod {
            warnings.append(
                "PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD: on: a person can delete their only passkey or identity from /v1/me and lock themselves out")
        }
        extensionLimits.largeBlobMaxBytes = try reader.integer("PASSKEYD_LARGE_BLOB_MAX_BYTES", default: 4096, in: 1...32_768)
    }
}
