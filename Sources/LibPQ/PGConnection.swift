internal import CLibPQ
internal import Synchronization

/// One libpq connection (`PGconn`), its only owner.
///
/// ## Blocking and threads
/// Every method blocks the calling thread on network I/O. Call them from a thread pool (NIO's
/// `NIOThreadPool`), never from a Swift concurrency task or an event loop.
///
/// libpq allows one thread at a time per connection. This class is `@unchecked Sendable` so that a pool can
/// hand it to whichever pool thread runs the next operation, and callers must serialize its use (lease it for
/// one operation or transaction at a time). That rule is also checked: every method takes an atomic "busy"
/// flag around its libpq calls, and a call that finds the connection busy throws
/// ``PGError/Code/concurrentUse`` without touching libpq, so a bug surfaces as an error instead of memory
/// corruption. The flag is held per call, not across ``transaction(_:)``'s body, so statements of two
/// threads interleaving inside one transaction is still the caller's bug to avoid.
///
/// ## Lifetime
/// `deinit` (or ``close()``) calls `PQfinish`. A failed ``connect(url:)`` frees its `PGconn` too.
@safe
public final class PGConnection: @unchecked Sendable {
    // Safety: `handle` and `preparedStatements` are only read or written while `busy` is held (acquire on
    // take, release on give back), or in `deinit`, when no other reference exists.
    private var handle: OpaquePointer?
    private var preparedStatements: [String: [PGType]] = [:]
    private let busy = Atomic<Bool>(false)

    private init(takingOwnershipOf handle: OpaquePointer) {
        unsafe self.handle = handle
    }

    deinit {
        if let handle = unsafe handle {
            unsafe PQfinish(handle)
        }
    }

    // MARK: - Connecting

    /// Opens a connection (blocking).
    ///
    /// `url` may be a URI (`postgresql://user@host:port/db?sslmode=disable`) or a `key=value` string; it is
    /// passed as libpq's `dbname` with `expand_dbname = 1`. Defaults that the string may override:
    /// `connect_timeout` (`connectTimeout`, 10 s unless given), `fallback_application_name=passkeyd`. Always set: `client_encoding=UTF8`, since
    /// text values are decoded as UTF-8. libpq's `PG*` environment variables fill parameters left unset.
    /// NOTICE and WARNING messages from the server are dropped (libpq's default prints them to stderr).
    ///
    /// - Parameters:
    ///   - url: The connection string. It may contain a password, which no error ever includes.
    ///   - connectTimeout: libpq's `connect_timeout` in seconds (per host of a multi-host string), unless `url`
    ///     sets its own. Values below 2 become 2 (libpq's own minimum).
    /// - Returns: A connection in state `CONNECTION_OK`.
    /// - Throws: ``PGError/Code/connectionFailed`` (unreachable server, authentication, malformed string),
    ///   ``PGError/Code/invalidArgument`` for a NUL byte in `url`, ``PGError/Code/protocolViolation`` if the
    ///   server does not use integer timestamps or UTF8.
    public static func connect(url: String, connectTimeout: Int = 10) throws(PGError) -> PGConnection {
        guard !url.utf8.contains(0) else {
            throw PGError(code: .invalidArgument, message: "connection string contains a NUL byte")
        }
        // Later entries override earlier ones, including what the expanded dbname string sets.
        let keywords = ["connect_timeout", "fallback_application_name", "dbname", "client_encoding"]
        let values = [String(max(2, connectTimeout)), "passkeyd", url, "UTF8"]
        let raw: OpaquePointer? = unsafe withCStrings(keywords + values) { pointers in
            // Two NULL-terminated arrays: keywords, then values.
            let keywordPointers = unsafe pointers[..<keywords.count].map(Optional.some) + [nil]
            let valuePointers = unsafe pointers[keywords.count...].map(Optional.some) + [nil]
            return unsafe PQconnectdbParams(keywordPointers, valuePointers, 1)
        }
        guard let raw = unsafe raw else {
            throw PGError(code: .connectionFailed, message: "libpq could not allocate a connection")
        }
        // From here the connection object owns `raw`: every throw below frees it through deinit.
        let connection = unsafe PGConnection(takingOwnershipOf: raw)
        try unsafe connection.withHandle { (conn) throws(PGError) in
            guard unsafe PQstatus(conn) == CONNECTION_OK else {
                throw PGError(code: .connectionFailed, message: unsafe connectionErrorMessage(conn))
            }
            try unsafe checkSession(conn)
            unsafe clibpq_silence_notices(conn)
        }
        return connection
    }

