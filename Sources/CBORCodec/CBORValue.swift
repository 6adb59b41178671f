// CBORValue: the decoded CBOR data model (RFC 8949 §2) as a plain Swift value.
//
// Nothing in this file touches libcbor; values are built by `CBORDecoder` and
// serialised by `CBOREncoder`.

/// One CBOR data item (RFC 8949 §3).
///
/// Integers keep the wire representation: `.unsigned(n)` is major type 0 and
/// `.negative(n)` is major type 1, i.e. the integer `-1 - n`. This covers the full
/// CBOR integer range `-(2^64) ... 2^64 - 1`; use ``intValue`` for the common `Int64` view.
///
/// Equality follows the CBOR data model rather than Swift's defaults:
/// text strings are equal only when their UTF-8 bytes are identical (no Unicode
/// canonical equivalence), and floats are equal only when their bit patterns are
/// identical (so `-0.0 != 0.0` and a NaN equals the same NaN).
public indirect enum CBORValue: Sendable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the negative integer `-1 - n`, stored as the raw argument `n`.
    case negative(UInt64)
    /// Major type 2: a byte string (indefinite-length chunks are joined).
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string (indefinite-length chunks are joined).
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, with entries in input order (keys are unique after decoding).
    case map([CBORMapEntry])
    /// Major type 6: a tagged data item, e.g. `.tagged(2, .bytes(…))` for a bignum.
    case tagged(UInt64, CBORValue)
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null
    /// Simple value 23.
    case undefined
    /// Any other simple value (0–19 and 32–255 when decoded).
    case simple(UInt8)
    /// A half-, single- or double-precision float, widened to `Double`.
    case float(Double)
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    /// The entry's key.
    public var key: CBORValue
    /// The entry's value.
    public var value: CBORValue

    /// Creates a map entry.
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Equatable / Hashable (CBOR data-model equality)

extension CBORValue: Equatable {
    /// Data-model equality: text compares UTF-8 bytes, floats compare bit patterns.
    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)): return a == b
        case (.negative(let a), .negative(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        case (.tagged(let ta, let a), .tagged(let tb, let b)): return ta == tb && a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        case (.simple(let a), .simple(let b)): return a == b
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        default: return false
        }
    }
}

extension CBORValue: Hashable {
    /// Hashes consistently with ``==(_:_:)``.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let v):
            hasher.combine(0 as UInt8)
            hasher.combine(v)
        case .negative(let v):
            hasher.combine(1 as UInt8)
            hasher.combine(v)
        case .bytes(let v):
            hasher.combine(2 as UInt8)
            hasher.combine(v)
        case .text(let v):
            hasher.combine(3 as UInt8)
            hasher.combine(v.utf8.count)
            for byte in v.utf8 { hasher.combine(byte) }
        case .array(let v):
            hasher.combine(4 as UInt8)
            hasher.combine(v)
        case .map(let v):
            hasher.combine(5 as UInt8)
            hasher.combine(v)
        case .tagged(let tag, let v):
            hasher.combine(6 as UInt8)
            hasher.combine(tag)
            hasher.combine(v)
        case .bool(let v):
            hasher.combine(7 as UInt8)
            hasher.combine(v)
        case .null:
            hasher.combine(8 as UInt8)
        case .undefined:
            hasher.combine(9 as UInt8)
        case .simple(let v):
            hasher.combine(10 as UInt8)
            hasher.combine(v)
        case .float(let v):
            hasher.combine(11 as UInt8)
            hasher.combine(v.bitPattern)
        }
    }
}

// MARK: - Convenience accessors

extension CBORValue {
    /// Creates `.unsigned` for non-negative values and `.negative` otherwise.
    /// - Parameter int: The integer to represent.
    public init(_ int: Int64) {
        if int >= 0 {
            self = .unsigned(UInt64(int))
        } else {
            // -1 - int cannot overflow for any negative Int64 (Int64.min → Int64.max).
            self = .negative(UInt64(-1 - int))
        }
    }

    /// The integer value of `.unsigned` / `.negative` when it fits in `Int64`, otherwise `nil`.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let n):
            return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n):
            return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default:
            return nil
        }
    }

    /// The payload of `.bytes`, otherwise `nil`.
    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    /// The payload of `.text`, otherwise `nil`.
    public var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    /// The elements of `.array`, otherwise `nil`.
    public var arrayValue: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries of `.map` (in input order), otherwise `nil`.
    public var mapEntries: [CBORMapEntry]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// Looks up `key` in a map.
    /// - Parameter key: The key to find (compared with data-model equality).
    /// - Returns: The value of the first entry with that key; `nil` if `self` is not a map or has no such key.
    public subscript(key: CBORValue) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        for entry in entries where entry.key == key {
            return entry.value
        }
        return nil
    }

    /// Looks up a text-string key in a map (byte-wise comparison of UTF-8).
    /// - Parameter key: The text key, e.g. `"fmt"`.
    /// - Returns: The value, or `nil` if `self` is not a map or has no such key.
    public subscript(text key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        for entry in entries {
            if case .text(let k) = entry.key, k.utf8.elementsEqual(key.utf8) {
                return entry.value
            }
        }
        return nil
    }

    /// Looks up an integer key in a map (as used by COSE keys, e.g. `3` for `alg`, `-1` for `crv`).
    /// - Parameter key: The integer key.
    /// - Returns: The value, or `nil` if `self` is not a map or has no such key.
    public subscript(int key: Int64) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        for entry in entries {
            switch entry.key {
            case .unsigned(let n) where key >= 0 && n == UInt64(key):
                return entry.value
            case .negative(let n) where key < 0 && n == UInt64(-1 - key):
                return entry.value
            default:
                continue
            }
        }
        return nil
    }
}
