import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyStore
import Testing
import WebAuthnModel
import WebAuthnTestSupport

/// The admin API on the in-memory store (the PostgreSQL suite runs the same flows against a real database).
@Suite("Admin API")
struct AdminAPITests {
    static let key = "admin-s3cret"
    static let auth: HTTPFields = [.authorization: "Bearer \(key)"]

    @Test("without an admin key configured the admin API does not exist")
    func disabled() async throws {
        let harness = try await Harness()
        try await harness.app.test(.router) { client in
            let reply = try await client.send(.get, "/v1/admin/users", headers: Self.auth)
            #expect(reply.status == 404 && reply.errorCode == "route_unknown", "no such route")
        }
    }

    @Test("a missing or wrong admin key is 401; an API key is not an admin key")
    func keys() async throws {
        let harness = try await Harness(apiKeys: ["api-key"], adminKeys: [Self.key])
        try await harness.app.test(.router) { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer api-key"], [.authorization: "Bearer \(Self.key)x"],
                [.authorization: Self.key]]
            {
                let reply = try await client.send(.get, "/v1/admin/users", headers: headers)
                #expect(reply.status == 401 && reply.errorCode == "unauthorized")
            }
            #expect(try await client.send(.get, "/v1/admin/users", headers: Self.auth).status == 200)
            // And the admin key does not open the ceremony endpoints.
            let begin = try await client.post("/v1/authentication/begin", Array("{}".utf8), headers: Self.auth)
            #expect(begin.status == 401)
        }
    }

    @Test("users are listed by name, filtered by a substring, in pages that chain with their cursor")
    func listUsers() async throws {
        let harness = try await Harness(adminKeys: [Self.key])
        try await harness.app.test(.router) { client in
            let names = ["alice", "alicia", "bob", "carol", "malice", "zed"]
            for name in names.shuffled() { #expect(try await Flow.register(client, name: name).reply.status == 201) }

            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let path = "/v1/admin/users?limit=4" + (cursor.map { "&after=\($0)" } ?? "")
                let reply = try await client.send(.get, path, headers: Self.auth)
                #expect(reply.status == 200)
                let users = reply.json["users"] as? [[String: Any]] ?? []
                #expect(users.count <= 4)
                seen += users.compactMap { $0["name"] as? String }
                #expect(users.allSatisfy { $0["id"] is String && $0["createdAt"] is String && $0["displayName"] is String })
                cursor = reply.json["next"] as? String
                #expect(reply.json.keys.contains("next"), "next is present, null on the last page")
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen == names, "every user exactly once, in name order")
            #expect(pages == 2)

            let filtered = try await client.send(.get, "/v1/admin/users?name=lic", headers: Self.auth)
            #expect((filtered.json["users"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["alice", "alicia", "malice"])
            let none = try await client.send(.get, "/v1/admin/users?name=nobody", headers: Self.auth)
            #expect((none.json["users"] as? [Any])?.isEmpty == true)
            #expect(none.json["next"] is NSNull)

            for bad in ["limit=0", "limit=201", "limit=x", "after=%%%", "after=a"] {
                let reply = try await client.send(.get, "/v1/admin/users?\(bad)", headers: Self.auth)
                #expect(reply.status == 400 && reply.errorCode == "invalid_parameter", "\(bad)")
            }
            // The cursor is opaque: any base64url value is a position, also bytes that are not text (0xFF, U+0000).
            for cursor in ["_w", "AA", Base64URL.encode(Array("alicia".utf8))] {
                let reply = try await client.send(.get, "/v1/admin/users?after=\(cursor)", headers: Self.auth)
                #expect(reply.status == 200, "after=\(cursor)")
            }
        }
    }

    @Test("a user's credentials, one credential, rename, delete credential, then delete user")
    func manageCredentials() async throws {
        let harness = try await Harness(adminKeys: [Self.key])
        try await harness.app.test(.router) { client in
            var (_, first) = try await Flow.register(client, name: "dana")
            let (_, second) = try await Flow.register(client, userHandle: first.userHandle)
            let (_, other) = try await Flow.register(client, name: "eve")
            let userID = Base64URL.encode(first.userHandle)
            let firstID = Base64URL.encode(first.id)

            let user = try await client.send(.get, "/v1/admin/users/\(userID)", headers: Self.auth)
            #expect(user.status == 200)
            #expect((user.json["user"] as? [String: Any])?["name"] as? String == "dana")
            let listed = (user.json["credentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(listed) == [firstID, Base64URL.encode(second.id)])

            let credentials = try await client.send(.get, "/v1/admin/users/\(userID)/credentials", headers: Self.auth)
            #expect((credentials.json["credentials"] as? [Any])?.count == 2)

            // Sign in once so lastUsedAt and the counter move.
            let signIn = try await Flow.assertion(client, name: "dana", credential: &first)
            #expect(try await client.post("/v1/authentication/finish", json: signIn).status == 200)

            let one = try await client.send(.get, "/v1/admin/credentials/\(firstID)", headers: Self.auth)
            #expect(one.status == 200)
            let credential = one.json["credential"] as? [String: Any] ?? [:]
            #expect(credential["userId"] as? String == userID)
            #expect(credential["attestationFormat"] as? String == "none")
            #expect(credential["aaguid"] as? String != nil)
            #expect(credential["lastUsedAt"] is String, "the sign-in was recorded")
            #expect((credential["signCount"] as? Int ?? 0) > 0)
            #expect(credential["backupEligible"] is Bool && credential["backedUp"] is Bool && credential["transports"] is [Any])
            #expect((one.json["user"] as? [String: Any])?["id"] as? String == userID)

            let renamed = try await client.send(.patch, "/v1/admin/credentials/\(firstID)", Array(#"{"nickname":"laptop"}"#.utf8), headers: Self.auth)
            #expect(renamed.status == 200)
            #expect((renamed.json["credential"] as? [String: Any])?["nickname"] as? String == "laptop")
            #expect(try await harness.store.credential(id: first.id)?.nickname == "laptop")
            let cleared = try await client.send(.patch, "/v1/admin/credentials/\(firstID)", Array(#"{"nickname":null}"#.utf8), headers: Self.auth)
            #expect((cleared.json["credential"] as? [String: Any])?["nickname"] is NSNull)
            for bad in [#"{"nickname":5}"#, #"{}"#, #"{"nickname":"x","extra":1}"#, "nope", #"{"nickname":"\#(String(repeating: "n", count: 257))"}"#] {
                let reply = try await client.send(.patch, "/v1/admin/credentials/\(firstID)", Array(bad.utf8), headers: Self.auth)
                #expect(reply.status == 400 && reply.errorCode == "malformed_json", "\(bad.prefix(40)) → \(reply.errorCode ?? "-")")
            }
            #expect(try await harness.store.credential(id: first.id)?.nickname == nil, "bad bodies changed nothing")

            // Delete the first credential: it no longer signs in, the second still does.
            #expect(try await client.send(.delete, "/v1/admin/credentials/\(firstID)", headers: Self.auth).status == 204)
            let again = try await client.send(.delete, "/v1/admin/credentials/\(firstID)", headers: Self.auth)
            #expect(again.status == 404 && again.errorCode == "credential_unknown")
            let refused = try await Flow.assertion(client, name: nil, credential: &first)
            let reply = try await client.post("/v1/authentication/finish", json: refused)
            #expect(reply.status == 404 && reply.errorCode == "credential_unknown")

            // Delete the user: their credentials go with them; other users are untouched.
            #expect(try await client.send(.delete, "/v1/admin/users/\(userID)", headers: Self.auth).status == 204)
            #expect(try await harness.store.credential(id: second.id) == nil)
            #expect(try await harness.store.user(named: "dana") == nil)
            #expect(try await harness.store.credential(id: other.id) != nil)
            let gone = try await client.send(.get, "/v1/admin/users/\(userID)", headers: Self.auth)
            #expect(gone.status == 404 && gone.errorCode == "user_unknown")
            #expect(try await client.send(.delete, "/v1/admin/users/\(userID)", headers: Self.auth).status == 404)
        }
    }

    @Test("unknown and malformed ids")
    func ids() async throws {
        let harness = try await Harness(adminKeys: [Self.key])
        try await harness.app.test(.router) { client in
            let unknown = Base64URL.encode(Array(repeating: 7, count: 32))
            let cases: [(HTTPRequest.Method, String, Int, String)] = [
                (.get, "/v1/admin/users/\(unknown)", 404, "user_unknown"),
                (.get, "/v1/admin/users/\(unknown)/credentials", 404, "user_unknown"),
                (.get, "/v1/admin/credentials/\(unknown)", 404, "credential_unknown"),
                (.patch, "/v1/admin/credentials/\(unknown)", 404, "credential_unknown"),
                (.get, "/v1/admin/users/%25%25", 400, "invalid_parameter"),
                (.get, "/v1/admin/credentials/a*b", 400, "invalid_parameter"),
                (.delete, "/v1/admin/credentials/!!", 400, "invalid_parameter"),
            ]
            for (method, path, status, code) in cases {
                let body: [UInt8]? = method == .patch ? Array(#"{"nickname":"x"}"#.utf8) : nil
                let reply = try await client.send(method, path, body, headers: Self.auth)
                #expect(reply.status == status && reply.errorCode == code, "\(method) \(path) → \(reply.status) \(reply.errorCode ?? "-")")
            }
        }
    }
}
