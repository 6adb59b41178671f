import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PasskeyApp
import PasskeyServerSupport
import Synchronization
import Testing
import WebhookCore

/// A value shared with escaping closures.
final class Box<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
    func append<Element>(_ element: Element) where Value == [Element] { mutex.withLock { $0.append(element) } }
}

/// The executable's webhook transport against a real loopback receiver: the POST with its headers and body, the
/// answer's status and Retry-After, no redirect followed, the timeout, and the URL policy applied to every resolved
/// address before anything is sent.
@Suite("Webhook HTTP transport")
struct WebhookTransportTests {
    struct Received: Sendable {
        let path: String
        let headers: [String: String]
        let body: [UInt8]
    }

    /// A receiver on 127.0.0.1: `/ok` answers 204, `/busy` 503 with Retry-After 7, `/moved` 307 to `/ok`, `/hang`
    /// never answers, `/big` 200 with 1 MiB.
    static func withReceiver(_ body: (Int, @Sendable () -> [Received]) async throws -> Void) async throws {
        let received = Box<[Received]>([])
        let router = Router()
        router.post("/{path}") { request, context -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let path = context.parameters.get("path") ?? ""
            received.append(Received(path: path, headers: headers, body: Array(buffer: bytes)))
            switch path {
            case "busy": return Response(status: .serviceUnavailable, headers: [.retryAfter: "7"])
            case "moved": return Response(status: .temporaryRedirect, headers: [.location: "/ok"])
            case "hang":
                try await Task.sleep(for: .seconds(3600))
                return Response(status: .noContent)
            case "big": return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 0x61, count: 1 << 20)))
            default: return Response(status: .noContent)
            }
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? -1)
                continuation.finish()
            }, logger: logger)
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        do {
            try await body(port, { received.value })
        } catch {
            task.cancel()
            throw error
        }
        task.cancel()
        _ = await task.result
    }

    static func request(_ url: String) -> WebhookRequest {
        WebhookRequest(
            endpointID: "app", url: url,
            headers: ["content-type": "application/json", "user-agent": "passkeyd/test", "webhook-id": "evt_1", "webhook-timestamp": "1800000000",
                      "webhook-signature": "v1,AAAA"],
            body: Array(#"{"type":"user.created"}"#.utf8))
    }

    @Test("POSTs the headers and body; reports the status and Retry-After; follows no redirect; reads a big answer no further than its cap")
    func posts() async throws {
        try await Self.withReceiver { port, received in
            let client = WebhookHTTPTransport.makeClient()
            let transport = WebhookHTTPTransport(client: client, policy: WebhookURLPolicy().unsafeAllowingPrivateTargets(), logger: Logger(label: "t"))
            let base = "http://127.0.0.1:\(port)"
            #expect(await transport.send(Self.request("\(base)/ok"), timeout: .seconds(5)) == .answered(statusCode: 204, retryAfter: nil))
            #expect(await transport.send(Self.request("\(base)/busy"), timeout: .seconds(5)) == .answered(statusCode: 503, retryAfter: "7"))
            #expect(await transport.send(Self.request("\(base)/moved"), timeout: .seconds(5)) == .answered(statusCode: 307, retryAfter: nil))
            #expect(await transport.send(Self.request("\(base)/big"), timeout: .seconds(5)) == .answered(statusCode: 200, retryAfter: nil))
            let all = received()
            #expect(all.map(\.path) == ["ok", "busy", "moved", "big"], "the redirect was followed")
            let first = try #require(all.first)
            #expect(first.body == Self.request("").body)
            for name in ["content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature"] {
                #expect(first.headers[name] == Self.request("").headers[name], "\(name)")
            }
            try await client.shutdown()
        }
    }

    @Test("a receiver that never answers: no answer at the timeout")
    func timeout() async throws {
        try await Self.withReceiver { port, _ in
            let client = WebhookHTTPTransport.makeClient()
            let transport = WebhookHTTPTransport(client: client, policy: WebhookURLPolicy().unsafeAllowingPrivateTargets(), logger: Logger(label: "t"))
            let began = ContinuousClock.now
            let result = await transport.send(Self.request("http://127.0.0.1:\(port)/hang"), timeout: .milliseconds(500))
            guard case .noAnswer(let reason) = result else { Issue.record("answered: \(result)"); return }
            #expect(reason.contains("timed out"))
            #expect(began.duration(to: .now) < .seconds(5))
            try await client.shutdown()
        }
    }

    @Test("the safe policy: a name resolving to any private address, http, and a loopback literal are refused before connecting")
    func policy() async throws {
        try await Self.withReceiver { port, received in
            let client = WebhookHTTPTransport.makeClient()
            let resolved = Box<[IPAddress]>([])
            let transport = WebhookHTTPTransport(
                client: client, policy: WebhookURLPolicy(), logger: Logger(label: "t"),
                resolve: { _, _ in resolved.value })
            for addresses in [["93.184.216.34", "10.0.0.7"], ["169.254.169.254"], ["::ffff:127.0.0.1"], []] {
                resolved.value = addresses.compactMap(IPAddress.init)
                let result = await transport.send(Self.request("https://hooks.example.com:\(port)/ok"), timeout: .seconds(2))
                guard case .noAnswer = result else { Issue.record("\(addresses): \(result)"); continue }
            }
            for url in ["http://127.0.0.1:\(port)/ok", "https://127.0.0.1:\(port)/ok", "https://localhost:\(port)/ok"] {
                guard case .noAnswer(let reason) = await transport.send(Self.request(url), timeout: .seconds(2)) else { Issue.record("\(url) was sent"); continue }
                #expect(reason.contains("webhook_"), "\(reason)")
            }
            #expect(received().isEmpty)
            // The system resolver: localhost resolves to loopback only.
            let addresses = try WebhookHTTPTransport.systemResolve(host: "localhost", port: 443)
            #expect(!addresses.isEmpty && addresses.allSatisfy { $0.scope == .loopback })
            try await client.shutdown()
        }
    }
}
