public import CBORCodec
internal import COpenSSL

/// An immutable public key for signature verification: EC2 (P-256/384/521), OKP (Ed25519/Ed448) or RSA.
///
/// It owns exactly one OpenSSL `EVP_PKEY`, freed in `deinit`. It is `@unchecked Sendable` because nothing mutates
/// the EVP_PKEY after `init` and OpenSSL 3 allows concurrent verifications with one key from many threads (each
/// verification creates its own EVP_MD_CTX / EVP_PKEY_CTX).
@safe
public final class PublicKey: @unchecked Sendable {
    /// The owned EVP_PKEY* (never NULL, never mutated). Borrowed by the X.509 code through `withX509EVPPKey`.
    internal let pkey: OpaquePointer
    /// What the key is (curve, or RSA size).
    internal let kind: KeyKind

    /// The key's algorithm: the COSE key's `alg`; for SPKI imports without an explicit algorithm, the default for
    /// the key type: ES256 / ES384 / ES512 for P-256 / P-384 / P-521, EdDSA (-8) for Ed25519 and Ed448, RS256 for RSA.
    public let algorithm: COSEAlgorithm

    /// Takes ownership of `pkey` (already checked to be a key of `kind`). Cannot fail, so ownership is never lost.
    internal init(owning pkey: OpaquePointer, kind: KeyKind, algorithm: COSEAlgorithm) {
        unsafe self.pkey = pkey
        self.kind = kind
        self.algorithm = algorithm
    }

    /// Takes ownership of an EVP_PKEY from elsewhere (SPKI, a certificate, a private key's public half), classifies
    /// it with the same checks as a COSE import, and frees it if it is refused.
    /// - Parameters:
    ///   - pkey: An EVP_PKEY* the caller owns; after this call the caller must not use or free it.
    ///   - algorithm: The key's algorithm, checked against the key; `nil` picks the default for the key type.
    ///   - policy: Size limits for RSA.
    internal convenience init(takingOwnershipOf pkey: OpaquePointer, algorithm: COSEAlgorithm?, policy: COSEKeyPolicy) throws(CryptoError) {
        let kind: KeyKind
        let resolved: COSEAlgorithm
        do {
            kind = try unsafe EVPKey.classify(pkey, policy: policy)
            resolved = algorithm ?? kind.defaultAlgorithm
            _ = try resolved.scheme(for: kind)
        } catch {
            unsafe EVP_PKEY_free(pkey)
            throw error
        }
        unsafe self.init(owning: pkey, kind: kind, algorithm: resolved)
    }

    deinit {
        unsafe EVP_PKEY_free(pkey)
    }

    // MARK: SPKI

    /// Imports a DER SubjectPublicKeyInfo (e.g. from an attestation certificate).
    ///
    /// Accepts EC keys on P-256/P-384/P-521 (named curves only, point checked), Ed25519, Ed448 and RSA
    /// (`rsaEncryption`, with the policy's size and exponent rules). Trailing bytes are refused.
    /// - Parameters:
    ///   - spkiDER: The DER bytes.
    ///   - algorithm: The algorithm this key will be used with, checked against the key; `nil` (the default) picks
    ///     the key type's default (see ``algorithm``). ``verify(signature:message:algorithm:)`` can still be given
    ///     any algorithm that fits the key.
    ///   - policy: RSA size limits (default ``COSEKeyPolicy/default``).
    /// - Throws: ``CryptoError`` with `malformedKey`, `unsupportedKeyType`, `unsupportedCurve`, `pointNotOnCurve`,
    ///   `rsaModulusTooSmall`, `rsaModulusTooLarge`, `rsaExponentInvalid`, `unsupportedAlgorithm` or
    ///   `algorithmKeyMismatch`.
    public convenience init(spkiDER: [UInt8], algorithm: COSEAlgorithm? = nil, policy: COSEKeyPolicy = .default) throws(CryptoError) {
        guard !spkiDER.isEmpty else { throw CryptoError(code: .malformedKey, reason: "empty SubjectPublicKeyInfo") }
        clearOpenSSLErrors()
        let parsed = unsafe spkiDER.withUnsafeBufferPointer { buffer in
            unsafe passkeyd_public_key_from_spki(buffer.baseAddress, buffer.count)
        }
        guard let pkey = unsafe parsed else {
            throw CryptoError.fromOpenSSL(.malformedKey, "d2i_PUBKEY")
        }
        try unsafe self.init(takingOwnershipOf: pkey, algorithm: algorithm, policy: policy)
    }

    /// The DER SubjectPublicKeyInfo of this key (`i2d_PUBKEY`), copied out.
    public func spkiDER() -> [UInt8] {
        clearOpenSSLErrors()
        // Encoding a valid in-memory key only fails on allocation failure.
        guard let der = unsafe EVPKey.der(pkey, { unsafe passkeyd_public_key_to_spki($0, $1, $2) }) else {
            fatalError("i2d_PUBKEY failed for a valid key: \(drainOpenSSLErrors())")
        }
        return der
    }

    // MARK: Verification

    /// Verifies a signature with this key's own ``algorithm``.
    /// - Parameters:
    ///   - signature: The signature (DER `Ecdsa-Sig-Value` for ECDSA; raw for RSA and EdDSA).
    ///   - message: The signed bytes (for WebAuthn assertions: authenticatorData ‖ SHA-256(clientDataJSON)).
    /// - Returns: `true` iff the signature is valid; malformed, truncated or wrong-length signatures give `false`.
    /// - Throws: ``CryptoError`` only if the algorithm is unsupported or OpenSSL fails internally.
    public func verify(signature: [UInt8], message: [UInt8]) throws(CryptoError) -> Bool {
        try verify(signature: signature, message: message, algorithm: algorithm)
    }

