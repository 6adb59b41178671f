/// Why a session operation was refused: one stable code per check. Equality compares only ``code``; ``reason`` is for
/// logs and never holds a token, a code or a verifier.
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // passkeyd's own access tokens, checked in this order.
        /// Not a compact JWS with a JSON header and a JSON object of claims of the right types, or over the size cap.
        case accessTokenMalformed = "access_token_malformed"
        /// `alg` is not the algorithm of passkeyd's signing keys (`none` and HMAC never are).
        case accessTokenAlgorithm = "access_token_algorithm_not_allowed"
        /// No published key has the header's `kid` (never signed here, or its key left the JWKS).
        case accessTokenKeyUnknown = "access_token_key_unknown"
        /// The signature does not verify.
        case accessTokenSignature = "access_token_signature_invalid"
        /// `iss` is not this passkeyd's issuer.
        case accessTokenIssuer = "access_token_issuer_mismatch"
        /// `aud` holds none of the configured audiences.
        case accessTokenAudience = "access_token_audience_mismatch"
        /// `exp` is now or in the past.
        case accessTokenExpired = "access_token_expired"
        /// The token's session is revoked or gone (checked where the store is asked: handoff, introspection).
        case sessionRevoked = "session_revoked"

        // Refresh tokens.
        /// Not a refresh token of the expected form.
        case refreshTokenMalformed = "refresh_token_malformed"
        /// No session knows it.
        case refreshTokenUnknown = "refresh_token_unknown"
        /// It was retired by an earlier refresh: the whole session is now revoked (reuse detection).
        case refreshTokenReused = "refresh_token_reused"
        /// Its session is expired (idle or absolute lifetime) or revoked.
        case sessionInactive = "session_inactive"

        // Handoff codes.
        /// Not a handoff code of the expected form.
        case handoffCodeMalformed = "handoff_code_malformed"
        /// Never issued, or already exchanged (a code is used up by its first exchange, whatever the outcome).
        case handoffCodeUnknown = "handoff_code_unknown"
        /// Exchanged at or after its expiry.
        case handoffCodeExpired = "handoff_code_expired"
        /// The code was bound to a PKCE challenge and the exchange carries no verifier.
        case handoffVerifierRequired = "handoff_verifier_required"
        /// The exchange carries a verifier but the code was issued without a challenge (a PKCE downgrade, RFC 9700
        /// §2.1.1).
        case handoffVerifierUnexpected = "handoff_verifier_unexpected"
        /// The verifier is not 43-128 characters of the RFC 7636 alphabet, or a challenge is not 43 base64url characters.
        case handoffVerifierMalformed = "handoff_verifier_malformed"
        /// BASE64URL(SHA-256(verifier)) is not the challenge.
        case handoffVerifierMismatch = "handoff_verifier_mismatch"
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    public static func == (lhs: SessionError, rhs: SessionError) -> Bool { lhs.code == rhs.code }
}
