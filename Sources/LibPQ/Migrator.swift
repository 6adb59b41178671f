#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One schema migration: a file `NNNN_name.sql` of a migrations directory.
public struct Migration: Sendable, Hashable, CustomStringConvertible {
    /// The number `NNNN` (1, 2, ...).
    public let version: Int
    /// The part between the number and `.sql`, e.g. `initial`.
    public let name: String
    /// The file's SQL text.
    public let sql: String

    /// Creates a migration.
    /// - Parameters:
    ///   - version: The migration's number, starting at 1.
    ///   - name: Its name (`[a-z0-9_]+`).
    ///   - sql: Trusted SQL text, without transaction control statements.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// The file name, e.g. `0001_initial.sql`.
    public var fileName: String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name + ".sql"
    }

    /// The file name; never the SQL.
    public var description: String { fileName }
}

/// Applies numbered SQL migrations that a database has not recorded yet.
///
/// ## Files
/// The directory holds `NNNN_name.sql` files (`^\d{4}_[a-z0-9_]+\.sql$`), numbered from `0001` without gaps or
/// duplicates. Files not ending in `.sql` (a README) are ignored; a `.sql` file with any other name is an
/// error, so that a misnamed migration is never silently skipped. Each file is run with the simple query
/// protocol, so it may contain several statements, but no `BEGIN`/`COMMIT` and nothing that cannot run inside
/// a transaction (`CREATE INDEX CONCURRENTLY`).
///
/// ## Applying
/// Applied versions are recorded in `schema_migrations(version int primary key, name text, applied_at
/// timestamptz)`, created if missing, in the first schema of the connection's `search_path`. Each migration
/// runs in its own transaction that first takes `pg_advisory_xact_lock(lockKey)`, then re-checks
/// `schema_migrations`, then runs the file and records it. So several instances migrating at once serialize on
/// the lock and each migration is applied exactly once; a failing migration rolls back completely (schema
/// changes and its record) and stops the run. The lock is transaction-scoped, so it cannot leak into the
/// pool with the connection.
///
/// A recorded version whose name differs from the file's is an error (a renumbered or renamed migration).
/// Recorded versions with no file (a newer deployment ran first) are left alone.
public struct Migrator: Sendable {
    /// The default advisory lock key: the ASCII bytes of "passkeyd".
    public static let defaultLockKey: Int64 = 0x7061_7373_6B65_7964

    /// The migrations, in version order.
    public let migrations: [Migration]
    /// The key passed to `pg_advisory_xact_lock`.
    public let lockKey: Int64

    /// Reads and validates the migrations in `directory`.
    /// - Parameters:
    ///   - directory: The migrations directory (e.g. the repository's `Migrations/`).
    ///   - lockKey: The advisory lock key; all instances of one service must use the same key.
    /// - Throws: ``PGError/Code/invalidArgument`` for an unreadable directory or file, a malformed `.sql` file
    ///   name, a duplicate or missing number, or a file that is not UTF-8 or contains a NUL byte.
    public init(directory: URL, lockKey: Int64 = Migrator.defaultLockKey) throws(PGError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw PGError(code: .invalidArgument, message: "cannot list migrations in \(directory.path): \(error)")
        }
        var migrations: [Migration] = []
        for fileName in names.sorted() where fileName.hasSuffix(".sql") {
            guard let (version, name) = Self.parse(fileName: fileName) else {
                throw PGError(
                    code: .invalidArgument,
                    message: "migration file name \(fileName) does not match NNNN_[a-z0-9_]+.sql"
                )
            }
            let file = directory.appendingPathComponent(fileName)
            let data: Data
            do {
                data = try Data(contentsOf: file)
            } catch {
                throw PGError(code: .invalidArgument, message: "cannot read \(file.path): \(error)")
            }
            guard let sql = String(validating: Array(data), as: UTF8.self), !sql.utf8.contains(0) else {
                throw PGError(code: .invalidArgument, message: "\(fileName) is not UTF-8 text without NUL bytes")
            }
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        try self.init(migrations: migrations, lockKey: lockKey)
    }