    /// Verifies a signature with an explicit algorithm, which must fit this key (it need not equal ``algorithm``:
    /// a packed attestation names its own `alg` for the certificate key).
    ///
    /// One-shot `EVP_DigestVerify`: ECDSA signatures must be DER (OpenSSL re-encodes and compares, so raw r‖s, BER
    /// and trailing bytes fail; r and s must lie in [1, n-1]); high-S signatures are accepted. PSS uses MGF1 with the
    /// signature hash and a salt of exactly the hash length. EdDSA is pure EdDSA (no prehash, no context).
    /// - Parameters:
    ///   - signature: The signature bytes.
    ///   - message: The signed bytes.
    ///   - algorithm: The COSE algorithm to verify with.
    /// - Returns: `true` iff the signature is valid. Every bad signature, however malformed, gives `false`.
    /// - Throws: ``CryptoError`` `unsupportedAlgorithm` or `algorithmKeyMismatch` when the algorithm is unknown or
    ///   does not fit the key (ES256 needs a P-256 key, RS*/PS* an RSA key...); `openSSL` on internal failure.
    public func verify(signature: [UInt8], message: [UInt8], algorithm: COSEAlgorithm) throws(CryptoError) -> Bool {
        let scheme = try algorithm.scheme(for: kind)
        return try unsafe SignatureOperation.verify(pkey: pkey, scheme: scheme, signature: signature, message: message)
    }

    /// Whether ``verify(signature:message:algorithm:)`` accepts `algorithm` for this key.
    public func supports(_ algorithm: COSEAlgorithm) -> Bool {
        algorithm.scheme?.accepts(kind) ?? false
    }

    // MARK: Inspection

    /// A short description for logs: `"EC2 P-256"`, `"OKP Ed25519"`, `"RSA 2048"`.
    public var keyTypeName: String { kind.displayName }

    /// `0x04 ‖ x ‖ y` (each coordinate the field size) for EC keys, `nil` otherwise. Needed for fido-u2f.
    public var ecUncompressedPoint: [UInt8]? {
        guard case .ec(let curve) = kind, let (x, y) = unsafe EVPKey.ecCoordinates(pkey, curve: curve) else { return nil }
        return [0x04] + x + y
    }

    /// The RSA modulus and public exponent as minimal big-endian bytes (for comparing with a TPM `pubArea`), `nil`
    /// for other key types.
    public var rsaPublicComponents: (modulus: [UInt8], exponent: [UInt8])? {
        guard case .rsa = kind, let n = unsafe EVPKey.bnParam(pkey, OSSL_PKEY_PARAM_RSA_N),
            let e = unsafe EVPKey.bnParam(pkey, OSSL_PKEY_PARAM_RSA_E)
        else { return nil }
        return (n, e)
    }

    /// Whether both keys are the same public key (`EVP_PKEY_eq`). The ``algorithm`` is not compared.
    public func isEqual(to other: PublicKey) -> Bool {
        clearOpenSSLErrors()
        let equal = withExtendedLifetime(other) { unsafe EVP_PKEY_eq(pkey, other.pkey) } == 1
        if !equal { clearOpenSSLErrors() }
        return equal
    }

    /// The COSE_Key map of this key, in CTAP2 canonical key order (1, 3, then -1, -2, -3).
    ///
    /// EC2: `{1: 2, 3: alg, -1: crv, -2: x, -3: y}`; OKP: `{1: 1, 3: alg, -1: crv, -2: x}`;
    /// RSA: `{1: 3, 3: alg, -1: n, -2: e}`.
    /// - Parameter algorithm: The `alg` to write; `nil` (the default) writes ``algorithm``. It is deliberately not
    ///   checked against the key, so tests can build mismatched keys.
    public func coseKey(algorithm: COSEAlgorithm? = nil) -> CBORValue {
        let alg = CBORValue(Int64((algorithm ?? self.algorithm).rawValue))
        switch kind {
        case .ec(let curve):
            guard let (x, y) = unsafe EVPKey.ecCoordinates(pkey, curve: curve) else {
                fatalError("cannot export the coordinates of a valid EC key: \(drainOpenSSLErrors())")
            }
            return .map([
                CBORMapEntry(CBORValue(1), CBORValue(2)),
                CBORMapEntry(CBORValue(3), alg),
                CBORMapEntry(CBORValue(-1), CBORValue(curve.coseCurve)),
                CBORMapEntry(CBORValue(-2), .bytes(x)),
                CBORMapEntry(CBORValue(-3), .bytes(y)),
            ])
        case .okp(let curve):
            guard let raw = unsafe EVPKey.rawPublicKey(pkey) else {
                fatalError("cannot export a valid \(curve.displayName) key: \(drainOpenSSLErrors())")
            }
            return .map([
                CBORMapEntry(CBORValue(1), CBORValue(1)),
                CBORMapEntry(CBORValue(3), alg),
                CBORMapEntry(CBORValue(-1), CBORValue(curve.coseCurve)),
                CBORMapEntry(CBORValue(-2), .bytes(raw)),
            ])
        case .rsa:
            guard let (n, e) = rsaPublicComponents else {
                fatalError("cannot export a valid RSA key: \(drainOpenSSLErrors())")
            }
            return .map([
                CBORMapEntry(CBORValue(1), CBORValue(3)),
                CBORMapEntry(CBORValue(3), alg),
                CBORMapEntry(CBORValue(-1), .bytes(n)),
                CBORMapEntry(CBORValue(-2), .bytes(e)),
            ])
        }
    }
}
