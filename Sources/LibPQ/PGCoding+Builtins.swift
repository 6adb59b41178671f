#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

// Binary formats below follow the server's *send/*recv functions (src/backend/utils/adt/*.c):
// integers big-endian, bool one byte, text/bytea raw bytes (text in the client encoding, which
// PGConnection pins to UTF8), uuid 16 bytes, timestamptz an int8 of microseconds since 2000-01-01 UTC.

// MARK: - bool

extension Bool: PGCodable, PGArrayElement {
    /// `bool`.
    public static var pgType: PGType { .bool }
    /// `bool[]`.
    public static var pgArrayType: PGType { .boolArray }

    /// One byte, 1 or 0.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(self ? 1 : 0)
    }

    /// Only `bool`.
    public static func canDecode(_ type: PGType) -> Bool {
        type == .bool
    }

    /// One byte; non-zero is `true` (as in the server's `boolrecv`).
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        guard bytes.count == 1, let byte = bytes.first else {
            throw PGError(code: .protocolViolation, message: "bool value has \(bytes.count) bytes, expected 1")
        }
        self = byte != 0
    }
}

// MARK: - integers

/// Decodes any of int2/int4/int8 as an `Int64`; the callers have already checked which widths they accept.
private func decodeSignedInteger(_ bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) -> Int64 {
    switch type {
    case .int2: Int64(try decodeFixedWidth(Int16.self, from: bytes, type: type))
    case .int4: Int64(try decodeFixedWidth(Int32.self, from: bytes, type: type))
    case .int8: try decodeFixedWidth(Int64.self, from: bytes, type: type)
    default: throw PGError(code: .typeMismatch, message: "\(type) is not an integer type")
    }
}

extension Int16: PGCodable, PGArrayElement {
    /// `int2`.
    public static var pgType: PGType { .int2 }
    /// `int2[]`.
    public static var pgArrayType: PGType { .int2Array }

    /// Two bytes, big-endian.
    public func encode(into buffer: inout [UInt8]) {
        buffer.appendBigEndian(self)
    }

    /// Only `int2` (wider columns could overflow).
    public static func canDecode(_ type: PGType) -> Bool {
        type == .int2
    }

    /// Two bytes, big-endian.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        self = try decodeFixedWidth(Int16.self, from: bytes, type: type)
    }
}

extension Int32: PGCodable, PGArrayElement {
    /// `int4`.
    public static var pgType: PGType { .int4 }
    /// `int4[]`.
    public static var pgArrayType: PGType { .int4Array }

    /// Four bytes, big-endian.
    public func encode(into buffer: inout [UInt8]) {
        buffer.appendBigEndian(self)
    }

    /// `int2` and `int4` (widening only).
    public static func canDecode(_ type: PGType) -> Bool {
        type == .int2 || type == .int4
    }

    /// Big-endian `int2` or `int4`.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        let value = try decodeSignedInteger(bytes, type: type)
        guard let exact = Int32(exactly: value) else {
            throw PGError(code: .invalidValue, message: "\(type) value out of range for Int32")
        }
        self = exact
    }
}

extension Int64: PGCodable, PGArrayElement {
    /// `int8`.
    public static var pgType: PGType { .int8 }
    /// `int8[]`.
    public static var pgArrayType: PGType { .int8Array }

    /// Eight bytes, big-endian.
    public func encode(into buffer: inout [UInt8]) {
        buffer.appendBigEndian(self)
    }

    /// `int2`, `int4` and `int8`.
    public static func canDecode(_ type: PGType) -> Bool {
        type == .int2 || type == .int4 || type == .int8
    }

    /// Big-endian `int2`, `int4` or `int8`.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        self = try decodeSignedInteger(bytes, type: type)
    }
}

extension Int: PGCodable, PGArrayElement {
    /// `int8`.
    public static var pgType: PGType { .int8 }
    /// `int8[]`.
    public static var pgArrayType: PGType { .int8Array }

    /// Eight bytes, big-endian.
    public func encode(into buffer: inout [UInt8]) {
        buffer.appendBigEndian(Int64(self))
    }

