/// A small, strict RFC 8259 JSON parser for the hot path (assertion bodies and clientDataJSON).
///
/// Foundation's `JSONDecoder` costs more than the rest of an assertion's non-crypto work together; this reader
/// parses straight into ``JSONValue``. It is stricter than `JSONDecoder`: duplicate object members are rejected
/// (a clientDataJSON with two `origin` members must not mean different things to different parsers), nesting is
/// limited, and nothing may follow the top-level value except whitespace.
public enum JSONReader {
    /// Why a document was rejected.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// Parses one JSON document.
    /// - Parameters:
    ///   - bytes: UTF-8 text.
    ///   - maxDepth: the deepest nesting of arrays and objects accepted.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 32) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            var parser = Parser(input: buffer, maxDepth: maxDepth)
            return Result { () throws(Failure) in try parser.document() }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(Failure) in
            var parser = Parser(input: buffer, maxDepth: maxDepth)
            return try parser.document()
        }
    }

    private struct Parser {
        let input: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var index = 0
        var depth = 0

        init(input: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.input = input
            self.maxDepth = maxDepth
        }

        func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

        mutating func document() throws(Failure) -> JSONValue {
            let value = try self.value()
            skipWhitespace()
            guard index == input.count else { throw fail("trailing characters") }
            return value
        }

        mutating func skipWhitespace() {
            while index < input.count {
                switch input[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value() throws(Failure) -> JSONValue {
            skipWhitespace()
            guard index < input.count else { throw fail("unexpected end") }
            switch input[index] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard input.count - index >= count else { throw fail("unexpected end") }
            for offset in 0..<count where input[index + offset] != word.utf8Start[offset] {
                throw fail("invalid literal")
            }
            index += count
        }

        mutating func enter() throws(Failure) {
            depth += 1
            guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        }

        mutating func object() throws(Failure) -> JSONValue {
            try enter()
            index += 1
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(8)
            skipWhitespace()
            if index < input.count, input[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let key = try string()
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                let member = try value()
                guard members.updateValue(member, forKey: key) == nil else { throw fail("duplicate member \"\(key)\"") }
                skipWhitespace()
                guard index < input.count else { throw fail("unexpected end") }
                if input[index] == UInt8(ascii: ",") { index += 1; continue }
                guard input[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
                index += 1
                depth -= 1
                return .object(members)
            }
        }

        mutating func array() throws(Failure) -> JSONValue {
            try enter()
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < input.count, input[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            }
            while true {
                elements.append(try value())
                skipWhitespace()
                guard index < input.count else { throw fail("unexpected end") }
                if input[index] == UInt8(ascii: ",") { index += 1; continue }
                guard input[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
                index += 1
                depth -= 1
                return .array(elements)
            }
        }

        /// A string; the common case (no escapes) is one validated copy.
        mutating func string() throws(Failure) -> String {
            index += 1
            let start = index
            var high: UInt8 = 0
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: input[start..<index])
                    index += 1
                    // ASCII needs no validation (the common case: base64 members); anything else is validated.
                    if high & 0x80 == 0 { return String(decoding: slice, as: UTF8.self) }
                    guard let text = String(validating: slice, as: UTF8.self) else { throw fail("invalid UTF-8") }
                    return text
                }
                high |= byte
                if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
                guard byte >= 0x20 else { throw fail("control character in string") }
                index += 1
            }
            throw fail("unterminated string")
        }

        mutating func escapedString(from start: Int) throws(Failure) -> String {
            var bytes = Array(UnsafeBufferPointer(rebasing: input[start..<index]))
            while index < input.count {
                let byte = input[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let text = String(validating: bytes, as: UTF8.self) else { throw fail("invalid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < input.count else { throw fail("unterminated escape") }
                    let escape = input[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                    case UInt8(ascii: "b"): bytes.append(0x08)
                    case UInt8(ascii: "f"): bytes.append(0x0C)
                    case UInt8(ascii: "n"): bytes.append(0x0A)
                    case UInt8(ascii: "r"): bytes.append(0x0D)
                    case UInt8(ascii: "t"): bytes.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard input.count - index >= 6, input[index] == UInt8(ascii: "\\"), input[index + 1] == UInt8(ascii: "u") else {
                                throw fail("unpaired surrogate")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            throw fail("unpaired surrogate")
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid scalar") }
                        bytes.append(contentsOf: UTF8.encode(unicode).map { Array($0) } ?? [])
                    default: throw fail("invalid escape")
                    }
                default:
                    guard byte >= 0x20 else { throw fail("control character in string") }
                    bytes.append(byte)
                    index += 1
                }
            }
            throw fail("unterminated string")
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard input.count - index >= 4 else { throw fail("short \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = input[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw fail("invalid hex digit")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// A number per the RFC 8259 grammar.
        mutating func number() throws(Failure) -> Double {
            let start = index
            if index < input.count, input[index] == UInt8(ascii: "-") { index += 1 }
            guard index < input.count else { throw fail("invalid number") }
            if input[index] == UInt8(ascii: "0") {
                index += 1
            } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(input[index]) {
                while index < input.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(input[index]) { index += 1 }
            } else {
                throw fail("unexpected character")
            }
            if index < input.count, input[index] == UInt8(ascii: ".") {
                index += 1
                let digits = index
                while index < input.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(input[index]) { index += 1 }
                guard index > digits else { throw fail("invalid fraction") }
            }
            if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
                index += 1
                if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") { index += 1 }
                let digits = index
                while index < input.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(input[index]) { index += 1 }
                guard index > digits else { throw fail("invalid exponent") }
            }
            guard let text = String(validating: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self),
                let value = Double(text), value.isFinite
            else { throw fail("invalid number") }
            return value
        }
    }
}
