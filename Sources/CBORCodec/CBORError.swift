public import PasskeyErrors

/// The single error type of the `CBORCodec` module.
///
/// `code` is an open set of stable reasons; `reason` carries human-readable detail
/// (including the byte offset) for logs. Equality compares only `code`, so tests can write
/// `#expect(throws: CBORError(code: .truncated))` or `#expect(throws: CBORError.truncated)`.
/// ``description`` stays generic; use `String(reflecting:)` for the detail.
public struct CBORError: CodedError, CustomDebugStringConvertible {
    /// A stable, open set of failure reasons.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Backing: String, Sendable, Hashable {
            case malformed
            case truncated
            case trailingBytes
            case tooDeep
            case tooManyItems
            case stringTooLong
            case inputTooLarge
            case duplicateMapKey
            case indefiniteLengthNotAllowed
            case nonMinimalEncoding
            case invalidUTF8
        }

        private let backing: Backing

        private init(_ backing: Backing) {
            self.backing = backing
        }

        /// The input is not well-formed CBOR (reserved additional information, stray `break`,
        /// bad indefinite-length chunk, unassigned encodings, …).
        public static let malformed = Code(.malformed)
        /// The input ends before the data item is complete, or a declared length/count
        /// exceeds the remaining input.
        public static let truncated = Code(.truncated)
        /// A complete data item was followed by more bytes (`CBORDecoder.decode`, not `decodePrefix`).
        public static let trailingBytes = Code(.trailingBytes)
        /// Arrays, maps and tags are nested deeper than ``CBORLimits/maxDepth``.
        public static let tooDeep = Code(.tooDeep)
        /// The input contains more than ``CBORLimits/maxItems`` data items.
        public static let tooManyItems = Code(.tooManyItems)
        /// A byte or text string is longer than ``CBORLimits/maxStringBytes``.
        public static let stringTooLong = Code(.stringTooLong)
        /// The input is longer than ``CBORLimits/maxInputBytes``.
        public static let inputTooLarge = Code(.inputTooLarge)
        /// A map contains the same key twice.
        public static let duplicateMapKey = Code(.duplicateMapKey)
        /// An indefinite-length item was found while ``CBORLimits/allowIndefiniteLength`` is `false`.
        public static let indefiniteLengthNotAllowed = Code(.indefiniteLengthNotAllowed)
        /// An integer, length or tag is not in its shortest form while
        /// ``CBORLimits/requireMinimalIntegers`` is `true`.
        public static let nonMinimalEncoding = Code(.nonMinimalEncoding)
        /// A text string is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)

        /// The code's stable name, e.g. `"truncated"`.
        public var description: String { backing.rawValue }
    }

    /// Why decoding failed.
    public let code: Code
    /// Detail for logs (never shown to clients).
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The failure reason.
    ///   - reason: Free-form detail for logs.
    public init(code: Code, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// A generic description naming only the code.
    public var description: String { "CBORError.\(code)" }

    /// The code plus the detailed reason, for logs.
    public var debugDescription: String {
        reason.isEmpty ? "CBORError.\(code)" : "CBORError.\(code): \(reason)"
    }
}

extension CBORError {
    /// `CBORError(code: .malformed)`, for `#expect(throws:)`.
    public static let malformed = CBORError(code: .malformed)
    /// `CBORError(code: .truncated)`, for `#expect(throws:)`.
    public static let truncated = CBORError(code: .truncated)
    /// `CBORError(code: .trailingBytes)`, for `#expect(throws:)`.
    public static let trailingBytes = CBORError(code: .trailingBytes)
    /// `CBORError(code: .tooDeep)`, for `#expect(throws:)`.
    public static let tooDeep = CBORError(code: .tooDeep)
    /// `CBORError(code: .tooManyItems)`, for `#expect(throws:)`.
    public static let tooManyItems = CBORError(code: .tooManyItems)
    /// `CBORError(code: .stringTooLong)`, for `#expect(throws:)`.
    public static let stringTooLong = CBORError(code: .stringTooLong)
    /// `CBORError(code: .inputTooLarge)`, for `#expect(throws:)`.
    public static let inputTooLarge = CBORError(code: .inputTooLarge)
    /// `CBORError(code: .duplicateMapKey)`, for `#expect(throws:)`.
    public static let duplicateMapKey = CBORError(code: .duplicateMapKey)
    /// `CBORError(code: .indefiniteLengthNotAllowed)`, for `#expect(throws:)`.
    public static let indefiniteLengthNotAllowed = CBORError(code: .indefiniteLengthNotAllowed)
    /// `CBORError(code: .nonMinimalEncoding)`, for `#expect(throws:)`.
    public static let nonMinimalEncoding = CBORError(code: .nonMinimalEncoding)
    /// `CBORError(code: .invalidUTF8)`, for `#expect(throws:)`.
    public static let invalidUTF8 = CBORError(code: .invalidUTF8)
}
