public import PasskeyErrors

/// Why a self-service use case refused. HTTP maps each code to its status; ``reason`` is for logs.
public struct SelfServiceError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Adding or removing a sign-in method needs a sign-in within the reauthentication window.
        public static let reauthenticationRequired = Code(rawValue: "reauthentication_required")
        /// The credential or identity is the account's only way to sign in (and removing it is not allowed).
        public static let lastSignInMethod = Code(rawValue: "last_sign_in_method")
        /// The signed-in person has no credential with this id (another user's is unknown too).
        public static let credentialUnknown = Code(rawValue: "credential_unknown")
        /// The signed-in person has no identity with this id (another user's is unknown too).
        public static let identityUnknown = Code(rawValue: "identity_unknown")
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
