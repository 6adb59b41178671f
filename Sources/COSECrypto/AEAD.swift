internal import COpenSSL

/// AES-256-GCM authenticated encryption (OpenSSL `EVP_aes_256_gcm` through an `EVP_CIPHER_CTX`).
///
/// Used to keep secrets at rest (a provider's refresh token under a configured key-encryption key). ``seal(_:key:associatedData:)``
/// draws a fresh random 12-byte nonce for every message and returns `nonce ‖ ciphertext ‖ tag` (12 + n + 16 bytes);
/// ``open(_:key:associatedData:)`` takes that format back. The associated data is authenticated, not stored: binding a
/// ciphertext to, e.g., the row it belongs to, so it cannot be moved to another one.
public enum AEAD {
    /// The key length: 32 bytes (AES-256).
    public static let keyLength = 32
    /// The nonce length: 12 bytes (GCM's native IV length).
    public static let nonceLength = 12
    /// The tag length: 16 bytes.
    public static let tagLength = 16
    /// The added length of a sealed box: nonce and tag.
    public static let overhead = nonceLength + tagLength

    /// Encrypts `plaintext` under `key` with a random nonce, authenticating `associatedData` too.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    /// - Throws: ``CryptoError/Code/malformedKey`` for a key that is not 32 bytes, ``CryptoError/Code/openSSL`` if
    ///   OpenSSL fails.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(count: nonceLength), associatedData: associatedData)
    }

    /// Encrypts with the given nonce (a caller that injects its randomness, or a known-answer test): a nonce must
    /// never repeat under one key.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keyLength else { throw CryptoError(code: .malformedKey, reason: "AES-256-GCM key is \(key.count) bytes, not 32") }
        guard nonce.count == nonceLength else { throw CryptoError(code: .malformedKey, reason: "GCM nonce is \(nonce.count) bytes, not 12") }
        guard plaintext.count <= Int(Int32.max) - 64, associatedData.count <= Int(Int32.max) else {
            throw CryptoError(code: .openSSL, reason: "AES-GCM input too large")
        }
        clearOpenSSLErrors()
        guard let ctx = unsafe EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_CIPHER_CTX_new") }
        defer { unsafe EVP_CIPHER_CTX_free(ctx) }
        var failure: String?
        // nonce ‖ ciphertext ‖ tag, written in place.
        var sealed = [UInt8](repeating: 0, count: nonceLength + plaintext.count + tagLength)
        sealed.replaceSubrange(0..<nonceLength, with: nonce)
        unsafe key.withUnsafeBufferPointer { keyBuffer in
            unsafe nonce.withUnsafeBufferPointer { nonceBuffer in
                unsafe associatedData.withUnsafeBufferPointer { aad in
                    unsafe plaintext.withUnsafeBufferPointer { input in
                        unsafe sealed.withUnsafeMutableBufferPointer { box in
                            let output = unsafe UnsafeMutableBufferPointer(rebasing: box[nonceLength...])
                            guard unsafe EVP_EncryptInit_ex(ctx, FetchedCipher.aes256GCM, nil, keyBuffer.baseAddress, nonceBuffer.baseAddress) == 1 else {
                                failure = "EVP_EncryptInit_ex"; return
                            }
                            var length: Int32 = 0
                            if aad.count > 0 {
                                guard unsafe EVP_EncryptUpdate(ctx, nil, &length, aad.baseAddress, Int32(aad.count)) == 1 else {
                                    failure = "EVP_EncryptUpdate(aad)"; return
                                }
                            }
                            var written = 0
                            if input.count > 0 {
                                guard unsafe EVP_EncryptUpdate(ctx, output.baseAddress, &length, input.baseAddress, Int32(input.count)) == 1 else {
                                    failure = "EVP_EncryptUpdate"; return
                                }
                                written = Int(length)
                            }
                            guard let base = output.baseAddress,
                                  unsafe EVP_EncryptFinal_ex(ctx, base + written, &length) == 1 else {
                                failure = "EVP_EncryptFinal_ex"; return
                            }
                            written += Int(length)
                            guard written == input.count else { failure = "AES-GCM wrote \(written) of \(input.count) bytes"; return }
                            guard unsafe EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), base + written) == 1 else {
                                failure = "EVP_CTRL_GCM_GET_TAG"; return
                            }
                        }
                    }
                }
            }
        }
        if let failure { throw CryptoError.fromOpenSSL(.openSSL, failure) }
        return sealed
    }

    /// Decrypts a box made by ``seal(_:key:associatedData:)`` under `key` with the same `associatedData`.
    /// - Throws: ``CryptoError/Code/decryptionFailed`` when the box is too short, was altered, or the key or the
    ///   associated data differ (GCM cannot tell these apart); ``CryptoError/Code/malformedKey`` for a key that is
    ///   not 32 bytes; ``CryptoError/Code/openSSL`` if OpenSSL fails otherwise.
    public static func open(_ box: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard key.count == keyLength else { throw CryptoError(code: .malformedKey, reason: "AES-256-GCM key is \(key.count) bytes, not 32") }
        guard box.count >= overhead else { throw CryptoError(code: .decryptionFailed, reason: "sealed box shorter than nonce and tag") }
        guard box.count <= Int(Int32.max) - 64, associatedData.count <= Int(Int32.max) else {
            throw CryptoError(code: .decryptionFailed, reason: "sealed box too large")
        }
        let bodyCount = box.count - overhead
        clearOpenSSLErrors()
        guard let ctx = unsafe EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_CIPHER_CTX_new") }
        defer { unsafe EVP_CIPHER_CTX_free(ctx) }
        var failure: String?
        var authenticationFailed = false
        var plaintext = [UInt8](repeating: 0, count: bodyCount + 16)  // room for Final (GCM writes nothing there)
        // The box is read in place: nonce, body and tag are pointers into it (the tag is only read: OpenSSL copies it).
        unsafe key.withUnsafeBufferPointer { keyBuffer in
            unsafe box.withUnsafeBufferPointer { boxBuffer in
                unsafe associatedData.withUnsafeBufferPointer { aad in
                    unsafe plaintext.withUnsafeMutableBufferPointer { output in
                        guard let boxBase = boxBuffer.baseAddress else { failure = "empty sealed box"; return }
                        let nonce = unsafe boxBase, input = unsafe boxBase + nonceLength, tag = unsafe input + bodyCount
                        guard unsafe EVP_DecryptInit_ex(ctx, FetchedCipher.aes256GCM, nil, keyBuffer.baseAddress, nonce) == 1 else {
                            failure = "EVP_DecryptInit_ex"; return
                        }
                        var length: Int32 = 0
                        if aad.count > 0 {
                            guard unsafe EVP_DecryptUpdate(ctx, nil, &length, aad.baseAddress, Int32(aad.count)) == 1 else {
                                failure = "EVP_DecryptUpdate(aad)"; return
                            }
                        }
                        var written = 0
                        if bodyCount > 0 {
                            guard unsafe EVP_DecryptUpdate(ctx, output.baseAddress, &length, input, Int32(bodyCount)) == 1 else {
                                failure = "EVP_DecryptUpdate"; return
                            }
                            written = Int(length)
                        }
                        guard unsafe EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), UnsafeMutableRawPointer(mutating: tag)) == 1 else {
                            failure = "EVP_CTRL_GCM_SET_TAG"; return
                        }
                        guard let base = output.baseAddress,
                              unsafe EVP_DecryptFinal_ex(ctx, base + written, &length) == 1 else {
                            authenticationFailed = true; return
                        }
                        written += Int(length)
                        if written != bodyCount { authenticationFailed = true }
                    }
                }
            }
        }
        if let failure { throw CryptoError.fromOpenSSL(.openSSL, failure) }
        if authenticationFailed {
            clearOpenSSLErrors()
            for index in plaintext.indices { plaintext[index] = 0 }  // never hand out unauthenticated plaintext
            throw CryptoError(code: .decryptionFailed, reason: "AES-GCM tag does not verify")
        }
        plaintext.removeLast(plaintext.count - bodyCount)
        return plaintext
    }
}

/// AES-256-GCM's EVP_CIPHER, fetched once per process with `EVP_CIPHER_fetch` and never freed (as ``FetchedDigest``):
/// the legacy `EVP_aes_256_gcm()` makes OpenSSL 3 fetch the provider's implementation again on every init.
@safe
internal enum FetchedCipher {
    nonisolated(unsafe) static let aes256GCM: OpaquePointer = {
        if let cipher = unsafe EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) { return unsafe cipher }
        clearOpenSSLErrors()
        guard let fallback = unsafe EVP_aes_256_gcm() else { fatalError("OpenSSL has no AES-256-GCM") }
        return unsafe fallback
    }()
}
