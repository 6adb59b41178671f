import COSECrypto
import WebAuthnCore

// The variables of the passkey ceremonies (sections Passkeys: relying party…, Passkeys: attestation…), each declared
// once; RelyingPartySettings.swift, AssociationSettings.swift, ProviderNameSettings.swift and AttestationSettings.swift
// read them.

extension ConfigurationCatalog {
    static let relyingPartyVariables: [ConfigVariable] = [
        .rpID, .rpName, .origins, .appleAppIDs, .androidApps, .relatedOrigins, .userVerification, .challengeTTL, .algorithms, .providerNamesFile,
    ]
    static let attestationVariables: [ConfigVariable] = [
        .attestation, .trustRoots, .mdsBlob, .mdsRoot, .mdsRefusedStatuses, .aaguidAllow, .aaguidDeny, .attestationConveyance, .fidoConformance,
        .unsafePolicies,
    ]
}

extension ConfigVariable {
    // MARK: relying party, origins and apps

    public static let rpID = ConfigVariable(
        "PASSKEYD_RP_ID", .relyingParty, .text("a lower-case domain name (no scheme, port or path)"), default: .value("localhost"),
        "the relying party id: a registrable domain")
    public static let rpName = ConfigVariable(
        "PASSKEYD_RP_NAME", .relyingParty, .text("at most 256 bytes on one line"), default: .value("passkeyd"), "the relying party's name")
    public static let origins = ConfigVariable(
        "PASSKEYD_ORIGINS", .relyingParty,
        .list("exact origins: `scheme://host[:port]` in lower case without the default port, or native (`ios:bundle-id:…`, `android:apk-key-hash:…`)"),
        default: .value("http://localhost:8080"), "the origins whose ceremonies are accepted, web and native")
    public static let appleAppIDs = ConfigVariable(
        "PASSKEYD_APPLE_APP_IDS", .relyingParty,
        .list("`TEAMID.bundle.id` (the team id ten ASCII letters or digits, a dot, a bundle id of letters, digits, `.` and `-`, at most 255 bytes)"),
        default: .unset("unset"),
        "the iOS/macOS apps that may use this RP id's passkeys; served as `/.well-known/apple-app-site-association` ([Apps and related origins](passkeys.md#apps-and-related-origins))")
    public static let androidApps = ConfigVariable(
        "PASSKEYD_ANDROID_APPS", .relyingParty,
        .list("`package=FINGERPRINT[|FINGERPRINT…]` (a Java package name; SHA-256 of each signing certificate, 64 hex digits, colons optional)"),
        default: .unset("unset"),
        "the Android apps that may use this RP id's passkeys; served as `/.well-known/assetlinks.json`, and each fingerprint's `android:apk-key-hash:` origin is accepted")
    public static let relatedOrigins = ConfigVariable(
        "PASSKEYD_RELATED_ORIGINS", .relyingParty, .list("web origins"),
        default: .unset("the web origins of `PASSKEYD_ORIGINS` outside the RP id"),
        "served as `/.well-known/webauthn`; each must be in `PASSKEYD_ORIGINS`, and every origin there outside the RP id must be listed")
    public static let userVerification = ConfigVariable(
        "PASSKEYD_USER_VERIFICATION", .relyingParty, .choice(["required", "preferred-unsafe", "discouraged-unsafe"]), default: .value("required"),
        "whether the authenticator must verify the user (PIN, biometrics); the `-unsafe` values also accept a passkey used without")
    public static let challengeTTL = ConfigVariable(
        "PASSKEYD_CHALLENGE_TTL", .relyingParty, .integer(30...3600, .seconds), default: .value("300"), "seconds a ceremony stays valid")
    public static let algorithms = ConfigVariable(
        "PASSKEYD_ALGORITHMS", .relyingParty,
        .list("COSE algorithm names: " + (Settings.algorithmNames.map { "`\($0)`" } + ["`RS1-unsafe`"]).joined(separator: ", ")),
        default: .value(AlgorithmPolicy.default.algorithms.map(\.name).joined(separator: ",")),
        "the accepted algorithms, most preferred first")
    public static let providerNamesFile = ConfigVariable(
        "PASSKEYD_PROVIDER_NAMES_FILE", .relyingParty, .text("a JSON file"), default: .unset("none"),
        "passkey provider names and icons by AAGUID, in the community list's format (`{\"<aaguid>\": {\"name\", \"icon_light\"?, \"icon_dark\"?}}`); every credential in every answer then carries `provider` ([Signal API and provider names](passkeys.md#signal-api-and-provider-names)); reloaded when the file changes")

