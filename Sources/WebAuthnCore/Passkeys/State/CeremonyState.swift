public import Foundation

/// The account a credential is registered for (`PublicKeyCredentialUserEntity`).
public struct UserEntity: Sendable, Codable, Hashable {
    /// The user handle: opaque, at most 64 bytes, no personal information.
    public let id: [UInt8]
    public let name: String
    public let displayName: String

    /// Creates a user entity.
    /// - Throws: `invalidUserEntity` when the handle is empty or longer than 64 bytes.
    public init(id: [UInt8], name: String, displayName: String) throws(WebAuthnError) {
        guard !id.isEmpty, id.count <= 64 else {
            throw WebAuthnError(.invalidUserEntity, "user handle must be 1...64 bytes, got \(id.count)")
        }
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

extension WebAuthnError.Code {
    /// A user handle outside 1...64 bytes was given to `beginRegistration`.
    public static let invalidUserEntity = WebAuthnError.Code(rawValue: "invalid_user_entity")
}

/// A credential reference for `excludeCredentials` / `allowCredentials`.
public struct CredentialDescriptor: Sendable, Codable, Hashable {
    public let id: [UInt8]
    public let transports: [String]
    public init(id: [UInt8], transports: [String] = []) {
        self.id = id
        self.transports = transports
    }
}

/// How a registration was requested of the client (`CredentialCreationOptions.mediation`).
public enum CredentialMediation: String, Sendable, Codable, Hashable {
    /// A conditional create (an automatic passkey upgrade right after another sign-in): the passkey provider
    /// creates the credential without a prompt, so the response may carry UP=0 and UV=0.
    case conditional
}

/// What registration must remember between begin and finish. The caller stores it server-side
/// (never in a client cookie) and passes it back to `finishRegistration` exactly once.
public struct RegistrationState: Sendable, Codable, Hashable {
    public let challenge: [UInt8]
    public let user: UserEntity
    /// The requirement sent in the options; finish enforces it.
    public let userVerification: UserVerificationRequirement
    /// COSE algorithm identifiers sent in `pubKeyCredParams`.
    public let algorithms: [Int]
    /// When the challenge stops being valid.
    public let expiresAt: Date
    /// `.conditional` for an automatic upgrade, decided at begin and kept here: never taken from the finish request
    /// (clientDataJSON does not carry it). Nil for a normal (modal) ceremony.
    public let mediation: CredentialMediation?

    public init(
        challenge: [UInt8], user: UserEntity, userVerification: UserVerificationRequirement, algorithms: [Int],
        expiresAt: Date, mediation: CredentialMediation? = nil
    ) {
        self.challenge = challenge
        self.user = user
        self.userVerification = userVerification
        self.algorithms = algorithms
        self.expiresAt = expiresAt
        self.mediation = mediation
    }
}

/// What authentication must remember between begin and finish.
public struct AuthenticationState: Sendable, Codable, Hashable {
    public let challenge: [UInt8]
    public let userVerification: UserVerificationRequirement
    /// Credential ids sent in `allowCredentials` (empty for discoverable / conditional-UI requests).
    public let allowCredentialIDs: [[UInt8]]
    /// The user the ceremony was started for, or nil when the user is identified by the assertion's userHandle.
    public let userHandle: [UInt8]?
    /// The U2F AppID offered through the `appid` extension, if any.
    public let appID: String?
    public let expiresAt: Date

    public init(
        challenge: [UInt8], userVerification: UserVerificationRequirement, allowCredentialIDs: [[UInt8]],
        userHandle: [UInt8]?, appID: String?, expiresAt: Date
    ) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.allowCredentialIDs = allowCredentialIDs
        self.userHandle = userHandle
        self.appID = appID
        self.expiresAt = expiresAt
    }
}
