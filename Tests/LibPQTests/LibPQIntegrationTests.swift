import Dispatch
import Foundation
import LibPQ
import Synchronization
import Testing

// Integration tests against a real PostgreSQL server, configured by PASSKEYD_TEST_DATABASE_URL:
//
//     scripts/postgres.sh start
//     PASSKEYD_TEST_DATABASE_URL=$(scripts/postgres.sh url) swift test --filter LibPQTests
//
// Without the variable the suite is reported as skipped. Each test opens its own connection and works only in
// TEMP tables, which belong to that session: tests can run in parallel and never touch the real schema.

enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["PASSKEYD_TEST_DATABASE_URL"]

    static func connect() throws -> PGConnection {
        guard let url else {
            throw PGError(code: .invalidArgument, message: "PASSKEYD_TEST_DATABASE_URL is not set")
        }
        return try PGConnection.connect(url: url)
    }
}

struct ExpectedFailure: Error, Equatable {}

@Suite(
    "LibPQ against PostgreSQL",
    .enabled(
        if: TestDatabase.url != nil,
        "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)"
    )
)
struct LibPQIntegrationTests {
    let db: PGConnection

    init() throws {
        db = try TestDatabase.connect()
    }

    // MARK: connection basics

    @Test func connectsWithUTF8AndIntegerTimestamps() throws {
        #expect(db.isHealthy)
        #expect(!db.isInTransaction)
        #expect((db.serverVersion ?? 0) >= 150_000)
        let result = try db.execute("SELECT current_setting('client_encoding') AS enc, current_database() AS db")
        #expect(try result.decode(String.self, row: 0, column: "enc") == "UTF8")
    }

    @Test func keyValueConnectionStringsWorkToo() throws {
        let result = try db.execute(
            "SELECT inet_server_port() AS port, current_database() AS db, current_user::text AS usr"
        )
        let port = try #require(try result.decode(Int32?.self, row: 0, column: "port"))
        let name = try result.decode(String.self, row: 0, column: "db")
        let user = try result.decode(String.self, row: 0, column: "usr")
        let other = try PGConnection.connect(url: "host=127.0.0.1 port=\(port) dbname=\(name) user=\(user)")
        #expect(try other.execute("SELECT 1::int4").decode(Int32.self, row: 0, column: 0) == 1)

        // Text is decoded as UTF-8, so the connection string cannot change the client encoding.
        let latin1 = try PGConnection.connect(
            url: "host=127.0.0.1 port=\(port) dbname=\(name) user=\(user) client_encoding=LATIN1 application_name=t"
        )
        let settings = try latin1.execute(
            "SELECT current_setting('client_encoding'), current_setting('application_name'), \("ü")"
        )
        #expect(try settings.decode(String.self, row: 0, column: 0) == "UTF8")
        #expect(try settings.decode(String.self, row: 0, column: 1) == "t")
        #expect(try settings.decode(String.self, row: 0, column: 2) == "ü")
    }

