public import PasskeyApp
public import WebAuthnCore

/// Automatic passkey upgrades, the self-service API and the extension limits (`PASSKEYD_CONDITIONAL_CREATE`,
/// `PASSKEYD_UPGRADE_PENDING_PER_USER`, `PASSKEYD_REAUTHENTICATION_WINDOW`, `PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD`,
/// `PASSKEYD_LARGE_BLOB_MAX_BYTES`; declared in UpgradeVariables.swift).
public struct UpgradeSettings: Sendable, Hashable {
    public var conditionalCreate: Bool
    public var pendingUpgradesPerUser: Int
    public var selfService = SelfServicePolicy()
    public var extensionLimits = ExtensionLimits.default

    init(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) {
        conditionalCreate = try reader.boolean(.conditionalCreate)
        pendingUpgradesPerUser = try reader.integer(.upgradePendingPerUser)
        selfService.reauthenticationWindow = .seconds(try reader.integer(.reauthenticationWindow))
        selfService.allowRemovingLastSignInMethod = try reader.boolean(.allowRemovingLastSignInMethod)
        if selfService.allowRemovingLastSignInMethod {
            warnings.append(
                "PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD: on: a person can delete their only passkey or identity from /v1/me and lock themselves out")
        }
        extensionLimits.largeBlobMaxBytes = try reader.integer(.largeBlobMaxBytes)
    }
}
