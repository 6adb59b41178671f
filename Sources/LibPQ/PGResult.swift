/// The outcome of one statement, fully copied out of libpq.
///
/// A value type that owns its data: rows, column names and types, and the command tag were copied into Swift
/// storage and the libpq `PGresult` was freed before the executing call returned. It is safe to keep, to send
/// across threads and to read after the connection is gone.
///
/// Values are in binary format. Decode them with ``decode(_:row:column:)``, which checks the column's type
/// first and throws ``PGError/Code/typeMismatch`` rather than misreading bytes.
public struct PGResult: Sendable, Hashable {
    /// A column's name and type.
    public struct Column: Sendable, Hashable {
        /// The column's name (`AS` alias or derived name, e.g. `?column?`).
        public let name: String
        /// The column's type OID.
        public let type: PGType
    }

    /// The columns, in order.
    public let columns: [Column]
    /// The number of rows returned.
    public let rowCount: Int
    /// All values, row-major, in one buffer.
    private let storage: [UInt8]
    /// For each cell (row-major), its range in `storage`, or `nil` for SQL NULL.
    private let cells: [Range<Int>?]
    /// The command tag, e.g. `SELECT 3`, `INSERT 0 1`, `DELETE 2`, `CREATE TABLE`.
    public let commandTag: String
    /// The number of rows affected or returned (`PQcmdTuples`), or `nil` when the command does not report one
    /// (DDL, `BEGIN`, ...).
    public let affectedRows: Int?

    init(
        columns: [Column],
        rowCount: Int,
        storage: [UInt8],
        cells: [Range<Int>?],
        commandTag: String,
        affectedRows: Int?
    ) {
        self.columns = columns
        self.rowCount = rowCount
        self.storage = storage
        self.cells = cells
        self.commandTag = commandTag
        self.affectedRows = affectedRows
    }

    /// The number of columns.
    public var columnCount: Int { columns.count }

    /// The column names, in order.
    public var columnNames: [String] { columns.map(\.name) }

    /// The index of the first column named `name`, or `nil`.
    /// - Parameter name: The exact column name.
    public func columnIndex(named name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }

    /// The raw binary value of a cell: `nil` for SQL NULL or for an index out of range.
    /// - Parameters:
    ///   - row: The row index.
    ///   - column: The column index.
    public subscript(row row: Int, column column: Int) -> [UInt8]? {
        guard let index = cellIndex(row: row, column: column), let range = cells[index] else {
            return nil
        }
        return Array(storage[range])
    }

    /// Whether a cell is SQL NULL.
    /// - Parameters:
    ///   - row: The row index.
    ///   - column: The column index.
    /// - Throws: ``PGError/Code/invalidArgument`` for an index out of range.
    public func isNull(row: Int, column: Int) throws(PGError) -> Bool {
        try cells[checkedCellIndex(row: row, column: column)] == nil
    }

    /// Decodes a non-NULL cell.
    /// - Parameters:
    ///   - type: The Swift type to decode into.
    ///   - row: The row index.
    ///   - column: The column index.
    /// - Throws: ``PGError/Code/typeMismatch`` if `T` cannot decode the column's type,
    ///   ``PGError/Code/unexpectedNull`` for NULL, ``PGError/Code/invalidArgument`` for an index out of range,
    ///   ``PGError/Code/protocolViolation`` or ``PGError/Code/invalidValue`` for bytes `T` rejects.
    public func decode<T: PGDecodable>(_ type: T.Type, row: Int, column: Int) throws(PGError) -> T {
        guard let value = try decode(T?.self, row: row, column: column) else {
            throw PGError(
                code: .unexpectedNull,
                message: "NULL in column \(column) (\(columns[column].name)) decoded as non-optional \(T.self)"
            )
        }
        return value
    }

