// Building and inspecting EVP_PKEY handles. Every function that returns an `OpaquePointer` returns an EVP_PKEY* that
// the caller owns and must hand to exactly one owner (`PublicKey` / `PrivateKey`) at once; on every failure path the
// functions here free what they created before throwing.

internal import COpenSSL

internal enum EVPKey {
    // MARK: Import

    /// An EC public key from affine coordinates (each exactly the curve's field size), checked explicitly.
    ///
    /// `EVP_PKEY_fromdata` already refuses coordinates >= p and points off the curve (OpenSSL's point decoding checks
    /// both); `EVP_PKEY_public_check_quick` then repeats the range / on-curve / not-infinity checks explicitly so this
    /// module never relies on an implicit check. The "full" `EVP_PKEY_public_check` additionally computes n·Q, which
    /// only matters for curves with a cofactor; P-256/384/521 have cofactor 1, and it costs ~8x more (about 60 µs vs
    /// 7 µs for P-256 on the dev machine).
    static func ecPublicKey(curve: ECCurve, x: [UInt8], y: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard x.count == curve.coordinateLength, y.count == curve.coordinateLength else {
            throw CryptoError(code: .malformedKey, reason: "\(curve.displayName) coordinates must be \(curve.coordinateLength) bytes")
        }
        var point = [UInt8]()
        point.reserveCapacity(1 + 2 * curve.coordinateLength)
        point.append(0x04)
        point.append(contentsOf: x)
        point.append(contentsOf: y)
        clearOpenSSLErrors()
        let created = unsafe point.withUnsafeBufferPointer { buffer in
            unsafe passkeyd_ec_public_key_from_point(curve.openSSLGroupName, buffer.baseAddress, buffer.count)
        }
        guard let pkey = unsafe created else {
            throw CryptoError.fromOpenSSL(.pointNotOnCurve, "\(curve.displayName) point rejected by EVP_PKEY_fromdata")
        }
        do {
            try unsafe checkECPublicKey(pkey)
        } catch {
            unsafe EVP_PKEY_free(pkey)
            throw error
        }
        return unsafe pkey
    }

