import Foundation
import Hummingbird
import HummingbirdTesting
import LibPQ
import Logging
import PasskeyHTTP
import PasskeyStore
import PostgresTestSupport
import Testing
import WebAuthnCore
import WebAuthnModel
import WebAuthnTestSupport

/// The audit trail on PostgreSQL: every change to users and credentials leaves exactly one event, written by the
/// statement that made the change, with who asked (a key fingerprint, never the key), the request id and the
/// client address; the admin API pages through it; the same events are log lines; the table refuses changes.
@Suite("Audit trail", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct AuditTrailTests {
    static let apiKey = "audit-api-key-0123456789"
    static let api: HTTPFields = [.authorization: "Bearer \(apiKey)"]

    struct Event: Equatable {
        let event: String
        let userId: String?
        let credentialId: String?
    }

    static func events(_ client: some TestClientProtocol, _ query: String = "") async throws -> (events: [[String: Any]], next: String?) {
        let reply = try await client.get("/v1/admin/audit-events\(query)", headers: PostgresHTTP.adminAuth)
        #expect(reply.status == 200, "\(query): \(reply.status) \(reply.errorCode ?? "-")")
        return (reply.json["events"] as? [[String: Any]] ?? [], reply.json["next"] as? String)
    }

    static func simple(_ events: [[String: Any]]) -> [Event] {
        events.map { Event(event: $0["event"] as? String ?? "?", userId: $0["userId"] as? String, credentialId: $0["credentialId"] as? String) }
    }

    @Test("registered, added, renamed, deleted; a user deleted with its passkeys: one event each, in order, paged by user and time")
    func trail() async throws {
        let schema = try await HTTPTestSchema.create(baseURL: try #require(PostgresHTTP.databaseURL))
        let logs = LogCapture()
        let instance = try await PostgresHTTPInstance(
            url: schema.url,
            settings: try TestPasskeyd.unboundedSettings(["PASSKEYD_API_KEYS": Self.apiKey, "PASSKEYD_ADMIN_KEYS": PostgresHTTP.adminKey]),
            logger: logs.logger())
        defer { Task { await instance.shutdown(); await schema.drop() } }
        let start = Date().addingTimeInterval(-1)
        try await instance.app.test(.router) { client in
            func post(_ path: String, _ body: some Encodable) async throws -> Reply {
                try await client.post(path, json: body, headers: Self.api)
            }
            // Sign up alice (user.created + credential.registered), then a second passkey by id.
            let options = try JSONDecoder().decode(
                PublicKeyWrapper<CreationOptionsJSON>.self,
                from: Data(try await post("/v1/registration/begin", BeginRegistration(user: .init(name: "alice"))).body)).publicKey
            let (response, alice) = try SoftAuthenticator.register(options: options, knobs: RegistrationKnobs(origin: Harness.origin))
            #expect(try await post("/v1/registration/finish", FinishRegistration(credential: response, nickname: nil)).status == 201)
            let aliceID = Base64URL.encode(alice.userHandle)
            let second = try JSONDecoder().decode(
                PublicKeyWrapper<CreationOptionsJSON>.self,
                from: Data(try await post("/v1/registration/begin", BeginRegistration(user: .init(id: aliceID))).body)).publicKey
            let (secondResponse, phone) = try SoftAuthenticator.register(options: second, knobs: RegistrationKnobs(origin: Harness.origin))
            #expect(try await post("/v1/registration/finish", FinishRegistration(credential: secondResponse, nickname: nil)).status == 201)

            // Refused changes leave no event: a taken name, an unknown credential.
            #expect(try await post("/v1/registration/begin", BeginRegistration(user: .init(name: "alice"))).status == 409)
            #expect(try await client.send(.delete, "/v1/admin/credentials/AAAAAAAAAAAAAAAAAAAAAA", headers: PostgresHTTP.adminAuth).status == 404)

            let laptopID = Base64URL.encode(alice.id), phoneID = Base64URL.encode(phone.id)
            #expect(try await client.send(.patch, "/v1/admin/credentials/\(laptopID)", Array(#"{"nickname":"laptop"}"#.utf8), headers: PostgresHTTP.adminAuth).status == 200)
            #expect(try await client.send(.delete, "/v1/admin/credentials/\(phoneID)", headers: PostgresHTTP.adminAuth).status == 204)
            // Bob, deleted with his passkey: credential.deleted for it, then user.deleted.
            let bobOptions = try JSONDecoder().decode(
                PublicKeyWrapper<CreationOptionsJSON>.self,
                from: Data(try await post("/v1/registration/begin", BeginRegistration(user: .init(name: "bob"))).body)).publicKey
            let (bobResponse, bob) = try SoftAuthenticator.register(options: bobOptions, knobs: RegistrationKnobs(origin: Harness.origin))
            #expect(try await post("/v1/registration/finish", FinishRegistration(credential: bobResponse, nickname: nil)).status == 201)
            let bobID = Base64URL.encode(bob.userHandle)
            #expect(try await client.send(.delete, "/v1/admin/users/\(bobID)", headers: PostgresHTTP.adminAuth).status == 204)

            let all = try await Self.events(client)
            #expect(Self.simple(all.events) == [
                Event(event: "user.created", userId: aliceID, credentialId: nil),
                Event(event: "credential.registered", userId: aliceID, credentialId: laptopID),
                Event(event: "credential.registered", userId: aliceID, credentialId: phoneID),
                Event(event: "credential.renamed", userId: aliceID, credentialId: laptopID),
                Event(event: "credential.deleted", userId: aliceID, credentialId: phoneID),
                Event(event: "user.created", userId: bobID, credentialId: nil),
                Event(event: "credential.registered", userId: bobID, credentialId: Base64URL.encode(bob.id)),
                Event(event: "credential.deleted", userId: bobID, credentialId: Base64URL.encode(bob.id)),
                Event(event: "user.deleted", userId: bobID, credentialId: nil),
            ])
            #expect(all.next == nil)

            // Who: the keys' fingerprints, never the keys; a request id and the client address on every event.
            let apiActor = all.events[0]["actor"] as? String, adminActor = all.events[3]["actor"] as? String
            #expect(apiActor?.hasPrefix("api:") == true && apiActor?.count == 20)
            #expect(adminActor?.hasPrefix("admin:") == true && adminActor != apiActor)
            let everything = String(decoding: try JSONSerialization.data(withJSONObject: all.events), as: UTF8.self)
            #expect(!everything.contains(Self.apiKey) && !everything.contains(PostgresHTTP.adminKey))
            #expect(all.events.allSatisfy { ($0["requestId"] as? String)?.isEmpty == false && $0["clientAddress"] is String })
            #expect(Set(all.events.prefix(2).compactMap { $0["requestId"] as? String }).count == 1, "one request, two events")

            // Paging: by user, two at a time, then by time.
            let first = try await Self.events(client, "?user=\(aliceID)&limit=2")
            #expect(first.events.count == 2 && first.next != nil)
            let rest = try await Self.events(client, "?user=\(aliceID)&limit=2&after=\(first.next ?? "")")
            let last = try await Self.events(client, "?user=\(aliceID)&limit=2&after=\(rest.next ?? "")")
            #expect(Self.simple(first.events + rest.events + last.events) == Array(Self.simple(all.events).prefix(5)))
            #expect(last.next == nil)
            let formatter = ISO8601DateFormatter()
            let since = formatter.string(from: start), future = formatter.string(from: Date().addingTimeInterval(3600))
            #expect(try await Self.events(client, "?since=\(since)&until=\(future)").events.count == 9)
            #expect(try await Self.events(client, "?since=\(future)").events.isEmpty)
            for bad in ["?limit=0", "?limit=201", "?user=***", "?since=yesterday", "?after=-1"] {
                let reply = try await client.get("/v1/admin/audit-events\(bad)", headers: PostgresHTTP.adminAuth)
                #expect(reply.status == 400 && reply.errorCode == "invalid_parameter", "\(bad)")
            }
            #expect(try await client.get("/v1/admin/audit-events", headers: Self.api).status == 401, "an API key is not an admin key")
        }

        // The same events as log lines.
        let lines = logs.all.filter { $0.message == "audit" }.map { $0.metadata["event"] ?? "?" }
        #expect(lines == ["user.created", "credential.registered", "credential.registered", "credential.renamed", "credential.deleted",
                          "user.created", "credential.registered", "credential.deleted", "user.deleted"])

        // Append-only: the table refuses updates, deletes and truncation.
        for statement in ["UPDATE audit_events SET actor = 'x'", "DELETE FROM audit_events", "TRUNCATE audit_events"] {
            await #expect(throws: PGError.self, "\(statement)") { _ = try await schema.query(PGQuery(unsafeSQL: statement)) }
        }
        #expect(try await schema.count("audit_events") == 9)
    }
}
