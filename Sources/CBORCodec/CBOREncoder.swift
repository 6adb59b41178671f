internal import CLibCBOR

/// Encodes ``CBORValue`` with libcbor's `cbor_encode_*` header functions.
///
/// Output is deterministic: definite lengths (unless indefinite maps are asked for),
/// shortest integer/length/tag forms, map entries in the given order, and each float in the
/// shortest of half/single/double precision that preserves its value exactly (NaN as `f9 7e 00`).
/// Map keys are neither sorted nor de-duplicated.
public enum CBOREncoder {
    /// Encodes `value` with definite lengths throughout.
    /// - Parameter value: The value to encode.
    /// - Returns: The encoding.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        encode(value, indefiniteLengthMaps: false)
    }

    /// Encodes `value`, optionally writing every map as indefinite-length (`0xbf … 0xff`),
    /// which is what several real authenticators (e.g. YubiKeys) emit.
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - indefiniteLengthMaps: Write maps as indefinite-length.
    /// - Returns: The encoding.
    ///
    /// `.simple(n)` is written with `cbor_encode_ctrl`: `n` in 20...23 produces the bytes of
    /// `false`/`true`/`null`/`undefined`, and `n` in 24...31 produces a two-byte form that
    /// RFC 8949 calls not well-formed (``CBORDecoder`` rejects it); avoid those values.
    public static func encode(_ value: CBORValue, indefiniteLengthMaps: Bool) -> [UInt8] {
        var writer = Writer(indefiniteLengthMaps: indefiniteLengthMaps)
        writer.write(value)
        return writer.output
    }
}

/// One header (or one-byte control item) that a libcbor `cbor_encode_*` function writes.
private enum Header {
    case unsigned(UInt64)
    case negative(UInt64)
    case bytesStart(Int)
    case textStart(Int)
    case arrayStart(Int)
    case mapStart(Int)
    case indefiniteMapStart
    case breakMark
    case tag(UInt64)
    case bool(Bool)
    case null
    case undefined
    case simple(UInt8)
    case half(Float)
    case single(Float)
    case double(Double)
}

private struct Writer {
    let indefiniteLengthMaps: Bool
    var output: [UInt8] = []

    init(indefiniteLengthMaps: Bool) {
        self.indefiniteLengthMaps = indefiniteLengthMaps
        output.reserveCapacity(64)
    }

    /// Encodes one header with libcbor into a 9-byte scratch buffer (the longest header) and appends it.
    private mutating func write(_ header: Header) {
        let capacity = 9
        unsafe withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            guard let base = scratch.baseAddress else { return }
            let written: Int
            switch header {
            case .unsigned(let n): written = unsafe cbor_encode_uint(n, base, capacity)
            case .negative(let n): written = unsafe cbor_encode_negint(n, base, capacity)
            case .bytesStart(let length): written = unsafe cbor_encode_bytestring_start(length, base, capacity)
            case .textStart(let length): written = unsafe cbor_encode_string_start(length, base, capacity)
            case .arrayStart(let count): written = unsafe cbor_encode_array_start(count, base, capacity)
            case .mapStart(let count): written = unsafe cbor_encode_map_start(count, base, capacity)
            case .indefiniteMapStart: written = unsafe cbor_encode_indef_map_start(base, capacity)
            case .breakMark: written = unsafe cbor_encode_break(base, capacity)
            case .tag(let tag): written = unsafe cbor_encode_tag(tag, base, capacity)
            case .bool(let flag): written = unsafe cbor_encode_bool(flag, base, capacity)
            case .null: written = unsafe cbor_encode_null(base, capacity)
            case .undefined: written = unsafe cbor_encode_undef(base, capacity)
            case .simple(let n): written = unsafe cbor_encode_ctrl(n, base, capacity)
            case .half(let number): written = unsafe cbor_encode_half(number, base, capacity)
            case .single(let number): written = unsafe cbor_encode_single(number, base, capacity)
            case .double(let number): written = unsafe cbor_encode_double(number, base, capacity)
            }
            // libcbor returns 0 only when the buffer is too small, which 9 bytes never is.
            precondition(written > 0 && written <= capacity, "libcbor header encoding failed")
            unsafe output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<written]))
        }
    }

    mutating func write(_ value: CBORValue) {
        switch value {
        case .unsigned(let n):
            write(Header.unsigned(n))
        case .negative(let n):
            write(Header.negative(n))
        case .bytes(let bytes):
            write(Header.bytesStart(bytes.count))
            output.append(contentsOf: bytes)
        case .text(let text):
            write(Header.textStart(text.utf8.count))
            output.append(contentsOf: text.utf8)
        case .array(let elements):
            write(Header.arrayStart(elements.count))
            for element in elements {
                write(element)
            }
        case .map(let entries):
            write(indefiniteLengthMaps ? Header.indefiniteMapStart : Header.mapStart(entries.count))
            for entry in entries {
                write(entry.key)
                write(entry.value)
            }
            if indefiniteLengthMaps {
                write(Header.breakMark)
            }
        case .tagged(let tag, let item):
            write(Header.tag(tag))
            write(item)
        case .bool(let flag):
            write(Header.bool(flag))
        case .null:
            write(Header.null)
        case .undefined:
            write(Header.undefined)
        case .simple(let n):
            write(Header.simple(n))
        case .float(let number):
            writeFloat(number)
        }
    }

    /// Shortest exact float form. libcbor 0.8's `cbor_encode_half` truncates most half-precision
    /// subnormals, so every half encoding is read back and replaced by single precision unless
    /// it reproduces the value bit for bit.
    private mutating func writeFloat(_ number: Double) {
        if number.isNaN {
            write(Header.half(Float.nan))  // f9 7e 00
            return
        }
        let single = Float(number)
        guard Double(single).bitPattern == number.bitPattern else {
            write(Header.double(number))
            return
        }
        let half = Float16(single)
        if Float(half).bitPattern == single.bitPattern {
            let mark = output.count
            write(Header.half(single))
            if output.count == mark + 3 {
                let bits = UInt16(output[mark + 1]) << 8 | UInt16(output[mark + 2])
                if Float16(bitPattern: bits).bitPattern == half.bitPattern {
                    return
                }
            }
            output.removeSubrange(mark...)
        }
        write(Header.single(single))
    }
}
