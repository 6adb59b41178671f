public import PasskeyErrors

/// Why a webhook secret, signature or endpoint URL was refused: one stable code per check. Equality compares only
/// ``code``; ``reason`` is for logs and never holds a secret.
public struct WebhookError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        // Secrets.
        /// Not `whsec_` followed by standard base64.
        public static let secretMalformed = Code(rawValue: "webhook_secret_malformed")
        /// Fewer than 24 or more than 64 bytes once decoded (the Standard Webhooks range).
        public static let secretLength = Code(rawValue: "webhook_secret_length")

        // Signatures (what a receiver checks; passkeyd's tests verify with it).
        /// A `webhook-id`, `webhook-timestamp` or `webhook-signature` header is missing or not of its form.
        public static let headerMalformed = Code(rawValue: "webhook_header_malformed")
        /// `webhook-timestamp` is further than the tolerance from now.
        public static let timestampOutOfTolerance = Code(rawValue: "webhook_timestamp_out_of_tolerance")
        /// No `v1,` signature in the header matches.
        public static let signatureMismatch = Code(rawValue: "webhook_signature_mismatch")

        // Endpoint URLs.
        /// Not an absolute URL with a host, or longer than 2048 bytes, or with a fragment.
        public static let urlMalformed = Code(rawValue: "webhook_url_malformed")
        /// Not `https` (plain `http` only with the unsafe setting).
        public static let urlScheme = Code(rawValue: "webhook_url_not_https")
        /// Carries `user:password@`.
        public static let urlCredentials = Code(rawValue: "webhook_url_credentials")
        /// The host is, or resolves to, an address outside the public internet (loopback, private, link-local,
        /// unique-local, shared, reserved, multicast or unspecified), or is `localhost`.
        public static let addressForbidden = Code(rawValue: "webhook_address_forbidden")
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