    /// Whether libpq considers the connection usable (`PQstatus == CONNECTION_OK`).
    ///
    /// libpq notices a dead server only when a call fails, so `true` is not a guarantee. `false` also while
    /// another thread is using the connection, or after ``close()``.
    public var isHealthy: Bool {
        unsafe (try? withHandle { (conn) throws(PGError) in unsafe PQstatus(conn) == CONNECTION_OK }) ?? false
    }

    /// Whether the session is not idle: a transaction is open, failed or in progress, or the state is unknown
    /// because the connection is bad (`PQtransactionStatus` is not `PQTRANS_IDLE`).
    ///
    /// A pool must not hand out a connection for which this is `true`. Also `true` while another thread is
    /// using the connection, and `false` after ``close()``.
    public var isInTransaction: Bool {
        do {
            return try unsafe withHandle { (conn) throws(PGError) in
                unsafe PQtransactionStatus(conn) != PQTRANS_IDLE
            }
        } catch {
            return error.code == .concurrentUse
        }
    }

    /// The server version as an integer, e.g. `150018` for 15.18; `nil` when closed or in use elsewhere.
    public var serverVersion: Int? {
        try? unsafe withHandle { (conn) throws(PGError) in Int(unsafe PQserverVersion(conn)) }
    }

    /// Closes the connection and reopens it with the same parameters (`PQreset`, blocking).
    /// Prepared statements are gone afterwards.
    /// - Throws: ``PGError/Code/connectionFailed`` if the new connection fails (the object stays usable for a
    ///   later `reset()`), ``PGError/Code/connectionClosed`` after ``close()``.
    public func reset() throws(PGError) {
        try unsafe withHandle { (conn) throws(PGError) in
            preparedStatements.removeAll()
            unsafe PQreset(conn)
            guard unsafe PQstatus(conn) == CONNECTION_OK else {
                throw PGError(code: .connectionFailed, message: unsafe connectionErrorMessage(conn))
            }
            try unsafe checkSession(conn)
        }
    }

