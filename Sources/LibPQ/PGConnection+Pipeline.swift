internal import CLibPQ

extension PGConnection {
    /// Runs prepared statements in libpq's pipeline mode: all are sent, each followed by a sync point, before the
    /// first result is read, so the batch costs one round trip and each statement is still its own implicit
    /// transaction (one commit each; a failing statement affects no other).
    ///
    /// Statements are prepared first (outside the pipeline) where needed. Sized for small batches (tens of short
    /// statements with short results): in blocking mode a batch whose results overflow the socket buffers while
    /// it is still being sent could stall, which small batches cannot.
    /// - Parameter statements: The statements and their bindings, in order.
    /// - Returns: One outcome per statement, in order: its result, or the error the server answered it with.
    /// - Throws: ``PGError/Code/connectionClosed`` or ``PGError/Code/protocolViolation`` when the connection fails
    ///   or the pipeline cannot be run (the connection is then unusable), or a binding error before anything is sent.
    public func executePipelined(_ statements: [(statement: PGPreparedStatement, bindings: PGBindings)]) throws(PGError) -> [Result<PGResult, PGError>] {
        if statements.isEmpty { return [] }
        var checked: [[PGBindings.Value]] = []
        checked.reserveCapacity(statements.count)
        for (statement, bindings) in statements {
            if !hasPreparedStatement(named: statement.name) {
                try prepare(name: statement.name, sql: statement.sql, parameterTypes: statement.parameterTypes)
            }
            let parameters = try checkedParameters(bindings)
            try checkBindings(parameters, against: statement.parameterTypes, statement: statement.name)
            checked.append(parameters)
        }
        return try unsafe withHandle { (conn) throws(PGError) in
            guard unsafe PQenterPipelineMode(conn) == 1 else {
                throw PGError(code: .protocolViolation, message: "cannot enter pipeline mode: \(unsafe connectionErrorMessage(conn))")
            }
            for (index, (statement, _)) in statements.enumerated() {
                let sent = unsafe withCStrings([statement.name]) { names in
                    unsafe withParameters(checked[index]) { values, lengths, formats, _ in
                        unsafe PQsendQueryPrepared(conn, names[0], Int32(checked[index].count), values, lengths, formats, 1)
                    }
                }
                guard sent == 1, unsafe PQpipelineSync(conn) == 1 else {
                    throw PGError(code: .connectionClosed, message: "pipeline send failed: \(unsafe connectionErrorMessage(conn))")
                }
            }
            var outcomes: [Result<PGResult, PGError>] = []
            outcomes.reserveCapacity(statements.count)
            for _ in statements {
                var outcome: Result<PGResult, PGError>?
                // The statement's results, up to the NULL that ends them.
                while let result = unsafe PQgetResult(conn) {
                    guard unsafe PQresultStatus(result) != PGRES_PIPELINE_SYNC else {
                        unsafe PQclear(result)
                        throw PGError(code: .protocolViolation, message: "pipeline: a sync point where a result was due")
                    }
                    let one = unsafe Result { () throws(PGError) in try unsafe consume(result, on: conn, copyRows: true) }
                    if outcome == nil { outcome = one }
                }
                guard let outcome else {
                    throw PGError(code: .connectionClosed, message: "pipeline: no result: \(unsafe connectionErrorMessage(conn))")
                }
                if case .failure(let error) = outcome, error.isConnectionError { throw error }
                outcomes.append(outcome)
                // Its sync point.
                guard let sync = unsafe PQgetResult(conn) else {
                    throw PGError(code: .connectionClosed, message: "pipeline: no sync point: \(unsafe connectionErrorMessage(conn))")
                }
                let status = unsafe PQresultStatus(sync)
                unsafe PQclear(sync)
                guard status == PGRES_PIPELINE_SYNC else {
                    throw PGError(code: .protocolViolation, message: "pipeline: expected a sync point")
                }
            }
            guard unsafe PQexitPipelineMode(conn) == 1 else {
                throw PGError(code: .protocolViolation, message: "cannot leave pipeline mode: \(unsafe connectionErrorMessage(conn))")
            }
            return outcomes
        }
    }
}