    /// Decodes a cell that may be NULL.
    /// - Parameters:
    ///   - type: `T?.self`.
    ///   - row: The row index.
    ///   - column: The column index.
    /// - Returns: `nil` for SQL NULL.
    /// - Throws: As ``decode(_:row:column:)``, except for NULL.
    public func decode<T: PGDecodable>(_ type: T?.Type, row: Int, column: Int) throws(PGError) -> T? {
        let index = try checkedCellIndex(row: row, column: column)
        let columnType = columns[column].type
        // Check the type even for NULL, so a wrong mapping fails on every row, not only on non-NULL ones.
        guard T.canDecode(columnType) else {
            throw PGError(
                code: .typeMismatch,
                message: "column \(column) (\(columns[column].name)) is \(columnType), cannot decode as \(T.self)"
            )
        }
        guard let range = cells[index] else {
            return nil
        }
        return try T(pgBinary: storage[range], type: columnType)
    }

    /// Decodes a cell by column name; see ``decode(_:row:column:)``.
    /// - Parameters:
    ///   - type: The Swift type to decode into.
    ///   - row: The row index.
    ///   - column: The column name.
    /// - Throws: ``PGError/Code/invalidArgument`` if there is no such column, else as ``decode(_:row:column:)``.
    public func decode<T: PGDecodable>(_ type: T.Type, row: Int, column: String) throws(PGError) -> T {
        try decode(T.self, row: row, column: try checkedColumnIndex(named: column))
    }

    /// Decodes a cell that may be NULL by column name; see ``decode(_:row:column:)``.
    /// - Parameters:
    ///   - type: `T?.self`.
    ///   - row: The row index.
    ///   - column: The column name.
    public func decode<T: PGDecodable>(_ type: T?.Type, row: Int, column: String) throws(PGError) -> T? {
        try decode(T?.self, row: row, column: try checkedColumnIndex(named: column))
    }

    /// The rows, for `for row in result.rows { ... }`.
    public var rows: [PGRow] {
        (0..<rowCount).map { PGRow(result: self, index: $0) }
    }

    private func cellIndex(row: Int, column: Int) -> Int? {
        guard row >= 0, row < rowCount, column >= 0, column < columns.count else {
            return nil
        }
        return row * columns.count + column
    }

    private func checkedCellIndex(row: Int, column: Int) throws(PGError) -> Int {
        guard let index = cellIndex(row: row, column: column) else {
            throw PGError(
                code: .invalidArgument,
                message: "cell (\(row), \(column)) out of range for \(rowCount) rows x \(columns.count) columns"
            )
        }
        return index
    }

    private func checkedColumnIndex(named name: String) throws(PGError) -> Int {
        guard let index = columnIndex(named: name) else {
            throw PGError(code: .invalidArgument, message: "no column named \(name)")
        }
        return index
    }
}

/// One row of a ``PGResult``.
public struct PGRow: Sendable {
    /// The result the row belongs to.
    public let result: PGResult
    /// The row's index in ``result``.
    public let index: Int

    /// Decodes a non-NULL cell of this row; see ``PGResult/decode(_:row:column:)``.
    /// - Parameters:
    ///   - type: The Swift type to decode into.
    ///   - column: The column index.
    public func decode<T: PGDecodable>(_ type: T.Type, column: Int) throws(PGError) -> T {
        try result.decode(T.self, row: index, column: column)
    }

    /// Decodes a cell of this row that may be NULL.
    /// - Parameters:
    ///   - type: `T?.self`.
    ///   - column: The column index.
    public func decode<T: PGDecodable>(_ type: T?.Type, column: Int) throws(PGError) -> T? {
        try result.decode(T?.self, row: index, column: column)
    }

    /// Decodes a non-NULL cell of this row by column name.
    /// - Parameters:
    ///   - type: The Swift type to decode into.
    ///   - column: The column name.
    public func decode<T: PGDecodable>(_ type: T.Type, column: String) throws(PGError) -> T {
        try result.decode(T.self, row: index, column: column)
    }

    /// Decodes a cell of this row that may be NULL, by column name.
    /// - Parameters:
    ///   - type: `T?.self`.
    ///   - column: The column name.
    public func decode<T: PGDecodable>(_ type: T?.Type, column: String) throws(PGError) -> T? {
        try result.decode(T?.self, row: index, column: column)
    }
}