    /// Closes the connection now (`PQfinish`) instead of at `deinit`. Later calls throw
    /// ``PGError/Code/connectionClosed``; closing twice does nothing.
    /// - Throws: ``PGError/Code/concurrentUse`` if another thread is using the connection.
    public func close() throws(PGError) {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw PGError(code: .concurrentUse, message: "close() while the connection is in use")
        }
        defer { busy.store(false, ordering: .releasing) }
        if let handle = unsafe handle {
            unsafe self.handle = nil
            preparedStatements.removeAll()
            unsafe PQfinish(handle)
        }
    }

    // MARK: - Statements

    /// Runs one parameterised statement (`PQexecParams`) with binary parameters and binary results.
    ///
    /// - Parameter query: The statement; build it by interpolation so values become `$n` parameters.
    /// - Returns: The copied-out result.
    /// - Throws: ``PGError/Code/queryFailed`` with ``PGError/sqlState`` when the server rejects it,
    ///   ``PGError/Code/connectionClosed`` if the connection is or becomes unusable, a binding's encoding
    ///   error, ``PGError/Code/invalidArgument`` for a NUL byte in the SQL or more than 65535 parameters.
    public func execute(_ query: PGQuery) throws(PGError) -> PGResult {
        try checkText(query.sql, what: "SQL")
        let parameters = try checkedParameters(query.bindings)
        return try unsafe withHandle { (conn) throws(PGError) in
            try unsafe withCStrings([query.sql]) { strings in
                unsafe withParameters(parameters) { values, lengths, formats, types in
                    Result { () throws(PGError) in
                        let result = unsafe PQexecParams(
                            conn,
                            strings[0],
                            Int32(parameters.count),
                            types,
                            values,
                            lengths,
                            formats,
                            1
                        )
                        return try unsafe consume(result, on: conn, copyRows: true)
                    }
                }
            }.get()
        }
    }

    /// Creates a named prepared statement on this connection (`PQprepare`).
    ///
    /// - Parameters:
    ///   - name: The statement's name; unique on this connection.
    ///   - sql: The statement's SQL with `$n` placeholders. Trusted text: no values in it.
    ///   - parameterTypes: The parameters' types. ``executePrepared(name:bindings:)`` checks its bindings
    ///     against them before sending. ``PGType/unspecified`` lets the server infer one (unchecked).
    /// - Throws: ``PGError/Code/queryFailed`` (SQLSTATE 42P05 if the name exists), or as ``execute(_:)``.
    public func prepare(name: String, sql: String, parameterTypes: [PGType]) throws(PGError) {
        try checkText(name, what: "statement name")
        try checkText(sql, what: "SQL")
        guard parameterTypes.count <= Self.maximumParameterCount else {
            throw PGError(code: .invalidArgument, message: "\(parameterTypes.count) parameters, at most 65535 allowed")
        }
        try unsafe withHandle { (conn) throws(PGError) in
            let oids = parameterTypes.map { Oid($0.rawValue) }
            _ = try unsafe withCStrings([name, sql]) { strings in
                Result { () throws(PGError) in
                    let result = unsafe PQprepare(conn, strings[0], strings[1], Int32(oids.count), oids)
                    return try unsafe consume(result, on: conn, copyRows: false)
                }
            }.get()
            preparedStatements[name] = parameterTypes
        }
    }

    /// Whether ``prepare(name:sql:parameterTypes:)`` created `name` on this connection since it was opened or
    /// last reset.
    /// - Parameter name: The statement's name.
    public func hasPreparedStatement(named name: String) -> Bool {
        unsafe (try? withHandle { (_) throws(PGError) in preparedStatements[name] != nil }) ?? false
    }

    /// Runs a prepared statement (`PQexecPrepared`) with binary parameters and binary results.
    ///
    /// - Parameters:
    ///   - name: A statement created by ``prepare(name:sql:parameterTypes:)``.
    ///   - bindings: One value per parameter, of the declared types.
    /// - Returns: The copied-out result.
    /// - Throws: ``PGError/Code/typeMismatch`` or ``PGError/Code/invalidArgument`` if the bindings do not match
    ///   the declared parameter types or count (checked before sending), ``PGError/Code/queryFailed``
    ///   (SQLSTATE 26000 for an unknown name), or as ``execute(_:)``.
    public func executePrepared(name: String, bindings: PGBindings) throws(PGError) -> PGResult {
        try checkText(name, what: "statement name")
        let parameters = try checkedParameters(bindings)
        return try unsafe withHandle { (conn) throws(PGError) in
            if let declared = preparedStatements[name] {
                try checkBindings(parameters, against: declared, statement: name)
            }
            return try unsafe withCStrings([name]) { strings in
                unsafe withParameters(parameters) { values, lengths, formats, _ in
                    Result { () throws(PGError) in
                        let result = unsafe PQexecPrepared(
                            conn,
                            strings[0],
                            Int32(parameters.count),
                            values,
                            lengths,
                            formats,
                            1
                        )
                        return try unsafe consume(result, on: conn, copyRows: true)
                    }
                }
            }.get()
        }
    }

    /// Runs SQL text with the simple query protocol (`PQexec`): several statements separated by `;` are
    /// allowed, and they run in one implicit transaction unless the text has its own `BEGIN`/`COMMIT`.
    ///
    /// For trusted SQL only (migrations read from the repository, fixed DDL): there are no parameters, and
    /// any result rows are discarded. `COPY` is not supported.
    /// - Parameter sql: The SQL text.
    /// - Throws: ``PGError/Code/queryFailed`` for the first failing statement, or as ``execute(_:)``.
    public func simpleQuery(_ sql: String) throws(PGError) {
        _ = try simpleQueryResult(sql)
    }

    /// Runs `body` inside `BEGIN` ... `COMMIT`, or `ROLLBACK` if it throws.
    ///
    /// If `body` swallows a server error, the server has already aborted the transaction and turns `COMMIT`
    /// into a rollback; this is reported as ``PGError/Code/transactionRolledBack`` rather than as success.
    /// If the rollback itself fails (a lost connection), `body`'s error is thrown; check ``isHealthy``.
    ///
    /// - Parameter body: The work; it receives this connection.
    /// - Returns: `body`'s value, once committed.
    /// - Throws: `body`'s error (after rolling back), ``PGError/Code/invalidArgument`` if a transaction is
    ///   already open, ``PGError/Code/transactionRolledBack``, or a ``PGError`` from `BEGIN`/`COMMIT`
    ///   (e.g. a serialization failure, SQLSTATE 40001, at commit).
    public func transaction<T>(_ body: (PGConnection) throws -> T) throws -> T {
        try unsafe withHandle { (conn) throws(PGError) in
            guard unsafe PQtransactionStatus(conn) == PQTRANS_IDLE else {
                throw PGError(code: .invalidArgument, message: "transaction() while a transaction is open")
            }
        }
        try simpleQuery("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            _ = try? simpleQueryResult("ROLLBACK")
            throw error
        }
        let commit = try simpleQueryResult("COMMIT")
        guard commit.commandTag == "COMMIT" else {
            throw PGError(
                code: .transactionRolledBack,
                message: "COMMIT returned \(commit.commandTag): a statement in the transaction failed"
            )
        }
        return value
    }

    // MARK: - Internals

    static let maximumParameterCount = 65_535

    /// Runs `body` with the libpq handle while holding the busy flag.
    func withHandle<R>(_ body: (OpaquePointer) throws(PGError) -> R) throws(PGError) -> R {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw PGError(code: .concurrentUse, message: "connection used by two threads at once")
        }
        defer { busy.store(false, ordering: .releasing) }
        guard let handle = unsafe handle else {
            throw PGError(code: .connectionClosed, message: "connection was closed")
        }
        return try unsafe body(handle)
    }

    private func simpleQueryResult(_ sql: String) throws(PGError) -> PGResult {
        try checkText(sql, what: "SQL")
        return try unsafe withHandle { (conn) throws(PGError) in
            try unsafe withCStrings([sql]) { strings in
                Result { () throws(PGError) in
                    let result = unsafe PQexec(conn, strings[0])
                    return try unsafe consume(result, on: conn, copyRows: false)
                }
            }.get()
        }
    }

    func checkedParameters(_ bindings: PGBindings) throws(PGError) -> [PGBindings.Value] {
        if let error = bindings.encodingError {
            throw error
        }
        guard bindings.count <= Self.maximumParameterCount else {
            throw PGError(code: .invalidArgument, message: "\(bindings.count) parameters, at most 65535 allowed")
        }
        return bindings.values
    }

    func checkBindings(
        _ parameters: [PGBindings.Value],
        against declared: [PGType],
        statement: String
    ) throws(PGError) {
        guard parameters.count == declared.count else {
            throw PGError(
                code: .invalidArgument,
                message: "statement \(statement) takes \(declared.count) parameters, got \(parameters.count)"
            )
        }
        for (index, (parameter, type)) in zip(parameters, declared).enumerated()
        where type != .unspecified && parameter.type != type {
            throw PGError(
                code: .typeMismatch,
                message: "statement \(statement) parameter $\(index + 1) is \(type), got \(parameter.type)"
            )
        }
    }
}

