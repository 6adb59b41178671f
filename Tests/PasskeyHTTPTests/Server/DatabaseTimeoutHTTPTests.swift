import PasskeyApp
import Foundation
import Hummingbird
import HummingbirdTesting
import LibPQ
import NIOPosix
import PasskeyHTTP
import PasskeyStorePostgres
import PostgresTestSupport
import Testing

// A stuck database gives 503 storage_unavailable within the configured bounds instead of piling requests up:
// another session holds `LOCK TABLE ceremonies IN ACCESS EXCLUSIVE MODE` (as a long migration or a runaway
// admin transaction would), so every begin, which inserts a ceremony, waits on the lock.

@Suite("HTTP on PostgreSQL: database timeouts", .enabled(if: PostgresHTTP.databaseURL != nil, PostgresHTTP.skipReason))
struct DatabaseTimeoutHTTPTests {
    @Test("a locked table gives 503 storage_unavailable within statement timeout + pool timeout, then recovers")
    func lockedTableGives503Quickly() async throws {
        let baseURL = try #require(PostgresHTTP.databaseURL)
        let schema = try await HTTPTestSchema.create(baseURL: baseURL)
        let statementTimeout = Duration.milliseconds(500)
        let poolTimeout = Duration.milliseconds(300)
        // The pool bounded as the executable bounds its own: from PASSKEYD_DB_* (lease bound 5 s + 0.5 s + 1 s).
        let settings = try TestPasskeyd.unboundedSettings([
            "PASSKEYD_DB_CONNECT_TIMEOUT": "5", "PASSKEYD_DB_STATEMENT_TIMEOUT": "500", "PASSKEYD_DB_POOL_TIMEOUT": "300",
        ])
        let instance: PostgresHTTPInstance
        do {
            instance = try await PostgresHTTPInstance(url: schema.url, settings: settings, poolSize: 2, boundedPool: true, batchLanes: 0)
        } catch {
            await schema.drop()
            throw error
        }
        let locker = try await pgHTTPOffload { try PGConnection.connect(url: schema.url) }
        do {
            try await instance.app.test(.router) { client in
                // Warm: the pool's two connections are open and the statement is prepared.
                // Named begins: they read the user (a discoverable begin touches no table when ceremonies are
                // stateless), and the lock on users stops that read.
                let begin = Array(#"{"user":{"name":"nobody"}}"#.utf8)
                #expect(try await client.post("/v1/authentication/begin", begin).status == 200)

                try await pgHTTPOffload {
                    try locker.simpleQuery("BEGIN")
                    try locker.simpleQuery("LOCK TABLE users IN ACCESS EXCLUSIVE MODE")
                }
                // 16 concurrent begins on a pool of 2: two wait on the lock until the statement timeout, the rest
                // wait for a connection until the pool timeout.
                let start = ContinuousClock.now
                let replies = try await withThrowingTaskGroup(of: (Reply, Duration).self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            let reply = try await client.post("/v1/authentication/begin", begin)
                            return (reply, ContinuousClock.now - start)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let slowest = replies.map(\.1).max()!
                let seconds = Double(slowest.components.seconds) + Double(slowest.components.attoseconds) / 1e18
                print("database timeouts: 16 begins against a locked users table: \(replies.filter { $0.0.status == 503 }.count) × 503, slowest answer after \(String(format: "%.3f", seconds)) s (statement timeout 0.5 s, pool timeout 0.3 s)")
                for (reply, _) in replies {
                    #expect(reply.status == 503 && reply.errorCode == "storage_unavailable")
                }
                #expect(slowest < statementTimeout + poolTimeout + .seconds(4), "bounded (plus slack for a loaded test run), not piled up: \(slowest)")

                try await pgHTTPOffload { try locker.simpleQuery("ROLLBACK") }
                // Unlocked: the same pool answers again, no restart.
                #expect(try await client.post("/v1/authentication/begin", begin).status == 200)
                #expect(try await schema.count("ceremonies") == (TestPasskeyd.sealed ? 0 : 2))
            }
        } catch {
            try? locker.close()
            await instance.shutdown()
            await schema.drop()
            throw error
        }
        try? locker.close()
        await instance.shutdown()
        await schema.drop()
    }
}
