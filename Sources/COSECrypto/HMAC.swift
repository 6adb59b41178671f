internal import COpenSSL

/// HMAC (RFC 2104) with OpenSSL's one-shot `EVP_Q_mac`.
///
/// Used for JWS `HS256` where a provider signs with a shared secret (LINE web login's channel secret). The secret is a
/// value the caller configures; it is never a public key (the JOSE module refuses to key an HMAC with one).
public enum HMAC {
    /// HMAC of `message` under `key` with `hash`.
    /// - Returns: the MAC, ``HashAlgorithm/digestLength`` bytes.
    /// - Throws: ``CryptoError/Code/openSSL`` if OpenSSL fails (allocation or provider failure); an empty key is
    ///   refused as ``CryptoError/Code/malformedKey``.
    public static func mac(_ hash: HashAlgorithm, key: [UInt8], message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        guard !key.isEmpty else { throw CryptoError(code: .malformedKey, reason: "HMAC key is empty") }
        let digestName: String
        switch hash {
        case .sha1: digestName = "SHA1"
        case .sha256: digestName = "SHA256"
        case .sha384: digestName = "SHA384"
        case .sha512: digestName = "SHA512"
        }
        let data = Array(message)
        let length = hash.digestLength
        var byte: UInt8 = 0  // a valid pointer for an empty message
        clearOpenSSLErrors()
        var ok = false
        let output = unsafe [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
            var outLength = 0
            let result = unsafe key.withUnsafeBytes { keyBuffer in
                unsafe data.withUnsafeBytes { dataBuffer in
                    unsafe withUnsafeMutablePointer(to: &byte) { fallback in
                        unsafe EVP_Q_mac(nil, "HMAC", nil, digestName, nil,
                                         keyBuffer.baseAddress, keyBuffer.count,
                                         dataBuffer.baseAddress ?? UnsafeRawPointer(fallback), dataBuffer.count,
                                         output.baseAddress, length, &outLength)
                    }
                }
            }
            ok = unsafe result != nil && outLength == length
            initialized = ok ? length : 0
        }
        guard ok else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_Q_mac(HMAC-\(digestName))") }
        return output
    }

    /// Whether `mac` is the HMAC of `message` under `key`, compared in constant time.
    public static func verify(_ hash: HashAlgorithm, key: [UInt8], message: some Collection<UInt8>, mac: [UInt8]) throws(CryptoError) -> Bool {
        let expected = try Self.mac(hash, key: key, message: message)
        return constantTimeEquals(expected, mac)
    }
}
