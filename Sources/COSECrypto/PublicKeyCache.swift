internal import Synchronization

/// A bounded, thread-safe cache of imported public keys, keyed by their exact COSE bytes and the import policy.
///
/// Importing a P-256 COSE key costs about 30 µs in OpenSSL 3.0 (`EVP_PKEY_fromdata` builds a fresh EC group every
/// time, plus the explicit point check), against about 75 µs for the verification itself, so re-importing the stored
/// key on every assertion costs a third of the throughput. A service that verifies assertions can look keys up here
/// instead: a hit costs one hash of the COSE bytes and an uncontended lock.
///
/// Keys are immutable and the cache key is the full byte string (not a digest), so a hit returns exactly what
/// ``PublicKey/init(coseBytes:policy:)`` would have built. Failures are not cached. Eviction is generational: when the
/// current generation holds `capacity` keys it becomes the previous one (the older previous generation is dropped),
/// and a hit in the previous generation moves the key back; at most `2 × capacity` keys are held.
public final class PublicKeyCache: Sendable {
    private struct CacheKey: Hashable, Sendable {
        var coseBytes: [UInt8]
        var policy: COSEKeyPolicy

        /// Hashes the key bytes in one call; `[UInt8]`'s own conformance feeds the hasher byte by byte.
        func hash(into hasher: inout Hasher) {
            unsafe coseBytes.withUnsafeBytes { unsafe hasher.combine(bytes: $0) }
            hasher.combine(policy)
        }
    }

    private struct Generations: Sendable {
        var current: [CacheKey: PublicKey] = [:]
        var previous: [CacheKey: PublicKey] = [:]
    }

    private let capacity: Int
    private let state = Mutex(Generations())

    /// Creates an empty cache.
    /// - Parameter capacity: Keys per generation (at least 1); up to twice as many are held.
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The key for `coseBytes`, imported with ``PublicKey/init(coseBytes:policy:)`` on a miss.
    /// - Parameters:
    ///   - coseBytes: The stored COSE_Key bytes.
    ///   - policy: The import policy (part of the cache key).
    /// - Throws: What ``PublicKey/init(coseBytes:policy:)`` throws; failures are not cached.
    public func publicKey(coseBytes: [UInt8], policy: COSEKeyPolicy = .default) throws(CryptoError) -> PublicKey {
        let key = CacheKey(coseBytes: coseBytes, policy: policy)
        if let hit = state.withLock({ generations -> PublicKey? in
            if let hit = generations.current[key] { return hit }
            guard let old = generations.previous.removeValue(forKey: key) else { return nil }
            insert(key, old, into: &generations)
            return old
        }) {
            return hit
        }
        // Import outside the lock; two threads missing on the same key both import it, which is harmless.
        let imported = try PublicKey(coseBytes: coseBytes, policy: policy)
        state.withLock { insert(key, imported, into: &$0) }
        return imported
    }

    /// How many keys are held (both generations).
    public var count: Int {
        state.withLock { $0.current.count + $0.previous.count }
    }

    /// Drops every key.
    public func removeAll() {
        state.withLock { $0 = Generations() }
    }

    private func insert(_ key: CacheKey, _ value: PublicKey, into generations: inout Generations) {
        if generations.current.count >= capacity {
            generations.previous = generations.current
            generations.current = [:]
            generations.current.reserveCapacity(capacity)
        }
        generations.current[key] = value
    }
}
