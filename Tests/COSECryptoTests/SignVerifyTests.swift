import CBORCodec
import COSECrypto
import Foundation
import Testing

@Suite("Signatures: sign/verify round trips and encodings")
struct SignVerifyTests {
    typealias S = COSETestSupport
    static let message = Array("authenticatorData || clientDataHash".utf8)

    @Test("sign then verify, every algorithm", arguments: COSEAlgorithm.allSupported)
    func roundTrip(_ algorithm: COSEAlgorithm) throws {
        let privateKey = try #require(COSETestKeys.key(for: algorithm))
        let signature = try privateKey.sign(Self.message, algorithm: algorithm)
        let publicKey = try PublicKey(cose: privateKey.coseKey(algorithm: algorithm))
        #expect(try publicKey.verify(signature: signature, message: Self.message))
        #expect(try publicKey.verify(signature: signature, message: Self.message, algorithm: algorithm))

        var otherMessage = Self.message
        otherMessage[0] ^= 1
        #expect(try !publicKey.verify(signature: signature, message: otherMessage))
        var tampered = signature
        tampered[tampered.count / 2] ^= 0x10
        #expect(try !publicKey.verify(signature: tampered, message: Self.message))
        #expect(try !publicKey.verify(signature: [], message: Self.message))
        #expect(try !publicKey.verify(signature: signature + [0], message: Self.message))
        #expect(try !publicKey.verify(signature: Array(signature.dropLast()), message: Self.message))
    }

    @Test("empty message", arguments: [COSEAlgorithm.es256, .edDSA, .ed448, .ps256, .rs256])
    func emptyMessage(_ algorithm: COSEAlgorithm) throws {
        let privateKey = try #require(COSETestKeys.key(for: algorithm))
        let signature = try privateKey.sign([], algorithm: algorithm)
        #expect(try privateKey.publicKey.verify(signature: signature, message: [], algorithm: algorithm))
    }

    @Test func rs1UsesSHA1() throws {
        let key = try #require(COSETestKeys.rsa2048)
        let signature = try key.sign(Self.message, algorithm: .rs1)
        #expect(try key.publicKey.verify(signature: signature, message: Self.message, algorithm: .rs1))
        #expect(try !key.publicKey.verify(signature: signature, message: Self.message, algorithm: .rs256))
    }

    @Test func pssAndPKCS1AreNotInterchangeable() throws {
        let key = try #require(COSETestKeys.rsa2048)
        let pkcs1 = try key.sign(Self.message, algorithm: .rs256)
        let pss = try key.sign(Self.message, algorithm: .ps256)
        #expect(try !key.publicKey.verify(signature: pkcs1, message: Self.message, algorithm: .ps256))
        #expect(try !key.publicKey.verify(signature: pss, message: Self.message, algorithm: .rs256))
        // Same padding, other hash.
        #expect(try !key.publicKey.verify(signature: pss, message: Self.message, algorithm: .ps384))
        #expect(try !key.publicKey.verify(signature: pkcs1, message: Self.message, algorithm: .rs512))
        // PSS is randomized; PKCS#1 v1.5 is deterministic.
        #expect(try key.sign(Self.message, algorithm: .ps256) != pss)
        #expect(try key.sign(Self.message, algorithm: .rs256) == pkcs1)
    }

    @Test func ecdsaRawSignatureIsRejected() throws {
        let key = try #require(COSETestKeys.p256)
        let der = try key.sign(Self.message, algorithm: .es256)
        let (r, s) = try #require(S.ecdsaComponents(der))
        let raw = S.fixedLength(r, 32) + S.fixedLength(s, 32)
        #expect(raw.count == 64)
        #expect(try !key.publicKey.verify(signature: raw, message: Self.message))
        // Our re-encoding of the parsed DER is the original (sanity check of the test helper).
        #expect(S.ecdsaDER(r: r, s: s) == der)
    }

