internal import CLibPQ

// PGConnection: statements without a server-side name (parameterised, simple protocol) and transactions.

extension PGConnection {
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

    func simpleQueryResult(_ sql: String) throws(PGError) -> PGResult {
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
}
