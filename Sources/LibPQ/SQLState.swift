/// A PostgreSQL SQLSTATE error code (five characters, e.g. `23505`).
///
/// An open set: any code the server sends can be represented, and the common ones have names.
/// See "PostgreSQL Error Codes" in the PostgreSQL documentation (appendix A).
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The five-character code.
    public let rawValue: String

    /// Wraps a code as sent by the server.
    /// - Parameter rawValue: The five-character SQLSTATE.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a literal code, e.g. `let state: SQLState = "23505"`.
    /// - Parameter value: The five-character SQLSTATE.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The code itself.
    public var description: String { rawValue }

    /// The class: the first two characters (`23` for integrity constraint violations).
    public var errorClass: String { String(rawValue.prefix(2)) }

    // MARK: Class 08: connection exception

    /// 08000 connection_exception.
    public static let connectionException: SQLState = "08000"
    /// 08003 connection_does_not_exist.
    public static let connectionDoesNotExist: SQLState = "08003"
    /// 08006 connection_failure.
    public static let connectionFailure: SQLState = "08006"
    /// 08001 sqlclient_unable_to_establish_sqlconnection.
    public static let sqlClientUnableToEstablishSQLConnection: SQLState = "08001"
    /// 08004 sqlserver_rejected_establishment_of_sqlconnection.
    public static let sqlServerRejectedEstablishmentOfSQLConnection: SQLState = "08004"
    /// 08P01 protocol_violation.
    public static let protocolViolation: SQLState = "08P01"

    // MARK: Class 22: data exception

    /// 22001 string_data_right_truncation.
    public static let stringDataRightTruncation: SQLState = "22001"
    /// 22003 numeric_value_out_of_range.
    public static let numericValueOutOfRange: SQLState = "22003"
    /// 22012 division_by_zero.
    public static let divisionByZero: SQLState = "22012"
    /// 22021 character_not_in_repertoire (e.g. invalid UTF-8 or a NUL byte in text).
    public static let characterNotInRepertoire: SQLState = "22021"
    /// 22P02 invalid_text_representation.
    public static let invalidTextRepresentation: SQLState = "22P02"
    /// 22P03 invalid_binary_representation.
    public static let invalidBinaryRepresentation: SQLState = "22P03"

    // MARK: Class 23: integrity constraint violation

    /// 23502 not_null_violation.
    public static let notNullViolation: SQLState = "23502"
    /// 23503 foreign_key_violation.
    public static let foreignKeyViolation: SQLState = "23503"
    /// 23505 unique_violation.
    public static let uniqueViolation: SQLState = "23505"
    /// 23514 check_violation.
    public static let checkViolation: SQLState = "23514"
    /// 23P01 exclusion_violation.
    public static let exclusionViolation: SQLState = "23P01"

    // MARK: Classes 25, 26: transaction state, statement name

    /// 25P02 in_failed_sql_transaction.
    public static let inFailedSQLTransaction: SQLState = "25P02"
    /// 26000 invalid_sql_statement_name (unknown prepared statement).
    public static let invalidSQLStatementName: SQLState = "26000"

    // MARK: Class 40: transaction rollback

    /// 40001 serialization_failure.
    public static let serializationFailure: SQLState = "40001"
    /// 40P01 deadlock_detected.
    public static let deadlockDetected: SQLState = "40P01"

    // MARK: Class 42: syntax error or access rule violation

    /// 42501 insufficient_privilege.
    public static let insufficientPrivilege: SQLState = "42501"
    /// 42601 syntax_error.
    public static let syntaxError: SQLState = "42601"
    /// 42703 undefined_column.
    public static let undefinedColumn: SQLState = "42703"
    /// 42883 undefined_function.
    public static let undefinedFunction: SQLState = "42883"
    /// 42P01 undefined_table.
    public static let undefinedTable: SQLState = "42P01"
    /// 42P05 duplicate_prepared_statement.
    public static let duplicatePreparedStatement: SQLState = "42P05"
    /// 42P07 duplicate_table.
    public static let duplicateTable: SQLState = "42P07"
    /// 42710 duplicate_object.
    public static let duplicateObject: SQLState = "42710"

    // MARK: Classes 53, 55, 57: resources, object state, operator intervention

    /// 53300 too_many_connections.
    public static let tooManyConnections: SQLState = "53300"
    /// 55P03 lock_not_available.
    public static let lockNotAvailable: SQLState = "55P03"
    /// 57014 query_canceled (also statement_timeout).
    public static let queryCanceled: SQLState = "57014"
    /// 57P01 admin_shutdown (the server terminated this session).
    public static let adminShutdown: SQLState = "57P01"
    /// 57P02 crash_shutdown.
    public static let crashShutdown: SQLState = "57P02"
    /// 57P03 cannot_connect_now (the server is starting up or shutting down).
    public static let cannotConnectNow: SQLState = "57P03"

    /// Whether the session is gone or unusable: class 08 (connection exception) or 57P01/57P02/57P03
    /// (admin or crash shutdown, cannot connect now). A pool should discard the connection.
    public var isConnectionError: Bool {
        errorClass == "08" || self == .adminShutdown || self == .crashShutdown || self == .cannotConnectNow
    }

    /// Whether this is class 23, an integrity constraint violation (unique, foreign key, check, not null...).
    public var isIntegrityConstraintViolation: Bool {
        errorClass == "23"
    }

    /// Whether the whole transaction may succeed if retried: serialization failure or deadlock.
    public var isTransactionRetryable: Bool {
        self == .serializationFailure || self == .deadlockDetected
    }
}
