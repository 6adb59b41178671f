import Foundation
import LibPQ
import Synchronization
import PostgresTestSupport
import Testing

/// Writes `files` (name → SQL) into a fresh temporary directory.
private func migrationsDirectory(_ files: [String: String]) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, sql) in files {
        try Data(sql.utf8).write(to: directory.appendingPathComponent(name))
    }
    return directory
}

@Suite("Migrator file validation")
struct MigratorFileTests {
    @Test func readsNumberedFilesInOrderAndIgnoresOtherFiles() throws {
        let directory = try migrationsDirectory([
            "0002_second.sql": "SELECT 2",
            "0001_first_one.sql": "SELECT 1",
            "README.md": "not a migration",
        ])
        let migrator = try Migrator(directory: directory)
        #expect(migrator.migrations.map(\.fileName) == ["0001_first_one.sql", "0002_second.sql"])
        #expect(migrator.migrations.map(\.version) == [1, 2])
        #expect(migrator.migrations[0].name == "first_one")
        #expect(migrator.migrations[1].sql == "SELECT 2")
    }

    @Test(arguments: [
        ["0001_Initial.sql": ""],  // upper case
        ["001_initial.sql": ""],  // three digits
        ["0001-initial.sql": ""],
        ["0001_.sql": ""],
        ["0001_init ial.sql": ""],
        ["0001_a.sql": "", "0001_b.sql": ""],  // duplicate number
        ["0001_a.sql": "", "0003_c.sql": ""],  // gap
        ["0002_b.sql": ""],  // does not start at 1
    ])
    func rejectsMalformedNamesGapsAndDuplicates(_ files: [String: String]) throws {
        let directory = try migrationsDirectory(files)
        #expect(throws: PGError.invalidArgument) { try Migrator(directory: directory) }
    }

    @Test func rejectsAMissingDirectory() {
        #expect(throws: PGError.invalidArgument) {
            try Migrator(directory: URL(fileURLWithPath: "/nonexistent/migrations"))
        }
    }

    @Test func repositoryMigrationsAreValid() throws {
        let migrator = try Migrator(directory: PostgresTestSupport.TestDatabase.repository.appendingPathComponent("Migrations"))
        #expect(migrator.migrations.first?.fileName == "0001_initial.sql")
    }
}

@Suite(
    "Migrator against PostgreSQL",
    .enabled(
        if: TestDatabase.url != nil,
        "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)"
    )
)
struct MigratorTests {
    /// Each migrator in these tests uses its own lock key, so parallel tests do not wait for each other.
    private func migrator(_ files: [String: String]) throws -> Migrator {
        try Migrator(directory: try migrationsDirectory(files), lockKey: Int64.random(in: 1...Int64.max))
    }

    @Test func concurrentMigrationsFromTwoPoolsApplyEachMigrationOnce() async throws {
        try await withTestSchema { schema in
            let files = [
                "0001_log.sql": "CREATE TABLE applied_log (version int4 NOT NULL, at timestamptz DEFAULT clock_timestamp());",
                "0002_first.sql": "INSERT INTO applied_log (version) VALUES (2); SELECT pg_sleep(0.2);",
                "0003_second.sql": "CREATE TABLE t3 (x int4); INSERT INTO applied_log (version) VALUES (3);",
            ]
            let migrator = try migrator(files)
            try await withPool(url: schema.url, size: 1) { poolA in
                try await withPool(url: schema.url, size: 1) { poolB in
                    #expect(try await migrator.pending(using: poolA).map(\.version) == [1, 2, 3])
                    async let appliedA = migrator.migrate(using: poolA)
                    async let appliedB = migrator.migrate(using: poolB)
                    let applied = try await (appliedA + appliedB).map(\.version).sorted()
                    #expect(applied == [1, 2, 3])

                    let (log, recorded) = try await poolA.withConnection { connection in
                        let log = try connection.execute("SELECT version FROM applied_log ORDER BY version")
                            .rows.map { try $0.decode(Int32.self, column: 0) }
                        let recorded = try connection.execute("SELECT version, name FROM schema_migrations ORDER BY version")
                            .rows.map { "\(try $0.decode(Int32.self, column: 0)):\(try $0.decode(String.self, column: 1))" }
                        return (log, recorded)
                    }
                    #expect(log == [2, 3])
                    #expect(recorded == ["1:log", "2:first", "3:second"])
                    #expect(try await migrator.pending(using: poolB).isEmpty)
                    #expect(try await migrator.migrate(using: poolB).isEmpty)
                    #expect(try await migrator.migrate(using: poolA).isEmpty)
                }
            }
        }
    }