    @Test func ecdsaZeroRAndSAreRejected() throws {
        let key = try #require(COSETestKeys.p256)
        let zero: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]
        #expect(try !key.publicKey.verify(signature: zero, message: Self.message))
        // r = s = n is out of range ([1, n-1]) and must fail too.
        let n = S.p256Order
        #expect(try !key.publicKey.verify(signature: S.ecdsaDER(r: n, s: n), message: Self.message))
    }

    @Test func ecdsaBERAndTrailingBytesAreRejected() throws {
        let key = try #require(COSETestKeys.p256)
        let der = try key.sign(Self.message, algorithm: .es256)
        #expect(try !key.publicKey.verify(signature: der + [0x00], message: Self.message))
        // Long-form length for the SEQUENCE (BER, not DER).
        let ber = [0x30, 0x81, der[1]] + der[2...]
        #expect(try !key.publicKey.verify(signature: Array(ber), message: Self.message))
    }

    /// High-S signatures must verify (Apple's Secure Enclave emits them; REFERENCE-security §3.10). s' = n - s is
    /// computed with plain big-endian arithmetic in the test helpers, no internal API needed.
    @Test func ecdsaHighSIsAccepted() throws {
        let key = try #require(COSETestKeys.p256)
        let n = S.p256Order
        var checkedBoth = (low: false, high: false)
        for _ in 0..<16 where !(checkedBoth.low && checkedBoth.high) {
            let der = try key.sign(Self.message, algorithm: .es256)
            let (r, s) = try #require(S.ecdsaComponents(der))
            let flipped = S.subtract(n, s)
            let twin = S.ecdsaDER(r: r, s: flipped)
            #expect(twin != der)
            #expect(try key.publicKey.verify(signature: twin, message: Self.message), "n - s must verify")
            // flipped > s ⟺ flipped > n/2, i.e. the twin is the high-S one.
            if S.isGreater(flipped, than: s) { checkedBoth.high = true } else { checkedBoth.low = true }
        }
        #expect(checkedBoth.high, "at least one high-S twin was verified")
    }

    @Test func algorithmMustFitTheKey() throws {
        let p256 = try #require(COSETestKeys.p256).publicKey
        let signature = try #require(COSETestKeys.p256).sign(Self.message, algorithm: .es256)
        #expect(throws: CryptoError.algorithmKeyMismatch) { try p256.verify(signature: signature, message: Self.message, algorithm: .es384) }
        #expect(throws: CryptoError.algorithmKeyMismatch) { try p256.verify(signature: signature, message: Self.message, algorithm: .rs256) }
        #expect(throws: CryptoError.algorithmKeyMismatch) { try p256.verify(signature: signature, message: Self.message, algorithm: .edDSA) }
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try p256.verify(signature: signature, message: Self.message, algorithm: COSEAlgorithm(rawValue: -47))
        }
        // ESP256 is the same scheme as ES256.
        #expect(try p256.verify(signature: signature, message: Self.message, algorithm: .esp256))
        #expect(p256.supports(.esp256) && p256.supports(.es256) && !p256.supports(.es512) && !p256.supports(.ps256))

        let rsa = try #require(COSETestKeys.rsa2048)
        #expect(throws: CryptoError.algorithmKeyMismatch) { try rsa.sign(Self.message, algorithm: .es256) }
        let ed = try #require(COSETestKeys.ed25519).publicKey
        #expect(throws: CryptoError.algorithmKeyMismatch) { try ed.verify(signature: [], message: [], algorithm: .ed448) }
        #expect(ed.supports(.edDSA) && ed.supports(.ed25519) && !ed.supports(.ed448))
    }

    @Test("SPKI export round trip", arguments: COSEAlgorithm.allSupported)
    func spkiRoundTrip(_ algorithm: COSEAlgorithm) throws {
        let privateKey = try #require(COSETestKeys.key(for: algorithm))
        let der = privateKey.publicKey.spkiDER()
        let imported = try PublicKey(spkiDER: der, algorithm: algorithm)
        #expect(imported.isEqual(to: privateKey.publicKey))
        #expect(imported.spkiDER() == der)
        #expect(imported.algorithm == algorithm)
        let signature = try privateKey.sign(Self.message, algorithm: algorithm)
        #expect(try imported.verify(signature: signature, message: Self.message))
        // Without an algorithm, the key type's default.
        let defaulted = try PublicKey(spkiDER: der)
        #expect(defaulted.supports(defaulted.algorithm))
    }

    @Test func spkiDefaults() throws {
        #expect(try PublicKey(spkiDER: #require(COSETestKeys.p256).publicKey.spkiDER()).algorithm == .es256)
        #expect(try PublicKey(spkiDER: #require(COSETestKeys.p384).publicKey.spkiDER()).algorithm == .es384)
        #expect(try PublicKey(spkiDER: #require(COSETestKeys.p521).publicKey.spkiDER()).algorithm == .es512)
        #expect(try PublicKey(spkiDER: #require(COSETestKeys.ed25519).publicKey.spkiDER()).algorithm == .edDSA)
        #expect(try PublicKey(spkiDER: #require(COSETestKeys.ed448).publicKey.spkiDER()).algorithm == .edDSA)
        #expect(try PublicKey(spkiDER: #require(COSETestKeys.rsa2048).publicKey.spkiDER()).algorithm == .rs256)
    }

    @Test func spkiRejections() throws {
        let der = try #require(COSETestKeys.p256).publicKey.spkiDER()
        #expect(throws: CryptoError.malformedKey) { try PublicKey(spkiDER: der + [0]) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(spkiDER: Array(der.dropLast())) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(spkiDER: []) }
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(spkiDER: der, algorithm: .rs256) }
        // Small RSA keys follow the policy here too.
        let small = try #require(COSETestKeys.rsa1024).publicKey.spkiDER()
        #expect(throws: CryptoError.rsaModulusTooSmall) { try PublicKey(spkiDER: small) }
        _ = try PublicKey(spkiDER: small, policy: .unsafeAllowingSmallRSAKeys(minimumBits: 1024))
        // secp256k1 (1.3.132.0.10) SPKI: a named curve we do not support.
        let k1 = try #require(S.bytes(hex:
            "3056301006072a8648ce3d020106052b8104000a034200"
            + "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
            + "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"))
        #expect(throws: CryptoError.unsupportedCurve) { try PublicKey(spkiDER: k1) }
        // A P-256 SPKI whose point is off the curve.
        var offCurve = der
        offCurve[offCurve.count - 1] ^= 1
        #expect(throws: (any Error).self) { try PublicKey(spkiDER: offCurve) }
    }

    @Test("PKCS#8 round trip", arguments: COSEAlgorithm.allSupported)
    func pkcs8RoundTrip(_ algorithm: COSEAlgorithm) throws {
        let privateKey = try #require(COSETestKeys.key(for: algorithm))
        let der = privateKey.pkcs8DER()
        let imported = try PrivateKey(pkcs8DER: der, algorithm: algorithm)
        #expect(imported.publicKey.isEqual(to: privateKey.publicKey))
        #expect(imported.algorithm == algorithm)
        let signature = try imported.sign(Self.message, algorithm: algorithm)
        #expect(try privateKey.publicKey.verify(signature: signature, message: Self.message, algorithm: algorithm))
        #expect(throws: CryptoError.malformedKey) { try PrivateKey(pkcs8DER: der + [0]) }
    }

    @Test func generatedKeysDiffer() throws {
        let a = try PrivateKey.generate(for: .es256)
        let b = try PrivateKey.generate(for: .es256)
        #expect(!a.publicKey.isEqual(to: b.publicKey))
        #expect(a.publicKey.isEqual(to: a.publicKey))
        #expect(!a.publicKey.isEqual(to: try #require(COSETestKeys.ed25519).publicKey))
        #expect(throws: CryptoError.unsupportedAlgorithm) { try PrivateKey.generate(for: COSEAlgorithm(rawValue: 1)) }
    }

    @Test func ecUncompressedPointAndRSAComponents() throws {
        let p256 = try #require(COSETestKeys.p256).publicKey
        let point = try #require(p256.ecUncompressedPoint)
        #expect(point.count == 65 && point[0] == 0x04)
        let cose = p256.coseKey()
        #expect(Array(point[1...32]) == S.value(-2, in: cose)?.bytesValue)
        #expect(Array(point[33...]) == S.value(-3, in: cose)?.bytesValue)
        #expect(try #require(COSETestKeys.p521).publicKey.ecUncompressedPoint?.count == 133)
        #expect(try #require(COSETestKeys.ed25519).publicKey.ecUncompressedPoint == nil)
        #expect(try #require(COSETestKeys.rsa2048).publicKey.ecUncompressedPoint == nil)
        let rsaKey = try #require(COSETestKeys.rsa2048)
        let rsa = try #require(rsaKey.publicKey.rsaPublicComponents)
        #expect(rsa.exponent == [1, 0, 1])
        #expect(rsa.modulus.count == 256)
        #expect(p256.rsaPublicComponents == nil)
    }

    @Test func concurrentVerificationWithOneKey() async throws {
        let privateKey = try #require(COSETestKeys.p256)
        let key = privateKey.publicKey
        let signature = try privateKey.sign(Self.message, algorithm: .es256)
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<64 {
                group.addTask {
                    var message = Self.message
                    if i % 2 == 1 { message[0] ^= 1 }
                    return (try? key.verify(signature: signature, message: message)) == (i % 2 == 0)
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }

    /// A failed operation must not leave OpenSSL errors behind that a later failure would report as its own.
    @Test func errorQueueDoesNotLeakBetweenOperations() throws {
        let rsa = try #require(COSETestKeys.rsa2048)
        #expect(try !rsa.publicKey.verify(signature: [UInt8](repeating: 1, count: 256), message: Self.message))
        let cose = try #require(COSETestKeys.p256).coseKey(algorithm: .es256)
        var y = try #require(S.value(-3, in: cose)?.bytesValue)
        y[0] ^= 0x55
        do {
            _ = try PublicKey(cose: S.setting(-3, to: .bytes(y), in: cose))
            Issue.record("off-curve point accepted")
        } catch {
            #expect(error.code == .pointNotOnCurve)
            #expect(!error.reason.lowercased().contains("rsa"), "stale RSA error in: \(error.reason)")
        }
    }
}
