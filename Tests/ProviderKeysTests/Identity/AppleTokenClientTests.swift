import AsyncHTTPClient
import Foundation
import IdentityCore
import IdentityTestSupport
import ProviderKeys
import Testing
import WebAuthnModel

@Suite("Apple token client")
struct AppleTokenClientTests {
    static func client(_ server: TestProviderServer, timeout: TimeInterval = 5) throws -> AppleTokenClient {
        try AppleTokenClient(
            tokenURL: server.baseURL + "/auth/token", revokeURL: server.baseURL + "/auth/revoke", httpClient: .shared,
            timeout: timeout, logger: quietLogger)
    }

    @Test("exchange posts client_id, client_secret, code and grant_type as a form and returns the refresh token")
    func exchange() async throws {
        try await withProviderServer { server, _ in
            server.update { $0.tokenResponse = .init(json: .object([
                "refresh_token": .string("r.1/2+3"), "id_token": .string("a.b.c"), "access_token": .string("x"),
            ])) }
            let grant = try await Self.client(server).exchange(code: "c+1/ä", clientID: "com.example.app", clientSecret: "s.e.c")
            #expect(grant == ProviderTokenGrant(refreshToken: "r.1/2+3", idToken: "a.b.c"))
            let form = try #require(server.record.tokenRequests.first)
            #expect(form.fields == ["client_id": "com.example.app", "client_secret": "s.e.c", "code": "c+1/ä", "grant_type": "authorization_code"])
            #expect(form.contentType?.hasPrefix("application/x-www-form-urlencoded") == true)
        }
    }

    @Test("revoke posts client_id, client_secret, token and token_type_hint=refresh_token")
    func revoke() async throws {
        try await withProviderServer { server, _ in
            try await Self.client(server).revoke(token: "r.1", clientID: "svc.example", clientSecret: "s")
            let form = try #require(server.record.revokeRequests.first)
            #expect(form.fields == ["client_id": "svc.example", "client_secret": "s", "token": "r.1", "token_type_hint": "refresh_token"])
        }
    }

    @Test("400 invalid_grant is invalidGrant; 5xx, other 4xx, no refresh token and a dead endpoint are unavailable")
    func failures() async throws {
        try await withProviderServer { server, _ in
            let client = try Self.client(server)
            server.update { $0.tokenResponse = .init(status: 400, json: .object(["error": .string("invalid_grant")])) }
            await #expect(throws: ProviderTokenError(.invalidGrant, "")) {
                try await client.exchange(code: "c", clientID: "a", clientSecret: "s")
            }
            server.update { $0.tokenResponse = .init(status: 401, json: .object(["error": .string("invalid_client")])) }
            await #expect(throws: ProviderTokenError(.unavailable, "")) {
                try await client.exchange(code: "c", clientID: "a", clientSecret: "s")
            }
            server.update { $0.tokenResponse = .init(status: 503, body: []) }
            await #expect(throws: ProviderTokenError(.unavailable, "")) {
                try await client.exchange(code: "c", clientID: "a", clientSecret: "s")
            }
            server.update { $0.tokenResponse = .init(json: .object(["access_token": .string("x")])) }
            await #expect(throws: ProviderTokenError(.unavailable, "")) {
                try await client.exchange(code: "c", clientID: "a", clientSecret: "s")
            }
            server.update { $0.revokeResponse = .init(status: 500, body: []) }
            await #expect(throws: ProviderTokenError(.unavailable, "")) {
                try await client.revoke(token: "t", clientID: "a", clientSecret: "s")
            }
        }
        // Nothing listens there any more.
        let server = try await TestProviderServer.start(provider: try makeProvider())
        let client = try Self.client(server)
        await server.shutdown()
        await #expect(throws: ProviderTokenError(.unavailable, "")) {
            try await client.exchange(code: "c", clientID: "a", clientSecret: "s")
        }
    }

    @Test func urlsMustBeHTTPSOrLoopback() {
        #expect(throws: ProviderKeyError.self) {
            try AppleTokenClient(tokenURL: "http://appleid.apple.com/auth/token", httpClient: .shared, logger: quietLogger)
        }
        #expect(throws: ProviderKeyError.self) {
            try AppleTokenClient(revokeURL: "ftp://example.com/", httpClient: .shared, logger: quietLogger)
        }
        #expect((try? AppleTokenClient(httpClient: .shared, logger: quietLogger))?.tokenURL == "https://appleid.apple.com/auth/token")
    }
}
