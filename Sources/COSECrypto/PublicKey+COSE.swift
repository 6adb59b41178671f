public import CBORCodec

// COSE_Key import (RFC 9052 §7, RFC 9053 §7, RFC 8230 §4, WebAuthn §5.8.5 / "alg identifier" section).

extension PublicKey {
    /// CBOR limits for a stored or received COSE_Key: definite lengths, shortest integers, small and shallow.
    /// 4 KiB fits an 8192-bit RSA key with room to spare.
    public static let coseKeyCBORLimits = CBORLimits(
        maxInputBytes: 4096, maxDepth: 4, maxItems: 64, maxStringBytes: 2048,
        allowIndefiniteLength: false, requireMinimalIntegers: true
    )

    /// Decodes COSE_Key bytes (``coseKeyCBORLimits``: CTAP2-canonical integers, definite lengths, no trailing bytes),
    /// then imports them as ``init(cose:policy:)`` does.
    /// - Parameters:
    ///   - coseBytes: The CBOR-encoded COSE_Key.
    ///   - policy: RSA size limits (default ``COSEKeyPolicy/default``).
    /// - Throws: ``CryptoError`` `malformedKey` when the bytes are not valid CBOR under those limits, otherwise as
    ///   ``init(cose:policy:)``.
    public convenience init(coseBytes: [UInt8], policy: COSEKeyPolicy = .default) throws(CryptoError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(coseBytes, limits: Self.coseKeyCBORLimits)
        } catch {
            throw CryptoError(code: .malformedKey, reason: "COSE_Key is not valid CBOR: \(error.debugDescription)")
        }
        try self.init(cose: value, policy: policy)
    }

    /// Imports a COSE_Key map.
    ///
    /// - `kty` (1) and `alg` (3) are required integers; `kid` (2, a byte string) is allowed; any other label not
    ///   defined for the key type is refused, and so is private-key material (`d`, and RSA's private labels).
    /// - EC2 (kty 2): `crv` (-1) 1/2/3, `x` (-2) and `y` (-3) byte strings of exactly 32/48/66 bytes (uncompressed
    ///   only: a boolean `y` is refused); the point must be on the curve (checked explicitly).
    /// - OKP (kty 1): `crv` 6 (Ed25519) or 7 (Ed448), `x` of 32 / 57 bytes.
    /// - RSA (kty 3): `n` (-1) and `e` (-2) byte strings; the modulus size must be within `policy` (leading zero
    ///   bytes are fine) and the exponent odd, >= 3 and <= 2^32.
    /// - `alg` must fit: ES256/ESP256 ⇒ P-256, ES384/ESP384 ⇒ P-384, ES512/ESP512 ⇒ P-521, EdDSA ⇒ Ed25519 or Ed448,
    ///   Ed25519 ⇒ Ed25519, Ed448 ⇒ Ed448, RS*/PS*/RS1 ⇒ RSA.
    /// - Parameters:
    ///   - cose: The decoded COSE_Key.
    ///   - policy: RSA size limits (default ``COSEKeyPolicy/default``).
    /// - Throws: ``CryptoError``: `malformedKey`, `missingKeyParameter`, `unexpectedKeyParameter`,
    ///   `unsupportedKeyType`, `unsupportedAlgorithm`, `unsupportedCurve`, `algorithmKeyMismatch`, `pointNotOnCurve`,
    ///   `rsaModulusTooSmall`, `rsaModulusTooLarge` or `rsaExponentInvalid`.
    public convenience init(cose: CBORValue, policy: COSEKeyPolicy = .default) throws(CryptoError) {
        let parsed = try unsafe COSEKeyParser.parse(cose, policy: policy)
        unsafe self.init(owning: parsed.pkey, kind: parsed.kind, algorithm: parsed.algorithm)
    }
}

internal enum COSEKeyParser {
    // Labels (RFC 9052 table 4, RFC 9053 tables 19/20, RFC 8230 table 4).
    private static let labelKty: Int64 = 1
    private static let labelKid: Int64 = 2
    private static let labelAlg: Int64 = 3

