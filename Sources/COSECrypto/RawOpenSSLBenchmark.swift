internal import COpenSSL

/// A baseline for benchmarks: signature verification with the fewest OpenSSL calls, no Swift-side checks.
///
/// Compare `RawOpenSSLBenchmark.verify(...)` with the same work done through ``PublicKey/verify(signature:message:)``
/// or a whole WebAuthn assertion to see what the wrappers cost. Not for production use.
public enum RawOpenSSLBenchmark {
    /// Verifies the same signature `iterations` times the way a plain C program would:
    /// `EVP_MD_CTX_new`, `EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, pkey)` (the legacy digest constant,
    /// plus the two PSS settings for PS*), `EVP_DigestVerify`, `EVP_MD_CTX_free`.
    /// - Parameters:
    ///   - key: The key (only its EVP_PKEY is used).
    ///   - signature: The signature.
    ///   - message: The signed message.
    ///   - algorithm: The algorithm (any supported one; nothing is checked against the key).
    ///   - iterations: How many verifications to run.
    /// - Returns: How many verified (so a benchmark can check it measured the success path).
    @discardableResult
    public static func verify(
        key: PublicKey, signature: [UInt8], message: [UInt8], algorithm: COSEAlgorithm = .es256, iterations: Int
    ) -> Int {
        guard let scheme = algorithm.scheme else { return 0 }
        let md: OpaquePointer? =
            switch scheme.digest {
            case .sha1: unsafe EVP_sha1()
            case .sha256: unsafe EVP_sha256()
            case .sha384: unsafe EVP_sha384()
            case .sha512: unsafe EVP_sha512()
            case nil: nil
            }
        let isPSS = if case .rsaPSS = scheme { true } else { false }
        var verified = 0
        withExtendedLifetime(key) {
            unsafe signature.withUnsafeBufferPointer { sig in
                unsafe message.withUnsafeBufferPointer { msg in
                    for _ in 0..<iterations {
                        guard let ctx = unsafe EVP_MD_CTX_new() else { continue }
                        var pctx: OpaquePointer? = nil
                        if unsafe EVP_DigestVerifyInit(ctx, &pctx, md, nil, key.pkey) == 1 {
                            if isPSS, let pctx = unsafe pctx { _ = unsafe passkeyd_configure_rsa_pss(pctx, md) }
                            if unsafe EVP_DigestVerify(ctx, sig.baseAddress, sig.count, msg.baseAddress, msg.count) == 1 {
                                verified += 1
                            }
                        }
                        unsafe EVP_MD_CTX_free(ctx)
                    }
                }
            }
        }
        ERR_clear_error()
        return verified
    }
}
