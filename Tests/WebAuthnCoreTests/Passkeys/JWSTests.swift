import COSECrypto
import Foundation
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// RFC 7515 compact JWS with x5c, and the JOSE ECDSA signature encoding.
@Suite("JWS (RFC 7515)")
struct JWSTests {
    static func certificate(for key: PrivateKey) throws -> Certificate {
        try Fixture.ca.issueAttestationCertificate(for: key.publicKey)
    }

    @Test("ES256 and RS256 signatures verify with the x5c leaf; the payload comes back")
    func roundTrip() throws {
        for (algorithm, keyAlgorithm) in [("ES256", COSEAlgorithm.es256), ("RS256", .rs256)] {
            let key = try PrivateKey.generate(for: keyAlgorithm)
            let compact = try TestJWS.sign(payload: Array("{\"a\":1}".utf8), key: key, certificates: [Self.certificate(for: key)], algorithm: algorithm)
            let jws = try JWS(compact: compact)
            #expect(jws.algorithm == algorithm)
            #expect(jws.payload == Array("{\"a\":1}".utf8))
            try jws.verifySignature()
            #expect(try jws.verifyChain(anchors: Fixture.ca.trustAnchors, time: Fixture.now).count == 2)
        }
    }

    @Test("a changed payload, a flipped signature bit or another key fail")
    func tampering() throws {
        let key = try PrivateKey.generate(for: .es256)
        let certificate = try Self.certificate(for: key)
        let compact = try TestJWS.sign(payload: Array("{\"a\":1}".utf8), key: key, certificates: [certificate])
        var parts = String(decoding: compact, as: UTF8.self).split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array("{\"a\":2}".utf8))
        #expect(throws: WebAuthnError(.jwsSignatureInvalid)) { try JWS(compact: Array(parts.joined(separator: ".").utf8)).verifySignature() }
        let flipped = try TestJWS.sign(payload: [0x7b, 0x7d], key: key, certificates: [certificate], corruptSignature: true)
        #expect(throws: WebAuthnError(.jwsSignatureInvalid)) { try JWS(compact: flipped).verifySignature() }
        let other = try TestJWS.sign(payload: [0x7b, 0x7d], key: PrivateKey.generate(for: .es256), certificates: [certificate])
        #expect(throws: WebAuthnError(.jwsSignatureInvalid)) { try JWS(compact: other).verifySignature() }
    }

    @Test("alg none, HMAC, or an alg that does not fit the key are refused")
    func algorithms() throws {
        let key = try PrivateKey.generate(for: .es256)
        let certificate = try Self.certificate(for: key)
        let x5c = Data(certificate.derEncoded).base64EncodedString()
        for alg in ["none", "HS256", "RS256", "ES384"] {
            let header = Base64URL.encode(Array("{\"alg\":\"\(alg)\",\"x5c\":[\"\(x5c)\"]}".utf8))
            let compact = Array("\(header).e30.\(Base64URL.encode(Array(repeating: 1, count: 64)))".utf8)
            #expect(throws: WebAuthnError(.jwsAlgorithmUnsupported), "\(alg)") { try JWS(compact: compact).verifySignature() }
        }
    }

    @Test("structure: three parts, JSON header with x5c, no crit, size limit")
    func structure() throws {
        let key = try PrivateKey.generate(for: .es256)
        let x5c = Data(try Self.certificate(for: key).derEncoded).base64EncodedString()
        let cases: [String] = [
            "e30.e30", "e30.e30.e30.e30", "!!.e30.AA",
            Base64URL.encode(Array("{\"alg\":\"ES256\"}".utf8)) + ".e30.AA",
            Base64URL.encode(Array("{\"alg\":\"ES256\",\"x5c\":[]}".utf8)) + ".e30.AA",
            Base64URL.encode(Array("{\"alg\":\"ES256\",\"x5c\":[\"AAAA\"]}".utf8)) + ".e30.AA",
            Base64URL.encode(Array("{\"alg\":\"ES256\",\"x5c\":[\"\(x5c)\"],\"crit\":[\"exp\"]}".utf8)) + ".e30.AA",
        ]
        for text in cases {
            #expect(throws: WebAuthnError(.jwsMalformed), "\(text.prefix(40))") { try JWS(compact: Array(text.utf8)) }
        }
        #expect(throws: WebAuthnError(.jwsMalformed)) { try JWS(compact: Array(repeating: 0x41, count: 100), maxLength: 99) }
    }

    @Test("ECDSA raw r‖s ↔ DER through OpenSSL")
    func ecdsaEncoding() throws {
        let key = try PrivateKey.generate(for: .es256)
        let message = Array("message".utf8)
        let der = try key.sign(message, algorithm: .es256)
        let raw = try ECDSASignatureEncoding.rawFromDER(der, componentLength: 32)
        #expect(raw.count == 64)
        #expect(try ECDSASignatureEncoding.derFromRaw(raw) == der)
        #expect(try key.publicKey.verify(signature: ECDSASignatureEncoding.derFromRaw(raw), message: message, algorithm: .es256))
        #expect(throws: CryptoError.malformedSignature) { try ECDSASignatureEncoding.derFromRaw([1, 2, 3]) }
        #expect(throws: CryptoError.malformedSignature) { try ECDSASignatureEncoding.rawFromDER(der + [0], componentLength: 32) }
        #expect(throws: CryptoError.malformedSignature) { try ECDSASignatureEncoding.rawFromDER([0x30, 0x00], componentLength: 32) }
    }
}
