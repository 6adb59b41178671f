/// A Swift type that can be sent to PostgreSQL as a binary-format parameter.
///
/// Conformances write PostgreSQL's binary wire format ("send" function) for ``pgType``; the value's length
/// is framed by the caller. Use SQL NULL by binding an `Optional` that is `nil`.
public protocol PGEncodable: Sendable {
    /// The PostgreSQL type the encoded bytes are in; sent as the parameter's type OID.
    static var pgType: PGType { get }

    /// Appends the value's binary representation.
    /// - Parameter buffer: The buffer to append to.
    /// - Throws: ``PGError/Code/invalidValue`` if the value has no PostgreSQL representation.
    func encode(into buffer: inout [UInt8]) throws(PGError)
}

/// A Swift type that can be read from a binary-format PostgreSQL column.
public protocol PGDecodable: Sendable {
    /// Whether a column of `type` can be decoded into `Self` without loss or misreading.
    /// - Parameter type: The column's type.
    static func canDecode(_ type: PGType) -> Bool

    /// Decodes a non-NULL binary value.
    /// - Parameters:
    ///   - bytes: The value's bytes. A slice: its indices do not start at zero.
    ///   - type: The column's type; ``canDecode(_:)`` returned `true` for it.
    /// - Throws: ``PGError/Code/protocolViolation`` for malformed bytes, ``PGError/Code/invalidValue`` for a
    ///   value `Self` cannot hold.
    init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError)
}

/// A type that can be both encoded and decoded.
public typealias PGCodable = PGDecodable & PGEncodable

/// A type whose Swift arrays map to a PostgreSQL type: `[String]` is `text[]`, `[Int64]` is `int8[]`,
/// and `[UInt8]` is `bytea` (not an array type).
///
/// Types that are ``PGCodable`` get the PostgreSQL one-dimensional binary array format by declaring
/// conformance and ``pgArrayType``. Decoding refuses multi-dimensional arrays and NULL elements.
public protocol PGArrayElement: Sendable {
    /// The PostgreSQL type of `[Self]`.
    static var pgArrayType: PGType { get }

    /// Whether a column of `type` can be decoded into `[Self]`. Default: `type == pgArrayType`.
    /// - Parameter type: The column's type.
    static func canDecodeArray(_ type: PGType) -> Bool

    /// Appends the binary representation of `elements` as a ``pgArrayType`` value.
    /// - Parameters:
    ///   - elements: The array to encode.
    ///   - buffer: The buffer to append to.
    static func encodeArray(_ elements: [Self], into buffer: inout [UInt8]) throws(PGError)

    /// Decodes a non-NULL binary value of an array column.
    /// - Parameters:
    ///   - bytes: The value's bytes (a slice: indices do not start at zero).
    ///   - type: The column's type; ``canDecodeArray(_:)`` returned `true` for it.
    static func decodeArray(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) -> [Self]
}

extension PGArrayElement {
    /// Default: only ``pgArrayType`` itself.
    public static func canDecodeArray(_ type: PGType) -> Bool {
        type == pgArrayType
    }
}

extension PGArrayElement where Self: PGEncodable & PGDecodable {
    /// Writes PostgreSQL's binary array format (`array_send`); see ``writePGArray(_:elementType:hasNull:into:value:)``.
    public static func encodeArray(_ elements: [Self], into buffer: inout [UInt8]) throws(PGError) {
        try writePGArray(elements, elementType: Self.pgType, hasNull: false, into: &buffer) { $0 }
    }

    /// Reads PostgreSQL's binary array format (`array_recv`); a NULL element is refused.
    public static func decodeArray(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) -> [Self] {
        try readPGArray(bytes, of: Self.self, described: "[\(Self.self)]") { (element, elementType) throws(PGError) in
            guard let element else {
                throw PGError(code: .unexpectedNull, message: "NULL element in array decoded as [\(Self.self)]")
            }
            return try Self(pgBinary: element, type: elementType)
        }
    }
}

