public import PasskeyErrors

/// Why an admin use case refused: the thing it names does not exist. HTTP answers 404 with the code.
public struct AdminError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No user has this id.
        public static let userUnknown = Code(rawValue: "user_unknown")
        /// The user has no active session with this id.
        public static let sessionUnknown = Code(rawValue: "session_unknown")
        /// No credential has this id.
        public static let credentialUnknown = Code(rawValue: "credential_unknown")
        /// The user has no identity with this id.
        public static let identityUnknown = Code(rawValue: "identity_unknown")
        /// No webhook endpoint (in the settings) has this id.
        public static let webhookEndpointUnknown = Code(rawValue: "webhook_endpoint_unknown")
        /// No webhook delivery has this id.
        public static let webhookDeliveryUnknown = Code(rawValue: "webhook_delivery_unknown")
    }

    public let code: Code
    /// Detail for logs only.
    public let reason: String

    public init(_ code: Code, _ reason: String = "") {
        self.code = code
        self.reason = reason
    }

    public var description: String { code.rawValue }
}
