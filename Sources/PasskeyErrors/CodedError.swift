// The shape every passkeyd error type shares (CONVENTIONS §4 practice 1): a struct with an open set of stable codes
// and a reason for the logs, equal when the codes are equal. Each module keeps its own error type and its own codes;
// this module holds only what they would otherwise each copy. No dependencies.

/// A stable error code: a struct whose static members are the known codes, so adding a code breaks no caller (a
/// `switch` over codes has a `default:`). The raw value is the stable string clients and logs see.
///
/// ```swift
/// public struct Code: ErrorCode {
///     public let rawValue: String
///     public init(rawValue: String) { self.rawValue = rawValue }
///     /// Larger than the caller's size cap.
///     public static let tooLarge = Code(rawValue: "jws_too_large")
/// }
/// ```
public protocol ErrorCode: RawRepresentable<String>, Hashable, Sendable, CustomStringConvertible {
    init(rawValue: String)
}

extension ErrorCode {
    /// The raw value, e.g. `jws_too_large`.
    public var description: String { rawValue }
}

/// An error with a stable ``code`` and a ``reason`` for the logs.
///
/// Conforming gives code-only equality (`#expect(throws: JOSEError(.malformed, ""))` matches any reason) and, when
/// ``Code`` is an ``ErrorCode``, the description `"<raw value>: <reason>"`. A type whose reason may carry details
/// that must not leave the logs declares its own `description` (the code alone), which takes precedence.
public protocol CodedError: Error, Sendable, Equatable, CustomStringConvertible {
    associatedtype Code: Hashable, Sendable
    /// What went wrong, as a stable code.
    var code: Code { get }
    /// Detail for the logs; never compared, never sent to clients.
    var reason: String { get }
}

extension CodedError {
    /// Compares only the codes; the reasons are ignored.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}

extension CodedError where Code: ErrorCode {
    /// `"<raw value>: <reason>"`, e.g. `jws_key_unknown: no key has kid "k1"`.
    public var description: String { "\(code.rawValue): \(reason)" }
}
