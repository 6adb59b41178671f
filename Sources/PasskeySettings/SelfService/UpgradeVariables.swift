// The variables of automatic upgrades, the self-service API and the extension limits, each declared once;
// UpgradeSettings.swift reads them.

extension ConfigurationCatalog {
    static let upgradeVariables: [ConfigVariable] = [
        .conditionalCreate, .upgradePendingPerUser, .reauthenticationWindow, .allowRemovingLastSignInMethod, .largeBlobMaxBytes,
    ]
}

extension ConfigVariable {
    public static let conditionalCreate = ConfigVariable(
        "PASSKEYD_CONDITIONAL_CREATE", .upgrades, .onOff, default: .value("on"),
        "`off` refuses `\"mediation\":\"conditional\"` (400 `conditional_create_disabled`) ([Moving people to passkeys](upgrades.md))")
    public static let upgradePendingPerUser = ConfigVariable(
        "PASSKEYD_UPGRADE_PENDING_PER_USER", .upgrades, .integer(1...100), default: .value("3"),
        "unexpired automatic-upgrade ceremonies per user, counted apart from their others (past it 429 `too_many_pending_ceremonies`)")
    public static let reauthenticationWindow = ConfigVariable(
        "PASSKEYD_REAUTHENTICATION_WINDOW", .upgrades, .integer(30...86_400, .seconds), default: .value("300"),
        "seconds since sign-in (the access token's `auth_time`) within which `/v1/me` may add or remove a sign-in method (past it 401 `reauthentication_required`)")
    public static let allowRemovingLastSignInMethod = ConfigVariable(
        "PASSKEYD_ALLOW_REMOVING_LAST_SIGN_IN_METHOD", .upgrades, .onOff, default: .value("off"),
        "`on` lets `/v1/me` delete a person's only passkey or identity (otherwise 409 `last_sign_in_method`)")
    public static let largeBlobMaxBytes = ConfigVariable(
        "PASSKEYD_LARGE_BLOB_MAX_BYTES", .upgrades, .integer(1...32_768, .bytes), default: .value("4096"),
        "the largest `largeBlob.write` a sign-in begin passes through (its base64url must fit in the begin's body)")
}
