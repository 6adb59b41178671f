/// Why an ID-token sign-in was refused: one stable code per check, in the order the checks run.
///
/// Equality compares only ``code``. ``reason`` is for logs (it never holds the token, the nonce or a secret).
public struct IdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // The pending session (begin → finish), checked before the token.
        /// No usable pending session with that id: never issued, already used (a finish uses its session up whatever
        /// its outcome), or expired (the database clock decides, as for passkey ceremonies).
        case sessionUnknown = "idtoken_session_unknown"
        /// The session was begun for another provider.
        case providerMismatch = "idtoken_provider_mismatch"
        /// The provider is not configured here.
        case providerUnknown = "idtoken_provider_unknown"

        // The JWS.
        /// Larger than the provider's cap.
        case tooLarge = "idtoken_too_large"
        /// Not a compact JWS with a JSON object header and a string `alg`, or claims that are not a JSON object of the
        /// right types (a NumericDate claim that is not a JSON number included).
        case malformed = "idtoken_malformed"
        /// The header carries `crit`.
        case criticalHeader = "idtoken_critical_header"
        /// `alg` is not in the provider's allow-list (or is `none`, or an HMAC without a configured secret).
        case algorithmNotAllowed = "idtoken_algorithm_not_allowed"
        /// No key of the provider matches the header's `kid` (after at most one refetch).
        case keyUnknown = "idtoken_key_unknown"
        /// The key with that `kid` cannot verify this algorithm.
        case keyInvalid = "idtoken_key_invalid"
        /// The signature does not verify.
        case signatureInvalid = "idtoken_signature_invalid"

        // The claims.
        /// `iss` is not the provider's issuer.
        case issuerMismatch = "idtoken_issuer_mismatch"
        /// `aud` holds none of the configured client ids (or more than one audience without a matching `azp`).
        case audienceMismatch = "idtoken_audience_mismatch"
        /// `exp` is missing or in the past (beyond the allowed skew).
        case expired = "idtoken_expired"
        /// `nbf` is present and in the future (beyond the allowed skew).
        case notYetValid = "idtoken_not_yet_valid"
        /// `iat` is missing or in the future (beyond the allowed skew), or the token is older than the provider's
        /// maximum age.
        case issuedAtInvalid = "idtoken_issued_at_invalid"
        /// The token has no `nonce` claim.
        case nonceMissing = "idtoken_nonce_missing"
        /// `nonce` is not what this session expects under the provider's nonce rule.
        case nonceMismatch = "idtoken_nonce_mismatch"
        /// `sub` is missing or empty.
        case subjectMissing = "idtoken_subject_missing"
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func == (lhs: IdentityError, rhs: IdentityError) -> Bool { lhs.code == rhs.code }
}
