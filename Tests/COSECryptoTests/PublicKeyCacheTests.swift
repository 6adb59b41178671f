import CBORCodec
import COSECrypto
import Testing

@Suite("PublicKeyCache")
struct PublicKeyCacheTests {
    @Test func hitsReturnTheSameKeyAndPolicyIsPartOfTheKey() throws {
        let cache = PublicKeyCache(capacity: 4)
        let bytes = CBOREncoder.encode(try #require(COSETestKeys.p256).coseKey(algorithm: .es256))
        let first = try cache.publicKey(coseBytes: bytes)
        let second = try cache.publicKey(coseBytes: bytes)
        #expect(first === second)
        #expect(first.isEqual(to: try #require(COSETestKeys.p256).publicKey))
        var strict = COSEKeyPolicy.default
        strict.maximumRSAModulusBits = 4096
        let third = try cache.publicKey(coseBytes: bytes, policy: strict)
        #expect(third !== first)
        #expect(cache.count == 2)
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test func failuresAreNotCachedAndPolicyStillApplies() throws {
        let cache = PublicKeyCache()
        let small = CBOREncoder.encode(try #require(COSETestKeys.rsa1024).coseKey(algorithm: .rs256))
        #expect(throws: CryptoError.rsaModulusTooSmall) { try cache.publicKey(coseBytes: small) }
        #expect(cache.count == 0)
        _ = try cache.publicKey(coseBytes: small, policy: .unsafeAllowingSmallRSAKeys(minimumBits: 1024))
        #expect(throws: CryptoError.rsaModulusTooSmall) { try cache.publicKey(coseBytes: small) }
        #expect(throws: CryptoError.malformedKey) { try cache.publicKey(coseBytes: [0xa0, 0x00]) }
    }

    @Test func boundedByTwoGenerations() throws {
        let cache = PublicKeyCache(capacity: 3)
        var keys: [[UInt8]] = []
        for _ in 0..<8 {
            keys.append(CBOREncoder.encode(try PrivateKey.generate(for: .edDSA).coseKey(algorithm: .edDSA)))
        }
        for bytes in keys { _ = try cache.publicKey(coseBytes: bytes) }
        #expect(cache.count <= 6)
        // The most recent key is still there and identical on the next lookup.
        let last = try cache.publicKey(coseBytes: keys[7])
        #expect(try cache.publicKey(coseBytes: keys[7]) === last)
    }
}
