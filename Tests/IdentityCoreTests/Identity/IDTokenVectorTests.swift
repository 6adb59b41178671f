import COSECrypto
import Foundation
import IdentityCore
import JOSE
import Testing
import WebAuthnModel

/// `../shared/vectors/apple/idtoken`: LINE-shaped ES256 and RS256 tokens and Apple-shaped RS256 tokens, verified at
/// their recorded times and refused as their README lists.
@Suite("ID-token vectors")
struct IDTokenVectorTests {
    func run(_ token: String, profile: ProviderProfile, keys: JWKSet, nonce: String, at unix: Double) -> IdentityError.Code? {
        let session = PendingIDTokenSession(
            id: Array(repeating: 1, count: 16), provider: profile.name, nonce: nonce, expiresAt: Date(timeIntervalSince1970: unix + 300))
        do {
            let unverified = try UnverifiedIDToken(Array(token.utf8), profile: profile)
            _ = try IDTokenSignIn.verify(unverified, session: session, profile: profile, keys: keys, now: Date(timeIntervalSince1970: unix))
            return nil
        } catch {
            return error.code
        }
    }

    @Test("LINE ES256 (line-sdk-ios-swift): valid at its time; expired, iat in the future, wrong aud/iss/nonce, unknown kid refused")
    func lineES256() throws {
        let vector = try IDTokenVectors.json("line/line-sdk-ios-es256.json")
        let token = try #require(vector["idToken"] as? String)
        let keys = try IDTokenVectors.jwks(vector["jwks"])
        let inputs = try #require(vector["inputs"] as? [String: Any])
        let at = try #require(inputs["verifyAtUnix"] as? Double)
        var profile = ProviderProfile.line(channelIDs: [try #require(inputs["channelId"] as? String)])
        profile.clockSkew = try #require(inputs["clockSkewSeconds"] as? Double)
        let nonce = try #require(inputs["nonce"] as? String)
        #expect(run(token, profile: profile, keys: keys, nonce: nonce, at: at) == nil)
        #expect(run(token, profile: profile, keys: keys, nonce: nonce, at: 1_735_959_870) == .expired)
        #expect(run(token, profile: profile, keys: keys, nonce: nonce, at: 1_535_959_000) == .issuedAtInvalid)
        #expect(run(token, profile: .line(channelIDs: ["WrongChannelID"]), keys: keys, nonce: nonce, at: at) == .audienceMismatch)
        var wrongIssuer = profile
        wrongIssuer.issuers = ["https://wrong.issuer.com"]
        #expect(run(token, profile: wrongIssuer, keys: keys, nonce: nonce, at: at) == .issuerMismatch)
        #expect(run(token, profile: profile, keys: keys, nonce: "ABCABD", at: at) == .nonceMismatch)
        #expect(run(token, profile: profile, keys: JWKSet(keys: []), nonce: nonce, at: at) == .keyUnknown)
        // The nonce rule matters: the same token under a sha256 rule does not match.
        var hashed = profile
        hashed.nonceRule = .sha256Hex
        #expect(run(token, profile: hashed, keys: keys, nonce: nonce, at: at) == .nonceMismatch)
        // The test private key mints further tokens that verify with the same JWKS.
        let pem = try #require(vector["privateKeyPem"] as? String)
        let der = try #require(Data(base64Encoded: pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()))
        let key = try PrivateKey(pkcs8DER: Array(der), algorithm: .es256)
        let minted = try JWSSigner.sign(
            payload: JSONText.bytes(of: .object([
                "iss": .string("https://access.line.me"), "aud": .string("12345"), "sub": .string("U1"),
                "iat": .number(at), "exp": .number(at + 60), "nonce": .string("fresh"),
            ])), algorithm: .es256, key: .privateKey(key), keyID: "12345")
        #expect(run(minted, profile: profile, keys: keys, nonce: "fresh", at: at) == nil)
    }

    @Test("LINE RS256: the signature is valid, but LINE's allow-list (ES256; HS256 with the channel secret) refuses it")
    func lineRS256() throws {
        let vector = try IDTokenVectors.json("line/line-sdk-ios-rs256.json")
        let token = try #require(vector["idToken"] as? String)
        let document = try JSONSerialization.data(withJSONObject: vector["jwks"] as Any)
        // The 1024-bit test key is below passkeyd's RSA floor: accepted only by an explicitly weakened policy.
        #expect(try JWKSet(json: Array(document)).keys.isEmpty)
        let weak = try JWKSet(json: Array(document), policy: .unsafeAllowingSmallRSAKeys(minimumBits: 1024))
        let jws = try CompactJWS(compact: Array(token.utf8), maxLength: 8192)
        #expect(throws: Never.self) {
            try JWSVerifier.verify(jws, algorithm: .rs256, key: .publicKey(try weak.key(keyID: "12345", algorithm: .rs256)))
        }
        let profile = ProviderProfile.line(channelIDs: ["12345"], channelSecret: Array("a-configured-channel-secret".utf8))
        #expect(run(token, profile: profile, keys: weak, nonce: "ABCABC", at: 1_535_959_800) == .algorithmNotAllowed)
    }

    @Test("Apple (aspnet-contrib bundle): signatures valid with the snapshot JWKS; iat as a string → malformed; expired now; wrong aud/iss")
    func apple() throws {
        let bundle = try IDTokenVectors.json("apple/aspnet-contrib-apple-bundle.json")
        let items = try #require(bundle["items"] as? [[String: Any]])
        let keys = try IDTokenVectors.jwks(items[1]["contentJson"])
        let inputs = try #require(try IDTokenVectors.json("apple/inputs.json")["inputs"] as? [String: Any])
        let at = try #require(inputs["verifyAtUnix"] as? Double)
        let audience = try #require(inputs["audience"] as? String)
        let profile = ProviderProfile.apple(audiences: [audience])
        for index in [2, 3] {
            let token = try #require((items[index]["contentJson"] as? [String: Any])?["id_token"] as? String)
            // The header has no kid: the one-key set is used; the signature verifies.
            let jws = try CompactJWS(compact: Array(token.utf8), maxLength: 8192)
            #expect(jws.keyID == nil)
            #expect(throws: Never.self) {
                try JWSVerifier.verify(jws, algorithm: .rs256, key: .publicKey(try keys.key(keyID: nil, algorithm: .rs256)))
            }
            // iss, aud and exp pass; `iat` (and `auth_time`) are strings of digits in these tokens, and RFC 7519 §2
            // makes a NumericDate a JSON number: refused as malformed (real Apple tokens carry numbers).
            #expect(run(token, profile: profile, keys: keys, nonce: "any", at: at) == .malformed)
            #expect(run(token, profile: profile, keys: keys, nonce: "any", at: Date().timeIntervalSince1970) == .expired)
            #expect(run(token, profile: .apple(audiences: ["my-team"]), keys: keys, nonce: "any", at: at) == .audienceMismatch)
            var wrongIssuer = profile
            wrongIssuer.issuers = ["https://apple.local"]
            #expect(run(token, profile: wrongIssuer, keys: keys, nonce: "any", at: at) == .issuerMismatch)
        }
        let one = try #require((items[6]["contentJson"] as? [String: Any])?["id_token"] as? String)
        #expect(run(one, profile: profile, keys: keys, nonce: "any", at: at) == .malformed)
        for index in [4, 5] {
            let token = (items[index]["contentJson"] as? [String: Any])?["id_token"] as? String ?? ""
            #expect(run(token, profile: profile, keys: keys, nonce: "any", at: at) == .malformed)
        }
    }
}
