public import PasskeyErrors

/// Why an ID-token sign-in was refused: one stable code per check, in the order the checks run.
///
/// Equality compares only ``code``. ``reason`` is for logs (it never holds the token, the nonce or a secret).
public struct IdentityError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        // The pending session (begin → finish), checked before the token.
        /// No usable pending session with that id: never issued, already used (a finish uses its session up whatever
        /// its outcome), or expired (the database clock decides, as for passkey ceremonies).
        public static let sessionUnknown = Code(rawValue: "idtoken_session_unknown")
        /// The session was begun for another provider.
        public static let providerMismatch = Code(rawValue: "idtoken_provider_mismatch")
        /// The provider is not configured here.
        public static let providerUnknown = Code(rawValue: "idtoken_provider_unknown")

        // The JWS.
        /// Larger than the provider's cap.
        public static let tooLarge = Code(rawValue: "idtoken_too_large")
        /// Not a compact JWS with a JSON object header and a string `alg`, or claims that are not a JSON object of the
        /// right types (a NumericDate claim that is not a JSON number included).
        public static let malformed = Code(rawValue: "idtoken_malformed")
        /// The header carries `crit`.
        public static let criticalHeader = Code(rawValue: "idtoken_critical_header")
        /// `alg` is not in the provider's allow-list (or is `none`, or an HMAC without a configured secret).
        public static let algorithmNotAllowed = Code(rawValue: "idtoken_algorithm_not_allowed")
        /// No key of the provider matches the header's `kid` (after at most one refetch).
        public static let keyUnknown = Code(rawValue: "idtoken_key_unknown")
        /// The key with that `kid` cannot verify this algorithm.
        public static let keyInvalid = Code(rawValue: "idtoken_key_invalid")
        /// The signature does not verify.
        public static let signatureInvalid = Code(rawValue: "idtoken_signature_invalid")

        // The claims.
        /// `iss` is not the provider's issuer.
        public static let issuerMismatch = Code(rawValue: "idtoken_issuer_mismatch")
        /// `aud` holds none of the configured client ids (or more than one audience without a matching `azp`).
        public static let audienceMismatch = Code(rawValue: "idtoken_audience_mismatch")
        /// `exp` is missing or in the past (beyond the allowed skew).
        public static let expired = Code(rawValue: "idtoken_expired")
        /// `nbf` is present and in the future (beyond the allowed skew).
        public static let notYetValid = Code(rawValue: "idtoken_not_yet_valid")
        /// `iat` is missing or in the future (beyond the allowed skew), or the token is older than the provider's
        /// maximum age.
        public static let issuedAtInvalid = Code(rawValue: "idtoken_issued_at_invalid")
        /// The token has no `nonce` claim.
        public static let nonceMissing = Code(rawValue: "idtoken_nonce_missing")
        /// `nonce` is not what this session expects under the provider's nonce rule.
        public static let nonceMismatch = Code(rawValue: "idtoken_nonce_mismatch")
        /// `sub` is missing or empty.
        public static let subjectMissing = Code(rawValue: "idtoken_subject_missing")

        /// Every code above, in declaration order (an open set has no `allCases`; a test checks this list against
        /// the declarations).
        public static let all: [Code] = [
            .sessionUnknown, .providerMismatch, .providerUnknown, .tooLarge, .malformed, .criticalHeader,
            .algorithmNotAllowed, .keyUnknown, .keyInvalid, .signatureInvalid, .issuerMismatch, .audienceMismatch,
            .expired, .notYetValid, .issuedAtInvalid, .nonceMissing, .nonceMismatch, .subjectMissing,
        ]
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
