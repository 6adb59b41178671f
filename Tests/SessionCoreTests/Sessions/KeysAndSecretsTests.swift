import COSECrypto
import Foundation
import JOSE
@testable import SessionCore
import Testing
import WebAuthnModel

@Suite("Signing keys, refresh tokens, handoff codes and PKCE")
struct KeysAndSecretsTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("the ring signs with the newest active key, publishes retired keys until they expire, and says when to rotate")
    func ringSchedule() throws {
        let old = try SessionSigningKey.generate(.es256, now: Self.t0, activatesAt: Self.t0)
            .scheduled(retiresAt: Self.t0 + 1000, expiresAt: Self.t0 + 1700)
        let new = try SessionSigningKey.generate(.es256, now: Self.t0 + 400, activatesAt: Self.t0 + 1000)
        let ring = SessionKeyRing([new, old])
        #expect(ring.keys.map(\.keyID) == [old.keyID, new.keyID])
        #expect(ring.signer(at: Self.t0 + 999)?.keyID == old.keyID, "the new key is published before it signs")
        #expect(ring.signer(at: Self.t0 + 1000)?.keyID == new.keyID)
        #expect(ring.published(at: Self.t0 + 1699).count == 2)
        #expect(ring.published(at: Self.t0 + 1700).map(\.keyID) == [new.keyID])
        #expect(!ring.needsRotation(at: Self.t0 + 500, interval: 200))
        #expect(ring.needsRotation(at: Self.t0 + 600, interval: 200))
        #expect(SessionKeyRing([]).needsRotation(at: Self.t0, interval: 1))

        // A token from the old key verifies after the rotation until the old key leaves the JWKS.
        let policy = SessionPolicy(issuer: "i", audiences: ["a"])
        let claims = AccessTokenClaims(
            issuer: "i", audiences: ["a"], subject: "s", issuedAt: 1_800_000_900, expiresAt: 1_800_002_000, tokenID: "j", sessionID: "x",
            authTime: 1_800_000_900, amr: ["fed"])
        let token = try AccessTokens.issue(claims, key: try #require(ring.signer(at: Self.t0 + 900)))
        _ = try AccessTokens.verify(token, keys: ring, policy: policy, now: Self.t0 + 1500)
        #expect(throws: SessionError(.accessTokenKeyUnknown, "")) { try AccessTokens.verify(token, keys: ring, policy: policy, now: Self.t0 + 1700) }

        // The JWKS: public members only, kid = RFC 7638 thumbprint.
        guard case .object(let set) = try JSONReader.parse(ring.jwks(at: Self.t0)), case .array(let keys)? = set["keys"] else {
            Issue.record("no keys array"); return
        }
        #expect(keys.count == 2)
        for case .object(let jwk) in keys {
            #expect(jwk["d"] == nil && jwk["kty"] == .string("EC") && jwk["use"] == .string("sig") && jwk["alg"] == .string("ES256"))
            #expect(jwk["kid"] == .string(JWK.thumbprint(jwk)))
            #expect(try JWK(members: jwk).publicKey.supports(.es256))
        }
    }

    @Test("an EdDSA key is published as an OKP JWK that imports back")
    func edDSAJWK() throws {
        let key = try SessionSigningKey.generate(.edDSA, now: Self.t0, activatesAt: Self.t0)
        let jwk = key.publicJWK
        #expect(jwk["kty"] == .string("OKP") && jwk["crv"] == .string("Ed25519") && jwk["alg"] == .string("EdDSA"))
        #expect(try JWK(members: jwk).publicKey.isEqual(to: key.privateKey.publicKey))
    }

    @Test("the RFC 7638 §3.1 thumbprint example")
    func thumbprintVector() {
        let n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        let jwk: [String: JSONValue] = ["kty": .string("RSA"), "n": .string(n), "e": .string("AQAB"), "alg": .string("RS256"), "kid": .string("2011-04-29")]
        #expect(JWK.thumbprint(jwk) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("a sealed key opens only under its key-encryption key and its own kid")
    func sealing() throws {
        let kek = SecureRandom.bytes(count: 32)
        let key = try SessionSigningKey.generate(.es256, now: Self.t0, activatesAt: Self.t0)
        let sealed = try key.sealed(keyEncryptionKey: kek)
        #expect(!sealed.isEmpty && !String(decoding: sealed, as: UTF8.self).contains("PRIVATE"))
        let opened = try SessionSigningKey.open(
            sealed: sealed, keyID: key.keyID, algorithm: .es256, keyEncryptionKey: kek, createdAt: Self.t0, activatesAt: Self.t0, retiresAt: nil,
            expiresAt: nil)
        #expect(opened.keyID == key.keyID && opened.privateKey.publicKey.isEqual(to: key.privateKey.publicKey))
        #expect(throws: CryptoError.self) {
            try SessionSigningKey.open(
                sealed: sealed, keyID: key.keyID, algorithm: .es256, keyEncryptionKey: SecureRandom.bytes(count: 32), createdAt: Self.t0,
                activatesAt: Self.t0, retiresAt: nil, expiresAt: nil)
        }
        #expect(throws: CryptoError.self) {
            try SessionSigningKey.open(
                sealed: sealed, keyID: "another-kid", algorithm: .es256, keyEncryptionKey: kek, createdAt: Self.t0, activatesAt: Self.t0,
                retiresAt: nil, expiresAt: nil)
        }
    }

    @Test("refresh tokens and handoff codes: 256 random bits behind a prefix, stored as SHA-256, malformed ones refused before any lookup")
    func opaqueTokens() {
        let (token, hash) = OpaqueToken.generate(prefix: OpaqueToken.refreshPrefix, random: { Array(repeating: 0xAB, count: $0) })
        #expect(token == "pkd_rt_" + Base64URL.encode(Array(repeating: UInt8(0xAB), count: 32)))
        #expect(hash == Digest.sha256(Array(token.utf8)))
        #expect(OpaqueToken.hash(of: token, prefix: OpaqueToken.refreshPrefix) == hash)
        #expect(OpaqueToken.hash(of: token, prefix: OpaqueToken.handoffPrefix) == nil, "a refresh token is not a handoff code")
        #expect(OpaqueToken.hash(of: String(token.dropLast()), prefix: OpaqueToken.refreshPrefix) == nil)
        #expect(OpaqueToken.hash(of: String(token.dropLast()) + "=", prefix: OpaqueToken.refreshPrefix) == nil)
        #expect(OpaqueToken.hash(of: "", prefix: OpaqueToken.refreshPrefix) == nil)
        let a = OpaqueToken.generate(prefix: OpaqueToken.handoffPrefix, random: SecureRandom.bytes(count:))
        let b = OpaqueToken.generate(prefix: OpaqueToken.handoffPrefix, random: SecureRandom.bytes(count:))
        #expect(a.token != b.token && a.token.hasPrefix("pkd_hc_") && a.token.utf8.count == 50)
    }

    @Test("PKCE S256: the RFC 7636 appendix B example, a wrong verifier, malformed verifiers and challenges")
    func pkce() throws {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        #expect(PKCE.challenge(for: verifier) == challenge)
        #expect(PKCE.isChallenge(challenge))
        #expect(!PKCE.isChallenge("plain-verifier") && !PKCE.isChallenge(challenge + "A"))
        try PKCE.verify(verifier: verifier, challenge: challenge)
        #expect(throws: SessionError(.handoffVerifierMismatch, "")) { try PKCE.verify(verifier: verifier.replacingOccurrences(of: "d", with: "e"), challenge: challenge) }
        #expect(throws: SessionError(.handoffVerifierMalformed, "")) { try PKCE.verify(verifier: "short", challenge: challenge) }
        #expect(throws: SessionError(.handoffVerifierMalformed, "")) { try PKCE.verify(verifier: String(repeating: "a", count: 129), challenge: challenge) }
        #expect(throws: SessionError(.handoffVerifierMalformed, "")) { try PKCE.verify(verifier: String(repeating: "a", count: 42) + "+", challenge: challenge) }
    }

    @Test("a handoff exchange's PKCE: bound needs the verifier, unbound refuses any verifier (RFC 9700 §2.1.1 downgrade)")
    func pkceExchange() throws {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = PKCE.challenge(for: verifier)
        try PKCE.checkExchange(challenge: nil, verifier: nil)
        try PKCE.checkExchange(challenge: challenge, verifier: verifier)
        #expect(throws: SessionError(.handoffVerifierRequired, "")) { try PKCE.checkExchange(challenge: challenge, verifier: nil) }
        #expect(throws: SessionError(.handoffVerifierMismatch, "")) {
            try PKCE.checkExchange(challenge: challenge, verifier: String(repeating: "x", count: 43))
        }
        // A downgrade: the verifier is refused whatever it is, well-formed, malformed or empty.
        for sent in [verifier, "short", ""] {
            #expect(throws: SessionError(.handoffVerifierUnexpected, "")) { try PKCE.checkExchange(challenge: nil, verifier: sent) }
        }
    }
}
