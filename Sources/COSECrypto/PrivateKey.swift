public import CBORCodec
internal import COpenSSL

/// A private signing key, for the test software authenticator, test CAs and later server-side features. It is never
/// parsed from requests.
///
/// It owns exactly one OpenSSL `EVP_PKEY`, freed in `deinit`. It is `@unchecked Sendable` because nothing mutates
/// the EVP_PKEY after `init`; every signature uses its own EVP_MD_CTX.
@safe
public final class PrivateKey: @unchecked Sendable {
    /// The owned EVP_PKEY* (never NULL, never mutated). Borrowed by the X.509 code through `withX509EVPPKey`.
    internal let pkey: OpaquePointer
    /// What the key is.
    internal let kind: KeyKind

    /// The algorithm the key was generated for (for PKCS#8 imports: as given, or the key type's default).
    public let algorithm: COSEAlgorithm

    /// The public half, with ``PublicKey/algorithm`` equal to ``algorithm``.
    public let publicKey: PublicKey

    /// Takes ownership of `pkey` (a private key of `kind`); frees it if the public half cannot be extracted.
    private init(takingOwnershipOf pkey: OpaquePointer, kind: KeyKind, algorithm: COSEAlgorithm) throws(CryptoError) {
        let publicKey: PublicKey
        do {
            publicKey = try unsafe Self.publicHalf(of: pkey, kind: kind, algorithm: algorithm)
        } catch {
            unsafe EVP_PKEY_free(pkey)
            throw error
        }
        unsafe self.pkey = pkey
        self.kind = kind
        self.algorithm = algorithm
        self.publicKey = publicKey
    }

    deinit {
        unsafe EVP_PKEY_free(pkey)
    }

    /// Generates a key for `algorithm`: P-256/P-384/P-521 for ES*/ESP*, Ed25519 for EdDSA (-8) and Ed25519 (-19),
    /// Ed448 for Ed448 (-53), RSA for RS*/PS*/RS1.
    /// - Parameters:
    ///   - algorithm: The algorithm the key is for.
    ///   - rsaBits: The RSA modulus size (default 2048; ignored for other algorithms). Small sizes are allowed here,
    ///     so tests can produce keys that the verifier's policy must refuse.
    /// - Throws: ``CryptoError`` `unsupportedAlgorithm`, or `openSSL` if generation fails (e.g. an RSA size OpenSSL
    ///   refuses).
    public static func generate(for algorithm: COSEAlgorithm, rsaBits: Int = 2048) throws(CryptoError) -> PrivateKey {
        guard let scheme = algorithm.scheme else {
            throw CryptoError(code: .unsupportedAlgorithm, reason: "COSE algorithm \(algorithm.rawValue) is not supported")
        }
        let kind: KeyKind
        let type: String
        var group: String? = nil
        var bits: UInt32 = 0
        switch scheme {
        case .ecdsa(_, let curve):
            kind = .ec(curve)
            type = "EC"
            group = curve.openSSLGroupName
        case .eddsa(let curve):
            let edCurve = curve ?? .ed25519
            kind = .okp(edCurve)
            type = edCurve.openSSLName
        case .rsaPKCS1, .rsaPSS:
            guard rsaBits >= 512, rsaBits <= 16384, let exact = UInt32(exactly: rsaBits) else {
                throw CryptoError(code: .openSSL, reason: "RSA key size \(rsaBits) is outside 512...16384")
            }
            kind = .rsa(modulusBits: rsaBits)
            type = "RSA"
            bits = exact
        }
        clearOpenSSLErrors()
        let generated: OpaquePointer?
        if let group {
            unsafe generated = passkeyd_generate_key(type, group, bits)
        } else {
            unsafe generated = passkeyd_generate_key(type, nil, bits)
        }
        guard let pkey = unsafe generated else {
            throw CryptoError.fromOpenSSL(.openSSL, "key generation (\(algorithm.name))")
        }
        return try unsafe PrivateKey(takingOwnershipOf: pkey, kind: kind, algorithm: algorithm)
    }

