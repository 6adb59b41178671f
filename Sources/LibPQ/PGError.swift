/// The one error type of the `LibPQ` module.
///
/// Errors compare equal when their ``code`` is equal, so tests can write
/// `#expect(throws: PGError.typeMismatch) { ... }`. The other fields are diagnostics.
///
/// ``description`` is deliberately generic (code and SQLSTATE only): it is safe to show or to put in an HTTP
/// response. The server's message, the constraint name and the place the error was raised are in
/// ``debugDescription`` (`String(reflecting:)`), which belongs in logs. No field ever contains the connection
/// string or a password.
public struct PGError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is. An open set: new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case connectionFailed
            case connectionClosed
            case queryFailed
            case protocolViolation
            case typeMismatch
            case unexpectedNull
            case invalidValue
            case invalidArgument
            case concurrentUse
            case transactionRolledBack
            case timedOut
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A connection could not be established (bad address, refused, authentication failed, bad URI).
        public static let connectionFailed = Code(.connectionFailed)
        /// The connection is closed or was lost while in use. Discard the connection or ``PGConnection/reset()`` it.
        public static let connectionClosed = Code(.connectionClosed)
        /// The server rejected the statement; see ``PGError/sqlState``.
        public static let queryFailed = Code(.queryFailed)
        /// libpq or the server returned something this module does not expect (unexpected result status,
        /// malformed binary value, text-format column).
        public static let protocolViolation = Code(.protocolViolation)
        /// A column's (or prepared parameter's) PostgreSQL type does not match the Swift type asked for.
        public static let typeMismatch = Code(.typeMismatch)
        /// A SQL NULL was decoded into a non-optional Swift type.
        public static let unexpectedNull = Code(.unexpectedNull)
        /// A value cannot be represented on the other side (an infinite timestamp as `Date`, a NaN `Date`).
        public static let invalidValue = Code(.invalidValue)
        /// The API was misused (NUL byte in SQL, row or column out of range, too many parameters, nested transaction).
        public static let invalidArgument = Code(.invalidArgument)
        /// The connection was used from two threads at once; the second call was refused, nothing was sent.
        public static let concurrentUse = Code(.concurrentUse)
        /// `COMMIT` turned into a rollback because an earlier statement in the transaction failed.
        public static let transactionRolledBack = Code(.transactionRolledBack)
        /// A pool bound passed: no connection became free within the acquire timeout, or a lease's body did not
        /// return within the lease timeout (the caller gets this; the body keeps running on its thread).
        public static let timedOut = Code(.timedOut)

        /// The code's name, e.g. `queryFailed`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The server's SQLSTATE, when the server reported the error.
    public let sqlState: SQLState?
    /// The server's primary message (`PG_DIAG_MESSAGE_PRIMARY`) or libpq's error message. For logs only.
    public let message: String
    /// The constraint the error is about (`PG_DIAG_CONSTRAINT_NAME`), e.g. the violated unique index.
    public let constraintName: String?
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: Int

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - sqlState: The server's SQLSTATE, if any.
    ///   - message: Diagnostic text for logs. Never put connection strings or secrets here.
    ///   - constraintName: The constraint the error is about, if any.
    public init(
        code: Code,
        sqlState: SQLState? = nil,
        message: String = "",
        constraintName: String? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
        self.constraintName = constraintName
        self.file = file
        self.line = line
    }

    /// Generic text: the code and the SQLSTATE, nothing that came from the server or the caller.
    public var description: String {
        if let sqlState {
            return "PGError.\(code) (SQLSTATE \(sqlState.rawValue))"
        }
        return "PGError.\(code)"
    }

    /// Everything known about the error, for logs.
    public var debugDescription: String {
        var text = description
        if !message.isEmpty {
            text += ": \(message)"
        }
        if let constraintName {
            text += " [constraint \(constraintName)]"
        }
        text += " (\(file):\(line))"
        return text
    }

    /// Compares the codes only.
    public static func == (lhs: PGError, rhs: PGError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension PGError {
    /// An error with code ``Code/connectionFailed``, for comparisons.
    public static let connectionFailed = PGError(code: .connectionFailed)
    /// An error with code ``Code/connectionClosed``, for comparisons.
    public static let connectionClosed = PGError(code: .connectionClosed)
    /// An error with code ``Code/queryFailed``, for comparisons.
    public static let queryFailed = PGError(code: .queryFailed)
    /// An error with code ``Code/protocolViolation``, for comparisons.
    public static let protocolViolation = PGError(code: .protocolViolation)
    /// An error with code ``Code/typeMismatch``, for comparisons.
    public static let typeMismatch = PGError(code: .typeMismatch)
    /// An error with code ``Code/unexpectedNull``, for comparisons.
    public static let unexpectedNull = PGError(code: .unexpectedNull)
    /// An error with code ``Code/invalidValue``, for comparisons.
    public static let invalidValue = PGError(code: .invalidValue)
    /// An error with code ``Code/invalidArgument``, for comparisons.
    public static let invalidArgument = PGError(code: .invalidArgument)
    /// An error with code ``Code/concurrentUse``, for comparisons.
    public static let concurrentUse = PGError(code: .concurrentUse)
    /// An error with code ``Code/transactionRolledBack``, for comparisons.
    public static let transactionRolledBack = PGError(code: .transactionRolledBack)
    /// An error with code ``Code/timedOut``, for comparisons.
    public static let timedOut = PGError(code: .timedOut)

    /// Whether the connection that produced this error should be discarded or reset rather than reused:
    /// the connection is closed or lost, or the server reported a connection-class SQLSTATE.
    public var isConnectionError: Bool {
        code == .connectionFailed || code == .connectionClosed || (sqlState?.isConnectionError ?? false)
    }
}