    /// Uses the given migrations after validating their numbering.
    /// - Parameters:
    ///   - migrations: The migrations, in any order.
    ///   - lockKey: The advisory lock key.
    /// - Throws: ``PGError/Code/invalidArgument`` for a duplicate or missing version, a version outside
    ///   1...9999, or a name that is not `[a-z0-9_]+`.
    public init(migrations: [Migration], lockKey: Int64 = Migrator.defaultLockKey) throws(PGError) {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (index, migration) in sorted.enumerated() {
            guard Self.isValidName(migration.name), (1...9999).contains(migration.version) else {
                throw PGError(code: .invalidArgument, message: "invalid migration \(migration.fileName)")
            }
            guard migration.version == index + 1 else {
                let problem = migration.version <= index ? "duplicate" : "missing"
                throw PGError(
                    code: .invalidArgument,
                    message: "\(problem) migration number before \(migration.fileName): expected \(index + 1)"
                )
            }
        }
        self.migrations = sorted
        self.lockKey = lockKey
    }

    /// The migrations not yet recorded in the database, in order.
    /// - Parameter pool: The pool to use (one connection, briefly).
    /// - Returns: The pending migrations; all of them if `schema_migrations` does not exist.
    /// - Throws: A ``PGError`` from the database; ``PGError/Code/invalidArgument`` if a recorded version has a
    ///   different name than its file.
    public func pending(using pool: PGPool) async throws -> [Migration] {
        try await pool.withConnection { connection in
            let exists = try connection.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
            guard try exists.decode(Bool.self, row: 0, column: 0) else {
                return migrations
            }
            let rows = try connection.execute("SELECT version, name FROM schema_migrations")
            var recorded: [Int: String] = [:]
            for row in rows.rows {
                recorded[Int(try row.decode(Int32.self, column: 0))] = try row.decode(String.self, column: 1)
            }
            var pending: [Migration] = []
            for migration in migrations {
                if let name = recorded[migration.version] {
                    try Self.checkRecordedName(name, of: migration)
                } else {
                    pending.append(migration)
                }
            }
            return pending
        }
    }

    /// Applies the pending migrations in order, each in its own transaction under the advisory lock.
    /// - Parameter pool: The pool to use (one connection for the whole run).
    /// - Returns: The migrations this call applied (empty if there was nothing to do, or another instance
    ///   applied them meanwhile).
    /// - Throws: The first failing migration's ``PGError`` (its message names the file); the migrations before
    ///   it stay applied, it and the later ones do not. ``PGError/Code/invalidArgument`` as for ``pending(using:)``.
    public func migrate(using pool: PGPool) async throws -> [Migration] {
        try await pool.withConnection { connection in
            let lockKey = self.lockKey
            try connection.transaction { connection in
                _ = try connection.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
                try connection.simpleQuery(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version    integer     PRIMARY KEY,
                        name       text        NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """
                )
            }
            var applied: [Migration] = []
            for migration in migrations {
                let didApply = try connection.transaction { connection -> Bool in
                    _ = try connection.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
                    let version = Int32(migration.version)
                    let recorded = try connection.execute("SELECT name FROM schema_migrations WHERE version = \(version)")
                    if recorded.rowCount > 0 {
                        try Self.checkRecordedName(try recorded.decode(String.self, row: 0, column: 0), of: migration)
                        return false
                    }
                    do throws(PGError) {
                        try connection.simpleQuery(migration.sql)
                    } catch {
                        throw PGError(
                            code: error.code,
                            sqlState: error.sqlState,
                            message: "migration \(migration.fileName) failed: \(error.message)",
                            constraintName: error.constraintName
                        )
                    }
                    _ = try connection.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (\(version), \(migration.name))"
                    )
                    return true
                }
                if didApply {
                    applied.append(migration)
                }
            }
            return applied
        }
    }

    // MARK: - Internals

    private static func checkRecordedName(_ recorded: String, of migration: Migration) throws(PGError) {
        guard recorded == migration.name else {
            throw PGError(
                code: .invalidArgument,
                message: "version \(migration.version) is recorded as \(recorded), but the file is \(migration.fileName)"
            )
        }
    }

    /// Parses `NNNN_name.sql` (four ASCII digits, `_`, `[a-z0-9_]+`, `.sql`).
    static func parse(fileName: String) -> (version: Int, name: String)? {
        let bytes = Array(fileName.utf8)
        guard bytes.count > 9, bytes[4] == UInt8(ascii: "_"), fileName.hasSuffix(".sql") else {
            return nil
        }
        let digits = bytes[0..<4]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        let version = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        let name = String(decoding: bytes[5..<(bytes.count - 4)], as: UTF8.self)
        guard isValidName(name) else {
            return nil
        }
        return (version, name)
    }

    private static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            }
    }
}
