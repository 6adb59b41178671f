/// Parameter values for a statement, already encoded in PostgreSQL's binary format.
///
/// Values are encoded when appended. An encoding failure (say, a NaN `Date`) is kept and thrown by the
/// `execute` call that uses the bindings, so building a query never throws.
public struct PGBindings: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// One parameter: its type OID and its bytes, `nil` for SQL NULL.
    struct Value: Sendable, Hashable {
        var type: PGType
        var bytes: [UInt8]?
    }

    private(set) var values: [Value] = []
    /// The first encoding failure, thrown when the bindings are used.
    private(set) var encodingError: PGError?

    /// Creates empty bindings.
    public init() {}

    /// Creates bindings from non-NULL values, e.g. `[Int64(1), "ada"]` for a prepared statement.
    /// Use `append(_:)` with an `Optional` or ``appendNull(type:)`` for NULLs.
    /// - Parameter elements: The values, in parameter order.
    public init(arrayLiteral elements: any PGEncodable...) {
        for element in elements {
            append(element)
        }
    }

    /// The number of parameters.
    public var count: Int { values.count }

    /// The parameters' types, in order.
    public var types: [PGType] { values.map(\.type) }

    /// Appends a value as the next parameter.
    /// - Parameter value: The value, encoded with its ``PGEncodable/pgType``.
    public mutating func append<T: PGEncodable>(_ value: T) {
        var bytes: [UInt8] = []
        do {
            try value.encode(into: &bytes)
        } catch {
            if encodingError == nil {
                encodingError = error
            }
        }
        values.append(Value(type: T.pgType, bytes: bytes))
    }

    /// Appends a value, or a typed SQL NULL for `nil`, as the next parameter.
    /// - Parameter value: The value; `nil` binds NULL with type `T.pgType`.
    public mutating func append<T: PGEncodable>(_ value: T?) {
        if let value {
            append(value)
        } else {
            appendNull(type: T.pgType)
        }
    }

    /// Appends SQL NULL of the given type as the next parameter.
    /// - Parameter type: The parameter's type.
    public mutating func appendNull(type: PGType) {
        values.append(Value(type: type, bytes: nil))
    }
}

/// A SQL statement with its parameters, built so that values cannot be spliced into the SQL text.
///
/// Every interpolated value becomes a `$n` placeholder and a binary parameter:
///
/// ```swift
/// let query: PGQuery = "SELECT id FROM users WHERE name = \(name) AND created > \(since)"
/// // sql: "SELECT id FROM users WHERE name = $1 AND created > $2", two bindings
/// ```
///
/// Do not write `$n` placeholders by hand in an interpolated query; they would collide with the generated
/// ones. Identifiers (table or column names chosen at run time) go through `\(identifier: name)`, which
/// quotes them. To run SQL text that was not written as a literal, use ``init(unsafeSQL:bindings:)``.
public struct PGQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The SQL text with `$1`, `$2`, ... placeholders.
    public var sql: String
    /// The parameters, in placeholder order.
    public var bindings: PGBindings

    /// Uses `unsafeSQL` as is. The caller vouches that it contains no untrusted text.
    /// - Parameters:
    ///   - unsafeSQL: SQL text; refer to the bindings as `$1`, `$2`, ...
    ///   - bindings: The parameters.
    public init(unsafeSQL: String, bindings: PGBindings = PGBindings()) {
        self.sql = unsafeSQL
        self.bindings = bindings
    }

    /// A literal with no interpolation: the SQL text itself, no parameters.
    /// - Parameter value: The SQL text.
    public init(stringLiteral value: String) {
        self.sql = value
        self.bindings = PGBindings()
    }

    /// Builds the query from an interpolated literal.
    /// - Parameter stringInterpolation: The collected SQL and bindings.
    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.bindings = stringInterpolation.bindings
    }

    /// The SQL text and parameter count; never the parameter values.
    public var description: String {
        "PGQuery(\(sql.debugDescription), \(bindings.count) bindings)"
    }

    /// Collects literal SQL and turns each interpolated value into a `$n` binding.
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql: String
        var bindings: PGBindings

        /// Reserves room for the literal parts.
        /// - Parameters:
        ///   - literalCapacity: Combined length of the literal parts.
        ///   - interpolationCount: Number of interpolations.
        public init(literalCapacity: Int, interpolationCount: Int) {
            self.sql = ""
            self.sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            self.bindings = PGBindings()
        }

        /// Appends literal SQL.
        /// - Parameter literal: SQL text written in the source.
        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// Binds a value and appends its placeholder.
        /// - Parameter value: The value to bind.
        public mutating func appendInterpolation<T: PGEncodable>(_ value: T) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// Binds a value or a typed NULL and appends its placeholder.
        /// - Parameter value: The value to bind; `nil` binds NULL.
        public mutating func appendInterpolation<T: PGEncodable>(_ value: T?) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// Appends a quoted SQL identifier: `"name"` with embedded double quotes doubled.
        ///
        /// A NUL character cannot occur in an identifier; it makes ``PGConnection/execute(_:)`` throw
        /// ``PGError/Code/invalidArgument``.
        /// - Parameter identifier: A table, column or schema name.
        public mutating func appendInterpolation(identifier: String) {
            sql += quoteIdentifier(identifier)
        }
    }
}

/// Quotes an identifier the way the server's `quote_ident` does when quoting is needed.
func quoteIdentifier(_ identifier: String) -> String {
    "\"" + identifier.replacing("\"", with: "\"\"") + "\""
}