    /// Imports an unencrypted DER PKCS#8 `PrivateKeyInfo` (for fixtures).
    /// - Parameters:
    ///   - pkcs8DER: The DER bytes; trailing bytes are refused.
    ///   - algorithm: The key's algorithm, checked against the key; `nil` (the default) picks the key type's
    ///     default (ES256/ES384/ES512, EdDSA, RS256).
    /// - Throws: ``CryptoError`` `malformedKey`, `unsupportedKeyType`, `unsupportedCurve`, `algorithmKeyMismatch`...
    public convenience init(pkcs8DER: [UInt8], algorithm: COSEAlgorithm? = nil) throws(CryptoError) {
        guard !pkcs8DER.isEmpty else { throw CryptoError(code: .malformedKey, reason: "empty PKCS#8") }
        clearOpenSSLErrors()
        let parsed = unsafe pkcs8DER.withUnsafeBufferPointer { buffer in
            unsafe passkeyd_private_key_from_pkcs8(buffer.baseAddress, buffer.count)
        }
        guard let pkey = unsafe parsed else {
            throw CryptoError.fromOpenSSL(.malformedKey, "PKCS#8 PrivateKeyInfo")
        }
        let kind: KeyKind
        let resolved: COSEAlgorithm
        do {
            // Our own fixtures: any RSA size OpenSSL can use.
            kind = try unsafe EVPKey.classify(pkey, policy: .ownKeys)
            resolved = algorithm ?? kind.defaultAlgorithm
            _ = try resolved.scheme(for: kind)
        } catch {
            unsafe EVP_PKEY_free(pkey)
            throw error
        }
        try unsafe self.init(takingOwnershipOf: pkey, kind: kind, algorithm: resolved)
    }

    /// The key as unencrypted DER PKCS#8 `PrivateKeyInfo`. Handle with care: this is the secret.
    public func pkcs8DER() -> [UInt8] {
        clearOpenSSLErrors()
        guard let der = unsafe EVPKey.der(pkey, { unsafe passkeyd_private_key_to_pkcs8($0, $1, $2) }) else {
            fatalError("PKCS#8 encoding failed for a valid key: \(drainOpenSSLErrors())")
        }
        return der
    }

    /// Signs `message`: ECDSA (DER `Ecdsa-Sig-Value`, randomized), RSASSA-PKCS1-v1_5 (RS*, and SHA-1 for RS1),
    /// RSASSA-PSS (MGF1 with the same hash, salt = hash length) or pure EdDSA.
    /// - Parameters:
    ///   - message: The bytes to sign (for WebAuthn: authenticatorData ‖ SHA-256(clientDataJSON)).
    ///   - algorithm: The algorithm; must fit the key.
    /// - Returns: The signature.
    /// - Throws: ``CryptoError`` `unsupportedAlgorithm`, `algorithmKeyMismatch` or `signingFailed`.
    public func sign(_ message: [UInt8], algorithm: COSEAlgorithm) throws(CryptoError) -> [UInt8] {
        let scheme = try algorithm.scheme(for: kind)
        return try unsafe SignatureOperation.sign(pkey: pkey, scheme: scheme, message: message)
    }

    /// The COSE_Key of the public half (CTAP2 canonical key order 1, 3, -1, -2, -3), as an authenticator puts it
    /// in attested credential data.
    /// - Parameter algorithm: The `alg` to write. Not checked against the key, so tests can build mismatched keys.
    public func coseKey(algorithm: COSEAlgorithm) -> CBORValue {
        publicKey.coseKey(algorithm: algorithm)
    }

    /// A public-only EVP_PKEY built from the private key's public components, wrapped in a `PublicKey`.
    private static func publicHalf(of pkey: OpaquePointer, kind: KeyKind, algorithm: COSEAlgorithm) throws(CryptoError) -> PublicKey {
        let publicPKey: OpaquePointer
        switch kind {
        case .ec(let curve):
            guard let (x, y) = unsafe EVPKey.ecCoordinates(pkey, curve: curve) else {
                throw CryptoError.fromOpenSSL(.openSSL, "EC public point export")
            }
            unsafe publicPKey = try EVPKey.ecPublicKey(curve: curve, x: x, y: y)
        case .okp(let curve):
            guard let raw = unsafe EVPKey.rawPublicKey(pkey) else {
                throw CryptoError.fromOpenSSL(.openSSL, "\(curve.displayName) public key export")
            }
            unsafe publicPKey = try EVPKey.edwardsPublicKey(curve: curve, raw: raw)
        case .rsa:
            guard let n = unsafe EVPKey.bnParam(pkey, OSSL_PKEY_PARAM_RSA_N), let e = unsafe EVPKey.bnParam(pkey, OSSL_PKEY_PARAM_RSA_E) else {
                throw CryptoError.fromOpenSSL(.openSSL, "RSA public component export")
            }
            // Our own key: any size OpenSSL accepted (policy is for untrusted input).
            unsafe publicPKey = try EVPKey.rsaPublicKey(modulus: n, exponent: e, policy: .ownKeys).0
        }
        return unsafe PublicKey(owning: publicPKey, kind: kind, algorithm: algorithm)
    }
}
