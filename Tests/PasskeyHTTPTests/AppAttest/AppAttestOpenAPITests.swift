import COSECrypto
import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import PasskeyHTTP
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// Real App Attest replies (successes and refusals) validate against openapi.json.
@Suite("OpenAPI document: App Attest")
struct AppAttestOpenAPITests {
    @Test("challenge, attestation, assertion and their refusals validate against the document")
    func conformance() async throws {
        let check = Conformance(document: try OpenAPIDocument.load())
        let harness = try await OpenAPIHarness()
        let device = OpenAPIHarness.appAttestDevice
        let appID = OpenAPIHarness.appAttestAppID
        try await harness.app.test(.router) { client in
            func post(_ uri: String, _ body: [String: String]) async throws -> ObservedReply {
                let reply = try await client.observe(
                    .post, uri, body: Array(try JSONEncoder().encode(body)), headers: OpenAPITests.bearerAPI)
                check.check(reply)
                return reply
            }
            func challenge() async throws -> String {
                let reply = try await client.observe(.post, "/v1/appattest/challenge", body: Array("{}".utf8), headers: OpenAPITests.bearerAPI)
                check.check(reply)
                #expect(reply.status == 200)
                return try #require(reply.json?["challenge"]?.stringValue)
            }
            let key = try SoftAppAttest.Key()
            let keyID = Data(key.keyID).base64EncodedString()
            let text = try await challenge()
            let object = try device.attest(key, appID: appID, clientDataHash: Digest.sha256(try #require(Base64URL.decode(text))), now: Date())
            let body = ["keyId": keyID, "attestationObject": Data(object).base64EncodedString(), "challenge": text]
            #expect(try await post("/v1/appattest/attestations", body).status == 201)
            #expect(try await post("/v1/appattest/attestations", body).status == 400, "the challenge is used")
            let userChallenge = try await challenge()
            let userKey = try SoftAppAttest.Key()
            let userBody = [
                "keyId": Data(userKey.keyID).base64EncodedString(), "challenge": userChallenge,
                "attestationObject": Data(try device.attest(
                    userKey, appID: appID, clientDataHash: Digest.sha256(try #require(Base64URL.decode(userChallenge))), now: Date()))
                    .base64EncodedString(),
                "userId": Base64URL.encode(SecureRandom.bytes(count: 32)),
            ]
            #expect(try await post("/v1/appattest/attestations", userBody).status == 404)
            var again = body
            let second = try await challenge()
            again["challenge"] = second
            again["attestationObject"] = Data(try device.attest(
                key, appID: appID, clientDataHash: Digest.sha256(try #require(Base64URL.decode(second))), now: Date())).base64EncodedString()
            #expect(try await post("/v1/appattest/attestations", again).status == 409)
            var bad = SoftAppAttest.Options()
            bad.counter = 2
            let third = try await challenge()
            let other = try SoftAppAttest.Key()
            #expect(try await post("/v1/appattest/attestations", [
                "keyId": Data(other.keyID).base64EncodedString(), "challenge": third,
                "attestationObject": Data(try device.attest(
                    other, appID: appID, clientDataHash: Digest.sha256(try #require(Base64URL.decode(third))), now: Date(), options: bad))
                    .base64EncodedString(),
            ]).status == 422)
            #expect(try await post("/v1/appattest/attestations", ["keyId": "x"]).status == 400)

            func assert(_ counter: UInt32, signer: SoftAppAttest.Key? = nil, keyID id: String = keyID) async throws -> ObservedReply {
                let data = Array(#"{"challenge":"\#(try await challenge())"}"#.utf8)
                let assertion = try device.assert(signer ?? key, appID: appID, clientData: data, counter: counter)
                return try await post("/v1/appattest/assertions", [
                    "keyId": id, "assertion": Data(assertion).base64EncodedString(), "clientData": Base64URL.encode(data),
                ])
            }
            #expect(try await assert(1).status == 200)
            #expect(try await assert(1).status == 422)
            #expect(try await assert(2, keyID: Data(other.keyID).base64EncodedString()).status == 404)
            #expect(try await post("/v1/appattest/assertions", [
                "keyId": keyID, "assertion": "oA", "clientData": Base64URL.encode(Array("{}".utf8)),
            ]).status == 400)
            #expect(try await client.observe(.post, "/v1/appattest/challenge", body: Array("{}".utf8)).status == 401)
        }
    }
}
