import COSECrypto
import Testing

@Suite("Digests, randomness, constant-time comparison, algorithm identifiers")
struct PrimitivesTests {
    typealias S = COSETestSupport

    @Test("known answers for \"abc\" and \"\"", arguments: [
        (HashAlgorithm.sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha384, "abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (.sha512, "abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        (.sha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ])
    func knownAnswers(_ algorithm: HashAlgorithm, _ input: String, _ expected: String) {
        let digest = Digest.hash(algorithm, Array(input.utf8))
        #expect(S.hex(digest) == expected)
        #expect(digest.count == algorithm.digestLength)
    }

    @Test func sha256AcceptsAnyCollection() {
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(S.hex(Digest.sha256(Array("abc".utf8))) == expected)
        #expect(S.hex(Digest.sha256(Array("xabcx".utf8)[1..<4])) == expected)  // ArraySlice, contiguous
        #expect(S.hex(Digest.sha256("abc".utf8)) == expected)
        #expect(S.hex(Digest.sha256([0x61, 0x62, 0x63].lazy.map { UInt8($0) })) == expected)  // not contiguous
        #expect(S.hex(Digest.sha256([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func secureRandom() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        let a = SecureRandom.bytes(count: 32)
        let b = SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(SecureRandom.bytes(count: 1000).count == 1000)
    }

    @Test func constantTimeComparison() {
        #expect(constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!constantTimeEquals([0, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!constantTimeEquals([] as [UInt8], [0] as [UInt8]))
        #expect(constantTimeEquals([] as [UInt8], [] as [UInt8]))
        let big: [UInt8] = Array(0..<200)
        #expect(constantTimeEquals(big[10..<20], Array(10..<20) as [UInt8]))
        #expect(constantTimeEquals("abc".utf8, [0x61, 0x62, 0x63] as [UInt8]))
    }

    @Test func algorithmNamesAndHashes() {
        let expected: [(COSEAlgorithm, String, HashAlgorithm?)] = [
            (.es256, "ES256", .sha256), (.esp256, "ESP256", .sha256), (.es384, "ES384", .sha384),
            (.esp384, "ESP384", .sha384), (.es512, "ES512", .sha512), (.esp512, "ESP512", .sha512),
            (.edDSA, "EdDSA", nil), (.ed25519, "Ed25519", nil), (.ed448, "Ed448", nil),
            (.rs256, "RS256", .sha256), (.rs384, "RS384", .sha384), (.rs512, "RS512", .sha512),
            (.ps256, "PS256", .sha256), (.ps384, "PS384", .sha384), (.ps512, "PS512", .sha512), (.rs1, "RS1", .sha1),
        ]
        for (algorithm, name, hash) in expected {
            #expect(algorithm.name == name)
            #expect(algorithm.description == name)
            #expect(algorithm.hashAlgorithm == hash)
            #expect(algorithm.isSupported)
        }
        #expect(expected.count == COSEAlgorithm.allSupported.count)
        #expect(COSEAlgorithm.es256.rawValue == -7 && COSEAlgorithm.rs1.rawValue == -65535)
        #expect(COSEAlgorithm(rawValue: -47).name == "COSE(-47)")
        #expect(!COSEAlgorithm(rawValue: -47).isSupported)
        #expect(COSEAlgorithm(rawValue: -47).hashAlgorithm == nil)
        #expect(COSEAlgorithm(-7) == .es256)
    }

    @Test func policyDefaults() {
        #expect(COSEKeyPolicy.default.minimumRSAModulusBits == 2048)
        #expect(COSEKeyPolicy.default.maximumRSAModulusBits == 8192)
        #expect(COSEKeyPolicy.unsafeAllowingSmallRSAKeys(minimumBits: 1024).minimumRSAModulusBits == 1024)
    }
}
