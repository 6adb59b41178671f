import PasskeyApp
import Foundation
import Glibc
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyHTTP
import PasskeyServerSupport
import PasskeyStore
import Synchronization
import Testing
import WebAuthnCore

/// Runs blocking socket work on a thread of its own. Never block the cooperative pool from an async test: it has one
/// thread per core (two here), so a test polling a socket for seconds on it halves, or stops, every other suite's
/// servers and clients running in parallel (the several-second stalls the sealed-http stage showed).
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// A blocking TCP connection to 127.0.0.1 for sending requests byte by byte (what a slow or hostile client does).
/// Unchecked Sendable: one thread uses it at a time (inside ``offThePool(_:)`` or a test's own thread).
final class RawConnection: @unchecked Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    /// False once the server has closed the connection (EPIPE / ECONNRESET).
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Whether the server closed the connection within `timeout` (reads and discards any response bytes first).
    func closedByServer(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = deadline - ContinuousClock.now
            let milliseconds = Int32(max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&descriptor, 1, milliseconds) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return true }
        }
        return false
    }

    /// Everything the server sends until it closes (or `timeout`).
    func readAll(timeout: Duration) -> String {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// Fresh `GET /healthz` connections one after another on a thread of its own until ``finish()``: each round gets up to
/// three attempts (on two busy cores the server's own 1 s idle timer can close a fresh connection before its loop
/// reads the request); a starved server fails all three.
final class PoliteClient: Sendable {
    private struct Tally { var served = 0, retried = 0, failed = 0, stop = false, done = false }
    private let port: Int
    private let tally = Mutex(Tally())

    init(port: Int) { self.port = port }

    func run() {
        while !tally.withLock({ $0.stop }) {
            var answered = false
            for attempt in 1...3 where !answered {
                if attempt > 1 { tally.withLock { $0.retried += 1 } }
                guard let connection = try? RawConnection(port: port) else { continue }
                connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                answered = connection.readAll(timeout: .seconds(2)).hasPrefix("HTTP/1.1 200")
            }
            tally.withLock { if answered { $0.served += 1 } else { $0.failed += 1 } }
            usleep(200_000)
        }
        tally.withLock { $0.done = true }
    }

    /// Stops the thread and waits for it: (served, retried attempts, rounds never served).
    func finish() async -> (Int, Int, Int) {
        tally.withLock { $0.stop = true }
        while !tally.withLock({ $0.done }) { try? await Task.sleep(for: .milliseconds(50)) }
        return tally.withLock { ($0.served, $0.retried, $0.failed) }
    }
}

/// ServerLimits on a real listening server: slow clients cannot hold connections, oversized heads are refused.
@Suite("HTTP connection limits", .serialized)
struct ServerLimitsTests {
    /// An instance whose server has a 1 s idle and read timeout and a 4 KiB head limit (the live test listens on a
    /// free port of its own).
    static func app() async throws -> Application<RouterResponder<PasskeyRequestContext>> {
        let settings = try TestPasskeyd.unboundedSettings([
            "PASSKEYD_HTTP_IDLE_TIMEOUT": "1", "PASSKEYD_HTTP_READ_TIMEOUT": "1", "PASSKEYD_HTTP_MAX_HEADER_BYTES": "4096",
        ])
        return try await TestPasskeyd.build(settings, store: TestPasskeyd.store(for: settings)).http
    }

    @Test("slowloris: 64 connections trickling headers are all closed after the idle timeout, while others are served")
    func slowHeaders() async throws {
        try await Self.app().test(.live) { client in
            let port = try #require(client.port)
            let attackers = try (0..<64).map { _ in try RawConnection(port: port) }
            for connection in attackers { connection.send("POST /v1/authentication/begin HTTP/1.1\r\nHost: localhost\r\n") }
            let start = ContinuousClock.now
            // Trickle one header line per connection every 200 ms for up to 8 s: far longer than the 1 s idle timeout.
            var closedAt: [Int: Duration] = [:]
            // A well-behaved client is served meanwhile, on its own thread, so that a slow answer never delays the
            // loop below that notes when each trickling connection was closed (the bound at the end measures the
            // server, not this test's pace).
            let polite = PoliteClient(port: port)
            let politeThread = Thread { polite.run() }
            politeThread.start()
            while ContinuousClock.now - start < .seconds(8), closedAt.count < attackers.count {
                let open = attackers.indices.filter { closedAt[$0] == nil }
                let closedNow = await offThePool {
                    open.filter { index in
                        !attackers[index].send("X-Slow-\(index): a\r\n") || attackers[index].closedByServer(within: .milliseconds(1))
                    }
                }
                for index in closedNow { closedAt[index] = ContinuousClock.now - start }
                try await Task.sleep(for: .milliseconds(200))
            }
            let (served, retried, failed) = await polite.finish()
            // A server the trickling connections starve serves none; on two cores shared with a build, a round can
            // miss its three attempts now and then (seen: 1 served, 1 missed), so most rounds must be served, not all.
            #expect(served > 0 && failed <= served, "polite requests: \(served) served, \(failed) not served in three attempts")
            #expect(closedAt.count == attackers.count, "every trickling connection is closed")
            let slowest = closedAt.values.max() ?? .zero
            let fastest = closedAt.values.min() ?? .zero
            print("connection limits: \(closedAt.count) of \(attackers.count) trickling connections closed, between \(fastest) and \(slowest) after the first header line (idle timeout 1 s); \(served) polite requests served, \(retried) retried")
            // 1 s plus scheduling slack: the suite runs beside hundreds of other tests on two cores, and the whole
            // suite under CI has taken 5.4 s here. Without the idle timeout no connection would close before the 8 s
            // trickle ends (the count above), so the bound only has to stay below that.
            #expect(slowest < .seconds(7), "closed within the idle timeout plus scheduling slack: \(slowest)")
        }
    }

    @Test("a body trickled slower than the read timeout closes the connection")
    func slowBody() async throws {
        try await Self.app().test(.live) { client in
            let port = try #require(client.port)
            let connection = try RawConnection(port: port)
            connection.send("POST /v1/authentication/begin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
            let start = ContinuousClock.now
            let closed = await offThePool {
                var closed = false
                while !closed, ContinuousClock.now - start < .seconds(15) {
                    // One byte every 300 ms keeps the idle clock fresh; only the read deadline stops it.
                    closed = !connection.send(" ") || connection.closedByServer(within: .milliseconds(300))
                }
                return closed
            }
            let elapsed = ContinuousClock.now - start
            print("connection limits: a body trickled at 1 byte / 300 ms was closed after \(elapsed) (read timeout 1 s)")
            // Nothing but the read deadline closes this connection (each byte keeps the idle timer fresh), so being
            // closed at all is the check; the bound is slack for two busy cores: 1.0-1.5 s usually, 7.2 s once while
            // the sealed-http stage ran its suites in parallel and this loop still blocked a cooperative thread.
            #expect(closed && elapsed < .seconds(12), "closed after \(elapsed) (read timeout 1 s, plus slack)")
        }
    }

    @Test("an idle connection is closed; a head over the header limit is refused without a handler running")
    func idleAndOversizedHeads() async throws {
        try await Self.app().test(.live) { client in
            let port = try #require(client.port)
            let idle = try RawConnection(port: port)
            #expect(await offThePool { idle.closedByServer(within: .seconds(5)) })

            let large = try RawConnection(port: port)
            large.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Large: \(String(repeating: "a", count: 8192))\r\n\r\n")
            let answer = await offThePool { large.readAll(timeout: .seconds(2)) }
            #expect(!answer.contains("200 OK"), "an oversized head is not served: \(answer.prefix(80))")
            // ... and answered in the API's error form, then closed.
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(80))")
            #expect(answer.lowercased().contains("content-type: application/json") && answer.lowercased().contains("connection: close"))
            #expect(answer.hasSuffix(#"{"error":{"code":"malformed_request","message":"The request is not well-formed HTTP, or its head is larger than this server accepts."}}"#))
            #expect(await offThePool { large.closedByServer(within: .seconds(2)) })
            // So is a request line that is not HTTP.
            let garbage = try RawConnection(port: port)
            garbage.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header Name: x\r\n\r\n")
            let refused = await offThePool { garbage.readAll(timeout: .seconds(2)) }
            #expect(refused.hasPrefix("HTTP/1.1 400") && refused.contains(#""code":"malformed_request""#), "\(refused.prefix(120))")

            // A normal request on a fresh connection still works, with keep-alive.
            // Up to three fresh connections, as PoliteClient: on two busy cores the server's 1 s idle timer can close
            // a fresh connection before its loop reads the request (an empty reply), which is not a refusal.
            var reply = ""
            for _ in 0..<3 where !reply.hasPrefix("HTTP/1.1 200") {
                let normal = try RawConnection(port: port)
                normal.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                reply = await offThePool { normal.readAll(timeout: .seconds(2)) }
            }
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(80))")
        }
    }
}
