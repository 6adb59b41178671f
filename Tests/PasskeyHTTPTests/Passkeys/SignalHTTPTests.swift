import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PasskeyHTTP
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// The Signal API's arguments on a real PostgreSQL (batched finishes, as the executable runs): a successful finish
/// carries `signal` with every credential of the user, a finish with an unknown credential carries
/// `signalUnknownCredential`'s arguments, and `GET /v1/users/{userId}/signals` answers the current state.
@Suite("Signal API hints", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct SignalHTTPTests {
    static let apiKey = String(repeating: "s", count: 32)
    static let api: HTTPFields = [.authorization: "Bearer \(apiKey)"]
    static let admin: HTTPFields = PostgresHTTP.adminAuth

    @Test("finish: signal with all the user's credentials; unknown credential: signalUnknownCredential's arguments; GET signals follows deletes")
    func signals() async throws {
        try await withPostgresHTTP(environment: ["PASSKEYD_API_KEYS": Self.apiKey, "PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey]) { schema, instance in
            try await instance.app.test(.router) { client in
                var (_, first) = try await Flow.register(client, name: "nora", apiKey: Self.apiKey)
                let begin = try await Flow.beginRegistration(client, user: .init(id: Base64URL.encode(first.userHandle)), apiKey: Self.apiKey)
                var knobs = RegistrationKnobs(origin: Harness.origin)
                knobs.credentialID = randomBytes(32)
                let (secondResponse, second) = try SoftAuthenticator.register(options: begin, knobs: knobs)
                let stored = try await client.post(
                    "/v1/registration/finish", json: FinishRegistration(credential: secondResponse, nickname: nil), headers: Self.api)
                #expect(stored.status == 201)
                let userId = Base64URL.encode(first.userHandle)
                let both = [Base64URL.encode(first.id), Base64URL.encode(second.id)]

                let signIn = try await Flow.assertion(client, name: nil, credential: &first, apiKey: Self.apiKey)
                let ok = try await client.post("/v1/authentication/finish", json: signIn, headers: Self.api)
                #expect(ok.status == 200)
                let signal = try #require(ok.json["signal"] as? [String: Any])
                #expect(signal["rpId"] as? String == "http.passkeyd.test" && signal["userId"] as? String == userId)
                #expect(signal["allAcceptedCredentialIds"] as? [String] == both, "oldest first")
                #expect(signal["name"] as? String == "nora" && signal["displayName"] as? String == "Nora")

                let current = try await client.send(.get, "/v1/users/\(userId)/signals", headers: Self.api)
                #expect(current.status == 200)
                #expect(NSDictionary(dictionary: current.json).isEqual(to: signal), "the route answers what finish carried")

                // The backend deletes the first passkey: the route lists only the second; signing in with the deleted
                // one is credential_unknown with signalUnknownCredential's arguments, and writes nothing.
                #expect(try await client.send(.delete, "/v1/admin/credentials/\(both[0])", headers: Self.admin).status == 204)
                let after = try await client.send(.get, "/v1/users/\(userId)/signals", headers: Self.api)
                #expect(after.json["allAcceptedCredentialIds"] as? [String] == [both[1]])
                let before = try await schema.snapshot()
                let stale = try await Flow.assertion(client, name: nil, credential: &first, apiKey: Self.apiKey)
                let refused = try await client.post("/v1/authentication/finish", json: stale, headers: Self.api)
                #expect(refused.status == 404 && refused.errorCode == "credential_unknown")
                let unknown = try #require(refused.json["signal"] as? [String: Any])
                #expect(unknown.count == 2 && unknown["rpId"] as? String == "http.passkeyd.test" && unknown["credentialId"] as? String == both[0])
                #expect(try await schema.snapshot() == before, "a refused finish writes no user or credential")

                // Other refusals carry no signal; the route needs the API key and a well-formed, known user id.
                let replay = try await client.post("/v1/authentication/finish", json: stale, headers: Self.api)
                #expect(replay.errorCode == "challenge_unknown_or_expired" && replay.json["signal"] == nil)
                #expect(try await client.send(.get, "/v1/users/\(userId)/signals").status == 401)
                let missing = try await client.send(.get, "/v1/users/\(Base64URL.encode(randomBytes(16)))/signals", headers: Self.api)
                #expect(missing.status == 404 && missing.errorCode == "user_unknown")
                let malformed = try await client.send(.get, "/v1/users/not+base64/signals", headers: Self.api)
                #expect(malformed.status == 400 && malformed.errorCode == "invalid_parameter")
            }
        }
    }
}

/// Stored text: names, display names and nicknames are at most 256 characters (Unicode scalars, as JSON Schema's
/// maxLength counts them) and never contain U+0000 (PostgreSQL's text cannot hold it): refused as malformed JSON,
/// with nothing written, instead of failing in the database.
@Suite("Stored text limits", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct StoredTextTests {
    @Test("U+0000 and more than 256 characters are 400 malformed_json; 256 four-byte characters are stored")
    func limits() async throws {
        try await withPostgresHTTP(environment: ["PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey, "PASSKEYD_FIDO_CONFORMANCE": "on"]) { schema, instance in
            try await instance.app.test(.router) { client in
                let before = try await schema.snapshot()
                for user in [#"{"name":"a\u0000b"}"#, #"{"name":"ok","displayName":"a\u0000"}"#, "{\"name\":\"\(String(repeating: "x", count: 257))\"}"] {
                    let reply = try await client.post("/v1/registration/begin", Array("{\"user\":\(user)}".utf8))
                    #expect(reply.status == 400 && reply.errorCode == "malformed_json", "\(user.prefix(40))")
                }
                let lookup = try await client.post("/v1/authentication/begin", Array(#"{"user":{"name":"a\u0000"}}"#.utf8))
                #expect(lookup.status == 400 && lookup.errorCode == "malformed_json")
                for body in [#"{"username":"a\u0000"}"#, #"{"username":"a","displayName":"\u0000"}"#] {
                    let reply = try await client.post("/attestation/options", Array(body.utf8))
                    #expect(reply.status == 400 && reply.errorCode == "malformed_json", "\(body)")
                }
                let assertion = try await client.post("/assertion/options", Array(#"{"username":"\u0000"}"#.utf8))
                #expect(assertion.status == 400 && assertion.errorCode == "malformed_json")
                #expect(try await schema.snapshot() == before, "nothing written")

                // 256 characters of four UTF-8 bytes each (1,024 bytes) are a valid name and nickname.
                let long = String(repeating: "🔑", count: 256)
                var (created, credential) = try await Flow.register(client, name: long)
                #expect(created.status == 201 && (created.json["user"] as? [String: Any])?["name"] as? String == long)
                let renamed = try await client.send(
                    .patch, "/v1/admin/credentials/\(Base64URL.encode(credential.id))", Array("{\"nickname\":\"\(long)\"}".utf8),
                    headers: PostgresHTTP.adminAuth)
                #expect(renamed.status == 200)
                let nul = try await client.send(
                    .patch, "/v1/admin/credentials/\(Base64URL.encode(credential.id))", Array(#"{"nickname":"\u0000"}"#.utf8),
                    headers: PostgresHTTP.adminAuth)
                #expect(nul.status == 400)
                let signIn = try await Flow.assertion(client, name: long, credential: &credential)
                #expect(try await client.post("/v1/authentication/finish", json: signIn).status == 200)
                let filter = try await client.send(.get, "/v1/admin/users?name=%00", headers: PostgresHTTP.adminAuth)
                #expect(filter.status == 400 && filter.errorCode == "invalid_parameter")
            }
        }
    }
}
