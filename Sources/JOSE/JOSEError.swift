/// The one error type of the JOSE module: why a JWS or a JWK was refused.
///
/// Equality compares only ``code``. ``reason`` carries details for logs (never secrets, never whole tokens).
public struct JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code per check.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Larger than the caller's size cap.
        case tooLarge = "jws_too_large"
        /// Not `header.payload.signature` of strict base64url, or a header that is not a JSON object with a string
        /// `alg` (duplicate members, nesting and trailing data refused).
        case malformed = "jws_malformed"
        /// The header has `crit`: no extension is understood here, so RFC 7515 §4.1.11 says refuse.
        case criticalHeader = "jws_critical_header"
        /// `alg` is not in the caller's allow-list (`none` never is), or does not fit the kind of key offered (an HMAC
        /// algorithm with a public key, or a signature algorithm with a shared secret).
        case algorithmNotAllowed = "jws_algorithm_not_allowed"
        /// No key in the set matches the header's `kid` (or, without a `kid`, the set does not hold exactly one key).
        case keyUnknown = "jws_key_unknown"
        /// The selected key cannot be used: malformed JWK, private members, wrong `use`, an `alg` other than the
        /// header's, or a key type that does not fit the algorithm.
        case keyInvalid = "jws_key_invalid"
        /// The signature does not verify.
        case signatureInvalid = "jws_signature_invalid"
        /// A JWK set document is not `{"keys": [...]}` of JWK objects.
        case keySetMalformed = "jwks_malformed"
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func == (lhs: JOSEError, rhs: JOSEError) -> Bool { lhs.code == rhs.code }
}
