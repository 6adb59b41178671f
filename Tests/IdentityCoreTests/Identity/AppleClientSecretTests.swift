import COSECrypto
import Foundation
import IdentityCore
import JOSE
import Testing
import WebAuthnModel

@Suite("Apple client secret")
struct AppleClientSecretTests {
    @Test("ES256 with kid, verifies with the public key, and carries exactly iss, iat, exp, aud, sub")
    func shape() throws {
        let key = try PrivateKey.generate(for: .es256)
        let maker = try AppleClientSecret(teamID: "TEAM123456", keyID: "KEY7654321", privateKey: key)
        let now = Date(timeIntervalSince1970: 1_800_000_000.7)
        let secret = try maker.secret(clientID: "com.example.app", now: now)
        let jws = try CompactJWS(compact: Array(secret.utf8), maxLength: 4096)
        #expect(jws.algorithmName == "ES256" && jws.keyID == "KEY7654321")
        #expect(Set(jws.header.keys) == ["alg", "kid"])
        try JWSVerifier.verify(jws, algorithm: .es256, key: .publicKey(key.publicKey))
        let claims = try JSONReader.parse(jws.payload, maxDepth: 4)
        #expect(claims == .object([
            "iss": .string("TEAM123456"), "iat": .number(1_800_000_000), "exp": .number(1_800_000_300),
            "aud": .string("https://appleid.apple.com"), "sub": .string("com.example.app"),
        ]))
        // Another key does not verify it.
        let other = try PrivateKey.generate(for: .es256)
        #expect(throws: JOSEError.self) { try JWSVerifier.verify(jws, algorithm: .es256, key: .publicKey(other.publicKey)) }
    }

    @Test func lifetimeIsAtMostFifteenMinutes() throws {
        let maker = try AppleClientSecret(teamID: "T", keyID: "K", privateKey: try PrivateKey.generate(for: .es256), lifetime: 86_400)
        #expect(maker.lifetime == 900)
        let jws = try CompactJWS(compact: Array(try maker.secret(clientID: "c", now: Date(timeIntervalSince1970: 100)).utf8), maxLength: 4096)
        guard case .object(let claims) = try JSONReader.parse(jws.payload, maxDepth: 4) else { Issue.record("claims"); return }
        #expect(claims["exp"] == .number(1000) && claims["iat"] == .number(100))
    }

    @Test func refusesKeysThatAreNotP256() throws {
        #expect(throws: CryptoError.algorithmKeyMismatch) {
            try AppleClientSecret(teamID: "T", keyID: "K", privateKey: try PrivateKey.generate(for: .es384))
        }
    }

    @Test("a .p8 (PEM PKCS#8) round-trips into a key that signs secrets")
    func p8() throws {
        let key = try PrivateKey.generate(for: .es256)
        let base64 = Data(key.pkcs8DER()).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let pem = "-----BEGIN PRIVATE KEY-----\n\(base64)\n-----END PRIVATE KEY-----\n"
        let der = try #require(AppleClientSecret.derFromPEM(pem))
        let imported = try PrivateKey(pkcs8DER: der)
        #expect(imported.algorithm == .es256)
        let secret = try AppleClientSecret(teamID: "T", keyID: "K", privateKey: imported).secret(clientID: "c", now: Date())
        try JWSVerifier.verify(try CompactJWS(compact: Array(secret.utf8), maxLength: 4096), algorithm: .es256, key: .publicKey(key.publicKey))
        #expect(AppleClientSecret.derFromPEM("no pem here") == nil)
        #expect(AppleClientSecret.derFromPEM("-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----") == nil)
    }
}
