import Foundation
import LibPQ
import NIOPosix
import Testing

// PGPool's time bounds (PGPool.Configuration) against the test database: the server-side statement timeout, the
// wait for a free connection, and the client-side lease bound for a server that does not answer at all.

/// Like `withPool`, with a configuration.
private func withBoundedPool<T>(
    url: String, size: Int, _ configuration: PGPool.Configuration, _ body: (PGPool) async throws -> T
) async throws -> T {
    let threadPool = NIOThreadPool(numberOfThreads: size)
    threadPool.start()
    let pool = PGPool(url: url, size: size, threadPool: threadPool, configuration: configuration)
    do {
        let value = try await body(pool)
        await pool.shutdown()
        try await threadPool.shutdownGracefully()
        return value
    } catch {
        await pool.shutdown()
        try? await threadPool.shutdownGracefully()
        throw error
    }
}

/// Runs `body` and returns what it threw (nil if nothing) and how long it took.
private func timed(_ body: () async throws -> Void) async -> (error: (any Error)?, seconds: Double) {
    let start = ContinuousClock.now
    var failure: (any Error)?
    do { try await body() } catch { failure = error }
    let elapsed = ContinuousClock.now - start
    return (failure, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

@Suite(
    "PGPool time bounds against PostgreSQL",
    .enabled(
        if: TestDatabase.url != nil,
        "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)"
    )
)
struct PGPoolTimeoutTests {
    @Test func statementTimeoutIsSetOnEveryConnectionAndCancelsOnTheServer() async throws {
        try await withTestSchema { schema in
            try await withBoundedPool(url: schema.url, size: 2, .init(statementTimeout: .milliseconds(300))) { pool in
                let setting = try await pool.withConnection { try $0.execute("SHOW statement_timeout").decode(String.self, row: 0, column: 0) }
                #expect(setting == "300ms")
                let (error, seconds) = await timed { _ = try await pool.withConnection { try $0.execute("SELECT pg_sleep(5)") } }
                let pgError = try #require(error as? PGError)
                #expect(pgError.code == .queryFailed && pgError.sqlState?.rawValue == "57014", "query_canceled")
                #expect(seconds < 4.5, "cancelled after about 0.3 s (below the 5 s sleep, with slack for a loaded run), took \(seconds) s")
                // The connection survives a cancelled statement.
                _ = try await pool.withConnection { try $0.execute("SELECT 1") }
                #expect(pool.stats.totalFailures == 0)
            }
        }
    }

    /// With forceGenericPlans a prepared statement whose parameters could fold away (PostgreSQL would otherwise
    /// re-plan it on every execution) is planned once: after many executions, no custom plans beyond none at all.
    @Test func genericPlansAreForcedOnEveryConnectionWhenAsked() async throws {
        let folding = PGPreparedStatement(
            name: "pool_test_folding", sql: "SELECT count(*) FROM unnest($1::int8[]) AS i(v) WHERE $2::text IS NULL OR v > 0",
            parameterTypes: [.int8Array, .text])
        func plans(_ pool: PGPool) async throws -> (mode: String, generic: Int64, custom: Int64) {
            try await pool.withConnection { connection in
                var bindings: PGBindings = [[Int64(1), 2, 3]]
                bindings.append(nil as String?)
                for _ in 0..<8 { _ = try connection.executePrepared(folding, bindings) }
                let mode = try connection.execute("SHOW plan_cache_mode").decode(String.self, row: 0, column: 0)
                let counts = try connection.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'pool_test_folding'")
                return (mode, try counts.decode(Int64.self, row: 0, column: 0), try counts.decode(Int64.self, row: 0, column: 1))
            }
        }
        try await withTestSchema { schema in
            try await withBoundedPool(url: schema.url, size: 1, .init(statementTimeout: .seconds(5), forceGenericPlans: true)) { pool in
                let forced = try await plans(pool)
                #expect(forced.mode == "force_generic_plan" && forced.generic == 8 && forced.custom == 0)
                #expect(try await pool.withConnection { try $0.execute("SHOW statement_timeout").decode(String.self, row: 0, column: 0) } == "5s")
            }
            try await withBoundedPool(url: schema.url, size: 1, .init()) { pool in
                let chosen = try await plans(pool)
                #expect(chosen.mode == "auto" && chosen.custom >= 5, "PostgreSQL plans the first five executions itself")
            }
        }
    }

    @Test func waitingForAConnectionIsBounded() async throws {
        try await withTestSchema { schema in
            try await withBoundedPool(url: schema.url, size: 1, .init(acquireTimeout: .milliseconds(200))) { pool in
                let holder = Task { try await pool.withConnection { _ = try $0.execute("SELECT pg_sleep(1.5)") } }
                try await waitUntil { pool.stats.inUse == 1 }
                let (error, seconds) = await timed { _ = try await pool.withConnection { try $0.execute("SELECT 1") } }
                #expect((error as? PGError)?.code == .timedOut)
                #expect(seconds >= 0.15 && seconds < 4, "gave up after about 0.2 s, took \(seconds) s")
                #expect(pool.stats.waiting == 0, "the timed-out waiter left the queue")
                try await holder.value
                // The pool is intact: the held connection went back and serves the next lease.
                _ = try await pool.withConnection { try $0.execute("SELECT 1") }
                #expect(pool.stats.inUse == 0 && pool.stats.open == 1)
            }
        }
    }

    @Test func aLeaseThatDoesNotReturnIsAbandonedAndItsConnectionDiscarded() async throws {
        try await withTestSchema { schema in
            // No statement timeout: only the client-side bound applies (as for a stopped server).
            try await withBoundedPool(url: schema.url, size: 1, .init(leaseTimeout: .milliseconds(300))) { pool in
                _ = try await pool.withConnection { try $0.execute("SELECT 1") }
                let (error, seconds) = await timed { _ = try await pool.withConnection { try $0.execute("SELECT pg_sleep(1.5)") } }
                #expect((error as? PGError)?.code == .timedOut)
                #expect(seconds >= 0.25 && seconds < 4, "gave up after about 0.3 s, took \(seconds) s")
                // The slot stays taken until the statement really ends, then its connection is discarded.
                #expect(pool.stats.inUse == 1)
                try await waitUntil(5) { pool.stats.inUse == 0 }
                #expect(pool.stats.open == 0 && pool.stats.totalFailures == 1)
                let answer = try await pool.withConnection { try $0.execute("SELECT 41 + 1").decode(Int32.self, row: 0, column: 0) }
                #expect(answer == 42)
                #expect(pool.stats.totalConnects == 2)
            }
        }
    }

    @Test func connectTimeoutIsPassedToLibpqUnlessTheURLHasOne() async throws {
        // A listening socket that never answers the startup packet: libpq gives up after connect_timeout.
        let listener = try SilentListener()
        defer { listener.close() }
        try await withBoundedPool(url: "postgresql://postgres@127.0.0.1:\(listener.port)/x", size: 1, .init(connectTimeout: 2)) { pool in
            let (error, seconds) = await timed { _ = try await pool.withConnection { try $0.execute("SELECT 1") } }
            #expect((error as? PGError)?.code == .connectionFailed)
            // Without connect_timeout libpq would wait forever on this listener: any bounded failure shows the setting
            // works. Alone it takes about 2 s; beside the whole suite on two cores it has taken over 30 s (threads queue).
            #expect(seconds >= 1.5 && seconds < 120, "connect_timeout=2, took \(seconds) s")
        }
    }
}

/// A TCP listener on 127.0.0.1 that accepts nothing itself: the kernel completes handshakes into the backlog and
/// nobody ever reads, like a stopped server.
private final class SilentListener: @unchecked Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw PGError(code: .invalidArgument, message: "bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        self.port = port
    }

    func close() { _ = Glibc.close(fd) }
}
