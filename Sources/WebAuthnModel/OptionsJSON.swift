// The W3C JSON forms the server sends (WebAuthn L3 §5.1: PublicKeyCredentialCreationOptionsJSON and
// PublicKeyCredentialRequestOptionsJSON), accepted by `PublicKeyCredential.parseCreationOptionsFromJSON`.

/// `PublicKeyCredentialRpEntity`.
public struct RelyingPartyEntityJSON: Sendable, Codable, Equatable {
    public var id: String?
    public var name: String
    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }
}

/// `PublicKeyCredentialUserEntityJSON` (id is base64url).
public struct UserEntityJSON: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var displayName: String
    public init(id: String, name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// `PublicKeyCredentialParameters`.
public struct CredentialParametersJSON: Sendable, Codable, Equatable {
    public var type: String
    public var alg: Int
    public init(type: String = "public-key", alg: Int) {
        self.type = type
        self.alg = alg
    }
}

/// `PublicKeyCredentialDescriptorJSON` (id is base64url).
public struct CredentialDescriptorJSON: Sendable, Codable, Equatable {
    public var type: String
    public var id: String
    public var transports: [String]?
    public init(type: String = "public-key", id: String, transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// `AuthenticatorSelectionCriteria`.
public struct AuthenticatorSelectionJSON: Sendable, Codable, Equatable {
    public var authenticatorAttachment: String?
    public var residentKey: String?
    public var requireResidentKey: Bool?
    public var userVerification: String?
    public init(
        authenticatorAttachment: String? = nil, residentKey: String? = nil, requireResidentKey: Bool? = nil,
        userVerification: String? = nil
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }
}

/// `PublicKeyCredentialCreationOptionsJSON`.
public struct CreationOptionsJSON: Sendable, Codable, Equatable {
    public var rp: RelyingPartyEntityJSON
    public var user: UserEntityJSON
    public var challenge: String
    public var pubKeyCredParams: [CredentialParametersJSON]
    public var timeout: Int?
    public var excludeCredentials: [CredentialDescriptorJSON]
    public var authenticatorSelection: AuthenticatorSelectionJSON?
    public var hints: [String]?
    public var attestation: String?
    public var attestationFormats: [String]?
    public var extensions: [String: JSONValue]?

    public init(
        rp: RelyingPartyEntityJSON, user: UserEntityJSON, challenge: String,
        pubKeyCredParams: [CredentialParametersJSON], timeout: Int?, excludeCredentials: [CredentialDescriptorJSON],
        authenticatorSelection: AuthenticatorSelectionJSON?, hints: [String]?, attestation: String?,
        attestationFormats: [String]? = nil, extensions: [String: JSONValue]?
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.extensions = extensions
    }
}

/// `PublicKeyCredentialRequestOptionsJSON`.
public struct RequestOptionsJSON: Sendable, Codable, Equatable {
    public var challenge: String
    public var timeout: Int?
    public var rpId: String?
    public var allowCredentials: [CredentialDescriptorJSON]
    public var userVerification: String?
    public var hints: [String]?
    public var extensions: [String: JSONValue]?

    public init(
        challenge: String, timeout: Int?, rpId: String?, allowCredentials: [CredentialDescriptorJSON],
        userVerification: String?, hints: [String]?, extensions: [String: JSONValue]?
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
    }
}
