import Foundation
import LibPQ
import Testing

@Suite(
    "LibPQ pipeline mode against PostgreSQL",
    .enabled(if: TestDatabase.url != nil, "PASSKEYD_TEST_DATABASE_URL is not set (scripts/postgres.sh start; scripts/postgres.sh url)")
)
struct PipelineTests {
    static let insert = PGPreparedStatement(
        name: "pipeline_test_insert", sql: "INSERT INTO pipelined (id, tag) VALUES ($1, $2) RETURNING id", parameterTypes: [.int8, .text])
    static let count = PGPreparedStatement(name: "pipeline_test_count", sql: "SELECT count(*) FROM pipelined", parameterTypes: [])
    static let keys = PGPreparedStatement(
        name: "pipeline_test_keys", sql: "SELECT k FROM unnest($1::bytea[]) WITH ORDINALITY AS i(k, n) ORDER BY n DESC",
        parameterTypes: [.byteaArray])

    /// Each statement is its own transaction: a failing one in the middle answers with its error and undoes nothing
    /// before or after it; the results come back in order and the connection is usable afterwards.
    @Test func eachStatementIsItsOwnTransactionAndAnsweredInOrder() throws {
        let db = try TestDatabase.connect()
        try db.simpleQuery("CREATE TEMP TABLE pipelined (id int8 PRIMARY KEY, tag text NOT NULL)")
        let outcomes = try db.executePipelined([
            (Self.insert, [Int64(1), "a"]),
            (Self.insert, [Int64(1), "duplicate"]),
            (Self.insert, [Int64(2), "b"]),
            (Self.count, []),
        ])
        #expect(outcomes.count == 4)
        #expect(try outcomes[0].get().decode(Int64.self, row: 0, column: 0) == 1)
        guard case .failure(let error) = outcomes[1] else {
            Issue.record("the duplicate key must fail")
            return
        }
        #expect(error.sqlState == .uniqueViolation)
        #expect(try outcomes[2].get().decode(Int64.self, row: 0, column: 0) == 2, "the failure did not abort the next statement")
        #expect(try outcomes[3].get().decode(Int64.self, row: 0, column: 0) == 2, "it saw both earlier inserts committed")
        #expect(db.isHealthy && !db.isInTransaction)
        #expect(try db.execute("SELECT count(*) FROM pipelined").decode(Int64.self, row: 0, column: 0) == 2)
        #expect(try db.executePipelined([]).isEmpty)
    }

    /// `[[UInt8]]` travels as bytea[], empty elements included, and comes back in the order asked.
    @Test func byteaArraysRoundTrip() throws {
        let db = try TestDatabase.connect()
        let keys: [[UInt8]] = [[1, 2, 3], [], [0, 255], Array(repeating: 7, count: 64)]
        let result = try db.executePrepared(Self.keys, [keys])
        #expect(result.rowCount == 4)
        #expect(try (0..<4).map { try result.decode([UInt8].self, row: $0, column: 0) } == keys.reversed())
        let pipelined = try db.executePipelined([(Self.keys, [keys]), (Self.keys, [[[9]] as [[UInt8]]])])
        #expect(try pipelined[0].get().rowCount == 4 && pipelined[1].get().decode([UInt8].self, row: 0, column: 0) == [9])
    }

    /// Bindings that do not match a statement's declared types are refused before anything is sent.
    @Test func mismatchedBindingsAreRefusedBeforeSending() throws {
        let db = try TestDatabase.connect()
        try db.simpleQuery("CREATE TEMP TABLE pipelined (id int8 PRIMARY KEY, tag text NOT NULL)")
        #expect(throws: PGError.self) { _ = try db.executePipelined([(Self.insert, [Int64(1), "a"]), (Self.insert, ["x", "y"])]) }
        #expect(try db.execute("SELECT count(*) FROM pipelined").decode(Int64.self, row: 0, column: 0) == 0, "nothing ran")
        #expect(db.isHealthy && !db.isInTransaction)
    }
}
