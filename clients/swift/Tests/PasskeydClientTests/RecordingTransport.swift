import Foundation
@testable import PasskeydClient

/// A transport that records every request and answers from a queue (then with `fallback`).
final class RecordingTransport: PasskeydTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var queue: [PasskeydHTTPResponse] = []
    private var recorded: [PasskeydHTTPRequest] = []
    private var fallback = PasskeydHTTPResponse(status: 200, body: Data("{}".utf8))

    var requests: [PasskeydHTTPRequest] { lock.withLock { recorded } }

    /// Answers the next requests with these, in order; then with the last one.
    func answer(_ responses: PasskeydHTTPResponse...) {
        lock.withLock {
            queue = Array(responses.dropLast())
            fallback = responses.last ?? fallback
            recorded = []
        }
    }

    func send(_ request: PasskeydHTTPRequest) async throws -> PasskeydHTTPResponse {
        lock.withLock {
            recorded.append(request)
            return queue.isEmpty ? fallback : queue.removeFirst()
        }
    }
}

extension PasskeydHTTPResponse {
    static func json(_ status: Int, _ value: JSONValue, headers: [String: String] = [:]) -> PasskeydHTTPResponse {
        PasskeydHTTPResponse(
            status: status, headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine },
            body: try! JSONEncoder().encode(value))
    }

    static func error(_ status: Int, _ code: String, headers: [String: String] = [:]) -> PasskeydHTTPResponse {
        .json(status, ["error": ["code": .string(code), "message": "test"]], headers: headers)
    }
}

/// Records the waits of a client's retries instead of sleeping.
final class Waits: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Duration] = []
    var all: [Duration] { lock.withLock { recorded } }
    func record(_ wait: Duration) { lock.withLock { recorded.append(wait) } }
}

func recordingClient(retry: RetryPolicy = .default) -> (PasskeydClient, RecordingTransport, Waits) {
    let transport = RecordingTransport()
    let waits = Waits()
    var client = PasskeydClient(
        baseURL: "http://passkeyd.test/", apiKey: "api-key", adminKey: "admin-key", transport: transport, retry: retry)
    client.sleep = { waits.record($0) }
    return (client, transport, waits)
}