    @Test func failingMigrationRollsBackAndStaysUnrecorded() async throws {
        try await withTestSchema { schema in
            var files = [
                "0001_ok.sql": "CREATE TABLE one (x int4);",
                "0002_broken.sql": "CREATE TABLE two (x int4); INSERT INTO one VALUES (1); SELECT 1 / 0;",
                "0003_later.sql": "CREATE TABLE three (x int4);",
            ]
            let broken = try migrator(files)
            try await withPool(url: schema.url, size: 1) { pool in
                let error = await #expect(throws: PGError.self) { try await broken.migrate(using: pool) }
                #expect(error?.sqlState == .divisionByZero)
                #expect(try await broken.pending(using: pool).map(\.version) == [2, 3])
                let tables = try await pool.withConnection { connection in
                    try connection.execute(
                        "SELECT to_regclass('two') IS NULL, to_regclass('three') IS NULL, (SELECT count(*) FROM one)"
                    )
                }
                #expect(try tables.decode(Bool.self, row: 0, column: 0))
                #expect(try tables.decode(Bool.self, row: 0, column: 1))
                #expect(try tables.decode(Int64.self, row: 0, column: 2) == 0)
                #expect(try await pool.withConnection { $0.isInTransaction } == false)

                files["0002_broken.sql"] = "CREATE TABLE two (x int4);"
                let fixed = try Migrator(directory: try migrationsDirectory(files), lockKey: broken.lockKey)
                #expect(try await fixed.migrate(using: pool).map(\.version) == [2, 3])
                #expect(try await fixed.migrate(using: pool).isEmpty)
            }
        }
    }

    @Test func renamedMigrationIsRefused() async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 1) { pool in
                _ = try await migrator(["0001_original.sql": "SELECT 1"]).migrate(using: pool)
                let renamed = try migrator(["0001_renamed.sql": "SELECT 1"])
                await #expect(throws: PGError.invalidArgument) { try await renamed.pending(using: pool) }
                await #expect(throws: PGError.invalidArgument) { try await renamed.migrate(using: pool) }
            }
        }
    }
}

// MARK: - the production schema, Migrations/0001_initial.sql

@Suite(
    "0001_initial.sql schema",
    .enabled(
        if: TestDatabase.url != nil,
        "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)"
    )
)
struct InitialSchemaTests {
    static let consume = """
        DELETE FROM ceremonies WHERE challenge = $1 AND kind = $2 AND expires_at > now() RETURNING user_handle, state
        """
    static let updateCounter = """
        UPDATE credentials SET sign_count = $2, last_used_at = now()
         WHERE id = $1 AND (sign_count < $2 OR ($2 = 0 AND sign_count = 0))
        """

    /// Applies the repository's migrations to a fresh schema and runs `body` with a pool on it.
    private func withSchema(_ body: (PGPool) async throws -> Void) async throws {
        try await withTestSchema { schema in
            try await withPool(url: schema.url, size: 4) { pool in
                let migrator = try Migrator(
                    directory: PostgresTestSupport.TestDatabase.repository.appendingPathComponent("Migrations"),
                    lockKey: Int64.random(in: 1...Int64.max)
                )
                #expect(try await migrator.migrate(using: pool).map(\.fileName).first == "0001_initial.sql")
                #expect(try await migrator.migrate(using: pool).isEmpty)
                try await body(pool)
            }
        }
    }

    private static func insertUser(_ connection: PGConnection, handle: [UInt8], name: String) throws -> Int64 {
        try connection.execute(
            "INSERT INTO users (user_handle, name, display_name) VALUES (\(handle), \(name), \(name)) RETURNING id"
        ).decode(Int64.self, row: 0, column: 0)
    }

    private static func insertCredential(
        _ connection: PGConnection,
        id: [UInt8],
        userID: Int64,
        signCount: Int64 = 0,
        backupEligible: Bool = true,
        backupState: Bool = false
    ) throws {
        _ = try connection.execute(
            """
            INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, backup_eligible, backup_state,
                                     uv_initialized, transports, aaguid, attestation_format, attestation_object,
                                     client_data_json)
            VALUES (\(id), \(userID), \([UInt8]([0xA5, 0x01, 0x02])), \(Int32(-7)), \(signCount), \(backupEligible),
                    \(backupState), \(true), \(["internal", "hybrid"]), \(UUID()), \("none"), \([UInt8]([0xA0])),
                    \(Array("{}".utf8)))
            """
        )
    }

