import Foundation
import LibPQ
import NIOPosix
import Synchronization
import PostgresTestSupport
import Testing

// PGPool integration tests. Each test works in its own schema (t_<random>), reached through a connection
// string whose `options` set the search_path, and drops it afterwards, so tests can run in parallel against the
// shared test database. The restart test starts its own private cluster, so it never disturbs other tests.

/// A uniquely named schema in the test database, dropped by ``withTestSchema(_:)``.
struct TestSchema {
    let name: String
    /// The test database URL with `search_path` set to this schema.
    let url: String

    static func url(_ base: String, searchPath: String) -> String {
        if base.contains("://") {
            return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + searchPath
        }
        return base + " options='-csearch_path=" + searchPath + "'"
    }
}

/// Runs blocking work (libpq calls, child processes) on a Dispatch thread instead of the test's cooperative
/// thread: the cooperative pool has as many threads as cores, and blocking them can starve the other tests.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result(catching: body)) }
    }
}

/// Creates a fresh schema, runs `body`, and drops the schema (CASCADE) whether `body` succeeds or not.
func withTestSchema<T>(_ body: (TestSchema) async throws -> T) async throws -> T {
    guard let base = TestDatabase.url else {
        throw PGError(code: .invalidArgument, message: "PASSKEYD_TEST_DATABASE_URL is not set")
    }
    let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    let admin = try await offload { try PGConnection.connect(url: base) }
    try await offload { try admin.simpleQuery("CREATE SCHEMA \(name)") }
    let schema = TestSchema(name: String(name), url: TestSchema.url(base, searchPath: String(name)))
    do {
        let value = try await body(schema)
        try await offload { try admin.simpleQuery("DROP SCHEMA \(name) CASCADE") }
        return value
    } catch {
        _ = try? await offload { try admin.simpleQuery("DROP SCHEMA \(name) CASCADE") }
        throw error
    }
}

/// Runs `body` with a started thread pool and a pool of `size` connections to `url`; shuts both down.
func withPool<T>(url: String, size: Int, threads: Int = 4, _ body: (PGPool) async throws -> T) async throws -> T {
    let threadPool = NIOThreadPool(numberOfThreads: threads)
    threadPool.start()
    let pool = PGPool(url: url, size: size, threadPool: threadPool)
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

/// A Sendable box around a mutex, so escaping test closures can share state.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout sending Value) -> sending R) -> R { mutex.withLock(body) }
}

