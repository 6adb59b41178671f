import IdentityCore
import JOSE

// The variables of ID-token sign-in and Apple's code exchange, each declared once; IdentitySettings.swift reads them.
// Per-provider variables are patterns: `<NAME>` is the provider name upper-cased with `-` as `_`.

extension ConfigurationCatalog {
    static let identityVariables: [ConfigVariable] =
        [.idTokenProviders] + IdentitySettings.providerVariables + [.lineChannelSecretFile] + IdentitySettings.timingVariables
        + IdentitySettings.appleCodeExchangeVariables + [.keyEncryptionKeyFile]
}

extension IdentitySettings {
    /// Read for every listed provider.
    static let providerVariables: [ConfigVariable] = [
        .idTokenClientIDs, .idTokenJWKSURL, .idTokenJWKSFile, .idTokenIssuer, .idTokenAlgorithms, .idTokenNonce,
    ]
    /// Timing, for every provider.
    static let timingVariables: [ConfigVariable] = [
        .idTokenSessionTimeout, .idTokenClockSkew, .idTokenMaxAge, .idTokenJWKSRefetchInterval,
    ]
    /// Sign in with Apple's authorization-code exchange (read when `apple` is listed).
    static let appleCodeExchangeVariables: [ConfigVariable] = [
        .appleTeamID, .appleKeyID, .applePrivateKeyFile, .appleTokenURL, .appleRevokeURL,
    ]

    /// The generic OpenID Connect provider's defaults (the presets' are in IdentityCore's profiles).
    static let genericAlgorithms: Set<JWSAlgorithm> = [.rs256]
    static let genericNonceRule = NonceRule.raw

    /// `Apple X; LINE Y; Google Z; generic W` of a preset property.
    static func presetDefaults(_ property: (ProviderProfile) -> String, generic: String) -> String {
        let presets: [(String, ProviderProfile)] = [
            ("Apple", .apple(audiences: ["-"])), ("LINE", .line(channelIDs: ["-"], channelSecret: nil)), ("Google", .google(clientIDs: ["-"])),
        ]
        return (presets.map { "\($0.0) \(property($0.1))" } + ["generic \(generic)"]).joined(separator: "; ")
    }

    static func algorithmList(_ algorithms: Set<JWSAlgorithm>) -> String {
        algorithms.map(\.rawValue).sorted().map { "`\($0)`" }.joined(separator: ", ")
    }
}

extension ConfigVariable {
    public static let idTokenProviders = ConfigVariable(
        "PASSKEYD_IDTOKEN_PROVIDERS", .identity, .list("provider names (`a`–`z`, `0`–`9`, `-`; at most 32 characters)"),
        default: .unset("none (no `/v1/idtoken`)"),
        "the providers whose ID tokens sign people in: `apple`, `line`, `google` (presets) or any other name (a generic OpenID Connect provider); [ID-token sign-in](id-tokens.md)")

    // MARK: per provider

    public static let idTokenClientIDs = ConfigVariable(
        "PASSKEYD_IDTOKEN_<NAME>_CLIENT_IDS", .identity, .list("client ids"), default: .unset("(required per provider)"),
        "accepted `aud` values: Apple bundle ids and Services IDs, LINE channel ids, Google client ids; `<NAME>` is the provider's name upper-cased, `-` as `_`")
    public static let idTokenJWKSURL = ConfigVariable(
        "PASSKEYD_IDTOKEN_<NAME>_JWKS_URL", .identity, .text("an https URL (http only on loopback)"),
        default: .unset("the preset's published URL"), "where the provider's keys come from")
    public static let idTokenJWKSFile = ConfigVariable(
        "PASSKEYD_IDTOKEN_<NAME>_JWKS_FILE", .identity, .text("a JWKS file"), default: .unset("none"),
        "the provider's keys from a file instead (not both)")
    public static let idTokenIssuer = ConfigVariable(
        "PASSKEYD_IDTOKEN_<NAME>_ISSUER", .identity, .text("the exact `iss`"), default: .unset("presets: theirs"),
        "generic providers (required for them): the exact `iss`; ignored for the presets `apple`, `line` and `google`, whose issuers are fixed (no warning); without a JWKS URL or file their keys come from `ISSUER/.well-known/openid-configuration`")
    public static let idTokenAlgorithms = ConfigVariable(
        "PASSKEYD_IDTOKEN_<NAME>_ALGORITHMS", .identity, .list("JWS signature algorithms (`RS256`, `ES256`, `PS256`, `EdDSA`, …)"),
        default: .unset(IdentitySettings.presetDefaults({ IdentitySettings.algorithmList($0.algorithms.filter { !$0.isHMAC }) },
            generic: IdentitySettings.algorithmList(IdentitySettings.genericAlgorithms))),
        "accepted signature algorithms, for presets too: the list replaces the default (never `none`; an HMAC name such as `HS256` stops the start; LINE keeps HS256 when its channel secret is configured, whatever the list)")
    public static let idTokenNonce = ConfigVariable(
        "PASSKEYD_IDTOKEN_<NAME>_NONCE", .identity, .choice(NonceRule.allCases.map(\.rawValue)),
        default: .unset(IdentitySettings.presetDefaults({ "`\($0.nonceRule.rawValue)`" }, generic: "`\(IdentitySettings.genericNonceRule.rawValue)`")),
        "how the token carries the nonce: `sha256` (lowercase hex SHA-256 of it) or `raw`")
    public static let lineChannelSecretFile = ConfigVariable(
        "PASSKEYD_IDTOKEN_LINE_CHANNEL_SECRET_FILE", .identity, .text("a file (the secret: at least 16 bytes)"), default: .unset("none"),
        "LINE's channel secret: accepts HS256 tokens of LINE web login")

