import AsyncHTTPClient
import COSECrypto
import Foundation
import IdentityCore
import IdentityTestSupport
import JOSE
import NIOCore
import NIOHTTP1
import ProviderKeys
import Testing
import WebAuthnModel

@Suite("TestIdentityProvider and TestProviderServer")
struct TestIdentityProviderTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func parse(_ token: String) throws -> CompactJWS { try CompactJWS(compact: Array(token.utf8), maxLength: 16_384) }

    func claims(_ jws: CompactJWS) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONReader.parse(jws.payload) else { throw JOSEError(.malformed, "claims") }
        return members
    }

    @Test("tokens of every key verify with JOSE against the provider's JWKS", arguments: ["es-1", "rs-1"])
    func tokensVerify(keyID: String) throws {
        let provider = try makeProvider()
        var options = TestIdentityProvider.TokenOptions()
        options.keyID = keyID
        let jws = try parse(try provider.idToken(nonce: "abc", now: Self.now, options: options))
        let algorithm = try JWSVerifier.allowedAlgorithm(of: jws, allowed: [.es256, .rs256])
        #expect(jws.keyID == keyID && jws.type == "JWT")
        try JWSVerifier.verify(jws, algorithm: algorithm, key: .publicKey(try provider.jwkSet().key(keyID: keyID, algorithm: algorithm)))
        let members = try claims(jws)
        #expect(members["iss"] == .string(provider.issuer) && members["aud"] == .string(provider.audience))
        #expect(members["nonce"] == .string("abc") && members["sub"] != nil && members["email"] != nil)
        #expect(members["iat"] == .number(1_800_000_000) && members["exp"] == .number(1_800_000_300))
    }

    @Test("claims can be added, replaced and removed; header alg, kid and extra members overridden")
    func overrides() throws {
        let provider = try makeProvider()
        var options = TestIdentityProvider.TokenOptions()
        options.claims = ["aud": .array([.string("a"), .string("b")]), "azp": .string("a"), "is_private_email": .string("true")]
        options.removedClaims = ["nonce", "email"]
        options.headerKeyID = .some("someone-else")
        options.headerAlgorithm = "ES512"
        options.extraHeader = ["jku": .string("https://evil.example/jwks")]
        let jws = try parse(try provider.idToken(nonce: "abc", now: Self.now, options: options))
        let members = try claims(jws)
        #expect(members["aud"] == .array([.string("a"), .string("b")]) && members["azp"] == .string("a"))
        #expect(members["nonce"] == nil && members["email"] == nil && members["sub"] != nil)
        #expect(jws.keyID == "someone-else" && jws.algorithmName == "ES512" && jws.header["jku"] != nil)

        options = TestIdentityProvider.TokenOptions()
        options.headerKeyID = .some(nil)
        options.headerType = nil
        #expect(try parse(try provider.idToken(nonce: nil, options: options)).keyID == nil)

        options = TestIdentityProvider.TokenOptions()
        options.extraHeader = ["crit": .array([.string("exp")])]
        #expect(throws: JOSEError(.criticalHeader, "")) { try parse(try provider.idToken(nonce: "n", options: options)) }
    }

    @Test("a corrupted signature, HS256 with a secret and alg none behave as they should")
    func signatures() throws {
        let provider = try makeProvider()
        let keys = try provider.jwkSet()
        var options = TestIdentityProvider.TokenOptions()
        options.corruptSignature = true
        let corrupted = try parse(try provider.idToken(nonce: "n", options: options))
        #expect(throws: JOSEError(.signatureInvalid, "")) {
            try JWSVerifier.verify(corrupted, algorithm: .rs256, key: .publicKey(try keys.key(keyID: "rs-1", algorithm: .rs256)))
        }

        let secret = Array("line-channel-secret".utf8)
        options = TestIdentityProvider.TokenOptions()
        options.signing = .hmac(secret: secret)
        let hmac = try parse(try provider.idToken(nonce: "n", options: options))
        #expect(hmac.algorithmName == "HS256" && hmac.keyID == nil)
        try JWSVerifier.verify(hmac, algorithm: .hs256, key: .sharedSecret(secret))
        #expect(throws: JOSEError(.signatureInvalid, "")) {
            try JWSVerifier.verify(hmac, algorithm: .hs256, key: .sharedSecret(Array("other".utf8)))
        }

        options = TestIdentityProvider.TokenOptions()
        options.signing = .empty
        let unsigned = try parse(try provider.idToken(nonce: "n", options: options))
        #expect(unsigned.algorithmName == "none" && unsigned.signature.isEmpty)
        #expect(throws: JOSEError(.algorithmNotAllowed, "")) { try JWSVerifier.allowedAlgorithm(of: unsigned, allowed: Set(JWSAlgorithm.allCases)) }
    }

    @Test("rotation: a new key becomes current and is published; a dropped key is unpublished")
    func rotation() throws {
        let provider = try TestIdentityProvider()
        #expect(provider.signingKeys.map(\.keyID) == ["es-1", "rs-1"])
        try provider.addKey(.es256, keyID: "es-2")
        #expect(try parse(try provider.idToken(nonce: "n")).keyID == "es-2")
        provider.removeKey(keyID: "rs-1")
        let set = try provider.jwkSet()
        #expect(set.keys.map(\.keyID) == ["es-1", "es-2"])
        var options = TestIdentityProvider.TokenOptions()
        options.keyID = "rs-1"
        #expect(throws: JOSEError(.keyUnknown, "")) { try provider.idToken(nonce: "n", options: options) }
    }

    @Test("end to end: a token fetched-key verified by IdentityCore through a RemoteKeySource")
    func endToEnd() async throws {
        try await withProviderServer { server, provider in
            let source = try RemoteKeySource(url: server.jwksURL, httpClient: .shared, logger: quietLogger)
            let profile = ProviderProfile.apple(audiences: [provider.audience]).with(issuers: [provider.issuer])
            let begin = IDTokenSignIn.begin(profile: profile, timeout: 300, now: Date())
            var options = TestIdentityProvider.TokenOptions()
            options.keyID = "rs-1"
            let token = try UnverifiedIDToken(
                Array(try provider.idToken(nonce: begin.providerNonce, options: options).utf8), profile: profile)
            let identity = try IDTokenSignIn.verify(
                token, session: begin.session, profile: profile, keys: try await source.keys(for: token.keyID), now: Date())
            #expect(identity.subject == "000123.test-subject" && identity.email == "user@example.com")
        }
    }

    @Test("discovery document, and the Apple token and revoke stubs record forms and answer canned JSON")
    func appleStubs() async throws {
        try await withProviderServer { server, _ in
            server.update { $0.tokenResponse = .init(status: 400, json: .object(["error": .string("invalid_grant")])) }
            let form = ["client_id": "com.example.app", "client_secret": "a.b.c", "code": "c0de+/=", "grant_type": "authorization_code"]
            let (status, body) = try await post(server.baseURL + "/auth/token", form: form)
            #expect(status == 400 && body == #"{"error":"invalid_grant"}"#)
            let revoke = try await post(server.baseURL + "/auth/revoke", form: ["token": "t ok", "token_type_hint": "refresh_token"])
            #expect(revoke.0 == 200 && revoke.1.isEmpty)
            let record = server.record
            #expect(record.tokenRequests.map(\.fields) == [form])
            #expect(record.tokenRequests.first?.contentType == "application/x-www-form-urlencoded")
            #expect(record.revokeRequests.first?.fields["token"] == "t ok")
            #expect(FormFields.decode("a=1&b=x+y%21&c&a=2") == ["a": "2", "b": "x y!", "c": ""])
        }
    }

    func post(_ url: String, form: [String: String]) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormFields.encode(form)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 65_536)
        return (Int(response.status.code), String(buffer: body))
    }
}

extension ProviderProfile {
    func with(issuers: [String]) -> ProviderProfile {
        var copy = self
        copy.issuers = issuers
        return copy
    }
}
