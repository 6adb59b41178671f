internal import CLibCBOR

/// Decodes untrusted CBOR into ``CBORValue``.
///
/// Decoding drives libcbor's allocation-free streaming decoder (`cbor_stream_decode`) one
/// header at a time; libcbor's item API (`cbor_load`) is never used, because libcbor 0.8
/// allocates from declared sizes and aborts on misuse. Every limit in ``CBORLimits`` is
/// enforced on the Swift side while streaming, and a declared array/map count larger than
/// the remaining input fails with ``CBORError/Code/truncated`` before anything is built.
public enum CBORDecoder {
    /// Decodes exactly one data item that must span the whole input.
    /// - Parameters:
    ///   - bytes: The encoded item.
    ///   - limits: Resource limits (default ``CBORLimits/default``).
    /// - Returns: The decoded value.
    /// - Throws: ``CBORError``; ``CBORError/Code/trailingBytes`` if bytes follow the item.
    public static func decode(_ bytes: [UInt8], limits: CBORLimits = .default) throws(CBORError) -> CBORValue {
        try decode(bytes[...], limits: limits)
    }

    /// Decodes exactly one data item that must span the whole slice.
    /// - Parameters:
    ///   - bytes: The encoded item.
    ///   - limits: Resource limits (default ``CBORLimits/default``).
    /// - Returns: The decoded value.
    /// - Throws: ``CBORError``; ``CBORError/Code/trailingBytes`` if bytes follow the item.
    public static func decode(
        _ bytes: ArraySlice<UInt8>,
        limits: CBORLimits = .default
    ) throws(CBORError) -> CBORValue {
        let (value, length) = try decodePrefix(bytes, limits: limits)
        guard length == bytes.count else {
            throw CBORError(
                code: .trailingBytes,
                reason: "\(bytes.count - length) bytes follow the data item (at byte \(length))"
            )
        }
        return value
    }

    /// Decodes one data item from the start of `bytes` and reports how many bytes it used.
    ///
    /// Used to find where a COSE key ends inside authenticator data. The whole slice counts
    /// against ``CBORLimits/maxInputBytes``.
    /// - Parameters:
    ///   - bytes: Input that starts with an encoded item and may continue with other data.
    ///   - limits: Resource limits (default ``CBORLimits/default``).
    /// - Returns: The value and its encoded length in bytes (relative to `bytes.startIndex`).
    /// - Throws: ``CBORError``.
    public static func decodePrefix(
        _ bytes: ArraySlice<UInt8>,
        limits: CBORLimits = .default
    ) throws(CBORError) -> (value: CBORValue, length: Int) {
        guard bytes.count <= limits.maxInputBytes else {
            throw CBORError(
                code: .inputTooLarge,
                reason: "input of \(bytes.count) bytes exceeds \(limits.maxInputBytes)"
            )
        }
        guard !bytes.isEmpty else {
            throw CBORError(code: .truncated, reason: "empty input")
        }
        return try unsafe bytes.withUnsafeBufferPointer { (buffer) throws(CBORError) in
            try unsafe decodeItem(buffer, limits: limits)
        }
    }

    /// The streaming loop: one `cbor_stream_decode` call per header.
    @unsafe
    private static func decodeItem(
        _ buffer: UnsafeBufferPointer<UInt8>,
        limits: CBORLimits
    ) throws(CBORError) -> (value: CBORValue, length: Int) {
        guard let base = buffer.baseAddress else {
            throw CBORError(code: .truncated, reason: "empty input")
        }
        let count = buffer.count
        var callbacks = streamCallbacks
        var mailbox = Mailbox()
        var builder = TreeBuilder(limits: limits)
        var offset = 0
        while offset < count {
            let header = unsafe buffer[offset]
            let event: StreamEvent
            let read: Int
            switch header {
            // Encodings RFC 8949 allows but libcbor 0.8.0's stream decoder rejects as errors.
            case 0xC6...0xD4:  // tags 6...20 in the initial byte
                event = .tag(UInt64(header &- 0xC0))
                read = 1
            case 0xE0...0xF3:  // simple values 0...19
                event = .simple(header &- 0xE0)
                read = 1
            case 0xF8:  // one-byte simple value; RFC 8949 §3.3: values below 32 are not well-formed
                guard offset + 1 < count else {
                    throw CBORError(code: .truncated, reason: "input ends inside a simple value (at byte \(offset))")
                }
                let simple = unsafe buffer[offset + 1]
                guard simple >= 32 else {
                    throw CBORError(
                        code: .malformed,
                        reason: "two-byte simple value \(simple) < 32 (at byte \(offset))"
                    )
                }
                event = .simple(simple)
                read = 2
            default:
                mailbox.stringBudget = builder.stringBudget
                let result = unsafe withUnsafeMutablePointer(to: &mailbox) { context in
                    let context = UnsafeMutableRawPointer(context)
                    return unsafe cbor_stream_decode(base + offset, count - offset, &callbacks, context)
                }
                switch result.status {
                case CBOR_DECODER_FINISHED:
                    read = result.read
                case CBOR_DECODER_NEDATA:
                    throw CBORError(
                        code: .truncated,
                        reason: "item at byte \(offset) runs past the end of the input (\(count - offset) bytes left)"
                    )
                default:
                    throw CBORError(
                        code: .malformed,
                        reason: "reserved or unassigned initial byte 0x\(String(header, radix: 16)) (at byte \(offset))"
                    )
                }
                event = mailbox.take()
            }
            guard read > 0, read <= count - offset else {
                throw CBORError(code: .malformed, reason: "decoder consumed \(read) bytes (at byte \(offset))")
            }
            if let value = try builder.consume(event, offset: offset, read: read, remaining: count - offset - read) {
                return (value, offset + read)
            }
            offset += read
        }
        throw CBORError(code: .truncated, reason: "input ends inside an item (at byte \(count))")
    }
}
