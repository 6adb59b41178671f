import Foundation
import LibPQ
import Testing

// Tests that need no PostgreSQL server: query building, binary formats, errors, failed connects.

@Suite("PGQuery building")
struct PGQueryBuildingTests {
    @Test func interpolatedValuesBecomeNumberedBindings() {
        let name = "alice"
        let limit: Int64 = 10
        let query: PGQuery = "SELECT id FROM users WHERE name = \(name) LIMIT \(limit)"
        #expect(query.sql == "SELECT id FROM users WHERE name = $1 LIMIT $2")
        #expect(query.bindings.count == 2)
        #expect(query.bindings.types == [.text, .int8])
    }

    @Test func plainLiteralHasNoBindings() {
        let query: PGQuery = "SELECT 1"
        #expect(query.sql == "SELECT 1")
        #expect(query.bindings.count == 0)
    }

    @Test func nilOptionalBindsTypedNull() {
        let missing: UUID? = nil
        let present: Int32? = 7
        let query: PGQuery = "SELECT \(missing), \(present)"
        #expect(query.sql == "SELECT $1, $2")
        #expect(query.bindings.types == [.uuid, .int4])
    }

    @Test func injectionTextStaysOutOfTheSQL() {
        let evil = "x'; DROP TABLE users; --"
        let query: PGQuery = "SELECT \(evil)"
        #expect(query.sql == "SELECT $1")
        #expect(!query.description.contains("DROP"))
    }

    @Test func identifiersAreQuoted() {
        let table = #"we"ird table"#
        let query: PGQuery = "SELECT * FROM \(identifier: table)"
        #expect(query.sql == #"SELECT * FROM "we""ird table""#)
        #expect(query.bindings.count == 0)
    }

    @Test func arrayLiteralBindings() {
        let bindings: PGBindings = [Int64(1), "two", [UInt8]([3]), UUID()]
        #expect(bindings.types == [.int8, .text, .bytea, .uuid])
    }

    @Test func unsafeSQLIsTakenAsIs() {
        var bindings = PGBindings()
        bindings.append(Int64(1))
        bindings.append(String?.none)
        bindings.appendNull(type: .bytea)
        let query = PGQuery(unsafeSQL: "SELECT $1, $2, $3", bindings: bindings)
        #expect(query.sql == "SELECT $1, $2, $3")
        #expect(query.bindings.types == [.int8, .text, .bytea])
    }
}

@Suite("Binary formats")
struct BinaryFormatTests {
    private func encoded<T: PGEncodable>(_ value: T) throws -> [UInt8] {
        var buffer: [UInt8] = []
        try value.encode(into: &buffer)
        return buffer
    }

    @Test func integersAreBigEndianTwosComplement() throws {
        #expect(try encoded(Int16(-2)) == [0xFF, 0xFE])
        #expect(try encoded(Int32(0x0102_0304)) == [1, 2, 3, 4])
        #expect(try encoded(Int64.min) == [0x80, 0, 0, 0, 0, 0, 0, 0])
        #expect(try encoded(Int(-1)) == [UInt8](repeating: 0xFF, count: 8))
        #expect(try Int64(pgBinary: [0x80, 0, 0, 0, 0, 0, 0, 0][...], type: .int8) == .min)
        #expect(try Int64(pgBinary: [0xFF, 0xFE][...], type: .int2) == -2)
    }

    @Test func wrongLengthIsAProtocolViolation() {
        #expect(throws: PGError.protocolViolation) { try Int32(pgBinary: [0, 1][...], type: .int4) }
        #expect(throws: PGError.protocolViolation) { try Bool(pgBinary: [][...], type: .bool) }
        #expect(throws: PGError.protocolViolation) { try UUID(pgBinary: [1, 2, 3][...], type: .uuid) }
    }

    @Test func decodingWorksOnSlicesThatDoNotStartAtZero() throws {
        let bytes: [UInt8] = [9, 9, 0, 0, 0, 42, 9]
        #expect(try Int32(pgBinary: bytes[2..<6], type: .int4) == 42)
    }

    @Test func textArrayMatchesArraySendLayout() throws {
        // ndim 1, flags 0, elemtype 25 (text), dim length 2, lower bound 1, then (len, bytes) per element.
        let expected: [UInt8] = [
            0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 2, 0, 0, 0, 1,
            0, 0, 0, 1, 0x61,
            0, 0, 0, 2, 0x62, 0x63,
        ]
        #expect(try encoded(["a", "bc"]) == expected)
        #expect(try [String](pgBinary: expected[...], type: .textArray) == ["a", "bc"])
        #expect([String].pgType == .textArray)
    }

