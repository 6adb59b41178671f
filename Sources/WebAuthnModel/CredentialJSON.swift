// The W3C JSON forms a client sends back (WebAuthn L3 §5.1: RegistrationResponseJSON, AuthenticationResponseJSON).
// These are *unverified input*: every binary member is still a base64 string exactly as received.

/// `AuthenticatorAttestationResponseJSON`.
public struct AuthenticatorAttestationResponseJSON: Sendable, Codable, Equatable {
    public var clientDataJSON: String
    public var attestationObject: String
    public var authenticatorData: String?
    public var transports: [String]?
    public var publicKey: String?
    public var publicKeyAlgorithm: Int?

    public init(
        clientDataJSON: String, attestationObject: String, authenticatorData: String? = nil,
        transports: [String]? = nil, publicKey: String? = nil, publicKeyAlgorithm: Int? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
    }
}

/// `RegistrationResponseJSON`: what `PublicKeyCredential.toJSON()` returns after `create()`.
public struct RegistrationResponseJSON: Sendable, Codable, Equatable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AuthenticatorAttestationResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: [String: JSONValue]?

    public init(
        id: String, rawId: String, type: String = "public-key", response: AuthenticatorAttestationResponseJSON,
        authenticatorAttachment: String? = nil, clientExtensionResults: [String: JSONValue]? = [:]
    ) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }
}

/// `AuthenticatorAssertionResponseJSON`.
public struct AuthenticatorAssertionResponseJSON: Sendable, Codable, Equatable {
    public var clientDataJSON: String
    public var authenticatorData: String
    public var signature: String
    public var userHandle: String?

    public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String? = nil) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// `AuthenticationResponseJSON`: what `PublicKeyCredential.toJSON()` returns after `get()`.
public struct AuthenticationResponseJSON: Sendable, Codable, Equatable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AuthenticatorAssertionResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: [String: JSONValue]?

    public init(
        id: String, rawId: String, type: String = "public-key", response: AuthenticatorAssertionResponseJSON,
        authenticatorAttachment: String? = nil, clientExtensionResults: [String: JSONValue]? = [:]
    ) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }
}