    // MARK: attestation, metadata and conformance

    public static let attestation = ConfigVariable(
        "PASSKEYD_ATTESTATION", .attestation, .choice(["none", "any-verified", "self-ok", "trusted-chains", "trusted-required"]),
        default: .value("any-verified"),
        "which attestations registration accepts: `none` is the same as `any-verified`; `self-ok`, `trusted-chains` and `trusted-required` need roots or metadata; see [Attestation](attestation.md)")
    public static let trustRoots = ConfigVariable(
        "PASSKEYD_TRUST_ROOTS_<FORMAT>", .attestation, .text("a PEM file, or a directory of `.pem`, `.crt` and `.cer` files (PEM)"),
        default: .unset("none"),
        "attestation roots of one format; `<FORMAT>` is "
            + Reader.alternatives(Settings.trustRootFormats.map { "`\(Settings.trustRootsVariablePart($0))`" }))
    public static let mdsBlob = ConfigVariable(
        "PASSKEYD_MDS_BLOB", .attestation, .text("a file"), default: .unset("none"),
        "a FIDO Metadata Service BLOB, verified at start against `PASSKEYD_MDS_ROOT` (both or neither); reloaded when the file changes")
    public static let mdsRoot = ConfigVariable(
        "PASSKEYD_MDS_ROOT", .attestation, .list("PEM files"), default: .unset("none"),
        "the FIDO root the BLOB must chain to (both or neither)")
    public static let mdsRefusedStatuses = ConfigVariable(
        "PASSKEYD_MDS_REFUSED_STATUSES", .attestation, .list("MDS3 status names"),
        default: .value("REVOKED,USER_VERIFICATION_BYPASS,ATTESTATION_KEY_COMPROMISE,USER_KEY_REMOTE_COMPROMISE,USER_KEY_PHYSICAL_COMPROMISE"),
        "metadata status reports that refuse registration")
    public static let aaguidAllow = ConfigVariable(
        "PASSKEYD_AAGUID_ALLOW", .attestation, .list("AAGUIDs (UUIDs)"), default: .unset("none"),
        "only these authenticators may register (the deny-list wins)")
    public static let aaguidDeny = ConfigVariable(
        "PASSKEYD_AAGUID_DENY", .attestation, .list("AAGUIDs (UUIDs)"), default: .unset("none"), "these authenticators may not register")
    public static let attestationConveyance = ConfigVariable(
        "PASSKEYD_ATTESTATION_CONVEYANCE", .attestation, .choice(["none", "indirect", "direct", "enterprise"]),
        default: .unset("`none` (`direct` unless `any-verified`)"), "what creation options ask for")
    public static let fidoConformance = ConfigVariable(
        "PASSKEYD_FIDO_CONFORMANCE", .attestation, .onOff, default: .value("off"),
        "`on` serves the FIDO conformance transport binding ([FIDO conformance](fido-conformance.md))")
    public static let unsafePolicies = ConfigVariable(
        "PASSKEYD_UNSAFE_POLICIES", .attestation, .list("policy names: " + Settings.unsafePolicies.map { "`\($0.name)`" }.joined(separator: ", ")),
        default: .unset("none"), "named relaxations of W3C, each warned about at start")
}