    /// Runs `EVP_PKEY_public_check_quick` (coordinates in range, on the curve, not the point at infinity).
    static func checkECPublicKey(_ pkey: OpaquePointer) throws(CryptoError) {
        clearOpenSSLErrors()
        guard let ctx = unsafe EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey")
        }
        defer { unsafe EVP_PKEY_CTX_free(ctx) }
        guard unsafe EVP_PKEY_public_check_quick(ctx) == 1 else {
            throw CryptoError.fromOpenSSL(.pointNotOnCurve, "EVP_PKEY_public_check_quick")
        }
    }

    /// An RSA public key from big-endian modulus and exponent, after ``validateRSA(modulus:exponent:policy:)``.
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8], policy: COSEKeyPolicy) throws(CryptoError) -> (OpaquePointer, bits: Int) {
        let checked = try validateRSA(modulus: modulus, exponent: exponent, policy: policy)
        clearOpenSSLErrors()
        let created = unsafe checked.n.withUnsafeBufferPointer { n in
            unsafe checked.e.withUnsafeBufferPointer { e in
                unsafe passkeyd_rsa_public_key_from_components(n.baseAddress, n.count, e.baseAddress, e.count)
            }
        }
        guard let pkey = unsafe created else {
            throw CryptoError.fromOpenSSL(.malformedKey, "RSA key rejected by EVP_PKEY_fromdata")
        }
        return (unsafe pkey, checked.bits)
    }

    /// An Ed25519/Ed448 public key from its raw encoding (32 / 57 bytes).
    ///
    /// OpenSSL does not decode the point at import; an invalid encoding makes every verification fail.
    static func edwardsPublicKey(curve: EdwardsCurve, raw: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard raw.count == curve.publicKeyLength else {
            throw CryptoError(code: .malformedKey, reason: "\(curve.displayName) public key must be \(curve.publicKeyLength) bytes, got \(raw.count)")
        }
        clearOpenSSLErrors()
        let created = unsafe raw.withUnsafeBufferPointer { buffer in
            unsafe EVP_PKEY_new_raw_public_key_ex(nil, curve.openSSLName, nil, buffer.baseAddress, buffer.count)
        }
        guard let pkey = unsafe created else {
            throw CryptoError.fromOpenSSL(.malformedKey, "EVP_PKEY_new_raw_public_key_ex(\(curve.openSSLName))")
        }
        return unsafe pkey
    }

    /// The RSA checks shared by COSE and SPKI imports.
    ///
    /// - The modulus may carry leading zero bytes (they are stripped); it must be odd and within the policy's bits.
    /// - The exponent must be odd, at least 3 and at most 2^32 (so 3, 17, 65537... are accepted).
    /// - Returns: The minimal big-endian modulus and exponent and the modulus size in bits.
    static func validateRSA(modulus: [UInt8], exponent: [UInt8], policy: COSEKeyPolicy) throws(CryptoError) -> (n: [UInt8], e: [UInt8], bits: Int) {
        let n = Array(modulus.drop { $0 == 0 })
        guard let top = n.first, let last = n.last else {
            throw CryptoError(code: .malformedKey, reason: "RSA modulus is zero")
        }
        let bits = (n.count - 1) * 8 + (8 - top.leadingZeroBitCount)
        guard bits >= policy.effectiveMinimumRSAModulusBits else {
            throw CryptoError(code: .rsaModulusTooSmall, reason: "RSA modulus of \(bits) bits is below \(policy.effectiveMinimumRSAModulusBits)")
        }
        guard bits <= policy.maximumRSAModulusBits else {
            throw CryptoError(code: .rsaModulusTooLarge, reason: "RSA modulus of \(bits) bits is above \(policy.maximumRSAModulusBits)")
        }
        guard last & 1 == 1 else {
            throw CryptoError(code: .malformedKey, reason: "RSA modulus is even")
        }
        let e = Array(exponent.drop { $0 == 0 })
        guard e.count <= 5 else {
            throw CryptoError(code: .rsaExponentInvalid, reason: "RSA exponent is larger than 2^32")
        }
        let value = e.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value >= 3, value <= 1 << 32, value & 1 == 1 else {
            throw CryptoError(code: .rsaExponentInvalid, reason: "RSA exponent \(value) must be odd and in 3...2^32")
        }
        return (n, e, bits)
    }

    // MARK: Inspection of keys from elsewhere (SPKI, PKCS#8, certificates)

    /// What an arbitrary EVP_PKEY is, with the same checks as a COSE import: a supported named curve and a valid
    /// point for EC, the policy's size and exponent rules for RSA. RSA-PSS-only keys, explicit-parameter EC keys and
    /// other types are refused. The key is only borrowed.
    static func classify(_ pkey: OpaquePointer, policy: COSEKeyPolicy) throws(CryptoError) -> KeyKind {
        if unsafe EVP_PKEY_is_a(pkey, "EC") == 1 {
            guard let name = unsafe groupName(pkey) else {
                throw CryptoError.fromOpenSSL(.unsupportedCurve, "EC key without a named curve")
            }
            guard let curve = ECCurve(openSSLGroupName: name) else {
                throw CryptoError(code: .unsupportedCurve, reason: "EC curve \(name) is not supported")
            }
            try unsafe checkECPublicKey(pkey)
            return .ec(curve)
        }
        if unsafe EVP_PKEY_is_a(pkey, "ED25519") == 1 { return .okp(.ed25519) }
        if unsafe EVP_PKEY_is_a(pkey, "ED448") == 1 { return .okp(.ed448) }
        if unsafe EVP_PKEY_is_a(pkey, "RSA") == 1 {
            guard let n = unsafe bnParam(pkey, OSSL_PKEY_PARAM_RSA_N), let e = unsafe bnParam(pkey, OSSL_PKEY_PARAM_RSA_E) else {
                throw CryptoError.fromOpenSSL(.malformedKey, "RSA key without n/e")
            }
            return .rsa(modulusBits: try validateRSA(modulus: n, exponent: e, policy: policy).bits)
        }
        let type = unsafe EVP_PKEY_get0_type_name(pkey).map { unsafe String(cString: $0) } ?? "unknown"
        throw CryptoError(code: .unsupportedKeyType, reason: "key type \(type) is not supported")
    }

    // MARK: Export

    /// The EC group name, e.g. "prime256v1".
    static func groupName(_ pkey: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        let ok = unsafe buffer.withUnsafeMutableBufferPointer { buf in
            unsafe EVP_PKEY_get_group_name(pkey, buf.baseAddress, buf.count, &length)
        }
        guard ok == 1, length > 0, length < buffer.count else {
            clearOpenSSLErrors()
            return nil
        }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A BIGNUM parameter (e.g. "n", "e", "qx") as minimal big-endian bytes.
    static func bnParam(_ pkey: OpaquePointer, _ name: String) -> [UInt8]? {
        let length = unsafe passkeyd_pkey_bn_param(pkey, name, nil, 0)
        guard length >= 0 else {
            clearOpenSSLErrors()
            return nil
        }
        var ok = true
        let bytes = unsafe [UInt8](unsafeUninitializedCapacity: max(Int(length), 1)) { buffer, initialized in
            let written = unsafe passkeyd_pkey_bn_param(pkey, name, buffer.baseAddress, buffer.count)
            ok = written == length
            initialized = ok ? Int(length) : 0
        }
        guard ok else {
            clearOpenSSLErrors()
            return nil
        }
        return bytes
    }

    /// EC affine coordinates, each left-padded to the field size (independent of how the point was encoded on input).
    static func ecCoordinates(_ pkey: OpaquePointer, curve: ECCurve) -> (x: [UInt8], y: [UInt8])? {
        guard let x = unsafe bnParam(pkey, OSSL_PKEY_PARAM_EC_PUB_X), let y = unsafe bnParam(pkey, OSSL_PKEY_PARAM_EC_PUB_Y),
            x.count <= curve.coordinateLength, y.count <= curve.coordinateLength
        else { return nil }
        let size = curve.coordinateLength
        return ([UInt8](repeating: 0, count: size - x.count) + x, [UInt8](repeating: 0, count: size - y.count) + y)
    }

    /// The raw public key of an Ed25519/Ed448 key.
    static func rawPublicKey(_ pkey: OpaquePointer) -> [UInt8]? {
        var length = 0
        guard unsafe EVP_PKEY_get_raw_public_key(pkey, nil, &length) == 1, length > 0 else {
            clearOpenSSLErrors()
            return nil
        }
        var ok = true
        let bytes = unsafe [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var written = buffer.count
            ok = unsafe EVP_PKEY_get_raw_public_key(pkey, buffer.baseAddress, &written) == 1 && written == length
            initialized = ok ? written : 0
        }
        guard ok else {
            clearOpenSSLErrors()
            return nil
        }
        return bytes
    }

    /// Copies out DER produced by a `(pkey, out, cap) -> length` shim (length query first, then the bytes).
    static func der(
        _ pkey: OpaquePointer,
        _ encode: (OpaquePointer, UnsafeMutablePointer<UInt8>?, Int) -> Int32
    ) -> [UInt8]? {
        let length = unsafe encode(pkey, nil, 0)
        guard length > 0 else {
            clearOpenSSLErrors()
            return nil
        }
        var ok = true
        let bytes = unsafe [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, initialized in
            ok = unsafe encode(pkey, buffer.baseAddress, buffer.count) == length
            initialized = ok ? Int(length) : 0
        }
        guard ok else {
            clearOpenSSLErrors()
            return nil
        }
        return bytes
    }
}