    private enum KeyType: Int64 {
        case okp = 1, ec2 = 2, rsa = 3

        var name: String {
            switch self {
            case .okp: "OKP"
            case .ec2: "EC2"
            case .rsa: "RSA"
            }
        }
    }

    /// Parses and imports; the returned EVP_PKEY is owned by the caller.
    static func parse(_ cose: CBORValue, policy: COSEKeyPolicy) throws(CryptoError) -> (pkey: OpaquePointer, kind: KeyKind, algorithm: COSEAlgorithm) {
        guard let entries = cose.mapEntries else {
            throw CryptoError(code: .malformedKey, reason: "COSE_Key is not a CBOR map")
        }
        // A valid key has at most 6 entries (kty, kid, alg and three key parameters); the bound also keeps the
        // duplicate check below cheap for maps decoded with looser limits.
        guard entries.count <= 16 else {
            throw CryptoError(code: .malformedKey, reason: "COSE_Key has \(entries.count) entries")
        }

        // One pass over the labels: common ones by name, key-type parameters (-1...-3) by position, anything else
        // remembered as the first unexpected label.
        var kty: CBORValue?
        var alg: CBORValue?
        var kid: CBORValue?
        var params: [CBORValue?] = [nil, nil, nil]  // labels -1, -2, -3
        var otherLabels: [Int64] = []
        for entry in entries {
            guard let label = entry.key.intValue else {
                switch entry.key {
                case .text(let text):
                    throw CryptoError(code: .unexpectedKeyParameter, reason: "COSE_Key has a text label \"\(text.prefix(32))\"")
                default:
                    throw CryptoError(code: .malformedKey, reason: "COSE_Key label is not an integer")
                }
            }
            func store(_ slot: inout CBORValue?) throws(CryptoError) {
                guard slot == nil else {
                    throw CryptoError(code: .malformedKey, reason: "COSE_Key label \(label) appears twice")
                }
                slot = entry.value
            }
            switch label {
            case labelKty: try store(&kty)
            case labelAlg: try store(&alg)
            case labelKid: try store(&kid)
            case -3 ... -1: try store(&params[Int(-label) - 1])
            default:
                guard !otherLabels.contains(label) else {
                    throw CryptoError(code: .malformedKey, reason: "COSE_Key label \(label) appears twice")
                }
                otherLabels.append(label)
            }
        }

        // kty
        guard let ktyValue = kty else {
            throw CryptoError(code: .missingKeyParameter, reason: "COSE_Key has no kty (1)")
        }
        guard let ktyInt = ktyValue.intValue else {
            throw CryptoError(code: .malformedKey, reason: "COSE_Key kty is not an integer")
        }
        guard let keyType = KeyType(rawValue: ktyInt) else {
            throw CryptoError(code: .unsupportedKeyType, reason: "COSE_Key kty \(ktyInt) is not supported")
        }

        // Labels beyond the key type's own: private material first (the more alarming finding), then anything else.
        let privateLabels: ClosedRange<Int64> = keyType == .rsa ? -12 ... -3 : -4 ... -4
        var unexpected = otherLabels
        if keyType != .ec2, params[2] != nil { unexpected.append(-3) }
        if let label = unexpected.first(where: { privateLabels.contains($0) }) {
            throw CryptoError(code: .unexpectedKeyParameter, reason: "COSE_Key contains private-key parameter \(label)")
        }
        if let label = unexpected.first {
            throw CryptoError(code: .unexpectedKeyParameter, reason: "COSE_Key label \(label) is not allowed for kty \(keyType.name)")
        }
        if let kid, kid.bytesValue == nil {
            throw CryptoError(code: .malformedKey, reason: "COSE_Key kid is not a byte string")
        }

        // alg
        guard let algValue = alg else {
            throw CryptoError(code: .missingKeyParameter, reason: "COSE_Key has no alg (3)")
        }
        guard let algInt = algValue.intValue, let algRaw = Int(exactly: algInt) else {
            throw CryptoError(code: .malformedKey, reason: "COSE_Key alg is not an integer")
        }
        let algorithm = COSEAlgorithm(rawValue: algRaw)
        guard let scheme = algorithm.scheme else {
            throw CryptoError(code: .unsupportedAlgorithm, reason: "COSE algorithm \(algRaw) is not supported")
        }
        let algorithmKeyType: KeyType =
            switch scheme {
            case .ecdsa: .ec2
            case .eddsa: .okp
            case .rsaPKCS1, .rsaPSS: .rsa
            }
        guard algorithmKeyType == keyType else {
            throw CryptoError(code: .algorithmKeyMismatch, reason: "\(algorithm.name) cannot be used with kty \(keyType.name)")
        }

        func parameter(_ label: Int64, _ name: String) throws(CryptoError) -> CBORValue {
            guard let value = params[Int(-label) - 1] else {
                throw CryptoError(code: .missingKeyParameter, reason: "\(keyType.name) COSE_Key has no \(name) (\(label))")
            }
            return value
        }
        func bytes(_ label: Int64, _ name: String) throws(CryptoError) -> [UInt8] {
            guard let value = try parameter(label, name).bytesValue else {
                throw CryptoError(code: .malformedKey, reason: "\(keyType.name) COSE_Key \(name) is not a byte string")
            }
            return value
        }
        func curve(_ name: String) throws(CryptoError) -> Int64 {
            guard let value = try parameter(-1, "crv").intValue else {
                throw CryptoError(code: .malformedKey, reason: "\(name) COSE_Key crv is not an integer")
            }
            return value
        }

        switch keyType {
        case .ec2:
            let crv = try curve("EC2")
            guard let ecCurve = ECCurve(coseCurve: crv) else {
                throw CryptoError(code: .unsupportedCurve, reason: "EC2 curve \(crv) is not supported")
            }
            let kind = KeyKind.ec(ecCurve)
            guard scheme.accepts(kind) else {
                throw CryptoError(code: .algorithmKeyMismatch, reason: "\(algorithm.name) cannot be used with \(ecCurve.displayName)")
            }
            let x = try bytes(-2, "x")
            let yValue = try parameter(-3, "y")
            if case .bool = yValue {
                throw CryptoError(code: .malformedKey, reason: "compressed EC points are not supported")
            }
            guard let y = yValue.bytesValue else {
                throw CryptoError(code: .malformedKey, reason: "EC2 COSE_Key y is not a byte string")
            }
            guard x.count == ecCurve.coordinateLength, y.count == ecCurve.coordinateLength else {
                throw CryptoError(
                    code: .malformedKey,
                    reason: "\(ecCurve.displayName) coordinates must be \(ecCurve.coordinateLength) bytes, got \(x.count)/\(y.count)")
            }
            let pkey = try unsafe EVPKey.ecPublicKey(curve: ecCurve, x: x, y: y)
            return (unsafe pkey, kind, algorithm)

        case .okp:
            let crv = try curve("OKP")
            guard let edCurve = EdwardsCurve(coseCurve: crv) else {
                throw CryptoError(code: .unsupportedCurve, reason: "OKP curve \(crv) is not a supported signature curve")
            }
            let kind = KeyKind.okp(edCurve)
            guard scheme.accepts(kind) else {
                throw CryptoError(code: .algorithmKeyMismatch, reason: "\(algorithm.name) cannot be used with \(edCurve.displayName)")
            }
            let pkey = try unsafe EVPKey.edwardsPublicKey(curve: edCurve, raw: try bytes(-2, "x"))
            return (unsafe pkey, kind, algorithm)

        case .rsa:
            let n = try bytes(-1, "n")
            let e = try bytes(-2, "e")
            let (pkey, bits) = try unsafe EVPKey.rsaPublicKey(modulus: n, exponent: e, policy: policy)
            return (unsafe pkey, .rsa(modulusBits: bits), algorithm)
        }
    }
}