    private static func insertCeremony(_ connection: PGConnection, challenge: [UInt8], expiresIn seconds: Int32 = 300) throws {
        _ = try connection.execute(
            """
            INSERT INTO ceremonies (challenge, kind, user_handle, state, expires_at)
            VALUES (\(challenge), \("authentication"), \([UInt8]?.none), \([UInt8]([1, 2, 3])),
                    now() + make_interval(secs => \(seconds)))
            """
        )
    }

    @Test func duplicateCredentialIDIsAUniqueViolationAcrossUsers() async throws {
        try await withSchema { pool in
            try await pool.withConnection { connection in
                let ada = try Self.insertUser(connection, handle: [1], name: "ada")
                let bob = try Self.insertUser(connection, handle: [2], name: "bob")
                try Self.insertCredential(connection, id: [9, 9, 9], userID: ada)
                for owner in [ada, bob] {
                    let error = try #require(throws: PGError.self) {
                        try Self.insertCredential(connection, id: [9, 9, 9], userID: owner)
                    }
                    #expect(error.sqlState == .uniqueViolation)
                    #expect(error.constraintName == "credentials_pkey")
                }
                let duplicateName = try #require(throws: PGError.self) { try Self.insertUser(connection, handle: [3], name: "ada") }
                #expect(duplicateName.sqlState == .uniqueViolation && duplicateName.constraintName == "users_name_key")
                let duplicateHandle = try #require(throws: PGError.self) { try Self.insertUser(connection, handle: [1], name: "cy") }
                #expect(duplicateHandle.constraintName == "users_user_handle_key")
                let orphan = try #require(throws: PGError.self) { try Self.insertCredential(connection, id: [7], userID: 999_999) }
                #expect(orphan.sqlState == .foreignKeyViolation)
            }
        }
    }

    @Test func checkConstraints() async throws {
        try await withSchema { pool in
            try await pool.withConnection { connection in
                let user = try Self.insertUser(connection, handle: [1], name: "ada")
                let violations: [(String, () throws -> Void)] = [
                    ("users_user_handle_length", { _ = try Self.insertUser(connection, handle: [], name: "e") }),
                    ("users_user_handle_length", { _ = try Self.insertUser(connection, handle: .init(repeating: 1, count: 65), name: "f") }),
                    ("credentials_id_length", { try Self.insertCredential(connection, id: [], userID: user) }),
                    ("credentials_id_length", { try Self.insertCredential(connection, id: .init(repeating: 1, count: 1024), userID: user) }),
                    ("credentials_sign_count_range", { try Self.insertCredential(connection, id: [2], userID: user, signCount: -1) }),
                    ("credentials_sign_count_range", { try Self.insertCredential(connection, id: [3], userID: user, signCount: 4_294_967_296) }),
                    ("credentials_backup_state_requires_eligible", {
                        try Self.insertCredential(connection, id: [4], userID: user, backupEligible: false, backupState: true)
                    }),
                    ("ceremonies_kind_check", {
                        _ = try connection.execute(
                            "INSERT INTO ceremonies (challenge, kind, state, expires_at) VALUES (\([UInt8](repeating: 5, count: 16)), \("login"), \([UInt8]()), now())"
                        )
                    }),
                    ("ceremonies_challenge_length", { try Self.insertCeremony(connection, challenge: [1, 2, 3]) }),
                ]
                for (constraint, violate) in violations {
                    let error = try #require(throws: PGError.self, "\(constraint)") { try violate() }
                    #expect(error.sqlState == .checkViolation, "\(constraint)")
                    #expect(error.constraintName == constraint)
                }
                try Self.insertCredential(connection, id: .init(repeating: 1, count: 1023), userID: user, signCount: 4_294_967_295)
                let defaults = try connection.execute("SELECT transports, nickname, last_used_at IS NULL, created_at <= now() FROM credentials")
                #expect(try defaults.decode([String].self, row: 0, column: 0) == ["internal", "hybrid"])
                #expect(try defaults.decode(String?.self, row: 0, column: 1) == nil)
                #expect(try defaults.decode(Bool.self, row: 0, column: 2))
            }
        }
    }

    @Test func deletingAUserCascadesToItsCredentials() async throws {
        try await withSchema { pool in
            try await pool.withConnection { connection in
                let ada = try Self.insertUser(connection, handle: [1], name: "ada")
                let bob = try Self.insertUser(connection, handle: [2], name: "bob")
                try Self.insertCredential(connection, id: [1], userID: ada)
                try Self.insertCredential(connection, id: [2], userID: ada)
                try Self.insertCredential(connection, id: [3], userID: bob)
                #expect(try connection.execute("DELETE FROM users WHERE id = \(ada)").affectedRows == 1)
                let left = try connection.execute("SELECT id FROM credentials").rows.map { try $0.decode([UInt8].self, column: 0) }
                #expect(left == [[3]])
            }
        }
    }

    @Test func consumeReturnsTheCeremonyOnceAndNeverWhenExpired() async throws {
        try await withSchema { pool in
            try await pool.withConnection { connection in
                let challenge = [UInt8](repeating: 0xC1, count: 32)
                try Self.insertCeremony(connection, challenge: challenge)
                let consume = { (kind: String) throws -> PGResult in
                    var bindings = PGBindings()
                    bindings.append(challenge)
                    bindings.append(kind)
                    return try connection.execute(PGQuery(unsafeSQL: Self.consume, bindings: bindings))
                }
                #expect(try consume("registration").rowCount == 0)  // wrong kind: not consumed
                let first = try consume("authentication")
                #expect(first.rowCount == 1)
                #expect(try first.decode([UInt8].self, row: 0, column: "state") == [1, 2, 3])
                #expect(try first.decode([UInt8]?.self, row: 0, column: "user_handle") == nil)
                #expect(try consume("authentication").rowCount == 0)

                let expired = [UInt8](repeating: 0xE1, count: 16)
                try Self.insertCeremony(connection, challenge: expired, expiresIn: -1)
                var bindings = PGBindings()
                bindings.append(expired)
                bindings.append("authentication")
                #expect(try connection.execute(PGQuery(unsafeSQL: Self.consume, bindings: bindings)).rowCount == 0)
            }
        }
    }

    @Test func concurrentConsumesInTwoConnectionsReturnTheRowExactlyOnce() async throws {
        try await withSchema { pool in
            // Deterministic interleaving: A deletes inside an open transaction, B's DELETE then blocks on the row
            // lock, A commits, B re-evaluates against the committed state and returns nothing.
            let challenge = [UInt8](repeating: 0xAB, count: 16)
            try await pool.withConnection { try Self.insertCeremony($0, challenge: challenge) }
            var bindings = PGBindings()
            bindings.append(challenge)
            bindings.append("authentication")
            let query = PGQuery(unsafeSQL: Self.consume, bindings: bindings)

            let aDeleted = Locked(false)
            async let a = pool.withTransaction { connection -> Int in
                let rows = try connection.execute(query).rowCount
                aDeleted.withLock { $0 = true }
                Thread.sleep(forTimeInterval: 0.4)
                return rows
            }
            try await waitUntil { aDeleted.withLock { $0 } }
            async let b = pool.withConnection { connection in try connection.execute(query).rowCount }
            let counts = try await [a, b]
            #expect(counts == [1, 0])

            // Free-for-all: many concurrent consumers of one challenge, exactly one row in total.
            let racing = [UInt8](repeating: 0xCD, count: 16)
            try await pool.withConnection { try Self.insertCeremony($0, challenge: racing) }
            var raceBindings = PGBindings()
            raceBindings.append(racing)
            raceBindings.append("authentication")
            let race = PGQuery(unsafeSQL: Self.consume, bindings: raceBindings)
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await pool.withConnection { try $0.execute(race).rowCount } }
                }
                return try await group.reduce(0, +)
            }
            #expect(total == 1)
        }
    }

    @Test func counterUpdateNeverRegresses() async throws {
        try await withSchema { pool in
            try await pool.withConnection { connection in
                let user = try Self.insertUser(connection, handle: [1], name: "ada")
                try Self.insertCredential(connection, id: [1], userID: user, signCount: 0)
                try Self.insertCredential(connection, id: [2], userID: user, signCount: 10)
                let update = { (id: [UInt8], count: Int64) throws -> Int? in
                    var bindings = PGBindings()
                    bindings.append(id)
                    bindings.append(count)
                    return try connection.execute(PGQuery(unsafeSQL: Self.updateCounter, bindings: bindings)).affectedRows
                }
                #expect(try update([1], 0) == 1)  // counterless authenticator: 0 stays 0
                #expect(try update([2], 0) == 0)  // 10 -> 0 is a regression
                #expect(try update([2], 10) == 0)  // equal is not an increase
                #expect(try update([2], 9) == 0)
                #expect(try update([2], 11) == 1)
                #expect(try update([1], 5) == 1)
                #expect(try update([1], 0) == 0)  // once counting, 0 is a regression
                #expect(try update([3], 50) == 0)  // unknown credential
                let counts = try connection.execute("SELECT sign_count FROM credentials ORDER BY id").rows.map {
                    try $0.decode(Int64.self, column: 0)
                }
                #expect(counts == [5, 11])
            }
        }
    }
}