    // MARK: timing

    public static let idTokenSessionTimeout = ConfigVariable(
        "PASSKEYD_IDTOKEN_SESSION_TIMEOUT", .identity, .integer(30...3600, .seconds), default: .value("300"),
        "seconds an ID-token sign-in session (begin to finish) stays valid")
    public static let idTokenClockSkew = ConfigVariable(
        "PASSKEYD_IDTOKEN_CLOCK_SKEW", .identity, .integer(0...600, .seconds), default: .value("60"),
        "allowed clock difference for `exp`/`nbf`/`iat`")
    public static let idTokenMaxAge = ConfigVariable(
        "PASSKEYD_IDTOKEN_MAX_AGE", .identity, .integer(30...86_400, .seconds), default: .value("600"), "the oldest `iat` accepted")
    public static let idTokenJWKSRefetchInterval = ConfigVariable(
        "PASSKEYD_IDTOKEN_JWKS_REFETCH_INTERVAL", .identity, .integer(1...86_400, .seconds), default: .value("60"),
        "least time between two key fetches for an unknown `kid`")

    // MARK: Sign in with Apple's code exchange

    public static let appleTeamID = ConfigVariable(
        "PASSKEYD_IDTOKEN_APPLE_TEAM_ID", .identity, .text("1–64 characters"), default: .unset("none (no code exchange)"),
        "your Apple Developer team id (here only checked to be 1–64 characters; it is the `iss` of the client secret, so it must be the ten-character team id Apple shows); with `_KEY_ID` and `_PRIVATE_KEY_FILE` (all three or none) it turns on the [authorization-code exchange](id-tokens.md)")
    public static let appleKeyID = ConfigVariable(
        "PASSKEYD_IDTOKEN_APPLE_KEY_ID", .identity, .text("1–64 characters"), default: .unset("none"), "the Sign in with Apple key's id")
    public static let applePrivateKeyFile = ConfigVariable(
        "PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE", .identity, .text("a `.p8` file (PEM PKCS#8, P-256)"), default: .unset("none"),
        "the Sign in with Apple key")
    public static let appleTokenURL = ConfigVariable(
        "PASSKEYD_IDTOKEN_APPLE_TOKEN_URL", .identity, .text("an https URL (http only on loopback, for tests)"),
        default: .value("https://appleid.apple.com/auth/token"), "Apple's token endpoint")
    public static let appleRevokeURL = ConfigVariable(
        "PASSKEYD_IDTOKEN_APPLE_REVOKE_URL", .identity, .text("an https URL (http only on loopback, for tests)"),
        default: .value("https://appleid.apple.com/auth/revoke"), "Apple's revocation endpoint")
    public static let keyEncryptionKeyFile = ConfigVariable(
        "PASSKEYD_KEY_ENCRYPTION_KEY_FILE", .identity, .text("a file with 32 random bytes in base64 (`openssl rand -base64 32`)"),
        default: .unset("none (required with the code exchange, and with sessions unless `PASSKEYD_SESSION_KEY_FILES`)"),
        "the AES-256-GCM key that seals Apple's refresh tokens, the access-token signing keys and the ceremony keys in the database (with it, ceremonies are stateless: [Ceremony keys](operations.md#ceremony-keys)); keep it outside the database and its backups, the same on every instance")
}
