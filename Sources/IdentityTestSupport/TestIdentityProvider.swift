public import COSECrypto
public import Foundation
public import JOSE
import Synchronization
public import WebAuthnModel

/// A fake identity provider for tests: it holds signing keys, mints ID tokens with sensible claims that any test can
/// bend (claims added, removed or replaced; header `alg`/`kid` overridden; extra header members such as `crit`; HS256
/// with a given secret; a corrupted signature), and publishes its JWK set. Keys rotate: ``addKey(_:keyID:)`` makes a
/// new current key, ``removeKey(keyID:)`` drops one from the set.
///
/// Thread-safe: a ``TestProviderServer`` serves the JWKS of the provider as it is at each request.
public final class TestIdentityProvider: Sendable {
    /// One signing key and how the JWKS publishes it.
    public struct SigningKey: Sendable {
        /// The `kid` tokens carry and the JWKS publishes.
        public let keyID: String
        /// The algorithm it signs with (and the JWK's `alg`).
        public let algorithm: JWSAlgorithm
        /// The private key.
        public let privateKey: PrivateKey

        /// A key made elsewhere (`passkeyd-idp` loads one from a PKCS#8 file).
        public init(keyID: String, algorithm: JWSAlgorithm, privateKey: PrivateKey) {
            self.keyID = keyID
            self.algorithm = algorithm
            self.privateKey = privateKey
        }

        /// Generates a key for `algorithm` (ES256/384/512, RS256/384/512, PS256/384/512, EdDSA).
        /// - Throws: ``CryptoError`` for HMAC algorithms or a failed generation.
        public static func generate(_ algorithm: JWSAlgorithm, keyID: String) throws(CryptoError) -> SigningKey {
            guard let cose = algorithm.coseAlgorithm else {
                throw CryptoError(code: .unsupportedAlgorithm, reason: "\(algorithm) is not a signature algorithm")
            }
            return SigningKey(keyID: keyID, algorithm: algorithm, privateKey: try PrivateKey.generate(for: cose))
        }

        /// The public JWK (`kty`, `kid`, `alg`, `use: sig` and the key's members); `nil` for Ed25519 keys.
        public var jwk: [String: JSONValue]? {
            JWK.members(of: privateKey.publicKey, keyID: keyID, algorithm: algorithm)
        }
    }

    /// How the signature part of a token is made.
    public enum Signing: Sendable {
        /// With the provider's key (``TokenOptions/keyID``, or the current key).
        case key
        /// An HMAC under `secret` (LINE web login's HS256 keyed with the channel secret).
        case hmac(secret: [UInt8], algorithm: JWSAlgorithm = .hs256)
        /// An empty signature (for `alg: none` tokens).
        case empty
    }

    /// Per-token changes to the defaults. Every member defaults to "as a well-behaved provider would".
    public struct TokenOptions: Sendable {
        /// Which key signs (default: the current key).
        public var keyID: String?
        /// Claims added or replaced (applied after the defaults).
        public var claims: [String: JSONValue] = [:]
        /// Claims removed (applied last).
        public var removedClaims: Set<String> = []
        /// The header `alg` written as it is (`"none"`, `"HS256"`, …); the signature is still made as ``signing`` says.
        public var headerAlgorithm: String?
        /// The header `kid`: `.some(nil)` leaves it out, `.some("x")` writes `x`; default: the signing key's id.
        public var headerKeyID: String?? = .none
        /// The header `typ` (default `JWT`; `nil` leaves it out).
        public var headerType: String? = "JWT"
        /// Extra header members (`crit`, `jku`, …), written last so they may replace `alg`, `kid` or `typ` too.
        public var extraHeader: [String: JSONValue] = [:]
        /// How the signature is made.
        public var signing: Signing = .key
        /// Flip a bit of the signature after signing.
        public var corruptSignature = false

        public init() {}
    }

    /// The default `iss`.
    public let issuer: String
    /// The default `aud`.
    public let audience: String
    private let keys: Mutex<[SigningKey]>

    /// A provider with an ES256 key `es-1` and an RS256 key `rs-1` (the current one is the last: `rs-1`).
    /// - Throws: ``CryptoError`` if key generation fails.
    public convenience init(issuer: String = "https://idp.passkeyd.test", audience: String = "com.example.app") throws(CryptoError) {
        try self.init(issuer: issuer, audience: audience,
                      keys: [SigningKey.generate(.es256, keyID: "es-1"), SigningKey.generate(.rs256, keyID: "rs-1")])
    }

    /// A provider with the given keys (the last is the current one).
    public init(issuer: String, audience: String, keys: [SigningKey]) {
        self.issuer = issuer
        self.audience = audience
        self.keys = Mutex(keys)
    }

    /// The keys, oldest first; the last is the current key.
    public var signingKeys: [SigningKey] { keys.withLock { $0 } }

    /// The key with `keyID`.
    public func key(_ keyID: String) -> SigningKey? { keys.withLock { $0.first { $0.keyID == keyID } } }

