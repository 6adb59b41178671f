import CBORCodec
import COSECrypto
import Testing

/// Keys generated once per test process (RSA generation is slow).
enum COSETestKeys {
    static let p256 = try? PrivateKey.generate(for: .es256)
    static let p384 = try? PrivateKey.generate(for: .es384)
    static let p521 = try? PrivateKey.generate(for: .es512)
    static let ed25519 = try? PrivateKey.generate(for: .edDSA)
    static let ed448 = try? PrivateKey.generate(for: .ed448)
    static let rsa2048 = try? PrivateKey.generate(for: .rs256)
    static let rsa1024 = try? PrivateKey.generate(for: .rs256, rsaBits: 1024)

    static func key(for algorithm: COSEAlgorithm) -> PrivateKey? {
        switch algorithm {
        case .es256, .esp256: p256
        case .es384, .esp384: p384
        case .es512, .esp512: p521
        case .edDSA, .ed25519: ed25519
        case .ed448: ed448
        default: rsa2048
        }
    }
}

@Suite("COSE_Key parsing")
struct COSEKeyParsingTests {
    typealias S = COSETestSupport

    func p256COSE() throws -> CBORValue { try #require(COSETestKeys.p256).coseKey(algorithm: .es256) }
    func rsaCOSE(_ key: PrivateKey?) throws -> CBORValue { try #require(key).coseKey(algorithm: .rs256) }

    // MARK: accepted shapes

    @Test("every supported algorithm's COSE_Key imports, round-trips through bytes, and keeps its alg",
          arguments: COSEAlgorithm.allSupported)
    func acceptsGeneratedKeys(_ algorithm: COSEAlgorithm) throws {
        let privateKey = try #require(COSETestKeys.key(for: algorithm))
        let cose = privateKey.coseKey(algorithm: algorithm)
        let key = try PublicKey(cose: cose)
        #expect(key.algorithm == algorithm)
        #expect(key.isEqual(to: privateKey.publicKey))
        let fromBytes = try PublicKey(coseBytes: CBOREncoder.encode(cose))
        #expect(fromBytes.isEqual(to: key))
        #expect(fromBytes.coseKey() == cose)
    }

    @Test func canonicalKeyOrder() throws {
        let labels = try p256COSE().mapEntries?.map { $0.key.intValue }
        #expect(labels == [1, 3, -1, -2, -3])
        let rsaLabels = try rsaCOSE(COSETestKeys.rsa2048).mapEntries?.map { $0.key.intValue }
        #expect(rsaLabels == [1, 3, -1, -2])
        let okpLabels = try #require(COSETestKeys.ed25519).coseKey(algorithm: .edDSA).mapEntries?.map { $0.key.intValue }
        #expect(okpLabels == [1, 3, -1, -2])
    }

    @Test func keyTypeNames() throws {
        #expect(try PublicKey(cose: p256COSE()).keyTypeName == "EC2 P-256")
        #expect(try #require(COSETestKeys.p384).publicKey.keyTypeName == "EC2 P-384")
        #expect(try #require(COSETestKeys.p521).publicKey.keyTypeName == "EC2 P-521")
        #expect(try #require(COSETestKeys.ed25519).publicKey.keyTypeName == "OKP Ed25519")
        #expect(try #require(COSETestKeys.ed448).publicKey.keyTypeName == "OKP Ed448")
        #expect(try #require(COSETestKeys.rsa2048).publicKey.keyTypeName == "RSA 2048")
    }

    @Test func kidIsAllowed() throws {
        let key = try PublicKey(cose: S.setting(2, to: .bytes([1, 2, 3]), in: p256COSE()))
        #expect(key.algorithm == .es256)
    }

    @Test func edDSAWithEd448Curve() throws {
        let cose = try #require(COSETestKeys.ed448).coseKey(algorithm: .edDSA)
        #expect(try PublicKey(cose: cose).keyTypeName == "OKP Ed448")
    }

    @Test func rsaModulusWithLeadingZeroIsAccepted() throws {
        let cose = try rsaCOSE(COSETestKeys.rsa2048)
        let n = try #require(S.value(-1, in: cose)?.bytesValue)
        let key = try PublicKey(cose: S.setting(-1, to: .bytes([0] + n), in: cose))
        #expect(key.keyTypeName == "RSA 2048")
    }

    @Test("odd exponents from 3 up to 2^32 are accepted", arguments: [[3], [1, 0, 1], [0xff, 0xff, 0xff, 0xff], [0, 0, 1, 0, 1]] as [[UInt8]])
    func rsaExponentsAccepted(_ e: [UInt8]) throws {
        let cose = try rsaCOSE(COSETestKeys.rsa2048)
        _ = try PublicKey(cose: S.setting(-2, to: .bytes(e), in: cose))
    }

    // MARK: rejections, one per rule

    @Test func wrongCurveForAlgorithm() throws {
        // ES256 with a (valid) P-384 key.
        let p384 = try #require(COSETestKeys.p384).coseKey(algorithm: .es384)
        #expect(throws: CryptoError.algorithmKeyMismatch) {
            try PublicKey(cose: S.setting(3, to: S.int(-7), in: p384))
        }
        // ES384 with a P-256 key, ESP512 with P-256.
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(cose: S.setting(3, to: S.int(-35), in: p256COSE())) }
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(cose: S.setting(3, to: S.int(-52), in: p256COSE())) }
    }

    @Test func algorithmForAnotherKeyType() throws {
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(cose: S.setting(3, to: S.int(-257), in: p256COSE())) }
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(cose: S.setting(3, to: S.int(-8), in: p256COSE())) }
        let rsa = try rsaCOSE(COSETestKeys.rsa2048)
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(cose: S.setting(3, to: S.int(-7), in: rsa)) }
        // Fully specified Ed448 with an Ed25519 key, and Ed25519 with an Ed448 key.
        let ed25519 = try #require(COSETestKeys.ed25519).coseKey(algorithm: .edDSA)
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(cose: S.setting(3, to: S.int(-53), in: ed25519)) }
        let ed448 = try #require(COSETestKeys.ed448).coseKey(algorithm: .edDSA)
        #expect(throws: CryptoError.algorithmKeyMismatch) { try PublicKey(cose: S.setting(3, to: S.int(-19), in: ed448)) }
    }

    @Test func xOf31Bytes() throws {
        let cose = try p256COSE()
        let x = try #require(S.value(-2, in: cose)?.bytesValue)
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(-2, to: .bytes(Array(x.dropFirst())), in: cose)) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(-2, to: .bytes([0] + x), in: cose)) }
    }

    @Test func compressedY() throws {
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(-3, to: .bool(true), in: p256COSE())) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(-3, to: .bool(false), in: p256COSE())) }
    }

    @Test func pointNotOnCurve() throws {
        let cose = try p256COSE()
        var y = try #require(S.value(-3, in: cose)?.bytesValue)
        y[31] ^= 0x01
        #expect(throws: CryptoError.pointNotOnCurve) { try PublicKey(cose: S.setting(-3, to: .bytes(y), in: cose)) }
        // (0, 0) is not on P-256 (b != 0); a coordinate equal to p is out of range.
        let zero = [UInt8](repeating: 0, count: 32)
        #expect(throws: CryptoError.pointNotOnCurve) { try PublicKey(cose: S.ec2(x: zero, y: zero)) }
        let p = try #require(S.bytes(hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"))
        #expect(throws: CryptoError.pointNotOnCurve) { try PublicKey(cose: S.setting(-2, to: .bytes(p), in: cose)) }
    }

    @Test func missingAlg() throws {
        #expect(throws: CryptoError.missingKeyParameter) { try PublicKey(cose: S.removing(3, from: p256COSE())) }
    }

    @Test func missingKty() throws {
        #expect(throws: CryptoError.missingKeyParameter) { try PublicKey(cose: S.removing(1, from: p256COSE())) }
    }

    @Test("missing x, y, crv, n or e", arguments: [(-2, false), (-3, false), (-1, false), (-1, true), (-2, true)] as [(Int64, Bool)])
    func missingParameter(_ label: Int64, _ rsa: Bool) throws {
        let cose = rsa ? try rsaCOSE(COSETestKeys.rsa2048) : try p256COSE()
        #expect(throws: CryptoError.missingKeyParameter) { try PublicKey(cose: S.removing(label, from: cose)) }
    }

    @Test("labels outside the key type's set", arguments: [4, 5, -5, -4, 100, -100] as [Int64])
    func extraLabel(_ label: Int64) throws {
        #expect(throws: CryptoError.unexpectedKeyParameter) { try PublicKey(cose: S.setting(label, to: .bytes([1]), in: p256COSE())) }
    }

    @Test func extraTextLabel() throws {
        var entries = try #require(p256COSE().mapEntries)
        entries.append(CBORMapEntry(.text("note"), .text("hi")))
        #expect(throws: CryptoError.unexpectedKeyParameter) { try PublicKey(cose: .map(entries)) }
    }

    @Test func okpWithYParameter() throws {
        let cose = try #require(COSETestKeys.ed25519).coseKey(algorithm: .edDSA)
        #expect(throws: CryptoError.unexpectedKeyParameter) { try PublicKey(cose: S.setting(-3, to: .bytes([1]), in: cose)) }
    }

    @Test func privateKeyParameterD() throws {
        let d = [UInt8](repeating: 7, count: 32)
        #expect(throws: CryptoError.unexpectedKeyParameter) { try PublicKey(cose: S.setting(-4, to: .bytes(d), in: p256COSE())) }
        let ed = try #require(COSETestKeys.ed25519).coseKey(algorithm: .edDSA)
        #expect(throws: CryptoError.unexpectedKeyParameter) { try PublicKey(cose: S.setting(-4, to: .bytes(d), in: ed)) }
        // RSA private parameters: d (-3), p (-4) ...
        let rsa = try rsaCOSE(COSETestKeys.rsa2048)
        #expect(throws: CryptoError.unexpectedKeyParameter) { try PublicKey(cose: S.setting(-3, to: .bytes(d), in: rsa)) }
        #expect(throws: CryptoError.unexpectedKeyParameter) { try PublicKey(cose: S.setting(-4, to: .bytes(d), in: rsa)) }
        // The reason says why (for logs).
        do {
            _ = try PublicKey(cose: S.setting(-4, to: .bytes(d), in: p256COSE()))
        } catch let error as CryptoError {
            #expect(error.reason.contains("private"))
        }
    }

    @Test func rsa1024RejectedByDefaultAcceptedWhenUnsafe() throws {
        let cose = try rsaCOSE(COSETestKeys.rsa1024)
        #expect(throws: CryptoError.rsaModulusTooSmall) { try PublicKey(cose: cose) }
        // Lowering the minimum on a default policy does not go below 2048; only the unsafe factory does.
        var lowered = COSEKeyPolicy.default
        lowered.minimumRSAModulusBits = 1024
        #expect(throws: CryptoError.rsaModulusTooSmall) { try PublicKey(cose: cose, policy: lowered) }
        let key = try PublicKey(cose: cose, policy: .unsafeAllowingSmallRSAKeys(minimumBits: 1024))
        #expect(key.keyTypeName == "RSA 1024")
        // Raising the minimum works on any policy.
        var strict = COSEKeyPolicy.default
        strict.minimumRSAModulusBits = 3072
        #expect(throws: CryptoError.rsaModulusTooSmall) { try PublicKey(cose: rsaCOSE(COSETestKeys.rsa2048), policy: strict) }
    }

    @Test func rsaModulusTooLarge() throws {
        // 8200-bit odd modulus: refused on size before OpenSSL sees it.
        let n = [UInt8](repeating: 0xff, count: 1025)
        #expect(throws: CryptoError.rsaModulusTooLarge) { try PublicKey(cose: S.rsa(n: n, e: [1, 0, 1])) }
        var small = COSEKeyPolicy.default
        small.maximumRSAModulusBits = 2048
        let key2048 = try rsaCOSE(COSETestKeys.rsa2048)
        _ = try PublicKey(cose: key2048, policy: small)  // exactly 2048 is fine
    }

    @Test("even, < 3 or > 2^32 exponents",
          arguments: [[1, 0, 0], [2], [1], [], [0], [1, 0, 0, 0, 1], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 1]] as [[UInt8]])
    func rsaExponentInvalid(_ e: [UInt8]) throws {
        let cose = try rsaCOSE(COSETestKeys.rsa2048)
        #expect(throws: CryptoError.rsaExponentInvalid) { try PublicKey(cose: S.setting(-2, to: .bytes(e), in: cose)) }
    }

    @Test func rsaEvenModulus() throws {
        let cose = try rsaCOSE(COSETestKeys.rsa2048)
        var n = try #require(S.value(-1, in: cose)?.bytesValue)
        n[n.count - 1] &= 0xfe
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(-1, to: .bytes(n), in: cose)) }
    }

    @Test("unknown kty", arguments: [0, 4, 5, 99, -1] as [Int64])
    func unknownKty(_ kty: Int64) throws {
        #expect(throws: CryptoError.unsupportedKeyType) { try PublicKey(cose: S.setting(1, to: S.int(kty), in: p256COSE())) }
    }

    @Test func ktyAsText() throws {
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(1, to: .text("EC2"), in: p256COSE())) }
    }

    @Test("OKP x of the wrong length", arguments: [(6, 31), (6, 33), (6, 57), (7, 56), (7, 32)] as [(Int64, Int)])
    func okpWrongLength(_ crv: Int64, _ length: Int) throws {
        let alg: COSEAlgorithm = .edDSA
        #expect(throws: CryptoError.malformedKey) {
            try PublicKey(cose: S.okp(alg: alg, crv: crv, x: [UInt8](repeating: 9, count: length)))
        }
    }

    @Test func algAsText() throws {
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(3, to: .text("ES256"), in: p256COSE())) }
    }

    @Test func unsupportedAlgorithm() throws {
        #expect(throws: CryptoError.unsupportedAlgorithm) { try PublicKey(cose: S.setting(3, to: S.int(-999), in: p256COSE())) }
        // ES256K (-47) is a real COSE algorithm, but not one we verify.
        #expect(throws: CryptoError.unsupportedAlgorithm) { try PublicKey(cose: S.setting(3, to: S.int(-47), in: p256COSE())) }
    }

    @Test("unsupported curves", arguments: [(2, 8), (2, 4), (1, 4), (1, 5), (1, 1)] as [(Int64, Int64)])
    func unsupportedCurve(_ kty: Int64, _ crv: Int64) throws {
        let cose: CBORValue =
            kty == 2
            ? S.setting(-1, to: S.int(crv), in: try p256COSE())
            : S.okp(alg: .edDSA, crv: crv, x: [UInt8](repeating: 9, count: 32))
        #expect(throws: CryptoError.unsupportedCurve) { try PublicKey(cose: cose) }
    }

    @Test func notAMap() throws {
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: .array([])) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: .bytes([1, 2])) }
    }

    @Test func duplicateLabel() throws {
        var entries = try #require(p256COSE().mapEntries)
        entries.append(CBORMapEntry(CBORValue(3), CBORValue(-7)))
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: .map(entries)) }
    }

    @Test func oversizedMap() throws {
        var entries = try #require(p256COSE().mapEntries)
        for label in 10..<5000 { entries.append(CBORMapEntry(CBORValue(Int64(label)), .null)) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: .map(entries)) }
    }

    @Test func kidNotBytes() throws {
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(2, to: .text("kid"), in: p256COSE())) }
    }

    @Test func coordinatesNotBytes() throws {
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(-2, to: .text("x"), in: p256COSE())) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(cose: S.setting(-1, to: .text("P-256"), in: p256COSE())) }
    }

    @Test func coseBytesMustBeCanonicalAndComplete() throws {
        let bytes = CBOREncoder.encode(try p256COSE())
        _ = try PublicKey(coseBytes: bytes)
        #expect(throws: CryptoError.malformedKey) { try PublicKey(coseBytes: bytes + [0x00]) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(coseBytes: Array(bytes.dropLast())) }
        #expect(throws: CryptoError.malformedKey) { try PublicKey(coseBytes: []) }
        // kty written as a two-byte integer (0x18 0x02) instead of 0x02.
        #expect(bytes[0] == 0xa5 && bytes[1] == 0x01 && bytes[2] == 0x02)
        let nonMinimal = [bytes[0], bytes[1], 0x18, 0x02] + bytes[3...]
        #expect(throws: CryptoError.malformedKey) { try PublicKey(coseBytes: Array(nonMinimal)) }
    }

    @Test func errorEqualityIgnoresReasonAndDescriptionIsGeneric() {
        let a = CryptoError(code: .malformedKey, reason: "x of 31 bytes")
        #expect(a == CryptoError.malformedKey)
        #expect(a != CryptoError.pointNotOnCurve)
        #expect(a.description == "CryptoError(malformedKey)")
        #expect(String(reflecting: a).contains("31 bytes"))
    }
}
