/// Base64url encoding (RFC 4648 §5, no padding) for everything passkeyd emits, and a tolerant decoder for
/// what clients send: the W3C JSON forms use base64url without padding, but iOS apps commonly send
/// `Data.base64EncodedString()` (standard alphabet, padded). Both alphabets are accepted, padding is optional
/// but must be correct when present; anything else (whitespace, stray characters, impossible lengths) is rejected.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for a valid character of either alphabet, 0xFF otherwise.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// Encodes bytes as unpadded base64url. Contiguous bytes (arrays, slices, `Data`) take one pass over a buffer
    /// pointer; any other collection is copied into an array first.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable(encode(buffer:)) { return encoded }
        return Array(bytes).withUnsafeBufferPointer(encode(buffer:))
    }

    /// Encodes `[UInt8]` (ids, handles, challenges: the hot path) without going through the generic entry point.
    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer(encode(buffer:))
    }

    /// The encoder: three bytes at a time into four characters, then the unpadded tail.
    private static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        let count = input.count
        let outputCount = (count / 3) * 4 + [0, 2, 3][count % 3]
        guard outputCount > 0 else { return "" }
        let symbols: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        return symbols.withUTF8Buffer { alphabet in
            String(unsafeUninitializedCapacity: outputCount) { output in
                var index = 0
                var out = 0
                while index + 3 <= count {
                    let b0 = input[index], b1 = input[index + 1], b2 = input[index + 2]
                    output[out] = alphabet[Int(b0 >> 2)]
                    output[out + 1] = alphabet[Int(((b0 & 0x03) << 4) | (b1 >> 4))]
                    output[out + 2] = alphabet[Int(((b1 & 0x0F) << 2) | (b2 >> 6))]
                    output[out + 3] = alphabet[Int(b2 & 0x3F)]
                    index += 3
                    out += 4
                }
                switch count - index {
                case 1:
                    let b0 = input[index]
                    output[out] = alphabet[Int(b0 >> 2)]
                    output[out + 1] = alphabet[Int((b0 & 0x03) << 4)]
                    out += 2
                case 2:
                    let b0 = input[index], b1 = input[index + 1]
                    output[out] = alphabet[Int(b0 >> 2)]
                    output[out + 1] = alphabet[Int(((b0 & 0x03) << 4) | (b1 >> 4))]
                    output[out + 2] = alphabet[Int((b1 & 0x0F) << 2)]
                    out += 3
                default:
                    break
                }
                return out
            }
        }
    }

    /// Decodes base64url or standard base64, with or without padding.
    /// - Returns: the bytes, or `nil` if the text is not valid base64 in either alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// Decodes base64url or standard base64 from UTF-8 bytes, with or without padding.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var length = input.count
        // Strip at most two '=' of padding; if present, the padded length must be a multiple of 4.
        var padding = 0
        while length > 0, padding < 2, input[length - 1] == UInt8(ascii: "=") {
            length -= 1
            padding += 1
        }
        if padding > 0, input.count % 4 != 0 { return nil }
        let remainder = length % 4
        if remainder == 1 { return nil }
        if padding > 0, (4 - remainder) % 4 != padding { return nil }
        let outputCount = (length / 4) * 3 + (remainder == 0 ? 0 : remainder - 1)
        let table = decodeTable
        var failed = false
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            var out = 0
            var index = 0
            while index + 4 <= length {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                if (a | b | c | d) & 0xC0 != 0 { failed = true; break }
                buffer[out] = (a << 2) | (b >> 4)
                buffer[out + 1] = (b << 4) | (c >> 2)
                buffer[out + 2] = (c << 6) | d
                out += 3
                index += 4
            }
            if !failed, remainder >= 2 {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = remainder == 3 ? table[Int(input[index + 2])] : 0
                if (a | b | c) & 0xC0 != 0 {
                    failed = true
                } else {
                    buffer[out] = (a << 2) | (b >> 4)
                    out += 1
                    if remainder == 3 {
                        buffer[out] = (b << 4) | (c >> 2)
                        out += 1
                    }
                }
            }
            initialized = failed ? 0 : out
        }
        return failed ? nil : output
    }
}

extension Base64URL {
    /// Decodes strict unpadded base64url only (the form `clientData.challenge` must have).
    public static func decodeStrict(_ text: String) -> [UInt8]? {
        for byte in text.utf8 where byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=") {
            return nil
        }
        return decode(text)
    }
}
