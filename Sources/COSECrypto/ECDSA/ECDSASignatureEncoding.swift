internal import COpenSSL

/// Conversion between the two ECDSA signature encodings: the fixed-length `r ‖ s` of JOSE (RFC 7518 §3.4) and the
/// DER `Ecdsa-Sig-Value` (RFC 3279) that OpenSSL and WebAuthn attestation statements use.
///
/// Both directions go through OpenSSL (`ECDSA_SIG_set0` + `i2d_ECDSA_SIG`, `d2i_ECDSA_SIG` + `BN_bn2binpad`).
public enum ECDSASignatureEncoding {
    /// DER from raw `r ‖ s`.
    /// - Parameter raw: `r ‖ s`, each half the curve's field length (64 bytes for P-256, 96 for P-384, 132 for P-521).
    /// - Returns: the DER encoding.
    /// - Throws: ``CryptoError/Code/malformedSignature`` when the length is odd, zero or above 132 bytes.
    public static func derFromRaw(_ raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !raw.isEmpty, raw.count % 2 == 0, raw.count <= 132 else {
            throw CryptoError(code: .malformedSignature, reason: "raw ECDSA signature of \(raw.count) bytes")
        }
        let half = raw.count / 2
        clearOpenSSLErrors()
        guard let signature = unsafe ECDSA_SIG_new() else {
            throw CryptoError.fromOpenSSL(.openSSL, "ECDSA_SIG_new")
        }
        defer { unsafe ECDSA_SIG_free(signature) }
        let r = unsafe raw.withUnsafeBufferPointer { unsafe BN_bin2bn($0.baseAddress, Int32(half), nil) }
        let s = unsafe raw.withUnsafeBufferPointer { unsafe BN_bin2bn($0.baseAddress.map { unsafe $0 + half }, Int32(half), nil) }
        guard let r = unsafe r, let s = unsafe s else {
            unsafe BN_free(r)
            unsafe BN_free(s)
            throw CryptoError.fromOpenSSL(.openSSL, "BN_bin2bn")
        }
        // On success ECDSA_SIG_set0 owns r and s; on failure they are still ours.
        guard unsafe ECDSA_SIG_set0(signature, r, s) == 1 else {
            unsafe BN_free(r)
            unsafe BN_free(s)
            throw CryptoError.fromOpenSSL(.openSSL, "ECDSA_SIG_set0")
        }
        guard let der = unsafe x509EncodeDER({ unsafe i2d_ECDSA_SIG(signature, $0) }) else {
            throw CryptoError.fromOpenSSL(.openSSL, "i2d_ECDSA_SIG")
        }
        return der
    }

    /// Raw `r ‖ s` from DER.
    /// - Parameters:
    ///   - der: the DER `Ecdsa-Sig-Value`.
    ///   - componentLength: the length of each of `r` and `s` (32, 48 or 66).
    /// - Returns: `r ‖ s`, each left-padded to `componentLength`.
    /// - Throws: ``CryptoError/Code/malformedSignature`` when the DER does not parse, has trailing bytes, or a
    ///   component does not fit.
    public static func rawFromDER(_ der: [UInt8], componentLength: Int) throws(CryptoError) -> [UInt8] {
        guard componentLength > 0, componentLength <= 66, !der.isEmpty, der.count <= 256 else {
            throw CryptoError(code: .malformedSignature, reason: "DER ECDSA signature of \(der.count) bytes")
        }
        clearOpenSSLErrors()
        let parsed: OpaquePointer? = unsafe der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let value = unsafe d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            // Trailing bytes after the SEQUENCE are refused.
            if let value = unsafe value, let start = buffer.baseAddress, unsafe cursor != start + buffer.count {
                unsafe ECDSA_SIG_free(value)
                return nil
            }
            return unsafe value
        }
        guard let signature = unsafe parsed else {
            clearOpenSSLErrors()
            throw CryptoError(code: .malformedSignature, reason: "not a DER ECDSA signature")
        }
        defer { unsafe ECDSA_SIG_free(signature) }
        var out = [UInt8](repeating: 0, count: componentLength * 2)
        let ok = unsafe out.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress,
                let r = unsafe ECDSA_SIG_get0_r(signature), let s = unsafe ECDSA_SIG_get0_s(signature)
            else { return false }
            return unsafe BN_bn2binpad(r, base, Int32(componentLength)) == Int32(componentLength)
                && BN_bn2binpad(s, base + componentLength, Int32(componentLength)) == Int32(componentLength)
        }
        guard ok else {
            clearOpenSSLErrors()
            throw CryptoError(code: .malformedSignature, reason: "ECDSA component longer than \(componentLength) bytes")
        }
        return out
    }
}