    /// Generates a key, publishes it and makes it the current key (rotation, step one).
    @discardableResult
    public func addKey(_ algorithm: JWSAlgorithm, keyID: String) throws(CryptoError) -> SigningKey {
        let key = try SigningKey.generate(algorithm, keyID: keyID)
        addKey(key)
        return key
    }

    /// Publishes `key` and makes it the current key (a key with the same id is replaced).
    public func addKey(_ key: SigningKey) {
        keys.withLock { keys in
            keys.removeAll { $0.keyID == key.keyID }
            keys.append(key)
        }
    }

    /// Drops the key with `keyID` from the set (rotation, step two). Tokens it signed stop verifying once a verifier
    /// refetches.
    public func removeKey(keyID: String) {
        keys.withLock { keys in keys.removeAll { $0.keyID == keyID } }
    }

    /// The JWK set document of the current keys.
    public var jwks: JSONValue {
        .object(["keys": .array(signingKeys.compactMap { $0.jwk.map(JSONValue.object) })])
    }

    /// The JWK set document as UTF-8 JSON.
    public func jwksJSON() -> [UInt8] { JSONText.bytes(of: jwks) }

    /// The JWK set as a verifier sees it.
    public func jwkSet() throws(JOSEError) -> JWKSet { try JWKSet(json: jwksJSON()) }

    /// The claims a well-behaved provider puts in a token.
    public func defaultClaims(subject: String, nonce: String?, now: Date, lifetime: TimeInterval = 300) -> [String: JSONValue] {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string(subject),
            "iat": .number(issuedAt), "exp": .number(issuedAt + lifetime.rounded(.down)),
            "auth_time": .number(issuedAt),
            "email": .string("user@example.com"), "email_verified": .bool(true),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        return claims
    }

    /// Mints an ID token.
    /// - Parameters:
    ///   - subject: `sub`.
    ///   - nonce: `nonce` as it must appear in the token (already hashed for providers that hash); `nil` leaves it out.
    ///   - now: `iat` (and `exp` = `iat` + 300 s).
    ///   - options: changes to the defaults.
    /// - Returns: the compact JWS.
    /// - Throws: ``JOSEError`` when the signing key is unknown or does not fit the algorithm.
    public func idToken(
        subject: String = "000123.test-subject", nonce: String?, now: Date = Date(), options: TokenOptions = TokenOptions()
    ) throws(JOSEError) -> String {
        var claims = defaultClaims(subject: subject, nonce: nonce, now: now)
        claims.merge(options.claims) { _, new in new }
        for name in options.removedClaims { claims.removeValue(forKey: name) }
        return try sign(payload: JSONText.bytes(of: .object(claims)), options: options)
    }

    /// Signs any payload as ``idToken(subject:nonce:now:options:)`` does (for payloads that are not JSON objects).
    public func sign(payload: [UInt8], options: TokenOptions = TokenOptions()) throws(JOSEError) -> String {
        var header: [String: JSONValue] = [:]
        let algorithm: JWSAlgorithm?
        var signingKey: SigningKey?
        switch options.signing {
        case .key:
            let chosen: SigningKey?
            if let keyID = options.keyID { chosen = key(keyID) } else { chosen = signingKeys.last }
            guard let chosen else { throw JOSEError(.keyUnknown, "the test provider has no key \(options.keyID ?? "at all")") }
            signingKey = chosen
            algorithm = chosen.algorithm
        case .hmac(_, let hmac):
            algorithm = hmac
        case .empty:
            algorithm = nil
        }
        header["alg"] = .string(options.headerAlgorithm ?? algorithm?.rawValue ?? "none")
        switch options.headerKeyID {
        case .none: if let signingKey { header["kid"] = .string(signingKey.keyID) }
        case .some(.none): break
        case .some(.some(let keyID)): header["kid"] = .string(keyID)
        }
        if let type = options.headerType { header["typ"] = .string(type) }
        header.merge(options.extraHeader) { _, new in new }

        let signingInput = Base64URL.encode(JSONText.bytes(of: .object(header))) + "." + Base64URL.encode(payload)
        var signature: [UInt8]
        do {
            switch options.signing {
            case .key:
                guard let signingKey, let cose = signingKey.algorithm.coseAlgorithm else {
                    throw JOSEError(.algorithmNotAllowed, "no signature algorithm")
                }
                signature = try signingKey.privateKey.sign(Array(signingInput.utf8), algorithm: cose)
                if let length = signingKey.algorithm.ecComponentLength {
                    signature = try ECDSASignatureEncoding.rawFromDER(signature, componentLength: length)
                }
            case .hmac(let secret, let hmac):
                guard let hash = hmac.hmacHash else { throw JOSEError(.algorithmNotAllowed, "\(hmac) is not an HMAC") }
                signature = try HMAC.mac(hash, key: secret, message: Array(signingInput.utf8))
            case .empty:
                signature = []
            }
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.keyInvalid, "test provider signing: \(error)")
        }
        if options.corruptSignature, !signature.isEmpty {
            signature[signature.count / 2] ^= 0x01
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
