public import Foundation
public import JOSE

/// How the token's `nonce` claim relates to the nonce passkeyd issued at begin.
public enum NonceRule: String, Sendable, Hashable, CaseIterable {
    /// The app hands the provider SDK the lowercase hex SHA-256 of the nonce, and the token carries that hash: Sign in
    /// with Apple (`ASAuthorizationAppleIDRequest.nonce`), Firebase-style flows.
    case sha256Hex = "sha256"
    /// The app hands the provider the nonce as it is, and the token carries it unchanged: LINE's SDK, Google.
    case raw = "raw"
}

/// One identity provider, as a value: what its tokens must look like. Apple, LINE and Google are presets; any OpenID
/// Connect provider is a profile built from configuration.
public struct ProviderProfile: Sendable, Hashable {
    /// The name clients use (`apple`, `line`, `google`, or a configured name): lowercase letters, digits, `-`.
    public var name: String
    /// Accepted `iss` values, compared exactly (Google uses two spellings). All of them name one issuer: the first is
    /// the canonical spelling (``canonicalIssuer``), the one an identity is stored under whichever the token carried.
    public var issuers: [String]
    /// Accepted `aud` values: the app's client ids (Apple: bundle ids for native sign-in, Services IDs for web).
    public var audiences: [String]
    /// Accepted `alg` values. `none` is not expressible; an HMAC algorithm only counts with ``hmacSecret``.
    public var algorithms: Set<JWSAlgorithm>
    /// The secret for HMAC-signed tokens (LINE web login: the channel secret). `nil`: HMAC algorithms are refused
    /// whatever ``algorithms`` says.
    public var hmacSecret: [UInt8]?
    /// How `nonce` is compared.
    public var nonceRule: NonceRule
    /// Allowed clock difference for `exp`, `nbf` and `iat`.
    public var clockSkew: TimeInterval
    /// The oldest `iat` accepted (the app just signed in; a day-old token is not a fresh sign-in).
    public var maxTokenAge: TimeInterval
    /// The largest accepted token, in bytes.
    public var maxTokenBytes: Int

    public init(
        name: String, issuers: [String], audiences: [String], algorithms: Set<JWSAlgorithm>, hmacSecret: [UInt8]? = nil,
        nonceRule: NonceRule, clockSkew: TimeInterval = 60, maxTokenAge: TimeInterval = 600, maxTokenBytes: Int = 8192
    ) {
        self.name = name
        self.issuers = issuers
        self.audiences = audiences
        self.algorithms = algorithms
        self.hmacSecret = hmacSecret
        self.nonceRule = nonceRule
        self.clockSkew = clockSkew
        self.maxTokenAge = maxTokenAge
        self.maxTokenBytes = maxTokenBytes
    }

    /// The issuer an identity of this provider is stored under: the first of ``issuers``.
    public var canonicalIssuer: String { issuers.first ?? "" }

    /// The algorithms actually accepted: HMAC ones only with a configured secret.
    public var effectiveAlgorithms: Set<JWSAlgorithm> {
        hmacSecret == nil ? algorithms.filter { !$0.isHMAC } : algorithms
    }

    /// Sign in with Apple: issuer `https://appleid.apple.com`, RS256, the SHA-256 (hex) of the nonce.
    public static func apple(audiences: [String]) -> ProviderProfile {
        ProviderProfile(name: "apple", issuers: ["https://appleid.apple.com"], audiences: audiences,
                        algorithms: [.rs256], nonceRule: .sha256Hex)
    }

    /// LINE Login: issuer `https://access.line.me`, ES256 from the SDKs; HS256 (web login) only with the channel
    /// secret; the nonce as it is.
    public static func line(channelIDs: [String], channelSecret: [UInt8]? = nil) -> ProviderProfile {
        ProviderProfile(name: "line", issuers: ["https://access.line.me"], audiences: channelIDs,
                        algorithms: channelSecret == nil ? [.es256] : [.es256, .hs256], hmacSecret: channelSecret,
                        nonceRule: .raw)
    }

    /// Google: both issuer spellings it uses (`https://accounts.google.com` canonical), RS256, the nonce as it is.
    public static func google(clientIDs: [String]) -> ProviderProfile {
        ProviderProfile(name: "google", issuers: ["https://accounts.google.com", "accounts.google.com"],
                        audiences: clientIDs, algorithms: [.rs256], nonceRule: .raw)
    }

    /// Whether `name` is a valid provider name (1–32 of `a-z`, `0-9`, `-`).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 32
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}
