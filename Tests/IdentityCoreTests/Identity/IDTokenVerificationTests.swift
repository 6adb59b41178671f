import COSECrypto
import Foundation
import IdentityCore
import JOSE
import Testing
import WebAuthnModel

/// The pure verification of ID tokens: every check with a token that fails it, and the recorded vectors.
@Suite("ID-token verification")
struct IDTokenVerificationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let apple = ProviderProfile.apple(audiences: ["com.example.app", "com.example.web"])

    static func session(_ profile: ProviderProfile = apple, nonce: String = "n0nce-from-begin_0123456789abcdefghijklmnopq") -> PendingIDTokenSession {
        PendingIDTokenSession(id: Array(repeating: 7, count: 16), provider: profile.name, nonce: nonce, expiresAt: now.addingTimeInterval(300))
    }

    func verify(_ token: [UInt8], profile: ProviderProfile = apple, keys: JWKSet = Minter.shared.keys, at time: Date = now,
                session: PendingIDTokenSession? = nil) throws(IdentityError) -> VerifiedIdentity {
        let unverified = try UnverifiedIDToken(token, profile: profile)
        return try IDTokenSignIn.verify(unverified, session: session ?? Self.session(profile), profile: profile, keys: keys, now: time)
    }

    /// The code `body` fails with; nil when it succeeds. (Any other error fails the test.)
    func code(_ body: () throws -> VerifiedIdentity) -> IdentityError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as IdentityError {
            return error.code
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    func claims(_ changes: [String: JSONValue?] = [:], profile: ProviderProfile = apple, session: PendingIDTokenSession? = nil) -> [UInt8] {
        Minter.claims(profile: profile, session: session ?? Self.session(profile), now: Self.now, changes)
    }

    @Test("a well-formed Apple-shaped token verifies, and the identity says what the claims say")
    func valid() throws {
        let identity = try verify(Minter.shared.token(claims(["is_private_email": .bool(true), "real_user_status": .number(2)])))
        #expect(identity.issuer == "https://appleid.apple.com" && identity.subject == "001234.abcdef.0001")
        #expect(identity.audience == "com.example.app" && identity.email == "person@example.com")
        #expect(identity.emailVerified == true && identity.isPrivateEmail == true && identity.realUserStatus == 2)
        // ES256 with an ES256 provider.
        var es = Self.apple
        es.algorithms = [.es256]
        #expect(try verify(Minter.shared.token(claims(), algorithm: .es256, keyID: "ec-1"), profile: es).subject == "001234.abcdef.0001")
    }

    @Test("JWS checks: size, form, crit, alg allow-list (none, HS256 keyed with the RSA public key), kid, signature")
    func jwsChecks() {
        let m = Minter.shared
        var small = Self.apple
        small.maxTokenBytes = 100
        #expect(code { try verify(m.token(claims()), profile: small) } == .tooLarge)
        #expect(code { try verify(Array("not.a.jws.at-all".utf8)) } == .malformed)
        #expect(code { try verify(Array("1".utf8)) } == .malformed)
        #expect(code { try verify(Minter.raw(header: "[1]", payload: claims())) } == .malformed)
        #expect(code { try verify(Minter.raw(header: #"{"alg":"RS256","alg":"none"}"#, payload: claims())) } == .malformed)
        #expect(code { try verify(m.token(claims(), extraHeader: ["crit": .array([.string("exp")])])) } == .criticalHeader)
        #expect(code { try verify(Minter.raw(header: #"{"alg":"none"}"#, payload: claims())) } == .algorithmNotAllowed)
        #expect(code { try verify(m.token(claims(), algorithm: .es256, keyID: "ec-1")) } == .algorithmNotAllowed)
        // Algorithm confusion: HS256 with the RSA public key (as its JWK and as SPKI DER) as the secret.
        let spki = m.rsa.publicKey.spkiDER()
        let confused = Array(try! JWSSigner.sign(payload: claims(), algorithm: .hs256, key: .sharedSecret(spki), keyID: "rsa-1").utf8)
        #expect(code { try verify(confused) } == .algorithmNotAllowed)
        // Even for a provider that has a secret, the MAC made with the public key does not verify.
        let line = ProviderProfile.line(channelIDs: ["1234567890"], channelSecret: Array("channel-secret-0123456789".utf8))
        let lineConfused = Array(try! JWSSigner.sign(payload: claims(profile: line), algorithm: .hs256, key: .sharedSecret(spki)).utf8)
        #expect(code { try verify(lineConfused, profile: line) } == .signatureInvalid)
        let lineHS = Array(try! JWSSigner.sign(
            payload: claims(profile: line), algorithm: .hs256, key: .sharedSecret(Array("channel-secret-0123456789".utf8))).utf8)
        #expect(code { try verify(lineHS, profile: line) } == nil)
        // Without a configured secret LINE refuses HS256 outright.
        #expect(code { try verify(lineHS, profile: .line(channelIDs: ["1234567890"])) } == .algorithmNotAllowed)
        #expect(code { try verify(m.token(claims(), keyID: "rsa-unknown")) } == .keyUnknown)
        #expect(code { try verify(m.token(claims(), keyID: nil)) } == .keyUnknown)  // no kid, two keys in the set
        #expect(code { try verify(m.token(claims(), keyID: "ec-1")) } == .keyInvalid)  // RS256 header, EC key
        var token = m.token(claims())
        token[token.count - 5] = token[token.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(code { try verify(token) } == .signatureInvalid)
        // A token signed by another key that claims a known kid.
        let other = try! PrivateKey.generate(for: .rs256)
        let forged = Array(try! JWSSigner.sign(payload: claims(), algorithm: .rs256, key: .privateKey(other), keyID: "rsa-1").utf8)
        #expect(code { try verify(forged) } == .signatureInvalid)
    }

    @Test("claims checks: iss, aud (and azp), exp, iat, nonce (both rules), sub, duplicate members")
    func claimChecks() {
        let m = Minter.shared
        #expect(code { try verify(m.token(claims(["iss": .string("https://appleid.apple.com.evil")]))) } == .issuerMismatch)
        #expect(code { try verify(m.token(claims(["iss": nil]))) } == .issuerMismatch)
        #expect(code { try verify(m.token(claims(["aud": .string("com.other.app")]))) } == .audienceMismatch)
        #expect(code { try verify(m.token(claims(["aud": .array([.string("com.example.app"), .string("x")])]))) } == .audienceMismatch)
        #expect(code {
            try verify(m.token(claims(["aud": .array([.string("com.example.app"), .string("x")]), "azp": .string("com.example.app")])))
        } == nil)
        let t = Self.now.timeIntervalSince1970
        #expect(code { try verify(m.token(claims(["exp": .number(t - 61)]))) } == .expired)
        #expect(code { try verify(m.token(claims(["exp": .number(t - 59)]))) } == nil)  // within the skew
        #expect(code { try verify(m.token(claims(["exp": nil]))) } == .expired)
        #expect(code { try verify(m.token(claims(["iat": .number(t + 61)]))) } == .issuedAtInvalid)
        #expect(code { try verify(m.token(claims(["iat": .number(t - 3600)]))) } == .issuedAtInvalid)  // older than max age
        #expect(code { try verify(m.token(claims(["iat": .string("soon")]))) } == .malformed)
        #expect(code { try verify(m.token(claims(["nonce": nil]))) } == .nonceMissing)
        #expect(code { try verify(m.token(claims(["nonce": .string("something-else")]))) } == .nonceMismatch)
        // Apple expects the hash: the raw nonce in the token is refused; LINE expects the raw one: the hash is refused.
        let session = Self.session()
        #expect(code { try verify(m.token(claims(["nonce": .string(session.nonce)]))) } == .nonceMismatch)
        var line = ProviderProfile.line(channelIDs: ["1234567890"])
        line.algorithms = [.rs256]
        let lineSession = Self.session(line)
        let hashed = IDTokenSignIn.providerNonce(for: lineSession.nonce, rule: .sha256Hex)
        #expect(code { try verify(m.token(claims(["nonce": .string(hashed)], profile: line)), profile: line) } == .nonceMismatch)
        #expect(code { try verify(m.token(claims(profile: line)), profile: line) } == nil)
        #expect(code { try verify(m.token(claims(["sub": .string("")]))) } == .subjectMissing)
        #expect(code { try verify(m.token(claims(["sub": nil]))) } == .subjectMissing)
        // Two `sub` members: the strict reader refuses the claims.
        let duplicate = Array(#"{"iss":"https://appleid.apple.com","sub":"a","sub":"b"}"#.utf8)
        #expect(code { try verify(m.token(duplicate)) } == .malformed)
    }

    @Test("nbf: in the future beyond the skew is idtoken_not_yet_valid, checked after exp and before iat; within the skew passes")
    func notBefore() {
        let m = Minter.shared
        let t = Self.now.timeIntervalSince1970
        #expect(code { try verify(m.token(claims(["nbf": .number(t + 61)]))) } == .notYetValid)
        #expect(code { try verify(m.token(claims(["nbf": .number(t + 59)]))) } == nil)  // within the skew
        #expect(code { try verify(m.token(claims(["nbf": .number(t - 5)]))) } == nil)
        var strict = Self.apple
        strict.clockSkew = 0
        #expect(code { try verify(m.token(claims(["nbf": .number(t + 1)])), profile: strict) } == .notYetValid)
        #expect(code { try verify(m.token(claims(["nbf": .number(t)])), profile: strict) } == nil)
        // Order: an expired token is expired whatever its nbf; a future nbf is reported before a bad iat.
        #expect(code { try verify(m.token(claims(["nbf": .number(t + 600), "exp": .number(t - 600)]))) } == .expired)
        #expect(code { try verify(m.token(claims(["nbf": .number(t + 600), "iat": .number(t + 600)]))) } == .notYetValid)
    }

    @Test("NumericDate claims (exp, nbf, iat, auth_time) are JSON numbers: a string of digits, a bool, null are idtoken_malformed")
    func numericDates() {
        let m = Minter.shared
        let t = Self.now.timeIntervalSince1970
        let digits = JSONValue.string(String(Int(t)))
        for name in ["exp", "nbf", "iat", "auth_time"] {
            for value: JSONValue in [digits, .bool(true), .null, .number(-1), .number(1e12)] {
                #expect(code { try verify(m.token(claims([name: value]))) } == .malformed, "\(name) = \(value)")
            }
        }
        #expect(code { try verify(m.token(claims(["auth_time": .number(t - 30)]))) } == nil)
        #expect(code { try verify(m.token(claims(["nbf": .number(t - 30), "auth_time": .number(t - 30)]))) } == nil)
    }

    @Test("Google's two issuer spellings are one issuer: the identity carries the canonical one whichever the token used")
    func canonicalIssuer() throws {
        let google = ProviderProfile.google(clientIDs: ["1234.apps.googleusercontent.com"])
        #expect(google.canonicalIssuer == "https://accounts.google.com")
        #expect(Self.apple.canonicalIssuer == "https://appleid.apple.com")
        for spelling in ["https://accounts.google.com", "accounts.google.com"] {
            let identity = try verify(Minter.shared.token(claims(["iss": .string(spelling)], profile: google)), profile: google)
            #expect(identity.issuer == "https://accounts.google.com" && identity.subject == "001234.abcdef.0001", "\(spelling)")
        }
        #expect(code { try verify(Minter.shared.token(claims(["iss": .string("http://accounts.google.com")], profile: google)), profile: google) }
            == .issuerMismatch)
    }

    @Test("session checks: none, expired, begun for another provider")
    func sessionChecks() {
        #expect(throws: IdentityError(.sessionUnknown, "")) { try IDTokenSignIn.checkSession(nil, provider: "apple", now: Self.now) }
        let expired = PendingIDTokenSession(id: [1], provider: "apple", nonce: "n", expiresAt: Self.now)
        #expect(throws: IdentityError(.sessionUnknown, "")) { try IDTokenSignIn.checkSession(expired, provider: "apple", now: Self.now) }
        #expect(throws: IdentityError(.providerMismatch, "")) {
            try IDTokenSignIn.checkSession(Self.session(), provider: "line", now: Self.now)
        }
        #expect(throws: Never.self) { try IDTokenSignIn.checkSession(Self.session(), provider: "apple", now: Self.now) }
    }

    @Test("begin: 128-bit session id, 256-bit nonce, provider nonce per rule; state round-trips")
    func begin() throws {
        let result = IDTokenSignIn.begin(profile: Self.apple, timeout: 300, now: Self.now)
        #expect(result.session.id.count == 16 && Base64URL.decodeStrict(result.session.nonce)?.count == 32)
        #expect(result.providerNonce.count == 64 && result.providerNonce == Digest.sha256(Array(result.session.nonce.utf8)).map {
            ($0 < 16 ? "0" : "") + String($0, radix: 16)
        }.joined())
        #expect(IDTokenSignIn.begin(profile: .line(channelIDs: ["1"]), timeout: 300, now: Self.now).providerNonce.count == 43)
        let state = result.session.encodedState
        #expect(PendingIDTokenSession(id: result.session.id, encodedState: state, expiresAt: result.session.expiresAt) == result.session)
        #expect(PendingIDTokenSession(id: [1], encodedState: Array("apple".utf8), expiresAt: Self.now) == nil)
        let second = IDTokenSignIn.begin(profile: Self.apple, timeout: 300, now: Self.now)
        #expect(second.session.id != result.session.id && second.session.nonce != result.session.nonce)
    }
}
