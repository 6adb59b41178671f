import PasskeyApp
public import COSECrypto
public import Foundation
public import IdentityCore
import JOSE

/// ID-token sign-in providers from `PASSKEYD_IDTOKEN_*` (none configured: the `/v1/idtoken/*` routes are absent).
///
///     PASSKEYD_IDTOKEN_PROVIDERS=apple,line,google,acme      which providers; apple, line and google are presets,
///                                                            any other name is a generic OpenID Connect provider
///     PASSKEYD_IDTOKEN_<NAME>_CLIENT_IDS=a,b                 accepted aud values (required)
///     PASSKEYD_IDTOKEN_<NAME>_JWKS_URL=https://…             the provider's keys (presets have their published URL)
///     PASSKEYD_IDTOKEN_<NAME>_JWKS_FILE=/path/jwks.json      …or a file (air-gapped deployments, tests)
///     PASSKEYD_IDTOKEN_<NAME>_ISSUER=https://…               generic providers: the exact iss (keys from its
///                                                            discovery document unless a JWKS URL or file is set)
///     PASSKEYD_IDTOKEN_<NAME>_ALGORITHMS=RS256,ES256         replaces the default list (generic providers RS256;
///                                                            presets as in ProviderProfile); never an HMAC name
///     PASSKEYD_IDTOKEN_<NAME>_NONCE=raw|sha256               how the token carries the nonce (presets: apple
///                                                            sha256, others raw)
///     PASSKEYD_IDTOKEN_LINE_CHANNEL_SECRET_FILE=/path        enables HS256 tokens of LINE web login
///     PASSKEYD_IDTOKEN_SESSION_TIMEOUT=300  _CLOCK_SKEW=60  _MAX_AGE=600  _JWKS_REFETCH_INTERVAL=60   (seconds)
///
/// Sign in with Apple's authorization-code exchange (all three or none; needs apple in the providers list):
///
///     PASSKEYD_IDTOKEN_APPLE_TEAM_ID=ABCDE12345              the Apple Developer team id (iss of client secrets)
///     PASSKEYD_IDTOKEN_APPLE_KEY_ID=XYZ987654                the Sign in with Apple key's id (kid)
///     PASSKEYD_IDTOKEN_APPLE_PRIVATE_KEY_FILE=/path/Auth.p8  that key (PEM PKCS#8, P-256)
///     PASSKEYD_IDTOKEN_APPLE_TOKEN_URL / _REVOKE_URL         default https://appleid.apple.com/auth/token, /auth/revoke
///     PASSKEYD_KEY_ENCRYPTION_KEY_FILE=/path/kek             32 random bytes, base64: seals the refresh tokens at rest
///
/// `<NAME>` is the provider name upper-cased with `-` as `_`.
public struct IdentitySettings: Sendable {
    /// Where a provider's keys come from.
    public enum KeyLocation: Sendable, Hashable {
        case url(String)
        case file(String)
        /// The provider's discovery document at `issuer + /.well-known/openid-configuration`.
        case discovery(issuer: String)
    }

    public struct Provider: Sendable {
        public var profile: ProviderProfile
        public var keys: KeyLocation
    }

    public var providers: [Provider]
    public var sessionTimeout: TimeInterval
    /// The least time between two fetches of one provider's keys for an unknown `kid`.
    public var refetchInterval: TimeInterval
    /// Sign in with Apple's authorization-code exchange; `nil` when not configured.
    public var appleCodeExchange: AppleCodeExchangeSettings?

    /// What the Apple code exchange needs.
    public struct AppleCodeExchangeSettings: Sendable {
        public var teamID: String
        public var keyID: String
        /// The `.p8` key, imported (P-256, ES256).
        public var privateKey: PrivateKey
        public var tokenURL: String
        public var revokeURL: String
        /// The 32-byte key-encryption key (AES-256-GCM) for refresh tokens at rest.
        public var keyEncryptionKey: [UInt8]
    }

    /// Variables read here besides the per-provider ones.
    static let variables = [
        "PASSKEYD_IDTOKEN_PROVIDERS", "PASSKEYD_IDTOKEN_SESSION_TIMEOUT", "PASSKEYD_IDTOKEN_CLOCK_SKEW",
        "PASSKEYD_IDTOKEN_MAX_AGE", "PASSKEYD_IDTOKEN_JWKS_REFETCH_INTERVAL",
    ]
    static let providerSuffixes = [
        "CLIENT_IDS", "JWKS_URL", "JWKS_FILE", "ISSUER", "ALGORITHMS", "NONCE", "CHANNEL_SECRET_FILE",
        "TEAM_ID", "KEY_ID", "PRIVATE_KEY_FILE", "TOKEN_URL", "REVOKE_URL",
    ]
    /// Suffixes only Apple reads (the code exchange).
    static let appleSuffixes: Set<String> = ["TEAM_ID", "KEY_ID", "PRIVATE_KEY_FILE", "TOKEN_URL", "REVOKE_URL"]
    /// The key-encryption key: not Apple's alone (any sealed secret at rest), hence not under PASSKEYD_IDTOKEN_.
    static let keyEncryptionKeyVariable = "PASSKEYD_KEY_ENCRYPTION_KEY_FILE"

