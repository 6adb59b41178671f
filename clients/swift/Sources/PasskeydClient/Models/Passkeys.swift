// Registration and sign-in: what the calls take beyond the W3C types, and what they answer.

/// Whom a registration (or an ID-token sign-in) is for.
public enum NewOrExistingUser: Sendable, Equatable, Codable {
    /// A new account by name (a registration: 409 `user_exists` when taken); `displayName` defaults to the name.
    case new(name: String, displayName: String? = nil)
    /// An existing user by id: add a passkey (or link an identity). Only for a person your backend has authenticated.
    case existing(id: String)

    enum CodingKeys: String, CodingKey { case name, displayName, id }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIfPresent(String.self, forKey: .id) {
            self = .existing(id: id)
        } else {
            self = .new(
                name: try container.decode(String.self, forKey: .name),
                displayName: try container.decodeIfPresent(String.self, forKey: .displayName))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .new(let name, let displayName):
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(displayName, forKey: .displayName)
        case .existing(let id):
            try container.encode(id, forKey: .id)
        }
    }
}

/// Whose passkeys a sign-in asks for; nil (no user) asks for a discoverable credential.
public enum SignInUser: Sendable, Equatable, Codable {
    /// By name: `allowCredentials` lists the user's passkeys (an unknown name gets options of the same shape).
    case name(String)
    /// By user id.
    case id(String)

    enum CodingKeys: String, CodingKey { case name, id }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIfPresent(String.self, forKey: .id) {
            self = .id(id)
        } else {
            self = .name(try container.decode(String.self, forKey: .name))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .name(let name): try container.encode(name, forKey: .name)
        case .id(let id): try container.encode(id, forKey: .id)
        }
    }
}

/// How a registration is created.
public enum Mediation: String, Sendable, Codable {
    /// An automatic passkey upgrade (a conditional create right after the person signed in another way): pass
    /// the answer's `mediation` with `publicKey` to `navigator.credentials.create()`. Only for an existing user.
    case conditional
}

/// A registration begin's answer: the options for the client, and `mediation` (`conditional`) only for an automatic
/// upgrade. Encode it as it is for a page: it is the shape `navigator.credentials.create()` takes.
public struct RegistrationBeginResponse: Sendable, Codable, Equatable {
    public var publicKey: PublicKeyCredentialCreationOptionsJSON
    public var mediation: String?
}

public struct RegistrationFinishResponse: Sendable, Codable, Equatable {
    public var user: User
    public var credential: Credential
    /// With sessions on and `PASSKEYD_SESSION_ON_REGISTRATION=on`: the new user's session.
    public var session: Session?
}

public struct CreateUserResponse: Sendable, Codable, Equatable {
    public var user: User
}

/// A sign-in begin's answer: the options for `navigator.credentials.get()`.
public struct AuthenticationBeginResponse: Sendable, Codable, Equatable {
    public var publicKey: PublicKeyCredentialRequestOptionsJSON
}

/// A verified sign-in.
public struct AuthenticationFinishResponse: Sendable, Codable, Equatable {
    /// The credential's owner (nil only if the owner no longer exists).
    public var user: User?
    public var credential: Credential
    /// Whether this assertion had the UV flag.
    public var userVerified: Bool
    /// `not_supported` (normal for passkeys), `increased` or `regressed`.
    public var signCountStatus: String
    /// With sessions on (`PASSKEYD_SESSIONS=on`): a new session for the user.
    public var session: Session?
    /// The Signal API's arguments after this sign-in, for the page's `signalAllAcceptedCredentials` and
    /// `signalCurrentUserDetails`.
    public var signal: AcceptedCredentialsSignal?
}