/// Polls `condition` until it holds; fails instead of hanging after `seconds`.
func waitUntil(_ seconds: Double = 10, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else {
            throw PGError(code: .invalidArgument, message: "condition not met within \(seconds) s")
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// Blocks a pool thread until `gate` opens (or 10 s pass), to hold a lease for as long as a test needs.
func hold(until gate: Locked<Bool>) {
    let deadline = ContinuousClock.now + .seconds(10)
    while !gate.withLock({ $0 }), ContinuousClock.now < deadline {
        Thread.sleep(forTimeInterval: 0.002)
    }
}

private func backendPID(_ connection: PGConnection) throws -> Int32 {
    try connection.execute("SELECT pg_backend_pid()").decode(Int32.self, row: 0, column: 0)
}

@Suite(
    "PGPool against PostgreSQL",
    .enabled(
        if: TestDatabase.url != nil,
        "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)"
    )
)
struct PGPoolTests {
    @Test func leasesOpenLazilyAndRunOffTheCallersTask() async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 3) { pool in
                let initial = pool.stats
                #expect(initial.size == 3 && initial.open == 0 && initial.inUse == 0 && initial.waiting == 0)
                #expect(initial.totalConnects == 0 && initial.totalFailures == 0)
                let path = try await pool.withConnection { connection in
                    try connection.execute("SELECT current_schemas(false)::text[]").decode([String].self, row: 0, column: 0)
                }
                #expect(path == [schema.name])
                // Sequential leases reuse the one warm connection.
                for _ in 0..<5 {
                    _ = try await pool.withConnection { try $0.execute("SELECT 1") }
                }
                let stats = pool.stats
                #expect(stats.open == 1 && stats.totalConnects == 1 && stats.inUse == 0 && stats.waiting == 0)
            }
        }
    }

    @Test func waitersQueueFIFOAndTheSizeIsNeverExceeded() async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 1) { pool in
                let order = Locked<[Int]>([])
                let gate = Locked(false)
                let holder = Task { try await pool.withConnection { _ in hold(until: gate) } }
                try await waitUntil { pool.stats.inUse == 1 }
                var waiters: [Task<Void, any Error>] = []
                for index in 0..<5 {
                    waiters.append(Task { try await pool.withConnection { _ in order.withLock { $0.append(index) } } })
                    try await waitUntil { pool.stats.waiting == index + 1 }
                }
                #expect(pool.stats.waiting == 5 && pool.stats.inUse == 1)
                gate.withLock { $0 = true }
                try await holder.value
                for waiter in waiters { try await waiter.value }
                #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
                let stats = pool.stats
                #expect(stats.totalConnects == 1 && stats.open == 1 && stats.inUse == 0 && stats.waiting == 0)
            }
        }
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 1) { pool in
                let gate = Locked(false)
                let holder = Task { try await pool.withConnection { _ in hold(until: gate) } }
                try await waitUntil { pool.stats.inUse == 1 }
                let waiter = Task { try await pool.withConnection { _ in 1 } }
                try await waitUntil { pool.stats.waiting == 1 }
                waiter.cancel()
                await #expect(throws: CancellationError.self) { try await waiter.value }
                #expect(pool.stats.waiting == 0)
                gate.withLock { $0 = true }
                try await holder.value
                #expect(try await pool.withConnection { _ in 2 } == 2)
            }
        }
    }

    @Test func transactionsCommitAndRollBack() async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 2) { pool in
                try await pool.withConnection { try $0.simpleQuery("CREATE TABLE ledger (v int8 PRIMARY KEY)") }
                try await pool.withTransaction { _ = try $0.execute("INSERT INTO ledger VALUES (\(Int64(1)))") }
                await #expect(throws: ExpectedFailure()) {
                    try await pool.withTransaction { connection in
                        _ = try connection.execute("INSERT INTO ledger VALUES (\(Int64(2)))")
                        throw ExpectedFailure()
                    }
                }
                let duplicate = await #expect(throws: PGError.self) {
                    try await pool.withTransaction { connection in
                        _ = try connection.execute("INSERT INTO ledger VALUES (\(Int64(3)))")
                        _ = try connection.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
                    }
                }
                #expect(duplicate?.sqlState == .uniqueViolation)
                // A body that leaves a transaction open: the pool rolls it back before reuse.
                try await pool.withConnection { connection in
                    try connection.simpleQuery("BEGIN")
                    _ = try connection.execute("INSERT INTO ledger VALUES (\(Int64(4)))")
                }
                let (count, inTransaction) = try await pool.withConnection { connection in
                    (
                        try connection.execute("SELECT count(*) FROM ledger").decode(Int64.self, row: 0, column: 0),
                        connection.isInTransaction
                    )
                }
                #expect(count == 1)
                #expect(!inTransaction)
                #expect(pool.stats.totalFailures == 0)
            }
        }
    }

    @Test func terminatedBackendsAreReplacedAfterAtMostOneFailure() async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 2) { pool in
                // Open both connections by holding two leases at once.
                async let first = pool.withConnection { c in Thread.sleep(forTimeInterval: 0.1); return try backendPID(c) }
                async let second = pool.withConnection { c in Thread.sleep(forTimeInterval: 0.1); return try backendPID(c) }
                let pids = try await [first, second]
                #expect(Set(pids).count == 2 && pool.stats.open == 2)

                try await offload {
                    let admin = try TestDatabase.connect()
                    for pid in pids {
                        _ = try admin.execute("SELECT pg_terminate_backend(\(pid), \(Int64(5000)))")
                    }
                }
                var failures = 0
                for _ in 0..<4 {
                    let outcome = await Result(catching: { try await pool.withConnection { try backendPID($0) } })
                    switch outcome {
                    case .success(let pid): #expect(!pids.contains(pid))
                    case .failure(let error):
                        failures += 1
                        #expect((error as? PGError)?.isConnectionError == true)
                    }
                }
                #expect(failures <= 1)
                #expect(pool.stats.totalFailures >= 1)
                #expect(pool.stats.inUse == 0)
            }
        }
    }

    @Test func preparedStatementsArePreparedOncePerConnectionAndAgainAfterReconnect() async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 1) { pool in
                let statement = PGPreparedStatement(
                    name: "pool_test_add",
                    sql: "SELECT $1::int8 + $2::int8",
                    parameterTypes: [.int8, .int8],
                    isIdempotent: true
                )
                let count: @Sendable (PGConnection) throws -> Int64 = { connection in
                    try connection.execute("SELECT count(*) FROM pg_prepared_statements WHERE name = 'pool_test_add'")
                        .decode(Int64.self, row: 0, column: 0)
                }
                #expect(try await pool.executePrepared(statement, [Int64(2), Int64(3)]).decode(Int64.self, row: 0, column: 0) == 5)
                #expect(try await pool.executePrepared(statement, [Int64(4), Int64(3)]).decode(Int64.self, row: 0, column: 0) == 7)
                #expect(try await pool.withConnection(count) == 1)
                await #expect(throws: PGError.typeMismatch) {
                    try await pool.executePrepared(statement, ["two", Int64(3)])
                }

                let pid = try await pool.withConnection { try backendPID($0) }
                _ = try await offload { try TestDatabase.connect().execute("SELECT pg_terminate_backend(\(pid), \(Int64(5000)))") }
                // Idempotent: the connection loss is retried once, on a new connection, where it is prepared again.
                #expect(try await pool.executePrepared(statement, [Int64(1), Int64(1)]).decode(Int64.self, row: 0, column: 0) == 2)
                #expect(try await pool.withConnection(count) == 1)
                #expect(try await pool.withConnection { try backendPID($0) } != pid)
                #expect(pool.stats.totalConnects == 2)

                // Not idempotent: no retry, the caller sees the one failure.
                let write = PGPreparedStatement(name: "pool_test_write", sql: "SELECT $1::int8", parameterTypes: [.int8])
                let pid2 = try await pool.withConnection { try backendPID($0) }
                _ = try await offload { try TestDatabase.connect().execute("SELECT pg_terminate_backend(\(pid2), \(Int64(5000)))") }
                await #expect(throws: PGError.connectionClosed) { try await pool.executePrepared(write, [Int64(1)]) }
                #expect(try await pool.executePrepared(write, [Int64(9)]).decode(Int64.self, row: 0, column: 0) == 9)
            }
        }
    }

    @Test func shutdownFailsLaterLeases() async throws {
        try await withTestSchema { schema in
            let threadPool = NIOThreadPool(numberOfThreads: 2)
            threadPool.start()
            let pool = PGPool(url: schema.url, size: 2, threadPool: threadPool)
            _ = try await pool.withConnection { try $0.execute("SELECT 1") }
            await pool.shutdown()
            #expect(pool.stats.open == 0)
            await #expect(throws: PGError.connectionClosed) { try await pool.withConnection { _ in 1 } }
            try await threadPool.shutdownGracefully()
        }
    }

    @Test func unreachableServerFailsTheLeaseNotThePool() async throws {
        try await withPool(url: "postgresql://postgres@127.0.0.1:1/none?connect_timeout=2", size: 1) { pool in
            await #expect(throws: PGError.connectionFailed) { try await pool.withConnection { _ in 1 } }
            await #expect(throws: PGError.connectionFailed) { try await pool.withConnection { _ in 1 } }
            let stats = pool.stats
            #expect(stats.totalFailures == 2 && stats.open == 0 && stats.inUse == 0)
        }
    }
}