    /// `int2`, `int4` and `int8`.
    public static func canDecode(_ type: PGType) -> Bool {
        Int64.canDecode(type)
    }

    /// Big-endian `int2`, `int4` or `int8`.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        let value = try decodeSignedInteger(bytes, type: type)
        guard let exact = Int(exactly: value) else {
            throw PGError(code: .invalidValue, message: "\(type) value out of range for Int")
        }
        self = exact
    }
}

// MARK: - text

extension String: PGCodable, PGArrayElement {
    /// `text`.
    public static var pgType: PGType { .text }
    /// `text[]`.
    public static var pgArrayType: PGType { .textArray }

    /// The UTF-8 bytes. (The server rejects a NUL byte in text with SQLSTATE 22021.)
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: utf8)
    }

    /// `text`, `varchar`, `bpchar` and `name`: all are sent as their bytes in the client encoding.
    public static func canDecode(_ type: PGType) -> Bool {
        type == .text || type == .varchar || type == .bpchar || type == .name
    }

    /// `text[]`, `varchar[]`, `bpchar[]` and `name[]`.
    public static func canDecodeArray(_ type: PGType) -> Bool {
        type == .textArray || type == .varcharArray || type == .bpcharArray || type == .nameArray
    }

    /// UTF-8; invalid UTF-8 is a ``PGError/Code/protocolViolation`` rather than silently repaired.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw PGError(code: .protocolViolation, message: "\(type) value is not valid UTF-8")
        }
        self = string
    }
}

// MARK: - bytea

extension UInt8: PGArrayElement {
    /// `[UInt8]` is `bytea`.
    public static var pgArrayType: PGType { .bytea }

    /// The bytes themselves (binary `bytea` has no framing).
    public static func encodeArray(_ elements: [UInt8], into buffer: inout [UInt8]) {
        buffer.append(contentsOf: elements)
    }

    /// The bytes themselves.
    public static func decodeArray(pgBinary bytes: ArraySlice<UInt8>, type: PGType) -> [UInt8] {
        Array(bytes)
    }
}

extension Data: PGCodable {
    /// `bytea`.
    public static var pgType: PGType { .bytea }

    /// The bytes themselves.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: self)
    }

    /// Only `bytea`.
    public static func canDecode(_ type: PGType) -> Bool {
        type == .bytea
    }

    /// The bytes themselves.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) {
        self.init(bytes)
    }
}

// MARK: - uuid

extension UUID: PGCodable, PGArrayElement {
    /// `uuid`.
    public static var pgType: PGType { .uuid }
    /// `uuid[]`.
    public static var pgArrayType: PGType { .uuidArray }

    /// The 16 bytes in RFC 4122 order.
    public func encode(into buffer: inout [UInt8]) {
        let u = uuid
        buffer.append(contentsOf: [
            u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15,
        ])
    }

    /// Only `uuid`.
    public static func canDecode(_ type: PGType) -> Bool {
        type == .uuid
    }

    /// Exactly 16 bytes.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        let b = Array(bytes)
        guard b.count == 16 else {
            throw PGError(code: .protocolViolation, message: "uuid value has \(b.count) bytes, expected 16")
        }
        self.init(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }
}

// MARK: - timestamptz

/// A `timestamptz` exactly as PostgreSQL stores it: microseconds since 2000-01-01 00:00:00 UTC, with the
/// server's `infinity` and `-infinity` as `Int64.max` and `Int64.min`.
///
/// Use it where microsecond exactness or infinities matter; `Date` is also ``PGCodable`` as `timestamptz`.
public struct PGTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible, PGCodable, PGArrayElement {
    /// Microseconds since 2000-01-01 00:00:00 UTC.
    public var microsecondsSince2000: Int64

    /// Seconds from 2000-01-01 (PostgreSQL's epoch) to 2001-01-01 (`Date`'s reference date): 366 days.
    static let secondsFrom2000To2001: Int64 = 366 * 86_400

    /// Wraps a raw value.
    /// - Parameter microsecondsSince2000: Microseconds since 2000-01-01 00:00:00 UTC.
    public init(microsecondsSince2000: Int64) {
        self.microsecondsSince2000 = microsecondsSince2000
    }

