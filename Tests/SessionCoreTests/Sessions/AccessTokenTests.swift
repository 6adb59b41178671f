import COSECrypto
import Foundation
import JOSE
@testable import SessionCore
import Testing
import WebAuthnModel

/// passkeyd's access tokens: claims, signing with each algorithm, an independent check of the signature with
/// OpenSSL through the wrapper (not through JOSE's verifier), and one failing test per verification check.
@Suite("Access tokens")
struct AccessTokenTests {
    static let policy = SessionPolicy(issuer: "https://id.example.com", audiences: ["https://api.example.com"])
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func key(_ algorithm: SessionSigningAlgorithm = .es256, at time: Date = start) throws -> SessionSigningKey {
        try SessionSigningKey.generate(algorithm, now: time, activatesAt: time)
    }

    static func claims(iat: Int64 = 1_800_000_000, lifetime: Int64 = 600, audiences: [String] = policy.audiences, issuer: String = policy.issuer) -> AccessTokenClaims {
        AccessTokenClaims(
            issuer: issuer, audiences: audiences, subject: "dXNlci0x", issuedAt: iat, expiresAt: iat + lifetime, tokenID: "anRpLTE",
            sessionID: "c2lkLTE", authTime: iat - 5, amr: SignInMethod.passkey(userVerified: true, backupEligible: true).amr)
    }