    /// The published key URLs of the presets.
    public static let presetJWKS = [
        "apple": "https://appleid.apple.com/auth/keys",
        "google": "https://www.googleapis.com/oauth2/v3/certs",
        "line": "https://api.line.me/oauth2/v2.1/certs",
    ]

    init(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) {
        sessionTimeout = TimeInterval(try reader.integer("PASSKEYD_IDTOKEN_SESSION_TIMEOUT", default: 300, in: 30...3600))
        refetchInterval = TimeInterval(try reader.integer("PASSKEYD_IDTOKEN_JWKS_REFETCH_INTERVAL", default: 60, in: 1...86_400))
        let skew = TimeInterval(try reader.integer("PASSKEYD_IDTOKEN_CLOCK_SKEW", default: 60, in: 0...600))
        let maxAge = TimeInterval(try reader.integer("PASSKEYD_IDTOKEN_MAX_AGE", default: 600, in: 30...86_400))
        var providers: [Provider] = []
        let names = reader.list("PASSKEYD_IDTOKEN_PROVIDERS") ?? []
        for name in names {
            guard ProviderProfile.isValidName(name) else {
                throw ConfigurationError("PASSKEYD_IDTOKEN_PROVIDERS", "\"\(name)\" is not a provider name (a-z, 0-9, -; at most 32)")
            }
            guard !providers.contains(where: { $0.profile.name == name }) else {
                throw ConfigurationError("PASSKEYD_IDTOKEN_PROVIDERS", "\(name) is listed twice")
            }
            var provider = try Self.provider(name, reader)
            provider.profile.clockSkew = skew
            provider.profile.maxTokenAge = maxAge
            providers.append(provider)
        }
        self.providers = providers
        // Per-provider variables of providers that are not listed are probably a mistake.
        let prefixes = names.map { "PASSKEYD_IDTOKEN_" + Self.variablePart($0) + "_" }
        for variable in reader.environment.keys.sorted() where variable.hasPrefix("PASSKEYD_IDTOKEN_") && !Self.variables.contains(variable) {
            guard let prefix = prefixes.first(where: { variable.hasPrefix($0) }),
                  Self.providerSuffixes.contains(String(variable.dropFirst(prefix.count))),
                  prefix == "PASSKEYD_IDTOKEN_APPLE_" || !Self.appleSuffixes.contains(String(variable.dropFirst(prefix.count)))
            else {
                warnings.append("\(variable): unknown variable, ignored (no listed provider reads it; see PASSKEYD_IDTOKEN_PROVIDERS)")
                continue
            }
        }
        appleCodeExchange = try Self.appleCodeExchange(reader, appleListed: names.contains("apple"), warnings: &warnings)
    }

