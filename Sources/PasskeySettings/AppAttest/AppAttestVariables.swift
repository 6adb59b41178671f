// The variables of App Attest, each declared once; AppAttestSettings.swift reads them.

extension ConfigurationCatalog {
    static let appAttestVariables: [ConfigVariable] = [.appAttestAppIDs, .appAttestRootFile, .appAttestAllowDevelopment, .appAttestChallengeTTL]
}

extension ConfigVariable {
    public static let appAttestAppIDs = ConfigVariable(
        "PASSKEYD_APPATTEST_APP_IDS", .appAttest,
        .list("`TEAMID.bundle.id` (the team id ten ASCII letters or digits, as for `PASSKEYD_APPLE_APP_IDS`)"), default: .unset("unset (off)"),
        "the apps whose keys may be attested; setting it turns [App Attest](app-attest.md) on, and the other `PASSKEYD_APPATTEST_*` variables are ignored (with a warning) while unset")
    public static let appAttestRootFile = ConfigVariable(
        "PASSKEYD_APPATTEST_ROOT_FILE", .appAttest, .text("a PEM file"), default: .unset("(required when on)"),
        "the root attestations must chain to: Apple App Attestation Root CA (from [Apple PKI](https://www.apple.com/certificateauthority/private/), SHA-256 `"
            + Settings.colonHex(AppAttestSettings.appleRootFingerprint) + "`); another root is a start-up warning")
    public static let appAttestAllowDevelopment = ConfigVariable(
        "PASSKEYD_APPATTEST_ALLOW_DEVELOPMENT", .appAttest, .onOff, default: .value("off"),
        "also accept keys from development builds (`appattestdevelop`)")
    public static let appAttestChallengeTTL = ConfigVariable(
        "PASSKEYD_APPATTEST_CHALLENGE_TTL", .appAttest, .integer(10...3600, .seconds), default: .value("300"),
        "seconds an App Attest challenge stays usable")
}
