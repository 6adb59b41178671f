public import PasskeyErrors

/// The one error type of the JOSE module: why a JWS or a JWK was refused.
///
/// Equality compares only ``code``. ``reason`` carries details for logs (never secrets, never whole tokens).
public struct JOSEError: CodedError {
    /// A stable code per check.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Larger than the caller's size cap.
        public static let tooLarge = Code(rawValue: "jws_too_large")
        /// Not `header.payload.signature` of strict base64url, or a header that is not a JSON object with a string
        /// `alg` (duplicate members, nesting and trailing data refused).
        public static let malformed = Code(rawValue: "jws_malformed")
        /// The header has `crit`: no extension is understood here, so RFC 7515 §4.1.11 says refuse.
        public static let criticalHeader = Code(rawValue: "jws_critical_header")
        /// `alg` is not in the caller's allow-list (`none` never is), or does not fit the kind of key offered (an HMAC
        /// algorithm with a public key, or a signature algorithm with a shared secret).
        public static let algorithmNotAllowed = Code(rawValue: "jws_algorithm_not_allowed")
        /// No key in the set matches the header's `kid` (or, without a `kid`, the set does not hold exactly one key).
        public static let keyUnknown = Code(rawValue: "jws_key_unknown")
        /// The selected key cannot be used: malformed JWK, private members, wrong `use`, an `alg` other than the
        /// header's, or a key type that does not fit the algorithm.
        public static let keyInvalid = Code(rawValue: "jws_key_invalid")
        /// The signature does not verify.
        public static let signatureInvalid = Code(rawValue: "jws_signature_invalid")
        /// A JWK set document is not `{"keys": [...]}` of JWK objects.
        public static let keySetMalformed = Code(rawValue: "jwks_malformed")

        /// Every code above, in declaration order (an open set has no `allCases`; a test checks this list against
        /// the declarations).
        public static let all: [Code] = [
            .tooLarge, .malformed, .criticalHeader, .algorithmNotAllowed, .keyUnknown, .keyInvalid, .signatureInvalid,
            .keySetMalformed,
        ]
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
