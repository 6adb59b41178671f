internal import COpenSSL

/// One-shot message digests (OpenSSL EVP, with each EVP_MD fetched once per process).
public enum Digest {
    /// SHA-256 of `bytes` (32 bytes). Contiguous collections (`[UInt8]`, `ArraySlice`, `Data`...) are hashed in place.
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        hash(.sha256, bytes)
    }

    /// The digest of `bytes` with `algorithm`.
    ///
    /// - Parameters:
    ///   - algorithm: The hash function.
    ///   - bytes: The message; hashed in place when the collection has contiguous storage, copied once otherwise.
    /// - Returns: The digest, ``HashAlgorithm/digestLength`` bytes.
    public static func hash(_ algorithm: HashAlgorithm, _ bytes: some Collection<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ buffer in
            unsafe digest(algorithm, UnsafeRawBufferPointer(buffer))
        }) {
            return digest
        }
        let copy = Array(bytes)
        return unsafe copy.withUnsafeBytes { unsafe digest(algorithm, $0) }
    }

    private static func digest(_ algorithm: HashAlgorithm, _ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        let md = unsafe FetchedDigest.for(algorithm)
        let length = algorithm.digestLength
        var byte: UInt8 = 0  // a valid pointer for empty input
        return unsafe [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
            var outLength: UInt32 = 0
            let ok = unsafe withUnsafePointer(to: &byte) { fallback in
                unsafe EVP_Digest(buffer.baseAddress ?? UnsafeRawPointer(fallback), buffer.count,
                                  output.baseAddress, &outLength, md, nil)
            }
            // Hashing cannot fail for a fetched digest except on allocation failure inside OpenSSL.
            guard ok == 1, Int(outLength) == length else {
                fatalError("EVP_Digest(\(algorithm)) failed: \(drainOpenSSLErrors())")
            }
            initialized = length
        }
    }
}

/// The EVP_MD objects, fetched once per process with `EVP_MD_fetch` and never freed.
///
/// Passing a fetched EVP_MD to `EVP_Digest` avoids the implicit per-call fetch OpenSSL 3.0 does for the legacy
/// `EVP_sha256()` objects (measured about 2.5x faster for short inputs). For `EVP_DigestVerifyInit` it makes no
/// measurable difference (the provider resolves the digest by name itself), but costs nothing either.
/// EVP_MD objects are immutable and reference counted, so sharing them across threads is safe.
@safe
internal final class FetchedDigest: @unchecked Sendable {
    let sha1: OpaquePointer
    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer

    private static let shared = FetchedDigest()

    private init() {
        unsafe sha1 = Self.fetch("SHA1", fallback: EVP_sha1())
        unsafe sha256 = Self.fetch("SHA256", fallback: EVP_sha256())
        unsafe sha384 = Self.fetch("SHA384", fallback: EVP_sha384())
        unsafe sha512 = Self.fetch("SHA512", fallback: EVP_sha512())
    }

    private static func fetch(_ name: String, fallback: OpaquePointer?) -> OpaquePointer {
        if let md = unsafe EVP_MD_fetch(nil, name, nil) { return unsafe md }
        clearOpenSSLErrors()
        // The default provider is always available in a normal OpenSSL 3 install; the legacy constant is the
        // documented equivalent (fetched implicitly per use).
        guard let fallback = unsafe fallback else { fatalError("OpenSSL has no \(name) digest") }
        return unsafe fallback
    }

    /// The EVP_MD for `algorithm`.
    static func `for`(_ algorithm: HashAlgorithm) -> OpaquePointer {
        let digests = shared
        switch algorithm {
        case .sha1: return unsafe digests.sha1
        case .sha256: return unsafe digests.sha256
        case .sha384: return unsafe digests.sha384
        case .sha512: return unsafe digests.sha512
        }
    }
}

/// Cryptographically secure random bytes.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`).
    ///
    /// - Parameter count: How many bytes; must not be negative.
    /// - Returns: The random bytes. Stops the process if the CSPRNG fails: continuing with predictable challenges
    ///   would be worse than crashing.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes(count:) needs a non-negative count")
        guard count > 0 else { return [] }
        return unsafe [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var offset = 0
            while offset < count {
                let chunk = min(count - offset, Int(Int32.max))
                guard unsafe RAND_bytes(buffer.baseAddress.map { unsafe $0 + offset }, Int32(chunk)) == 1 else {
                    fatalError("RAND_bytes failed: \(drainOpenSSLErrors())")
                }
                offset += chunk
            }
            initialized = count
        }
    }
}

/// Compares two byte sequences in time that depends only on their lengths, not their contents (`CRYPTO_memcmp`).
///
/// Collections of different lengths are unequal (decided at once: lengths are not secret). Two empty collections
/// are equal.
/// - Returns: `true` iff both hold the same bytes.
public func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    let left = Array(a)
    let right = Array(b)
    return unsafe left.withUnsafeBytes { l in
        unsafe right.withUnsafeBytes { r in
            unsafe CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0
        }
    }
}
