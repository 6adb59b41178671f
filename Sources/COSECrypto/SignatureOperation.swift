internal import COpenSSL

/// The one-shot EVP_DigestVerify / EVP_DigestSign calls, shared by `PublicKey`, `PrivateKey` and the benchmark.
internal enum SignatureOperation {
    /// Verifies `signature` over `message`. The key is borrowed; the caller keeps it alive.
    ///
    /// Cost per call beyond the signature math: one EVP_MD_CTX allocation, the context initialisation (which OpenSSL
    /// 3.0 cannot cache across calls without sharing mutable state between threads) and two error-queue clears.
    static func verify(pkey: OpaquePointer, scheme: SignatureScheme, signature: [UInt8], message: [UInt8]) throws(CryptoError) -> Bool {
        clearOpenSSLErrors()
        guard let ctx = unsafe EVP_MD_CTX_new() else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_MD_CTX_new")
        }
        defer { unsafe EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer? = nil  // owned by ctx
        let md = unsafe scheme.digest.map { unsafe FetchedDigest.for($0) }
        guard unsafe EVP_DigestVerifyInit(ctx, &pctx, md, nil, pkey) == 1, let pctx = unsafe pctx else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestVerifyInit")
        }
        try unsafe configurePadding(pctx, scheme: scheme, md: md)
        let result = unsafe signature.withNonNullBuffer { sig, sigCount in
            unsafe message.withNonNullBuffer { msg, msgCount in
                unsafe EVP_DigestVerify(ctx, sig, sigCount, msg, msgCount)
            }
        }
        if result == 1 { return true }
        // 0 = bad signature; negative = malformed input (e.g. non-DER ECDSA). Both are "invalid"; drop the queue.
        clearOpenSSLErrors()
        return false
    }

    /// Signs `message`. The key is borrowed.
    static func sign(pkey: OpaquePointer, scheme: SignatureScheme, message: [UInt8]) throws(CryptoError) -> [UInt8] {
        clearOpenSSLErrors()
        guard let ctx = unsafe EVP_MD_CTX_new() else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_MD_CTX_new")
        }
        defer { unsafe EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer? = nil  // owned by ctx
        let md = unsafe scheme.digest.map { unsafe FetchedDigest.for($0) }
        guard unsafe EVP_DigestSignInit(ctx, &pctx, md, nil, pkey) == 1, let pctx = unsafe pctx else {
            throw CryptoError.fromOpenSSL(.signingFailed, "EVP_DigestSignInit")
        }
        try unsafe configurePadding(pctx, scheme: scheme, md: md)
        let capacity = Int(unsafe EVP_PKEY_get_size(pkey))
        guard capacity > 0 else {
            throw CryptoError.fromOpenSSL(.signingFailed, "EVP_PKEY_get_size")
        }
        var length = capacity
        var signature = [UInt8](repeating: 0, count: capacity)
        let ok = unsafe signature.withUnsafeMutableBufferPointer { sig in
            unsafe message.withNonNullBuffer { msg, msgCount in
                unsafe EVP_DigestSign(ctx, sig.baseAddress, &length, msg, msgCount)
            }
        }
        guard ok == 1, length <= capacity else {
            throw CryptoError.fromOpenSSL(.signingFailed, "EVP_DigestSign")
        }
        signature.removeSubrange(length...)
        return signature
    }

    /// PKCS#1 v1.5 or PSS padding for RSA schemes; nothing for ECDSA/EdDSA.
    private static func configurePadding(_ pctx: OpaquePointer, scheme: SignatureScheme, md: OpaquePointer?) throws(CryptoError) {
        switch scheme {
        case .rsaPSS:
            guard unsafe passkeyd_configure_rsa_pss(pctx, md) == 1 else {
                throw CryptoError.fromOpenSSL(.openSSL, "RSA-PSS parameters")
            }
        case .rsaPKCS1:
            guard unsafe passkeyd_configure_rsa_pkcs1(pctx) == 1 else {
                throw CryptoError.fromOpenSSL(.openSSL, "RSA PKCS#1 padding")
            }
        case .ecdsa, .eddsa:
            break
        }
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with a pointer that is never NULL (a one-byte dummy for an empty array), so OpenSSL never
    /// sees a NULL buffer, and the count.
    @inline(__always)
    func withNonNullBuffer<R>(_ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        unsafe withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { return unsafe body(base, buffer.count) }
            var dummy: UInt8 = 0
            return unsafe withUnsafePointer(to: &dummy) { unsafe body($0, 0) }
        }
    }
}
