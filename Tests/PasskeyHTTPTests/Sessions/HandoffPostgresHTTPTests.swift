import PasskeyApp
import Foundation
import Hummingbird
import HummingbirdTesting
import SessionCore
import PostgresTestSupport
import Testing
import WebAuthnTestSupport

/// The handoff exchange's PKCE rules over HTTP on the real PostgreSQL: a verifier sent for a code issued without a
/// challenge is a downgrade (RFC 9700 §2.1.1) and is refused; a code bound to a challenge needs its verifier. Either
/// refusal uses the code up and starts no session.
@Suite("Handoff PKCE on PostgreSQL", .serialized, .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct HandoffPostgresHTTPTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    static func exchange(_ client: some TestClientProtocol, _ members: [String: Any]) async throws -> Reply {
        try await client.post("/v1/handoff/exchange", try UpgradeHTTPTests.bytes(members))
    }

    @Test("both orders: an unbound code with a verifier is handoff_verifier_unexpected, a bound one without is handoff_verifier_required; each is used up")
    func downgrade() async throws {
        try await UpgradeHTTPTests.withInstance(clock: UpgradeHTTPTests.clock()) { schema, instance, _ in
            try await instance.app.test(.router) { client in
                let (_, _, token) = try await UpgradeHTTPTests.signUpAndIn(client, name: "hana")
                func code(challenge: String?) async throws -> String {
                    let body: [String: Any] = challenge.map { ["codeChallenge": $0, "codeChallengeMethod": "S256"] } ?? [:]
                    let reply = try await client.post("/v1/handoff", try UpgradeHTTPTests.bytes(body), headers: UpgradeHTTPTests.bearer(token))
                    try #require(reply.status == 201, "\(reply.status) \(reply.errorCode ?? "-")")
                    return try #require(reply.json["code"] as? String)
                }
                let sessions = try await schema.count("sessions")

                // Issued without a challenge, exchanged with a verifier (well-formed, or not): refused, and used up.
                for sent in [Self.verifier, "short"] {
                    let unbound = try await code(challenge: nil)
                    let downgraded = try await Self.exchange(client, ["code": unbound, "codeVerifier": sent])
                    #expect(downgraded.status == 400 && downgraded.errorCode == "handoff_verifier_unexpected", "\(downgraded.status) \(downgraded.errorCode ?? "-")")
                    let after = try await Self.exchange(client, ["code": unbound])
                    #expect(after.status == 400 && after.errorCode == "handoff_code_unknown")
                }
                // Issued with a challenge, exchanged without the verifier: refused, and used up.
                let bound = try await code(challenge: PKCE.challenge(for: Self.verifier))
                let missing = try await Self.exchange(client, ["code": bound])
                #expect(missing.status == 400 && missing.errorCode == "handoff_verifier_required")
                let late = try await Self.exchange(client, ["code": bound, "codeVerifier": Self.verifier])
                #expect(late.status == 400 && late.errorCode == "handoff_code_unknown")
                #expect(try await schema.count("sessions") == sessions, "no refused exchange started a session")
                #expect(try await schema.count("handoff_codes") == 0, "every refused code is gone")

                // The two that match still work: unbound without a verifier, bound with its verifier.
                #expect(try await Self.exchange(client, ["code": try await code(challenge: nil)]).status == 200)
                let right = try await Self.exchange(
                    client, ["code": try await code(challenge: PKCE.challenge(for: Self.verifier)), "codeVerifier": Self.verifier])
                #expect(right.status == 200)
                #expect(try await schema.count("sessions") == sessions + 2)
            }
        }
    }
}
