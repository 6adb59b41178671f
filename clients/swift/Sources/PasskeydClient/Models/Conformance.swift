// The FIDO conformance binding (PASSKEYD_FIDO_CONFORMANCE=on): the conformance tools' ServerResponse shapes.

/// The profile's `ServerResponse`.
public struct ConformanceServerResponse: Sendable, Codable, Equatable {
    /// `ok` (a refusal is a ``PasskeydError``).
    public var status: String
    public var errorMessage: String
}

/// The profile's `ServerPublicKeyCredentialCreationOptionsResponse`.
public struct ConformanceCreationOptionsResponse: Sendable, Codable, Equatable {
    public var status: String?
    public var errorMessage: String?
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntityJSON
    public var challenge: String
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    public var timeout: Int?
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]
    public var authenticatorSelection: AuthenticatorSelectionCriteria?
    public var attestation: String
    public var extensions: [String: JSONValue]?
}

/// The profile's `ServerPublicKeyCredentialGetOptionsResponse`.
public struct ConformanceGetOptionsResponse: Sendable, Codable, Equatable {
    public var status: String?
    public var errorMessage: String?
    public var challenge: String
    public var timeout: Int?
    public var rpId: String
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]
    public var userVerification: String
    public var extensions: [String: JSONValue]?
}