// MARK: - libpq helpers (the only code that touches libpq pointers besides PGConnection)

/// Throws if `text` cannot be passed as a C string without being cut at a NUL byte.
private func checkText(_ text: String, what: String) throws(PGError) {
    guard !text.utf8.contains(0) else {
        throw PGError(code: .invalidArgument, message: "\(what) contains a NUL byte")
    }
}

/// Calls `body` with NUL-terminated copies of `strings`, valid only during the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>]) -> R) -> R {
    var buffer: [UInt8] = []
    var offsets: [Int] = []
    for string in strings {
        offsets.append(buffer.count)
        buffer.append(contentsOf: string.utf8)
        buffer.append(0)
    }
    buffer.append(0)  // never empty, so there is always a base address
    return unsafe buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else {
            preconditionFailure("a non-empty array has a base address")
        }
        let pointers = unsafe offsets.map { unsafe (base + $0).assumingMemoryBound(to: CChar.self) }
        return unsafe body(pointers)
    }
}

/// Calls `body` with libpq's parallel parameter arrays (values, lengths, formats, type OIDs), all valid only
/// during the call. Every format is binary (1); a NULL parameter has a nil value pointer. A non-NULL empty
/// value (an empty `bytea` or `text`) gets a valid pointer with length 0: libpq would read nil as NULL.
func withParameters<R>(
    _ parameters: [PGBindings.Value],
    _ body: ([UnsafePointer<CChar>?], [Int32], [Int32], [Oid]) -> R
) -> R {
    var buffer: [UInt8] = []
    var offsets: [Int?] = []
    var lengths: [Int32] = []
    for parameter in parameters {
        if let bytes = parameter.bytes {
            offsets.append(buffer.count)
            // checkedParameters limits the count; appendLengthPrefixed-style framing caps values at 2 GiB.
            lengths.append(Int32(clamping: bytes.count))
            buffer.append(contentsOf: bytes)
        } else {
            offsets.append(nil)
            lengths.append(0)
        }
    }
    buffer.append(0)  // never empty: an empty value at the end still points into the buffer
    let formats = [Int32](repeating: 1, count: parameters.count)
    let types = parameters.map { Oid($0.type.rawValue) }
    return unsafe buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else {
            preconditionFailure("a non-empty array has a base address")
        }
        let values: [UnsafePointer<CChar>?] = unsafe offsets.map { offset in
            unsafe offset.map { unsafe (base + $0).assumingMemoryBound(to: CChar.self) }
        }
        return unsafe body(values, lengths, formats, types)
    }
}

