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
///     PASSKEYD_IDTOKEN_<NAME>_ALGORITHMS=RS256,ES256         generic providers (default RS256); presets fixed
///     PASSKEYD_IDTOKEN_<NAME>_NONCE=raw|sha256               how the token carries the nonce (presets: apple
///                                                            sha256, others raw)
///     PASSKEYD_IDTOKEN_LINE_CHANNEL_SECRET_FILE=/path        enables HS256 tokens of LINE web login
///     PASSKEYD_IDTOKEN_SESSION_TIMEOUT=300  _CLOCK_SKEW=60  _MAX_AGE=600  _JWKS_REFETCH_INTERVAL=60   (seconds)
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

    /// Variables read here besides the per-provider ones.
    static let variables = [
        "PASSKEYD_IDTOKEN_PROVIDERS", "PASSKEYD_IDTOKEN_SESSION_TIMEOUT", "PASSKEYD_IDTOKEN_CLOCK_SKEW",
        "PASSKEYD_IDTOKEN_MAX_AGE", "PASSKEYD_IDTOKEN_JWKS_REFETCH_INTERVAL",
    ]
    static let providerSuffixes = ["CLIENT_IDS", "JWKS_URL", "JWKS_FILE", "ISSUER", "ALGORITHMS", "NONCE", "CHANNEL_SECRET_FILE"]

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
                  Self.providerSuffixes.contains(String(variable.dropFirst(prefix.count)))
            else {
                warnings.append("\(variable): unknown variable, ignored (no listed provider reads it; see PASSKEYD_IDTOKEN_PROVIDERS)")
                continue
            }
        }
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
