internal import CLibPQ

// PGConnection: named prepared statements (PQprepare / PQexecPrepared), and PGPreparedStatement, which prepares
// lazily once per connection.

/// A statement prepared lazily, once per physical connection, and run with ``PGPool/executePrepared(_:_:)``
/// or ``PGConnection/executePrepared(_:_:)``.
///
/// The value only describes the statement: the first use on a connection runs `PQprepare`, later uses on that
/// connection only `PQexecPrepared`. After a reconnect (the pool replaces a broken connection) the statement is
/// prepared again on the new connection.
///
/// The ``name`` identifies the statement on every connection: two statements with one name but different SQL
/// are a programming error (the first one prepared on a connection wins). Use a fixed, descriptive name per
/// call site, e.g. `"credentials_by_id"`.
public struct PGPreparedStatement: Sendable, Hashable {
    /// The server-side statement name.
    public let name: String
    /// The SQL text with `$n` placeholders. Trusted text: it must contain no values.
    public let sql: String
    /// The parameters' types; bindings are checked against them before sending.
    public let parameterTypes: [PGType]
    /// Whether running the statement twice is harmless (a read). Only then does
    /// ``PGPool/executePrepared(_:_:)`` retry it, once, after a connection-level error.
    public let isIdempotent: Bool

    /// Describes a prepared statement.
    /// - Parameters:
    ///   - name: The server-side name, unique per statement across the process.
    ///   - sql: The SQL text with `$1`, `$2`, ... placeholders.
    ///   - parameterTypes: One type per placeholder.
    ///   - isIdempotent: `true` only for statements that are safe to run twice (reads). Default `false`.
    public init(name: String, sql: String, parameterTypes: [PGType], isIdempotent: Bool = false) {
        self.name = name
        self.sql = sql
        self.parameterTypes = parameterTypes
        self.isIdempotent = isIdempotent
    }
}

extension PGConnection {
    /// Runs `statement`, preparing it on this connection first if it has not been prepared here since the
    /// connection was opened or reset.
    /// - Parameters:
    ///   - statement: The statement.
    ///   - bindings: One value per parameter, of the declared types.
    /// - Returns: The copied-out result.
    /// - Throws: As ``prepare(name:sql:parameterTypes:)`` and ``executePrepared(name:bindings:)``.
    public func executePrepared(_ statement: PGPreparedStatement, _ bindings: PGBindings) throws(PGError) -> PGResult {
        if !hasPreparedStatement(named: statement.name) {
            try prepare(name: statement.name, sql: statement.sql, parameterTypes: statement.parameterTypes)
        }
        return try executePrepared(name: statement.name, bindings: bindings)
    }
}

extension PGConnection {
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

    // MARK: - Internals

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
