public import PasskeyErrors

/// The one error type of the storage layer; equality compares only the code.
public struct StoreError: CodedError {
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The credential id is already registered (to any user): §7.1 step 26.
        public static let duplicateCredential = Code(rawValue: "credential_already_registered")
        /// A registration meant to create its user found the name (or handle) taken: by an earlier account, or by
        /// a concurrent sign-up of the same new name that committed first.
        public static let userExists = Code(rawValue: "user_exists")
        /// A registration meant to add a passkey to an existing user found no such user (deleted meanwhile).
        public static let userUnknown = Code(rawValue: "user_unknown")
        /// The user named by a begin already has the configured number of pending ceremonies.
        public static let tooManyPendingCeremonies = Code(rawValue: "too_many_pending_ceremonies")
        /// The ceremony table holds the configured maximum; begins are refused until the purge frees room.
        public static let ceremonyCapacityReached = Code(rawValue: "ceremony_capacity_reached")
        /// A finish found its ceremony, verified, and then lost it to a concurrent finish of the same challenge that
        /// consumed it first: nothing was written. Clients see it as any used challenge.
        public static let ceremonyTaken = Code(rawValue: "challenge_unknown_or_expired")
        /// The database cannot be reached or failed; the operation did not happen.
        public static let unavailable = Code(rawValue: "storage_unavailable")
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
