public import Foundation
public import LibPQ
public import NIOPosix

/// The PostgreSQL the tests run against: the one the test command starts (`PASSKEYD_TEST_DATABASE_URL`), the
/// repository's migrations, and a fresh migrated schema per test (``TestSchema``). Shared by every test target that
/// needs a database, so none keeps its own copy.
public enum TestDatabase {
    /// The shared test database (`scripts/dev.sh test` always sets it); nil: the PostgreSQL tests are skipped.
    public static let url = ProcessInfo.processInfo.environment["PASSKEYD_TEST_DATABASE_URL"]

    /// Sources/PostgresTestSupport/this file → the repository.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let migrations = repository.appendingPathComponent("Migrations")

    /// `url` with `search_path` set to `schema` (URI or keyword/value form).
    public static func url(_ base: String, searchPath schema: String) -> String {
        if base.contains("://") {
            return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
        }
        return base + " options='-csearch_path=" + schema + "'"
    }

    /// Creates an empty schema (no migrations) on `base`; a URL whose connections use it. Blocking.
    public static func emptySchema(base: String) throws -> String {
        let schema = "t_" + (0..<8).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        let admin = try PGConnection.connect(url: base)
        defer { try? admin.close() }
        try admin.simpleQuery("CREATE SCHEMA \(schema)")
        return url(base, searchPath: schema)
    }
}

/// Runs blocking work (a direct libpq connection, a child process) on a Dispatch thread, not on the test's
/// cooperative thread.
public func pgOffload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result(catching: body)) }
    }
}

/// One test's schema: created and migrated by ``create(baseURL:)``, dropped by ``drop()``. Its `inspector` pool
/// runs the test's own queries (row counts, snapshots) straight against the tables.
public struct TestSchema: Sendable {
    public let name: String
    public let baseURL: String
    /// `baseURL` with the search_path set to this schema.
    public let url: String
    public let threadPool: NIOThreadPool
    public let inspector: PGPool

    public static func create(baseURL: String) async throws -> TestSchema {
        let name = "h_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try await pgOffload {
            let admin = try PGConnection.connect(url: baseURL)
            defer { try? admin.close() }
            try admin.simpleQuery("CREATE SCHEMA \(name)")
        }
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let url = TestDatabase.url(baseURL, searchPath: String(name))
        let schema = TestSchema(
            name: String(name), baseURL: baseURL, url: url, threadPool: threadPool,
            inspector: PGPool(url: url, size: 1, threadPool: threadPool))
        do {
            _ = try await Migrator(directory: TestDatabase.migrations).migrate(using: schema.inspector)
        } catch {
            await schema.drop()
            throw error
        }
        return schema
    }

    /// Drops the schema (CASCADE) and stops the inspector; failures are ignored (cleanup only).
    public func drop() async {
        await inspector.shutdown()
        try? await threadPool.shutdownGracefully()
        let name = self.name
        let baseURL = self.baseURL
        _ = try? await pgOffload {
            let admin = try PGConnection.connect(url: baseURL)
            defer { try? admin.close() }
            try admin.simpleQuery("DROP SCHEMA IF EXISTS \(name) CASCADE")
        }
    }

    /// Runs one read in the schema; retried once after a connection-level error (the restart test's server
    /// restarts under the inspector's connection too).
    public func query(_ query: PGQuery) async throws -> PGResult {
        do {
            return try await inspector.withConnection { try $0.execute(query) }
        } catch {
            guard (error as? PGError)?.isConnectionError == true else { throw error }
            return try await inspector.withConnection { try $0.execute(query) }
        }
    }

    public func count(_ table: String, where condition: String = "true") async throws -> Int {
        let result = try await query(PGQuery(unsafeSQL: "SELECT count(*) FROM \(table) WHERE \(condition)"))
        return Int(try result.decode(Int64.self, row: 0, column: 0))
    }

    /// Every row of users and credentials (all columns, as JSON text), for before/after comparisons.
    public func snapshot() async throws -> String {
        let result = try await query("""
            SELECT coalesce((SELECT json_agg(u ORDER BY u.id)::text FROM users u), '[]')
                || ' ' || coalesce((SELECT json_agg(c ORDER BY c.id)::text FROM credentials c), '[]')
            """)
        return try result.decode(String.self, row: 0, column: 0)
    }

    /// A credential's row as the tests look at it.
    public struct CredentialRow: Equatable {
        public let signCount: Int64
        public let lastUsedAt: Date?
        public let nickname: String?
        public let userName: String
        public let userHandle: [UInt8]
    }

    public func credential(_ id: [UInt8]) async throws -> CredentialRow? {
        let result = try await query("""
            SELECT c.sign_count, c.last_used_at, c.nickname, u.name, u.user_handle
              FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = \(id)
            """)
        guard result.rowCount == 1 else { return nil }
        return CredentialRow(
            signCount: try result.decode(Int64.self, row: 0, column: 0),
            lastUsedAt: try result.decode(Date?.self, row: 0, column: 1),
            nickname: try result.decode(String?.self, row: 0, column: 2),
            userName: try result.decode(String.self, row: 0, column: 3),
            userHandle: try result.decode([UInt8].self, row: 0, column: 4))
    }

    public func signCount(_ id: [UInt8]) async throws -> Int64? { try await credential(id)?.signCount }
}
