// The variables of stateless ceremonies' keys (section Ceremony keys), each declared once; CeremonyKeySettings.swift
// reads them. (The key-encryption key that seals database keys, PASSKEYD_KEY_ENCRYPTION_KEY_FILE, is declared with the
// ID-token variables.)

extension ConfigurationCatalog {
    static let ceremonyKeyVariables: [ConfigVariable] = [.ceremonyKeyRotation, .ceremonyKeyFiles, .clockSkew]
}

extension ConfigVariable {
    public static let ceremonyKeyRotation = ConfigVariable(
        "PASSKEYD_CEREMONY_KEY_ROTATION", .ceremonyKeys, .integer(3600...(31 * 86_400), .seconds), default: .value("86400"),
        "how often a new ceremony key (kept in the database) starts sealing challenges; each is added 150 s plus `PASSKEYD_CLOCK_SKEW` before it starts, and still opens the challenges in flight until they have expired ([Ceremony keys](operations.md#ceremony-keys))")
    public static let ceremonyKeyFiles = ConfigVariable(
        "PASSKEYD_CEREMONY_KEY_FILES", .ceremonyKeys, .list("files with 32 random bytes in base64 each (`openssl rand -base64 32`)"),
        default: .unset("none (keys in the database)"),
        "ceremony keys from files instead of the database: the first seals challenges, every one opens them; rotate by adding a new file on every instance, then listing it first, then dropping the old one once its challenges have expired ([Ceremony keys](operations.md#ceremony-keys))")
    public static let clockSkew = ConfigVariable(
        "PASSKEYD_CLOCK_SKEW", .ceremonyKeys, .integer(0...300, .seconds), default: .value("30"),
        "how far the clocks of passkeyd's instances may disagree (keep them synchronised with NTP): a sealed challenge is still accepted this long after it expired, and ceremony keys are added and kept this much earlier and longer")
}
