// The variables of sessions after sign-in, each declared once; SessionSettings.swift reads them. (The key-encryption
// key, PASSKEYD_KEY_ENCRYPTION_KEY_FILE, is declared with the ID-token variables: the Apple code exchange uses it too.)

extension ConfigurationCatalog {
    static let sessionVariables: [ConfigVariable] = [
        .sessions, .sessionIssuer, .sessionAudiences, .sessionAccessTTL, .sessionIdleTTL, .sessionMaxTTL, .sessionAlgorithm, .sessionKeyRotation,
        .sessionKeyFiles, .sessionOnRegistration, .sessionRevokeOnDelete, .handoffTTL, .sessionCookie,
    ]
}

extension ConfigVariable {
    public static let sessions = ConfigVariable(
        "PASSKEYD_SESSIONS", .sessions, .onOff, default: .value("off"),
        "`on`: sign-ins answer a `session` and the session routes exist ([Sessions after sign-in](sessions.md)); the other `PASSKEYD_SESSION*` variables are ignored (with a warning) while off")
    public static let sessionIssuer = ConfigVariable(
        "PASSKEYD_SESSION_ISSUER", .sessions, .text("a URL"), default: .unset("`https://<PASSKEYD_RP_ID>`"), "the access tokens' `iss`")
    public static let sessionAudiences = ConfigVariable(
        "PASSKEYD_SESSION_AUDIENCES", .sessions, .list("`aud` values"), default: .unset("the issuer"),
        "the access tokens' `aud` (one is written as a string, several as an array); a token is accepted with any of them")
    public static let sessionAccessTTL = ConfigVariable(
        "PASSKEYD_SESSION_ACCESS_TTL", .sessions, .integer(60...86_400, .seconds), default: .value("600"), "seconds an access token lives")
    public static let sessionIdleTTL = ConfigVariable(
        "PASSKEYD_SESSION_IDLE_TTL", .sessions, .integer(60...(5 * 366 * 86_400), .seconds), default: .value("2592000"),
        "a refresh token unused this long stops working (each refresh starts the period again)")
    public static let sessionMaxTTL = ConfigVariable(
        "PASSKEYD_SESSION_MAX_TTL", .sessions, .integer(60...(5 * 366 * 86_400), .seconds), default: .value("7776000"),
        "no refresh works this long after the session started; at least `PASSKEYD_SESSION_IDLE_TTL`")
    public static let sessionAlgorithm = ConfigVariable(
        "PASSKEYD_SESSION_ALGORITHM", .sessions, .choice(["ES256", "EdDSA"]), default: .value("ES256"), "the algorithm of new signing keys")
    public static let sessionKeyRotation = ConfigVariable(
        "PASSKEYD_SESSION_KEY_ROTATION", .sessions, .integer(3600...(366 * 86_400), .seconds), default: .value("2592000"),
        "how often a new signing key is added to the database; `passkeyd rotate-session-key` adds one now")
    public static let sessionKeyFiles = ConfigVariable(
        "PASSKEYD_SESSION_KEY_FILES", .sessions, .list("PEM PKCS#8 files (P-256 or Ed25519)"), default: .unset("none (keys in the database)"),
        "signing keys from files instead: the first signs, all are published; rotate by replacing the files and restarting")
    public static let sessionOnRegistration = ConfigVariable(
        "PASSKEYD_SESSION_ON_REGISTRATION", .sessions, .onOff, default: .value("off"), "`on`: a registration finish answers a session too")
    public static let sessionRevokeOnDelete = ConfigVariable(
        "PASSKEYD_SESSION_REVOKE_ON_DELETE", .sessions, .onOff, default: .value("on"),
        "deleting a passkey or unlinking an identity revokes the sessions it started")
    public static let handoffTTL = ConfigVariable(
        "PASSKEYD_HANDOFF_TTL", .sessions, .integer(1...60, .seconds), default: .value("30"), "seconds a handoff code lives")
    public static let sessionCookie = ConfigVariable(
        "PASSKEYD_SESSION_COOKIE", .sessions, .text("1–64 letters, digits, `_`, `-`"), default: .value("passkeyd_refresh"),
        "the name of the refresh-token cookie (`HttpOnly; Secure; SameSite=Strict; Path=/v1/sessions`)")
}
