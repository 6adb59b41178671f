public import IdentityCore

/// Why a provider's keys (or its discovery document) could not be had: one stable code per cause, written at the start
/// of ``ProviderKeyError/reason`` (`code: detail`) and kept in the sources' statistics for logs and metrics.
public enum ProviderKeyFailure: String, Sendable, Hashable, CaseIterable {
    /// The URL is not `https://` (plain `http://` only for 127.0.0.1, ::1 and localhost), or carries credentials.
    case insecureURL = "provider_keys_insecure_url"
    /// The request did not complete: connection refused, reset, TLS failure, or the request timeout passed.
    case fetchFailed = "provider_keys_fetch_failed"
    /// The server answered with a status other than 200.
    case httpStatus = "provider_keys_http_status"
    /// The document is larger than the size cap.
    case tooLarge = "provider_keys_too_large"
    /// The document is not a JWK set with at least one usable key (or not a discovery document with `jwks_uri`).
    case malformed = "provider_keys_malformed"
    /// The discovery document's `issuer` is not the configured issuer, character for character.
    case issuerMismatch = "provider_discovery_issuer_mismatch"
    /// A key file cannot be read.
    case fileUnreadable = "provider_keys_file_unreadable"
    /// No usable set: never fetched successfully, or the last good set is older than the stale limit, and no new
    /// attempt is allowed yet.
    case unavailable = "provider_keys_unavailable"

    /// The error to throw: `code: detail`.
    func error(_ detail: String) -> ProviderKeyError {
        ProviderKeyError("\(rawValue): \(detail)")
    }

    /// The code at the start of an error made by ``error(_:)``, if any.
    static func of(_ error: ProviderKeyError) -> ProviderKeyFailure? {
        guard let colon = error.reason.firstIndex(of: ":") else { return nil }
        return ProviderKeyFailure(rawValue: String(error.reason[..<colon]))
    }
}

extension ProviderKeyError {
    /// The ``ProviderKeyFailure`` code of an error thrown by this module (`nil` for errors made elsewhere).
    public var failure: ProviderKeyFailure? { ProviderKeyFailure.of(self) }
}