    static func appleCodeExchange(
        _ reader: Reader, appleListed: Bool, warnings: inout [String]
    ) throws(ConfigurationError) -> AppleCodeExchangeSettings? {
        let prefix = "PASSKEYD_IDTOKEN_APPLE_"
        let team = reader.value(prefix + "TEAM_ID"), keyID = reader.value(prefix + "KEY_ID")
        let keyFile = reader.value(prefix + "PRIVATE_KEY_FILE")
        guard appleListed, team != nil || keyID != nil || keyFile != nil else {
            if appleListed {
                for suffix in ["TOKEN_URL", "REVOKE_URL"] where reader.value(prefix + suffix) != nil {
                    warnings.append("\(prefix + suffix): ignored without the code exchange (\(prefix)TEAM_ID, _KEY_ID, _PRIVATE_KEY_FILE)")
                }
            }
            if reader.value(keyEncryptionKeyVariable) != nil, (try? reader.boolean("PASSKEYD_SESSIONS", default: false)) != true {
                warnings.append("\(keyEncryptionKeyVariable): ignored: nothing is sealed without the Apple code exchange or sessions")
            }
            return nil
        }
        guard let team, let keyID, let keyFile else {
            let missing = [("TEAM_ID", team), ("KEY_ID", keyID), ("PRIVATE_KEY_FILE", keyFile)].first { $0.1 == nil }!.0
            throw ConfigurationError(
                prefix + missing, "the Apple code exchange needs all of \(prefix)TEAM_ID, _KEY_ID and _PRIVATE_KEY_FILE, or none")
        }
        guard !team.isEmpty, team.utf8.count <= 64 else { throw ConfigurationError(prefix + "TEAM_ID", "must be 1-64 characters") }
        guard !keyID.isEmpty, keyID.utf8.count <= 64 else { throw ConfigurationError(prefix + "KEY_ID", "must be 1-64 characters") }
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw ConfigurationError(prefix + "PRIVATE_KEY_FILE", "cannot read \(keyFile)")
        }
        guard let der = AppleClientSecret.derFromPEM(String(decoding: data, as: UTF8.self)) else {
            throw ConfigurationError(prefix + "PRIVATE_KEY_FILE", "\(keyFile) is not a PEM PRIVATE KEY (the .p8 from Apple)")
        }
        let privateKey: PrivateKey
        do {
            privateKey = try PrivateKey(pkcs8DER: der)
        } catch {
            throw ConfigurationError(prefix + "PRIVATE_KEY_FILE", "\(keyFile) is not a usable private key (\(error.code))")
        }
        guard privateKey.algorithm == .es256 else {
            throw ConfigurationError(prefix + "PRIVATE_KEY_FILE", "\(keyFile) is not a P-256 key (Apple's keys are ES256)")
        }
        var urls: [String] = []
        for (suffix, fallback) in [("TOKEN_URL", "https://appleid.apple.com/auth/token"), ("REVOKE_URL", "https://appleid.apple.com/auth/revoke")] {
            let url = reader.value(prefix + suffix) ?? fallback
            guard url.hasPrefix("https://") || isLoopbackHTTP(url) else {
                throw ConfigurationError(prefix + suffix, "must be an https URL (http only on loopback)")
            }
            urls.append(url)
        }
        let kek = try reader.keyEncryptionKey(purpose: "the Apple code exchange")
        return AppleCodeExchangeSettings(
            teamID: team, keyID: keyID, privateKey: privateKey, tokenURL: urls[0], revokeURL: urls[1], keyEncryptionKey: kek)
    }

    static func variablePart(_ name: String) -> String { name.uppercased().replacingOccurrences(of: "-", with: "_") }

    static func provider(_ name: String, _ reader: Reader) throws(ConfigurationError) -> Provider {
        let prefix = "PASSKEYD_IDTOKEN_" + variablePart(name) + "_"
        guard let clientIDs = reader.list(prefix + "CLIENT_IDS"), !clientIDs.isEmpty else {
            throw ConfigurationError(prefix + "CLIENT_IDS", "required: the client ids (aud) this provider's tokens are issued to")
        }
        var profile: ProviderProfile
        switch name {
        case "apple": profile = .apple(audiences: clientIDs)
        case "google": profile = .google(clientIDs: clientIDs)
        case "line":
            var secret: [UInt8]?
            if let path = reader.value(prefix + "CHANNEL_SECRET_FILE") {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ConfigurationError(prefix + "CHANNEL_SECRET_FILE", "cannot read \(path)")
                }
                let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard text.utf8.count >= 16 else { throw ConfigurationError(prefix + "CHANNEL_SECRET_FILE", "the secret is shorter than 16 bytes") }
                secret = Array(text.utf8)
            }
            profile = .line(channelIDs: clientIDs, channelSecret: secret)
        default:
            guard let issuer = reader.value(prefix + "ISSUER") else {
                throw ConfigurationError(prefix + "ISSUER", "required for a generic OpenID Connect provider: its exact iss")
            }
            profile = ProviderProfile(name: name, issuers: [issuer], audiences: clientIDs, algorithms: [.rs256], nonceRule: .raw)
        }
        if let names = reader.list(prefix + "ALGORITHMS") {
            var algorithms = Set<JWSAlgorithm>()
            for text in names {
                guard let algorithm = JWSAlgorithm(rawValue: text), !algorithm.isHMAC else {
                    throw ConfigurationError(prefix + "ALGORITHMS", "\"\(text)\" is not a signature algorithm (RS256, ES256, PS256, EdDSA, …)")
                }
                algorithms.insert(algorithm)
            }
            profile.algorithms = algorithms.union(profile.algorithms.filter(\.isHMAC))
        }
        if let text = reader.value(prefix + "NONCE") {
            guard let rule = NonceRule(rawValue: text) else { throw ConfigurationError(prefix + "NONCE", "must be raw or sha256, got \"\(text)\"") }
            profile.nonceRule = rule
        }
        let keys: KeyLocation
        switch (reader.value(prefix + "JWKS_URL"), reader.value(prefix + "JWKS_FILE")) {
        case (_?, _?): throw ConfigurationError(prefix + "JWKS_FILE", "set either a JWKS URL or a JWKS file, not both")
        case (let url?, nil):
            guard url.hasPrefix("https://") || Self.isLoopbackHTTP(url) else {
                throw ConfigurationError(prefix + "JWKS_URL", "must be an https URL (http only on loopback)")
            }
            keys = .url(url)
        case (nil, let path?): keys = .file(path)
        case (nil, nil):
            if let url = presetJWKS[name] {
                keys = .url(url)
            } else {
                keys = .discovery(issuer: profile.issuers[0])
            }
        }
        return Provider(profile: profile, keys: keys)
    }

    static func isLoopbackHTTP(_ url: String) -> Bool {
        ["http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:", "http://localhost/", "http://[::1]:", "http://[::1]/"]
            .contains { url.hasPrefix($0) }
    }
}
