public import PasskeyErrors

/// Why a session operation was refused: one stable code per check. Equality compares only ``code``; ``reason`` is for
/// logs and never holds a token, a code or a verifier.
public struct SessionError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        // passkeyd's own access tokens, checked in this order.
        /// Not a compact JWS with a JSON header and a JSON object of claims of the right types, or over the size cap.
        public static let accessTokenMalformed = Code(rawValue: "access_token_malformed")
        /// `alg` is not the algorithm of passkeyd's signing keys (`none` and HMAC never are).
        public static let accessTokenAlgorithm = Code(rawValue: "access_token_algorithm_not_allowed")
        /// No published key has the header's `kid` (never signed here, or its key left the JWKS).
        public static let accessTokenKeyUnknown = Code(rawValue: "access_token_key_unknown")
        /// The signature does not verify.
        public static let accessTokenSignature = Code(rawValue: "access_token_signature_invalid")
        /// `iss` is not this passkeyd's issuer.
        public static let accessTokenIssuer = Code(rawValue: "access_token_issuer_mismatch")
        /// `aud` holds none of the configured audiences.
        public static let accessTokenAudience = Code(rawValue: "access_token_audience_mismatch")
        /// `exp` is now or in the past.
        public static let accessTokenExpired = Code(rawValue: "access_token_expired")
        /// The token's session is revoked or gone (checked where the store is asked: handoff, introspection).
        public static let sessionRevoked = Code(rawValue: "session_revoked")

        // Refresh tokens.
        /// Not a refresh token of the expected form.
        public static let refreshTokenMalformed = Code(rawValue: "refresh_token_malformed")
        /// No session knows it.
        public static let refreshTokenUnknown = Code(rawValue: "refresh_token_unknown")
        /// It was retired by an earlier refresh: the whole session is now revoked (reuse detection).
        public static let refreshTokenReused = Code(rawValue: "refresh_token_reused")
        /// Its session is expired (idle or absolute lifetime) or revoked.
        public static let sessionInactive = Code(rawValue: "session_inactive")

        // Handoff codes.
        /// Not a handoff code of the expected form.
        public static let handoffCodeMalformed = Code(rawValue: "handoff_code_malformed")
        /// Never issued, or already exchanged (a code is used up by its first exchange, whatever the outcome).
        public static let handoffCodeUnknown = Code(rawValue: "handoff_code_unknown")
        /// Exchanged at or after its expiry.
        public static let handoffCodeExpired = Code(rawValue: "handoff_code_expired")
        /// The code was bound to a PKCE challenge and the exchange carries no verifier.
        public static let handoffVerifierRequired = Code(rawValue: "handoff_verifier_required")
        /// The exchange carries a verifier but the code was issued without a challenge (a PKCE downgrade, RFC 9700
        /// §2.1.1).
        public static let handoffVerifierUnexpected = Code(rawValue: "handoff_verifier_unexpected")
        /// The verifier is not 43-128 characters of the RFC 7636 alphabet, or a challenge is not 43 base64url characters.
        public static let handoffVerifierMalformed = Code(rawValue: "handoff_verifier_malformed")
        /// BASE64URL(SHA-256(verifier)) is not the challenge.
        public static let handoffVerifierMismatch = Code(rawValue: "handoff_verifier_mismatch")

        /// Every code above, in declaration order (an open set has no `allCases`; a test checks this list against
        /// the declarations).
        public static let all: [Code] = [
            .accessTokenMalformed, .accessTokenAlgorithm, .accessTokenKeyUnknown, .accessTokenSignature,
            .accessTokenIssuer, .accessTokenAudience, .accessTokenExpired, .sessionRevoked, .refreshTokenMalformed,
            .refreshTokenUnknown, .refreshTokenReused, .sessionInactive, .handoffCodeMalformed, .handoffCodeUnknown,
            .handoffCodeExpired, .handoffVerifierRequired, .handoffVerifierUnexpected, .handoffVerifierMalformed,
            .handoffVerifierMismatch,
        ]
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
