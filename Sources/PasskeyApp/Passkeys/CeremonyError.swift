public import PasskeyErrors

/// Why a passkey ceremony use case refused, beyond the engine's ``WebAuthnCore/WebAuthnError`` and the store's
/// ``PasskeyStore/StoreError``: one stable code per rule. HTTP maps each code to its status; ``reason`` is for logs.
public struct CeremonyError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No pending ceremony has this challenge (never issued, already used, expired), or it was begun for
        /// another user than the finish requires.
        public static let challengeUnknown = Code(rawValue: "challenge_unknown_or_expired")
        /// A sign-up names a user that exists: adding a passkey to an account goes by its id.
        public static let userExists = Code(rawValue: "user_exists")
        /// The user named by id does not exist.
        public static let userUnknown = Code(rawValue: "user_unknown")
        /// The credential of an assertion is not registered (or was deleted during the finish).
        public static let credentialUnknown = Code(rawValue: "credential_unknown")
        /// An automatic upgrade (mediation conditional) while the relying party turns them off.
        public static let conditionalCreateDisabled = Code(rawValue: "conditional_create_disabled")
        /// An automatic upgrade for anything but an existing user named by id.
        public static let conditionalCreateNeedsUserID = Code(rawValue: "conditional_create_needs_user_id")
    }

    public let code: Code
    /// Detail for logs only.
    public let reason: String
    /// With ``Code/credentialUnknown``: the relying party and the credential id, for the Signal API's
    /// `signalUnknownCredential` (the client may tell its authenticator to forget the passkey).
    public let unknownCredential: (rpID: String, credentialID: [UInt8])?

    public init(_ code: Code, _ reason: String = "") {
        self.code = code
        self.reason = reason
        unknownCredential = nil
    }

    /// ``Code/credentialUnknown`` for `credentialID` at relying party `rpID`.
    public static func credentialUnknown(rpID: String, credentialID: [UInt8]) -> CeremonyError {
        CeremonyError(code: .credentialUnknown, reason: "no credential with this id", unknownCredential: (rpID, credentialID))
    }

    private init(code: Code, reason: String, unknownCredential: (rpID: String, credentialID: [UInt8])?) {
        self.code = code
        self.reason = reason
        self.unknownCredential = unknownCredential
    }

    public var description: String { code.rawValue }
}