    @Test func deinitAndCloseEndTheServerSession() throws {
        func pid(of connection: PGConnection) throws -> Int32 {
            try connection.execute("SELECT pg_backend_pid()").decode(Int32.self, row: 0, column: 0)
        }
        func waitUntilGone(_ backend: Int32) throws -> Bool {
            for _ in 0..<100 {
                let alive = try db.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = \(backend)")
                if try alive.decode(Int64.self, row: 0, column: 0) == 0 {
                    return true
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }

        var dropped: PGConnection? = try TestDatabase.connect()
        let droppedPID = try pid(of: try #require(dropped))
        dropped = nil
        #expect(try waitUntilGone(droppedPID), "deinit must PQfinish the connection")

        let closed = try TestDatabase.connect()
        let closedPID = try pid(of: closed)
        try closed.close()
        try closed.close()  // idempotent
        #expect(try waitUntilGone(closedPID))
        #expect(!closed.isHealthy)
        #expect(throws: PGError.connectionClosed) { try closed.execute("SELECT 1") }
    }

    // MARK: round trips of every supported type

    private func roundTrip<T: PGCodable & Equatable>(_ value: T) throws -> T {
        let result = try db.execute("SELECT \(value) AS v")
        #expect(result.columns[0].type == T.pgType)
        return try result.decode(T.self, row: 0, column: 0)
    }

    @Test(arguments: [true, false])
    func bool(_ value: Bool) throws {
        #expect(try roundTrip(value) == value)
        #expect(
            try db.execute("SELECT \(value) = \(value ? "true" : "false")::bool").decode(Bool.self, row: 0, column: 0)
        )
    }

    @Test(arguments: [Int16.min, -1, 0, 1, Int16.max])
    func int2(_ value: Int16) throws {
        #expect(try roundTrip(value) == value)
        #expect(try db.execute("SELECT \(value)::text").decode(String.self, row: 0, column: 0) == String(value))
    }

    @Test(arguments: [Int32.min, -1, 0, 1, Int32.max])
    func int4(_ value: Int32) throws {
        #expect(try roundTrip(value) == value)
        #expect(try db.execute("SELECT \(value)::text").decode(String.self, row: 0, column: 0) == String(value))
    }

    @Test(arguments: [Int64.min, -1, 0, 1, 1 << 40, Int64.max])
    func int8(_ value: Int64) throws {
        #expect(try roundTrip(value) == value)
        #expect(try roundTrip(Int(value)) == Int(value))
        #expect(try db.execute("SELECT \(value)::text").decode(String.self, row: 0, column: 0) == String(value))
    }

    @Test func integersWidenButNeverNarrow() throws {
        let result = try db.execute("SELECT (-7)::int2, 123456::int4, 5000000000::int8")
        #expect(try result.decode(Int64.self, row: 0, column: 0) == -7)
        #expect(try result.decode(Int32.self, row: 0, column: 0) == -7)
        #expect(try result.decode(Int64.self, row: 0, column: 1) == 123_456)
        #expect(try result.decode(Int.self, row: 0, column: 2) == 5_000_000_000)
        #expect(throws: PGError.typeMismatch) { try result.decode(Int16.self, row: 0, column: 1) }
        #expect(throws: PGError.typeMismatch) { try result.decode(Int32.self, row: 0, column: 2) }
    }

    @Test(arguments: [
        "", "plain ascii", "Grüße, 世界 🚀 ‮RTL‬", "quote ' and \" and \\ and $1", String(repeating: "é", count: 10_000),
    ])
    func text(_ value: String) throws {
        #expect(try roundTrip(value) == value)
        let lengths = try db.execute("SELECT char_length(\(value))::int8, octet_length(\(value))::int8")
        #expect(try lengths.decode(Int64.self, row: 0, column: 0) == Int64(value.unicodeScalars.count))
        #expect(try lengths.decode(Int64.self, row: 0, column: 1) == Int64(value.utf8.count))
    }

    @Test func textWithNulIsRejectedByTheServer() throws {
        let error = try #require(throws: PGError.self) { try db.execute("SELECT \("a\u{0}b")") }
        #expect(error.code == .queryFailed)
        #expect(error.sqlState == .characterNotInRepertoire)
        #expect(db.isHealthy)
    }

    @Test func varcharAndNameDecodeAsString() throws {
        let result = try db.execute("SELECT 'v'::varchar(5), 'c'::char(3), 'n'::name, ARRAY['x','y']::varchar[]")
        #expect(try result.decode(String.self, row: 0, column: 0) == "v")
        #expect(try result.decode(String.self, row: 0, column: 1) == "c  ")
        #expect(try result.decode(String.self, row: 0, column: 2) == "n")
        #expect(try result.decode([String].self, row: 0, column: 3) == ["x", "y"])
    }

    /// Bytes with a short description, so a 1 MiB argument does not flood the test log.
    struct Bytes: CustomTestStringConvertible, Sendable {
        let value: [UInt8]
        var testDescription: String { "\(value.count) bytes" }
    }

    @Test(arguments: ([[], [0], [0, 1, 2, 255], Array(0...255), [UInt8](repeating: 0xAB, count: 1 << 20)] as [[UInt8]]).map(Bytes.init))
    func bytea(_ bytes: Bytes) throws {
        let value = bytes.value
        #expect(try roundTrip(value) == value)
        let hex = value.map { String(format: "%02x", $0) }.joined()
        #expect(try db.execute("SELECT encode(\(value), 'hex')").decode(String.self, row: 0, column: 0) == hex)
        #expect(try roundTrip(Data(value)) == Data(value))
    }

    @Test func emptyByteaIsNotNull() throws {
        let result = try db.execute("SELECT \([UInt8]()) IS NULL, octet_length(\([UInt8]()))::int4, \([UInt8]())")
        #expect(try result.decode(Bool.self, row: 0, column: 0) == false)
        #expect(try result.decode(Int32.self, row: 0, column: 1) == 0)
        #expect(try result.isNull(row: 0, column: 2) == false)
        #expect(result[row: 0, column: 2] == [])
        #expect(try result.decode([UInt8].self, row: 0, column: 2) == [])
    }

    @Test func timestamps() throws {
        // 2024-02-29 12:34:56.789012 UTC, compared with the server's own parsing of the same instant.
        let micros: Int64 = (8825 * 86_400 + 12 * 3600 + 34 * 60 + 56) * 1_000_000 + 789_012
        let timestamp = PGTimestamp(microsecondsSince2000: micros)
        let same = try db.execute("SELECT \(timestamp) = '2024-02-29 12:34:56.789012+00'::timestamptz")
        #expect(try same.decode(Bool.self, row: 0, column: 0))
        #expect(try roundTrip(timestamp) == timestamp)

        let date = try #require(timestamp.date)
        let decoded = try roundTrip(date)
        #expect(abs(decoded.timeIntervalSince(date)) < 1e-6)
        #expect(PGTimestamp(decoded) == timestamp)

        let fixed = try db.execute(
            """
            SELECT '2000-01-01 00:00:00+00'::timestamptz, '1970-01-01 00:00:00+00'::timestamptz,
                   'infinity'::timestamptz, '-infinity'::timestamptz, '1900-06-30 23:59:59.999999+00'::timestamptz
            """
        )
        #expect(try fixed.decode(PGTimestamp.self, row: 0, column: 0) == PGTimestamp(microsecondsSince2000: 0))
        #expect(try fixed.decode(Date.self, row: 0, column: 1) == Date(timeIntervalSince1970: 0))
        #expect(try fixed.decode(PGTimestamp.self, row: 0, column: 2) == .infinity)
        #expect(try fixed.decode(PGTimestamp.self, row: 0, column: 3) == .negativeInfinity)
        #expect(throws: PGError.invalidValue) { try fixed.decode(Date.self, row: 0, column: 2) }
        let old = try fixed.decode(Date.self, row: 0, column: 4)
        #expect(abs(old.timeIntervalSince1970 - -2_193_350_400.000001) < 1e-6)

        #expect(try roundTrip(PGTimestamp.infinity) == .infinity)
        let now = try db.execute("SELECT now()").decode(Date.self, row: 0, column: 0)
        #expect(abs(now.timeIntervalSinceNow) < 300)
    }

    @Test func nanDateFailsAtExecuteWithoutReachingTheServer() throws {
        let bad = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(throws: PGError.invalidValue) { try db.execute("SELECT \(bad)") }
        #expect(db.isHealthy)
    }

    @Test func timestampWithoutTimeZoneIsNotADate() throws {
        let result = try db.execute("SELECT '2024-01-01 00:00:00'::timestamp")
        #expect(throws: PGError.typeMismatch) { try result.decode(Date.self, row: 0, column: 0) }
    }

    @Test func uuids() throws {
        let random = UUID()
        #expect(try roundTrip(random) == random)
        let text = try db.execute("SELECT \(random)::text").decode(String.self, row: 0, column: 0)
        #expect(text == random.uuidString.lowercased())
        let fixed = try db.execute("SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid")
        #expect(
            try fixed.decode(UUID.self, row: 0, column: 0) == UUID(uuidString: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")
        )
    }

    @Test(
        arguments: [[], ["one"], ["a", "b,c", "{braces}", "\"quoted\"", " ", "", "NULL", "ünïcödé 🚀"]] as [[String]]
    )
    func textArrays(_ value: [String]) throws {
        #expect(try roundTrip(value) == value)
        let result = try db.execute("SELECT cardinality(\(value))::int4, \(value) = \(value)::text[]")
        #expect(try result.decode(Int32.self, row: 0, column: 0) == Int32(value.count))
        #expect(try result.decode(Bool.self, row: 0, column: 1))
    }

    @Test func serverBuiltTextArrays() throws {
        let result = try db.execute(
            "SELECT ARRAY['x','y'], '{}'::text[], ARRAY[NULL, 'a']::text[], '{{a},{b}}'::text[], '[0:1]={p,q}'::text[]"
        )
        #expect(try result.decode([String].self, row: 0, column: 0) == ["x", "y"])
        #expect(try result.decode([String].self, row: 0, column: 1) == [])
        #expect(throws: PGError.unexpectedNull) { try result.decode([String].self, row: 0, column: 2) }
        #expect(throws: PGError.typeMismatch) { try result.decode([String].self, row: 0, column: 3) }
        #expect(try result.decode([String].self, row: 0, column: 4) == ["p", "q"])
    }

    @Test func otherArrays() throws {
        #expect(try roundTrip([Int64.min, 0, Int64.max]) == [Int64.min, 0, Int64.max])
        #expect(try roundTrip([true, false]) == [true, false])
        let ids = [UUID(), UUID()]
        #expect(try roundTrip(ids) == ids)
        let count = try db.execute("SELECT cardinality(\([Int32(1), 2, 3]))::int4")
        #expect(try count.decode(Int32.self, row: 0, column: 0) == 3)
    }

    /// `[T?]`: NULL elements, as the batch statements' `unnest` columns bind them; the server sees NULLs where the
    /// elements are nil, and they come back as nil.
    @Test func arraysWithNullElements() throws {
        #expect(try roundTrip(["a", nil, "", nil] as [String?]) == ["a", nil, "", nil])
        #expect(try roundTrip([nil, true, false] as [Bool?]) == [nil, true, false])
        #expect(try roundTrip([String?]()) == [])
        #expect(try roundTrip(["x", "y"] as [String?]) == ["x", "y"], "no NULL: the flag is clear")
        let nulls = try db.execute("SELECT count(*) FILTER (WHERE v IS NULL)::int4 FROM unnest(\(["a", nil, nil] as [String?])) AS v")
        #expect(try nulls.decode(Int32.self, row: 0, column: 0) == 2)
    }

    @Test func everyTypeThroughATableIncludingNulls() throws {
        try db.simpleQuery(
            """
            CREATE TEMP TABLE everything (
                n int4 PRIMARY KEY, b bool, i2 int2, i4 int4, i8 int8, t text, by bytea,
                ts timestamptz, u uuid, arr text[]
            )
            """
        )
        let uuid = UUID()
        let ts = PGTimestamp(microsecondsSince2000: 777_777_777_777)
        let insert = try db.execute(
            """
            INSERT INTO everything VALUES
                (1, \(true), \(Int16.min), \(Int32.max), \(Int64.min), \("ñ"), \([UInt8]()), \(ts), \(uuid), \(["a", ""])),
                (2, \(Bool?.none), \(Int16?.none), \(Int32?.none), \(Int64?.none), \(String?.none),
                    \([UInt8]?.none), \(PGTimestamp?.none), \(UUID?.none), \([String]?.none))
            """
        )
        #expect(insert.affectedRows == 2)
        #expect(insert.commandTag == "INSERT 0 2")

        let rows = try db.execute("SELECT * FROM everything ORDER BY n")
        #expect(rows.rowCount == 2)
        #expect(rows.columnNames == ["n", "b", "i2", "i4", "i8", "t", "by", "ts", "u", "arr"])
        #expect(try rows.decode(Bool.self, row: 0, column: "b") == true)
        #expect(try rows.decode(Int16.self, row: 0, column: "i2") == .min)
        #expect(try rows.decode(Int32.self, row: 0, column: "i4") == .max)
        #expect(try rows.decode(Int64.self, row: 0, column: "i8") == .min)
        #expect(try rows.decode(String.self, row: 0, column: "t") == "ñ")
        #expect(try rows.decode([UInt8].self, row: 0, column: "by") == [])
        #expect(try rows.decode(PGTimestamp.self, row: 0, column: "ts") == ts)
        #expect(try rows.decode(UUID.self, row: 0, column: "u") == uuid)
        #expect(try rows.decode([String].self, row: 0, column: "arr") == ["a", ""])

        for column in 1..<rows.columnCount {
            #expect(try rows.isNull(row: 1, column: column))
            #expect(rows[row: 1, column: column] == nil)
        }
        #expect(try rows.decode(Bool?.self, row: 1, column: "b") == nil)
        #expect(try rows.decode(UUID?.self, row: 1, column: "u") == nil)
        #expect(try rows.decode([String]?.self, row: 1, column: "arr") == nil)
        #expect(throws: PGError.unexpectedNull) { try rows.decode(Int64.self, row: 1, column: "i8") }
        // The type is checked even for NULL, so a wrong mapping fails on every row.
        #expect(throws: PGError.typeMismatch) { try rows.decode(String?.self, row: 1, column: "i8") }

        let row = try #require(rows.rows.first)
        #expect(try row.decode(Int32.self, column: "n") == 1)
        #expect(try row.decode(String?.self, column: 5) == "ñ")
    }

    // MARK: binds and injection

    @Test func injectionStringsStayData() throws {
        try db.simpleQuery("CREATE TEMP TABLE notes (id serial PRIMARY KEY, body text NOT NULL)")
        let evil = ["'); DROP TABLE notes; --", "$1", "\\'; SELECT pg_sleep(10); --", "\"notes\"", "1 OR 1=1"]
        for body in evil {
            _ = try db.execute("INSERT INTO notes (body) VALUES (\(body))")
        }
        let stored = try db.execute("SELECT body FROM notes ORDER BY id")
        #expect(try (0..<stored.rowCount).map { try stored.decode(String.self, row: $0, column: 0) } == evil)
        let match = try db.execute("SELECT count(*) FROM notes WHERE body = \(evil[4])")
        #expect(try match.decode(Int64.self, row: 0, column: 0) == 1)
    }

    @Test func identifierInterpolationQuotes() throws {
        let table = "we\"ird table; DROP TABLE x"
        try db.simpleQuery("SELECT 1")  // the simple protocol is for trusted text; identifiers go through PGQuery
        _ = try db.execute("CREATE TEMP TABLE \(identifier: table) (v int8)")
        _ = try db.execute("INSERT INTO \(identifier: table) VALUES (\(Int64(5)))")
        let result = try db.execute("SELECT v FROM \(identifier: table)")
        #expect(try result.decode(Int64.self, row: 0, column: 0) == 5)
    }

    @Test func nulInSQLIsRejectedBeforeLibpq() throws {
        #expect(throws: PGError.invalidArgument) { try db.execute(PGQuery(unsafeSQL: "SELECT 1\0; DROP")) }
        #expect(throws: PGError.invalidArgument) { try db.simpleQuery("SELECT 1\0") }
        #expect(db.isHealthy)
    }

    // MARK: prepared statements

    @Test func preparedStatementsAreReusable() throws {
        try db.simpleQuery("CREATE TEMP TABLE people (id int8 PRIMARY KEY, name text NOT NULL)")
        try db.prepare(
            name: "insert_person",
            sql: "INSERT INTO people VALUES ($1, $2)",
            parameterTypes: [.int8, .text]
        )
        #expect(db.hasPreparedStatement(named: "insert_person"))
        for (id, name) in [(Int64(1), "ada"), (2, "grace"), (3, "'; DROP TABLE people; --")] {
            var bindings = PGBindings()
            bindings.append(id)
            bindings.append(name)
            let result = try db.executePrepared(name: "insert_person", bindings: bindings)
            #expect(result.affectedRows == 1)
        }
        try db.prepare(name: "by_id", sql: "SELECT name FROM people WHERE id = $1", parameterTypes: [.int8])
        let found = try db.executePrepared(name: "by_id", bindings: [Int64(3)])
        #expect(try found.decode(String.self, row: 0, column: 0) == "'; DROP TABLE people; --")
        #expect(try db.execute("SELECT count(*) FROM people").decode(Int64.self, row: 0, column: 0) == 3)
    }

    @Test func preparedStatementMisuse() throws {
        try db.prepare(name: "echo", sql: "SELECT $1::int8", parameterTypes: [.int8])

        var wrongType = PGBindings()
        wrongType.append("not a number")
        #expect(throws: PGError.typeMismatch) { try db.executePrepared(name: "echo", bindings: wrongType) }
        #expect(throws: PGError.invalidArgument) { try db.executePrepared(name: "echo", bindings: PGBindings()) }

        var nullOfRightType = PGBindings()
        nullOfRightType.append(Int64?.none)
        #expect(
            try db.executePrepared(name: "echo", bindings: nullOfRightType).decode(Int64?.self, row: 0, column: 0)
                == nil
        )

        let duplicate = try #require(throws: PGError.self) {
            try db.prepare(name: "echo", sql: "SELECT 1", parameterTypes: [])
        }
        #expect(duplicate.sqlState == .duplicatePreparedStatement)
        let unknown = try #require(throws: PGError.self) {
            try db.executePrepared(name: "no_such_statement", bindings: PGBindings())
        }
        #expect(unknown.code == .queryFailed)
        #expect(unknown.sqlState == .invalidSQLStatementName)

