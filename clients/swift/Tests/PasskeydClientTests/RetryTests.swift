import Foundation
import Testing
@testable import PasskeydClient

/// Error answers become PasskeydError with their code, Retry-After and signal; the retry rules (RetryPolicy), on a
/// recording transport.
@Suite("Errors and retries")
struct RetryTests {
    @Test("an error answer: status, code, message, Retry-After, the signal")
    func errorAnswer() async throws {
        let (client, transport, _) = recordingClient(retry: .none)
        transport.answer(.json(404, [
            "error": ["code": "credential_unknown", "message": "no such credential"],
            "signal": ["rpId": "example.com", "credentialId": "Y3JlZA"],
        ]))
        let error = try await #require(throws: PasskeydError.self) {
            try await client.authenticationFinish(CoverageTests.assertion)
        }
        #expect(error.status == 404 && error.code == .credentialUnknown && error.message == "no such credential")
        #expect(error.signal == UnknownCredentialSignal(rpId: "example.com", credentialId: "Y3JlZA"))
        #expect(error.operation == "authenticationFinish" && error.attempts == 1 && error.retryAfter == nil)
        #expect(error.description == "404 credential_unknown: no such credential (authenticationFinish)")

        // A code newer than the client is kept as it came; an answer that is not passkeyd's is http_<status>.
        transport.answer(.error(400, "something_new"))
        let newer = try await #require(throws: PasskeydError.self) { try await client.getHealth() }
        #expect(newer.code == "something_new" && !newer.code.isKnown)
        transport.answer(PasskeydHTTPResponse(status: 502, headers: ["Retry-After": "7"], body: Data("<html>".utf8)))
        let proxy = try await #require(throws: PasskeydError.self) { try await client.getHealth() }
        #expect(proxy.code == "http_502" && proxy.status == 502 && proxy.retryAfter == 7)
        switch proxy.code {
        case .userExists: Issue.record("not user_exists")
        default: break
        }
    }

    @Test("Retry-After: seconds or an HTTP date")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(PasskeydError.seconds(retryAfter: "3", now: now) == 3)
        #expect(PasskeydError.seconds(retryAfter: "Tue, 14 Nov 2023 22:13:50 GMT", now: now) == 30)
        #expect(PasskeydError.seconds(retryAfter: "Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0)
        #expect(PasskeydError.seconds(retryAfter: "soon", now: now) == nil)
    }

    @Test("a begin is retried on 429 after Retry-After, then answers")
    func beginRetried() async throws {
        let (client, transport, waits) = recordingClient()
        transport.answer(
            .error(429, "rate_limited", headers: ["Retry-After": "2"]),
            .json(200, try #require(OpenAPIDocument.load().example(.object(["$ref": "#/components/schemas/AuthenticationBeginResponse"]), maximal: false))))
        let begun = try await client.authenticationBegin(for: .name("ada"))
        #expect(begun.publicKey.challenge == "AAAA")
        #expect(transport.requests.count == 2 && waits.all == [.seconds(2)])
    }

    @Test("reads are retried on 503 with a growing backoff, at most maxAttempts times")
    func readGivesUp() async throws {
        let (client, transport, waits) = recordingClient(retry: RetryPolicy(maxAttempts: 3, backoff: .milliseconds(100)))
        transport.answer(.error(503, "storage_unavailable"))
        let error = try await #require(throws: PasskeydError.self) { try await client.adminGetUser(userId: "dXNlcg") }
        #expect(error.code == .storageUnavailable && error.attempts == 3 && transport.requests.count == 3)
        let recorded = waits.all
        #expect(recorded.count == 2)
        #expect(recorded[0] >= .milliseconds(50) && recorded[0] <= .milliseconds(100))
        #expect(recorded[1] >= .milliseconds(100) && recorded[1] <= .milliseconds(200))
    }

    @Test("writes are not retried unless the policy says so; readiness never; other statuses never")
    func notRetried() async throws {
        let (client, transport, _) = recordingClient()
        transport.answer(.error(503, "storage_unavailable"), .json(200, ["status": "ok"]))
        await #expect(throws: PasskeydError.self) { try await client.authenticationFinish(CoverageTests.assertion) }
        #expect(transport.requests.count == 1)

        var writes = client
        writes.retry = RetryPolicy(writes: true)
        let notification = try #require(
            OpenAPIDocument.load().example(.object(["$ref": "#/components/schemas/AppStoreNotificationResponse"]), maximal: false))
        transport.answer(.error(503, "storage_unavailable"), .json(200, notification))
        _ = try await writes.appStoreNotification(signedPayload: "a.b.c")
        #expect(transport.requests.count == 2)

        transport.answer(.error(503, "not_ready"), .json(200, ["status": "ready"]))
        await #expect(throws: PasskeydError.self) { try await writes.getReadiness() }
        #expect(transport.requests.count == 1)

        transport.answer(.error(401, "unauthorized"), .json(200, ["status": "ok"]))
        await #expect(throws: PasskeydError.self) { try await client.getHealth() }
        #expect(transport.requests.count == 1)
    }

    @Test("a Retry-After longer than maxWait is not waited for")
    func tooLong() async throws {
        let (client, transport, waits) = recordingClient(retry: RetryPolicy(maxWait: .seconds(5)))
        transport.answer(.error(429, "rate_limited", headers: ["Retry-After": "60"]), .json(200, ["status": "ok"]))
        let error = try await #require(throws: PasskeydError.self) { try await client.getHealth() }
        #expect(error.retryAfter == 60 && error.attempts == 1 && waits.all == [])
    }
}
