public import Foundation
import LibPQ

/// A private PostgreSQL cluster started with scripts/postgres.sh in /tmp (its own directory and port), so that a
/// test may stop and restart it without disturbing any other test. `run` blocks: call it offloaded.
public struct PrivateCluster: Sendable {
    /// Runs when the shared test database is configured and the PostgreSQL 15 binaries are installed;
    /// PASSKEYD_TEST_PG_RESTART=0 turns it off.
    public static let isAvailable =
        TestDatabase.url != nil && ProcessInfo.processInfo.environment["PASSKEYD_TEST_PG_RESTART"] != "0"
        && FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/pg_ctl")

    /// `/tmp/passkeyd-pg-<label>-…`: matches `/tmp/passkeyd-pg-*`, which `postgres.sh destroy` deletes.
    public let directory: String
    /// Below Linux's ephemeral range (32768...60999 by default): a port in that range can be taken while the server
    /// is down by an outgoing connection's local port, and the restart then fails with EADDRINUSE. Never the shared
    /// cluster's default port.
    public let port = [Int](20_000...29_999).filter { $0 != 25432 }.randomElement()!
    public var url: String { "postgresql://postgres@127.0.0.1:\(port)/passkeyd" }

    public init(label: String) {
        directory = "/tmp/passkeyd-pg-\(label)-" + UUID().uuidString.prefix(8).lowercased()
    }

    /// Runs `scripts/postgres.sh <command>` for this cluster through `system(3)` (Foundation's `Process` did not
    /// notice the script's exit, apparently because the postmaster it starts outlives it).
    public func run(_ command: String) throws {
        let script = TestDatabase.repository.appendingPathComponent("scripts/postgres.sh").path
        let line = "PASSKEYD_PG_DIR='\(directory)' PASSKEYD_PG_PORT=\(port) '\(script)' \(command) >/dev/null </dev/null"
        var status = system(line)
        // `start` can report "server exited during startup" when `pg_ctl status` runs before the new postmaster
        // has written its pid file (a race in postgres.sh under load). `start` is idempotent: try again.
        var attempts = 1
        while status != 0, command == "start", attempts < 4 {
            Thread.sleep(forTimeInterval: 0.5)
            status = system(line)
            attempts += 1
        }
        guard status == 0 else {
            throw PGError(code: .invalidArgument, message: "postgres.sh \(command) exited with status \(status)")
        }
    }
}