        try db.reset()
        #expect(!db.hasPreparedStatement(named: "echo"))
        try db.prepare(name: "echo", sql: "SELECT $1::int8", parameterTypes: [.int8])
    }

    // MARK: errors

    @Test func uniqueViolationHasItsSQLState() throws {
        try db.simpleQuery("CREATE TEMP TABLE accounts (email text CONSTRAINT accounts_email_key UNIQUE)")
        _ = try db.execute("INSERT INTO accounts VALUES (\("a@example.com"))")
        let error = try #require(throws: PGError.self) {
            try db.execute("INSERT INTO accounts VALUES (\("a@example.com"))")
        }
        #expect(error.code == .queryFailed)
        #expect(error.sqlState == .uniqueViolation)
        #expect(error.constraintName == "accounts_email_key")
        #expect(!error.isConnectionError)
        #expect(!error.description.contains("a@example.com"))
        #expect(db.isHealthy)
    }

    @Test func foreignKeyViolationHasItsSQLState() throws {
        try db.simpleQuery(
            """
            CREATE TEMP TABLE parents (id int8 PRIMARY KEY);
            CREATE TEMP TABLE children (parent int8 REFERENCES parents (id));
            """
        )
        let error = try #require(throws: PGError.self) { try db.execute("INSERT INTO children VALUES (\(Int64(42)))") }
        #expect(error.sqlState == .foreignKeyViolation)
    }

    @Test func connectionStaysUsableAfterServerErrors() throws {
        let division = try #require(throws: PGError.self) { try db.execute("SELECT 1 / \(Int32(0))") }
        #expect(division.sqlState == .divisionByZero)
        let missing = try #require(throws: PGError.self) { try db.execute("SELECT * FROM no_such_table_passkeyd") }
        #expect(missing.sqlState == .undefinedTable)
        let syntax = try #require(throws: PGError.self) { try db.simpleQuery("SELEC 1") }
        #expect(syntax.sqlState == .syntaxError)
        #expect(db.isHealthy)
        #expect(!db.isInTransaction)
        #expect(try db.execute("SELECT 41 + \(Int64(1))").decode(Int64.self, row: 0, column: 0) == 42)
    }

    @Test func typeMismatchInsteadOfMisreading() throws {
        let result = try db.execute("SELECT 9223372036854775807::int8, 'text'::text, \(UUID())")
        #expect(throws: PGError.typeMismatch) { try result.decode(String.self, row: 0, column: 0) }
        #expect(throws: PGError.typeMismatch) { try result.decode(Int32.self, row: 0, column: 0) }
        #expect(throws: PGError.typeMismatch) { try result.decode(Int64.self, row: 0, column: 1) }
        #expect(throws: PGError.typeMismatch) { try result.decode([UInt8].self, row: 0, column: 1) }
        #expect(throws: PGError.typeMismatch) { try result.decode(String.self, row: 0, column: 2) }
        #expect(throws: PGError.invalidArgument) { try result.decode(Int64.self, row: 1, column: 0) }
        #expect(throws: PGError.invalidArgument) { try result.decode(Int64.self, row: 0, column: 3) }
        #expect(throws: PGError.invalidArgument) { try result.decode(Int64.self, row: 0, column: "nope") }
        #expect(result[row: 5, column: 5] == nil)
    }

    // MARK: row counts and result shape

    @Test func deleteReturningAndRowCounts() throws {
        let create = try db.execute("CREATE TEMP TABLE items (id int8 PRIMARY KEY, tag text)")
        #expect(create.affectedRows == nil)
        #expect(create.commandTag == "CREATE TABLE")
        let insert = try db.execute(
            "INSERT INTO items SELECT g, 'x' FROM generate_series(\(Int64(1)), \(Int64(5))) AS g"
        )
        #expect(insert.affectedRows == 5)

        let update = try db.execute("UPDATE items SET tag = \("y") WHERE id > \(Int64(3))")
        #expect(update.affectedRows == 2)
        #expect(update.rowCount == 0)

        let deleted = try db.execute("DELETE FROM items WHERE id <= \(Int64(2)) RETURNING id")
        #expect(deleted.rowCount == 2)
        #expect(deleted.affectedRows == 2)
        #expect(deleted.commandTag == "DELETE 2")
        let ids = try deleted.rows.map { try $0.decode(Int64.self, column: "id") }.sorted()
        #expect(ids == [1, 2])

        let none = try db.execute("DELETE FROM items WHERE id = \(Int64(99)) RETURNING id")
        #expect(none.rowCount == 0)
        #expect(none.affectedRows == 0)
        #expect(none.columnNames == ["id"])

        let select = try db.execute("SELECT id FROM items")
        #expect(select.affectedRows == 3)
        #expect(select.rowCount == 3)
    }

    @Test func resultShapes() throws {
        let named = try db.execute(#"SELECT 1::int4 AS one, 'x' AS "Two words", NULL::text"#)
        #expect(named.columnNames == ["one", "Two words", "text"])
        #expect(named.columnIndex(named: "Two words") == 1)
        #expect(named.columns[0].type == .int4)

        let noColumns = try db.execute("SELECT FROM generate_series(1, 3)")
        #expect(noColumns.rowCount == 3)
        #expect(noColumns.columnCount == 0)

        let empty = try db.execute("")
        #expect(empty.rowCount == 0)
        try db.simpleQuery("")
    }

    // MARK: simple query protocol

    @Test func simpleQueryRunsScriptsAtomically() throws {
        try db.simpleQuery("CREATE TEMP TABLE m (x int4); INSERT INTO m VALUES (1), (2);")
        #expect(throws: PGError.queryFailed) {
            try db.simpleQuery("INSERT INTO m VALUES (3); SELECT 1/0; INSERT INTO m VALUES (4);")
        }
        #expect(try db.execute("SELECT count(*) FROM m").decode(Int64.self, row: 0, column: 0) == 2)
        #expect(!db.isInTransaction)
    }

    @Test func copyIsRefusedAndTheConnectionSurvives() throws {
        try db.simpleQuery("CREATE TEMP TABLE c (x int4)")
        #expect(throws: PGError.protocolViolation) {
            try db.simpleQuery("COPY (SELECT generate_series(1, 1000)) TO STDOUT")
        }
        #expect(throws: PGError.protocolViolation) { try db.simpleQuery("COPY c FROM STDIN") }
        #expect(throws: PGError.protocolViolation) { try db.execute("COPY c TO STDOUT") }
        #expect(db.isHealthy)
        #expect(!db.isInTransaction)
        #expect(try db.execute("SELECT count(*) FROM c").decode(Int64.self, row: 0, column: 0) == 0)
    }

    // MARK: transactions

    @Test func transactionCommits() throws {
        try db.simpleQuery("CREATE TEMP TABLE ledger (v int8)")
        let value = try db.transaction { conn in
            _ = try conn.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
            #expect(conn.isInTransaction)
            return "done"
        }
        #expect(value == "done")
        #expect(!db.isInTransaction)
        #expect(try db.execute("SELECT count(*) FROM ledger").decode(Int64.self, row: 0, column: 0) == 1)
    }

    @Test func transactionRollsBackOnThrownError() throws {
        try db.simpleQuery("CREATE TEMP TABLE ledger (v int8)")
        #expect(throws: ExpectedFailure()) {
            try db.transaction { conn in
                _ = try conn.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
                throw ExpectedFailure()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.execute("SELECT count(*) FROM ledger").decode(Int64.self, row: 0, column: 0) == 0)
    }

    @Test func transactionRollsBackOnServerError() throws {
        try db.simpleQuery("CREATE TEMP TABLE ledger (v int8 UNIQUE)")
        let error = try #require(throws: PGError.self) {
            try db.transaction { conn in
                _ = try conn.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
                _ = try conn.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
            }
        }
        #expect(error.sqlState == .uniqueViolation)
        #expect(!db.isInTransaction)
        #expect(try db.execute("SELECT count(*) FROM ledger").decode(Int64.self, row: 0, column: 0) == 0)
    }

    @Test func swallowedServerErrorIsNotReportedAsCommitted() throws {
        try db.simpleQuery("CREATE TEMP TABLE ledger (v int8 UNIQUE)")
        #expect(throws: PGError.transactionRolledBack) {
            try db.transaction { conn in
                _ = try conn.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
                _ = try? conn.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.execute("SELECT count(*) FROM ledger").decode(Int64.self, row: 0, column: 0) == 0)
    }

    @Test func nestedTransactionIsRefused() throws {
        #expect(throws: PGError.invalidArgument) {
            try db.transaction { conn in
                try conn.transaction { _ in }
            }
        }
        #expect(!db.isInTransaction)
    }

    // MARK: connection loss and concurrency

    @Test func terminatedBackendIsConnectionClosedAndResetRecovers() throws {
        let pid = try db.execute("SELECT pg_backend_pid()").decode(Int32.self, row: 0, column: 0)
        let admin = try TestDatabase.connect()
        let terminated = try admin.execute("SELECT pg_terminate_backend(\(pid), \(Int64(5000)))")
        #expect(try terminated.decode(Bool.self, row: 0, column: 0))

        let error = try #require(throws: PGError.self) { try db.execute("SELECT 1") }
        #expect(error.code == .connectionClosed)
        #expect(error.isConnectionError)
        #expect(!db.isHealthy)

        try db.reset()
        #expect(db.isHealthy)
        #expect(try db.execute("SELECT pg_backend_pid()").decode(Int32.self, row: 0, column: 0) != pid)
    }

    @Test func concurrentUseIsRefusedNotRaced() throws {
        // One thread holds the connection in a 1 s query while this one keeps trying to use it. Whichever
        // thread comes second must get concurrentUse (nothing sent to libpq), never a corrupted connection.
        let sawBusy = Mutex<(main: Bool, background: Bool)>((false, false))
        let done = DispatchSemaphore(value: 0)
        let connection = db
        DispatchQueue.global().async {
            let outcome = Result { () throws(PGError) in try connection.execute("SELECT 1 FROM pg_sleep(1)") }
            if case .failure(let error) = outcome, error.code == .concurrentUse {
                sawBusy.withLock { $0.background = true }
            }
            done.signal()
        }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !sawBusy.withLock({ $0.main || $0.background }) {
            let outcome = Result { () throws(PGError) in try connection.execute("SELECT 1") }
            if case .failure(let error) = outcome, error.code == .concurrentUse {
                sawBusy.withLock { $0.main = true }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        done.wait()
        let observed = sawBusy.withLock { $0 }
        #expect(observed.main || observed.background)
        #expect(connection.isHealthy)
        #expect(try connection.execute("SELECT 2::int4").decode(Int32.self, row: 0, column: 0) == 2)
    }
}