    @Test func emptyArrayHasZeroDimensions() throws {
        let expected: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25]
        #expect(try encoded([String]()) == expected)
        #expect(try [String](pgBinary: expected[...], type: .textArray) == [])
    }

    @Test func malformedArraysAreRejected() {
        let truncated: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0x61]
        #expect(throws: PGError.protocolViolation) { try [String](pgBinary: truncated[...], type: .textArray) }
        let trailing: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 7]
        #expect(throws: PGError.protocolViolation) { try [String](pgBinary: trailing[...], type: .textArray) }
        let intElements: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20]
        #expect(throws: PGError.typeMismatch) { try [String](pgBinary: intElements[...], type: .textArray) }
        let withNull: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 25, 0, 0, 0, 1, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: PGError.unexpectedNull) { try [String](pgBinary: withNull[...], type: .textArray) }
    }

    @Test func byteArrayIsByteaNotAnArray() throws {
        #expect([UInt8].pgType == .bytea)
        #expect(try encoded([UInt8]([0, 1, 255])) == [0, 1, 255])
        #expect(try encoded([UInt8]()) == [])
    }

    @Test func invalidUTF8TextIsRejected() {
        #expect(throws: PGError.protocolViolation) { try String(pgBinary: [0xC3, 0x28][...], type: .text) }
    }

    @Test func uuidIsSixteenBytesInOrder() throws {
        let uuid = try #require(UUID(uuidString: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"))
        let bytes: [UInt8] = [
            0xA0, 0xEE, 0xBC, 0x99, 0x9C, 0x0B, 0x4E, 0xF8, 0xBB, 0x6D, 0x6B, 0xB9, 0xBD, 0x38, 0x0A, 0x11,
        ]
        #expect(try encoded(uuid) == bytes)
        #expect(try UUID(pgBinary: bytes[...], type: .uuid) == uuid)
    }

    @Test func timestampEpochIs2000() throws {
        let y2k = Date(timeIntervalSince1970: 946_684_800)
        #expect(PGTimestamp(y2k) == PGTimestamp(microsecondsSince2000: 0))
        #expect(PGTimestamp(Date(timeIntervalSince1970: 0))?.microsecondsSince2000 == -946_684_800_000_000)
        #expect(PGTimestamp(microsecondsSince2000: 1_500_000).date == Date(timeIntervalSince1970: 946_684_801.5))
        #expect(try encoded(y2k) == [0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func timestampEdgeCases() {
        #expect(PGTimestamp(Date(timeIntervalSinceReferenceDate: .nan)) == nil)
        #expect(PGTimestamp(Date(timeIntervalSinceReferenceDate: .infinity)) == nil)
        #expect(PGTimestamp.infinity.date == nil)
        #expect(PGTimestamp.negativeInfinity.date == nil)
        #expect(PGTimestamp.negativeInfinity < PGTimestamp(microsecondsSince2000: 0))
        #expect(throws: PGError.invalidValue) {
            try Date(pgBinary: [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF][...], type: .timestamptz)
        }
    }

    @Test func encodingErrorsAreDeferredToExecution() {
        let bad = Date(timeIntervalSinceReferenceDate: .nan)
        let query: PGQuery = "SELECT \(bad)"
        #expect(query.bindings.count == 1)
        // The error surfaces when the query is executed; see the integration tests.
    }
}

@Suite("Errors and SQLSTATEs")
struct ErrorTests {
    @Test func errorsCompareByCodeOnly() {
        let a = PGError(code: .queryFailed, sqlState: .uniqueViolation, message: "one")
        let b = PGError(code: .queryFailed, sqlState: .divisionByZero, message: "two")
        #expect(a == b)
        #expect(a != PGError.typeMismatch)
    }

    @Test func descriptionIsGenericAndDebugDescriptionHasDetails() {
        let error = PGError(
            code: .queryFailed,
            sqlState: .uniqueViolation,
            message: "duplicate key value violates unique constraint \"users_name_key\"",
            constraintName: "users_name_key"
        )
        #expect(error.description == "PGError.queryFailed (SQLSTATE 23505)")
        #expect(String(reflecting: error).contains("users_name_key"))
    }

    @Test(arguments: [
        (SQLState.connectionFailure, true), (.connectionException, true), (.adminShutdown, true),
        (.cannotConnectNow, true), (.crashShutdown, true), ("08P01", true),
        (.uniqueViolation, false), (.serializationFailure, false), (.undefinedTable, false),
    ])
    func connectionErrorClassification(state: SQLState, isConnectionError: Bool) {
        #expect(state.isConnectionError == isConnectionError)
    }

    @Test func sqlStateClasses() {
        #expect(SQLState.foreignKeyViolation.errorClass == "23")
        #expect(SQLState.uniqueViolation.isIntegrityConstraintViolation)
        #expect(SQLState.deadlockDetected.isTransactionRetryable)
        #expect(SQLState(rawValue: "23505") == .uniqueViolation)
        #expect(!SQLState.uniqueViolation.isTransactionRetryable)
    }
}

@Suite("Connection failures (no server needed)")
struct ConnectFailureTests {
    @Test func refusedPortIsConnectionFailed() {
        // Port 1 on loopback: nothing listens there, the connect is refused at once. Repeated to exercise the
        // failure path (PQfinish after a failed connect) many times.
        for _ in 0..<50 {
            #expect(throws: PGError.connectionFailed) {
                try PGConnection.connect(url: "postgresql://postgres@127.0.0.1:1/passkeyd?connect_timeout=2")
            }
        }
    }

    @Test func malformedURIsAreConnectionFailed() {
        #expect(throws: PGError.connectionFailed) { try PGConnection.connect(url: "postgresql://[::1") }
        #expect(throws: PGError.connectionFailed) { try PGConnection.connect(url: "host=127.0.0.1 port=notaport") }
        #expect(throws: PGError.connectionFailed) { try PGConnection.connect(url: "nosuchoption=1") }
    }

    @Test func nulByteIsRejectedBeforeLibpq() {
        #expect(throws: PGError.invalidArgument) { try PGConnection.connect(url: "host=127.0.0.1\0port=1") }
    }

    @Test func passwordNeverAppearsInTheError() throws {
        let error = try #require(throws: PGError.self) {
            try PGConnection.connect(url: "postgresql://postgres:hunter2-secret@127.0.0.1:1/passkeyd")
        }
        #expect(error.code == .connectionFailed)
        #expect(!error.description.contains("hunter2"))
        #expect(!String(reflecting: error).contains("hunter2"))
        #expect(!error.message.isEmpty)
    }
}