// MARK: - server restart (private cluster)


@Suite(
    "PGPool across a server restart",
    .enabled(if: PrivateCluster.isAvailable, "needs PASSKEYD_TEST_DATABASE_URL and /usr/lib/postgresql/15/bin (PASSKEYD_TEST_PG_RESTART=0 disables it)"),
    .serialized
)
struct PGPoolRestartTests {
    @Test func poolRecoversAfterServerRestartWithAtMostOneFailure() async throws {
        let cluster = PrivateCluster(label: "pooltest")
        try await offload { try cluster.run("start") }
        do {
            try await restartScenario(cluster)
        } catch {
            _ = try? await offload { try cluster.run("destroy") }
            throw error
        }
        try await offload { try cluster.run("destroy") }
    }

    private func restartScenario(_ cluster: PrivateCluster) async throws {
        try await withPool(url: cluster.url, size: 2) { pool in
            async let a = pool.withConnection { c in Thread.sleep(forTimeInterval: 0.1); return try backendPID(c) }
            async let b = pool.withConnection { c in Thread.sleep(forTimeInterval: 0.1); return try backendPID(c) }
            _ = try await [a, b]
            #expect(pool.stats.open == 2)

            try await offload { try cluster.run("stop") }
            // While the server is down, leases fail with a connection error and the pool stays consistent.
            let down = await Result(catching: { try await pool.withConnection { try backendPID($0) } })
            #expect(((try? down.get()) == nil))
            try await offload { try cluster.run("start") }

            var failures = 0
            var successes = 0
            for _ in 0..<4 {
                switch await Result(catching: { try await pool.withConnection { try backendPID($0) } }) {
                case .success: successes += 1
                case .failure(let error):
                    failures += 1
                    #expect((error as? PGError)?.isConnectionError == true)
                }
            }
            #expect(failures <= 1, "after a restart at most one query may fail")
            #expect(successes >= 3)

            // Idempotent prepared reads hide the one failure entirely.
            let read = PGPreparedStatement(name: "restart_read", sql: "SELECT $1::int4", parameterTypes: [.int4], isIdempotent: true)
            #expect(try await pool.executePrepared(read, [Int32(7)]).decode(Int32.self, row: 0, column: 0) == 7)
            try await offload { try cluster.run("stop") }
            try await offload { try cluster.run("start") }
            #expect(try await pool.executePrepared(read, [Int32(8)]).decode(Int32.self, row: 0, column: 0) == 8)
            #expect(pool.stats.inUse == 0 && pool.stats.waiting == 0)
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