    /// Converts a `Date`, rounding to the nearest microsecond.
    /// Returns `nil` for NaN, infinite or out-of-range dates.
    /// - Parameter date: The date to convert.
    public init?(_ date: Date) {
        let seconds = date.timeIntervalSinceReferenceDate + Double(Self.secondsFrom2000To2001)
        let micros = (seconds * 1_000_000).rounded()
        guard micros.isFinite, let exact = Int64(exactly: micros), exact != .max, exact != .min else {
            return nil
        }
        self.microsecondsSince2000 = exact
    }

    /// The server's `infinity`.
    public static let infinity = PGTimestamp(microsecondsSince2000: .max)
    /// The server's `-infinity`.
    public static let negativeInfinity = PGTimestamp(microsecondsSince2000: .min)

    /// Whether this is neither `infinity` nor `-infinity`.
    public var isFinite: Bool {
        self != .infinity && self != .negativeInfinity
    }

    /// The same instant as a `Date`, or `nil` for the infinities.
    public var date: Date? {
        guard isFinite else { return nil }
        let (seconds, micros) = microsecondsSince2000.quotientAndRemainder(dividingBy: 1_000_000)
        return Date(
            timeIntervalSinceReferenceDate: Double(seconds - Self.secondsFrom2000To2001) + Double(micros) / 1_000_000
        )
    }

    /// Orders by instant; `-infinity` < every finite value < `infinity`.
    public static func < (lhs: PGTimestamp, rhs: PGTimestamp) -> Bool {
        lhs.microsecondsSince2000 < rhs.microsecondsSince2000
    }

    /// `infinity`, `-infinity` or the raw microsecond count.
    public var description: String {
        switch self {
        case .infinity: "infinity"
        case .negativeInfinity: "-infinity"
        default: "PGTimestamp(\(microsecondsSince2000)µs since 2000-01-01Z)"
        }
    }

    /// `timestamptz`.
    public static var pgType: PGType { .timestamptz }
    /// `timestamptz[]`.
    public static var pgArrayType: PGType { .timestamptzArray }

    /// An int8, big-endian.
    public func encode(into buffer: inout [UInt8]) {
        buffer.appendBigEndian(microsecondsSince2000)
    }

    /// Only `timestamptz`: a `timestamp` without time zone is a local time, not an instant.
    public static func canDecode(_ type: PGType) -> Bool {
        type == .timestamptz
    }

    /// An int8, big-endian.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        self.microsecondsSince2000 = try decodeFixedWidth(Int64.self, from: bytes, type: type)
    }
}

extension Date: PGCodable, PGArrayElement {
    /// `timestamptz`.
    public static var pgType: PGType { .timestamptz }
    /// `timestamptz[]`.
    public static var pgArrayType: PGType { .timestamptzArray }

    /// As ``PGTimestamp``, rounded to the microsecond.
    /// - Throws: ``PGError/Code/invalidValue`` for NaN, infinite or out-of-range dates.
    public func encode(into buffer: inout [UInt8]) throws(PGError) {
        guard let timestamp = PGTimestamp(self) else {
            throw PGError(code: .invalidValue, message: "date has no timestamptz representation")
        }
        timestamp.encode(into: &buffer)
    }

    /// Only `timestamptz`.
    public static func canDecode(_ type: PGType) -> Bool {
        PGTimestamp.canDecode(type)
    }

    /// As ``PGTimestamp``.
    /// - Throws: ``PGError/Code/invalidValue`` for `infinity` and `-infinity`; decode ``PGTimestamp`` to see them.
    public init(pgBinary bytes: ArraySlice<UInt8>, type: PGType) throws(PGError) {
        guard let date = try PGTimestamp(pgBinary: bytes, type: type).date else {
            throw PGError(code: .invalidValue, message: "infinite timestamptz cannot be a Date")
        }
        self = date
    }
}

// MARK: - bytea[]

extension Array: PGArrayElement where Element == UInt8 {
    /// `[[UInt8]]` is `bytea[]` (batched lookups by key: `= ANY($1)`, `unnest($1)`).
    public static var pgArrayType: PGType { .byteaArray }
}