/// An array with NULL elements: `[T?]` binds as `T`'s array type, `nil` elements as SQL NULL (for the columns of a
/// batch `unnest`, where some rows have no value).
extension Optional: PGArrayElement where Wrapped: PGArrayElement & PGEncodable & PGDecodable {
    public static var pgArrayType: PGType { Wrapped.pgArrayType }

    /// `array_send` with the has-null flag set when an element is nil, and -1 as the length of each nil element.
    public static func encodeArray(_ elements: [Wrapped?], into buffer: inout [UInt8]) throws(PGError) {
        let hasNull = elements.contains { $0 == nil }
        try writePGArray(elements, elementType: Wrapped.pgType, hasNull: hasNull, into: &buffer) { $0 }
    }

    /// `array_recv` of a one-dimensional array whose NULL elements become nil.
    public static func decodeArray(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) -> [Wrapped?] {
        try readPGArray(bytes, of: Wrapped.self, described: "[\(Wrapped.self)?]") {
            (element, elementType) throws(PGError) -> Wrapped? in
            guard let element else { return nil }
            return try Wrapped(pgBinary: element, type: elementType)
        }
    }
}

/// The one writer of PostgreSQL's binary array format (`array_send`), for `[T]` and `[T?]`: ndim, the has-null flag,
/// the element OID, then for one dimension its length and lower bound 1, then each element as a 4-byte length and
/// its bytes (-1 and no bytes for NULL). An empty array has zero dimensions.
/// - Parameters:
///   - elements: The array to encode.
///   - elementType: The element's PostgreSQL type.
///   - hasNull: Whether `value` returns nil for any element.
///   - buffer: The buffer to append to.
///   - value: An element's value, nil for SQL NULL.
@inline(__always)
func writePGArray<Element, Value: PGEncodable>(
    _ elements: [Element],
    elementType: PGType,
    hasNull: Bool,
    into buffer: inout [UInt8],
    value: (Element) -> Value?
) throws(PGError) {
    guard let count = Int32(exactly: elements.count) else {
        throw PGError(code: .invalidValue, message: "array has too many elements")
    }
    buffer.appendBigEndian(Int32(elements.isEmpty ? 0 : 1))  // ndim
    buffer.appendBigEndian(Int32(hasNull ? 1 : 0))  // flags
    buffer.appendBigEndian(elementType.rawValue)
    if !elements.isEmpty {
        buffer.appendBigEndian(count)  // dimension length
        buffer.appendBigEndian(Int32(1))  // lower bound
    }
    for element in elements {
        guard let element = value(element) else {
            buffer.appendBigEndian(Int32(-1))
            continue
        }
        try buffer.appendLengthPrefixed { (body: inout [UInt8]) throws(PGError) in
            try element.encode(into: &body)
        }
    }
}

/// The one reader of PostgreSQL's binary array format (`array_recv`) for `[T]` and `[T?]`: one dimension at most,
/// the element type checked against `Decoded`, each element's bytes (nil for NULL) handed to `element`.
/// - Parameters:
///   - bytes: The array value's bytes.
///   - _: The element type that decodes the values (checks the array's element OID).
///   - described: The Swift type named in errors.
///   - element: Makes an element from its bytes (nil for NULL) and the element type.
@inline(__always)
func readPGArray<Decoded: PGDecodable, Element>(
    _ bytes: ArraySlice<UInt8>,
    of _: Decoded.Type,
    described: @autoclosure () -> String,
    element: (ArraySlice<UInt8>?, PGType) throws(PGError) -> Element
) throws(PGError) -> [Element] {
    var reader = PGBinaryReader(bytes)
    let dimensions = try reader.read(Int32.self)
    _ = try reader.read(Int32.self)  // flags; NULL elements are detected per element
    let elementType = PGType(rawValue: try reader.read(UInt32.self))
    guard Decoded.canDecode(elementType) else {
        throw PGError(code: .typeMismatch, message: "array of \(elementType) cannot be decoded as \(described())")
    }
    if dimensions == 0 {
        try reader.expectEnd()
        return []
    }
    guard dimensions == 1 else {
        throw PGError(code: .typeMismatch, message: "\(dimensions)-dimensional array cannot be decoded as \(described())")
    }
    let count = try reader.read(Int32.self)
    _ = try reader.read(Int32.self)  // lower bound
    guard count >= 0 else {
        throw PGError(code: .protocolViolation, message: "negative array length")
    }
    var elements: [Element] = []
    elements.reserveCapacity(min(Int(count), reader.remaining / 4))
    for _ in 0..<count {
        let length = try reader.read(Int32.self)
        if length == -1 {
            elements.append(try element(nil, elementType))
        } else {
            elements.append(try element(try reader.readBytes(count: Int(length)), elementType))
        }
    }
    try reader.expectEnd()
    return elements
}