    /// The three parts, decoded.
    static func parts(_ token: String) throws -> (header: [String: JSONValue], payload: [String: JSONValue], signingInput: [UInt8], signature: [UInt8]) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(pieces.count == 3)
        guard case .object(let header) = try JSONReader.parse(try #require(Base64URL.decodeStrict(pieces[0]))),
              case .object(let payload) = try JSONReader.parse(try #require(Base64URL.decodeStrict(pieces[1])))
        else { Issue.record("not JSON objects"); return ([:], [:], [], []) }
        return (header, payload, Array((pieces[0] + "." + pieces[1]).utf8), try #require(Base64URL.decodeStrict(pieces[2])))
    }

    @Test("ES256 and EdDSA tokens carry the claims and verify independently with OpenSSL", arguments: SessionSigningAlgorithm.allCases)
    func issueAndVerify(_ algorithm: SessionSigningAlgorithm) throws {
        let key = try Self.key(algorithm)
        let token = try AccessTokens.issue(Self.claims(), key: key)
        let (header, payload, signingInput, signature) = try Self.parts(token)
        #expect(header == ["alg": .string(algorithm.rawValue), "kid": .string(key.keyID), "typ": .string("at+jwt")])
        #expect(payload["iss"] == .string("https://id.example.com") && payload["aud"] == .string("https://api.example.com"))
        #expect(payload["sub"] == .string("dXNlci0x") && payload["sid"] == .string("c2lkLTE") && payload["jti"] == .string("anRpLTE"))
        #expect(payload["iat"] == .number(1_800_000_000) && payload["exp"] == .number(1_800_000_600) && payload["auth_time"] == .number(1_799_999_995))
        #expect(payload["amr"] == .array([.string("swk"), .string("user"), .string("mfa")]))
        // Independently of JOSE: the signature over header.payload with the public key, by OpenSSL.
        let der = algorithm == .es256 ? try ECDSASignatureEncoding.derFromRaw(signature) : signature
        #expect(algorithm != .es256 || signature.count == 64)
        #expect(try key.privateKey.publicKey.verify(signature: der, message: signingInput, algorithm: algorithm == .es256 ? .es256 : .edDSA))
        var tampered = signingInput
        tampered[tampered.count - 2] ^= 1
        #expect(try !key.privateKey.publicKey.verify(signature: der, message: tampered, algorithm: algorithm == .es256 ? .es256 : .edDSA))

        let verified = try AccessTokens.verify(token, keys: SessionKeyRing([key]), policy: Self.policy, now: Self.start)
        #expect(verified == Self.claims())
    }

    @Test("expiry at exactly exp: one second before verifies, exp itself is expired")
    func expiryBoundary() throws {
        let key = try Self.key()
        let token = try AccessTokens.issue(Self.claims(), key: key)
        let ring = SessionKeyRing([key])
        _ = try AccessTokens.verify(token, keys: ring, policy: Self.policy, now: Date(timeIntervalSince1970: 1_800_000_599))
        #expect(throws: SessionError(.accessTokenExpired, "")) {
            try AccessTokens.verify(token, keys: ring, policy: Self.policy, now: Date(timeIntervalSince1970: 1_800_000_600))
        }
    }

    @Test("each check refuses with its own code")
    func refusals() throws {
        let key = try Self.key()
        let ring = SessionKeyRing([key])
        func refuse(_ token: String, _ code: SessionError.Code, keys: SessionKeyRing = ring, policy: SessionPolicy = Self.policy) {
            #expect(throws: SessionError(code, "")) { try AccessTokens.verify(token, keys: keys, policy: policy, now: Self.start) }
        }
        let good = try AccessTokens.issue(Self.claims(), key: key)
        refuse("not a token", .accessTokenMalformed)
        refuse(String(repeating: "a", count: 9000) + ".b.c", .accessTokenMalformed)
        // alg none, and HS256 keyed with the public key's JWK text (algorithm confusion).
        let payload = Base64URL.encode(Self.claims().payload)
        refuse(Base64URL.encode(Array(#"{"alg":"none","kid":"\#(key.keyID)"}"#.utf8)) + "." + payload + ".", .accessTokenAlgorithm)
        let confused = try JWSSigner.sign(
            payload: Self.claims().payload, algorithm: .hs256, key: .sharedSecret(JSONText.bytes(of: .object(key.publicJWK))), keyID: key.keyID)
        refuse(confused, .accessTokenAlgorithm)
        // ES256 header on an EdDSA key's kid.
        let edKey = try Self.key(.edDSA)
        let mislabelled = try JWSSigner.sign(payload: Self.claims().payload, algorithm: .es256, key: .privateKey(key.privateKey), keyID: edKey.keyID)
        refuse(mislabelled, .accessTokenAlgorithm, keys: SessionKeyRing([key, edKey]))
        // Unknown kid: another key's token, and no kid at all.
        refuse(try AccessTokens.issue(Self.claims(), key: try Self.key()), .accessTokenKeyUnknown)
        refuse(try JWSSigner.sign(payload: Self.claims().payload, algorithm: .es256, key: .privateKey(key.privateKey)), .accessTokenKeyUnknown)
        // Signature: a changed claim under the original signature.
        let pieces = good.split(separator: ".").map(String.init)
        refuse(pieces[0] + "." + Base64URL.encode(Self.claims(lifetime: 6000).payload) + "." + pieces[2], .accessTokenSignature)
        // crit, wrong types.
        let critical = try JWSSigner.sign(
            payload: Self.claims().payload, algorithm: .es256, key: .privateKey(key.privateKey), keyID: key.keyID,
            extraHeader: ["crit": .array([.string("exp")])])
        refuse(critical, .accessTokenMalformed)
        let badTypes = try JWSSigner.sign(payload: Array(#"{"iss":1}"#.utf8), algorithm: .es256, key: .privateKey(key.privateKey), keyID: key.keyID)
        refuse(badTypes, .accessTokenMalformed)
        // iss, aud.
        refuse(try AccessTokens.issue(Self.claims(issuer: "https://evil.example"), key: key), .accessTokenIssuer)
        refuse(try AccessTokens.issue(Self.claims(audiences: ["https://other.example"]), key: key), .accessTokenAudience)
        // Several audiences: one configured is enough, written as an array.
        let several = try AccessTokens.issue(Self.claims(audiences: ["https://other.example", "https://api.example.com"]), key: key)
        #expect(try Self.parts(several).payload["aud"] == .array([.string("https://other.example"), .string("https://api.example.com")]))
        _ = try AccessTokens.verify(several, keys: ring, policy: Self.policy, now: Self.start)
    }

    @Test("claims escape what JSON needs escaped and round-trip")
    func escaping() throws {
        let claims = AccessTokenClaims(
            issuer: "https://x.example/\"q\"\\\n\u{1}é", audiences: ["a", "b"], subject: "s", issuedAt: 1, expiresAt: 2, tokenID: "j",
            sessionID: "i", authTime: 0, amr: ["fed"])
        #expect(try AccessTokenClaims(payload: claims.payload) == claims)
    }

    @Test("amr: device-bound or synced passkey, with or without user verification; an ID token is fed")
    func amr() {
        #expect(SignInMethod.passkey(userVerified: true, backupEligible: false).amr == ["hwk", "user", "mfa"])
        #expect(SignInMethod.passkey(userVerified: false, backupEligible: true).amr == ["swk", "user"])
        #expect(SignInMethod.idToken(provider: "apple").amr == ["fed"])
    }

    @Test("policy: defaults are valid; impossible lifetimes are refused")
    func policy() throws {
        _ = try Self.policy.validated()
        var policy = Self.policy
        policy.handoffLifetime = 61
        #expect(throws: SessionPolicyError.self) { try policy.validated() }
        policy = Self.policy
        policy.refreshAbsoluteLifetime = policy.refreshIdleLifetime - 1
        #expect(throws: SessionPolicyError.self) { try policy.validated() }
        policy = Self.policy
        policy.audiences = []
        #expect(throws: SessionPolicyError.self) { try policy.validated() }
    }
}
