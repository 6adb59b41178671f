internal import CLibPQ

// Result and error translation: the one place that reads libpq result statuses and SQLSTATEs. `consume` is the
// owner of every `PGresult` it is given and frees it on every path.

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