/// Copies a C string from libpq into Swift; `nil` for a NULL pointer.
private func copyString(_ pointer: UnsafePointer<CChar>?) -> String? {
    guard let pointer = unsafe pointer else { return nil }
    return unsafe String(cString: pointer)
}

/// libpq's last error message for the connection, trimmed. It never contains the password.
func connectionErrorMessage(_ conn: OpaquePointer) -> String {
    let message = unsafe copyString(PQerrorMessage(conn)) ?? ""
    return trimmingTrailingWhitespace(message)
}

private func trimmingTrailingWhitespace(_ text: String) -> String {
    var text = text
    while let last = text.last, last.isWhitespace {
        text.removeLast()
    }
    return text
}

/// Verifies the session parameters binary decoding relies on.
private func checkSession(_ conn: OpaquePointer) throws(PGError) {
    let integerDatetimes = unsafe copyString(PQparameterStatus(conn, "integer_datetimes"))
    guard integerDatetimes == "on" else {
        throw PGError(code: .protocolViolation, message: "server does not use integer timestamps")
    }
    let encoding = unsafe copyString(PQparameterStatus(conn, "client_encoding"))
    guard encoding == "UTF8" else {
        throw PGError(code: .protocolViolation, message: "client_encoding is \(encoding ?? "unknown"), not UTF8")
    }
}

