import PasskeyApp
public import COSECrypto
public import Foundation
public import IdentityCore
import JOSE

/// ID-token sign-in providers from `PASSKEYD_IDTOKEN_*` (none configured: the `/v1/idtoken/*` routes are absent), and
/// Sign in with Apple's authorization-code exchange; the variables are declared in IdentityVariables.swift.
///
///     PASSKEYD_IDTOKEN_PROVIDERS=apple,line,google,acme      which providers; apple, line and google are presets,
///                                                            any other name is a generic OpenID Connect provider
///     PASSKEYD_IDTOKEN_<NAME>_CLIENT_IDS=a,b                 accepted aud values (required)
///     PASSKEYD_IDTOKEN_<NAME>_JWKS_URL / _JWKS_FILE / _ISSUER / _ALGORITHMS / _NONCE
///     PASSKEYD_IDTOKEN_LINE_CHANNEL_SECRET_FILE=/path        enables HS256 tokens of LINE web login
///     PASSKEYD_IDTOKEN_SESSION_TIMEOUT  _CLOCK_SKEW  _MAX_AGE  _JWKS_REFETCH_INTERVAL   (seconds)
///     PASSKEYD_IDTOKEN_APPLE_TEAM_ID / _KEY_ID / _PRIVATE_KEY_FILE (all three or none; needs apple listed)
///     PASSKEYD_IDTOKEN_APPLE_TOKEN_URL / _REVOKE_URL
///     PASSKEYD_KEY_ENCRYPTION_KEY_FILE=/path/kek             32 random bytes, base64: seals the refresh tokens at rest
///
/// `<NAME>` is the provider name upper-cased with `-` as `_`. A `PASSKEYD_IDTOKEN_*` variable that no listed provider
/// reads is a warning.
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

    /// The prefix of every ID-token variable (the catalog leaves unknown ones to ``init(_:warnings:)``).
    static let variablePrefix = ConfigVariable.idTokenClientIDs.patternParts!.prefix

    /// The published key URLs of the presets.
    public static let presetJWKS = [
        "apple": "https://appleid.apple.com/auth/keys",
        "google": "https://www.googleapis.com/oauth2/v3/certs",
        "line": "https://api.line.me/oauth2/v2.1/certs",
    ]

    init(_ reader: Reader, warnings: inout [String]) throws(ConfigurationError) {
        sessionTimeout = TimeInterval(try reader.integer(.idTokenSessionTimeout))
        refetchInterval = TimeInterval(try reader.integer(.idTokenJWKSRefetchInterval))
        let skew = TimeInterval(try reader.integer(.idTokenClockSkew))
        let maxAge = TimeInterval(try reader.integer(.idTokenMaxAge))
        var providers: [Provider] = []
        let names = reader.list(.idTokenProviders) ?? []
        for name in names {
            guard ProviderProfile.isValidName(name) else {
                throw ConfigurationError(.idTokenProviders, "\"\(name)\" is not a provider name (a-z, 0-9, -; at most 32)")
            }
            guard !providers.contains(where: { $0.profile.name == name }) else {
                throw ConfigurationError(.idTokenProviders, "\(name) is listed twice")
            }
            var provider = try Self.provider(name, reader)
            provider.profile.clockSkew = skew
            provider.profile.maxTokenAge = maxAge
            providers.append(provider)
        }
        self.providers = providers
        // Per-provider variables that no listed provider reads are probably a mistake.
        let read = Set(([.idTokenProviders] + Self.timingVariables + names.flatMap(Self.variables(of:))).map(\.name))
        for variable in reader.environment.keys.sorted() where variable.hasPrefix(Self.variablePrefix) && !read.contains(variable) {
            warnings.append("\(variable): unknown variable, ignored (no listed provider reads it; see PASSKEYD_IDTOKEN_PROVIDERS)")
        }
        appleCodeExchange = try Self.appleCodeExchange(reader, appleListed: names.contains("apple"), warnings: &warnings)
    }

    /// `apple` → `APPLE`, `my-idp` → `MY_IDP`: the `<NAME>` of a provider's variables.
    static func variablePart(_ name: String) -> String { name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The variables a listed provider reads: the per-provider patterns, and Apple's and LINE's own.
    static func variables(of provider: String) -> [ConfigVariable] {
        providerVariables.map { $0.instance(variablePart(provider)) }
            + (provider == "apple" ? appleCodeExchangeVariables : []) + (provider == "line" ? [.lineChannelSecretFile] : [])
    }

    static func appleCodeExchange(
        _ reader: Reader, appleListed: Bool, warnings: inout [String]
    ) throws(ConfigurationError) -> AppleCodeExchangeSettings? {
        let team = reader.value(.appleTeamID), keyID = reader.value(.appleKeyID), keyFile = reader.value(.applePrivateKeyFile)
        guard appleListed, team != nil || keyID != nil || keyFile != nil else {
            if appleListed {
                for variable in [ConfigVariable.appleTokenURL, .appleRevokeURL] where reader.isSet(variable) {
                    warnings.append("\(variable.name): ignored without the code exchange (PASSKEYD_IDTOKEN_APPLE_TEAM_ID, _KEY_ID, _PRIVATE_KEY_FILE)")
                }
            }
            // Without ceremony key files it seals the ceremony keys (CeremonyKeySettings.swift).
            if reader.isSet(.keyEncryptionKeyFile), (try? reader.boolean(.sessions)) != true, reader.isSet(.ceremonyKeyFiles) {
                warnings.append(
                    "PASSKEYD_KEY_ENCRYPTION_KEY_FILE: ignored: nothing is sealed with PASSKEYD_CEREMONY_KEY_FILES and without the Apple code exchange or sessions")
            }
            return nil
        }
        guard let team, let keyID, let keyFile else {
            let missing = [(ConfigVariable.appleTeamID, team), (.appleKeyID, keyID), (.applePrivateKeyFile, keyFile)].first { $0.1 == nil }!.0
            throw ConfigurationError(
                missing, "the Apple code exchange needs all of PASSKEYD_IDTOKEN_APPLE_TEAM_ID, _KEY_ID and _PRIVATE_KEY_FILE, or none")
        }
        guard !team.isEmpty, team.utf8.count <= 64 else { throw ConfigurationError(.appleTeamID, "must be 1-64 characters") }
        guard !keyID.isEmpty, keyID.utf8.count <= 64 else { throw ConfigurationError(.appleKeyID, "must be 1-64 characters") }
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw ConfigurationError(.applePrivateKeyFile, "cannot read \(keyFile)")
        }
        guard let der = AppleClientSecret.derFromPEM(String(decoding: data, as: UTF8.self)) else {
            throw ConfigurationError(.applePrivateKeyFile, "\(keyFile) is not a PEM PRIVATE KEY (the .p8 from Apple)")
        }
        let privateKey: PrivateKey
        do {
            privateKey = try PrivateKey(pkcs8DER: der)
        } catch {
            throw ConfigurationError(.applePrivateKeyFile, "\(keyFile) is not a usable private key (\(error.code))")
        }
        guard privateKey.algorithm == .es256 else {
            throw ConfigurationError(.applePrivateKeyFile, "\(keyFile) is not a P-256 key (Apple's keys are ES256)")
        }
        var urls: [String] = []
        for variable in [ConfigVariable.appleTokenURL, .appleRevokeURL] {
            let url = reader.text(variable)
            guard url.hasPrefix("https://") || isLoopbackHTTP(url) else {
                throw ConfigurationError(variable, "must be an https URL (http only on loopback)")
            }
            urls.append(url)
        }
        let kek = try reader.keyEncryptionKey(purpose: "the Apple code exchange")
        return AppleCodeExchangeSettings(
            teamID: team, keyID: keyID, privateKey: privateKey, tokenURL: urls[0], revokeURL: urls[1], keyEncryptionKey: kek)
    }

    static func provider(_ name: String, _ reader: Reader) throws(ConfigurationError) -> Provider {
        let part = variablePart(name)
        let clientIDsVariable = ConfigVariable.idTokenClientIDs.instance(part)
        guard let clientIDs = reader.list(clientIDsVariable), !clientIDs.isEmpty else {
            throw ConfigurationError(clientIDsVariable, "required: the client ids (aud) this provider's tokens are issued to")
        }
        var profile: ProviderProfile
        switch name {
        case "apple": profile = .apple(audiences: clientIDs)
        case "google": profile = .google(clientIDs: clientIDs)
        case "line":
            var secret: [UInt8]?
            if let path = reader.value(.lineChannelSecretFile) {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ConfigurationError(.lineChannelSecretFile, "cannot read \(path)")
                }
                let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard text.utf8.count >= 16 else { throw ConfigurationError(.lineChannelSecretFile, "the secret is shorter than 16 bytes") }
                secret = Array(text.utf8)
            }
            profile = .line(channelIDs: clientIDs, channelSecret: secret)
        default:
            let issuerVariable = ConfigVariable.idTokenIssuer.instance(part)
            guard let issuer = reader.value(issuerVariable) else {
                throw ConfigurationError(issuerVariable, "required for a generic OpenID Connect provider: its exact iss")
            }
            profile = ProviderProfile(
                name: name, issuers: [issuer], audiences: clientIDs, algorithms: genericAlgorithms, nonceRule: genericNonceRule)
        }
        let algorithmsVariable = ConfigVariable.idTokenAlgorithms.instance(part)
        if let names = reader.list(algorithmsVariable) {
            var algorithms = Set<JWSAlgorithm>()
            for text in names {
                guard let algorithm = JWSAlgorithm(rawValue: text), !algorithm.isHMAC else {
                    throw ConfigurationError(algorithmsVariable, "\"\(text)\" is not a signature algorithm (RS256, ES256, PS256, EdDSA, …)")
                }
                algorithms.insert(algorithm)
            }
            profile.algorithms = algorithms.union(profile.algorithms.filter(\.isHMAC))
        }
        if let rule = try reader.optionalChoice(.idTokenNonce.instance(part)) {
            profile.nonceRule = NonceRule(rawValue: rule)!
        }
        let keys: KeyLocation
        let urlVariable = ConfigVariable.idTokenJWKSURL.instance(part), fileVariable = ConfigVariable.idTokenJWKSFile.instance(part)
        switch (reader.value(urlVariable), reader.value(fileVariable)) {
        case (_?, _?): throw ConfigurationError(fileVariable, "set either a JWKS URL or a JWKS file, not both")
        case (let url?, nil):
            guard url.hasPrefix("https://") || Self.isLoopbackHTTP(url) else {
                throw ConfigurationError(urlVariable, "must be an https URL (http only on loopback)")
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