extension Array: PGEncodable where Element: PGArrayElement {
    /// The element's ``PGArrayElement/pgArrayType``.
    public static var pgType: PGType { Element.pgArrayType }

    /// Encodes via ``PGArrayElement/encodeArray(_:into:)``.
    public func encode(into buffer: inout [UInt8]) throws(PGError) {
        try Element.encodeArray(self, into: &buffer)
    }
}

extension Array: PGDecodable where Element: PGArrayElement {
    /// Delegates to ``PGArrayElement/canDecodeArray(_:)``.
    public static func canDecode(_ type: PGType) -> Bool {
        Element.canDecodeArray(type)
    }

    /// Decodes via ``PGArrayElement/decodeArray(pgBinary:type:)``.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        self = try Element.decodeArray(pgBinary: bytes, type: type)
    }
}

// MARK: - Binary helpers

extension Array where Element == UInt8 {
    /// Appends `value` in network byte order.
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var shift = T.bitWidth - 8
        while shift >= 0 {
            append(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }

    /// Appends a 4-byte big-endian length followed by what `body` writes.
    mutating func appendLengthPrefixed(_ body: (inout [UInt8]) throws(PGError) -> Void) throws(PGError) {
        let lengthIndex = endIndex
        appendBigEndian(Int32(0))
        let start = endIndex
        try body(&self)
        guard let length = Int32(exactly: endIndex - start) else {
            throw PGError(code: .invalidValue, message: "value longer than 2 GiB")
        }
        self[lengthIndex] = UInt8(truncatingIfNeeded: length >> 24)
        self[lengthIndex + 1] = UInt8(truncatingIfNeeded: length >> 16)
        self[lengthIndex + 2] = UInt8(truncatingIfNeeded: length >> 8)
        self[lengthIndex + 3] = UInt8(truncatingIfNeeded: length)
    }
}

/// Reads big-endian integers and byte runs from a slice, throwing ``PGError/Code/protocolViolation`` on
/// truncated input instead of trapping.
struct PGBinaryReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - index }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(PGError) -> T {
        let size = T.bitWidth / 8
        guard remaining >= size else {
            throw PGError(code: .protocolViolation, message: "truncated binary value")
        }
        var accumulator: UInt64 = 0
        for byte in bytes[index..<(index + size)] {
            accumulator = accumulator << 8 | UInt64(byte)
        }
        index += size
        return T(truncatingIfNeeded: accumulator)
    }

    mutating func readBytes(count: Int) throws(PGError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else {
            throw PGError(code: .protocolViolation, message: "truncated binary value")
        }
        let run = bytes[index..<(index + count)]
        index += count
        return run
    }

    func expectEnd() throws(PGError) {
        guard remaining == 0 else {
            throw PGError(code: .protocolViolation, message: "\(remaining) unexpected trailing bytes in binary value")
        }
    }
}

/// Decodes a fixed-size big-endian integer value, checking its exact length.
func decodeFixedWidth<T: FixedWidthInteger>(
    _: T.Type,
    from bytes: ArraySlice<UInt8>,
    type: PGType
) throws(PGError) -> T {
    guard bytes.count == T.bitWidth / 8 else {
        throw PGError(
            code: .protocolViolation,
            message: "\(type) value has \(bytes.count) bytes, expected \(T.bitWidth / 8)"
        )
    }
    var reader = PGBinaryReader(bytes)
    return try reader.read(T.self)
}