/// Turns a libpq result into a ``PGResult`` or a ``PGError``: the one place that reads result statuses and
/// SQLSTATEs. Always frees `result`, and copies everything needed out of it first.
func consume(_ result: OpaquePointer?, on conn: OpaquePointer, copyRows: Bool) throws(PGError) -> PGResult {
    guard let result = unsafe result else {
        // No result at all: out of memory, or the command could not be sent.
        let lost = unsafe PQstatus(conn) != CONNECTION_OK
        throw PGError(code: lost ? .connectionClosed : .queryFailed, message: unsafe connectionErrorMessage(conn))
    }
    defer { unsafe PQclear(result) }

    let status = unsafe PQresultStatus(result)
    switch status {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
        return try unsafe copyResult(result, copyRows: copyRows)
    case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR:
        let sqlStateText = unsafe copyString(PQresultErrorField(result, clibpq_diag_sqlstate()))
        let sqlState = sqlStateText.map(SQLState.init(rawValue:))
        let primary = unsafe copyString(PQresultErrorField(result, clibpq_diag_message_primary()))
        let constraint = unsafe copyString(PQresultErrorField(result, clibpq_diag_constraint_name()))
        let message = unsafe primary ?? copyString(PQresultErrorMessage(result)).map(trimmingTrailingWhitespace) ?? ""
        let lost = unsafe PQstatus(conn) != CONNECTION_OK || (sqlState?.isConnectionError ?? false)
        throw PGError(
            code: lost ? .connectionClosed : .queryFailed,
            sqlState: sqlState,
            message: message,
            constraintName: constraint
        )
    case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
        unsafe abandonCopy(conn, status: status)
        throw PGError(code: .protocolViolation, message: "COPY is not supported")
    default:
        let name = unsafe copyString(PQresStatus(status)) ?? "unknown"
        throw PGError(code: .protocolViolation, message: "unexpected result status \(name)")
    }
}

/// Copies columns, rows and the command tag out of a successful result.
private func copyResult(_ result: OpaquePointer, copyRows: Bool) throws(PGError) -> PGResult {
    let commandTag = unsafe copyString(PQcmdStatus(result)) ?? ""
    let affectedRows = unsafe copyString(PQcmdTuples(result)).flatMap { Int($0) }
    guard copyRows else {
        return PGResult(
            columns: [],
            rowCount: 0,
            storage: [],
            cells: [],
            commandTag: commandTag,
            affectedRows: affectedRows
        )
    }
    let rowCount = Int(unsafe PQntuples(result))
    let columnCount = Int(unsafe PQnfields(result))
    var columns: [PGResult.Column] = []
    columns.reserveCapacity(columnCount)
    for column in 0..<Int32(columnCount) {
        guard unsafe PQfformat(result, column) == 1 else {
            throw PGError(code: .protocolViolation, message: "column \(column) is in text format")
        }
        let name = unsafe copyString(PQfname(result, column)) ?? ""
        columns.append(.init(name: name, type: PGType(rawValue: UInt32(unsafe PQftype(result, column)))))
    }
    var storage: [UInt8] = []
    var cells: [Range<Int>?] = []
    cells.reserveCapacity(rowCount * columnCount)
    for row in 0..<Int32(rowCount) {
        for column in 0..<Int32(columnCount) {
            if unsafe PQgetisnull(result, row, column) != 0 {
                cells.append(nil)
                continue
            }
            let length = Int(unsafe PQgetlength(result, row, column))
            let start = storage.count
            if length > 0, let value = unsafe PQgetvalue(result, row, column) {
                unsafe storage.append(contentsOf: UnsafeRawBufferPointer(start: value, count: length))
            }
            cells.append(start..<storage.count)
        }
    }
    return PGResult(
        columns: columns,
        rowCount: rowCount,
        storage: storage,
        cells: cells,
        commandTag: commandTag,
        affectedRows: affectedRows
    )
}

/// Leaves COPY mode after PQexec entered it, so that the connection stays usable: ends COPY IN with an
/// error, reads and discards COPY OUT data, then drains the remaining results.
private func abandonCopy(_ conn: OpaquePointer, status: ExecStatusType) {
    if status == PGRES_COPY_IN {
        _ = unsafe PQputCopyEnd(conn, "COPY is not supported by passkeyd's LibPQ")
    } else if status == PGRES_COPY_OUT {
        var buffer: UnsafeMutablePointer<CChar>? = nil
        while unsafe PQgetCopyData(conn, &buffer, 0) > 0 {
            unsafe PQfreemem(buffer)
            unsafe buffer = nil
        }
    }
    while let next = unsafe PQgetResult(conn) {
        let nextStatus = unsafe PQresultStatus(next)
        unsafe PQclear(next)
        if nextStatus == PGRES_COPY_IN || nextStatus == PGRES_COPY_OUT || nextStatus == PGRES_COPY_BOTH {
            break  // a second COPY in the same string: give up, the connection's state is the caller's problem
        }
    }
}
