/// Zero-copy reading of JSON objects for the assertion hot path: members are byte ranges into the input, so base64
/// members can be decoded straight from the request body without building `String`s or dictionaries.
///
/// It accepts only the plain form (ASCII, no escape sequences in member names or string values, no duplicate
/// member names). Anything else returns `nil`, and the caller falls back to ``JSONReader``, which handles all of
/// JSON strictly. Syntax errors are never accepted by either path.
public struct JSONRawObject {
    /// One value, as a range of the input.
    public enum Value {
        /// A string's content (between the quotes), plain ASCII without escapes.
        case string(Range<Int>)
        case object(JSONRawObject)
        /// Any other value (number, literal, array), as its source range.
        case other(Range<Int>)
        case null
    }

    public struct Member {
        public let name: Range<Int>
        public let value: Value
    }

    public let members: [Member]
    /// The object's own source range, braces included.
    public let range: Range<Int>

    /// Parses a whole document that must be one object.
    /// - Returns: nil when the document is valid JSON outside the plain form, or not an object.
    /// - Throws: `JSONReader.Failure` for invalid JSON (either path would refuse it).
    public static func parse(_ input: UnsafeBufferPointer<UInt8>, maxDepth: Int = 8) throws(JSONReader.Failure) -> JSONRawObject? {
        var scanner = Scanner(input: input, maxDepth: maxDepth)
        scanner.skipWhitespace()
        guard scanner.index < input.count, input[scanner.index] == UInt8(ascii: "{") else { return nil }
        guard let object = try scanner.object() else { return nil }
        scanner.skipWhitespace()
        guard scanner.index == input.count else { throw Failure(offset: scanner.index, reason: "trailing characters") }
        return object
    }

    typealias Failure = JSONReader.Failure

    /// The value of the member named `name` (ASCII), if present.
    public func member(_ name: StaticString, in input: UnsafeBufferPointer<UInt8>) -> Value? {
        let count = name.utf8CodeUnitCount
        outer: for member in members where member.name.count == count {
            for offset in 0..<count where input[member.name.lowerBound + offset] != name.utf8Start[offset] { continue outer }
            return member.value
        }
        return nil
    }

    private struct Scanner {
        let input: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var index = 0
        var depth = 0

        init(input: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.input = input
            self.maxDepth = maxDepth
        }

        mutating func skipWhitespace() {
            while index < input.count {
                switch input[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// A plain string's content range, or nil if it has escapes or non-ASCII bytes.
        mutating func plainString() throws(Failure) -> Range<Int>? {
            index += 1
            let start = index
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                if byte == UInt8(ascii: "\\") || byte >= 0x80 { return nil }
                guard byte >= 0x20 else { throw Failure(offset: index, reason: "control character in string") }
                index += 1
            }
            throw Failure(offset: index, reason: "unterminated string")
        }

        /// An object; nil when it leaves the plain form.
        mutating func object() throws(Failure) -> JSONRawObject? {
            depth += 1
            guard depth <= maxDepth else { return nil }
            let start = index
            index += 1
            var members: [Member] = []
            members.reserveCapacity(8)
            skipWhitespace()
            if index < input.count, input[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return JSONRawObject(members: members, range: start..<index)
            }
            while true {
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: "\"") else {
                    throw Failure(offset: index, reason: "expected a member name")
                }
                guard let name = try plainString() else { return nil }
                for existing in members where existing.name.count == name.count
                    && input[existing.name].elementsEqual(input[name])
                {
                    throw Failure(offset: name.lowerBound, reason: "duplicate member")
                }
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: ":") else { throw Failure(offset: index, reason: "expected ':'") }
                index += 1
                skipWhitespace()
                guard index < input.count else { throw Failure(offset: index, reason: "unexpected end") }
                let value: Value
                switch input[index] {
                case UInt8(ascii: "\""):
                    guard let range = try plainString() else { return nil }
                    value = .string(range)
                case UInt8(ascii: "{"):
                    guard let nested = try object() else { return nil }
                    value = .object(nested)
                case UInt8(ascii: "n") where input.count - index >= 4 && input[index + 1] == UInt8(ascii: "u")
                    && input[index + 2] == UInt8(ascii: "l") && input[index + 3] == UInt8(ascii: "l"):
                    index += 4
                    value = .null
                default:
                    // Numbers, literals and arrays: validated by the strict reader over their extent.
                    let valueStart = index
                    guard let end = try skipOther() else { return nil }
                    value = .other(valueStart..<end)
                }
                members.append(Member(name: name, value: value))
                skipWhitespace()
                guard index < input.count else { throw Failure(offset: index, reason: "unexpected end") }
                if input[index] == UInt8(ascii: ",") { index += 1; continue }
                guard input[index] == UInt8(ascii: "}") else { throw Failure(offset: index, reason: "expected ',' or '}'") }
                index += 1
                depth -= 1
                return JSONRawObject(members: members, range: start..<index)
            }
        }

        /// Skips a number, literal or array by finding its extent and validating it with the strict reader.
        mutating func skipOther() throws(Failure) -> Int? {
            let start = index
            var nesting = 0
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") || byte >= 0x80 { return nil }  // strings/objects inside: slow path
                if byte == UInt8(ascii: "[") { nesting += 1 }
                if byte == UInt8(ascii: "]") { if nesting == 0 { break }; nesting -= 1 }
                if nesting == 0, byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") { break }
                index += 1
            }
            _ = try JSONReader.parse(UnsafeBufferPointer(rebasing: input[start..<index]))
            return index
        }
    }
}
